package otlp

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rs/zerolog"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
)

// Client posts OTLP/HTTP protobuf requests to one URL (a collector's
// /v1/traces or /v1/metrics).
type Client struct {
	URL       string
	Headers   map[string]string // OTEL_EXPORTER_OTLP_HEADERS: never logged (they hold keys)
	Gzip      bool              // OTEL_EXPORTER_OTLP_COMPRESSION=gzip
	Timeout   time.Duration     // each export, retries included; default 10 s
	UserAgent string
	Log       zerolog.Logger
	// Signal names what is sent ("traces", "metrics") in the log.
	Signal string

	// firstWait is the first pause before a retry, doubling to 5 s
	// (default 500 ms).
	firstWait time.Duration
	// pause waits d, or until ctx is done (false): a timer; tests read
	// the pauses from it instead of from a clock.
	pause func(ctx context.Context, d time.Duration) bool

	once    sync.Once
	http    *http.Client
	failing atomic.Bool // an outage is in progress: logged once at its start and end
}

// maxResponse bounds what is read of a collector's answer (its partial
// success message at most; nothing of it is used).
const maxResponse = 64 << 10

func (c *Client) init() {
	c.once.Do(func() {
		if c.Timeout <= 0 {
			c.Timeout = 10 * time.Second
		}
		if c.firstWait <= 0 {
			c.firstWait = 500 * time.Millisecond
		}
		if c.pause == nil {
			c.pause = sleep
		}
		c.http = &http.Client{
			Transport: &http.Transport{
				Proxy:                 http.ProxyFromEnvironment,
				DialContext:           (&net.Dialer{Timeout: 5 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
				MaxIdleConns:          2,
				MaxIdleConnsPerHost:   2,
				IdleConnTimeout:       90 * time.Second,
				TLSHandshakeTimeout:   5 * time.Second,
				ResponseHeaderTimeout: c.Timeout,
				ForceAttemptHTTP2:     true,
			},
			// A redirect would resend the headers (keys) to wherever it
			// points: a collector's URL is configured, not discovered.
			CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
		}
	})
}

// Send posts one request body, retrying while the collector says it is
// busy (429, 502, 503, 504, honouring Retry-After) or cannot be reached,
// until Timeout. The first failure of an outage is logged as a warning,
// the rest at debug level, and the recovery once.
func (c *Client) Send(ctx context.Context, body []byte) error {
	c.init()
	ctx, cancel := context.WithTimeout(ctx, c.Timeout)
	defer cancel()
	if c.Gzip {
		var buf bytes.Buffer
		zw := gzip.NewWriter(&buf)
		_, _ = zw.Write(body)
		_ = zw.Close()
		body = buf.Bytes()
	}
	wait := c.firstWait
	for {
		retry, after, err := c.post(ctx, body)
		if err == nil {
			if c.failing.CompareAndSwap(true, false) {
				c.Log.Info().Str("url", redacted(c.URL)).Msgf("OTLP export of %s works again", c.Signal)
			}
			return nil
		}
		if retry {
			if after > 0 {
				wait = after
			}
			if c.pause(ctx, wait) {
				wait = min(2*wait, 5*time.Second)
				continue
			}
		}
		ev := c.Log.Debug()
		if c.failing.CompareAndSwap(false, true) {
			ev = c.Log.Warn()
		}
		ev.Err(err).Str("url", redacted(c.URL)).Msgf("OTLP export of %s failed; the bridge goes on without it", c.Signal)
		return err
	}
}

// sleep waits d, or until ctx is done (false).
func sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}

// post sends once. retry says whether trying again may help; after is the
// collector's Retry-After.
func (c *Client) post(ctx context.Context, body []byte) (retry bool, after time.Duration, err error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.URL, bytes.NewReader(body))
	if err != nil {
		return false, 0, err
	}
	for k, v := range c.Headers {
		req.Header.Set(k, v)
	}
	req.Header.Set("Content-Type", "application/x-protobuf")
	if c.Gzip {
		req.Header.Set("Content-Encoding", "gzip")
	}
	if c.UserAgent != "" {
		req.Header.Set("User-Agent", c.UserAgent)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err // the URL is logged beside it, redacted
		}
		return ctx.Err() == nil, 0, err
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, maxResponse))
	resp.Body.Close()
	if resp.StatusCode >= 200 && resp.StatusCode < 300 {
		return false, 0, nil
	}
	switch resp.StatusCode {
	case http.StatusTooManyRequests, http.StatusBadGateway, http.StatusServiceUnavailable, http.StatusGatewayTimeout:
		if s, err := strconv.Atoi(resp.Header.Get("Retry-After")); err == nil && s > 0 {
			after = min(time.Duration(s)*time.Second, time.Minute)
		}
		return true, after, fmt.Errorf("collector answered %s", resp.Status)
	}
	return false, 0, fmt.Errorf("collector answered %s", resp.Status)
}

// redacted is u without its user information, query and fragment, for
// the log: a collector's key may be in any of them (a user name alone, as
// https://KEY@collector, or ?api_key=KEY), not only in a password.
func redacted(u string) string {
	p, err := url.Parse(u)
	if err != nil {
		return "(an invalid URL)"
	}
	if p.User != nil {
		p.User = url.User("xxxxx")
	}
	if p.RawQuery != "" || p.ForceQuery {
		p.RawQuery, p.ForceQuery = "xxxxx", false
	}
	p.Fragment, p.RawFragment = "", ""
	return p.String()
}

// SpanExporter sends the SDK's finished spans (sdktrace.SpanExporter).
type SpanExporter struct {
	Client  *Client
	stopped atomic.Bool
}

// ExportSpans implements sdktrace.SpanExporter.
func (e *SpanExporter) ExportSpans(ctx context.Context, spans []sdktrace.ReadOnlySpan) error {
	if e.stopped.Load() || len(spans) == 0 {
		return nil
	}
	return e.Client.Send(ctx, AppendTraces(nil, spans))
}

// Shutdown implements sdktrace.SpanExporter: later exports are dropped.
func (e *SpanExporter) Shutdown(context.Context) error {
	e.stopped.Store(true)
	return nil
}

// MetricExporter sends the SDK's metrics, cumulative (sdkmetric.Exporter).
type MetricExporter struct {
	Client  *Client
	stopped atomic.Bool
}

// Temporality implements sdkmetric.Exporter: cumulative, as Prometheus
// reads them too, so that both show the same numbers.
func (e *MetricExporter) Temporality(sdkmetric.InstrumentKind) metricdata.Temporality {
	return metricdata.CumulativeTemporality
}

// Aggregation implements sdkmetric.Exporter.
func (e *MetricExporter) Aggregation(k sdkmetric.InstrumentKind) sdkmetric.Aggregation {
	return sdkmetric.DefaultAggregationSelector(k)
}

// Export implements sdkmetric.Exporter.
func (e *MetricExporter) Export(ctx context.Context, rm *metricdata.ResourceMetrics) error {
	if e.stopped.Load() {
		return nil
	}
	return e.Client.Send(ctx, AppendMetrics(nil, rm))
}

// ForceFlush implements sdkmetric.Exporter: nothing is buffered here.
func (e *MetricExporter) ForceFlush(context.Context) error { return nil }

// Shutdown implements sdkmetric.Exporter.
func (e *MetricExporter) Shutdown(context.Context) error {
	e.stopped.Store(true)
	return nil
}
