package otlp

import (
	"context"
	"math"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/metric"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	metricspb "go.opentelemetry.io/proto/otlp/metrics/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/proto"
)

// The receiver side decodes with the official definitions: TracesData and
// MetricsData have the same wire shape as the Export*ServiceRequest
// messages (field 1, repeated), without the collector's gRPC packages.

func decodeTraces(t *testing.T, b []byte) *tracepb.TracesData {
	t.Helper()
	var d tracepb.TracesData
	if err := proto.Unmarshal(b, &d); err != nil {
		t.Fatalf("the official definitions refuse the request: %v", err)
	}
	return &d
}

func decodeMetrics(t *testing.T, b []byte) *metricspb.MetricsData {
	t.Helper()
	var d metricspb.MetricsData
	if err := proto.Unmarshal(b, &d); err != nil {
		t.Fatalf("the official definitions refuse the request: %v", err)
	}
	return &d
}

// attrs reads KeyValues back as Go values.
func attrs(kvs []*commonpb.KeyValue) map[string]any {
	out := map[string]any{}
	for _, kv := range kvs {
		out[kv.Key] = anyValue(kv.Value)
	}
	return out
}

func anyValue(v *commonpb.AnyValue) any {
	switch x := v.GetValue().(type) {
	case *commonpb.AnyValue_StringValue:
		return x.StringValue
	case *commonpb.AnyValue_BoolValue:
		return x.BoolValue
	case *commonpb.AnyValue_IntValue:
		return x.IntValue
	case *commonpb.AnyValue_DoubleValue:
		return x.DoubleValue
	case *commonpb.AnyValue_BytesValue:
		return x.BytesValue
	case *commonpb.AnyValue_ArrayValue:
		var out []any
		for _, e := range x.ArrayValue.Values {
			out = append(out, anyValue(e))
		}
		return out
	case *commonpb.AnyValue_KvlistValue:
		return attrs(x.KvlistValue.Values)
	}
	return nil
}

