package telemetry

import (
	"context"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"

	"github.com/mcp-bridge/mcp-bridge/bridge/telemetry/tracecontext"
	"github.com/mcp-bridge/mcp-bridge/lifecycle"
	"github.com/mcp-bridge/mcp-bridge/rpc"
)

const (
	clientTrace = "4bf92f3577b34da6a3ce929d0e0e4736"
	clientSpan  = "00f067aa0ba902b7"
	clientTP    = "00-" + clientTrace + "-" + clientSpan + "-01"
)

// flush ends the telemetry so that every span has reached r.
func flush(t *testing.T, c *core) {
	t.Helper()
	if err := c.tel.Shutdown(context.Background()); err != nil {
		t.Fatalf("shutdown: %v", err)
	}
}

func byName(spans []*tracepb.Span, name string, kind tracepb.Span_SpanKind) []*tracepb.Span {
	var out []*tracepb.Span
	for _, s := range spans {
		if s.Name == name && s.Kind == kind {
			out = append(out, s)
		}
	}
	return out
}

func one(t *testing.T, spans []*tracepb.Span, name string, kind tracepb.Span_SpanKind) *tracepb.Span {
	t.Helper()
	got := byName(spans, name, kind)
	if len(got) != 1 {
		var names []string
		for _, s := range spans {
			names = append(names, s.Kind.String()+" "+s.Name)
		}
		t.Fatalf("want one %v span %q, got %d among %v", kind, name, len(got), names)
	}
	return got[0]
}

// A tool call from a client with a traceparent: the server span continues
// the client's trace, named and attributed as the convention says, with
// the queue wait, the confirmation wait and the CAD round trip as its
// children.
func TestTraceOfACall(t *testing.T) {
	r := newReceiver(t)
	c := newCore(t, Config{Endpoint: r.srv.URL})
	c.tel.ToolsListed(toolsList("draw_line", "delete_entities"))
	c.run(job{
		req: Request{Method: "tools/call", Tool: "draw_line", ID: []byte(`"req-7"`), ProtocolVersion: "2025-06-18",
			SessionID: "191c4850af6c49e08843a3f6c80e5046", Transport: TransportTCP, HTTPVersion: "1.1", ClientAddr: "10.1.2.80:65123",
			Traceparent: clientTP, Tracestate: "rojo=00f067aa0ba902b7"},
		ask: Agreed, queue: true,
	})
	flush(t, c)
	spans := r.allSpans()
	if len(spans) != 4 {
		t.Fatalf("want 4 spans, got %d", len(spans))
	}
	server := one(t, spans, "tools/call draw_line", tracepb.Span_SPAN_KIND_SERVER)
	if hexID(server.TraceId) != clientTrace || hexID(server.ParentSpanId) != clientSpan {
		t.Errorf("server span in trace %x under %x: want the client's %s under %s", server.TraceId, server.ParentSpanId, clientTrace, clientSpan)
	}
	if server.Flags&0x200 == 0 {
		t.Errorf("flags %#x: the parent is not marked remote", server.Flags)
	}
	if server.TraceState != "rojo=00f067aa0ba902b7" {
		t.Errorf("tracestate %q", server.TraceState)
	}
	want := map[string]any{
		"mcp.method.name":          "tools/call",
		"gen_ai.tool.name":         "draw_line",
		"gen_ai.operation.name":    "execute_tool",
		"jsonrpc.request.id":       "req-7",
		"mcp.protocol.version":     "2025-06-18",
		"mcp.session.id":           "191c4850af6c49e08843a3f6c80e5046",
		"network.transport":        "tcp",
		"network.protocol.name":    "http",
		"network.protocol.version": "1.1",
		"client.address":           "10.1.2.80",
		"client.port":              int64(65123),
	}
	if diff := cmp.Diff(want, kvs(server.Attributes)); diff != "" {
		t.Errorf("server span attributes (-want +got):\n%s", diff)
	}
	if server.Status != nil && server.Status.Code != tracepb.Status_STATUS_CODE_UNSET {
		t.Errorf("a good call has status %v", server.Status)
	}

	queue := one(t, spans, "queue wait", tracepb.Span_SPAN_KIND_INTERNAL)
	ask := one(t, spans, "confirmation wait", tracepb.Span_SPAN_KIND_INTERNAL)
	cad := one(t, spans, "tools/call draw_line", tracepb.Span_SPAN_KIND_CLIENT)
	for _, child := range []*tracepb.Span{queue, ask, cad} {
		if hexID(child.TraceId) != clientTrace || string(child.ParentSpanId) != string(server.SpanId) {
			t.Errorf("%s %q: trace %x parent %x, want the server span %x", child.Kind, child.Name, child.TraceId, child.ParentSpanId, server.SpanId)
		}
		if child.StartTimeUnixNano < server.StartTimeUnixNano || child.EndTimeUnixNano > server.EndTimeUnixNano {
			t.Errorf("%q is not within the server span", child.Name)
		}
	}
	if kvs(ask.Attributes)["mcp_bridge.confirmation.answer"] != "agreed" {
		t.Errorf("question span attributes %v", kvs(ask.Attributes))
	}
	wantCAD := map[string]any{
		"mcp.method.name": "tools/call", "gen_ai.tool.name": "draw_line",
		"network.transport": "tcp", "server.address": "127.0.0.1", "server.port": int64(8080),
	}
	if diff := cmp.Diff(wantCAD, kvs(cad.Attributes)); diff != "" {
		t.Errorf("CAD span attributes (-want +got):\n%s", diff)
	}
	res := r.res[0]
	for k, v := range map[string]any{"service.name": "mcp-bridge", "service.version": "v0.test", "host.name": "cad-pc-12", "telemetry.sdk.language": "go"} {
		if res[k] != v {
			t.Errorf("resource %s = %v, want %v", k, res[k], v)
		}
	}
	if id, _ := res["service.instance.id"].(string); len(id) != 36 {
		t.Errorf("service.instance.id %q", id)
	}
}

