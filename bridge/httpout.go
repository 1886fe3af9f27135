package bridge

import (
	"bytes"
	"net/http"
	"sync"
	"time"
)

// httpOut is where the messages for one HTTP response go: the answer to a
// POST, or a GET or subscriptions/listen stream. The core writes to it
// through an *rpc.Writer, one line per message (a large payload may come in
// pieces, never with a newline inside); httpOut frames each line as the
// JSON body or as one SSE event.
//
// A JSON response carries exactly the first response line: notifications
// cannot travel in it and are dropped (the handler picks SSE whenever some
// are expected). An SSE response carries every line; the response (or
// batch array) is its last event. Once closed, by the handler or at the
// final answer, nothing more is written.
type httpOut struct {
	w            http.ResponseWriter
	rc           *http.ResponseController
	sse          bool
	writeTimeout time.Duration
	header       func(h http.Header) // extra headers, set before the first byte (Mcp-Session-Id)

	mu      sync.Mutex
	partial []byte
	started bool
	closed  bool
	failed  bool // a write to the client failed: it is gone
	final   chan struct{}
}

func newHTTPOut(w http.ResponseWriter, sse bool, writeTimeout time.Duration) *httpOut {
	return &httpOut{w: w, rc: http.NewResponseController(w), sse: sse, writeTimeout: writeTimeout, final: make(chan struct{})}
}

// notificationPrefix starts every notification rpc.Writer writes; anything
// else it writes is a response or a batch array.
var notificationPrefix = []byte(`{"jsonrpc":"2.0","method":`)

// Write takes bytes from an rpc.Writer. It never fails: a client that went
// away is not the core's concern (the handler sees it through the request
// context).
func (o *httpOut) Write(p []byte) (int, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.closed {
		return len(p), nil
	}
	o.partial = append(o.partial, p...)
	for !o.closed {
		i := bytes.IndexByte(o.partial, '\n')
		if i < 0 {
			break
		}
		line := o.partial[:i]
		o.deliver(line)
		o.partial = o.partial[i+1:]
	}
	if len(o.partial) == 0 {
		o.partial = nil // do not keep a large buffer
	}
	return len(p), nil
}

// deliver writes one line; o.mu is held.
func (o *httpOut) deliver(line []byte) {
	isFinal := !bytes.HasPrefix(line, notificationPrefix)
	if !o.sse {
		if !isFinal {
			return
		}
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

// isStarted reports whether any byte of the response was sent.
func (o *httpOut) isStarted() bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.started
}