func TestAppendTracesDecodesWithTheOfficialDefinitions(t *testing.T) {
	rec := tracetest.NewSpanRecorder()
	res := resource.NewWithAttributes("https://opentelemetry.io/schemas/1.40.0", attribute.String("service.name", "mcp-bridge"))
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec), sdktrace.WithResource(res))
	tr := tp.Tracer("github.com/mcp-bridge/mcp-bridge", trace.WithInstrumentationVersion("v9"))

	remoteTID := trace.TraceID{0x4b, 0xf9, 0x2f, 0x35, 0x77, 0xb3, 0x4d, 0xa6, 0xa3, 0xce, 0x92, 0x9d, 0x0e, 0x0e, 0x47, 0x36}
	remoteSID := trace.SpanID{0, 0xf0, 0x67, 0xaa, 0x0b, 0xa9, 0x02, 0xb7}
	ts, _ := trace.ParseTraceState("rojo=00f067aa0ba902b7")
	remote := trace.NewSpanContext(trace.SpanContextConfig{TraceID: remoteTID, SpanID: remoteSID, TraceFlags: trace.FlagsSampled, TraceState: ts, Remote: true})
	ctx := trace.ContextWithRemoteSpanContext(context.Background(), remote)

	start := time.Unix(1700000000, 123456789)
	ctx, server := tr.Start(ctx, "tools/call draw_line", trace.WithSpanKind(trace.SpanKindServer), trace.WithTimestamp(start),
		trace.WithLinks(trace.Link{SpanContext: remote, Attributes: []attribute.KeyValue{attribute.String("why", "ambient")}}),
		trace.WithAttributes(
			attribute.String("mcp.method.name", "tools/call"),
			attribute.String("gen_ai.tool.name", "bad\xffname"),
			attribute.Int64("server.port", 8080),
			attribute.Bool("b", true),
			attribute.Float64("f", 1.5),
			attribute.StringSlice("ss", []string{"a", "b"}),
			attribute.Int64Slice("is", []int64{-1, 2}),
		))
	server.AddEvent("asked", trace.WithTimestamp(start.Add(time.Millisecond)), trace.WithAttributes(attribute.String("k", "v")))
	_, client := tr.Start(ctx, "tools/call draw_line", trace.WithSpanKind(trace.SpanKindClient), trace.WithTimestamp(start.Add(2*time.Millisecond)))
	client.End(trace.WithTimestamp(start.Add(3 * time.Millisecond)))
	server.SetStatus(codes.Error, "CAD base did not answer")
	server.End(trace.WithTimestamp(start.Add(4 * time.Millisecond)))

	d := decodeTraces(t, AppendTraces(nil, rec.Ended()))
	if len(d.ResourceSpans) != 1 || len(d.ResourceSpans[0].ScopeSpans) != 1 {
		t.Fatalf("want one resource and one scope, got %v", d)
	}
	rs := d.ResourceSpans[0]
	if diff := cmp.Diff(map[string]any{"service.name": "mcp-bridge"}, attrs(rs.Resource.Attributes)); diff != "" {
		t.Errorf("resource (-want +got):\n%s", diff)
	}
	if rs.SchemaUrl != "https://opentelemetry.io/schemas/1.40.0" {
		t.Errorf("schema URL %q", rs.SchemaUrl)
	}
	ss := rs.ScopeSpans[0]
	if ss.Scope.Name != "github.com/mcp-bridge/mcp-bridge" || ss.Scope.Version != "v9" {
		t.Errorf("scope %v", ss.Scope)
	}
	if len(ss.Spans) != 2 {
		t.Fatalf("want 2 spans, got %d", len(ss.Spans))
	}
	cs, sv := ss.Spans[0], ss.Spans[1] // the client span ended first
	if string(sv.TraceId) != string(remoteTID[:]) || string(sv.ParentSpanId) != string(remoteSID[:]) {
		t.Errorf("server span: trace %x parent %x, want %x %x", sv.TraceId, sv.ParentSpanId, remoteTID, remoteSID)
	}
	if sv.Flags != 0x01|0x100|0x200 {
		t.Errorf("server span flags %#x: want sampled, parent known to be remote", sv.Flags)
	}
	if string(cs.TraceId) != string(remoteTID[:]) || string(cs.ParentSpanId) != string(sv.SpanId) || cs.Flags != 0x101 {
		t.Errorf("client span: trace %x parent %x flags %#x; want the server span (%x) as a local parent", cs.TraceId, cs.ParentSpanId, cs.Flags, sv.SpanId)
	}
	if sv.TraceState != "rojo=00f067aa0ba902b7" {
		t.Errorf("trace state %q", sv.TraceState)
	}
	if sv.Name != "tools/call draw_line" || sv.Kind != tracepb.Span_SPAN_KIND_SERVER || cs.Kind != tracepb.Span_SPAN_KIND_CLIENT {
		t.Errorf("name %q kinds %v %v", sv.Name, sv.Kind, cs.Kind)
	}
	if sv.StartTimeUnixNano != uint64(start.UnixNano()) || sv.EndTimeUnixNano != uint64(start.Add(4*time.Millisecond).UnixNano()) {
		t.Errorf("times %d %d", sv.StartTimeUnixNano, sv.EndTimeUnixNano)
	}
	want := map[string]any{
		"mcp.method.name":  "tools/call",
		"gen_ai.tool.name": "bad\uFFFDname", // invalid UTF-8 would make the collector refuse the whole request
		"server.port":      int64(8080),
		"b":                true,
		"f":                1.5,
		"ss":               []any{"a", "b"},
		"is":               []any{int64(-1), int64(2)},
	}
	if diff := cmp.Diff(want, attrs(sv.Attributes)); diff != "" {
		t.Errorf("attributes (-want +got):\n%s", diff)
	}
	if len(sv.Events) != 1 || sv.Events[0].Name != "asked" || sv.Events[0].TimeUnixNano != uint64(start.Add(time.Millisecond).UnixNano()) || attrs(sv.Events[0].Attributes)["k"] != "v" {
		t.Errorf("events %v", sv.Events)
	}
	if len(sv.Links) != 1 || string(sv.Links[0].SpanId) != string(remoteSID[:]) || sv.Links[0].Flags != 0x301 || attrs(sv.Links[0].Attributes)["why"] != "ambient" {
		t.Errorf("links %v", sv.Links)
	}
	if sv.Status.GetCode() != tracepb.Status_STATUS_CODE_ERROR || sv.Status.GetMessage() != "CAD base did not answer" {
		t.Errorf("status %v", sv.Status)
	}
	if cs.Status != nil {
		t.Errorf("a span without status has one: %v", cs.Status)
	}
}

