package prom

import (
	"bytes"
	"context"
	"math"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	"go.opentelemetry.io/otel/sdk/resource"
)

// parse reads the exposition back with Prometheus's own parser (legacy
// names: what a Prometheus 2 server accepts).
func parse(t *testing.T, text []byte) map[string]*dto.MetricFamily {
	t.Helper()
	p := expfmt.NewTextParser(model.LegacyValidation)
	fams, err := p.TextToMetricFamilies(bytes.NewReader(text))
	if err != nil {
		t.Fatalf("Prometheus's parser refuses the exposition: %v\n%s", err, text)
	}
	return fams
}

func labels(m *dto.Metric) map[string]string {
	out := map[string]string{}
	for _, l := range m.Label {
		out[l.GetName()] = l.GetValue()
	}
	return out
}

func collect(t *testing.T, record func(metric.Meter)) []byte {
	t.Helper()
	reader := sdkmetric.NewManualReader()
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader),
		sdkmetric.WithResource(resource.NewSchemaless(attribute.String("service.name", "mcp-bridge"), attribute.String("host.name", "cad-pc-12"))))
	record(mp.Meter("test"))
	var rm metricdata.ResourceMetrics
	if err := reader.Collect(context.Background(), &rm); err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := Write(&buf, &rm); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// TestLabelValueEscapes: each character the format escapes in a label
// value, alone in it (a line feed without a quote or a backslash beside
// it, which a check for any of the three at once let through unescaped and
// Prometheus then refused the whole scrape), and beside the others; each
// reads back as the value recorded.
func TestLabelValueEscapes(t *testing.T) {
	values := []string{"\n", "a\nb", "\n\n", "\\", "a\\b", `"`, `a"b`, "a\"b\\c\nd", "plain", "", "\r\t"}
	text := collect(t, func(m metric.Meter) {
		c, _ := m.Int64Counter("mcp_bridge.policy.refusals", metric.WithUnit("{call}"))
		for i, v := range values {
			c.Add(context.Background(), int64(i+1), metric.WithAttributes(attribute.String("gen_ai.tool.name", v)))
		}
	})
	got := map[string]float64{}
	for _, m := range parse(t, text)["mcp_bridge_policy_refusals_total"].GetMetric() {
		got[labels(m)["gen_ai_tool_name"]] = m.Counter.GetValue()
	}
	want := map[string]float64{}
	for i, v := range values {
		want[v] = float64(i + 1)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("label values read back (-want +got):\n%s\n%s", diff, text)
	}
}

