#!/usr/bin/env bash
# End-to-end checks with real MCP clients against the built mcp-bridge and
# the simulated CAD base: the MCP Inspector CLI in all three eras (--strict
# tool listing, a tool call, a 200-call load), the TypeScript SDK 1.x and
# 2.x clients, and `mcp-bridge verify`; then the same clients over
# Streamable HTTP (--listen) and `mcp-bridge verify --url`. Any failure
# fails the run.
# Usage: verify/clients/run.sh path/to/mcp-bridge
# make test-windows runs it with $bin a script that starts mcp-bridge.exe
# under Wine, and sets E2E_SIM (a Linux mcp-bridge for the simulated bases,
# which stay on the Linux side) and E2E_COMMAND (the command the clients are
# given instead of the .exe's Windows path that --print-config prints).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
bin=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
sim_bin=${E2E_SIM:-$bin}
cd "$here"

"$here/install.sh"

work=$(mktemp -d)
sim_pid=
cleanup() { [ -n "$sim_pid" ] && kill "$sim_pid" 2>/dev/null; rm -rf "$work"; }
trap cleanup EXIT

# The simulated base on a free port; its first stdout line names the address.
# Without --faults: its fault tools include a schema that --strict rightly
# rejects (doctor's test case). `mcp-bridge verify` brings its own.
"$sim_bin" sim --port 0 >"$work/sim.out" 2>"$work/sim.err" &
sim_pid=$!
for _ in $(seq 100); do grep -q '^listening on ' "$work/sim.out" 2>/dev/null && break; sleep 0.05; done
addr=$(sed -n 's/^listening on //p' "$work/sim.out")
port=${addr##*:}
[ -n "$port" ] || { echo "e2e: the simulated base did not start"; cat "$work/sim.err"; exit 1; }
echo "e2e: simulated base on $addr"

# print_config: the bridge's own --print-config, with E2E_COMMAND as the command when set.
print_config() {
  "$bin" --print-config "$@" | node -e '
    let s = ""; process.stdin.on("data", (d) => (s += d)).on("end", () => {
      const c = JSON.parse(s), cmd = process.argv[1];
      if (cmd) for (const srv of Object.values(c.mcpServers)) srv.command = cmd;
      console.log(JSON.stringify(c, null, 2));
    });' "${E2E_COMMAND:-}"
}
print_config --client inspector --port "$port" --log-level warn --no-cache >"$work/inspector.json"
inspector() { npx --no-install mcp-inspector --cli --config "$work/inspector.json" --server cad-autocad "$@"; }

fail() { echo "e2e: FAIL $*"; exit 1; }
pass() { echo "e2e: ok   $*"; }
# http_url FILE: the MCP URL that a bridge started with --listen logs (JSON)
# in FILE, once it is there; fails after 5 s.
http_url() {
  local u
  for _ in $(seq 100); do
    u=$(sed -n 's/.*"url":"\(https\{0,1\}:[^"]*\)".*/\1/p' "$1" | head -1)
    [ -n "$u" ] && { echo "$u"; return 0; }
    sleep 0.05
  done
  return 1
}
want_tools=$(printf '%s\n' '{"jsonrpc":"2.0","id":1,"method":"tools/list"}' | "$bin" --port "$port" --log-level error --no-cache |
  node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>console.log(JSON.parse(s).result.tools.length))')

for era in legacy auto modern; do
  inspector --protocol-era "$era" --method tools/list --strict >"$work/list.json" 2>"$work/err" ||
    { cat "$work/err"; fail "Inspector $era tools/list --strict (exit $?)"; }
  got=$(node -e 'console.log(JSON.parse(require("fs").readFileSync(process.argv[1])).tools.length)' "$work/list.json")
  [ "$got" = "$want_tools" ] || fail "Inspector $era tools/list: $got tools, the base has $want_tools (some were dropped)"
  pass "Inspector --protocol-era $era tools/list --strict: $got tools"

  inspector --protocol-era "$era" --method tools/call --tool-name draw_line \
    --tool-args-json '{"start":{"x":0,"y":0},"end":{"x":6,"y":8}}' >"$work/call.json" 2>"$work/err" ||
    { cat "$work/err"; fail "Inspector $era tools/call draw_line"; }
  grep -q 'length 10' "$work/call.json" || { cat "$work/call.json"; fail "Inspector $era tools/call: unexpected result"; }
  pass "Inspector --protocol-era $era tools/call draw_line"
done

inspector --protocol-era legacy --method tools/call --tool-name no_such_tool --tool-args-json '{}' >"$work/out" 2>&1 && code=0 || code=$?
[ "$code" = 5 ] || { cat "$work/out"; fail "Inspector unknown tool: exit $code, want 5"; }
pass "Inspector unknown tool: exit 5"

inspector --method tools/call --tool-name measure_distance --tool-args-json '{"from":{"x":0,"y":0},"to":{"x":1,"y":1}}' \
  --load --load-requests 200 --load-concurrency 10 >"$work/load.json" 2>"$work/err" || { cat "$work/err"; fail "Inspector --load"; }
node -e '
  const r = JSON.parse(require("fs").readFileSync(process.argv[1]));
  if (r.requests !== 200 || r.ok !== 200 || r.errors !== 0 || r.toolErrors !== 0) { console.log(JSON.stringify(r)); process.exit(1); }
  console.log(`e2e: ok   Inspector --load: ${r.ok}/${r.requests} ok, 0 errors, p50 ${r.latencyMs.p50} ms, p99 ${r.latencyMs.p99} ms`);
' "$work/load.json" || fail "Inspector --load: errors in the summary"

# Schema repair, seen by a real client: the fault sim lists a tool whose
# inputSchema lacks "type": "object". With the repair the Inspector keeps
# every tool; without it, its SDK silently drops that one.
"$sim_bin" sim --port 0 --faults >"$work/sim2.out" 2>"$work/sim2.err" &
sim2_pid=$!
trap 'kill $sim_pid $sim2_pid 2>/dev/null; rm -rf "$work"' EXIT
for _ in $(seq 100); do grep -q '^listening on ' "$work/sim2.out" 2>/dev/null && break; sleep 0.05; done
port2=$(sed -n 's/^listening on .*://p' "$work/sim2.out")
base2=$(printf '%s\n' '{"jsonrpc":"2.0","id":1,"method":"tools/list"}' | "$bin" --port "$port2" --log-level error --no-cache |
  node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>console.log(JSON.parse(s).result.tools.length))')
count() { node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>console.log(JSON.parse(s).tools.length))'; }
print_config --client inspector --port "$port2" --log-level error --no-cache >"$work/repair.json"
print_config --client inspector --port "$port2" --log-level error --no-cache --no-schema-repair >"$work/norepair.json"
with=$(npx --no-install mcp-inspector --cli --config "$work/repair.json" --server cad-autocad --method tools/list 2>/dev/null | count)
without=$(npx --no-install mcp-inspector --cli --config "$work/norepair.json" --server cad-autocad --method tools/list 2>/dev/null | count)
[ "$with" = "$base2" ] || fail "Inspector with schema repair: $with tools, the base has $base2"
[ "$without" = "$((base2 - 1))" ] || fail "Inspector without schema repair: $without tools, expected $((base2 - 1)) (the untyped one dropped)"
pass "Inspector keeps all $with tools with schema repair ($without without: its SDK drops the untyped one)"

if [ -z "${E2E_COMMAND:-}" ]; then
# What `install` writes is what a client starts: install into Claude
# Desktop's file in a fixture home (beside another server, with a comment
# kept), then the Inspector reads that very file with --config.
fixture="$work/home"
mkdir -p "$fixture/.config/Claude"
printf '{\n  "mcpServers": {\n    "other": {"command": "npx", "args": ["-y", "other-server"]}\n  }\n}\n' >"$fixture/.config/Claude/claude_desktop_config.json"
HOME="$fixture" XDG_CONFIG_HOME="$fixture/.config" "$bin" install --client claude-desktop --port "$port" --log-level warn --no-cache >"$work/install.out" ||
  { cat "$work/install.out"; fail "mcp-bridge install --client claude-desktop"; }
desktop="$fixture/.config/Claude/claude_desktop_config.json"
grep -q '"other"' "$desktop" || fail "install lost the other server: $(cat "$desktop")"
npx --no-install mcp-inspector --cli --config "$desktop" --server cad-autocad --method tools/list --strict >"$work/installed.json" 2>"$work/err" ||
  { cat "$work/err" "$desktop"; fail "Inspector with the Claude Desktop file install wrote"; }
got=$(node -e 'console.log(JSON.parse(require("fs").readFileSync(process.argv[1])).tools.length)' "$work/installed.json")
[ "$got" = "$want_tools" ] || fail "Inspector with the installed config: $got tools, the base has $want_tools"
pass "Inspector --config <the Claude Desktop file install wrote> tools/list --strict: $got tools"
else
  # Under Wine install writes the .exe's Windows path into Wine's %APPDATA%:
  # no Linux client can start it. The install tests run there as Windows
  # unit tests (configs/clientconf, cmd/mcp-bridge).
  echo "e2e: skip  install then Inspector --config: the installed command is a Windows path"
fi

node sdk1.mjs "$bin" "$port" || fail "TypeScript SDK 1.x client"
node sdk2.mjs "$bin" "$port" || fail "TypeScript SDK 2.x client"

# Under Wine (make test-windows) the policy and HTTP runs below are left to
# the Windows unit tests (bridge, bridge/guard/policy, bridge/guard/confirm,
# bridge/guard/journal run there): their bridges are started from these scripts
# with Linux paths and POSIX signals.
if [ -z "${E2E_COMMAND:-}" ]; then
# Policy, annotations and confirmation (configs/policy.example.jsonc): the
# Inspector --strict accepts the annotated list in every era; the SDK 1.x
# client confirms through elicitation/create, the 2.x client through
# input_required; the journal holds a line for each call.
policy="$here/../../configs/policy.example.jsonc"
"$bin" --print-config --client inspector --port "$port" --log-level warn --no-cache --policy "$policy" >"$work/policy.json"
for era in legacy auto modern; do
  npx --no-install mcp-inspector --cli --config "$work/policy.json" --server cad-autocad --protocol-era "$era" \
    --method tools/list --strict >"$work/plist.json" 2>"$work/err" || { cat "$work/err"; fail "Inspector $era tools/list --strict with the policy"; }
  node -e '
    const t = Object.fromEntries(JSON.parse(require("fs").readFileSync(process.argv[1])).tools.map((x) => [x.name, x]));
    if (t.save_drawing || t.new_drawing) throw new Error("denied tools listed");
    if (t.delete_entities?.annotations?.destructiveHint !== true || t.get_entity?.annotations?.readOnlyHint !== true) throw new Error("annotations missing");
  ' "$work/plist.json" || fail "Inspector $era: the policy's list"
  pass "Inspector --protocol-era $era tools/list --strict with the policy: annotated, denied tools absent"
done
node policy1.mjs "$bin" "$port" "$policy" "$work/journal.jsonl" || fail "TypeScript SDK 1.x client with a policy (elicitation)"
node policy2.mjs "$bin" "$port" "$policy" || fail "TypeScript SDK 2.x client with a policy (input_required)"
"$bin" journal "$work/journal.jsonl" --failed --json | grep -q '"outcome":"declined"' || fail "journal: no declined call"
pass "journal records the declined and the denied calls"

# Streamable HTTP: one bridge serving http://127.0.0.1:<free port>/mcp for
# every client below, in every era; `mcp-bridge verify --url` last.
export MCP_INSPECTOR_SECRET_STORE=memory
"$bin" --port "$port" --listen 127.0.0.1:0 --log-format json --log-level info --no-cache 2>"$work/http.err" &
http_pid=$!
trap 'kill $sim_pid $sim2_pid $http_pid 2>/dev/null; rm -rf "$work"' EXIT
url=$(http_url "$work/http.err") || { cat "$work/http.err"; fail "the HTTP bridge did not start"; }
echo "e2e: HTTP bridge at $url"
hostport=${url#http://}
"$bin" --print-config --client inspector --listen "${hostport%/mcp}" >"$work/http.json"
for era in legacy auto modern; do
  npx --no-install mcp-inspector --cli --config "$work/http.json" --server cad-autocad --protocol-era "$era" --method tools/list --strict \
    >"$work/list.json" 2>"$work/err" || { cat "$work/err"; fail "Inspector HTTP $era tools/list --strict"; }
  got=$(node -e 'console.log(JSON.parse(require("fs").readFileSync(process.argv[1])).tools.length)' "$work/list.json")
  [ "$got" = "$want_tools" ] || fail "Inspector HTTP $era tools/list: $got tools, the base has $want_tools"
  pass "Inspector --transport http --protocol-era $era tools/list --strict: $got tools"
  npx --no-install mcp-inspector --cli "$url" --transport http --protocol-era "$era" --method tools/call --tool-name draw_line \
    --tool-args-json '{"start":{"x":0,"y":0},"end":{"x":6,"y":8}}' >"$work/call.json" 2>"$work/err" ||
    { cat "$work/err"; fail "Inspector HTTP $era tools/call draw_line"; }
  grep -q 'length 10' "$work/call.json" || { cat "$work/call.json"; fail "Inspector HTTP $era tools/call: unexpected result"; }
  pass "Inspector --transport http --protocol-era $era tools/call draw_line"
done
npx --no-install mcp-inspector --cli "$url" --transport http --method tools/call --tool-name no_such_tool --tool-args-json '{}' >"$work/out" 2>&1 && code=0 || code=$?
[ "$code" = 5 ] || { cat "$work/out"; fail "Inspector HTTP unknown tool: exit $code, want 5"; }
pass "Inspector HTTP unknown tool: exit 5"
node sdk1http.mjs "$url" || fail "TypeScript SDK 1.x StreamableHTTPClientTransport"
for mode in auto legacy modern; do
  node sdk2http.mjs "$url" "$mode" || fail "TypeScript SDK 2.x over HTTP, $mode"
done
"$bin" verify --url "$url" || fail "mcp-bridge verify --url"
kill -TERM "$http_pid"
wait "$http_pid" || fail "the HTTP bridge did not exit 0 on SIGTERM"
pass "HTTP bridge exits 0 on SIGTERM"

# The policy over HTTP: the SDK 1.x client is asked on its call's SSE stream
# and POSTs its answer; the 2.x client goes through input_required.
"$bin" --port "$port" --listen 127.0.0.1:0 --log-format json --log-level info --no-cache --policy "$policy" 2>"$work/phttp.err" &
phttp_pid=$!
trap 'kill $sim_pid $sim2_pid $http_pid $phttp_pid 2>/dev/null; rm -rf "$work"' EXIT
purl=$(http_url "$work/phttp.err") || { cat "$work/phttp.err"; fail "the HTTP bridge with a policy did not start"; }
node policy1.mjs "$purl" || fail "TypeScript SDK 1.x over HTTP with a policy (elicitation on the SSE stream)"
node policy2.mjs "$purl" || fail "TypeScript SDK 2.x over HTTP with a policy (input_required)"
kill -TERM "$phttp_pid"
wait "$phttp_pid" || fail "the HTTP bridge with a policy did not exit 0 on SIGTERM"
else
  echo "e2e: skip  policy and Streamable HTTP clients under Wine (their Windows unit tests ran)"
fi

# CAD on another machine: the clients start `mcp-bridge connect`, which
# relays over HTTPS (self-signed certificate pinned by its fingerprint, a
# token) to a bridge serving --listen. Under Wine the clients start the
# .exe's connect and the serving bridge is the Linux one (the CAD machine).
printf 'e2e-token\n' >"$work/token"
"$sim_bin" --port "$port" --listen 127.0.0.1:0 --tls-self-signed --cache-dir "$work/tls" --token-file "$work/token" \
  --log-format json --log-level info --no-cache 2>"$work/tls.err" &
tls_pid=$!
trap 'kill $sim_pid $sim2_pid ${http_pid:-} ${phttp_pid:-} $tls_pid 2>/dev/null; rm -rf "$work"' EXIT
turl=$(http_url "$work/tls.err") || { cat "$work/tls.err"; fail "the HTTPS bridge did not start"; }
fp=$(sed -n 's/.*"fingerprint":"\(sha256:[0-9a-f]*\)".*/\1/p' "$work/tls.err" | head -1)
case "$turl" in https://*) ;; *) fail "the TLS bridge serves $turl";; esac
echo "e2e: HTTPS bridge at $turl, $fp"
connect_args=$(node -e 'console.log(JSON.stringify(["connect", ...process.argv.slice(1), "--log-level", "warn"]))' \
  "$turl" --fingerprint "$fp" --token-file "$work/token")
node -e 'console.log(JSON.stringify({mcpServers: {"cad-autocad": {command: process.argv[1], args: JSON.parse(process.argv[2])}}}, null, 2))' \
  "$bin" "$connect_args" >"$work/connect.json"
for era in legacy auto modern; do
  npx --no-install mcp-inspector --cli --config "$work/connect.json" --server cad-autocad --protocol-era "$era" --method tools/list --strict \
    >"$work/list.json" 2>"$work/err" || { cat "$work/err"; fail "Inspector through connect $era tools/list --strict"; }
  got=$(node -e 'console.log(JSON.parse(require("fs").readFileSync(process.argv[1])).tools.length)' "$work/list.json")
  [ "$got" = "$want_tools" ] || fail "Inspector through connect $era tools/list: $got tools, the base has $want_tools"
  npx --no-install mcp-inspector --cli --config "$work/connect.json" --server cad-autocad --protocol-era "$era" --method tools/call \
    --tool-name draw_line --tool-args-json '{"start":{"x":0,"y":0},"end":{"x":6,"y":8}}' >"$work/call.json" 2>"$work/err" ||
    { cat "$work/err"; fail "Inspector through connect $era tools/call draw_line"; }
  grep -q 'length 10' "$work/call.json" || { cat "$work/call.json"; fail "Inspector through connect $era tools/call: unexpected result"; }
  pass "Inspector --protocol-era $era through connect → HTTPS: tools/list --strict ($got tools), tools/call draw_line"
done
E2E_ARGS=$connect_args node sdk1.mjs "$bin" || fail "TypeScript SDK 1.x through connect"
E2E_ARGS=$connect_args node sdk2.mjs "$bin" || fail "TypeScript SDK 2.x through connect"
kill -TERM "$tls_pid"
wait "$tls_pid" || fail "the HTTPS bridge did not exit 0 on SIGTERM"

if "$bin" verify --help >/dev/null 2>&1; then
  "$bin" verify || fail "mcp-bridge verify"
fi
echo "e2e: all real-client checks passed"
