package streamable

import (
	"context"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcp-bridge/mcp-bridge/bridge"
	"github.com/mcp-bridge/mcp-bridge/bridge/internal/bridgetest"
	"github.com/mcp-bridge/mcp-bridge/bridge/telemetry/prom/promtest"
	"github.com/mcp-bridge/mcp-bridge/tcpbase"
	"github.com/mcp-bridge/mcp-bridge/tcpbase/simbase"
)

// TestPrometheusScrapesARunningBridge: a real Prometheus server (make
// test-telemetry sets MCP_BRIDGE_PROMETHEUS to Debian's) scrapes /metrics
// on the bridge's --listen, with the bearer token, while ten clients (five
// handshake-era sessions, five stateless 2026-07-28 programs) call tools,
// some of which fail at the base, and CAD is killed and started again.
// Prometheus's query API then gives, per tool and outcome, the counts the
// clients made; the calls counted are the journal's lines; it saw CAD down
// and sees it back; nothing is left in flight or queued, and the five
// sessions are open.
func TestPrometheusScrapesARunningBridge(t *testing.T) {
	bin := os.Getenv("MCP_BRIDGE_PROMETHEUS")
	if bin == "" {
		t.Skip("MCP_BRIDGE_PROMETHEUS is not set (make test-telemetry sets it)")
	}
	sim, err := simbase.Start("127.0.0.1:0", simbase.Options{Faults: true})
	if err != nil {
		t.Fatal(err)
	}
	simAddr := sim.Addr()
	var simMu sync.Mutex
	t.Cleanup(func() { simMu.Lock(); sim.Close(); simMu.Unlock() })
	jpath, jw := newJournal(t)
	const token = "s3cret"
	h := newHTTPHarness(t, func(c *bridge.Config, hc *Config) {
		c.Base, c.BaseAddr = &tcpbase.Client{Addr: simAddr, ConnectTimeout: time.Second}, simAddr
		c.Retries, c.ProbeInterval, c.Journal = -1, -1, jw
		hc.Token = token
		withMetrics(t)(c, hc)
	})
	prom := promtest.Start(t, bin, strings.TrimPrefix(strings.TrimSuffix(h.url, "/mcp"), "http://"), token)
	auth := hdr{"Authorization", "Bearer " + token}

	type key struct{ tool, outcome string } // outcome: ok, error (an error answer)
	var mu sync.Mutex
	made := map[key]int{}
	calls := 0
	sessions := make([]string, 5)
	for i := range sessions {
		r := h.post(append(append(hdr{}, jsonHeaders...), auth...), `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"load","version":"1"}}}`)
		if sessions[i] = r.header.Get("Mcp-Session-Id"); sessions[i] == "" {
			t.Fatalf("initialize: %d %s", r.status, r.body)
		}
	}
	// phase runs n calls of each of ten clients, all at once.
	phase := func(n int, tools []string) {
		var wg sync.WaitGroup
		for client := range 10 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := range n {
					tool := tools[(client+i)%len(tools)]
					id := fmt.Sprintf(`"c%d-%d-%d"`, client, i, time.Now().UnixNano())
					var headers hdr
					var body string
					if client < 5 {
						headers = append(withSession(sessions[client]), auth...)
						body = bridgetest.Call(id, tool, `{}`)
					} else {
						headers = append(modernHeaders("tools/call", tool), auth...)
						body = bridgetest.ModernCall(id, tool, `{}`, `{}`, "")
					}
					r, err := h.try(context.Background(), headers, body)
					if err != nil || r.status != 200 {
						t.Errorf("client %d call %d: %v %d %s", client, i, err, r.status, r.body)
						return
					}
					outcome := "ok"
					if strings.Contains(r.body, `"error":`) {
						outcome = "error"
					}
					mu.Lock()
					made[key{tool, outcome}]++
					calls++
					mu.Unlock()
				}
			}()
		}
		wg.Wait()
	}
	// The base's names become labels once it has listed them.
	if r := h.post(append(withSession(sessions[0]), auth...), `{"jsonrpc":"2.0","id":"l","method":"tools/list"}`); r.status != 200 {
		t.Fatalf("tools/list: %d %s", r.status, r.body)
	}
	tools := []string{"get_drawing_info", "list_layers", "fault_rpc_error", "made_up_tool"}
	phase(24, tools)

	simMu.Lock()
	sim.Close() // CAD killed
	simMu.Unlock()
	phase(2, []string{"get_drawing_info"})
	prom.WaitFor(t, `mcp_bridge_cad_reachable`, 0)
	simMu.Lock()
	if sim, err = simbase.Start(simAddr, simbase.Options{Faults: true}); err != nil { // and started again
		simMu.Unlock()
		t.Fatal(err)
	}
	simMu.Unlock()
	phase(4, tools)

	prom.WaitFor(t, `sum(mcp_server_operation_duration_seconds_count{mcp_method_name="tools/call"})`, float64(calls))
	// The journal has a line per tool request: the calls and the one tools/list.
	if n, lists := len(bridgetest.JournalLines(jpath)), prom.Value(t, `sum(mcp_server_operation_duration_seconds_count{mcp_method_name="tools/list"})`); float64(n) != float64(calls)+lists || lists != 1 {
		t.Errorf("the journal has %d lines for %d calls and %v lists", n, calls, lists)
	}
	for k, n := range made {
		sel := `error_type=""`
		if k.outcome == "error" {
			sel = `error_type!=""`
		}
		name := k.tool
		if name == "made_up_tool" {
			name = "_OTHER" // not in the base's list: no series of its own
		}
		q := fmt.Sprintf(`sum(mcp_server_operation_duration_seconds_count{mcp_method_name="tools/call",gen_ai_tool_name=%q,%s})`, name, sel)
		if got := prom.Value(t, q); got != float64(n) {
			t.Errorf("%s = %v, want %d", q, got, n)
		}
	}
	for _, c := range []struct {
		q    string
		want float64
	}{
		{`sum(mcp_server_operation_duration_seconds_count{mcp_method_name="tools/call",error_type="unreachable"})`, 20},
		{`min_over_time(mcp_bridge_cad_reachable[10m])`, 0},
		{`mcp_bridge_cad_reachable`, 1},
		{`sum(mcp_bridge_calls_in_flight)`, 0},
		{`sum(mcp_bridge_calls_queued)`, 0},
		{`sum(mcp_bridge_sessions)`, 5},
		{`count(count by (gen_ai_tool_name) (mcp_server_operation_duration_seconds_count{mcp_method_name="tools/call"}))`, 4}, // three listed names and _OTHER
		{`sum(mcp_server_operation_duration_seconds_count{mcp_protocol_version="2026-07-28",mcp_method_name="tools/call"})`, float64(calls / 2)},
	} {
		if got := prom.Value(t, c.q); got != c.want {
			t.Errorf("%s = %v, want %v", c.q, got, c.want)
		}
	}
}
