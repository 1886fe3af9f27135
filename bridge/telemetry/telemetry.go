package telemetry

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log"
	"net"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rs/zerolog"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
	sdk "go.opentelemetry.io/otel/sdk"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/exemplar"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"

	"github.com/mcp-bridge/mcp-bridge/bridge/telemetry/health"
	"github.com/mcp-bridge/mcp-bridge/bridge/telemetry/otlp"
	"github.com/mcp-bridge/mcp-bridge/bridge/telemetry/prom"
	"github.com/mcp-bridge/mcp-bridge/configs/cut"
)

// Telemetry makes the bridge's spans and metrics. A nil *Telemetry is
// telemetry off: every method returns at once, allocates nothing, and
// returns nil handles whose methods do the same, so the core calls them
// unconditionally.
type Telemetry struct {
	log     zerolog.Logger
	tracer  trace.Tracer // nil: traces off
	tp      *sdktrace.TracerProvider
	mp      *sdkmetric.MeterProvider // nil: metrics off
	manual  *sdkmetric.ManualReader  // nil: no /metrics
	inst    instruments
	tools   tools
	health  *health.State
	started time.Time

	baseHost string
	basePort int
	toBase   bool // PropagateToBase

	lastList atomic.Int64 // unix nanoseconds of the last good tools/list; 0 before one

	scrapeMu sync.Mutex // one collection for /metrics at a time
}

// Options are what New needs of the bridge besides the user's Config.
type Options struct {
	Version  string        // service.version
	BaseAddr string        // the CAD base's host:port, for the CAD spans' server.address and server.port
	Health   *health.State // the base's state, for mcp_bridge.cad.reachable; nil: not exported
	Log      zerolog.Logger
	// Hostname is os.Hostname unless a test sets it (host.name).
	Hostname func() (string, error)
}

// ScopeName is the instrumentation scope of everything the bridge emits.
const ScopeName = "github.com/mcp-bridge/mcp-bridge"

// New returns the telemetry cfg asks for, or nil (and no error) when it
// asks for none: then no SDK object exists and no goroutine runs. With
// traces on, a batch span processor runs one goroutine; with metrics sent
// by OTLP, a periodic reader runs another. Shutdown ends them.
func New(cfg Config, opt Options) (*Telemetry, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if !cfg.Enabled() {
		return nil, nil
	}
	res, err := buildResource(cfg, opt)
	if err != nil {
		return nil, err
	}
	t := &Telemetry{log: opt.Log, health: opt.Health, started: time.Now(), toBase: cfg.PropagateToBase}
	if h, p, err := net.SplitHostPort(opt.BaseAddr); err == nil {
		t.baseHost = h
		t.basePort, _ = strconv.Atoi(p)
	}
	setErrorHandler(opt.Log)
	ua := "mcp-bridge/" + opt.Version
	timeout := cfg.Timeout
	if timeout <= 0 {
		timeout = 10 * time.Second
	}
	gzip := cfg.Compression == "gzip"
	common, _ := parseHeaders(cfg.Headers)

	if u := cfg.tracesURL(); u != "" {
		smp, _ := sampler(cfg.Sampler, cfg.SamplerArg)
		headers, _ := parseHeaders(cfg.TracesHeaders)
		exp := &otlp.SpanExporter{Client: &otlp.Client{URL: u, Headers: merge(common, headers), Gzip: gzip, Timeout: timeout,
			UserAgent: ua, Log: opt.Log, Signal: "traces"}}
		// Every limit given, so that the SDK reads none of its own
		// variables from the process environment behind getenv's back.
		t.tp = sdktrace.NewTracerProvider(
			sdktrace.WithResource(res),
			sdktrace.WithSampler(smp),
			sdktrace.WithRawSpanLimits(sdktrace.SpanLimits{
				AttributeValueLengthLimit: 1024, AttributeCountLimit: 32, EventCountLimit: 16,
				LinkCountLimit: 4, AttributePerEventCountLimit: 8, AttributePerLinkCountLimit: 8,
			}),
			sdktrace.WithBatcher(exp,
				sdktrace.WithMaxQueueSize(2048), sdktrace.WithMaxExportBatchSize(512),
				sdktrace.WithBatchTimeout(5*time.Second), sdktrace.WithExportTimeout(timeout+time.Second)),
		)
		t.tracer = t.tp.Tracer(ScopeName, trace.WithInstrumentationVersion(opt.Version))
	}

	if cfg.metricsOn() {
		opts := []sdkmetric.Option{
			sdkmetric.WithResource(res),
			sdkmetric.WithExemplarFilter(exemplar.AlwaysOffFilter),
			sdkmetric.WithCardinalityLimit(2000),
		}
		if cfg.Metrics || cfg.MetricsListen != "" {
			t.manual = sdkmetric.NewManualReader()
			opts = append(opts, sdkmetric.WithReader(t.manual))
		}
		if u := cfg.metricsURL(); u != "" {
			headers, _ := parseHeaders(cfg.MetricsHeaders)
			exp := &otlp.MetricExporter{Client: &otlp.Client{URL: u, Headers: merge(common, headers), Gzip: gzip, Timeout: timeout,
				UserAgent: ua, Log: opt.Log, Signal: "metrics"}}
			interval := cfg.MetricInterval
			if interval <= 0 {
				interval = time.Minute
			}
			opts = append(opts, sdkmetric.WithReader(sdkmetric.NewPeriodicReader(exp,
				sdkmetric.WithInterval(interval), sdkmetric.WithTimeout(timeout+time.Second))))
		}
		t.mp = sdkmetric.NewMeterProvider(opts...)
		if err := t.inst.create(t.mp.Meter(ScopeName, metric.WithInstrumentationVersion(opt.Version)), t); err != nil {
			_ = t.Shutdown(context.Background())
			return nil, err
		}
	}
	return t, nil
}

