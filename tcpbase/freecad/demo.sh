#!/usr/bin/env bash
# make demo-freecad: the demo's story against real FreeCAD. Starts the
# headless FreeCAD base (installing FreeCAD when missing), runs
# `mcp-bridge demo --port` against it, which draws a small part through the
# bridge and writes bracket.FCStd and bracket.png into OUTDIR.
# Usage: tcpbase/freecad/demo.sh path/to/mcp-bridge OUTDIR
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
bin=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
out=$2
. "$here/lib.sh"
fc=$(freecadcmd_path)
work=$(mktemp -d)
cleanup() { stop_base; rm -rf "$work"; }
trap cleanup EXIT
start_base "$fc" "$work" || { echo "demo-freecad: the FreeCAD base did not start"; exit 1; }
echo "FreeCAD base started: $fc $here/headless.py"
"$bin" demo --port "${base_addr##*:}" --out "$out"
