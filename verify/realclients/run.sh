#!/usr/bin/env bash
# make test-clients: the clients' own programs prove what `mcp-bridge
# install` writes. For each client that ships a command-line program with
# an `mcp list` (Claude Code, Gemini CLI, Codex, GitHub Copilot CLI,
# OpenCode), and CodeBuddy, whose list is the first line of a headless
# session (pinned in package.json and package-lock.json here, installed by
# ../clients/install.sh), in a fixture home that already holds one server
# of the user's own:
#   install --client X  -> the client's list shows our server connected
#                          (Codex and Copilot CLI, which start nothing in
#                          their lists: enabled; CodeBuddy: connected with
#                          the base's tools, mcp__cad-autocad__…)
#   uninstall --client X -> the client lists the user's server, not ours.
# CodeBuddy also with our entry broken on purpose (its command's path, its
# servers key: not listed), with install --policy denying delete_* (those tools
# absent), and doctor names the CodeBuddy that was run.
# Then the URL form: a bridge serving --listen with a token,
#   install --client X --url URL --token-file F -> for the clients whose
#                          lists connect to HTTP servers (Claude Code,
#                          Gemini CLI, OpenCode): with CAD_MCP_TOKEN set
#                          to the token, the list shows our server
#                          connected; with a wrong one, not connected (the
#                          header carries the variable's value). Codex and
#                          Copilot CLI: the list shows our entry, its URL
#                          and the token's variable; Copilot CLI's one
#                          prompt (its model a provider on loopback that
#                          answers nothing) lists our tools with the token
#                          and is refused (HTTP 401) with a wrong one;
#                          CodeBuddy leaves a server it cannot connect to
#                          out: with a wrong token ours is not listed,
#                          and the bridge refused it (HTTP 401)
#   uninstall --client X -> gone.
# Continue's CLI (cn) is not here: it has no list command (README.md).
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
listen_pid=
cleanup() {
  [ -n "$sim_pid" ] && kill "$sim_pid" 2>/dev/null
  [ -n "$listen_pid" ] && kill "$listen_pid" 2>/dev/null
  rm -rf "$work"
}
trap cleanup EXIT

# The simulated base on a free port; its first stdout line names the address.
"$bin" sim --port 0 >"$work/sim.out" 2>"$work/sim.err" &
sim_pid=$!
for _ in $(seq 100); do grep -q '^listening on ' "$work/sim.out" 2>/dev/null && break; sleep 0.05; done
port=$(sed -n 's/^listening on .*://p' "$work/sim.out")
[ -n "$port" ] || { cat "$work/sim.err"; fail "the simulated base did not start"; }
# Its tools, sorted, one a line: what CodeBuddy must list of each server.
"$bin" tools --port "$port" --json | node -e '
  const { tools } = JSON.parse(require("fs").readFileSync(0, "utf8"));
  console.log(tools.map((t) => t.name).sort().join("\n"));
' >"$work/tools"

# The user's own server, already in each client's file before install: the
# bridge again, under another name, so that the client connects to it too.
user_args="\"--port\", \"$port\", \"--no-cache\", \"--log-level\", \"warn\""
user_cmd="\"command\": \"$bin\", \"args\": [$user_args]"
ours=cad-autocad
theirs=users-own

# in_home HOME CMD...: CMD with nothing of this machine's environment but
# PATH, every per-user folder in the fixture home, and the switches that
# keep the clients off the network (auto-update, telemetry, model lists).
# Gemini CLI's relaunch only restarts node with a larger heap: skipped, it
# doubles its start-up time.
in_home() {
  local home=$1; shift
  env -i PATH="$PATH" LANG=C.UTF-8 TERM=dumb NO_COLOR=1 TMPDIR="$home/tmp" \
    HOME="$home" USERPROFILE="$home" XDG_CONFIG_HOME="$home/.config" XDG_DATA_HOME="$home/.local/share" \
    XDG_STATE_HOME="$home/.local/state" XDG_CACHE_HOME="$home/.cache" \
    APPDATA="$home/AppData/Roaming" LOCALAPPDATA="$home/AppData/Local" \
    DISABLE_AUTOUPDATER=1 CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1 DISABLE_TELEMETRY=1 \
    GEMINI_CLI_NO_RELAUNCH=1 \
    COPILOT_OFFLINE=true COPILOT_AUTO_UPDATE=false \
    OPENCODE_DISABLE_AUTOUPDATE=1 OPENCODE_DISABLE_MODELS_FETCH=1 OPENCODE_DISABLE_DEFAULT_PLUGINS=1 \
    CODEBUDDY_BASE_URL=http://127.0.0.1:9 CODEBUDDY_SKIP_BUILTIN_MARKETPLACE=1 CODEBUDDY_REMOTE_CONFIG_DISABLED=1 \
    "$@"
}

