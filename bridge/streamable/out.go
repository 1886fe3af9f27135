package streamable

import (
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/rs/zerolog"

	"github.com/mcp-bridge/mcp-bridge/lifecycle/clienterr"
	"github.com/mcp-bridge/mcp-bridge/rpc"
)

// httpOut is where the messages for one HTTP response go: the answer to a
// POST, or a GET or subscriptions/listen stream. It is the core's stream
// for that response: each message becomes the JSON body or one SSE event.
//
// The core never writes to the client's connection: Write only hands the
// message over, and the response's own handler goroutine (wait) writes it.
// So a client that reads slowly, or not at all, delays nobody but itself,
// and the worker goes on to the next job at once. The hand-over is bounded:
// one answer (the response's last message) and at most maxPending
// notifications; past that a notification is dropped with a warning.
//
// A JSON response carries exactly the first answer (or batch array):
// notifications cannot travel in it and are dropped (the handler picks SSE
// whenever some are expected). An SSE response carries every message; the
// answer is its last event. Once the answer is handed over, or the response
// closed, later messages are dropped.
type httpOut struct {
	w            http.ResponseWriter
	rc           *http.ResponseController
	sse          bool
	writeTimeout time.Duration
	header       func(h http.Header) // extra headers, set before the first byte (Mcp-Session-Id)
	log          zerolog.Logger

	mu       sync.Mutex
	pending  []outMsg // handed over, not yet written
	notes    int      // notifications among pending
	answered bool     // the answer was handed over: nothing follows it
	closed   bool     // the handler is done with the response

	wake chan struct{} // a token while pending may hold messages
	gone chan struct{} // closed with the response: a question on it can no longer be answered

	abandonOnce sync.Once
	abandoned   chan struct{} // the client cancelled the request: no answer comes
	kickOnce    sync.Once
	kicked      chan struct{} // a GET stream ended to make room for a newer one

	// The handler's own, never touched by the core.
	started     bool
	wroteAnswer bool
	failed      bool // a write to the client failed: it is gone
}

// outMsg is one message handed over: a message, or a batch's array.
type outMsg struct {
	m      rpc.Encoded
	batch  []rpc.Encoded // non-nil: the answer to a batch
	answer bool          // the response's last message
}

func (o outMsg) len() int {
	if o.batch == nil {
		return o.m.Len()
	}
	n := 2 + max(len(o.batch)-1, 0)
	for _, m := range o.batch {
		n += m.Len()
	}
	return n
}

// maxPending bounds the notifications waiting for one response's writer.
const maxPending = 64

func newHTTPOut(w http.ResponseWriter, sse bool, writeTimeout time.Duration, log zerolog.Logger) *httpOut {
	return &httpOut{w: w, rc: http.NewResponseController(w), sse: sse, writeTimeout: writeTimeout, log: log,
		wake: make(chan struct{}, 1), gone: make(chan struct{}), abandoned: make(chan struct{}), kicked: make(chan struct{})}
}

// Write hands one message over. It never blocks and never fails: a client
// that went away is not the core's concern (the handler sees it through
// the request context).
func (o *httpOut) Write(m rpc.Encoded) error {
	o.hand(outMsg{m: m, answer: m.Kind() == rpc.KindResponse})
	return nil
}

// WriteBatch hands over the answer to a batch: one array.
func (o *httpOut) WriteBatch(ms []rpc.Encoded) error {
	o.hand(outMsg{batch: ms, answer: true})
	return nil
}

func (o *httpOut) hand(msg outMsg) {
	answer := msg.answer
	o.mu.Lock()
	defer o.mu.Unlock()
	switch {
	case o.closed || o.answered:
		if answer {
			o.log.Debug().Int("bytes", msg.len()).Msg("answer dropped: its HTTP response has ended")
		}
		return
	case !answer && !o.sse:
		return // a JSON response carries nothing but its answer
	case !answer && o.notes >= maxPending:
		o.log.Warn().Msg("notification dropped: the client is not reading its stream")
		return
	}
	if answer {
		o.answered = true
	} else {
		o.notes++
	}
	o.pending = append(o.pending, msg)
	select {
	case o.wake <- struct{}{}:
	default:
	}
}

// flush writes what was handed over; the handler calls it. It reports
// whether the answer has been written (or the client is gone), after which
// the response is complete.
func (o *httpOut) flush() (done bool) {
	o.mu.Lock()
	msgs := o.pending
	o.pending = nil
	o.notes = 0
	o.mu.Unlock()
	for _, msg := range msgs {
		o.writeMsg(msg)
		o.wroteAnswer = o.wroteAnswer || msg.answer
	}
	return o.failed || o.wroteAnswer
}

