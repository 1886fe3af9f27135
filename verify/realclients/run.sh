#!/usr/bin/env bash
# make test-clients: the clients' own programs prove what `mcp-bridge
# install` writes. For each client that ships a command-line program with
# an `mcp list` (Claude Code, Gemini CLI, Codex; pinned in package.json and
# package-lock.json here, installed by ../clients/install.sh), in a fixture
# home that already holds one server of the user's own:
#   install --client X  -> the client's list shows our server connected
#                          (Codex, which starts nothing in its list: enabled)
#   uninstall --client X -> the client lists the user's server, not ours.
# The clients run in a network namespace of their own with loopback only
# (unshare -n), so nothing they do can reach further than the simulated
# base; where unshare is not permitted they run with the network there and
# every switch that keeps them from calling home, and the run says so.
# Usage: verify/realclients/run.sh path/to/mcp-bridge
set -Eeuo pipefail
trap 'rc=$?; echo "test-clients: FAIL line $LINENO: $BASH_COMMAND: exit $rc"' ERR
here=$(cd "$(dirname "$0")" && pwd)
bin=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
fail() { echo "test-clients: FAIL $*"; exit 1; }
pass() { echo "test-clients: ok   $*"; }

if [ -z "${TEST_CLIENTS_NETNS:-}" ]; then
  "$here/../clients/install.sh" "$here"
  # As root unshare -n is enough; as a user, with a user namespace mapped to root.
  for flags in --net "--net --map-root-user"; do
    # shellcheck disable=SC2086 # $flags holds one or two flags on purpose
    if unshare $flags ip link set lo up 2>/dev/null; then
      TEST_CLIENTS_NETNS=1 exec unshare $flags "$0" "$bin"
    fi
  done
  echo "test-clients: no network namespace here (unshare -n not permitted, or no ip command): the clients run with the network reachable"
else
  ip link set lo up
  ip -o link show | grep -qv ': lo:' && fail "the network namespace has more than loopback: $(ip -o link show)"
  echo "test-clients: in a network namespace with loopback only"
fi

work=$(mktemp -d)
sim_pid=
cleanup() { [ -n "$sim_pid" ] && kill "$sim_pid" 2>/dev/null; rm -rf "$work"; }
trap cleanup EXIT

# The simulated base on a free port; its first stdout line names the address.
"$bin" sim --port 0 >"$work/sim.out" 2>"$work/sim.err" &
sim_pid=$!
for _ in $(seq 100); do grep -q '^listening on ' "$work/sim.out" 2>/dev/null && break; sleep 0.05; done
port=$(sed -n 's/^listening on .*://p' "$work/sim.out")
[ -n "$port" ] || { cat "$work/sim.err"; fail "the simulated base did not start"; }

# The user's own server, already in each client's file before install: the
# bridge again, under another name, so that the client connects to it too.
user_args="\"--port\", \"$port\", \"--no-cache\", \"--log-level\", \"warn\""
ours=cad-autocad
theirs=users-own

# in_home HOME CMD...: CMD with nothing of this machine's environment but
# PATH, every per-user folder in the fixture home, and the switches that
# keep the clients off the network (auto-update, telemetry). Gemini CLI's
# relaunch only restarts node with a larger heap: skipped, it doubles its
# start-up time.
in_home() {
  local home=$1; shift
  env -i PATH="$PATH" LANG=C.UTF-8 TERM=dumb NO_COLOR=1 TMPDIR="$home/tmp" \
    HOME="$home" USERPROFILE="$home" XDG_CONFIG_HOME="$home/.config" XDG_DATA_HOME="$home/.local/share" \
    XDG_STATE_HOME="$home/.local/state" XDG_CACHE_HOME="$home/.cache" \
    APPDATA="$home/AppData/Roaming" LOCALAPPDATA="$home/AppData/Local" \
    DISABLE_AUTOUPDATER=1 CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1 DISABLE_TELEMETRY=1 \
    GEMINI_CLI_NO_RELAUNCH=1 \
    "$@"
}

