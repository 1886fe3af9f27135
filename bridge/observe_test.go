package bridge

import (
	"context"
	"encoding/hex"
	"net"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/rs/zerolog"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"

	"github.com/mcp-bridge/mcp-bridge/bridge/guard/policy"
	"github.com/mcp-bridge/mcp-bridge/bridge/internal/bridgetest"
	"github.com/mcp-bridge/mcp-bridge/bridge/telemetry"
	"github.com/mcp-bridge/mcp-bridge/bridge/telemetry/health"
	"github.com/mcp-bridge/mcp-bridge/lifecycle"
	"github.com/mcp-bridge/mcp-bridge/rpc"
	"github.com/mcp-bridge/mcp-bridge/tcpbase"
)

// tracing is a harness tweak: traces to rcv, every span sampled.
func tracing(t *testing.T, rcv *bridgetest.OTLPReceiver, addr string, toBase bool) (*telemetry.Telemetry, func(*Config)) {
	tel, err := telemetry.New(telemetry.Config{TracesEndpoint: rcv.URL, Sampler: "always_on", PropagateToBase: toBase},
		telemetry.Options{Version: "test", BaseAddr: addr, Log: zerolog.Nop()})
	if err != nil || tel == nil {
		t.Fatalf("telemetry.New: %v", err)
	}
	return tel, func(c *Config) { c.Telemetry = tel }
}

const (
	clientTrace  = "0af7651916cd43dd8448eb211c80319c"
	clientParent = "00-" + clientTrace + "-b7ad6b7169203331-01"
	drawArgs     = `{"start":{"x":0,"y":0},"end":{"x":1,"y":0}}`
)

func tracedCall(id, traceparent string) string {
	return `{"jsonrpc":"2.0","id":` + id + `,"method":"tools/call","params":{"name":"draw_line","arguments":` + drawArgs +
		`,"_meta":{"traceparent":"` + traceparent + `"}}}`
}

// TestTelemetryContinuesTheClientsTrace: a call whose params._meta holds a
// valid traceparent gets a SERVER span in the client's trace, a child of
// the client's span, with the queue wait and the CAD round trip (CLIENT,
// the base's address) as its children; the same traceparent one character
// off (an upper-case hex digit) starts a trace of the bridge's own.
func TestTelemetryContinuesTheClientsTrace(t *testing.T) {
	sim := bridgetest.StartSim(t)
	rcv := bridgetest.NewOTLPReceiver(t)
	tel, tweak := tracing(t, rcv, sim.Addr(), false)
	h := newHarness(t, sim, tweak)
	h.send(`{"jsonrpc":"2.0","id":"l","method":"tools/list"}`)
	h.recv()
	h.send(tracedCall("1", clientParent))
	h.recv()
	h.send(tracedCall("2", strings.Replace(clientParent, "0af7", "0AF7", 1)))
	h.recv()
	h.closeAndWait()
	if err := tel.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}

	spans := rcv.Spans()
	server := map[string]*tracepb.Span{}
	for _, s := range spans {
		if s.Kind == tracepb.Span_SPAN_KIND_SERVER {
			server[bridgetest.Attr(s, "jsonrpc.request.id")] = s
		}
	}
	one, two := server["1"], server["2"]
	if one == nil || two == nil {
		t.Fatalf("server spans: %v", spans)
	}
	if one.Name != "tools/call draw_line" || hex.EncodeToString(one.TraceId) != clientTrace || hex.EncodeToString(one.ParentSpanId) != "b7ad6b7169203331" {
		t.Errorf("call 1: %q in trace %x, parent %x; want the client's", one.Name, one.TraceId, one.ParentSpanId)
	}
	if bridgetest.Attr(one, "network.transport") != "pipe" || bridgetest.Attr(one, "mcp.method.name") != "tools/call" || bridgetest.Attr(one, "gen_ai.tool.name") != "draw_line" {
		t.Errorf("call 1's attributes: %v", one.Attributes)
	}
	if hex.EncodeToString(two.TraceId) == clientTrace || len(two.ParentSpanId) != 0 {
		t.Errorf("call 2 (a bad traceparent) joined trace %x, parent %x", two.TraceId, two.ParentSpanId)
	}
	var cad, queue *tracepb.Span
	for _, s := range spans {
		if string(s.ParentSpanId) != string(one.SpanId) {
			continue
		}
		switch {
		case s.Kind == tracepb.Span_SPAN_KIND_CLIENT:
			cad = s
		case s.Name == "queue wait":
			queue = s
		}
	}
	if cad == nil || queue == nil {
		t.Fatalf("call 1's children: CAD %v, queue %v", cad, queue)
	}
	_, port, _ := net.SplitHostPort(sim.Addr())
	if bridgetest.Attr(cad, "network.transport") != "tcp" || bridgetest.Attr(cad, "server.address") != "127.0.0.1" || bridgetest.Attr(cad, "server.port") != port {
		t.Errorf("the CAD span's attributes: %v", cad.Attributes)
	}
}

