package telemetry

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/pflag"
)

// Config is what the user asked of telemetry: the standard OTEL_*
// variables, the flags that mirror them, and the bridge's own (--metrics,
// --metrics-listen, --otel-propagate-to-base). Its zero value is
// telemetry off.
type Config struct {
	// Disabled is OTEL_SDK_DISABLED=true: nothing is exported or served.
	Disabled bool

	// Endpoint is OTEL_EXPORTER_OTLP_ENDPOINT, the collector's base URL:
	// /v1/traces and /v1/metrics are appended. TracesEndpoint and
	// MetricsEndpoint (OTEL_EXPORTER_OTLP_{TRACES,METRICS}_ENDPOINT) are
	// used as they are and win over it.
	Endpoint, TracesEndpoint, MetricsEndpoint string
	// Headers are OTEL_EXPORTER_OTLP_HEADERS (key=value,… with values
	// percent-encoded); the per-signal ones are added to them.
	Headers, TracesHeaders, MetricsHeaders string
	// Protocol is OTEL_EXPORTER_OTLP_PROTOCOL (and the per-signal ones):
	// only http/protobuf is spoken.
	Protocol string
	// Compression is OTEL_EXPORTER_OTLP_COMPRESSION: gzip or none.
	Compression string
	// Timeout is OTEL_EXPORTER_OTLP_TIMEOUT (milliseconds there): each
	// export's limit, retries included. Default 10 s.
	Timeout time.Duration
	// TracesExporter and MetricsExporter are OTEL_TRACES_EXPORTER and
	// OTEL_METRICS_EXPORTER: otlp or none. otlp without an endpoint sends
	// to http://localhost:4318, the specification's default.
	TracesExporter, MetricsExporter string

	// ServiceName is OTEL_SERVICE_NAME (default mcp-bridge), and
	// ResourceAttributes OTEL_RESOURCE_ATTRIBUTES (key=value,…).
	ServiceName, ResourceAttributes string

	// Sampler and SamplerArg are OTEL_TRACES_SAMPLER and its argument;
	// default parentbased_always_on.
	Sampler, SamplerArg string

	// MetricInterval is OTEL_METRIC_EXPORT_INTERVAL (milliseconds there):
	// how often metrics go to the collector. Default 60 s.
	MetricInterval time.Duration

	// Metrics (--metrics) collects metrics and serves /metrics on --listen.
	Metrics bool
	// MetricsListen (--metrics-listen ADDR) serves /metrics alone on ADDR,
	// for stdio bridges too.
	MetricsListen string
	// PropagateToBase (--otel-propagate-to-base) puts the CAD span's
	// traceparent and tracestate in the _meta of what is sent to the base.
	// Off by default: a base may refuse members it does not know.
	PropagateToBase bool
}

// The standard variables read by FromEnv.
const (
	envDisabled        = "OTEL_SDK_DISABLED"
	envEndpoint        = "OTEL_EXPORTER_OTLP_ENDPOINT"
	envTracesEndpoint  = "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"
	envMetricsEndpoint = "OTEL_EXPORTER_OTLP_METRICS_ENDPOINT"
	envHeaders         = "OTEL_EXPORTER_OTLP_HEADERS"
	envTracesHeaders   = "OTEL_EXPORTER_OTLP_TRACES_HEADERS"
	envMetricsHeaders  = "OTEL_EXPORTER_OTLP_METRICS_HEADERS"
	envProtocol        = "OTEL_EXPORTER_OTLP_PROTOCOL"
	envTracesProtocol  = "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL"
	envMetricsProtocol = "OTEL_EXPORTER_OTLP_METRICS_PROTOCOL"
	envCompression     = "OTEL_EXPORTER_OTLP_COMPRESSION"
	envTimeout         = "OTEL_EXPORTER_OTLP_TIMEOUT"
	envTracesExporter  = "OTEL_TRACES_EXPORTER"
	envMetricsExporter = "OTEL_METRICS_EXPORTER"
	envServiceName     = "OTEL_SERVICE_NAME"
	envResource        = "OTEL_RESOURCE_ATTRIBUTES"
	envSampler         = "OTEL_TRACES_SAMPLER"
	envSamplerArg      = "OTEL_TRACES_SAMPLER_ARG"
	envMetricInterval  = "OTEL_METRIC_EXPORT_INTERVAL"
)