// A client's trace context is taken only when it is valid: a bad
// traceparent starts a new trace (and its tracestate is not kept); a bad
// tracestate alone is dropped and the parent kept. Nothing of a bad value
// reaches the span.
func TestHostileTraceContext(t *testing.T) {
	for _, c := range []struct {
		name, tp, ts string
		parent       bool
		wantState    string
	}{
		{"valid", clientTP, "rojo=1", true, "rojo=1"},
		{"upper-case hex", strings.ToUpper(clientTP), "rojo=1", false, ""},
		{"version ff", "ff" + clientTP[2:], "rojo=1", false, ""},
		{"one character short", clientTP[:54], "rojo=1", false, ""},
		{"all-zero trace id", "00-00000000000000000000000000000000-" + clientSpan + "-01", "rojo=1", false, ""},
		{"injection after a valid value", clientTP + "\r\nX-Evil: 1", "rojo=1", false, ""},
		{"a megabyte", clientTP + strings.Repeat("x", 1<<20), "", false, ""},
		{"bad tracestate, good parent", clientTP, "Rojo=1", true, ""},
		{"tracestate with a line break", clientTP, "rojo=1\nevil=2", true, ""},
		{"tracestate of 33 members", clientTP, strings.Repeat("a=1,", 16) + strings.Repeat("b", 1) + "=1," + strings.Repeat("c=1,", 16), true, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := newReceiver(t)
			cr := newCore(t, Config{Endpoint: r.srv.URL})
			cr.run(job{req: Request{Method: "tools/list", ID: []byte(`1`), Transport: TransportPipe, Traceparent: c.tp, Tracestate: c.ts}})
			flush(t, cr)
			server := one(t, r.allSpans(), "tools/list", tracepb.Span_SPAN_KIND_SERVER)
			continued := hexID(server.TraceId) == clientTrace && hexID(server.ParentSpanId) == clientSpan
			if continued != c.parent {
				t.Errorf("trace %x parent %x: continued = %v, want %v", server.TraceId, server.ParentSpanId, continued, c.parent)
			}
			if !c.parent && len(server.ParentSpanId) != 0 {
				t.Errorf("a new root has parent %x", server.ParentSpanId)
			}
			if server.TraceState != c.wantState {
				t.Errorf("tracestate %q, want %q", server.TraceState, c.wantState)
			}
		})
	}
}

