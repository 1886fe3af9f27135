#!/usr/bin/env bash
# make test-windows: the windows/amd64 build, run as Windows programs under
# Wine on this Linux machine.
#   1. every package's unit tests, built with GOOS=windows and run by
#      `go test -exec .ci/windows/wine-exec`;
#   2. the confirmation question of mcp-bridge.exe as a Win32 message box
#      on Wine's X display (Xvfb), end to end: verify's TestDesktopConfirm
#      run on Linux with the .exe as the Go SDK client's server; the box
#      found by its title, photographed (bin/wine/desktop/), answered each
#      way: only Run sends the call to the base;
#   3. mcp-bridge.exe installed as C:\Program Files\mcp-bridge\mcp-bridge.exe:
#      --print-config and doctor with that path; --launch starting a small
#      Windows program that serves a base (fakecad.exe) detached, with no
#      console, still serving after the bridge exits; then the real clients and
#      `mcp-bridge verify` (verify/clients/run.sh) against it, the simulated
#      base running on the Linux side, over loopback; then the first hour
#      from the Windows archive (verify/clients/firsthour.sh).
# Installs Wine, the MinGW cross-compiler, Xvfb, xdotool and ImageMagick
# with apt-get when missing (as root; CI is), and keeps its Wine prefix
# and builds in bin/wine.
# Usage: .ci/windows/test.sh [unit|desktop|e2e]  (all by default)
set -euo pipefail
parts=${1:-unit desktop e2e}
cd "$(dirname "$0")/../.."
root=$PWD
GO=${GO:-go}
out=$root/bin/wine
log() { echo "test-windows: $*"; }
t0=$(date +%s)
since() { echo "$(($(date +%s) - t0)) s"; }

need=()
command -v wine >/dev/null || need+=(wine wine64)
command -v x86_64-w64-mingw32-gcc >/dev/null || need+=(gcc-mingw-w64-x86-64)
if [[ " $parts " == *" desktop "* ]]; then
  command -v Xvfb >/dev/null || need+=(xvfb)
  command -v xdotool >/dev/null || need+=(xdotool)
  command -v import >/dev/null || need+=(imagemagick)