// Protocol is the one OTLP protocol spoken.
const Protocol = "http/protobuf"

// FromEnv reads the standard OTEL_* variables through getenv. A value
// that cannot be read is an error naming its variable (never its value:
// headers hold keys).
func FromEnv(getenv func(string) string) (Config, error) {
	g := func(k string) string { return strings.TrimSpace(getenv(k)) }
	c := Config{
		Endpoint: g(envEndpoint), TracesEndpoint: g(envTracesEndpoint), MetricsEndpoint: g(envMetricsEndpoint),
		Headers: g(envHeaders), TracesHeaders: g(envTracesHeaders), MetricsHeaders: g(envMetricsHeaders),
		Protocol: g(envProtocol), Compression: g(envCompression),
		TracesExporter: g(envTracesExporter), MetricsExporter: g(envMetricsExporter),
		ServiceName: g(envServiceName), ResourceAttributes: g(envResource),
		Sampler: g(envSampler), SamplerArg: g(envSamplerArg),
	}
	var errs []error
	// The specification: only "true", in any case, is true.
	switch v := g(envDisabled); {
	case strings.EqualFold(v, "true"):
		c.Disabled = true
	case v != "" && !strings.EqualFold(v, "false"):
		errs = append(errs, fmt.Errorf("%s=%q: want true or false", envDisabled, v))
	}
	for _, p := range []string{envTracesProtocol, envMetricsProtocol} {
		if v := g(p); v != "" && v != Protocol {
			errs = append(errs, fmt.Errorf("%s=%q: only %s is spoken", p, v, Protocol))
		}
	}
	millis := func(name string, dst *time.Duration) {
		v := g(name)
		if v == "" {
			return
		}
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n <= 0 || n > int64(24*time.Hour/time.Millisecond) {
			errs = append(errs, fmt.Errorf("%s=%q: want a number of milliseconds, at least 1", name, v))
			return
		}
		*dst = time.Duration(n) * time.Millisecond
	}
	millis(envTimeout, &c.Timeout)
	millis(envMetricInterval, &c.MetricInterval)
	return c, errors.Join(errs...)
}

// flagNames maps each flag to what it sets; AddFlags registers them and
// ConfigFrom reads those given.
var flagNames = []string{
	"otel-exporter-otlp-endpoint", "otel-exporter-otlp-traces-endpoint", "otel-exporter-otlp-metrics-endpoint",
	"otel-exporter-otlp-headers", "otel-exporter-otlp-protocol", "otel-exporter-otlp-compression", "otel-exporter-otlp-timeout",
	"otel-traces-exporter", "otel-metrics-exporter", "otel-service-name", "otel-resource-attributes",
	"otel-traces-sampler", "otel-traces-sampler-arg", "otel-metric-export-interval", "otel-sdk-disabled",
	"metrics", "metrics-listen", "otel-propagate-to-base",
}