// Names a client invents never become span names or attribute values:
// an unlisted tool is "tools/call" with gen_ai.tool.name _OTHER, an
// unknown method _OTHER.
func TestInventedNamesStayOut(t *testing.T) {
	r := newReceiver(t)
	c := newCore(t, Config{Endpoint: r.srv.URL})
	c.tel.ToolsListed(toolsList("draw_line"))
	c.run(job{req: Request{Method: "tools/call", Tool: "draw_line2", ID: []byte(`2`)}, result: Result{Code: -32602, Kind: "unlisted", Message: "Unknown tool: draw_line2"}})
	c.run(job{req: Request{Method: "tools/call", Tool: "Draw_line", ID: []byte(`3`)}})
	c.run(job{req: Request{Method: "evil/" + strings.Repeat("x", 100), ID: []byte(`4`)}})
	c.run(job{req: Request{Method: "tools/list", ID: []byte(`"` + strings.Repeat("i", 300) + `"`), ProtocolVersion: "1999-01-01", SessionID: strings.Repeat("s", 300)}})
	flush(t, c)
	spans := r.allSpans()
	if got := byName(spans, "tools/call", tracepb.Span_SPAN_KIND_SERVER); len(got) != 2 {
		t.Fatalf("%d server spans named tools/call, want 2 (both tools unlisted)", len(got))
	}
	for _, s := range byName(spans, "tools/call", tracepb.Span_SPAN_KIND_SERVER) {
		if kvs(s.Attributes)["gen_ai.tool.name"] != Other {
			t.Errorf("gen_ai.tool.name = %v", kvs(s.Attributes)["gen_ai.tool.name"])
		}
	}
	bad := one(t, spans, Other, tracepb.Span_SPAN_KIND_SERVER)
	if kvs(bad.Attributes)["mcp.method.name"] != Other {
		t.Errorf("unknown method kept as %v", kvs(bad.Attributes)["mcp.method.name"])
	}
	list := one(t, spans, "tools/list", tracepb.Span_SPAN_KIND_SERVER)
	a := kvs(list.Attributes)
	if id := a["jsonrpc.request.id"].(string); len(id) > maxID+len("…") || !strings.HasPrefix(id, "iii") {
		t.Errorf("request id kept as %d bytes", len(id))
	}
	if a["mcp.protocol.version"] != Other {
		t.Errorf("unknown protocol version kept as %v", a["mcp.protocol.version"])
	}
	if sid := a["mcp.session.id"].(string); len(sid) > maxID+len("…") {
		t.Errorf("session id kept as %d bytes", len(sid))
	}
}

