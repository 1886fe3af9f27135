#!/usr/bin/env bash
# make test-freecad's launch checks: FreeCAD is not running, and a real
# client (the TypeScript SDK 1.x, verify/clients/launch.mjs) calls
# draw_line through a bridge with --launch: the bridge starts FreeCAD with
# the base, the call is answered (the time from the call to the answer is
# printed), a second call reads the line back, the client closes and the
# bridge exits, and FreeCAD runs on (its base still answers). Twice:
# headless (freecadcmd headless.py) and desktop FreeCAD with
# MCPBridgeBase.FCMacro on an Xvfb screen, a fresh profile. FreeCAD is
# stopped at the end, by this script.
# Usage: tcpbase/freecad/launch.sh path/to/mcp-bridge
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
bin=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
fail() { echo "launch: FAIL $*"; exit 1; }

. "$here/lib.sh"
fc=$(freecadcmd_path) || fail "could not install FreeCAD"
desk=$(desktop_path) || fail "could not install desktop FreeCAD"

work=$(mktemp -d)
ports=()
# listener prints the pid of the process listening on port $1, or nothing.
listener() { ss -ltnpH "sport = :$1" 2>/dev/null | sed -n 's/.*pid=\([0-9]*\).*/\1/p' | head -1; }
# stop_cad stops what listens on port $1 (the FreeCAD the bridge started).
stop_cad() {
  local pid _
  pid=$(listener "$1")
  [ -n "$pid" ] || return 0
  kill "$pid" 2>/dev/null || true
  for _ in $(seq 100); do kill -0 "$pid" 2>/dev/null || return 0; sleep 0.1; done
  kill -9 "$pid" 2>/dev/null || true
}
cleanup() {
  local p
  for p in "${ports[@]}"; do stop_cad "$p"; done
  [ -z "${xvfb_pid:-}" ] || kill "$xvfb_pid" 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT

# client LABEL PORT [BRIDGE ARGS…]: launch.mjs with the bridge, its lock
# and FreeCAD's output in WORK/LABEL.
client() {
  local label=$1 port=$2
  shift 2
  ports+=("$port")
  (cd "$root/verify/clients" && node launch.mjs "$label" "$port" "$bin" --port "$port" --cache-dir "$work/$label" --launch-wait 5m "$@") ||
    { tail -n 30 "$work/$label"/launch-*.log 2>/dev/null; fail "$label: see above"; }
  local pid
  pid=$(listener "$port")
  [ -n "$pid" ] || fail "$label: nothing listens on $port after the bridge exited"
  echo "launch: ok   $label: FreeCAD (pid $pid) still serves on $port: $(tr '\0' ' ' </proc/"$pid"/cmdline | cut -c1-160)"
}

# Headless: freecadcmd headless.py, its port from CAD_MCP_FREECAD_PORT
# (which the bridge passes on with the rest of its environment).
port=$(free_port)
CAD_MCP_FREECAD_PORT=$port client headless "$port" --launch "$fc" --launch-arg "$here/headless.py"
stop_cad "$port"

# Desktop FreeCAD on an Xvfb screen, with a fresh profile: the macro in
# the user macro folder, the port in its MCPBridge preference.
start_xvfb "$work" || fail "Xvfb did not start"
port=$(free_port)
desktop_profile "$work" "$port"
HOME=$work/home QTWEBENGINE_CHROMIUM_FLAGS=--no-sandbox \
  client desktop "$port" --launch "$desk" --launch-arg -u --launch-arg "$work/user.cfg" --launch-arg "$macros/MCPBridgeBase.FCMacro"
stop_cad "$port"
echo "launch: all launch checks against FreeCAD passed"
