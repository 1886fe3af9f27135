package connect

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/rs/zerolog"

	"github.com/mcp-bridge/mcp-bridge/bridge/telemetry"
	"github.com/mcp-bridge/mcp-bridge/lifecycle"
	"github.com/mcp-bridge/mcp-bridge/rpc"
)

// FuzzWithTraceContext: whatever request line a client sends, what connect
// sends on is valid JSON and means what the client's line meant, but for
// params._meta's traceparent (connect's) and tracestate.
func FuzzWithTraceContext(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"a","arguments":{"x":1.50e2},"_meta":{"traceparent":"x","progressToken":1}},"extra":true}`,
		`{"jsonrpc":"2.0","id":"s","method":"tools/list"}`,
		`{"jsonrpc":"2.0","id":2,"method":"ping","params":{}}`,
		`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"_meta":{"trace\u0070arent":"y","tracestate":"a=b"},"name":"b"}}`,
		`{"params":{"_meta":[]},"id":4,"method":"x","jsonrpc":"2.0"}`,
		` {"jsonrpc" : "2.0" , "id" : 5 , "method" : "m" , "params" : { "_meta" : { } } } `,
	} {
		f.Add(s)
	}
	tel, err := telemetry.New(telemetry.Config{Metrics: true}, telemetry.Options{Version: "test", Log: zerolog.Nop()})
	if err != nil {
		f.Fatal(err)
	}
	const tp = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
	f.Fuzz(func(t *testing.T, line string) {
		m, ok := rpc.DecodeMessage([]byte(line)).Msg.(*rpc.Request)
		if !ok {
			return
		}
		req := lifecycle.ReadRequest(m.ID, m.Method, m.Params)
		op := tel.Start(telemetry.Request{Method: m.Method, Traceparent: tp, Tracestate: "k=v"})
		call := op.CallRemote("127.0.0.1:1")
		out := withTraceContext([]byte(line), req, call)
		call.End("")
		op.End(telemetry.Result{})
		if !json.Valid(out) {
			t.Fatalf("not JSON: %s", out)
		}
		if string(out) == line {
			return // left as it came
		}
		strip := func(b []byte) map[string]any {
			var v map[string]any
			if err := json.Unmarshal(b, &v); err != nil {
				t.Fatalf("%s: %v", b, err)
			}
			if p, ok := v["params"].(map[string]any); ok {
				if meta, ok := p["_meta"].(map[string]any); ok {
					delete(meta, "traceparent")
					delete(meta, "tracestate")
					if len(meta) == 0 {
						delete(p, "_meta")
					}
				}
				if len(p) == 0 {
					delete(v, "params")
				}
			}
			return v
		}
		if d := cmp.Diff(strip([]byte(line)), strip(out)); d != "" {
			t.Fatalf("connect changed more than the trace context:\n%s\n%s\n%s", line, out, d)
		}
	})
}