func merge(a, b map[string]string) map[string]string {
	out := make(map[string]string, len(a)+len(b))
	for k, v := range a {
		out[k] = v
	}
	for k, v := range b {
		out[k] = v
	}
	return out
}

// errLog is where the SDK's own errors go (otel.Handle, a process-wide
// hook): the latest Telemetry's log, at debug level, since the exporters
// log their failures themselves, once per outage.
var (
	errLog     atomic.Pointer[zerolog.Logger]
	errLogOnce sync.Once
)

func setErrorHandler(l zerolog.Logger) {
	errLog.Store(&l)
	errLogOnce.Do(func() {
		otel.SetErrorHandler(otel.ErrorHandlerFunc(func(err error) {
			if l := errLog.Load(); l != nil {
				l.Debug().Err(err).Msg("OpenTelemetry SDK")
			}
		}))
	})
}

// sampler builds OTEL_TRACES_SAMPLER's sampler.
func sampler(name, arg string) (sdktrace.Sampler, error) {
	ratio := 1.0
	if arg != "" {
		r, err := strconv.ParseFloat(arg, 64)
		if err != nil || !(r >= 0 && r <= 1) { // NaN is neither
			return nil, fmt.Errorf("OTEL_TRACES_SAMPLER_ARG=%q: want a ratio from 0 to 1", arg)
		}
		ratio = r
	}
	switch strings.ToLower(name) {
	case "", "parentbased_always_on":
		return sdktrace.ParentBased(sdktrace.AlwaysSample()), nil
	case "always_on":
		return sdktrace.AlwaysSample(), nil
	case "always_off":
		return sdktrace.NeverSample(), nil
	case "traceidratio":
		return sdktrace.TraceIDRatioBased(ratio), nil
	case "parentbased_always_off":
		return sdktrace.ParentBased(sdktrace.NeverSample()), nil
	case "parentbased_traceidratio":
		return sdktrace.ParentBased(sdktrace.TraceIDRatioBased(ratio)), nil
	}
	return nil, fmt.Errorf("OTEL_TRACES_SAMPLER=%q: want always_on, always_off, traceidratio, parentbased_always_on, parentbased_always_off or parentbased_traceidratio", name)
}