# servers_json KEY ENTRY [MEMBERS]: a JSON file whose KEY holds the user's
# server ENTRY, after the top-level MEMBERS (each line ending in a comma).
# For the clients that read comments (Gemini CLI, OpenCode), MEMBERS
# holds one: install keeps it, and the client must still read the file.
servers_json() {
  printf '{\n%b  "%s": {\n    "%s": {%s}\n  }\n}\n' "${3:-}" "$1" "$theirs" "$2"
}

# row OUT N NAME [STATE]: the line of OUT (- for stdin) whose field N is
# NAME and, when STATE is given, another field is STATE (a table row).
row() {
  awk -v i="$2" -v n="$3" -v s="${4:-}" '
    $i == n { ok = (s == ""); for (f = 1; f <= NF; f++) if (f != i && $f == s) ok = 1 }
    $i == n && ok { print; found = 1; exit }
    END { exit !found }' "$1"
}

# One function per client, client_ID (ID the --client value, - as _):
# client_ID ACTION ARGS…, where ACTION is
#   fixture HOME   write the client's file with the user's own server
#   list           print the client's list command
#   shows OUT N    print the line of the list output OUT that shows server
#                  N connected (or enabled); fail when there is none
#   names OUT N    print the line of OUT that names N, whatever its state
#   state          the state `shows` looks for, for the messages

# Claude Code: `claude mcp list` connects to each server.
client_claude_code() {
  case $1 in
  fixture) servers_json mcpServers "\"type\": \"stdio\", $user_cmd" >"$2/.claude.json" ;;
  list) echo claude mcp list ;;
  shows) grep -E "^$3: .* - ✔ Connected\$" "$2" ;;
  names) grep "^$3: " "$2" ;;
  state) echo Connected ;;
  connects) true ;;
  esac
}

# Gemini CLI: `gemini mcp list` connects to each server. Folder trust off:
# an untrusted folder disables every server, and the list would say so.
client_gemini() {
  case $1 in
  fixture)
    mkdir -p "$2/.gemini"
    servers_json mcpServers "$user_cmd" '  // the user'"'"'s settings\n  "security": {"folderTrust": {"enabled": false}},\n  "general": {"enableAutoUpdate": false, "enableAutoUpdateNotification": false},\n  "privacy": {"usageStatisticsEnabled": false},\n' \
      >"$2/.gemini/settings.json"
    ;;
  list) echo gemini mcp list ;;
  shows) grep -E "^✓ $3: .* - Connected\$" "$2" ;;
  names) grep -E "^. $3: " "$2" ;;
  state) echo Connected ;;
  connects) true ;;
  esac
}

# Codex: `codex mcp list` starts nothing; a table row per server, with its
# status in a column of its own (a URL entry's table: name, URL, the
# bearer token's variable, status).
client_codex() {
  case $1 in
  fixture)
    mkdir -p "$2/.codex"
    printf '# the user'"'"'s own server\n[mcp_servers.%s]\ncommand = "%s"\nargs = [%s]\n' \
      "$theirs" "$bin" "$user_args" >"$2/.codex/config.toml"
    ;;
  list) echo codex mcp list ;;
  shows) row "$2" 1 "$3" enabled ;;
  names) row "$2" 1 "$3" ;;
  state) echo enabled ;;
  connects) false ;;
  urlshows) awk -v n="$3" -v u="$4" '$1 == n && $2 == u && $3 == "CAD_MCP_TOKEN" && $4 == "enabled" { print; found = 1 } END { exit !found }' "$2" ;;
  esac
}