# list_shows OUT CLIENT NAME STATE: OUT holds a line naming server NAME in
# CLIENT's list format with STATE (Connected, enabled).
list_shows() {
  case $2 in
  claude-code) grep -Eq "^$3: .* - ✔ $4\$" "$1" ;;
  gemini) grep -Eq "^✓ $3: .* - $4\$" "$1" ;;
  codex) awk -v n="$3" -v s="$4" '$1 == n { for (i = 2; i <= NF; i++) if ($i == s) found = 1 } END { exit !found }' "$1" ;;
  esac
}
# list_names OUT CLIENT NAME: OUT holds a line naming server NAME, whatever its state.
list_names() {
  case $2 in
  claude-code) grep -q "^$3: " "$1" ;;
  gemini) grep -Eq "^. $3: " "$1" ;;
  codex) awk -v n="$3" '$1 == n { found = 1 } END { exit !found }' "$1" ;;
  esac
}

# fixture CLIENT HOME: the client's file with the user's own server (and,
# for Gemini CLI, folder trust off: an untrusted folder disables every
# server, and `gemini mcp list` would say so instead of connecting).
fixture() {
  local home=$2
  mkdir -p "$home/tmp" "$home/project"
  case $1 in
  claude-code)
    printf '{\n  "mcpServers": {\n    "%s": {"type": "stdio", "command": "%s", "args": [%s]}\n  }\n}\n' \
      "$theirs" "$bin" "$user_args" >"$home/.claude.json"
    ;;
  gemini)
    mkdir -p "$home/.gemini"
    printf '{\n  "security": {"folderTrust": {"enabled": false}},\n  "general": {"enableAutoUpdate": false, "enableAutoUpdateNotification": false},\n  "privacy": {"usageStatisticsEnabled": false},\n  "mcpServers": {\n    "%s": {"command": "%s", "args": [%s]}\n  }\n}\n' \
      "$theirs" "$bin" "$user_args" >"$home/.gemini/settings.json"
    ;;
  codex)
    mkdir -p "$home/.codex"
    printf '# the user'"'"'s own server\n[mcp_servers.%s]\ncommand = "%s"\nargs = [%s]\n' \
      "$theirs" "$bin" "$user_args" >"$home/.codex/config.toml"
    ;;
  esac
}

ms_since() { echo $((($(date +%s%N) - $1) / 1000000)); }
begin=$(date +%s%N)

# check CLIENT STATE LIST-COMMAND...: install, list, uninstall, list.
check() {
  local client=$1 state=$2; shift 2
  local home="$work/$client" out="$work/$client.out" start
  start=$(date +%s%N)
  fixture "$client" "$home"
  cd "$home/project"
  in_home "$home" "$bin" install --client "$client" --port "$port" --no-cache --log-level warn >"$out" 2>&1 ||
    { cat "$out"; fail "mcp-bridge install --client $client"; }
  in_home "$home" "$@" >"$out" 2>&1 || { rc=$?; cat "$out"; fail "$* after install: exit $rc"; }
  list_shows "$out" "$client" "$ours" "$state" || { cat "$out"; fail "$* after install: no line '$ours … $state'"; }
  list_shows "$out" "$client" "$theirs" "$state" || { cat "$out"; fail "$* after install: the user's '$theirs' is not $state"; }
  pass "$* after install: $(grep -m1 "$ours" "$out")"

  in_home "$home" "$bin" uninstall --client "$client" >"$out" 2>&1 || { cat "$out"; fail "mcp-bridge uninstall --client $client"; }
  in_home "$home" "$@" >"$out" 2>&1 || { rc=$?; cat "$out"; fail "$* after uninstall: exit $rc"; }
  list_names "$out" "$client" "$ours" && { cat "$out"; fail "$* after uninstall still lists $ours"; }
  list_shows "$out" "$client" "$theirs" "$state" || { cat "$out"; fail "$* after uninstall: the user's '$theirs' is not $state"; }
  pass "$* after uninstall: $ours gone, $(grep -m1 "$theirs" "$out")"
  cd "$here"
  echo "test-clients: $client: $(ms_since "$start") ms"
}

export PATH="$here/node_modules/.bin:$PATH"
check claude-code Connected claude mcp list
check gemini Connected gemini mcp list
check codex enabled codex mcp list
echo "test-clients: all clients listed what install wrote and forgot what uninstall removed ($(ms_since "$begin") ms)"
