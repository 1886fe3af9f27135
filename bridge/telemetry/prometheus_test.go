package telemetry

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

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

	prom := startPrometheus(t, bin, ln.Addr().String())

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
	prom.waitFor(t, `sum(mcp_server_operation_duration_seconds_count)`, float64(total))
	for k, n := range want {
		sel := fmt.Sprintf(`gen_ai_tool_name=%q`, k.tool)
		if k.errType == "" {
			sel += `,error_type=""`
		} else {
			sel += fmt.Sprintf(`,error_type=%q`, k.errType)
		}
		q := fmt.Sprintf(`sum(mcp_server_operation_duration_seconds_count{%s})`, sel)
		if got := prom.value(t, q); got != float64(n) {
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
		if got := prom.value(t, c.q); got != c.want {
			t.Errorf("%s = %v, want %v", c.q, got, c.want)
		}
	}
	prom.waitFor(t, `mcp_bridge_cad_reachable`, 1)
	if got := prom.value(t, `max_over_time(mcp_bridge_cad_tools_list_age_seconds[1m])`); got < 0 || got > 300 {
		t.Errorf("tools list age %v", got)
	}
}

type prometheus struct {
	api string
}

// startPrometheus runs a Prometheus server scraping target every second,
// its data in a temporary folder; it is killed when the test ends.
func startPrometheus(t *testing.T, bin, target string) *prometheus {
	t.Helper()
	dir := t.TempDir()
	cfg := fmt.Sprintf("global:\n  scrape_interval: 1s\n  scrape_timeout: 1s\nscrape_configs:\n  - job_name: mcp-bridge\n    static_configs:\n      - targets: [%q]\n", target)
	if err := os.WriteFile(filepath.Join(dir, "prometheus.yml"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	// A free port for its API: taken, released, handed over.
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	logf, err := os.Create(filepath.Join(dir, "prometheus.log"))
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "--config.file="+filepath.Join(dir, "prometheus.yml"), "--storage.tsdb.path="+filepath.Join(dir, "data"),
		"--web.listen-address="+addr, "--log.level=warn")
	cmd.Stdout, cmd.Stderr = logf, logf
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); close(exited) }()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		<-exited
		logf.Close()
		if t.Failed() {
			b, _ := os.ReadFile(logf.Name())
			t.Logf("prometheus log:\n%s", b)
		}
	})
	p := &prometheus{api: "http://" + addr}
	deadline := time.Now().Add(2 * time.Minute)
	for {
		resp, err := http.Get(p.api + "/-/ready")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == 200 {
				return p
			}
		}
		select {
		case <-exited:
			t.Fatal("prometheus exited at start")
		case <-time.After(100 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatal("prometheus not ready after 2 minutes")
		}
	}
}

// query returns an instant query's single value, or false when it has no
// result.
func (p *prometheus) query(t *testing.T, q string) (float64, bool) {
	t.Helper()
	resp, err := http.Get(p.api + "/api/v1/query?query=" + url.QueryEscape(q))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	var r struct {
		Status string
		Error  string
		Data   struct {
			Result []struct {
				Value [2]any
			}
		}
	}
	if err := json.Unmarshal(body, &r); err != nil || r.Status != "success" {
		t.Fatalf("query %s: %v %s", q, err, body)
	}
	switch len(r.Data.Result) {
	case 0:
		return 0, false
	case 1:
		s, _ := r.Data.Result[0].Value[1].(string)
		v, err := strconv.ParseFloat(s, 64)
		if err != nil {
			t.Fatalf("query %s: value %q", q, s)
		}
		return v, true
	}
	t.Fatalf("query %s: %d results, want one: %s", q, len(r.Data.Result), strings.TrimSpace(string(body)))
	return 0, false
}

func (p *prometheus) value(t *testing.T, q string) float64 {
	t.Helper()
	v, ok := p.query(t, q)
	if !ok {
		t.Errorf("query %s: no result", q)
		return -1
	}
	return v
}

// waitFor polls q until it gives want (a scrape has seen it), for up to
// two minutes.
func (p *prometheus) waitFor(t *testing.T, q string, want float64) {
	t.Helper()
	deadline := time.Now().Add(2 * time.Minute)
	for {
		v, ok := p.query(t, q)
		if ok && v == want {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s is %v (present: %v) after 2 minutes, want %v", q, v, ok, want)
		}
		time.Sleep(200 * time.Millisecond) // a poll interval, not a wait for an event
	}
}