// AddFlags registers the telemetry flags on fs. Their defaults are empty
// (the environment's values are not shown in --help: headers hold keys);
// ConfigFrom lays the flags given over the environment after fs.Parse.
func AddFlags(fs *pflag.FlagSet) {
	s := func(name, usage string) { fs.String(name, "", usage) }
	s("otel-exporter-otlp-endpoint", "send traces and metrics by OTLP/HTTP to this collector `URL` (/v1/traces, /v1/metrics added) (env OTEL_EXPORTER_OTLP_ENDPOINT)")
	s("otel-exporter-otlp-traces-endpoint", "send traces to this `URL`, as it is (env OTEL_EXPORTER_OTLP_TRACES_ENDPOINT)")
	s("otel-exporter-otlp-metrics-endpoint", "send metrics to this `URL`, as it is (env OTEL_EXPORTER_OTLP_METRICS_ENDPOINT)")
	s("otel-exporter-otlp-headers", "headers sent to the collector, key=value,…; better in the environment, which other users cannot read (env OTEL_EXPORTER_OTLP_HEADERS)")
	s("otel-exporter-otlp-protocol", "OTLP protocol: http/protobuf, the only one spoken (env OTEL_EXPORTER_OTLP_PROTOCOL)")
	s("otel-exporter-otlp-compression", "gzip or none (env OTEL_EXPORTER_OTLP_COMPRESSION)")
	fs.Duration("otel-exporter-otlp-timeout", 0, "limit on each export, retries included; default 10s (env OTEL_EXPORTER_OTLP_TIMEOUT, in milliseconds)")
	s("otel-traces-exporter", "otlp or none (env OTEL_TRACES_EXPORTER)")
	s("otel-metrics-exporter", "otlp or none (env OTEL_METRICS_EXPORTER)")
	s("otel-service-name", "service.name of what is exported; default mcp-bridge (env OTEL_SERVICE_NAME)")
	s("otel-resource-attributes", "more resource attributes, key=value,… (env OTEL_RESOURCE_ATTRIBUTES)")
	s("otel-traces-sampler", "always_on, always_off, traceidratio, parentbased_always_on (default), parentbased_always_off or parentbased_traceidratio (env OTEL_TRACES_SAMPLER)")
	s("otel-traces-sampler-arg", "the ratio for the traceidratio samplers, 0 to 1 (env OTEL_TRACES_SAMPLER_ARG)")
	fs.Duration("otel-metric-export-interval", 0, "how often metrics go to the collector; default 1m (env OTEL_METRIC_EXPORT_INTERVAL, in milliseconds)")
	fs.Bool("otel-sdk-disabled", false, "export and serve no telemetry at all (env OTEL_SDK_DISABLED)")
	fs.Bool("metrics", false, "collect metrics and serve them at /metrics on --listen (Prometheus text format)")
	s("metrics-listen", "serve /metrics alone at `ADDR` (e.g. 127.0.0.1:9464), also for a stdio bridge; behind the bearer token when one is set (--token-file, CAD_MCP_TOKEN); other machines reach it only with a token or --allow-remote")
	fs.Bool("otel-propagate-to-base", false, "put the trace context (traceparent, tracestate) in the _meta of calls to the CAD base; off because a base may refuse members it does not know")
}

// ConfigFrom reads the standard variables through getenv, then lays over
// them the flags given on fs (registered by AddFlags, after fs.Parse).
func ConfigFrom(fs *pflag.FlagSet, getenv func(string) string) (Config, error) {
	c, err := FromEnv(getenv)
	if err != nil {
		return c, err
	}
	for _, name := range flagNames {
		f := fs.Lookup(name)
		if f == nil || !f.Changed {
			continue
		}
		v := f.Value.String()
		switch name {
		case "otel-exporter-otlp-endpoint":
			c.Endpoint = v
		case "otel-exporter-otlp-traces-endpoint":
			c.TracesEndpoint = v
		case "otel-exporter-otlp-metrics-endpoint":
			c.MetricsEndpoint = v
		case "otel-exporter-otlp-headers":
			c.Headers = v
		case "otel-exporter-otlp-protocol":
			c.Protocol = v
		case "otel-exporter-otlp-compression":
			c.Compression = v
		case "otel-exporter-otlp-timeout":
			c.Timeout, _ = fs.GetDuration(name)
		case "otel-traces-exporter":
			c.TracesExporter = v
		case "otel-metrics-exporter":
			c.MetricsExporter = v
		case "otel-service-name":
			c.ServiceName = v
		case "otel-resource-attributes":
			c.ResourceAttributes = v
		case "otel-traces-sampler":
			c.Sampler = v
		case "otel-traces-sampler-arg":
			c.SamplerArg = v
		case "otel-metric-export-interval":
			c.MetricInterval, _ = fs.GetDuration(name)
		case "otel-sdk-disabled":
			c.Disabled, _ = fs.GetBool(name)
		case "metrics":
			c.Metrics, _ = fs.GetBool(name)
		case "metrics-listen":
			c.MetricsListen = v
		case "otel-propagate-to-base":
			c.PropagateToBase, _ = fs.GetBool(name)
		}
	}
	return c, c.Validate()
}

