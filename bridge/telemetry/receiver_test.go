package telemetry

import (
	"bytes"
	"compress/gzip"
	"encoding/hex"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	metricspb "go.opentelemetry.io/proto/otlp/metrics/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/proto"
)

// receiver is an OTLP/HTTP collector for the tests: it decodes what it
// is sent with the official definitions (TracesData and MetricsData have
// the Export*ServiceRequest messages' wire shape) and keeps it.
type receiver struct {
	t   *testing.T
	srv *httptest.Server

	mu      sync.Mutex
	spans   []*tracepb.Span
	res     []map[string]any // each request's resource attributes
	metrics []*metricspb.ResourceMetrics
	paths   []string
	arrived chan struct{} // a value after each request
}

func newReceiver(t *testing.T) *receiver {
	r := &receiver{t: t, arrived: make(chan struct{}, 1000)}
	r.srv = httptest.NewServer(r)
	t.Cleanup(r.srv.Close)
	return r
}

func (r *receiver) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	body, _ := io.ReadAll(req.Body)
	if req.Header.Get("Content-Encoding") == "gzip" {
		zr, err := gzip.NewReader(bytes.NewReader(body))
		if err != nil {
			http.Error(w, err.Error(), 400)
			return
		}
		body, _ = io.ReadAll(zr)
	}
	if req.Header.Get("Content-Type") != "application/x-protobuf" {
		http.Error(w, "content type", 415)
		return
	}
	r.mu.Lock()
	defer func() {
		r.mu.Unlock()
		r.arrived <- struct{}{}
	}()
	r.paths = append(r.paths, req.URL.Path)
	switch req.URL.Path {
	case "/v1/traces":
		var d tracepb.TracesData
		if err := proto.Unmarshal(body, &d); err != nil {
			r.t.Errorf("the official definitions refuse a traces request: %v", err)
			http.Error(w, err.Error(), 400)
			return
		}
		for _, rs := range d.ResourceSpans {
			r.res = append(r.res, kvs(rs.Resource.Attributes))
			for _, ss := range rs.ScopeSpans {
				r.spans = append(r.spans, ss.Spans...)
			}
		}
	case "/v1/metrics":
		var d metricspb.MetricsData
		if err := proto.Unmarshal(body, &d); err != nil {
			r.t.Errorf("the official definitions refuse a metrics request: %v", err)
			http.Error(w, err.Error(), 400)
			return
		}
		r.metrics = append(r.metrics, d.ResourceMetrics...)
	default:
		http.NotFound(w, req)
	}
}

func (r *receiver) allSpans() []*tracepb.Span {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]*tracepb.Span(nil), r.spans...)
}

// metric returns the last export's metric of that name, or nil.
func (r *receiver) metric(name string) *metricspb.Metric {
	r.mu.Lock()
	defer r.mu.Unlock()
	for i := len(r.metrics) - 1; i >= 0; i-- {
		for _, sm := range r.metrics[i].ScopeMetrics {
			for _, m := range sm.Metrics {
				if m.Name == name {
					return m
				}
			}
		}
	}
	return nil
}

func kvs(l []*commonpb.KeyValue) map[string]any {
	out := map[string]any{}
	for _, kv := range l {
		switch v := kv.Value.GetValue().(type) {
		case *commonpb.AnyValue_StringValue:
			out[kv.Key] = v.StringValue
		case *commonpb.AnyValue_IntValue:
			out[kv.Key] = v.IntValue
		case *commonpb.AnyValue_BoolValue:
			out[kv.Key] = v.BoolValue
		case *commonpb.AnyValue_DoubleValue:
			out[kv.Key] = v.DoubleValue
		}
	}
	return out
}

func hexID(b []byte) string { return hex.EncodeToString(b) }