// buildResource is service.name (OTEL_SERVICE_NAME, else the one in
// OTEL_RESOURCE_ATTRIBUTES, else mcp-bridge), service.version,
// service.instance.id (new for each process), host.name, the SDK's
// telemetry.sdk.*, and OTEL_RESOURCE_ATTRIBUTES.
func buildResource(cfg Config, opt Options) (*resource.Resource, error) {
	kv := map[string]string{
		"service.name":           "mcp-bridge",
		"telemetry.sdk.name":     "opentelemetry",
		"telemetry.sdk.language": "go",
		"telemetry.sdk.version":  sdk.Version(),
	}
	if opt.Version != "" {
		kv["service.version"] = opt.Version
	}
	var id [16]byte
	_, _ = rand.Read(id[:])
	id[6], id[8] = id[6]&0x0f|0x40, id[8]&0x3f|0x80 // a version 4 UUID
	h := hex.EncodeToString(id[:])
	kv["service.instance.id"] = h[:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:]
	hostname := opt.Hostname
	if hostname == nil {
		hostname = os.Hostname
	}
	if n, err := hostname(); err == nil && n != "" {
		kv["host.name"] = n
	}
	extra, err := parseResource(cfg.ResourceAttributes)
	if err != nil {
		return nil, fmt.Errorf("OTEL_RESOURCE_ATTRIBUTES: %w", err)
	}
	for _, e := range extra {
		kv[e[0]] = e[1]
	}
	if cfg.ServiceName != "" {
		kv["service.name"] = cfg.ServiceName
	}
	attrs := make([]attribute.KeyValue, 0, len(kv))
	for k, v := range kv {
		attrs = append(attrs, attribute.String(k, cut.Bytes(v, 1024)))
	}
	return resource.NewSchemaless(attrs...), nil
}

// Enabled reports whether t makes anything: the core can skip preparing
// what only telemetry reads.
func (t *Telemetry) Enabled() bool { return t != nil }

// Shutdown sends what is still buffered and stops the exporters'
// goroutines; ctx bounds the wait. Call it once, at exit.
func (t *Telemetry) Shutdown(ctx context.Context) error {
	if t == nil {
		return nil
	}
	var errs []error
	if t.tp != nil {
		errs = append(errs, t.tp.Shutdown(ctx))
	}
	if t.mp != nil {
		errs = append(errs, t.mp.Shutdown(ctx))
	}
	return errors.Join(errs...)
}

// ToolsListed takes the base's tools/list result after each good list:
// its names become the tool-name attribute values (each other name is
// Other), and the time since it is mcp_bridge.cad.tools_list.age.
func (t *Telemetry) ToolsListed(result []byte) {
	if t == nil {
		return
	}
	t.tools.listed(result)
	t.lastList.Store(time.Now().UnixNano())
}

// MetricsHandler returns the /metrics handler (Prometheus text format), or
// nil when metrics are not served (telemetry off, or neither --metrics nor
// --metrics-listen). It answers GET and HEAD only; the core mounts it
// behind the same Origin, Host and token checks as /mcp.
func (t *Telemetry) MetricsHandler() http.Handler {
	if t == nil || t.manual == nil {
		return nil
	}
	return http.HandlerFunc(t.serveMetrics)
}

func (t *Telemetry) serveMetrics(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Cache-Control", "no-store")
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	var buf bytes.Buffer
	t.scrapeMu.Lock()
	var rm metricdata.ResourceMetrics
	err := t.manual.Collect(r.Context(), &rm)
	if err == nil {
		err = prom.Write(&buf, &rm)
	}
	t.scrapeMu.Unlock()
	if err != nil {
		http.Error(w, "collecting metrics failed: "+err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", prom.ContentType)
	w.Header().Set("X-Content-Type-Options", "nosniff")
	_, _ = w.Write(buf.Bytes())
}

// ServeMetrics serves h at /metrics alone on ln (--metrics-listen) until
// ctx is done, with every limit of an http.Server set; any other path is
// 404. It closes ln. Bind it where only the scraper reaches it, or wrap h
// in the caller's token check: nothing else guards it.
func ServeMetrics(ctx context.Context, ln net.Listener, h http.Handler, l zerolog.Logger) error {
	mux := http.NewServeMux()
	mux.Handle("/metrics", h)
	srv := &http.Server{
		Handler:           mux,
		ReadHeaderTimeout: 5 * time.Second,
		ReadTimeout:       10 * time.Second,
		WriteTimeout:      30 * time.Second,
		IdleTimeout:       2 * time.Minute,
		MaxHeaderBytes:    16 << 10,
		ErrorLog:          log.New(zerologWriter{l}, "", 0),
	}
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
	}
	shutCtx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = srv.Shutdown(shutCtx)
	<-done
	return nil
}

// zerologWriter takes what net/http reports into the bridge's log.
type zerologWriter struct{ l zerolog.Logger }

func (z zerologWriter) Write(p []byte) (int, error) {
	z.l.Debug().Str("from", "net/http").Msg(strings.TrimSpace(string(p)))
	return len(p), nil
}
