#!/usr/bin/env bash
# Installs the pinned clients (used by run.sh, tcpbase/freecad/run-tests.sh
# and .ci/dist.sh) with `npm ci` from the committed lockfile, then checks
# what matters: the installed versions of the packages package.json pins
# (checkpins.mjs). The lockfile is complete as npm writes it, optional
# packages for other platforms included, and is never rewritten here.
#
# Registries move: one may start serving an optional package that a
# locked package asks for (vite's Windows-only
# napi-windows-process-start-time did), and `npm ci` then calls the
# lockfile out of sync although every pinned version is still there. Then
# `npm install` installs from the lockfile plus what is new, the committed
# lockfile is put back, and the pin check decides; a warning says to
# commit a refreshed lockfile.
set -euo pipefail
cd "$(dirname "$0")"
pins() { node checkpins.mjs . "$@"; }

if [ -f node_modules/.installed ] && [ ! package-lock.json -nt node_modules/.installed ] && pins 2>/dev/null; then
  exit 0
fi
pins --lock-only
echo "e2e: installing the pinned clients: npm ci"
if ! npm ci --no-audit --no-fund --loglevel=error; then
  echo "e2e: npm ci refused the lockfile (above); installing with npm install and keeping the committed lockfile"
  saved="${TMPDIR:-/tmp}/mcp-bridge-lock.$$"
  cp package-lock.json "$saved"
  trap 'mv -f "$saved" package-lock.json' EXIT
  npm install --no-audit --no-fund --loglevel=error
  cmp -s package-lock.json "$saved" ||
    echo "e2e: WARNING the registry now serves packages the lockfile lacks; run 'npm install' in verify/clients and commit package-lock.json"
fi
pins
touch node_modules/.installed
