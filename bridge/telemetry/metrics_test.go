package telemetry

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	"github.com/rs/zerolog"
	metricspb "go.opentelemetry.io/proto/otlp/metrics/v1"
)

// scrape reads /metrics through the handler and parses it with
// Prometheus's own parser.
func scrape(t *testing.T, c *core) map[string]*dto.MetricFamily {
	t.Helper()
	h := c.tel.MetricsHandler()
	if h == nil {
		t.Fatal("no /metrics handler")
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/metrics", nil))
	if rec.Code != 200 || rec.Header().Get("Content-Type") != "text/plain; version=0.0.4; charset=utf-8" {
		t.Fatalf("/metrics: %d %q", rec.Code, rec.Header().Get("Content-Type"))
	}
	p := expfmt.NewTextParser(model.LegacyValidation)
	fams, err := p.TextToMetricFamilies(strings.NewReader(rec.Body.String()))
	if err != nil {
		t.Fatalf("Prometheus's parser refuses /metrics: %v\n%s", err, rec.Body.String())
	}
	return fams
}

func lbls(m *dto.Metric) map[string]string {
	out := map[string]string{}
	for _, l := range m.Label {
		out[l.GetName()] = l.GetValue()
	}
	return out
}

// series returns the family's series whose labels include want.
func series(fam *dto.MetricFamily, want map[string]string) []*dto.Metric {
	if fam == nil {
		return nil
	}
	var out []*dto.Metric
	for _, m := range fam.Metric {
		l := lbls(m)
		ok := true
		for k, v := range want {
			if l[k] != v {
				ok = false
			}
		}
		if ok {
			out = append(out, m)
		}
	}
	return out
}

func value(m *dto.Metric) float64 {
	switch {
	case m.Counter != nil:
		return m.Counter.GetValue()
	case m.Gauge != nil:
		return m.Gauge.GetValue()
	case m.Histogram != nil:
		return float64(m.Histogram.GetSampleCount())
	}
	return -1
}

// A mixed day: good calls, a tool error, a refusal, a declined question,
// CAD going down. /metrics counts each as the core reported it.
func TestMetricsCountWhatHappened(t *testing.T) {
	c := newCore(t, Config{Metrics: true})
	c.tel.ToolsListed(toolsList("draw_line", "delete_entities"))
	call := func(tool string) Request {
		return Request{Method: "tools/call", Tool: tool, ID: []byte(`1`), ProtocolVersion: "2025-11-25", Transport: TransportTCP, HTTPVersion: "1.1"}
	}
	for range 3 {
		c.run(job{req: call("draw_line"), queue: true})
	}
	c.run(job{req: call("draw_line"), result: Result{ToolError: true}})
	c.run(job{req: call("delete_entities"), refuse: RefusalDenied, result: Result{Code: -32602, Kind: "denied", Message: "denied"}})
	c.run(job{req: call("delete_entities"), ask: Declined, result: Result{Code: -32602, Kind: "declined", Message: "you declined it"}})
	c.run(job{req: call("delete_entities"), ask: Agreed})
	c.run(job{req: call("draw_line"), baseErr: "unreachable", result: Result{Code: -32603, Kind: "unreachable", Message: "down"}})

	f := scrape(t, c)
	dur := f["mcp_server_operation_duration_seconds"]
	check := func(what string, fam *dto.MetricFamily, want map[string]string, n float64) {
		t.Helper()
		got := 0.0
		for _, m := range series(fam, want) {
			got += value(m)
		}
		if got != n {
			t.Errorf("%s %v: %v, want %v", what, want, got, n)
		}
	}
	ok := map[string]string{"gen_ai_tool_name": "draw_line", "mcp_method_name": "tools/call", "gen_ai_operation_name": "execute_tool",
		"mcp_protocol_version": "2025-11-25", "network_transport": "tcp", "network_protocol_name": "http", "network_protocol_version": "1.1"}
	good := series(dur, ok)
	var noErr []*dto.Metric
	for _, m := range good {
		if _, has := lbls(m)["error_type"]; !has {
			noErr = append(noErr, m)
		}
	}
	if len(noErr) != 1 || value(noErr[0]) != 3 {
		t.Errorf("good draw_line calls: %v", noErr)
	}
	check("tool errors", dur, map[string]string{"gen_ai_tool_name": "draw_line", "error_type": "tool_error"}, 1)
	check("CAD down", dur, map[string]string{"gen_ai_tool_name": "draw_line", "error_type": "unreachable", "rpc_response_status_code": "-32603"}, 1)
	check("refused", dur, map[string]string{"gen_ai_tool_name": "delete_entities", "error_type": "denied"}, 1)
	check("all calls", dur, map[string]string{"mcp_method_name": "tools/call"}, 8)
	check("refusals", f["mcp_bridge_policy_refusals_total"], map[string]string{"mcp_bridge_refusal_kind": "denied", "gen_ai_tool_name": "delete_entities"}, 1)
	check("asked", f["mcp_bridge_confirmations_asked_total"], map[string]string{"gen_ai_tool_name": "delete_entities"}, 2)
	check("agreed", f["mcp_bridge_confirmations_answered_total"], map[string]string{"mcp_bridge_confirmation_answer": "agreed"}, 1)
	check("declined", f["mcp_bridge_confirmations_answered_total"], map[string]string{"mcp_bridge_confirmation_answer": "declined"}, 1)
	check("queue waits", f["mcp_bridge_queue_duration_seconds"], map[string]string{"gen_ai_tool_name": "draw_line"}, 3)
	check("CAD round trips", f["mcp_client_operation_duration_seconds"], map[string]string{"server_address": "127.0.0.1", "server_port": "8080", "network_transport": "tcp"}, 6)
	check("CAD failures", f["mcp_client_operation_duration_seconds"], map[string]string{"error_type": "unreachable"}, 1)
	check("in flight after all ended", f["mcp_bridge_calls_in_flight"], nil, 0)
	check("queued after all ended", f["mcp_bridge_calls_queued"], nil, 0)
	check("CAD reachable after the last call failed", f["mcp_bridge_cad_reachable"], nil, 0)
	if age := f["mcp_bridge_cad_tools_list_age_seconds"]; age == nil || value(age.Metric[0]) < 0 || value(age.Metric[0]) > 60 {
		t.Errorf("tools list age: %v", age)
	}
	c.health.Up()
	check("CAD reachable again", scrape(t, c)["mcp_bridge_cad_reachable"], nil, 1)

	ti := f["target_info"]
	if ti == nil || lbls(ti.Metric[0])["service_name"] != "mcp-bridge" || lbls(ti.Metric[0])["host_name"] != "cad-pc-12" {
		t.Errorf("target_info: %v", ti)
	}
	if b := dur.Metric[0].Histogram.Bucket; len(b) != len(durationBuckets)+1 || b[0].GetUpperBound() != 0.01 || b[len(b)-2].GetUpperBound() != 300 {
		t.Errorf("buckets are not the convention's: %v", b)
	}
}

// Gauges follow what is open, and nothing is counted before it happens:
// no reachable series before the first call, no list age before a list.
func TestGaugesFollowWhatIsOpen(t *testing.T) {
	c := newCore(t, Config{MetricsListen: "127.0.0.1:0"})
	f := scrape(t, c)
	for _, name := range []string{"mcp_bridge_cad_reachable", "mcp_bridge_cad_tools_list_age_seconds"} {
		if f[name] != nil {
			t.Errorf("%s before anything happened: %v", name, f[name])
		}
	}
	op := c.tel.Start(Request{Method: "tools/call", Tool: "a"})
	op.Queued()
	op.Queued() // a second Queued changes nothing
	s1 := c.tel.SessionStart(SessionInfo{Transport: TransportTCP, ProtocolVersion: "2025-06-18"})
	s2 := c.tel.SessionStart(SessionInfo{Transport: TransportPipe})
	st := c.tel.StreamOpened()
	f = scrape(t, c)
	if v := value(f["mcp_bridge_calls_queued"].Metric[0]); v != 1 {
		t.Errorf("queued %v, want 1", v)
	}
	if n := len(series(f["mcp_bridge_sessions"], nil)); n != 2 {
		t.Errorf("%d session series, want one per transport", n)
	}
	if v := value(f["mcp_bridge_streams"].Metric[0]); v != 1 {
		t.Errorf("streams %v", v)
	}
	op.Dequeued()
	call := op.CallBase()
	f = scrape(t, c)
	if value(f["mcp_bridge_calls_queued"].Metric[0]) != 0 || value(f["mcp_bridge_calls_in_flight"].Metric[0]) != 1 {
		t.Errorf("after the worker took it: queued %v in flight %v", value(f["mcp_bridge_calls_queued"].Metric[0]), value(f["mcp_bridge_calls_in_flight"].Metric[0]))
	}
	// The client cancels: the answer goes out while CAD still runs the call.
	op.End(Result{Kind: "cancelled", Code: -32603})
	if v := value(scrape(t, c)["mcp_bridge_calls_in_flight"].Metric[0]); v != 1 {
		t.Errorf("in flight after the answer but before CAD's: %v", v)
	}
	call.End("")
	call.End("timeout") // a second End changes nothing
	s1.End("")
	s1.End("")
	s2.End("shutdown")
	st.Closed()
	st.Closed()
	f = scrape(t, c)
	for _, name := range []string{"mcp_bridge_calls_in_flight", "mcp_bridge_calls_queued", "mcp_bridge_streams"} {
		if v := value(f[name].Metric[0]); v != 0 {
			t.Errorf("%s = %v after all ended", name, v)
		}
	}
	for _, m := range f["mcp_bridge_sessions"].Metric {
		if value(m) != 0 {
			t.Errorf("sessions %v = %v after all ended", lbls(m), value(m))
		}
	}
	if n := len(series(f["mcp_client_operation_duration_seconds"], map[string]string{"error_type": "timeout"})); n != 0 {
		t.Error("a second End of a call was recorded")
	}
	check := series(f["mcp_server_session_duration_seconds"], map[string]string{"network_transport": "pipe", "error_type": "shutdown"})
	if len(check) != 1 || value(check[0]) != 1 {
		t.Errorf("session duration of the stdio session: %v", check)
	}
	// A queued request that ends (cancelled, pushed out) leaves the queue.
	op = c.tel.Start(Request{Method: "tools/call", Tool: "a"})
	op.Queued()
	op.End(Result{Kind: "cancelled"})
	op.Queued() // after End: nothing
	if v := value(scrape(t, c)["mcp_bridge_calls_queued"].Metric[0]); v != 0 {
		t.Errorf("queued %v after a queued request ended", v)
	}
}

// Tool names are label values only for tools the base listed: a thousand
// names a client invents make one series. The list is bounded too: the
// 500th name listed is a label, the 501st is not; a name of 128 bytes is,
// one of 129 is not.
func TestToolNameCardinality(t *testing.T) {
	c := newCore(t, Config{Metrics: true})
	var listed []string
	for i := range maxTools + 1 {
		listed = append(listed, fmt.Sprintf("tool_%03d", i))
	}
	long128, long129 := strings.Repeat("t", maxToolName), strings.Repeat("u", maxToolName+1)
	c.tel.ToolsListed(toolsList(append([]string{long128, long129}, listed...)...))
	for i := range 1000 {
		c.run(job{req: Request{Method: "tools/call", Tool: fmt.Sprintf("invented_%d", i)}})
	}
	for _, n := range []string{long128, long129, listed[maxTools-3], listed[maxTools-2], listed[maxTools-1]} {
		c.run(job{req: Request{Method: "tools/call", Tool: n}})
	}
	f := scrape(t, c)
	names := map[string]float64{}
	for _, m := range f["mcp_server_operation_duration_seconds"].Metric {
		names[lbls(m)["gen_ai_tool_name"]] += value(m)
	}
	// The list holds long128, long129 (refused: too long), then tool_000…:
	// 500 kept names are long128 and tool_000 … tool_498.
	want := map[string]float64{Other: 1000 + 2, long128: 1, listed[maxTools-3]: 1, listed[maxTools-2]: 1}
	if diff := cmp.Diff(want, names); diff != "" {
		t.Errorf("series by tool name (-want +got):\n%s", diff)
	}
	// A new list replaces the old one whole.
	c.tel.ToolsListed(toolsList("only_this"))
	c.run(job{req: Request{Method: "tools/call", Tool: long128}})
	f = scrape(t, c)
	if n := len(series(f["mcp_server_operation_duration_seconds"], map[string]string{"gen_ai_tool_name": Other})); n != 1 {
		t.Errorf("%d _OTHER series", n)
	}
	if got := value(series(f["mcp_server_operation_duration_seconds"], map[string]string{"gen_ai_tool_name": Other})[0]); got != 1003 {
		t.Errorf("a tool dropped from the list still labelled: _OTHER count %v, want 1003", got)
	}
}

// OTLP metrics reach a collector with the same numbers, on shutdown at
// the latest.
func TestMetricsThroughOTLP(t *testing.T) {
	r := newReceiver(t)
	c := newCore(t, Config{Endpoint: r.srv.URL, TracesExporter: "none"})
	c.tel.ToolsListed(toolsList("draw_line"))
	for range 4 {
		c.run(job{req: Request{Method: "tools/call", Tool: "draw_line", Transport: TransportPipe}})
	}
	flush(t, c)
	if len(r.allSpans()) != 0 || strings.Contains(strings.Join(r.paths, " "), "/v1/traces") {
		t.Errorf("OTEL_TRACES_EXPORTER=none, but traces were sent to %v", r.paths)
	}
	m := r.metric("mcp.server.operation.duration")
	if m == nil || m.Unit != "s" {
		t.Fatalf("no mcp.server.operation.duration: %v", m)
	}
	h := m.GetHistogram()
	if h.AggregationTemporality != metricspb.AggregationTemporality_AGGREGATION_TEMPORALITY_CUMULATIVE || len(h.DataPoints) != 1 {
		t.Fatalf("histogram %v", h)
	}
	p := h.DataPoints[0]
	if p.Count != 4 || kvs(p.Attributes)["gen_ai.tool.name"] != "draw_line" || kvs(p.Attributes)["network.transport"] != "pipe" {
		t.Errorf("point: count %d attributes %v", p.Count, kvs(p.Attributes))
	}
	if diff := cmp.Diff(durationBuckets, p.ExplicitBounds); diff != "" {
		t.Errorf("bounds (-want +got):\n%s", diff)
	}
	if m := r.metric("mcp_bridge.cad.reachable"); m == nil || m.GetGauge().DataPoints[0].GetAsInt() != 1 {
		t.Errorf("reachable: %v", m)
	}
}

// ServeMetrics serves /metrics alone, 404 elsewhere, and stops with its
// context.
func TestServeMetrics(t *testing.T) {
	c := newCore(t, Config{MetricsListen: "127.0.0.1:0"})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- ServeMetrics(ctx, ln, c.tel.MetricsHandler(), zerolog.Nop()) }()
	base := "http://" + ln.Addr().String()
	get := func(path, method string) (int, string) {
		req, _ := http.NewRequest(method, base+path, nil)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	if code, body := get("/metrics", http.MethodGet); code != 200 || !strings.Contains(body, "target_info{") {
		t.Errorf("/metrics: %d %.200s", code, body)
	}
	for _, p := range []string{"/", "/healthz", "/metrics/x", "/mcp"} {
		if code, _ := get(p, http.MethodGet); code != 404 {
			t.Errorf("%s: %d, want 404", p, code)
		}
	}
	if code, _ := get("/metrics", http.MethodPost); code != http.StatusMethodNotAllowed {
		t.Errorf("POST /metrics: %d", code)
	}
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("ServeMetrics: %v", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("ServeMetrics did not stop with its context")
	}
	if _, err := http.Get(base + "/metrics"); err == nil {
		t.Error("still serving after it returned")
	}
}
