package otlp

import (
	"bytes"
	"compress/gzip"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/rs/zerolog"
)

// collector is a test OTLP/HTTP receiver: it records each request and
// answers with the statuses it is given, then 200.
type collector struct {
	mu       sync.Mutex
	bodies   [][]byte
	headers  []http.Header
	statuses []int
	retry    string // Retry-After sent with a non-200 answer
}

func (c *collector) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	if r.Header.Get("Content-Encoding") == "gzip" {
		zr, err := gzip.NewReader(bytes.NewReader(body))
		if err == nil {
			body, _ = io.ReadAll(zr)
		}
	}
	c.mu.Lock()
	c.bodies = append(c.bodies, body)
	c.headers = append(c.headers, r.Header.Clone())
	status := 200
	if len(c.statuses) > 0 {
		status, c.statuses = c.statuses[0], c.statuses[1:]
	}
	c.mu.Unlock()
	if status != 200 && c.retry != "" {
		w.Header().Set("Retry-After", c.retry)
	}
	w.WriteHeader(status)
}

func (c *collector) count() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.bodies)
}

func TestSendHeadersAndGzip(t *testing.T) {
	col := &collector{}
	srv := httptest.NewServer(col)
	defer srv.Close()
	c := &Client{URL: srv.URL + "/v1/traces", Headers: map[string]string{"Authorization": "Api-Token secret"}, Gzip: true, UserAgent: "mcp-bridge/test", Signal: "traces"}
	if err := c.Send(context.Background(), []byte("payload")); err != nil {
		t.Fatal(err)
	}
	h := col.headers[0]
	for k, want := range map[string]string{"Authorization": "Api-Token secret", "Content-Type": "application/x-protobuf", "Content-Encoding": "gzip", "User-Agent": "mcp-bridge/test"} {
		if got := h.Get(k); got != want {
			t.Errorf("%s: %q, want %q", k, got, want)
		}
	}
	if string(col.bodies[0]) != "payload" {
		t.Errorf("body %q", col.bodies[0])
	}
}

func TestSendRetriesWhileBusyOnly(t *testing.T) {
	for _, c := range []struct {
		statuses []int
		requests int
		ok       bool
	}{
		{[]int{503}, 2, true},
		{[]int{429, 502, 504}, 4, true},
		{[]int{400}, 1, false},
		{[]int{401}, 1, false},
		{[]int{500}, 1, false},
	} {
		col := &collector{statuses: c.statuses}
		srv := httptest.NewServer(col)
		cl := &Client{URL: srv.URL, Signal: "traces", Timeout: time.Minute, firstWait: time.Millisecond}
		err := cl.Send(context.Background(), []byte("x"))
		srv.Close()
		if (err == nil) != c.ok || col.count() != c.requests {
			t.Errorf("answers %v: err %v after %d requests; want ok=%v after %d", c.statuses, err, col.count(), c.ok, c.requests)
		}
	}
}

// TestSendBacksOff: the pauses between tries while the collector is
// busy: 500 ms, doubling to 5 s at most; its Retry-After (at most a
// minute) instead when it sends one. A busy collector is asked five times
// in 8 s, not sixteen. The pauses are read from Send, not timed.
func TestSendBacksOff(t *testing.T) {
	s := time.Second
	for _, c := range []struct {
		retry string
		want  []time.Duration
	}{
		{"", []time.Duration{s / 2, s, 2 * s, 4 * s, 5 * s, 5 * s, 5 * s}},
		{"3", []time.Duration{3 * s, 3 * s, 3 * s, 3 * s, 3 * s, 3 * s, 3 * s}},
		{"3600", []time.Duration{time.Minute, time.Minute, time.Minute, time.Minute, time.Minute, time.Minute, time.Minute}},
		{"0", []time.Duration{s / 2, s, 2 * s, 4 * s, 5 * s, 5 * s, 5 * s}},
	} {
		col := &collector{statuses: []int{503, 429, 502, 504, 503, 503, 503}, retry: c.retry}
		srv := httptest.NewServer(col)
		var got []time.Duration
		cl := &Client{URL: srv.URL, Signal: "traces", Timeout: time.Hour, pause: func(ctx context.Context, d time.Duration) bool {
			got = append(got, d)
			return ctx.Err() == nil
		}}
		err := cl.Send(context.Background(), []byte("x"))
		srv.Close()
		if err != nil || col.count() != 8 {
			t.Errorf("Retry-After %q: %v after %d requests; want delivered at the 8th", c.retry, err, col.count())
		}
		if diff := cmp.Diff(c.want, got); diff != "" {
			t.Errorf("Retry-After %q: pauses (-want +got):\n%s", c.retry, diff)
		}
	}
}

func TestSendGivesUpAtItsTimeout(t *testing.T) {
	col := &collector{statuses: []int{503, 503, 503, 503, 503, 503, 503, 503, 503, 503}, retry: "3600"}
	srv := httptest.NewServer(col)
	defer srv.Close()
	cl := &Client{URL: srv.URL, Signal: "traces", Timeout: 300 * time.Millisecond}
	if err := cl.Send(context.Background(), []byte("x")); err == nil {
		t.Fatal("a collector busy for an hour: Send succeeded")
	}
	if col.count() != 1 {
		t.Errorf("%d requests: Retry-After past the timeout must not be waited for", col.count())
	}
}

func TestSendFollowsNoRedirect(t *testing.T) {
	elsewhere := &collector{}
	other := httptest.NewServer(elsewhere)
	defer other.Close()
	srv := httptest.NewServer(http.RedirectHandler(other.URL, http.StatusTemporaryRedirect))
	defer srv.Close()
	cl := &Client{URL: srv.URL, Headers: map[string]string{"Authorization": "key"}, Signal: "traces"}
	if err := cl.Send(context.Background(), []byte("x")); err == nil {
		t.Error("a redirect counted as delivered")
	}
	if elsewhere.count() != 0 {
		t.Error("the redirect was followed: the headers (keys) went to another server")
	}
}

// An outage is logged once as a warning, with the URL's password hidden
// and no header value; the recovery once.
func TestSendLogsAnOutageOnce(t *testing.T) {
	col := &collector{statuses: []int{400, 400}}
	srv := httptest.NewServer(col)
	defer srv.Close()
	var logBuf bytes.Buffer
	u := strings.Replace(srv.URL, "http://", "http://user:pa55word@", 1)
	cl := &Client{URL: u, Headers: map[string]string{"X-Key": "hunter2"}, Signal: "metrics", Log: zerolog.New(&logBuf).Level(zerolog.DebugLevel)}
	for range 3 {
		_ = cl.Send(context.Background(), []byte("x"))
	}
	lines := strings.Split(strings.TrimSpace(logBuf.String()), "\n")
	var levels []string
	for _, l := range lines {
		switch {
		case strings.Contains(l, `"level":"warn"`):
			levels = append(levels, "warn")
		case strings.Contains(l, `"level":"debug"`):
			levels = append(levels, "debug")
		case strings.Contains(l, `"level":"info"`):
			levels = append(levels, "info")
		}
	}
	if strings.Join(levels, ",") != "warn,debug,info" {
		t.Errorf("log levels %v, want warn,debug,info:\n%s", levels, logBuf.String())
	}
	if strings.Contains(logBuf.String(), "pa55word") || strings.Contains(logBuf.String(), "hunter2") {
		t.Errorf("a secret reached the log:\n%s", logBuf.String())
	}
}