func TestWriteReadsBackInPrometheus(t *testing.T) {
	ctx := context.Background()
	text := collect(t, func(m metric.Meter) {
		h, _ := m.Float64Histogram("mcp.server.operation.duration", metric.WithUnit("s"), metric.WithDescription("MCP request duration\nas the server saw it \\ here"),
			metric.WithExplicitBucketBoundaries(0.01, 0.1, 1))
		tool := metric.WithAttributes(attribute.String("mcp.method.name", "tools/call"), attribute.String("gen_ai.tool.name", "draw_line"))
		for _, v := range []float64{0.005, 0.01, 0.5, 2} {
			h.Record(ctx, v, tool)
		}
		h.Record(ctx, 0.2, metric.WithAttributes(attribute.String("mcp.method.name", "tools/list")))
		c, _ := m.Int64Counter("mcp_bridge.policy.refusals", metric.WithUnit("{call}"))
		c.Add(ctx, 3, metric.WithAttributes(attribute.String("gen_ai.tool.name", "a\"b\\c\nd\xff")))
		u, _ := m.Int64UpDownCounter("mcp_bridge.calls.queued", metric.WithUnit("{call}"))
		u.Add(ctx, 2)
		u.Add(ctx, -1)
		_, _ = m.Float64ObservableGauge("mcp_bridge.cad.tools_list.age", metric.WithUnit("s"), metric.WithFloat64Callback(func(_ context.Context, o metric.Float64Observer) error {
			o.Observe(12.5)
			return nil
		}))
	})
	fams := parse(t, text)

	ti := fams["target_info"]
	if ti == nil || ti.GetType() != dto.MetricType_GAUGE || !cmp.Equal(labels(ti.Metric[0]), map[string]string{"service_name": "mcp-bridge", "host_name": "cad-pc-12"}) {
		t.Errorf("target_info: %v", ti)
	}

	h := fams["mcp_server_operation_duration_seconds"]
	if h == nil || h.GetType() != dto.MetricType_HISTOGRAM {
		t.Fatalf("no histogram mcp_server_operation_duration_seconds in:\n%s", text)
	}
	if h.GetHelp() != "MCP request duration\nas the server saw it \\ here" {
		t.Errorf("help %q", h.GetHelp())
	}
	if len(h.Metric) != 2 {
		t.Fatalf("%d series, want 2", len(h.Metric))
	}
	var call *dto.Metric
	for _, m := range h.Metric {
		if labels(m)["mcp_method_name"] == "tools/call" {
			call = m
		}
	}
	if diff := cmp.Diff(map[string]string{"mcp_method_name": "tools/call", "gen_ai_tool_name": "draw_line"}, labels(call)); diff != "" {
		t.Errorf("labels (-want +got):\n%s", diff)
	}
	var got []uint64
	var bounds []float64
	for _, b := range call.Histogram.Bucket {
		got = append(got, b.GetCumulativeCount())
		bounds = append(bounds, b.GetUpperBound())
	}
	// 0.005 and 0.01 are ≤ 0.01 (le is inclusive); 0.5 ≤ 1; 2 only in +Inf.
	if diff := cmp.Diff([]uint64{2, 2, 3, 4}, got); diff != "" {
		t.Errorf("cumulative buckets (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]float64{0.01, 0.1, 1, math.Inf(1)}, bounds); diff != "" {
		t.Errorf("bounds (-want +got):\n%s", diff)
	}
	if call.Histogram.GetSampleCount() != 4 || call.Histogram.GetSampleSum() != 2.515 {
		t.Errorf("count %d sum %v", call.Histogram.GetSampleCount(), call.Histogram.GetSampleSum())
	}

	c := fams["mcp_bridge_policy_refusals_total"]
	if c == nil || c.GetType() != dto.MetricType_COUNTER || c.Metric[0].Counter.GetValue() != 3 {
		t.Fatalf("counter: %v\n%s", c, text)
	}
	if v := labels(c.Metric[0])["gen_ai_tool_name"]; v != "a\"b\\c\nd\uFFFD" {
		t.Errorf("label value read back as %q", v)
	}
	if g := fams["mcp_bridge_calls_queued"]; g == nil || g.GetType() != dto.MetricType_GAUGE || g.Metric[0].Gauge.GetValue() != 1 {
		t.Errorf("up-down counter as a gauge: %v", g)
	}
	if g := fams["mcp_bridge_cad_tools_list_age_seconds"]; g == nil || g.Metric[0].Gauge.GetValue() != 12.5 {
		t.Errorf("gauge: %v", g)
	}
}

func TestWriteIsStable(t *testing.T) {
	ctx := context.Background()
	rec := func(m metric.Meter) {
		c, _ := m.Int64Counter("c")
		for _, n := range []string{"b", "a", "c", "e", "d"} {
			c.Add(ctx, 1, metric.WithAttributes(attribute.String("k", n)))
		}
	}
	first := collect(t, rec)
	for range 5 {
		if again := collect(t, rec); !bytes.Equal(first, again) {
			t.Fatalf("two expositions of the same data differ:\n%s\n---\n%s", first, again)
		}
	}
	if i, j := strings.Index(string(first), `k="a"`), strings.Index(string(first), `k="e"`); i < 0 || j < i {
		t.Errorf("series not sorted by label:\n%s", first)
	}
}

func TestNames(t *testing.T) {
	for _, c := range []struct{ name, unit, want string }{
		{"mcp.server.operation.duration", "s", "mcp_server_operation_duration_seconds"},
		{"mcp_bridge.calls.in_flight", "{call}", "mcp_bridge_calls_in_flight"},
		{"size", "By", "size_bytes"},
		{"ratio", "1", "ratio"},
		{"already_seconds", "s", "already_seconds"},
		{"a..b--c", "", "a_b_c"},
		{"9lives", "", "_9lives"},
		{"ns:name", "", "ns:name"},
	} {
		if got := MetricName(c.name, c.unit); got != c.want {
			t.Errorf("MetricName(%q, %q) = %q, want %q", c.name, c.unit, got, c.want)
		}
	}
	for _, c := range []struct{ key, want string }{
		{"gen_ai.tool.name", "gen_ai_tool_name"},
		{"ns:key", "ns_key"},
		{"0day", "key_0day"},
	} {
		if got := LabelName(c.key); got != c.want {
			t.Errorf("LabelName(%q) = %q, want %q", c.key, got, c.want)
		}
	}
}

// FuzzWrite: whatever a label value or key holds, Prometheus's parser
// reads the exposition, and a UTF-8 value comes back as it was.
func FuzzWrite(f *testing.F) {
	f.Add("draw_line", "gen_ai.tool.name")
	f.Add("a\"b\\c\nd\xff", "0\xffkey")
	f.Fuzz(func(t *testing.T, value, key string) {
		if key == "" {
			return // the SDK drops an attribute without a key
		}
		text := collect(t, func(m metric.Meter) {
			c, _ := m.Int64Counter("c")
			c.Add(context.Background(), 1, metric.WithAttributes(attribute.String(key, value)))
		})
		fams := parse(t, text)
		c := fams["c_total"]
		if c == nil || len(c.Metric) != 1 {
			t.Fatalf("no c_total in:\n%s", text)
		}
		if got := labels(c.Metric[0])[LabelName(key)]; got != value && utf8.ValidString(value) {
			t.Fatalf("value %q read back as %q", value, got)
		}
	})
}