// TestAnsweredToolIsNamed: before any tools/list of this process (a
// client that calls a tool it knows, a bridge started with --no-cache), a
// tool the base has answered a call of with a result, not an error nor
// isError, is a name the base has: that call's span and series carry it,
// and so do later calls' from their start. A name answered only with an
// error, a tool error, or not reached stays _OTHER; so does one sent with
// a list known that does not hold it (the list says what the base has),
// and a learned name no longer listed once a list comes.
func TestAnsweredToolIsNamed(t *testing.T) {
	r := newReceiver(t)
	c := newCore(t, Config{Endpoint: r.srv.URL})
	call := func(tool, id string) Request {
		return Request{Method: "tools/call", Tool: tool, ID: []byte(id)}
	}
	c.run(job{req: call("draw_line", `1`)})
	c.run(job{req: call("draw_line", `2`), queue: true})
	c.run(job{req: call("made_up", `3`), result: Result{Code: -32602, Message: "Unknown tool: made_up"}})
	c.run(job{req: call("made_up", `4`)}) // the same name, answered now
	c.run(job{req: call("failing", `5`), result: Result{ToolError: true}})
	c.run(job{req: call("down", `6`), baseErr: "unreachable", result: Result{Code: -32603, Kind: "unreachable", Message: "down"}})
	c.run(job{req: call("refused", `7`), refuse: RefusalDenied, result: Result{Code: -32602, Kind: "denied", Message: "denied"}})
	c.run(job{req: call("bad\x01name", `8`)})
	c.tel.ToolsListed(toolsList("get_drawing_info"))
	c.run(job{req: call("draw_line", `9`)})
	c.run(job{req: call("Get_drawing_info", `10`)})
	flush(t, c)
	got := map[string]string{}
	for _, s := range r.allSpans() {
		if s.Kind == tracepb.Span_SPAN_KIND_SERVER {
			got[kvs(s.Attributes)["jsonrpc.request.id"].(string)] = s.Name + " / " + kvs(s.Attributes)["gen_ai.tool.name"].(string)
		}
	}
	want := map[string]string{
		"1": "tools/call draw_line / draw_line", "2": "tools/call draw_line / draw_line",
		"3": "tools/call / _OTHER", "4": "tools/call made_up / made_up",
		"5": "tools/call / _OTHER", "6": "tools/call / _OTHER", "7": "tools/call / _OTHER", "8": "tools/call / _OTHER",
		"9": "tools/call / _OTHER", "10": "tools/call / _OTHER",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("server spans by request id (-want +got):\n%s", diff)
	}
	// The second draw_line call was named from its start: its CAD round
	// trip carries the name too.
	if n := len(byName(r.allSpans(), "tools/call draw_line", tracepb.Span_SPAN_KIND_CLIENT)); n != 1 {
		t.Errorf("%d CAD spans named tools/call draw_line, want 1 (the second call's)", n)
	}
}

// error.type and the span's status follow the answer: the bridge's
// failure kind, else the JSON-RPC code, else tool_error; a code no
// specification names is _OTHER.
func TestErrorType(t *testing.T) {
	for _, c := range []struct {
		name   string
		res    Result
		want   string
		status string // rpc.response.status_code
	}{
		{"the base timed out", Result{Code: -32603, Kind: "timeout", Message: "CAD base at 127.0.0.1:8080 did not answer"}, "timeout", "-32603"},
		{"invalid params", Result{Code: -32602, Message: "bad"}, "-32602", "-32602"},
		{"a code in MCP's range", Result{Code: -32042, Message: "x"}, "-32042", "-32042"},
		{"a base's own code", Result{Code: 12345, Message: "x"}, Other, Other},
		{"just outside the server range", Result{Code: -32100, Message: "x"}, Other, Other},
		{"an unknown kind", Result{Code: -32603, Kind: "made_up", Message: "x"}, Other, "-32603"},
		{"isError", Result{ToolError: true}, "tool_error", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := newReceiver(t)
			cr := newCore(t, Config{Endpoint: r.srv.URL})
			cr.run(job{req: Request{Method: "tools/list", ID: []byte(`1`)}, result: c.res})
			flush(t, cr)
			s := one(t, r.allSpans(), "tools/list", tracepb.Span_SPAN_KIND_SERVER)
			a := kvs(s.Attributes)
			if a["error.type"] != c.want {
				t.Errorf("error.type = %v, want %v", a["error.type"], c.want)
			}
			if c.status == "" && a["rpc.response.status_code"] != nil || c.status != "" && a["rpc.response.status_code"] != c.status {
				t.Errorf("rpc.response.status_code = %v, want %q", a["rpc.response.status_code"], c.status)
			}
			if s.Status.GetCode() != tracepb.Status_STATUS_CODE_ERROR || s.Status.GetMessage() != c.res.Message {
				t.Errorf("status %v, want ERROR %q", s.Status, c.res.Message)
			}
		})
	}
}

