#!/usr/bin/env bash
# A new user's first hour, from the release archive to a tool call through
# the entry install wrote, as the README has it, in a fresh home:
#   1. unpack the archive (the binary, and the FreeCAD base in freecad/);
#   2. install --copy --client claude-desktop (its folder holds a file of
#      the app's own, and nothing else);
#   3. doctor with CAD closed: one problem, said once; exit 1;
#   4. doctor with the simulated base running: no problems;
#   5. the MCP Inspector CLI started from the file install wrote lists the
#      tools and calls one; the Inspector command configs/README.md shows,
#      as shown;
#   6. uninstall: the client's folder is as it was.
# Each step's time is printed. The CAD base's port is a free one (8080 may
# be taken on a shared machine): install and doctor get --port.
# Usage: verify/clients/firsthour.sh ARCHIVE
#   Linux: bin/mcp-bridge_<version>_linux_amd64.tar.gz (make archive).
#   Windows under Wine (.ci/windows/test.sh): the _windows_amd64.zip, with
#   WINEPREFIX set; the simulated base is E2E_SIM, a Linux mcp-bridge, and
#   the Inspector starts the installed .exe through wine.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
archive=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
"$here/install.sh"

log() { echo "first hour: $*"; }
fail() { echo "first hour: FAIL $*"; exit 1; }
t0=$(date +%s.%N)
step() { local now; now=$(date +%s.%N); log "ok   $* ($(awk "BEGIN { printf \"%.1f\", $now - $t0 }") s)"; t0=$now; }

work=$(mktemp -d)
sim_pid=
cleanup() {
  [ -z "$sim_pid" ] || kill "$sim_pid" 2>/dev/null || true
  [ -z "${claude_dir:-}" ] || [ "${windows:-}" != 1 ] || rm -rf "$claude_dir" "$programs_dir"
  rm -rf "$work"
}
trap cleanup EXIT
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')

windows=
case "$archive" in *.zip) windows=1 ;; esac
home=$work/home
mkdir -p "$home"
if [ -n "$windows" ]; then
  : "${WINEPREFIX:?the Windows first hour runs under Wine: set WINEPREFIX}"
  export WINEDEBUG=-all
  prog=(wine)
  winenv() { wine cmd /c "echo %$1%" </dev/null | tr -d '\r'; }
  unix() { local p=${1#?:\\}; printf '%s/drive_c/%s' "$WINEPREFIX" "${p//\\//}"; }
  appdata=$(winenv APPDATA)
  claude_dir=$(unix "$appdata")/Claude
  programs_dir=$(unix "$(winenv LOCALAPPDATA)")/Programs/mcp-bridge
  # A fresh home, as far as the client is concerned: no registration, no
  # copy from an earlier run.
  rm -rf "$claude_dir" "$programs_dir"
  sim_bin=${E2E_SIM:?set E2E_SIM to a Linux mcp-bridge for the simulated base}
else
  prog=()
  claude_dir=$home/.config/Claude
  sim_bin=
fi
mkdir -p "$claude_dir"
echo '{"theme":"dark"}' >"$claude_dir/config.json" # the app's own file
listing() { (cd "$1" && find . -type f -print0 | sort -z | xargs -0 sha256sum); }
before=$(listing "$claude_dir")
# Only what a fresh account has: no CAD_MCP_* or other setting of this
# machine's leaks in.
clean_env=(env -i "HOME=$home" "PATH=/usr/local/bin:/usr/bin:/bin" "LANG=C.UTF-8")
[ -z "$windows" ] || clean_env+=("WINEPREFIX=$WINEPREFIX" "WINEDEBUG=-all" "DISPLAY=${DISPLAY:-}")
# run: a program (the .exe through wine) as such an account runs it.
run() { "${clean_env[@]}" "${prog[@]}" "$@" </dev/null; }

# 1. Unpack.
dir=$home/mcp-bridge
mkdir -p "$dir"
if [ -n "$windows" ]; then
  python3 -m zipfile -e "$archive" "$dir"
  exe=$dir/mcp-bridge.exe
else
  tar -xzf "$archive" -C "$dir"
  exe=$dir/mcp-bridge
fi
[ -f "$exe" ] && [ -f "$dir/freecad/MCPBridgeBase.FCMacro" ] && [ -f "$dir/freecad/cadbase/base.py" ] && [ -f "$dir/LICENSE" ] ||
  fail "the archive lacks the binary, LICENSE or the FreeCAD base beside it: $(cd "$dir" && find . -type f | sort | tr '\n' ' ')"
version=$(run "$exe" --version | head -1 | tr -d '\r')
step "unpacked $(basename "$archive"): $version, the FreeCAD base in freecad/"

# 2. install --copy.
cd "$dir"
out=$(run "$exe" install --copy --client claude-desktop --port "$port" 2>&1) || fail "install: $out"
cfg=$claude_dir/claude_desktop_config.json
[ -f "$cfg" ] || fail "install wrote no $cfg: $out"
case "$out" in *"copied "*"then: quit Claude Desktop"*) ;; *) fail "install does not say what it copied and what to restart: $out" ;; esac
if [ -n "$windows" ]; then
  copied=$programs_dir/mcp-bridge.exe
  grep -qF 'AppData\\Local\\Programs\\mcp-bridge\\mcp-bridge.exe' "$cfg" || fail "the entry does not run the copy: $(cat "$cfg")"
else
  copied=$home/.local/bin/mcp-bridge
  grep -qF "\"command\": \"$copied\"" "$cfg" || fail "the entry does not run the copy: $(cat "$cfg")"
