package telemetry

import (
	"io"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/spf13/pflag"
)

func TestFromEnv(t *testing.T) {
	cfg, err := FromEnv(env(
		"OTEL_EXPORTER_OTLP_ENDPOINT", " http://collector:4318 ",
		"OTEL_EXPORTER_OTLP_HEADERS", "Authorization=Api-Token%20abc,x-tenant=cad",
		"OTEL_EXPORTER_OTLP_TIMEOUT", "2500",
		"OTEL_METRIC_EXPORT_INTERVAL", "15000",
		"OTEL_SERVICE_NAME", "bridge-12",
		"OTEL_TRACES_SAMPLER", "parentbased_traceidratio",
		"OTEL_TRACES_SAMPLER_ARG", "0.25",
		"OTEL_SDK_DISABLED", "false",
	))
	if err != nil {
		t.Fatal(err)
	}
	want := Config{Endpoint: "http://collector:4318", Headers: "Authorization=Api-Token%20abc,x-tenant=cad", Timeout: 2500 * time.Millisecond,
		MetricInterval: 15 * time.Second, ServiceName: "bridge-12", Sampler: "parentbased_traceidratio", SamplerArg: "0.25"}
	if diff := cmp.Diff(want, cfg); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if got, want := cfg.tracesURL(), "http://collector:4318/v1/traces"; got != want {
		t.Errorf("traces URL %q, want %q", got, want)
	}
	h, _ := parseHeaders(cfg.Headers)
	if diff := cmp.Diff(map[string]string{"Authorization": "Api-Token abc", "x-tenant": "cad"}, h); diff != "" {
		t.Errorf("headers (-want +got):\n%s", diff)
	}
}

