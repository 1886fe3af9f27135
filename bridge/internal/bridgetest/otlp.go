package bridgetest

import (
	"encoding/hex"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"
	"testing"

	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/proto"
)

// OTLPReceiver is a trace collector for the tests: it decodes what it is
// sent with the official OTLP definitions (go.opentelemetry.io/proto/otlp;
// TracesData has ExportTraceServiceRequest's wire shape) and keeps the
// spans. URL is its /v1/traces.
type OTLPReceiver struct {
	URL   string
	mu    sync.Mutex
	spans []*tracepb.Span
}

// NewOTLPReceiver starts one; it is closed when the test ends.
func NewOTLPReceiver(t *testing.T) *OTLPReceiver {
	r := &OTLPReceiver{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		body, _ := io.ReadAll(req.Body)
		var d tracepb.TracesData
		if req.URL.Path != "/v1/traces" || req.Header.Get("Content-Type") != "application/x-protobuf" || proto.Unmarshal(body, &d) != nil {
			t.Errorf("the receiver got %s %s, not OTLP traces", req.URL.Path, req.Header.Get("Content-Type"))
			http.Error(w, "not traces", http.StatusBadRequest)
			return
		}
		r.mu.Lock()
		for _, rs := range d.ResourceSpans {
			for _, ss := range rs.ScopeSpans {
				r.spans = append(r.spans, ss.Spans...)
			}
		}
		r.mu.Unlock()
	}))
	t.Cleanup(srv.Close)
	r.URL = srv.URL + "/v1/traces"
	return r
}

// Spans is every span received so far.
func (r *OTLPReceiver) Spans() []*tracepb.Span {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]*tracepb.Span(nil), r.spans...)
}

// Attr is a span's attribute as text ("" when it has none of that key).
func Attr(s *tracepb.Span, key string) string {
	for _, kv := range s.Attributes {
		if kv.Key == key {
			switch v := kv.Value.GetValue().(type) {
			case *commonpb.AnyValue_StringValue:
				return v.StringValue
			case *commonpb.AnyValue_IntValue:
				return strconv.FormatInt(v.IntValue, 10)
			}
		}
	}
	return ""
}

// Hex is an id as the W3C traceparent writes it.
func Hex(id []byte) string { return hex.EncodeToString(id) }