// TestTelemetryNamesAToolItRan: a bridge that has seen no tools/list
// (here it is asked for none: no cache, no policy) names the span of a
// call the base ran by the tool, and the next call's from its start; a
// made-up name the base refused stays _OTHER. Before, every call before a
// tools/list was "tools/call" with _OTHER though CAD ran the tool.
func TestTelemetryNamesAToolItRan(t *testing.T) {
	sim := bridgetest.StartSim(t)
	rcv := bridgetest.NewOTLPReceiver(t)
	tel, tweak := tracing(t, rcv, sim.Addr(), false)
	h := newHarness(t, sim, tweak)
	for _, id := range []string{"1", "2"} {
		h.send(call(id, "draw_line", drawArgs))
		h.recv()
	}
	h.send(call("3", "made_up_tool", `{}`))
	h.recv()
	h.closeAndWait()
	if err := tel.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	server, cad := map[string]string{}, map[string]int{}
	for _, s := range rcv.Spans() {
		switch s.Kind {
		case tracepb.Span_SPAN_KIND_SERVER:
			server[bridgetest.Attr(s, "jsonrpc.request.id")] = s.Name + " / " + bridgetest.Attr(s, "gen_ai.tool.name")
		case tracepb.Span_SPAN_KIND_CLIENT:
			cad[s.Name+" / "+bridgetest.Attr(s, "gen_ai.tool.name")]++
		}
	}
	want := map[string]string{
		"1": "tools/call draw_line / draw_line",
		"2": "tools/call draw_line / draw_line",
		"3": "tools/call / _OTHER",
	}
	if diff := cmp.Diff(want, server); diff != "" {
		t.Errorf("server spans by request id (-want +got):\n%s", diff)
	}
	// The CAD round trips: call 1's was made before the name was known,
	// call 2's after; call 3's is the made-up name.
	if diff := cmp.Diff(map[string]int{"tools/call / _OTHER": 2, "tools/call draw_line / draw_line": 1}, cad); diff != "" {
		t.Errorf("CAD spans (-want +got):\n%s", diff)
	}
}