func TestAppendMetricsDecodesWithTheOfficialDefinitions(t *testing.T) {
	reader := sdkmetric.NewManualReader()
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader),
		sdkmetric.WithResource(resource.NewSchemaless(attribute.String("service.name", "b"))))
	m := mp.Meter("scope")
	ctx := context.Background()
	h, _ := m.Float64Histogram("mcp.server.operation.duration", metric.WithUnit("s"), metric.WithDescription("d"),
		metric.WithExplicitBucketBoundaries(0.01, 0.1, 1))
	for _, v := range []float64{0.005, 0.01, 0.5, 2} {
		h.Record(ctx, v, metric.WithAttributes(attribute.String("mcp.method.name", "tools/call")))
	}
	c, _ := m.Int64Counter("refusals", metric.WithUnit("{call}"))
	c.Add(ctx, 3)
	u, _ := m.Int64UpDownCounter("queued")
	u.Add(ctx, 2)
	u.Add(ctx, -1)
	_, _ = m.Float64ObservableGauge("age", metric.WithFloat64Callback(func(_ context.Context, o metric.Float64Observer) error {
		o.Observe(-0.25)
		return nil
	}))
	var rm metricdata.ResourceMetrics
	if err := reader.Collect(ctx, &rm); err != nil {
		t.Fatal(err)
	}
	d := decodeMetrics(t, AppendMetrics(nil, &rm))
	if len(d.ResourceMetrics) != 1 || len(d.ResourceMetrics[0].ScopeMetrics) != 1 {
		t.Fatalf("shape: %v", d)
	}
	got := map[string]*metricspb.Metric{}
	for _, m := range d.ResourceMetrics[0].ScopeMetrics[0].Metrics {
		got[m.Name] = m
	}
	hist := got["mcp.server.operation.duration"].GetHistogram()
	if hist == nil || got["mcp.server.operation.duration"].Unit != "s" || got["mcp.server.operation.duration"].Description != "d" {
		t.Fatalf("histogram: %v", got["mcp.server.operation.duration"])
	}
	p := hist.DataPoints[0]
	if hist.AggregationTemporality != metricspb.AggregationTemporality_AGGREGATION_TEMPORALITY_CUMULATIVE {
		t.Errorf("temporality %v", hist.AggregationTemporality)
	}
	// Buckets are (-inf, 0.01], (0.01, 0.1], (0.1, 1], (1, +inf).
	if diff := cmp.Diff([]uint64{2, 0, 1, 1}, p.BucketCounts); diff != "" {
		t.Errorf("bucket counts (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]float64{0.01, 0.1, 1}, p.ExplicitBounds); diff != "" {
		t.Errorf("bounds (-want +got):\n%s", diff)
	}
	if p.Count != 4 || math.Abs(p.GetSum()-2.515) > 1e-9 || p.GetMin() != 0.005 || p.GetMax() != 2 || p.StartTimeUnixNano == 0 || p.TimeUnixNano < p.StartTimeUnixNano {
		t.Errorf("point %v", p)
	}
	if attrs(p.Attributes)["mcp.method.name"] != "tools/call" {
		t.Errorf("point attributes %v", p.Attributes)
	}
	if s := got["refusals"].GetSum(); s == nil || !s.IsMonotonic || s.DataPoints[0].GetAsInt() != 3 || got["refusals"].Unit != "{call}" {
		t.Errorf("counter %v", got["refusals"])
	}
	if s := got["queued"].GetSum(); s == nil || s.IsMonotonic || s.DataPoints[0].GetAsInt() != 1 {
		t.Errorf("up-down counter %v", got["queued"])
	}
	if g := got["age"].GetGauge(); g == nil || g.DataPoints[0].GetAsDouble() != -0.25 {
		t.Errorf("gauge %v", got["age"])
	}
}

// FuzzAppendAnyValue: whatever bytes a name or value holds, the request
// stays one the official definitions read, and strings come back as they
// went in when they were UTF-8.
func FuzzAppendAnyValue(f *testing.F) {
	f.Add("draw_line", "k", int64(1))
	f.Add("\xff\xfe", "\x00", int64(-1))
	f.Fuzz(func(t *testing.T, s, key string, n int64) {
		kvs := []attribute.KeyValue{attribute.String(key, s), attribute.Int64("n", n), attribute.StringSlice("l", []string{s, key})}
		b := appendKeyValues(nil, 1, kvs)
		var kl commonpb.KeyValueList
		if err := proto.Unmarshal(b, &kl); err != nil {
			t.Fatalf("refused: %v", err)
		}
		if len(kl.Values) != 3 {
			t.Fatalf("got %d values", len(kl.Values))
		}
		if got := kl.Values[0].Value.GetStringValue(); got != s && isUTF8(s) {
			t.Fatalf("string %q came back %q", s, got)
		}
		if kl.Values[1].Value.GetIntValue() != n {
			t.Fatalf("int %d came back %d", n, kl.Values[1].Value.GetIntValue())
		}
	})
}

func isUTF8(s string) bool { return string([]rune(s)) == s }