// connect's span context goes on to the remote bridge, whose spans join
// the client's trace down to the CAD round trip: one trace from the
// client's machine to the CAD call.
func TestOneTraceThroughConnect(t *testing.T) {
	r := newReceiver(t)
	local := newCore(t, Config{Endpoint: r.srv.URL, ServiceName: "mcp-bridge-connect"})
	remote := newCore(t, Config{Endpoint: r.srv.URL})
	local.tel.ToolsListed(toolsList("draw_line"))
	remote.tel.ToolsListed(toolsList("draw_line"))

	op := local.tel.Start(Request{Method: "tools/call", Tool: "draw_line", ID: []byte(`5`), Transport: TransportPipe, Traceparent: clientTP})
	hop := op.CallRemote("cad-pc-12:8931")
	tp, ts := hop.TraceMeta()
	remote.run(job{req: Request{Method: "tools/call", Tool: "draw_line", ID: []byte(`5`), Transport: TransportTCP, Traceparent: tp, Tracestate: ts}})
	hop.End("")
	op.End(Result{})
	flush(t, local)
	flush(t, remote)

	spans := r.allSpans()
	for _, s := range spans {
		if hexID(s.TraceId) != clientTrace {
			t.Errorf("%s %q is in trace %x, not the client's", s.Kind, s.Name, s.TraceId)
		}
	}
	servers := byName(spans, "tools/call draw_line", tracepb.Span_SPAN_KIND_SERVER)
	clients := byName(spans, "tools/call draw_line", tracepb.Span_SPAN_KIND_CLIENT)
	if len(servers) != 2 || len(clients) != 2 {
		t.Fatalf("want 2 server and 2 client spans, got %d and %d", len(servers), len(clients))
	}
	// The chain: client → connect's server span → its call to the remote →
	// the remote's server span → its CAD round trip.
	var connectSrv, hopSpan, remoteSrv, cad *tracepb.Span
	for _, s := range servers {
		if hexID(s.ParentSpanId) == clientSpan {
			connectSrv = s
		} else {
			remoteSrv = s
		}
	}
	for _, s := range clients {
		if kvs(s.Attributes)["server.address"] == "cad-pc-12" {
			hopSpan = s
		} else {
			cad = s
		}
	}
	if connectSrv == nil || hopSpan == nil || remoteSrv == nil || cad == nil {
		t.Fatal("the four spans are not all there")
	}
	if string(hopSpan.ParentSpanId) != string(connectSrv.SpanId) || string(remoteSrv.ParentSpanId) != string(hopSpan.SpanId) || string(cad.ParentSpanId) != string(remoteSrv.SpanId) {
		t.Error("the spans do not chain client → connect → remote → CAD")
	}
	if p, ok := tracecontext.ParseParent(tp); !ok || hexID(p.SpanID[:]) != hexID(hopSpan.SpanId) || !p.Sampled() {
		t.Errorf("connect sent traceparent %q; want its own call's span %x, sampled", tp, hopSpan.SpanId)
	}
	a := kvs(hopSpan.Attributes)
	if a["server.port"] != int64(8931) || a["network.protocol.name"] != "http" || a["network.transport"] != "tcp" {
		t.Errorf("call to the remote: %v", a)
	}
}