// writeMsg writes one message as the JSON body or one SSE event, with
// one write deadline for the whole message, so that a long stream is not
// cut by the server's write timeout.
func (o *httpOut) writeMsg(msg outMsg) {
	o.deadline()
	status := http.StatusOK
	if code, ok := msg.m.ErrorCode(); ok && code == clienterr.CodeHeaderMismatch && msg.answer && !o.started {
		// The headers did not say what the body says (the core's check of
		// Mcp-Param-*): 400, as the transport asks, and as JSON whatever
		// stream was planned for the answer.
		status = http.StatusBadRequest
		o.mu.Lock()
		o.sse = false // hand, under mu, reads it
		o.mu.Unlock()
	}
	if !o.sse {
		// A length, not chunks: the client has the whole answer with the
		// first flush, and the connection is ready for its next request.
		o.w.Header().Set("Content-Length", strconv.Itoa(msg.len()))
		o.startWith("application/json", status)
		o.writeBody(msg)
		o.flushWire()
		return
	}
	o.start("text/event-stream")
	o.write([]byte("event: message\ndata: "))
	o.writeBody(msg)
	o.write([]byte("\n\n"))
	o.flushWire()
}

// writeBody writes a message's bytes from where they lie: a 15 MiB answer
// is not copied to be sent (the response buffers the small pieces).
func (o *httpOut) writeBody(msg outMsg) {
	if msg.batch == nil {
		o.writeEncoded(msg.m)
		return
	}
	o.write([]byte{'['})
	for i, m := range msg.batch {
		if i > 0 {
			o.write([]byte{','})
		}
		o.writeEncoded(m)
	}
	o.write([]byte{']'})
}

func (o *httpOut) writeEncoded(m rpc.Encoded) {
	if o.failed {
		return
	}
	if _, err := m.WriteTo(o.w); err != nil {
		o.failed = true
	}
}

// start sends the status line (200) and headers once.
func (o *httpOut) start(contentType string) { o.startWith(contentType, http.StatusOK) }

func (o *httpOut) startWith(contentType string, status int) {
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
	o.w.WriteHeader(status)
}

// deadline gives the writes that follow, up to the next flush, their
// write timeout.
func (o *httpOut) deadline() {
	if !o.failed {
		_ = o.rc.SetWriteDeadline(time.Now().Add(o.writeTimeout))
	}
}

// write sends bytes, within the deadline set last.
func (o *httpOut) write(b []byte) {
	if o.failed || len(b) == 0 {
		return
	}
	if _, err := o.w.Write(b); err != nil {
		o.failed = true
	}
}

func (o *httpOut) flushWire() {
	if o.failed {
		return
	}
	if err := o.rc.Flush(); err != nil {
		o.failed = true
	}
}

// openStream sends the SSE headers now, for a stream that may stay quiet
// for a while (a GET stream).
func (o *httpOut) openStream() {
	o.deadline()
	o.start("text/event-stream")
	o.flushWire()
}

// keepAlive writes an SSE comment, so that proxies and clients with idle
// timeouts keep a quiet stream open, and a client can tell a long call
// from a dead remote. A JSON response not yet started becomes an SSE
// stream for it (the POST's Accept lists both; its answer then comes as
// the stream's event). It reports false when the client is gone.
func (o *httpOut) keepAlive() bool {
	if !o.started {
		o.mu.Lock()
		o.sse = true // hand, under mu, reads it
		o.mu.Unlock()
		o.start("text/event-stream")
	}
	o.deadline()
	o.write([]byte(":\n\n"))
	o.flushWire()
	return !o.failed
}

// close ends the hand-over: later messages are dropped, and so is what is
// still pending (the client is gone, or its session ended). It reports
// whether the answer had been handed over.
func (o *httpOut) close() bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	if !o.closed {
		o.closed = true
		close(o.gone)
	}
	if n := len(o.pending); n > 0 {
		o.log.Debug().Int("messages", n).Msg("messages dropped: their HTTP response has ended")
		o.pending = nil
	}
	return o.answered
}

// abandon says that no answer will come: the client cancelled the request
// (notifications/cancelled, in another POST).
func (o *httpOut) abandon() { o.abandonOnce.Do(func() { close(o.abandoned) }) }

// kick ends a GET stream to make room for a newer one (streamTable).
func (o *httpOut) kick() { o.kickOnce.Do(func() { close(o.kicked) }) }

// Ended is closed when the response has ended: a question asked on it
// can no longer be answered.
func (o *httpOut) Ended() <-chan struct{} { return o.gone }
