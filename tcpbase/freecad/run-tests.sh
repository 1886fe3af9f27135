#!/usr/bin/env bash
# make test-freecad: the bridge against real FreeCAD. Installs FreeCAD
# (Debian's freecad-python3, for freecadcmd) when missing, starts the
# headless FreeCAD base on a free port, and runs through the bridge:
# `mcp-bridge verify --scratch` (the drawing-changing checks included), the
# MCP Inspector CLI (--strict tools/list, a tool call), the TypeScript SDK
# 1.x client script, the Go tests that compare FreeCAD's tools with the
# simulated base's, run the protocol edge-case table against both bases
# and read the geometry back from FreeCAD, the desktop macro's machinery
# (guicheck.py), and `mcp-bridge doctor`. Then --launch (launch.sh): with
# FreeCAD not running, a real client's draw_line through a bridge that
# starts it, headless and desktop, timed; FreeCAD outlives the bridge.
# Then desktop FreeCAD under Xvfb
# (desktop.sh; installs freecad, Xvfb, ImageMagick and xdotool when
# missing): the demo's bracket drawn through the bridge and seen in a
# screenshot, kept as bin/freecad-desktop/freecad-desktop.png.
# Usage: tcpbase/freecad/run-tests.sh path/to/mcp-bridge
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
bin=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
fail() { echo "test-freecad: FAIL $*"; exit 1; }
pass() { echo "test-freecad: ok   $*"; }

. "$here/lib.sh"
fc=$(freecadcmd_path) || fail "could not install FreeCAD"
"$root/verify/clients/install.sh"

work=$(mktemp -d)
cleanup() { stop_base; rm -rf "$work"; }
trap cleanup EXIT

start_base "$fc" "$work" || fail "the FreeCAD base did not start"
addr=$base_addr
port=${addr##*:}
pass "FreeCAD base ($fc) on $addr"

(cd "$root" && CAD_MCP_FREECAD_ADDR="$addr" CAD_MCP_BRIDGE="$bin" CAD_MCP_FREECADCMD="$fc" \
  go test -count=1 -v ./tcpbase/freecad >"$work/go.out" 2>&1) || { cat "$work/go.out"; fail "go test ./tcpbase/freecad"; }
grep -q -- '--- SKIP' "$work/go.out" && { cat "$work/go.out"; fail "go test ./tcpbase/freecad skipped a FreeCAD test"; }
pass "go test ./tcpbase/freecad: $(grep -c -- '--- PASS' "$work/go.out") passed (tools = simbase's + render_drawing, edge cases on both bases, geometry read back)"

# The desktop macro's machinery (cadbase/gui.py), without a screen.
(cd "$work" && "$fc" "$here/guicheck.py" >"$work/gui.out" 2>&1) || true
grep -q '^guicheck: ok' "$work/gui.out" || { cat "$work/gui.out"; fail "the macro's base (guicheck.py)"; }
pass "$(grep '^guicheck: ok' "$work/gui.out" | sed 's/^guicheck: ok *//')"

"$bin" verify --port "$port" --scratch >"$work/verify.out" 2>&1 || { cat "$work/verify.out"; fail "mcp-bridge verify --scratch"; }
grep -q 'tools/call changes the drawing  *pass' "$work/verify.out" || { cat "$work/verify.out"; fail "verify did not run the drawing-changing checks"; }
pass "mcp-bridge verify --port $port --scratch: $(tail -1 "$work/verify.out")"

# Client configurations on this machine are not ours to judge here: only
# the base's part of the report counts (reachable, no schema findings).
"$bin" doctor --port "$port" --json >"$work/doctor.json" 2>"$work/err" || true
node -e '
  const r = JSON.parse(require("fs").readFileSync(process.argv[1]));
  if (!r.reachable || (r.findings ?? []).length !== 0) { console.log(JSON.stringify(r.findings ?? r)); process.exit(1); }
  console.log(`test-freecad: ok   mcp-bridge doctor: ${r.tools.length} tools, no schema findings`);
' "$work/doctor.json" || { cat "$work/doctor.json" "$work/err"; fail "mcp-bridge doctor reports schema problems"; }

cd "$root/verify/clients"
"$bin" --print-config --client inspector --port "$port" --log-level warn --no-cache >"$work/inspector.json"
inspector() { npx --no-install mcp-inspector --cli --config "$work/inspector.json" --server cad-autocad "$@"; }
want_tools=$(printf '%s\n' '{"jsonrpc":"2.0","id":1,"method":"tools/list"}' | "$bin" --port "$port" --log-level error --no-cache |
  node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>console.log(JSON.parse(s).result.tools.length))')
inspector --method tools/list --strict >"$work/list.json" 2>"$work/err" || { cat "$work/err"; fail "Inspector tools/list --strict"; }
got=$(node -e 'console.log(JSON.parse(require("fs").readFileSync(process.argv[1])).tools.length)' "$work/list.json")
[ "$got" = "$want_tools" ] || fail "Inspector tools/list: $got tools, the base has $want_tools"
pass "Inspector tools/list --strict: $got tools"
inspector --method tools/call --tool-name draw_line --tool-args-json '{"start":{"x":0,"y":0},"end":{"x":6,"y":8}}' >"$work/call.json" 2>"$work/err" ||
  { cat "$work/err"; fail "Inspector tools/call draw_line"; }
grep -q 'length 10' "$work/call.json" || { cat "$work/call.json"; fail "Inspector tools/call: unexpected result"; }
pass "Inspector tools/call draw_line: $(grep -o 'Line [^"]*' "$work/call.json" | head -1)"

node sdk1.mjs "$bin" "$port" || fail "TypeScript SDK 1.x client"

# make demo-freecad's story, so it cannot rot: it ends with both files.
"$bin" demo --port "$port" --out "$work/demo" >"$work/demo.out" 2>&1 || { cat "$work/demo.out"; fail "mcp-bridge demo --port"; }
[ -s "$work/demo/bracket.FCStd" ] && [ "$(head -c 4 "$work/demo/bracket.png" | od -An -c | tr -d ' ')" = '211PNG' ] ||
  { cat "$work/demo.out"; fail "the demo did not write bracket.FCStd and bracket.png"; }
pass "mcp-bridge demo --port: bracket.FCStd and bracket.png written"

"$here/launch.sh" "$bin" >"$work/launch.out" 2>&1 || { cat "$work/launch.out"; fail "--launch (launch.sh)"; }
sed -n -e 's/^launch: ok  */test-freecad: ok   launch: /p' -e 's/^launch: time/test-freecad: launch: time/p' "$work/launch.out"

stop_base
"$here/desktop.sh" "$bin" "$root/bin/freecad-desktop" >"$work/desktop.out" 2>&1 || { cat "$work/desktop.out"; fail "desktop FreeCAD (desktop.sh)"; }
sed -n 's/^desktop: ok  */test-freecad: ok   desktop: /p' "$work/desktop.out"
pass "$(grep '^desktop: the screenshot' "$work/desktop.out" | sed 's/^desktop: //')"

echo "test-freecad: all checks against FreeCAD passed"