# GitHub Copilot CLI: `copilot mcp list` starts nothing; its JSON form
# gives each server's source and whether it is enabled (the text form
# says "(local)" or "(local, disabled)").
client_copilot_cli() {
  case $1 in
  fixture)
    mkdir -p "$2/.copilot"
    servers_json mcpServers "\"type\": \"local\", $user_cmd, \"tools\": [\"*\"]" >"$2/.copilot/mcp-config.json"
    ;;
  list) echo copilot mcp list --json ;;
  shows) copilot_server "$2" "$3" | grep -E "^$3: local, user, enabled\$" ;;
  names) copilot_server "$2" "$3" ;;
  state) echo enabled ;;
  connects) false ;;
  urlshows) copilot_server "$2" "$3" | grep -xF "$3: http, user, enabled, $4, Authorization: Bearer \${CAD_MCP_TOKEN}" ;;
  esac
}
# copilot_server OUT NAME: "NAME: TYPE, SOURCE, enabled|disabled" from
# `copilot mcp list --json`, and for a URL entry ", URL, Authorization:
# HEADER"; nothing when NAME is not in it. OUT holds its stderr too
# ("Package extraction took 5903ms" when it unpacked itself slowly on a
# busy machine): the JSON is its lines from "{" to "}".
copilot_server() {
  node -e '
    const [out, name] = process.argv.slice(1);
    const lines = require("fs").readFileSync(out, "utf8").split("\n");
    const json = lines.slice(lines.indexOf("{"), lines.lastIndexOf("}") + 1).join("\n");
    const s = JSON.parse(json).mcpServers?.[name];
    if (!s) process.exit(1);
    const url = s.url ? `, ${s.url}, Authorization: ${s.headers?.Authorization}` : "";
    console.log(`${name}: ${s.type}, ${s.source}, ${s.enabled === true ? "enabled" : "disabled"}${url}`);
  ' "$1" "$2"
}