// Every bad value is refused at start, naming its variable; a header's
// value is never repeated in the message (it holds a key).
func TestBadSettings(t *testing.T) {
	for _, c := range []struct {
		env  []string
		want string
	}{
		{[]string{"OTEL_EXPORTER_OTLP_TIMEOUT", "10s"}, "OTEL_EXPORTER_OTLP_TIMEOUT"},
		{[]string{"OTEL_EXPORTER_OTLP_TIMEOUT", "0"}, "OTEL_EXPORTER_OTLP_TIMEOUT"},
		{[]string{"OTEL_METRIC_EXPORT_INTERVAL", "-1"}, "OTEL_METRIC_EXPORT_INTERVAL"},
		{[]string{"OTEL_SDK_DISABLED", "yes"}, "OTEL_SDK_DISABLED"},
		{[]string{"OTEL_EXPORTER_OTLP_TRACES_PROTOCOL", "grpc"}, "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL"},
		{[]string{"OTEL_EXPORTER_OTLP_PROTOCOL", "http/json"}, "OTEL_EXPORTER_OTLP_PROTOCOL"},
		{[]string{"OTEL_EXPORTER_OTLP_COMPRESSION", "zstd"}, "OTEL_EXPORTER_OTLP_COMPRESSION"},
		{[]string{"OTEL_TRACES_EXPORTER", "jaeger"}, "OTEL_TRACES_EXPORTER"},
		{[]string{"OTEL_METRICS_EXPORTER", "prometheus"}, "--metrics"},
		{[]string{"OTEL_TRACES_SAMPLER", "xray"}, "OTEL_TRACES_SAMPLER"},
		{[]string{"OTEL_TRACES_SAMPLER", "traceidratio", "OTEL_TRACES_SAMPLER_ARG", "1.01"}, "OTEL_TRACES_SAMPLER_ARG"},
		{[]string{"OTEL_TRACES_SAMPLER_ARG", "-0.1"}, "OTEL_TRACES_SAMPLER_ARG"},
		{[]string{"OTEL_TRACES_SAMPLER", "traceidratio", "OTEL_TRACES_SAMPLER_ARG", "NaN"}, "OTEL_TRACES_SAMPLER_ARG"},
		{[]string{"OTEL_EXPORTER_OTLP_ENDPOINT", "collector:4318"}, "OTEL_EXPORTER_OTLP_ENDPOINT"},
		{[]string{"OTEL_EXPORTER_OTLP_METRICS_ENDPOINT", "ftp://collector/v1/metrics"}, "OTEL_EXPORTER_OTLP_METRICS_ENDPOINT"},
		{[]string{"OTEL_EXPORTER_OTLP_HEADERS", "Authorization=secret\r\nX-Evil: 1"}, "OTEL_EXPORTER_OTLP_HEADERS"},
		{[]string{"OTEL_EXPORTER_OTLP_HEADERS", "Bad Name=secret"}, "OTEL_EXPORTER_OTLP_HEADERS"},
		// A value's bytes one either side of what net/http sends: DEL (0x7f)
		// and 0x1f are refused, written raw or percent-encoded; '~' (0x7e),
		// a space, a tab and bytes from 0x80 are sent.
		{[]string{"OTEL_EXPORTER_OTLP_HEADERS", "k=secret\x7f"}, "OTEL_EXPORTER_OTLP_HEADERS"},
		{[]string{"OTEL_EXPORTER_OTLP_HEADERS", "k=secret%7F"}, "OTEL_EXPORTER_OTLP_HEADERS"},
		{[]string{"OTEL_EXPORTER_OTLP_METRICS_HEADERS", "k=secret%7f"}, "OTEL_EXPORTER_OTLP_METRICS_HEADERS"},
		{[]string{"OTEL_EXPORTER_OTLP_HEADERS", "k=secret%1F"}, "OTEL_EXPORTER_OTLP_HEADERS"},
		{[]string{"OTEL_EXPORTER_OTLP_HEADERS", "k=a%7Eb%20c%09d%80%C3%A9,l=~"}, ""},
		{[]string{"OTEL_EXPORTER_OTLP_TRACES_HEADERS", "k=secret%zz"}, "OTEL_EXPORTER_OTLP_TRACES_HEADERS"},
		{[]string{"OTEL_RESOURCE_ATTRIBUTES", "a=b,novalue"}, "OTEL_RESOURCE_ATTRIBUTES"},
		{[]string{"OTEL_SDK_DISABLED", "true"}, ""}, // alone: fine
	} {
		cfg, err := FromEnv(env(c.env...))
		if err == nil {
			err = cfg.Validate()
		}
		if c.want == "" {
			if err != nil {
				t.Errorf("%v: %v", c.env, err)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: error %v, want one naming %s", c.env, err, c.want)
			continue
		}
		if strings.Contains(err.Error(), "secret") {
			t.Errorf("%v: the error repeats the header's value: %v", c.env, err)
		}
	}
	if err := (Config{Disabled: true, MetricsListen: "127.0.0.1:9464"}).Validate(); err == nil {
		t.Error("OTEL_SDK_DISABLED with --metrics-listen accepted")
	}
	if err := (Config{MetricsListen: "9464"}).Validate(); err == nil || !strings.Contains(err.Error(), "--metrics-listen") {
		t.Errorf("--metrics-listen without a host: %v", err)
	}
}

func TestSignalURLs(t *testing.T) {
	for _, c := range []struct {
		cfg             Config
		traces, metrics string
	}{
		{Config{Endpoint: "http://c:4318/"}, "http://c:4318/v1/traces", "http://c:4318/v1/metrics"},
		{Config{Endpoint: "https://c/otlp"}, "https://c/otlp/v1/traces", "https://c/otlp/v1/metrics"},
		{Config{Endpoint: "http://c:4318"}, "http://c:4318/v1/traces", "http://c:4318/v1/metrics"},
		// the path goes before the query, which is kept as written
		{Config{Endpoint: "https://c/otlp/?tenant=a%2Fb&x"}, "https://c/otlp/v1/traces?tenant=a%2Fb&x", "https://c/otlp/v1/metrics?tenant=a%2Fb&x"},
		{Config{Endpoint: "https://c?tenant=a"}, "https://c/v1/traces?tenant=a", "https://c/v1/metrics?tenant=a"},
		{Config{Endpoint: "http://c:4318", TracesEndpoint: "http://t/custom"}, "http://t/custom", "http://c:4318/v1/metrics"},
		{Config{MetricsEndpoint: "http://m/x"}, "", "http://m/x"},
		{Config{Endpoint: "http://c:4318", TracesExporter: "none"}, "", "http://c:4318/v1/metrics"},
		{Config{TracesExporter: "otlp"}, "http://localhost:4318/v1/traces", ""},
		{Config{Endpoint: "http://c:4318", Disabled: true}, "", ""},
	} {
		if got := c.cfg.tracesURL(); got != c.traces {
			t.Errorf("%+v: traces to %q, want %q", c.cfg, got, c.traces)
		}
		if got := c.cfg.metricsURL(); got != c.metrics {
			t.Errorf("%+v: metrics to %q, want %q", c.cfg, got, c.metrics)
		}
	}
}

// Flags given win over the environment; the others leave it alone; --help
// shows no value from the environment.
func TestConfigFromFlags(t *testing.T) {
	fs := pflag.NewFlagSet("mcp-bridge", pflag.ContinueOnError)
	fs.SetOutput(io.Discard)
	AddFlags(fs)
	err := fs.Parse([]string{"--otel-service-name", "from-flag", "--metrics-listen", "127.0.0.1:9464",
		"--otel-exporter-otlp-timeout", "3s", "--otel-propagate-to-base"})
	if err != nil {
		t.Fatal(err)
	}
	getenv := env("OTEL_SERVICE_NAME", "from-env", "OTEL_EXPORTER_OTLP_ENDPOINT", "http://c:4318", "OTEL_EXPORTER_OTLP_HEADERS", "k=hunter2")
	cfg, err := ConfigFrom(fs, getenv)
	if err != nil {
		t.Fatal(err)
	}
	want := Config{ServiceName: "from-flag", Endpoint: "http://c:4318", Headers: "k=hunter2", MetricsListen: "127.0.0.1:9464",
		Timeout: 3 * time.Second, PropagateToBase: true}
	if diff := cmp.Diff(want, cfg); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if strings.Contains(fs.FlagUsages(), "hunter2") {
		t.Error("--help shows a header value from the environment")
	}
	for _, name := range flagNames {
		if fs.Lookup(name) == nil {
			t.Errorf("flag --%s is read but not registered", name)
		}
	}
	if n := len(flagNames); n != countFlags(fs) {
		t.Errorf("%d flags registered, %d read", countFlags(fs), n)
	}
}

func countFlags(fs *pflag.FlagSet) int {
	n := 0
	fs.VisitAll(func(*pflag.Flag) { n++ })
	return n
}
