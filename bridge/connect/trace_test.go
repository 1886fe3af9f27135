package connect

import (
	"context"
	"strings"
	"testing"

	"github.com/rs/zerolog"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"

	"github.com/mcp-bridge/mcp-bridge/bridge"
	"github.com/mcp-bridge/mcp-bridge/bridge/internal/bridgetest"
	"github.com/mcp-bridge/mcp-bridge/bridge/telemetry"
)

func newTracing(t *testing.T, rcv *bridgetest.OTLPReceiver, name, base string) *telemetry.Telemetry {
	tel, err := telemetry.New(telemetry.Config{TracesEndpoint: rcv.URL, ServiceName: name},
		telemetry.Options{Version: "test", BaseAddr: base, Log: zerolog.Nop()})
	if err != nil || tel == nil {
		t.Fatalf("telemetry.New: %v", err)
	}
	return tel
}

// TestOneTraceFromClientToCAD: a client's traceparent in params._meta is
// continued by connect (its SERVER span a child of the client's), whose
// round trip to the remote (CLIENT) is the parent of the remote bridge's
// SERVER span, whose CAD round trip (CLIENT) ends the chain: one trace id
// throughout. What the remote got in _meta is connect's span, not the
// client's; the rest of the call is what the client sent.
func TestOneTraceFromClientToCAD(t *testing.T) {
	rcv := bridgetest.NewOTLPReceiver(t)
	var remoteTel *telemetry.Telemetry
	r := newRemoteWith(t, func(c *bridge.Config) {
		remoteTel = newTracing(t, rcv, "remote", c.BaseAddr)
		c.Telemetry = remoteTel
	})
	cfg := r.config(t)
	cfg.Telemetry = newTracing(t, rcv, "connect", "")
	c := startConnect(t, cfg)
	c.handshake("2025-11-25")
	const trace = "4bf92f3577b34da6a3ce929d0e0e4736"
	c.send(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"get_drawing_info","arguments":{},"_meta":{"traceparent":"00-` + trace + `-00f067aa0ba902b7-01","tracestate":"vendor=a"}}}`)
	if res := c.answer("7"); res["result"] == nil {
		t.Fatalf("the call: %v", res)
	}
	c.wait()
	_ = cfg.Telemetry.Shutdown(context.Background())
	_ = remoteTel.Shutdown(context.Background())

	var chain []*tracepb.Span // connect server, connect client, remote server, CAD client
	parent := "00f067aa0ba902b7"
	for _, kind := range []tracepb.Span_SpanKind{tracepb.Span_SPAN_KIND_SERVER, tracepb.Span_SPAN_KIND_CLIENT, tracepb.Span_SPAN_KIND_SERVER, tracepb.Span_SPAN_KIND_CLIENT} {
		var next *tracepb.Span
		for _, s := range rcv.Spans() {
			if s.Kind == kind && bridgetest.Hex(s.ParentSpanId) == parent && strings.HasPrefix(s.Name, "tools/call") {
				next = s
			}
		}
		if next == nil {
			t.Fatalf("no %v span under %s after %d links; spans: %v", kind, parent, len(chain), rcv.Spans())
		}
		if bridgetest.Hex(next.TraceId) != trace {
			t.Errorf("%s (%v) is in trace %x, not the client's", next.Name, kind, next.TraceId)
		}
		if next.TraceState != "vendor=a" {
			t.Errorf("%s (%v) lost the client's tracestate: %q", next.Name, kind, next.TraceState)
		}
		chain = append(chain, next)
		parent = bridgetest.Hex(next.SpanId)
	}
	if got := bridgetest.Attr(chain[1], "server.address"); got != "127.0.0.1" {
		t.Errorf("connect's round trip names %q", got)
	}
	if got := bridgetest.Attr(chain[3], "server.address"); got != "127.0.0.1" || bridgetest.Attr(chain[3], "network.transport") != "tcp" {
		t.Errorf("the CAD span: %v", chain[3].Attributes)
	}
	if bridgetest.Attr(chain[2], "network.transport") != "tcp" || bridgetest.Attr(chain[2], "mcp.session.id") == "" {
		t.Errorf("the remote's span: %v", chain[2].Attributes)
	}
}