# copilot_session HOME TOKEN: one `copilot -p` prompt with CAD_MCP_TOKEN
# set to TOKEN, its model a BYOK provider at the bridge's own address
# (which answers 404 at once: no model runs, nothing leaves loopback), so
# that Copilot CLI connects its MCP servers as a session does. Prints what
# its log says of ours: "refused (HTTP 401)" when the bridge refused the
# header, "our tools listed" when the session lists them (the home is
# fresh: no cached tool list), else "neither".
copilot_session() {
  local logs="$1/.copilot/logs"
  rm -rf "$logs"
  in_home "$1" CAD_MCP_TOKEN="$2" COPILOT_PROVIDER_BASE_URL="${url%/mcp}/v1" \
    timeout 60 copilot -p hi --model none --log-level all >"$work/copilot-session.out" 2>&1 || true
  if grep -qF "\"server\":\"$ours\",\"error\":\"MCP OAuth authorization failed\"" "$logs"/*.log; then
    echo "refused (HTTP 401)"
  elif grep -qF "\"$ours-get_drawing_info:" "$logs"/*.log; then
    echo "our tools listed"
  else
    echo neither
  fi
}

# OpenCode: `opencode mcp list` connects to each server; a row "● ✓ NAME
# connected" per server, coloured even with NO_COLOR (hence the strip).
client_opencode() {
  case $1 in
  fixture)
    mkdir -p "$2/.config/opencode"
    servers_json mcp "\"type\": \"local\", \"command\": [\"$bin\", $user_args]" '  // the user'"'"'s settings\n  "autoupdate": false,\n' \
      >"$2/.config/opencode/opencode.json"
    ;;
  list) echo opencode mcp list ;;
  shows) sed 's/\x1b\[[0-9;]*m//g' "$2" | row - 3 "$3" connected ;;
  names) sed 's/\x1b\[[0-9;]*m//g' "$2" | row - 3 "$3" ;;
  state) echo connected ;;
  connects) true ;;
  esac
}

# CodeBuddy: the npm package @tencent-ai/agent-sdk holds its headless
# program, cli/bin/codebuddy, and no `mcp list` (that command needs the
# interactive build, which the package lacks: "Cannot find module
# '../dist/codebuddy'"). The first line of a headless session,
# `codebuddy -p hi --output-format stream-json --verbose`, is its
# system/init: each server it connected to ("mcp_servers", a server it
# could not connect to left out) and the tools it got from each
# (mcp__SERVER__TOOL). first-line.mjs ends it once that line is read:
# without a login it would only answer that one is needed.
# CODEBUDDY_BASE_URL, a closed loopback port, is where its model calls and
# its remote control would go; without the built-in marketplace it clones
# nothing, and it fetches no product configuration. In a headless session CodeBuddy 2.117.0 starts its MCP servers
# only after waiting MCP_TIMEOUT for them to settle (30 s by default),
# and MCP_TIMEOUT also bounds each server's initialize: 3 s, not the
# environment of in_home, where Claude Code would read it too.
codebuddy=$here/node_modules/@tencent-ai/agent-sdk/cli/bin/codebuddy
client_codebuddy() {
  case $1 in
  fixture)
    mkdir -p "$2/.codebuddy"
    servers_json mcpServers "\"type\": \"stdio\", $user_cmd" >"$2/.codebuddy/.mcp.json"
    ;;
  list) echo env MCP_TIMEOUT=3000 node "$here/first-line.mjs" "$codebuddy" -p hi --output-format stream-json --verbose ;;
  shows) codebuddy_servers "$2" | grep -xF "$3: connected, $(codebuddy_want "$3")" | cut -d: -f1-2 ;;
  names) codebuddy_servers "$2" | grep "^$3: " ;;
  state) echo "connected with the base's tools" ;;
  connects) true ;;
  esac
}
# codebuddy_servers OUT: a line "NAME: STATUS, N tools: TOOL…" (sorted,
# without mcp__NAME__) per server of the system/init line in OUT.
codebuddy_servers() {
  node -e '
    const init = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
    if (init.type !== "system" || init.subtype !== "init") throw new Error("not a system/init line");
    for (const s of init.mcp_servers) {
      const prefix = `mcp__${s.name}__`;
      const tools = init.tools.filter((t) => t.startsWith(prefix)).map((t) => t.slice(prefix.length)).sort();
      console.log(`${s.name}: ${s.status}, ${tools.length} tools: ${tools.join(" ")}`);
    }
  ' "$1"
}
# codebuddy_want NAME: "N tools: TOOL…", the tools server NAME must show:
# the base's, but those $denied names (a grep -E pattern) for ours.
denied=
codebuddy_want() {
  local tools
  tools=$(if [ "$1" = "$ours" ] && [ -n "$denied" ]; then grep -vxE "$denied" "$work/tools"; else cat "$work/tools"; fi)
  echo "$(wc -l <<<"$tools") tools: $(tr '\n' ' ' <<<"$tools" | sed 's/ $//')"
}

ms_since() { echo $((($(date +%s%N) - $1) / 1000000)); }
begin=$(date +%s%N)

# list CLIENT HOME OUT WHEN [VAR=VALUE]: the client's list command into
# OUT, with the variable VAR=VALUE set when given; fails (printing OUT)
# when the command does.
list() {
  local cmd rc=0
  read -ra cmd <<<"$("$1" list)"
  in_home "$2" ${5:+"$5"} "${cmd[@]}" >"$3" 2>&1 || rc=$?
  [ "$rc" = 0 ] || { cat "$3"; fail "${cmd[*]} $4: exit $rc"; }
}

# shown CLIENT OUT NAME WHEN: OUT shows server NAME connected (enabled);
# otherwise fails, printing OUT and saying whether NAME is there at all.
shown() {
  "$1" shows "$2" "$3" >/dev/null && return
  cat "$2"
  "$1" names "$2" "$3" >/dev/null || fail "$4: $3 is not listed"
  fail "$4: $3 is listed but not $("$1" state): $("$1" names "$2" "$3")"
}

# check ID: install, list, uninstall, list, in a fresh fixture home.
check() {
  local id=$1 client="client_${1//-/_}" home="$work/$1" out="$work/$1.out" start
  start=$(date +%s%N)
  mkdir -p "$home/tmp" "$home/project"
  "$client" fixture "$home"
  cd "$home/project"
  in_home "$home" "$bin" install --client "$id" --port "$port" --no-cache --log-level warn >"$out" 2>&1 ||
    { cat "$out"; fail "mcp-bridge install --client $id"; }
  list "$client" "$home" "$out" "after install"
  shown "$client" "$out" "$ours" "$id after install"
  shown "$client" "$out" "$theirs" "$id after install"
  pass "$id after install: $("$client" shows "$out" "$ours")"
  if [ "$id" = codebuddy ]; then
    check_codebuddy_broken "$home" "$out"
    check_codebuddy_doctor "$home"
  fi

  check_uninstall "$id" "$client" "$home" "$out" ""
  cd "$here"
  echo "test-clients: $id: $(ms_since "$start") ms"
}

# check_codebuddy_broken HOME OUT: the entry install wrote, broken on
# purpose, is not shown (CodeBuddy leaves it out) while the user's server
# still is: its command's path one word off, then the entry under a
# servers key one letter off (mcpServer); then the entry as install wrote it.
# Each shows that the check above would fail on an entry CodeBuddy cannot use.
check_codebuddy_broken() {
  local file="$1/.codebuddy/.mcp.json" how
  cp "$file" "$work/codebuddy-installed.json"
  for how in path key; do
    node -e '
      const fs = require("fs"), [file, name, how] = process.argv.slice(1);
      const j = JSON.parse(fs.readFileSync(file, "utf8"));
      if (how === "path") j.mcpServers[name].command += "-missing";
      else { j.mcpServer = { [name]: j.mcpServers[name] }; delete j.mcpServers[name]; }
      fs.writeFileSync(file, JSON.stringify(j, null, 2));
    ' "$file" "$ours" "$how"
    local what="with our command's path broken"
    [ "$how" = key ] && what="with our entry under mcpServer"
    list client_codebuddy "$1" "$2" "$what"
    client_codebuddy shows "$2" "$ours" >/dev/null && { cat "$2"; fail "codebuddy $what: $ours is still shown"; }
    shown client_codebuddy "$2" "$theirs" "codebuddy $what"
    pass "codebuddy $what: $ours not shown, $(client_codebuddy shows "$2" "$theirs")"
    cp "$work/codebuddy-installed.json" "$file"
  done
}

# check_codebuddy_doctor HOME: doctor's line for our CodeBuddy entry names
# the CodeBuddy that was run here (`codebuddy --version`).
check_codebuddy_doctor() {
  local version line
  version=$(in_home "$1" "$codebuddy" --version)
  in_home "$1" "$bin" doctor >"$work/doctor.out" 2>&1 || { cat "$work/doctor.out"; fail "codebuddy: doctor found problems"; }
  line=$(grep -F "CodeBuddy registers \"$ours\"" "$work/doctor.out") || { cat "$work/doctor.out"; fail "codebuddy: doctor does not list $ours"; }
  grep -qF "; checked with CodeBuddy Code $version itself " <<<"$line" ||
    fail "codebuddy: doctor does not say the CodeBuddy run here checked it (codebuddy --version: $version): $line"
  pass "codebuddy: doctor says ${line##*; }"
}

# check_codebuddy_policy: install --policy with a deny of delete_*: CodeBuddy
# shows ours with the base's tools but delete_layer and delete_entities,
# the user's server with all of them.
check_codebuddy_policy() {
  local home="$work/codebuddy-policy" out="$work/codebuddy-policy.out" start
  start=$(date +%s%N)
  mkdir -p "$home/tmp" "$home/project"
  client_codebuddy fixture "$home"
  printf '{"deny": ["delete_*"]}\n' >"$work/policy.json"
  cd "$home/project"
  in_home "$home" "$bin" install --client codebuddy --port "$port" --no-cache --log-level warn --policy "$work/policy.json" >"$out" 2>&1 ||
    { cat "$out"; fail "mcp-bridge install --client codebuddy --policy"; }
  grep -qx 'delete_.*' "$work/tools" || fail "the simulated base has no delete_ tool to deny"
  list client_codebuddy "$home" "$out" "after install --policy"
  denied='delete_.*' shown client_codebuddy "$out" "$ours" "codebuddy after install --policy (deny delete_*)"
  shown client_codebuddy "$out" "$theirs" "codebuddy after install --policy"
  pass "codebuddy with --policy denying delete_*: $(denied='delete_.*' client_codebuddy shows "$out" "$ours"), without $(grep -xE 'delete_.*' "$work/tools" | paste -sd' ')"
  cd "$here"
  echo "test-clients: codebuddy --policy: $(ms_since "$start") ms"
}

# check_uninstall ID CLIENT HOME OUT WHAT: uninstall --client ID in HOME,
# then the client's list no longer names ours and still shows the user's.
check_uninstall() {
  local id=$1 client=$2 home=$3 out=$4 what=$5
  in_home "$home" "$bin" uninstall --client "$id" >"$out" 2>&1 || { cat "$out"; fail "mcp-bridge uninstall --client $id"; }
  list "$client" "$home" "$out" "after uninstall"
  "$client" names "$out" "$ours" >/dev/null && { cat "$out"; fail "$id after uninstall still lists $ours"; }
  shown "$client" "$out" "$theirs" "$id after uninstall"
  pass "$id$what after uninstall: $ours gone, $("$client" shows "$out" "$theirs")"
}

# check_url ID: install --url, list with the token and with a wrong one,
# uninstall, list, in a fresh fixture home.
check_url() {
  local id=$1 client="client_${1//-/_}" home="$work/$1-url" out="$work/$1-url.out" start got refused
  start=$(date +%s%N)
  mkdir -p "$home/tmp" "$home/project"
  "$client" fixture "$home"
  cd "$home/project"
  in_home "$home" "$bin" install --client "$id" --url "$url" --token-file "$work/token" >"$out" 2>&1 ||
    { cat "$out"; fail "mcp-bridge install --client $id --url"; }
  grep -q CAD_MCP_TOKEN "$out" || { cat "$out"; fail "install --client $id --url does not name CAD_MCP_TOKEN"; }
  grep -rqF "$(cat "$work/token")" "$home" && fail "$id: the token itself is in a file of the client's home"
  list "$client" "$home" "$out" "after install --url" "CAD_MCP_TOKEN=$(cat "$work/token")"
  shown "$client" "$out" "$theirs" "$id after install --url"
  if "$client" connects; then
    shown "$client" "$out" "$ours" "$id after install --url"
    pass "$id after install --url: $("$client" shows "$out" "$ours")"
    refused=$(refusals)
    list "$client" "$home" "$out" "with a wrong token" "CAD_MCP_TOKEN=wrong"
    if [ "$id" = codebuddy ]; then
      # It leaves out a server it could not connect to: ours is gone, the
      # user's still there, and the bridge refused a request (HTTP 401).
      "$client" names "$out" "$ours" >/dev/null && { cat "$out"; fail "$id with a wrong token: $ours is listed"; }
      [ "$(refusals)" -gt "$refused" ] || { cat "$work/listen.err"; fail "$id with a wrong token: the bridge refused nothing"; }
      shown "$client" "$out" "$theirs" "$id with a wrong token"
      pass "$id with a wrong token in CAD_MCP_TOKEN: $ours not listed, refused by the bridge (HTTP 401)"
    else
      "$client" names "$out" "$ours" >/dev/null || { cat "$out"; fail "$id with a wrong token: $ours is not listed"; }
      "$client" shows "$out" "$ours" >/dev/null && { cat "$out"; fail "$id with a wrong token: $ours is still connected"; }
      pass "$id with a wrong token in CAD_MCP_TOKEN: $("$client" names "$out" "$ours")"
    fi
  else
    "$client" urlshows "$out" "$ours" "$url" >/dev/null ||
      { cat "$out"; fail "$id after install --url: $ours is not listed as a URL entry for $url sending the token from CAD_MCP_TOKEN"; }
    pass "$id after install --url: $("$client" urlshows "$out" "$ours" "$url")"
  fi
  if [ "$id" = copilot-cli ]; then
    got=$(copilot_session "$home" "$(cat "$work/token")")
    [ "$got" = "our tools listed" ] || { cat "$work/copilot-session.out"; fail "$id with the token in CAD_MCP_TOKEN: a session's log shows $got"; }
    pass "$id with the token in CAD_MCP_TOKEN: a session connects, $got"
    got=$(copilot_session "$home" wrong)
    [ "$got" = "refused (HTTP 401)" ] || { cat "$work/copilot-session.out"; fail "$id with a wrong token: a session's log shows $got"; }
    pass "$id with a wrong token in CAD_MCP_TOKEN: $got"
  fi

  check_uninstall "$id" "$client" "$home" "$out" " (URL form)"
  cd "$here"
  echo "test-clients: $id URL form: $(ms_since "$start") ms"
}

# refusals: how many requests the bridge serving --listen refused (HTTP 401).
refusals() { grep -c '"status":401' "$work/listen.err" || true; }

export PATH="$here/node_modules/.bin:$PATH"
for id in claude-code gemini codex copilot-cli opencode codebuddy; do
  check "$id"
done
check_codebuddy_policy

# A bridge serving Streamable HTTP with a token, for the URL form; its log
# names the URL it serves.
head -c 24 /dev/urandom | od -An -tx1 | tr -d ' \n' >"$work/token"
chmod 600 "$work/token"
"$bin" --port "$port" --listen 127.0.0.1:0 --token-file "$work/token" --no-cache --log-format json >"$work/listen.out" 2>"$work/listen.err" &
listen_pid=$!
url=
for _ in $(seq 100); do
  url=$(sed -n 's/.*"url":"\(http[^"]*\)".*/\1/p' "$work/listen.err" | head -1)
  [ -n "$url" ] && break
  sleep 0.05
done
[ -n "$url" ] || { cat "$work/listen.err"; fail "the bridge serving --listen did not start"; }
for id in claude-code gemini codex copilot-cli opencode codebuddy; do
  check_url "$id"
done
echo "test-clients: all clients listed what install wrote, its URL form too, and forgot what uninstall removed ($(ms_since "$begin") ms)"