fi
if [ ${#need[@]} -gt 0 ]; then
  log "installing ${need[*]} (apt-get)"
  sudo=; [ "$(id -u)" = 0 ] || sudo=sudo
  $sudo apt-get -o DPkg::Lock::Timeout=1200 update -q
  DEBIAN_FRONTEND=noninteractive $sudo apt-get -o DPkg::Lock::Timeout=1200 install -y -q --no-install-recommends "${need[@]}"
fi
export WINEDEBUG=-all
log "$(wine --version), $($GO version)"

# The prefix: Wine's C: drive and registry, created once (about 20 s).
# No Mono or Gecko: nothing here needs .NET or a browser engine.
mkdir -p "$out/bin"
export WINEPREFIX=$out/prefix WINEDEBUG=-all WINEDLLOVERRIDES="mscoree,mshtml="
if [ ! -f "$WINEPREFIX/system.reg" ]; then
  log "creating the Wine prefix $WINEPREFIX"
  wineboot -i >/dev/null 2>&1
fi
# One wineserver for the whole run (each program starts in well under a
# second then), and Wine's own services started now, detached from the
# test output: started by the first test binary they would hold its pipes
# open and go test would wait for them.
# (The wineserver that wineboot or an earlier run left is stopped first:
# it would exit on its own when idle, and the next one start with the tests.)
wineserver -k >/dev/null 2>&1 || true
wineserver -p >/dev/null 2>&1
trap 'wineserver -k >/dev/null 2>&1 || true' EXIT
wine cmd /c exit >/dev/null 2>&1 </dev/null

# The ProcessPrng shim (see .ci/windows/processprng.c), only where Wine
# lacks the DLL. Built once: the marker holds the SHA-256 of the source it
# was built from (it also tells our copy from a real DLL), and only a
# changed source rebuilds it. --no-insert-timestamp keeps two builds of one
# source byte-identical.
dll=$WINEPREFIX/drive_c/windows/system32/bcryptprimitives.dll
marker=$out/shim-installed
src_sum=$(sha256sum .ci/windows/processprng.c | cut -d' ' -f1)
if [ ! -f "$dll" ] || { [ -f "$marker" ] && [ "$(cat "$marker")" != "$src_sum" ]; }; then
  log "this Wine has no bcryptprimitives.dll (or the shim's source changed): installing the ProcessPrng shim built from .ci/windows/processprng.c"
  x86_64-w64-mingw32-gcc -shared -O2 -Wall -Wl,--no-insert-timestamp -o "$out/bcryptprimitives.dll" .ci/windows/processprng.c -ladvapi32
  cp "$out/bcryptprimitives.dll" "$dll"
  echo "$src_sum" >"$marker"
elif [ -f "$marker" ]; then
  log "the ProcessPrng shim is installed (built from this source)"
fi

log "building mcp-bridge.exe, naivebridge.exe, tamperbridge.exe and fakecad.exe (windows/amd64), mcp-bridge (linux, for the simulated base)"
GOOS=windows GOARCH=amd64 CGO_ENABLED=0 $GO build -o "$out/bin/mcp-bridge.exe" ./cmd/mcp-bridge
GOOS=windows GOARCH=amd64 CGO_ENABLED=0 $GO build -o "$out/bin/naivebridge.exe" ./verify/checks/testdata/naivebridge
GOOS=windows GOARCH=amd64 CGO_ENABLED=0 $GO build -o "$out/bin/tamperbridge.exe" ./verify/checks/testdata/tamperbridge
GOOS=windows GOARCH=amd64 CGO_ENABLED=0 $GO build -o "$out/bin/fakecad.exe" ./tcpbase/launch/launchtest/fakecad
CGO_ENABLED=0 $GO build -o "$out/mcp-bridge-linux" ./cmd/mcp-bridge
wine "$out/bin/mcp-bridge.exe" --version </dev/null || { log "FAIL mcp-bridge.exe does not start under Wine"; exit 1; }

# 1. Unit tests. Under Wine there is no go command: verify's tests take
# the .exe files just built (MCP_BRIDGE_TEST_BINDIR, a Windows path; Z: is /).
if [[ " $parts " == *" unit "* ]]; then
log "1/3 unit tests under Wine (full log: bin/wine/unit.log)"
winpath() { printf 'Z:%s' "${1//\//\\}"; }
status=0
MCP_BRIDGE_TEST_BINDIR=$(winpath "$out/bin") GOOS=windows GOARCH=amd64 CGO_ENABLED=0 \
  $GO test -count=1 -v -timeout 20m -exec "$root/.ci/windows/wine-exec" ./... >"$out/unit.log" 2>&1 || status=$?
grep -E '^(ok|FAIL|---|panic:)|^\s+--- (FAIL|SKIP)' "$out/unit.log" | grep -v -e '^--- PASS' || true
if [ $status != 0 ]; then
  grep -E '^\s*--- FAIL|_test\.go:[0-9]+: ' "$out/unit.log" | tail -100
  log "FAIL unit tests under Wine ($(since)); full log in bin/wine/unit.log"
  exit 1
fi
top_run=$(grep -cE '^--- (PASS|FAIL|SKIP)' "$out/unit.log" || true)
top_skip=$(grep -cE '^--- SKIP' "$out/unit.log" || true)
all_run=$(grep -cE '^\s*--- (PASS|FAIL|SKIP)' "$out/unit.log" || true)
all_skip=$(grep -cE '^\s*--- SKIP' "$out/unit.log" || true)
log "unit tests under Wine passed: $((top_run - top_skip)) tests ran, $top_skip skipped ($((all_run - all_skip)) ran and $all_skip skipped counting subtests) ($(since))"
grep -A1 -E '^\s*--- SKIP' "$out/unit.log" | grep -v -e '^--$' | sed 's/^/  /' || true

fi

# 2. The desktop question: the Go SDK client (verify's test, run on Linux)
# starts mcp-bridge.exe under Wine with DISPLAY set to the test's own Xvfb.
if [[ " $parts " == *" desktop "* ]]; then
log "2/3 the confirmation message box of mcp-bridge.exe on Xvfb (screenshots: bin/wine/desktop)"
cat >"$out/mcp-bridge-wine-desktop" <<EOF
#!/bin/sh
# mcp-bridge.exe under Wine, for verify's TestDesktopConfirm (written by .ci/windows/test.sh).
export WINEPREFIX='$WINEPREFIX' WINEDEBUG=-all
exec wine '$out/bin/mcp-bridge.exe' "\$@"
EOF
chmod +x "$out/mcp-bridge-wine-desktop"
status=0
MCP_BRIDGE_DESKTOP_TESTS=1 MCP_BRIDGE_DESKTOP_E2E_COMMAND="$out/mcp-bridge-wine-desktop" MCP_BRIDGE_DESKTOP_SHOTS="$out/desktop" \
  $GO test -count=1 -v -run '^TestDesktopConfirm$' ./verify >"$out/desktop.log" 2>&1 || status=$?
grep -E '^(ok|FAIL|panic:)|^\s*--- |desktop_test\.go:[0-9]+: ' "$out/desktop.log" || true
if [ $status != 0 ]; then
  log "FAIL the confirmation message box under Wine ($(since)); full log in bin/wine/desktop.log"
  exit 1
fi
log "ok   the confirmation message box under Wine: Run ran the call once, every other answer sent nothing ($(since))"
fi
[[ " $parts " == *" e2e "* ]] || exit 0

# 3. The installed .exe, as a user on Windows has it.
log "3/3 mcp-bridge.exe in C:\\Program Files\\mcp-bridge"
pf="$WINEPREFIX/drive_c/Program Files/mcp-bridge"
mkdir -p "$pf"
cp "$out/bin/mcp-bridge.exe" "$pf/mcp-bridge.exe"
exe='C:\Program Files\mcp-bridge\mcp-bridge.exe'
work=$(mktemp -d)
sim_pid=
cleanup() {
  [ -z "$sim_pid" ] || kill "$sim_pid" 2>/dev/null || true
  [ ! -d "$work/launch" ] || touch "$work/launch/stop" # ends fakecad.exe (--launch)
  rm -rf "$work"
  wineserver -k >/dev/null 2>&1 || true
}
trap cleanup EXIT
"$out/mcp-bridge-linux" sim --port 0 >"$work/sim.out" 2>"$work/sim.err" &
sim_pid=$!
for _ in $(seq 100); do grep -q '^listening on ' "$work/sim.out" 2>/dev/null && break; sleep 0.05; done
port=$(sed -n 's/^listening on .*://p' "$work/sim.out")
[ -n "$port" ] || { cat "$work/sim.err"; log "FAIL the simulated base did not start"; exit 1; }

# --print-config names the .exe by its Windows path, spaces and all, and
# doctor finds that registration in %APPDATA%\Claude and the file there.
wine "$exe" --print-config --client claude-desktop --port "$port" </dev/null >"$work/claude.json"
grep -qF '"command": "C:\\Program Files\\mcp-bridge\\mcp-bridge.exe"' "$work/claude.json" ||
  { cat "$work/claude.json"; log "FAIL --print-config does not name C:\\Program Files\\mcp-bridge\\mcp-bridge.exe"; exit 1; }
log "ok   --print-config: \"command\": \"$exe\""
appdata=$(wine cmd /c 'echo %APPDATA%' </dev/null | tr -d '\r')
claude_dir="$WINEPREFIX/drive_c/${appdata#C:\\}"
claude_dir="${claude_dir//\\//}/Claude"
mkdir -p "$claude_dir"
cp "$work/claude.json" "$claude_dir/claude_desktop_config.json"
doctor_rc=0
wine "$exe" doctor --port "$port" </dev/null >"$work/doctor.out" 2>&1 || doctor_rc=$?
rm -rf "$claude_dir"
want="ok    Claude Desktop registers \"cad-autocad\" in $appdata\\Claude\\claude_desktop_config.json: $exe: mcp-bridge "
if [ $doctor_rc != 0 ] || ! grep -qF "$want" "$work/doctor.out" || ! grep -qF "binary: $exe" "$work/doctor.out"; then
  cat "$work/doctor.out"
  log "FAIL doctor (exit $doctor_rc) did not report: $want"
  exit 1
fi
log "ok   doctor: $want"

# --launch: with no base on its port, mcp-bridge.exe starts a Windows
# program that serves one (fakecad.exe, under a path with spaces), one
# argument per --launch-arg; the call is answered; stdin ends and the
# bridge exits, and the program still serves. It records its own console:
# none (DETACHED_PROCESS). A program that held the bridge's stdout would
# keep the pipeline below from ending (timeout).
zpath() { printf 'Z:%s' "${1//\//\\}"; }
lw=$work/launch
mkdir -p "$lw"
lport=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
cp "$out/bin/fakecad.exe" "$pf/fake cad.exe"
fake='C:\Program Files\mcp-bridge\fake cad.exe'
call='{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"draw_line","arguments":{"start":{"x":0,"y":0},"end":{"x":3,"y":4}},"_meta":{"progressToken":1}}}'
launch_rc=0
t_call=$(date +%s.%N)
printf '%s\n' "$call" | timeout 300 wine "$exe" --port "$lport" --cache-dir "$(zpath "$lw/cache")" --launch "$fake" \
  --launch-arg=-addr --launch-arg="127.0.0.1:$lport" --launch-arg=-delay --launch-arg=1s --launch-arg=-record --launch-arg="$(zpath "$lw/starts")" \
  --launch-arg=-stop --launch-arg="$(zpath "$lw/stop")" >"$lw/out" 2>"$lw/err" || launch_rc=$?
t_done=$(date +%s.%N)
if [ $launch_rc != 0 ] || ! grep -q '"id":1,"result".*length 5' "$lw/out" || ! grep -q '"message":"starting fake cad…"' "$lw/out"; then
  cat "$lw/out" "$lw/err"; cat "$lw/cache"/launch-*.log 2>/dev/null || true
  log "FAIL --launch: mcp-bridge.exe exited $launch_rc (124: the pipeline did not end) without the answer"
  exit 1
fi
[ "$(grep -c '"pid"' "$lw/starts")" = 1 ] && grep -q '"console_window":0,"has_console":false' "$lw/starts" ||
  { cat "$lw/starts"; log "FAIL --launch: not one start of fake cad.exe, without a console"; exit 1; }
"$out/mcp-bridge-linux" tools --port "$lport" >"$lw/tools.out" 2>&1 ||
  { cat "$lw/tools.out"; log "FAIL --launch: fake cad.exe stopped with the bridge"; exit 1; }
touch "$lw/stop"
log "ok   --launch: mcp-bridge.exe started \"$fake\" (no console: $(cat "$lw/starts")), the call answered in $(awk "BEGIN { printf \"%.1f\", $t_done - $t_call }") s with the bridge's start; after the bridge exited its base still serves"

# The real clients. They start $bin, a script that runs the .exe under
# Wine, as their server command; the simulated bases run on Linux.
bin=$out/mcp-bridge-wine
cat >"$bin" <<EOF
#!/bin/sh
# mcp-bridge.exe under Wine, for verify/clients/run.sh (written by .ci/windows/test.sh).
export WINEPREFIX='$WINEPREFIX' WINEDEBUG=-all
exec wine '$exe' "\$@"
EOF
chmod +x "$bin"
E2E_SIM="$out/mcp-bridge-linux" E2E_COMMAND="$bin" verify/clients/run.sh "$bin"

# The first hour from the Windows archive (make archive's zip): unpacked,
# mcp-bridge.exe install --copy into %LOCALAPPDATA%\Programs, doctor with
# CAD closed and with the base running, the Inspector from the entry in
# %APPDATA%\Claude, uninstall.
log "the first hour from the Windows archive"
zip=$(make -s archive ARCHIVE_OS=windows ARCHIVE_ARCH=amd64 GO="$GO")
E2E_SIM="$out/mcp-bridge-linux" verify/clients/firsthour.sh "$zip"
log "all Windows checks passed ($(since))"