// TestTelemetryPropagateToBase: with --otel-propagate-to-base the frame
// the base gets carries the CAD span's traceparent in params._meta, and
// nothing else changes; without it, the frame is exactly as ever.
func TestTelemetryPropagateToBase(t *testing.T) {
	for _, on := range []bool{false, true} {
		t.Run(strconv.FormatBool(on), func(t *testing.T) {
			sim := bridgetest.StartSim(t)
			rec := &bridgetest.Recorder{Next: &tcpbase.Client{Addr: sim.Addr()}}
			rcv := bridgetest.NewOTLPReceiver(t)
			tel, tweak := tracing(t, rcv, sim.Addr(), on)
			h := newHarness(t, sim, func(c *Config) { tweak(c); c.Base = rec })
			h.send(tracedCall("1", clientParent))
			if got := h.recv(); field(t, got, "result.isError") != false {
				t.Fatalf("answer: %s", got)
			}
			h.closeAndWait()
			_ = tel.Shutdown(context.Background())
			frames := rec.All()
			plain := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"draw_line","arguments":` + drawArgs + `}}`
			if !on {
				if len(frames) != 1 || frames[0] != plain {
					t.Fatalf("frames: %q", frames)
				}
				return
			}
			var cad *tracepb.Span
			for _, s := range rcv.Spans() {
				if s.Kind == tracepb.Span_SPAN_KIND_CLIENT {
					cad = s
				}
			}
			if cad == nil {
				t.Fatal("no CAD span")
			}
			want := strings.TrimSuffix(plain, "}}") + `,"_meta":{"traceparent":"00-` + clientTrace + "-" + hex.EncodeToString(cad.SpanId) + `-01"}}}`
			if len(frames) != 1 || frames[0] != want {
				t.Fatalf("frames: %q\nwant %q", frames, want)
			}
		})
	}
}

// scrape reads /metrics from tel's handler.
func scrape(t *testing.T, tel *telemetry.Telemetry) string {
	rec := httptest.NewRecorder()
	tel.MetricsHandler().ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/metrics", nil))
	if rec.Code != 200 {
		t.Fatalf("/metrics: %d %s", rec.Code, rec.Body)
	}
	return rec.Body.String()
}

// sample is the value of the series of metric whose labels include each
// of labels (name="value"), summed; -1 when there is none.
func sample(text, metric string, labels ...string) float64 {
	total, found := 0.0, false
	re := regexp.MustCompile(`^` + regexp.QuoteMeta(metric) + `(\{[^}]*\})? (\S+)`)
	for _, line := range strings.Split(text, "\n") {
		m := re.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		ok := true
		for _, l := range labels {
			ok = ok && strings.Contains(m[1], l)
		}
		if ok {
			v, _ := strconv.ParseFloat(m[2], 64)
			total, found = total+v, true
		}
	}
	if !found {
		return -1
	}
	return total
}

// TestTelemetryMetricsCountWhatClientsSaw: the operation counts, the CAD
// round trips, the refusals by kind and CAD's reachability as /metrics
// shows them match what the client was answered: a tool the base does not
// list counts as _OTHER (and, under a policy, as an unlisted refusal); a
// denied call is a refusal and never a CAD round
// trip; a base that cannot be reached is 0 in mcp_bridge_cad_reachable and
// 503 in /healthz, and 1 again (200) once it answers.
func TestTelemetryMetricsCountWhatClientsSaw(t *testing.T) {
	sim := bridgetest.StartSim(t)
	st := health.New()
	tel, err := telemetry.New(telemetry.Config{Metrics: true}, telemetry.Options{Version: "test", BaseAddr: sim.Addr(), Health: st, Log: zerolog.Nop()})
	if err != nil {
		t.Fatal(err)
	}
	p := bridgetest.Policy(t, `{"deny":["delete_*"]}`, policy.Options{})
	base := &switchable{addr: sim.Addr()}
	h := newHarness(t, sim, func(c *Config) {
		c.Telemetry, c.Health, c.Policy, c.Base = tel, st, p, base
		c.Retries, c.ProbeInterval = -1, -1
	})
	h.send(`{"jsonrpc":"2.0","id":"l","method":"tools/list"}`)
	h.recv()
	for i := range 3 {
		h.send(call(strconv.Itoa(i), "draw_line", drawArgs))
		h.recv()
	}
	h.send(call(`"made-up"`, "no_such_tool", `{}`))
	h.recv()
	h.send(call(`"denied"`, "delete_layer", `{"name":"x"}`))
	if got := h.recv(); field(t, got, "error.data.kind") != "denied" {
		t.Fatalf("denied call: %s", got)
	}
	m := scrape(t, tel)
	checks := []struct {
		metric string
		labels []string
		want   float64
	}{
		{"mcp_server_operation_duration_seconds_count", []string{`gen_ai_tool_name="draw_line"`}, 3},
		{"mcp_server_operation_duration_seconds_count", []string{`gen_ai_tool_name="_OTHER"`}, 1},
		{"mcp_server_operation_duration_seconds_count", []string{`gen_ai_tool_name="delete_layer"`, `error_type="denied"`}, 1},
		{"mcp_server_operation_duration_seconds_count", []string{`mcp_method_name="tools/list"`}, 1},
		{"mcp_bridge_policy_refusals_total", []string{`mcp_bridge_refusal_kind="denied"`}, 1},
		{"mcp_bridge_policy_refusals_total", []string{`mcp_bridge_refusal_kind="unlisted"`}, 1},
		// tools/list and three draw_line: under a policy, neither the
		// made-up tool nor the denied one reached CAD
		{"mcp_client_operation_duration_seconds_count", nil, 4},
		{"mcp_bridge_cad_reachable", nil, 1},
	}
	for _, c := range checks {
		if got := sample(m, c.metric, c.labels...); got != c.want {
			t.Errorf("%s%v = %v, want %v", c.metric, c.labels, got, c.want)
		}
	}

	base.down(true)
	h.send(call("9", "draw_line", drawArgs))
	if got := h.recv(); field(t, got, "error.data.kind") != "unreachable" {
		t.Fatalf("call with CAD down: %s", got)
	}
	m = scrape(t, tel)
	if got := sample(m, "mcp_bridge_cad_reachable"); got != 0 {
		t.Errorf("mcp_bridge_cad_reachable = %v with CAD down", got)
	}
	if got := sample(m, "mcp_server_operation_duration_seconds_count", `error_type="unreachable"`); got != 1 {
		t.Errorf("unreachable calls counted: %v", got)
	}
	if s := st.Status(); s.Base != health.Down || !strings.Contains(s.Reason, "unreachable") || !strings.Contains(strings.ToLower(s.Reason), "connection refused") { // Windows: "Connection refused."
		t.Errorf("health with CAD down: %+v", s)
	}
	base.down(false)
	h.send(call("10", "draw_line", drawArgs))
	h.recv()
	if got := sample(scrape(t, tel), "mcp_bridge_cad_reachable"); got != 1 {
		t.Errorf("mcp_bridge_cad_reachable = %v with CAD back", got)
	}
	h.closeAndWait()
}

// switchable is the base, or (down) a port nobody listens on.
type switchable struct {
	addr string
	mu   sync.Mutex
	off  bool
}

func (s *switchable) down(off bool) { s.mu.Lock(); s.off = off; s.mu.Unlock() }

func (s *switchable) Call(ctx context.Context, frame []byte) ([]byte, error) {
	s.mu.Lock()
	addr := s.addr
	if s.off {
		addr = closedPort
	}
	s.mu.Unlock()
	return (&tcpbase.Client{Addr: addr}).Call(ctx, frame)
}

// closedPort is a loopback address where nothing listens.
var closedPort = func() string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "127.0.0.1:1"
	}
	addr := ln.Addr().String()
	ln.Close()
	return addr
}()

// TestTelemetryOffCostsNoAllocation: with telemetry off, what the core
// calls for it allocates nothing.
func TestTelemetryOffCostsNoAllocation(t *testing.T) {
	b := &bridge{cfg: Config{}}
	c := newClient(nil, 1<<20, zerolog.Nop())
	id, _ := rpc.ParseID([]byte("1"))
	m := &Message{Req: lifecycle.ReadRequest(id, "tools/call", []byte(`{"name":"draw_line","arguments":`+drawArgs+`}`))}
	if n := testing.AllocsPerRun(100, func() {
		op := b.startOp(c, m)
		op.Queued()
		op.Dequeued()
		call := op.CallBase()
		call.TraceMeta()
		call.End("")
		op.End(telemetry.Result{})
	}); n != 0 {
		t.Errorf("%v allocations per request with telemetry off", n)
	}
}

// TestTelemetryQueueWaitOnlyForQueued: every request the queue took has
// its wait recorded, the one taken by the idle worker at once included
// (it was marked queued under the queue's lock, before the worker could
// see it); the one the full queue refused has none, and nothing stays
// counted as queued.
func TestTelemetryQueueWaitOnlyForQueued(t *testing.T) {
	sim := bridgetest.StartSim(t)
	tel, err := telemetry.New(telemetry.Config{Metrics: true}, telemetry.Options{Version: "test", BaseAddr: sim.Addr(), Log: zerolog.Nop()})
	if err != nil {
		t.Fatal(err)
	}
	h := newHarness(t, sim, func(c *Config) { c.Telemetry, c.Queue = tel, 2 })
	h.send(call("1", "fault_sleep", `{"ms":300}`))
	waitFor(t, func() bool { return h.sim.CallsFor("1") == 1 }) // in flight, queue empty
	h.send(call("2", "get_drawing_info", `{}`), call("3", "get_drawing_info", `{}`), call("4", "get_drawing_info", `{}`))
	if got := h.recv(); field(t, got, "id") != float64(4) || !strings.Contains(got, "too many requests queued") {
		t.Fatalf("the fourth call: %s", got)
	}
	for range 3 {
		h.recv()
	}
	h.closeAndWait()
	m := scrape(t, tel)
	if got := sample(m, "mcp_bridge_queue_duration_seconds_count"); got != 3 {
		t.Errorf("queue waits recorded: %v, want 3 (calls 1–3; not the refused 4)", got)
	}
	if got := sample(m, "mcp_bridge_calls_queued"); got != 0 {
		t.Errorf("calls still counted as queued: %v", got)
	}
}
