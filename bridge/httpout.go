package bridge

import (
	"bytes"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/mcp-bridge/mcp-bridge/rpc"
)

// httpOut is where the messages for one HTTP response go: the answer to a
// POST, or a GET or subscriptions/listen stream. It is the core's stream
// for that response: each message becomes the JSON body or one SSE event.
//
// A JSON response carries exactly the first response (or batch array):
// notifications cannot travel in it and are dropped (the handler picks SSE
// whenever some are expected). An SSE response carries every message; the
// response is its last event. Once closed, by the handler or at the final
// answer, nothing more is written.
type httpOut struct {
	w            http.ResponseWriter
	rc           *http.ResponseController
	sse          bool
	writeTimeout time.Duration
	header       func(h http.Header) // extra headers, set before the first byte (Mcp-Session-Id)

	mu      sync.Mutex
	started bool
	closed  bool
	failed  bool // a write to the client failed: it is gone
	final   chan struct{}

	abandonOnce sync.Once
	abandoned   chan struct{} // the client cancelled the request: no answer comes
}

func newHTTPOut(w http.ResponseWriter, sse bool, writeTimeout time.Duration) *httpOut {
	return &httpOut{w: w, rc: http.NewResponseController(w), sse: sse, writeTimeout: writeTimeout,
		final: make(chan struct{}), abandoned: make(chan struct{})}
}

// notificationPrefix starts every encoded notification; anything else is
// a response.
var notificationPrefix = []byte(`{"jsonrpc":"2.0","method":`)

// Write takes one message. It never fails: a client that went away is not
// the core's concern (the handler sees it through the request context).
func (o *httpOut) Write(m rpc.Encoded) error {
	o.mu.Lock()
	defer o.mu.Unlock()
	if !o.closed {
		o.deliver(m.AppendTo(make([]byte, 0, m.Len())))
	}
	return nil
}

// WriteBatch takes the answer to a batch: one array.
func (o *httpOut) WriteBatch(ms []rpc.Encoded) error {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.closed {
		return nil
	}
	b := []byte{'['}
	for i, m := range ms {
		if i > 0 {
			b = append(b, ',')
		}
		b = m.AppendTo(b)
	}
	o.deliver(append(b, ']'))
	return nil
}

// deliver writes one line; o.mu is held.
func (o *httpOut) deliver(line []byte) {
	// Neither a notification nor the bridge's confirmation question
	// (rules.go) is the answer that ends the response.
	isFinal := !bytes.HasPrefix(line, notificationPrefix) && !bytes.HasPrefix(line, questionPrefix)
	if !o.sse {
		if !isFinal {
			return
		}
		// A length, not chunks: the client has the whole answer with the
		// first flush, and the connection is ready for its next request.
		o.w.Header().Set("Content-Length", strconv.Itoa(len(line)))
		o.start("application/json")
		o.write(line)
		o.finish()
		return
	}
	o.start("text/event-stream")
	buf := make([]byte, 0, len(line)+24)
	buf = append(buf, "event: message\ndata: "...)
	buf = append(buf, line...)
	buf = append(buf, "\n\n"...)
	o.write(buf)
	if isFinal {
		o.finish()
	}
}

// start sends the status line and headers once; o.mu is held.
func (o *httpOut) start(contentType string) {
	if o.started {
		return
	}
	o.started = true
	h := o.w.Header()
	h.Set("Content-Type", contentType)
	if contentType == "text/event-stream" {
		h.Set("Cache-Control", "no-cache")
		h.Set("X-Accel-Buffering", "no")
	}
	if o.header != nil {
		o.header(h)
	}
	o.w.WriteHeader(http.StatusOK)
}

// write sends bytes and flushes them, each write with its own deadline so
// that long streams are not cut by the server's write timeout; o.mu is held.
func (o *httpOut) write(b []byte) {
	if o.failed {
		return
	}
	_ = o.rc.SetWriteDeadline(time.Now().Add(o.writeTimeout))
	if _, err := o.w.Write(b); err != nil {
		o.failed = true
		return
	}
	if err := o.rc.Flush(); err != nil {
		o.failed = true
	}
}

func (o *httpOut) finish() {
	if !o.closed {
		o.closed = true
		close(o.final)
	}
}

// openStream sends the SSE headers now, for a stream that may stay quiet
// for a while (a GET stream).
func (o *httpOut) openStream() {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.start("text/event-stream")
	o.write(nil)
}

// keepAlive writes an SSE comment, so that proxies and clients with idle
// timeouts keep a quiet stream open. It reports false when the client is
// gone.
func (o *httpOut) keepAlive() bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.closed || !o.sse || !o.started {
		return !o.failed
	}
	o.write([]byte(":\n\n"))
	return !o.failed
}

// close makes every later write a no-op; it reports whether the final
// answer had been written.
func (o *httpOut) close() bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	select {
	case <-o.final:
		return true
	default:
	}
	o.closed = true
	return false
}

// abandon says that no answer will come: the client cancelled the request
// (notifications/cancelled, in another POST).
func (o *httpOut) abandon() { o.abandonOnce.Do(func() { close(o.abandoned) }) }

// isStarted reports whether any byte of the response was sent.
func (o *httpOut) isStarted() bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.started
}
