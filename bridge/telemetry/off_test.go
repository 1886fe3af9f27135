package telemetry

import (
	"context"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"
)

// sdkGoroutines counts the goroutines running OpenTelemetry SDK code.
func sdkGoroutines() int {
	buf := make([]byte, 1<<20)
	buf = buf[:runtime.Stack(buf, true)]
	n := 0
	for g := range strings.SplitSeq(string(buf), "\n\n") {
		if strings.Contains(g, "go.opentelemetry.io/otel/sdk") {
			n++
		}
	}
	return n
}

func env(kv ...string) func(string) string {
	m := map[string]string{}
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i]] = kv[i+1]
	}
	return func(k string) string { return m[k] }
}

// Telemetry is off unless asked for: New returns nil, and no SDK object
// or goroutine exists.
func TestOffUnlessAskedFor(t *testing.T) {
	for _, c := range []struct {
		name string
		env  func(string) string
	}{
		{"nothing set", env()},
		{"service name and sampler alone", env("OTEL_SERVICE_NAME", "x", "OTEL_TRACES_SAMPLER", "always_on", "OTEL_RESOURCE_ATTRIBUTES", "a=b")},
		{"SDK disabled", env("OTEL_SDK_DISABLED", "TRUE", "OTEL_EXPORTER_OTLP_ENDPOINT", "http://collector:4318")},
		{"both exporters none", env("OTEL_TRACES_EXPORTER", "none", "OTEL_METRICS_EXPORTER", "none", "OTEL_EXPORTER_OTLP_ENDPOINT", "http://collector:4318")},
	} {
		t.Run(c.name, func(t *testing.T) {
			cfg, err := FromEnv(c.env)
			if err != nil {
				t.Fatal(err)
			}
			before := runtime.NumGoroutine()
			tel, err := New(cfg, Options{Log: zerolog.Nop()})
			if err != nil || tel != nil {
				t.Fatalf("New = %v, %v; want nil, nil", tel, err)
			}
			if after := runtime.NumGoroutine(); after > before {
				t.Errorf("goroutines %d → %d with telemetry off", before, after)
			}
		})
	}
	// And on when asked: the batch span processor's goroutine runs, and
	// Shutdown ends it.
	cfg, _ := FromEnv(env("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "http://127.0.0.1:1/v1/traces"))
	before := sdkGoroutines()
	tel, err := New(cfg, Options{Log: zerolog.Nop()})
	if err != nil || tel == nil {
		t.Fatalf("New with a traces endpoint: %v, %v", tel, err)
	}
	// The new goroutine shows SDK code once it has run.
	for deadline := time.Now().Add(30 * time.Second); sdkGoroutines() == before; {
		if time.Now().After(deadline) {
			t.Fatal("traces on, but no SDK goroutine: is anything exported?")
		}
		runtime.Gosched()
	}
	_ = tel.Shutdown(context.Background())
}

// lifeOfACall is everything the core calls for one tool call, and the
// rest of the API, on t.
func lifeOfACall(t *Telemetry, id, list []byte) {
	t.ToolsListed(list)
	op := t.Start(Request{Method: "tools/call", Tool: "draw_line", ID: id, ProtocolVersion: "2025-06-18", Transport: TransportPipe, Traceparent: clientTP})
	op.Queued()
	op.Dequeued()
	op.Asked()
	op.Answered(Agreed)
	op.Refused(RefusalDenied)
	call := op.CallBase()
	_, _ = call.TraceMeta()
	call.End("")
	op.End(Result{})
	s := t.SessionStart(SessionInfo{Transport: TransportPipe})
	s.End("")
	t.StreamOpened().Closed()
	_ = t.MetricsHandler()
	_ = t.Enabled()
}

// Off (a nil *Telemetry), a whole call allocates nothing.
func TestOffAllocatesNothing(t *testing.T) {
	var tel *Telemetry
	id, list := []byte(`17`), toolsList("draw_line")
	if n := testing.AllocsPerRun(1000, func() { lifeOfACall(tel, id, list) }); n != 0 {
		t.Errorf("telemetry off: %v allocations per call", n)
	}
	if tel.MetricsHandler() != nil || tel.Enabled() || tel.Shutdown(context.Background()) != nil {
		t.Error("a nil Telemetry is not off")
	}
}
