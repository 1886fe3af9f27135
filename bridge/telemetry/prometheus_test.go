package telemetry

import (
	"context"
	"fmt"
	"net"
	"os"
	"strconv"
	"sync"
	"testing"

	"github.com/mcp-bridge/mcp-bridge/bridge/telemetry/prom/promtest"
	"github.com/rs/zerolog"
)

// TestPrometheusScrapesTheBridge: a real Prometheus server (make
// test-telemetry sets MCP_BRIDGE_PROMETHEUS to Debian's) scrapes
// --metrics-listen while ten clients of both eras call tools, some calls
// fail, some are refused or declined, and CAD goes down and comes back.
// Its query API then gives, per tool and error type, the counts the
// clients made; invented tool names are one _OTHER series; the gauges are
// back to zero and CAD reachable.
func TestPrometheusScrapesTheBridge(t *testing.T) {
	bin := os.Getenv("MCP_BRIDGE_PROMETHEUS")
	if bin == "" {
		t.Skip("MCP_BRIDGE_PROMETHEUS is not set (make test-telemetry sets it)")
	}
	c := newCore(t, Config{MetricsListen: "127.0.0.1:0"})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, stop := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- ServeMetrics(ctx, ln, c.tel.MetricsHandler(), zerolog.Nop()) }()
	defer func() { stop(); <-served }()

	prom := promtest.Start(t, bin, ln.Addr().String(), "")

	// The load: ten clients, a few hundred requests, while the scrapes run.
	c.tel.ToolsListed(toolsList("draw_line", "get_entities", "delete_entities"))
	c.health.Up()
	type key struct{ tool, errType string }
	var mu sync.Mutex
	want := map[key]int{}
	var wg sync.WaitGroup
	cadDown := make(chan struct{})
	cadBack := make(chan struct{})
	for client := range 10 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			version := "2025-11-25"
			if client%2 == 1 {
				version = "2026-07-28"
			}
			for i := range 30 {
				if client == 0 && i == 10 {
					close(cadDown)
				}
				if client == 0 && i == 20 {
					close(cadBack)
				}
				req := Request{Method: "tools/call", ProtocolVersion: version, Transport: TransportTCP, HTTPVersion: "1.1", ID: []byte(strconv.Itoa(i))}
				j := job{req: req, queue: true}
				k := key{}
				switch {
				case i%10 == 3:
					j.req.Tool, k.tool = fmt.Sprintf("invented_%d_%d", client, i), Other
					j.result, k.errType = Result{Code: -32602, Kind: "unlisted", Message: "no such tool"}, "unlisted"
					j.refuse = RefusalUnlisted
				case i%10 == 5:
					j.req.Tool, k.tool = "delete_entities", "delete_entities"
					j.ask = Declined
					j.result, k.errType = Result{Code: -32602, Kind: "declined", Message: "you declined it"}, "declined"
				case i%10 == 7:
					j.req.Tool, k.tool = "get_entities", "get_entities"
					j.result, k.errType = Result{ToolError: true}, "tool_error"
				default:
					j.req.Tool, k.tool = "draw_line", "draw_line"
				}
				// While CAD is down, calls that reach it fail.
				select {
				case <-cadDown:
					select {
					case <-cadBack:
					default:
						if j.refuse == "" && j.ask != Declined {
							j.baseErr = "unreachable"
							j.result, k.errType = Result{Code: -32603, Kind: "unreachable", Message: "CAD base refused the connection"}, "unreachable"
						}
					}
				default:
				}
				c.run(j)
				mu.Lock()
				want[k]++
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	c.health.Up() // CAD is back: the last probe answered

	total := 0
	for _, n := range want {
		total += n
	}
	// Wait for a scrape that has seen every request.
	prom.WaitFor(t, `sum(mcp_server_operation_duration_seconds_count)`, float64(total))
	for k, n := range want {
		sel := fmt.Sprintf(`gen_ai_tool_name=%q`, k.tool)
		if k.errType == "" {
			sel += `,error_type=""`
		} else {
			sel += fmt.Sprintf(`,error_type=%q`, k.errType)
		}
		q := fmt.Sprintf(`sum(mcp_server_operation_duration_seconds_count{%s})`, sel)
		if got := prom.Value(t, q); got != float64(n) {
			t.Errorf("%s = %v, want %v", q, got, n)
		}
	}
	for _, c := range []struct {
		q    string
		want float64
	}{
		{`count(count by (gen_ai_tool_name) (mcp_server_operation_duration_seconds_count))`, 4}, // three listed tools and _OTHER
		{`sum(mcp_server_operation_duration_seconds_count{mcp_protocol_version="2026-07-28"})`, 150},
		{`sum(mcp_bridge_policy_refusals_total{mcp_bridge_refusal_kind="unlisted"})`, 30},
		{`sum(mcp_bridge_confirmations_answered_total{mcp_bridge_confirmation_answer="declined"})`, 30},
		{`sum(mcp_bridge_calls_in_flight)`, 0},
		{`sum(mcp_bridge_calls_queued)`, 0},
		{`up{job="mcp-bridge"}`, 1},
	} {
		if got := prom.Value(t, c.q); got != c.want {
			t.Errorf("%s = %v, want %v", c.q, got, c.want)
		}
	}
	prom.WaitFor(t, `mcp_bridge_cad_reachable`, 1)
	if got := prom.Value(t, `max_over_time(mcp_bridge_cad_tools_list_age_seconds[1m])`); got < 0 || got > 300 {
		t.Errorf("tools list age %v", got)
	}
}
