#!/usr/bin/env bash
# make test-telemetry: the telemetry package against the real engines.
# A Prometheus server (Debian's prometheus) scrapes --metrics-listen and a
# running bridge's /metrics under load and is queried; the status page is rendered in headless Chromium
# (Debian's chromium), screenshots in bin/telemetry/; the OTLP receiver in
# the tests decodes with the official protobuf definitions. Installs
# prometheus, chromium and a font with apt-get when missing, and checks
# their versions.
set -euo pipefail
cd "$(dirname "$0")/.."
go=${GO:-go}

need=
command -v prometheus >/dev/null 2>&1 || need="$need prometheus"
command -v chromium >/dev/null 2>&1 || need="$need chromium"
[ -e /usr/share/fonts/truetype/dejavu/DejaVuSans.ttf ] || need="$need fonts-dejavu-core"
if [ -n "$need" ]; then
  echo "test-telemetry: installing$need with apt-get"
  SUDO=$([ "$(id -u)" = 0 ] || echo sudo)
  $SUDO apt-get update -qq
  # Another apt-get (a parallel job) may hold the lock: wait for it.
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq -o DPkg::Lock::Timeout=900 --no-install-recommends $need
fi

# Versions: Prometheus 2.30 or later (the query API and text format the
# test uses), Chromium 112 or later (the headless mode the test drives).
pv=$(prometheus --version 2>&1 | sed -n 's/^prometheus, version \([0-9]*\)\.\([0-9]*\).*/\1 \2/p')
read -r pmaj pmin <<<"${pv:-0 0}"
if [ "$pmaj" -lt 2 ] || { [ "$pmaj" -eq 2 ] && [ "$pmin" -lt 30 ]; }; then
  echo "test-telemetry: prometheus ${pmaj}.${pmin} is too old (want 2.30 or later)" >&2
  exit 1
fi
cv=$(chromium --version 2>/dev/null | sed -n 's/^Chromium \([0-9]*\)\..*/\1/p')
if [ "${cv:-0}" -lt 112 ]; then
  echo "test-telemetry: chromium ${cv:-?} is too old (want 112 or later)" >&2
  exit 1
fi
echo "test-telemetry: prometheus ${pmaj}.${pmin}, chromium ${cv}"

shots=$PWD/bin/telemetry
mkdir -p "$shots"
MCP_BRIDGE_PROMETHEUS=$(command -v prometheus) \
MCP_BRIDGE_CHROMIUM=$(command -v chromium) \
MCP_BRIDGE_TELEMETRY_SHOTS=$shots \
  $go test -count=1 -race -v -run '^(TestPrometheusScrapesTheBridge|TestPageInChromium)$' ./bridge/telemetry/...
# The same through a running bridge: Prometheus scraping its /metrics on
# --listen with the token under load, CAD killed and started again; the
# bridge's own status page in Chromium (a question, a queued call, CAD down).
MCP_BRIDGE_PROMETHEUS=$(command -v prometheus) \
MCP_BRIDGE_CHROMIUM=$(command -v chromium) \
MCP_BRIDGE_TELEMETRY_SHOTS=$shots \
  $go test -count=1 -race -v -run '^(TestPrometheusScrapesARunningBridge|TestStatusPageAndHealthz)$' ./bridge/streamable
# The rest of the package's tests (the OTLP receiver's among them) run in
# make unit; run them here too, so this target alone covers telemetry, and
# the wiring's: one trace through connect, a remote bridge and CAD; the
# pages' token and Host rules; the counts through the stdio bridge.
$go test -count=1 -race ./bridge/telemetry/... ./bridge/guard/journal/
$go test -count=1 -race -run 'Telemetry|OneTrace|Pages|MetricsListen' ./bridge ./bridge/connect ./bridge/streamable ./cmd/mcp-bridge
echo "test-telemetry: screenshots in $shots"