fi
[ -x "$copied" ] || fail "no copy at $copied"
step "install --copy --client claude-desktop: $copied registered in $cfg"

# 3. doctor, CAD closed: one cause, once.
rc=0
out=$(run "$exe" doctor 2>&1) || rc=$?
fails=$(printf '%s\n' "$out" | grep -c '^FAIL' || true)
if [ $rc != 1 ] || [ "$fails" != 1 ] || ! printf '%s\n' "$out" | grep -q "^FAIL  CAD base at 127.0.0.1:$port refused the connection" ||
  ! printf '%s\n' "$out" | grep -q '^1 problem' || ! printf '%s\n' "$out" | grep -q '^ok    Claude Desktop registers "cad-autocad"'; then
  printf '%s\n' "$out"; fail "doctor with CAD closed: exit $rc, $fails FAIL lines; want one, for the one cause"
fi
step "doctor, CAD closed: exit 1, one FAIL (the base, with what to do), the registration itself ok"

# 4. doctor with the simulated base running.
if [ -n "$windows" ]; then
  "$sim_bin" sim --port "$port" >"$work/sim.out" 2>"$work/sim.err" &
else
  "${clean_env[@]}" "$exe" sim --port "$port" >"$work/sim.out" 2>"$work/sim.err" </dev/null &
fi
sim_pid=$!
for _ in $(seq 200); do grep -q '^listening on ' "$work/sim.out" 2>/dev/null && break; sleep 0.05; done
grep -q '^listening on ' "$work/sim.out" || { cat "$work/sim.err"; fail "the simulated base did not start"; }
out=$(run "$exe" doctor 2>&1) || { printf '%s\n' "$out"; fail "doctor with the base running: exit $?"; }
printf '%s\n' "$out" | grep -q '^no problems' && ! printf '%s\n' "$out" | grep -q '^FAIL' ||
  { printf '%s\n' "$out"; fail "doctor with the base running: problems"; }
step "doctor, the simulated base running: no problems"

# 5. The Inspector, started from the file install wrote.
cd "$here"
config=$cfg
if [ -n "$windows" ]; then
  # Node on Linux starts the installed .exe through wine: the entry as
  # written, its command wrapped.
  wrapper=$work/installed-exe
  printf '#!/bin/sh\nexport WINEPREFIX=%q WINEDEBUG=-all\nexec wine %q "$@"\n' "$WINEPREFIX" "$copied" >"$wrapper"
  chmod +x "$wrapper"
  node -e 'const fs=require("fs"); const c=JSON.parse(fs.readFileSync(process.argv[1])); c.mcpServers["cad-autocad"].command=process.argv[2]; fs.writeFileSync(process.argv[3], JSON.stringify(c));' "$cfg" "$wrapper" "$work/installed.json"
  config=$work/installed.json
fi
inspector() { HOME=$home npx --no-install mcp-inspector --cli --config "$config" --server cad-autocad "$@"; }
inspector --method tools/list >"$work/list.json" 2>"$work/err" || { cat "$work/err"; fail "Inspector tools/list from $cfg"; }
tools=$(node -e 'console.log(JSON.parse(require("fs").readFileSync(process.argv[1])).tools.length)' "$work/list.json")
[ "$tools" -ge 26 ] || fail "Inspector tools/list: $tools tools"
inspector --method tools/call --tool-name draw_line --tool-args-json '{"start":{"x":0,"y":0},"end":{"x":3,"y":4}}' >"$work/call.json" 2>"$work/err" ||
  { cat "$work/err"; fail "Inspector tools/call draw_line"; }
grep -q 'length 5' "$work/call.json" || { cat "$work/call.json"; fail "Inspector tools/call: unexpected result"; }
step "the MCP Inspector CLI from $(basename "$cfg"): $tools tools listed, draw_line called (length 5)"

# configs/README.md's Inspector command, as shown (mcp-bridge: the copy,
# on PATH as a login shell has ~/.local/bin).
if [ -z "$windows" ]; then
  shown=$(grep -o '`mcp-bridge --print-config --client inspector > inspector.json`, then `npx [^`]*`' "$here/../../configs/README.md") ||
    fail "configs/README.md shows no Inspector command"
  printcfg=$(printf '%s' "$shown" | sed -n 's/^`\([^`]*\)`, then `.*/\1/p')
  npxcmd=$(printf '%s' "$shown" | sed -n 's/.*, then `\([^`]*\)`$/\1/p')
  mkdir -p "$work/shown"
  ln -s "$here/node_modules" "$work/shown/node_modules"
  (cd "$work/shown" && export PATH="$home/.local/bin:$PATH" HOME="$home" CAD_MCP_PORT="$port" && eval "$printcfg" && eval "$npxcmd" >out.json) 2>"$work/err" ||
    { cat "$work/err"; fail "configs/README.md's Inspector command, as shown: $printcfg; $npxcmd"; }
  step "configs/README.md's Inspector command as shown: $npxcmd"
fi

# 6. uninstall: the folder as it was.
kill "$sim_pid" 2>/dev/null || true
wait "$sim_pid" 2>/dev/null || true
sim_pid=
cd "$dir"
out=$(run "$exe" uninstall --client claude-desktop 2>&1) || fail "uninstall: $out"
after=$(listing "$claude_dir")
[ "$before" = "$after" ] || { diff <(echo "$before") <(echo "$after") || true; fail "after uninstall the client's folder is not as it was"; }
case "$out" in *"the copy that install --copy made stays: "*) ;; *) fail "uninstall does not say where the copy stays: $out" ;; esac
step "uninstall: the client's folder as it was, the copy's place said"
log "all steps passed"
