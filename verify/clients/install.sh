#!/usr/bin/env bash
# Installs the pinned clients from the lockfile when missing or out of date
# (used by run.sh and tcpbase/freecad/run-tests.sh).
# Not `npm ci`: the registry here does not serve vite's Windows-only optional
# dependency napi-windows-process-start-time, so `npm ci` calls the lockfile
# out of sync. `npm install` skips that optional package and installs exactly
# what the lockfile pins; the cmp below fails the run if it changed anything.
set -euo pipefail
cd "$(dirname "$0")"
if [ ! -f node_modules/.installed ] || [ package-lock.json -nt node_modules/.installed ]; then
  echo "e2e: installing the pinned clients from package-lock.json"
  cp package-lock.json "${TMPDIR:-/tmp}/mcp-bridge-lock.$$"
  npm install --no-audit --no-fund --loglevel=error
  if ! cmp -s package-lock.json "${TMPDIR:-/tmp}/mcp-bridge-lock.$$"; then
    mv "${TMPDIR:-/tmp}/mcp-bridge-lock.$$" package-lock.json
    echo "e2e: FAIL npm install changed package-lock.json: the pinned versions could not be installed"
    exit 1
  fi
  rm -f "${TMPDIR:-/tmp}/mcp-bridge-lock.$$"
  touch node_modules/.installed
fi
