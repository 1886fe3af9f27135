package telemetry

import (
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/rs/zerolog"
)

// The cost of one small tool call's telemetry, everything the core calls
// for it (queue, CAD round trip, end), measured three ways: off (the
// default), metrics only (/metrics), and traces and metrics exported by
// OTLP to a collector that reads and drops them.

func BenchmarkCallOff(b *testing.B) {
	var tel *Telemetry
	benchCall(b, tel)
}

func BenchmarkCallMetrics(b *testing.B) {
	tel, err := New(Config{Metrics: true}, Options{BaseAddr: "127.0.0.1:8080", Log: zerolog.Nop()})
	if err != nil {
		b.Fatal(err)
	}
	defer tel.Shutdown(b.Context())
	benchCall(b, tel)
}

func BenchmarkCallTracesAndMetrics(b *testing.B) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { _, _ = io.Copy(io.Discard, r.Body) }))
	defer srv.Close()
	tel, err := New(Config{Endpoint: srv.URL, Metrics: true}, Options{BaseAddr: "127.0.0.1:8080", Log: zerolog.Nop()})
	if err != nil {
		b.Fatal(err)
	}
	defer tel.Shutdown(b.Context())
	benchCall(b, tel)
}

func benchCall(b *testing.B, tel *Telemetry) {
	tel.ToolsListed(toolsList("draw_line"))
	id := []byte(`17`)
	b.ReportAllocs()
	for b.Loop() {
		op := tel.Start(Request{Method: "tools/call", Tool: "draw_line", ID: id, ProtocolVersion: "2025-06-18", Transport: TransportPipe, Traceparent: clientTP})
		op.Queued()
		op.Dequeued()
		call := op.CallBase()
		call.End("")
		op.End(Result{})
	}
}
