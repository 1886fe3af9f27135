#!/usr/bin/env bash
# The bridge against desktop FreeCAD, as a user first sees it (part of make
# test-freecad; make demo-freecad-gui). Installs Debian's freecad, Xvfb,
# ImageMagick and xdotool when missing; starts FreeCAD on an Xvfb screen
# with MCPBridgeBase.FCMacro; draws the demo's bracket through the bridge
# (`mcp-bridge demo --port`); then desktop.py checks through the bridge and
# screenshots that the bracket shows in full (zoom_extents) and the tree
# lists its entities, that the first geometry of an empty drawing is put
# in view, and that closing the window while a call waits ends that call
# with -32603 while the bridge keeps serving. The saved document is read
# back to show the held call never ran. Keeps OUTDIR/freecad-desktop.png
# and prints its path last.
# Usage: tcpbase/freecad/desktop.sh path/to/mcp-bridge OUTDIR
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
bin=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
mkdir -p "$2"
out=$(cd "$2" && pwd)
fail() { echo "desktop: FAIL $*"; exit 1; }

. "$here/lib.sh"
fc=$(desktop_path) || fail "could not install desktop FreeCAD"
fccmd=$(freecadcmd_path) || fail "could not install freecadcmd"

work=$(mktemp -d)
cleanup() { stop_desktop; rm -rf "$work"; }
trap cleanup EXIT

start_desktop "$fc" "$work" || fail "desktop FreeCAD with MCPBridgeBase.FCMacro did not start"
echo "desktop: ok   FreeCAD ($fc) on the Xvfb screen $DISPLAY, the macro's base on $desktop_addr"

"$bin" demo --port "${desktop_addr##*:}" --out "$work/demo" >"$work/demo.out" 2>&1 ||
  { cat "$work/demo.out"; fail "mcp-bridge demo --port (the bracket) against desktop FreeCAD"; }
cat "$work/demo.out"
echo "desktop: ok   mcp-bridge demo drew the bracket in desktop FreeCAD"

/usr/bin/python3 "$here/desktop.py" "$bin" "${desktop_addr##*:}" "$work/probe" "$out" "$desktop_pid" >"$work/desktop.out" 2>&1 ||
  { cat "$work/desktop.out"; tail -n 20 "$work/freecad.out" "$work/freecad.err" "$work/probe/bridge.err"; fail "desktop.py (see above)"; }
grep '^desktop: ok' "$work/desktop.out"
wait "$desktop_pid" 2>/dev/null || true
desktop_pid=

read -r saved entities < <(sed -n 's/^desktop: saved //p' "$work/desktop.out")
got=$(cd "$work" && "$fccmd" "$here/reopen.py" "$saved" 2>/dev/null | sed -n 's/^.*reopened: .*"entities": \([0-9]*\).*$/\1/p')
[ "$got" = "$entities" ] || fail "the document saved as FreeCAD closed holds ${got:-no} entities, not $entities: the held call ran after all?"
echo "desktop: ok   the document saved while closing holds its $entities entities, not the held call's"
echo "desktop: the screenshot: $out/freecad-desktop.png"
