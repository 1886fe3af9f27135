package prom

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	"go.opentelemetry.io/otel/sdk/resource"
)

// TestCollidingLabelNamesAreMerged: attribute keys that differ only in
// characters a label name cannot hold (service.name and service_name, as
// OTEL_RESOURCE_ATTRIBUTES may give beside the bridge's own) make one label
// whose values are joined with ";" in the order of the keys, as the
// compatibility rules ask: a label twice makes Prometheus refuse the whole
// scrape ("duplicate label names").
func TestCollidingLabelNamesAreMerged(t *testing.T) {
	reader := sdkmetric.NewManualReader()
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader),
		sdkmetric.WithResource(resource.NewSchemaless(attribute.String("service.name", "mcp-bridge"),
			attribute.String("service_name", "cad"), attribute.String("a.b", "1"))))
	c, _ := mp.Meter("t").Int64Counter("calls")
	c.Add(context.Background(), 1, metric.WithAttributes(attribute.String("x.y", "p"), attribute.String("x_y", "q"), attribute.String("x-y", "r")))
	var rm metricdata.ResourceMetrics
	if err := reader.Collect(context.Background(), &rm); err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := Write(&buf, &rm); err != nil {
		t.Fatal(err)
	}
	text := buf.String()
	for _, want := range []string{`target_info{a_b="1",service_name="mcp-bridge;cad"} 1`, `calls_total{x_y="r;p;q"} 1`} {
		if !strings.Contains(text, want) {
			t.Errorf("no %s in\n%s", want, text)
		}
	}
	parse(t, buf.Bytes())
}