// tracesURL and metricsURL are where each signal goes, "" for nowhere.
func (c Config) tracesURL() string {
	return signalURL(c.Disabled, c.TracesExporter, c.TracesEndpoint, c.Endpoint, "v1/traces")
}

func (c Config) metricsURL() string {
	return signalURL(c.Disabled, c.MetricsExporter, c.MetricsEndpoint, c.Endpoint, "v1/metrics")
}

// defaultEndpoint is the specification's collector address for
// OTLP/HTTP, used when OTEL_*_EXPORTER=otlp names no endpoint.
const defaultEndpoint = "http://localhost:4318"

func signalURL(disabled bool, exporter, own, base, path string) string {
	if disabled || strings.EqualFold(exporter, "none") {
		return ""
	}
	if own != "" {
		return own
	}
	if base == "" {
		if !strings.EqualFold(exporter, "otlp") {
			return "" // off unless asked for
		}
		base = defaultEndpoint
	}
	// The signal's path goes on the URL's path, before any query
	// (http://c:4318/otlp?tenant=a → /otlp/v1/traces?tenant=a).
	u, err := url.Parse(base)
	if err != nil {
		return strings.TrimSuffix(base, "/") + "/" + path // Validate refuses it
	}
	return u.JoinPath(path).String()
}

// Enabled reports whether c asks for any telemetry at all.
func (c Config) Enabled() bool {
	return !c.Disabled && (c.tracesURL() != "" || c.metricsURL() != "" || c.Metrics || c.MetricsListen != "")
}

// metricsOn: metrics are collected (for OTLP or for /metrics).
func (c Config) metricsOn() bool {
	return !c.Disabled && (c.metricsURL() != "" || c.Metrics || c.MetricsListen != "")
}

