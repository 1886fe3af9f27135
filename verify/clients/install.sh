#!/usr/bin/env bash
# install.sh [DIR]: installs the pinned clients of DIR (verify/clients by
# default: used by run.sh, tcpbase/freecad/run-tests.sh and .ci/dist.sh;
# verify/realclients for make test-clients) with `npm ci` from DIR's
# committed lockfile, then checks what matters: the installed versions of
# the packages DIR/package.json pins (checkpins.mjs). The lockfile is
# complete as npm writes it, optional packages for other platforms
# included, and is never rewritten here.
#
# Registries move: one may start serving an optional package that a
# locked package asks for (vite's Windows-only
# napi-windows-process-start-time did), and `npm ci` then calls the
# lockfile out of sync although every pinned version is still there. Then
# `npm install` installs from the lockfile plus what is new, the committed
# lockfile is put back, and the pin check decides; a warning says to
# commit a refreshed lockfile.
set -euo pipefail
checkpins="$(cd "$(dirname "$0")" && pwd)/checkpins.mjs"
cd "${1:-$(dirname "$0")}"
dir=$(pwd)
pins() { node "$checkpins" . "$@"; }

if [ -f node_modules/.installed ] && [ ! package-lock.json -nt node_modules/.installed ] && pins 2>/dev/null; then
  exit 0
fi
pins --lock-only
echo "e2e: installing the pinned clients of $dir: npm ci"
if ! npm ci --no-audit --no-fund --loglevel=error; then
  echo "e2e: npm ci refused the lockfile (above); installing with npm install and keeping the committed lockfile"
  saved="${TMPDIR:-/tmp}/mcp-bridge-lock.$$"
  cp package-lock.json "$saved"
  trap 'mv -f "$saved" package-lock.json' EXIT
  npm install --no-audit --no-fund --loglevel=error
  cmp -s package-lock.json "$saved" ||
    echo "e2e: WARNING the registry now serves packages the lockfile lacks; run 'npm install' in $dir and commit package-lock.json"
fi
pins
touch node_modules/.installed