// The trace context goes to the base only when the user asks for it; then
// it is the CAD span's own.
func TestPropagationToTheBase(t *testing.T) {
	for _, on := range []bool{false, true} {
		r := newReceiver(t)
		c := newCore(t, Config{Endpoint: r.srv.URL, PropagateToBase: on})
		tp, ts := c.run(job{req: Request{Method: "tools/list", ID: []byte(`1`), Traceparent: clientTP, Tracestate: "rojo=1"}})
		flush(t, c)
		if !on {
			if tp != "" || ts != "" {
				t.Errorf("off by default, but the base would get %q %q", tp, ts)
			}
			continue
		}
		cad := one(t, r.allSpans(), "tools/list", tracepb.Span_SPAN_KIND_CLIENT)
		want := "00-" + clientTrace + "-" + hexID(cad.SpanId) + "-01"
		if tp != want || ts != "rojo=1" {
			t.Errorf("base gets %q %q, want %q %q", tp, ts, want, "rojo=1")
		}
	}
}

// With traces off (metrics only), a hop does not trace but passes the
// client's checked context on, as W3C asks of a hop that does not take
// part.
func TestPassThroughWithoutTraces(t *testing.T) {
	c := newCore(t, Config{Metrics: true})
	op := c.tel.Start(Request{Method: "tools/call", Tool: "x", Traceparent: clientTP, Tracestate: "rojo=1, congo=2"})
	tp, ts := op.CallRemote("remote:443").TraceMeta()
	if tp != clientTP || ts != "rojo=1,congo=2" {
		t.Errorf("passed on %q %q", tp, ts)
	}
	op = c.tel.Start(Request{Method: "tools/call", Tool: "x", Traceparent: "00-zz"})
	if tp, ts := op.CallRemote("remote:443").TraceMeta(); tp != "" || ts != "" {
		t.Errorf("a bad traceparent passed on as %q %q", tp, ts)
	}
}

// TestTraceContext: params._meta's trace context as the decoder finds it
// (by exact keys, the last of a name given twice) and TraceContext
// decodes it (JSON strings of sane length only).
func TestTraceContext(t *testing.T) {
	for _, c := range []struct{ meta, tp, ts string }{
		{`{"traceparent":"` + clientTP + `","tracestate":"a=1"}`, clientTP, "a=1"},
		{`{"traceparent":1,"tracestate":{"a":1}}`, "", ""},
		{`{"Traceparent":"` + clientTP + `"}`, "", ""},
		{`{"traceparent":"\u0030\u0030` + clientTP[2:] + `"}`, clientTP, ""},
		{`{"traceparent":"` + strings.Repeat("a", 4000) + `"}`, "", ""},
		// The longest valid tracestate, each character escaped as Go's
		// encoding/json escapes "<", ">" and "&" (\u0026): taken, not
		// dropped for its length on the wire. A string longer than any
		// valid value escaped (six bytes a character, and the quotes) is
		// not decoded at all.
		{`{"traceparent":"` + clientTP + `","tracestate":"k=` + strings.Repeat(`\u0026`, tracecontext.MaxStateBytes-2) + `"}`,
			clientTP, "k=" + strings.Repeat("&", tracecontext.MaxStateBytes-2)},
		{`{"traceparent":"` + clientTP + `","tracestate":"` + strings.Repeat("a", 6*tracecontext.MaxStateBytes) + `"}`,
			clientTP, strings.Repeat("a", 6*tracecontext.MaxStateBytes)},
		{`{"traceparent":"` + clientTP + `","tracestate":"` + strings.Repeat("a", 6*tracecontext.MaxStateBytes+1) + `"}`, clientTP, ""},
		{`{"traceparent":"` + clientTP + `","traceparent":"x","tracestate":"a=1","tracestate":"b=2"}`, "x", "b=2"},
		{`[]`, "", ""},
		{``, "", ""},
	} {
		params := `{"name":"a"}`
		if c.meta != "" {
			params = `{"name":"a","_meta":` + c.meta + `}`
		}
		req := lifecycle.ReadRequest(rpc.ID{}, lifecycle.MethodToolsCall, []byte(params))
		tp, ts := TraceContext(req.Traceparent, req.Tracestate)
		if tp != c.tp || ts != c.ts {
			t.Errorf("_meta %.60s: %q %q, want %q %q", c.meta, tp, ts, c.tp, c.ts)
		}
	}
}