// Validate checks every setting; its error names the setting (and never
// the value of a header).
func (c Config) Validate() error {
	var errs []error
	if c.Disabled && (c.Metrics || c.MetricsListen != "") {
		errs = append(errs, errors.New("--metrics and --metrics-listen ask for metrics, and OTEL_SDK_DISABLED (--otel-sdk-disabled) for none"))
	}
	for _, e := range []struct{ name, v string }{{"OTEL_TRACES_EXPORTER", c.TracesExporter}, {"OTEL_METRICS_EXPORTER", c.MetricsExporter}} {
		if e.v != "" && !strings.EqualFold(e.v, "otlp") && !strings.EqualFold(e.v, "none") {
			errs = append(errs, fmt.Errorf("%s=%q: want otlp or none (prometheus: use --metrics or --metrics-listen)", e.name, e.v))
		}
	}
	if c.Protocol != "" && c.Protocol != Protocol {
		errs = append(errs, fmt.Errorf("OTEL_EXPORTER_OTLP_PROTOCOL=%q: only %s is spoken", c.Protocol, Protocol))
	}
	if c.Compression != "" && c.Compression != "gzip" && c.Compression != "none" {
		errs = append(errs, fmt.Errorf("OTEL_EXPORTER_OTLP_COMPRESSION=%q: want gzip or none", c.Compression))
	}
	for _, u := range []struct{ name, v string }{
		{"OTEL_EXPORTER_OTLP_ENDPOINT", c.Endpoint}, {"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", c.TracesEndpoint}, {"OTEL_EXPORTER_OTLP_METRICS_ENDPOINT", c.MetricsEndpoint},
	} {
		if u.v == "" {
			continue
		}
		p, err := url.Parse(u.v)
		if err != nil || (p.Scheme != "http" && p.Scheme != "https") || p.Host == "" {
			errs = append(errs, fmt.Errorf("%s: want an http:// or https:// URL with a host, e.g. http://collector:4318", u.name))
		}
	}
	for _, h := range []struct{ name, v string }{{"OTEL_EXPORTER_OTLP_HEADERS", c.Headers}, {"OTEL_EXPORTER_OTLP_TRACES_HEADERS", c.TracesHeaders}, {"OTEL_EXPORTER_OTLP_METRICS_HEADERS", c.MetricsHeaders}} {
		if _, err := parseHeaders(h.v); err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", h.name, err))
		}
	}
	if _, err := parseResource(c.ResourceAttributes); err != nil {
		errs = append(errs, fmt.Errorf("OTEL_RESOURCE_ATTRIBUTES: %w", err))
	}
	if _, err := sampler(c.Sampler, c.SamplerArg); err != nil {
		errs = append(errs, err)
	}
	if c.Timeout < 0 || c.MetricInterval < 0 {
		errs = append(errs, errors.New("--otel-exporter-otlp-timeout and --otel-metric-export-interval must be positive"))
	}
	if c.MetricsListen != "" {
		if _, _, err := net.SplitHostPort(c.MetricsListen); err != nil {
			errs = append(errs, fmt.Errorf("--metrics-listen %q: want HOST:PORT, e.g. 127.0.0.1:9464", c.MetricsListen))
		}
	}
	return errors.Join(errs...)
}

// parseHeaders reads key=value,… with percent-encoded values (the W3C
// baggage form the specification names). Names must be HTTP tokens and
// values free of control characters: a header that would not survive
// net/http is refused here, at start, not at the first export.
func parseHeaders(s string) (map[string]string, error) {
	out := map[string]string{}
	if strings.TrimSpace(s) == "" {
		return out, nil
	}
	for i, member := range strings.Split(s, ",") {
		k, v, ok := strings.Cut(member, "=")
		k = strings.TrimSpace(k)
		if !ok || !httpToken(k) {
			return nil, fmt.Errorf("member %d is not name=value with a valid header name", i+1)
		}
		val, err := url.PathUnescape(strings.TrimSpace(v))
		if err != nil {
			return nil, fmt.Errorf("the value of %s is not percent-encoded correctly", k)
		}
		for _, c := range []byte(val) {
			if c < 0x20 && c != '\t' || c == 0x7f {
				return nil, fmt.Errorf("the value of %s holds control characters", k)
			}
		}
		out[k] = val
	}
	return out, nil
}

func httpToken(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range []byte(s) {
		if c <= ' ' || c >= 0x7f || strings.IndexByte(`"(),/:;<=>?@[\]{}`, c) >= 0 {
			return false
		}
	}
	return true
}

// parseResource reads OTEL_RESOURCE_ATTRIBUTES: key=value,… with
// percent-encoded values. The specification asks that a value that cannot
// be read be discarded whole; here it is an error at start instead.
func parseResource(s string) ([][2]string, error) {
	var out [][2]string
	if strings.TrimSpace(s) == "" {
		return nil, nil
	}
	for i, member := range strings.Split(s, ",") {
		k, v, ok := strings.Cut(member, "=")
		k = strings.TrimSpace(k)
		if !ok || k == "" {
			return nil, fmt.Errorf("member %d is not key=value", i+1)
		}
		val, err := url.PathUnescape(strings.TrimSpace(v))
		if err != nil {
			return nil, fmt.Errorf("the value of %s is not percent-encoded correctly", k)
		}
		out = append(out, [2]string{k, val})
	}
	return out, nil
}
