package bridge

import (
	"errors"
	"io"
	"runtime/debug"
	"time"

	"github.com/mcp-bridge/mcp-bridge/bridge/guard"
	"github.com/mcp-bridge/mcp-bridge/bridge/telemetry"
	"github.com/mcp-bridge/mcp-bridge/lifecycle"
	"github.com/mcp-bridge/mcp-bridge/lifecycle/clienterr"
	"github.com/mcp-bridge/mcp-bridge/rpc"
)

// read is the stdio front end's reader goroutine: it reads stdin line by
// line and dispatches each line for the stdio client c, until stdin ends or
// the bridge stops.
//
// It is the only reader of stdin, so the order of lines is the order the
// client sent them in; dispatch never blocks, so a ping or a cancel sent
// behind a long tools/call is read and answered while CAD works.
func (b *bridge) read(c *Client, stdin io.Reader) {
	lr := rpc.NewLineReader(stdin, b.cfg.MaxMessage)
	// Once the bridge drops its queue (a signal, or stdout gone), a line
	// read now could only be refused: stop reading.
	for !b.dropping.Load() {
		line, err := lr.Next()
		var oe *rpc.OversizeError
		switch {
		case errors.As(err, &oe):
			// The line was skipped unparsed, so nothing says its id: the
			// error goes without one (never null), and the reader goes on
			// with the next line rather than giving up the client.
			b.log.Warn().Int("bytes", oe.Size).Int("limit", oe.Limit).Msg("input line over the size limit discarded")
			c.newReply(rpc.ID{}, "", nil).fail(clienterr.TooLong.New(oe.Size, oe.Limit))
		case err == io.EOF:
			// The client closed stdin: the normal end. Run sees the reader
			// done and finishes what was accepted (shutdown, exitEOF).
			return
		case err != nil:
			if !b.queue.isClosed() { // else Run closed stdin itself
				b.log.Error().Err(err).Msg("reading stdin failed")
			}
			return
		default:
			b.dispatchLine(c, line)
		}
	}
}

// Message is one message from a client as the core carries it: the
// framing's verdict and, for a request or a notification, its value
// (lifecycle.ReadRequest), read once when the line or body was decoded,
// with what the user's policy says of it. Every front end decodes with
// decode and hands these to dispatch; nothing after reads the params again.
type Message struct {
	rpc.Decoded
	Req *lifecycle.Request // nil for a response or an invalid message
	// LinkTraceparent and LinkTracestate are the trace context headers of
	// the HTTP request that carried the message, if any: telemetry links
	// the request's span to them (the transport's context, not its parent).
	LinkTraceparent, LinkTracestate string
	// Headers are the HTTP headers of the 2026-07-28 Streamable HTTP POST
	// that carried the message (net/http's http.Header), nil for any other:
	// a tools/call's Mcp-Param-* headers must say what its arguments say
	// (mirrored.go).
	Headers map[string][]string
	// confirm: a tools/call the policy says needs the user's confirmation.
	confirm bool
}

// decode decodes one line (or HTTP body) of client messages. It is the
// only place a client's bytes become values: the params are read here, by
// exact keys (lifecycle.ReadRequest), and every later step, the rules and
// the frame sent to the base included, reads that value, so that what is
// checked is what is sent.
func (b *bridge) decode(line []byte) (msgs []Message, isBatch bool) {
	ds, isBatch := rpc.DecodeLine(line)
	msgs = make([]Message, len(ds))
	for i, d := range ds {
		m := &msgs[i]
		m.Decoded = d
		switch x := d.Msg.(type) {
		case *rpc.Request:
			m.Req = lifecycle.ReadRequest(x.ID, x.Method, x.Params)
		case *rpc.Notification:
			m.Req = lifecycle.ReadRequest(rpc.ID{}, x.Method, x.Params)
		default:
			continue
		}
		if m.Req.Method == lifecycle.MethodToolsCall && m.Req.ParamsErr == nil {
			m.confirm = b.gate.NeedsConfirm(m.Req.Tool.Name)
		}
	}
	return msgs, isBatch
}

// dispatchLine decodes one line from client c and dispatches each message
// in it; the answers to a batch go back as one array.
//
// Dispatch is the reader's side of the contract between the two
// goroutines. Like a go-sdk jsonrpc2 Preempter, it must not block: for each
// message it either answers at once (the protocol the bridge speaks itself,
// errors, a full or closed queue) or hands a job to the worker without
// waiting, so that ping and cancellation stay responsive while CAD works.
// Any front end may call it, for any client.
func (b *bridge) dispatchLine(c *Client, line []byte) {
	msgs, isBatch := b.decode(line)
	b.dispatchAll(c, c.out, msgs, isBatch)
}

// dispatchAll dispatches decoded messages with the answers (and the
// notifications about the requests) going to out: the client's stream, or
// an HTTP front end's response.
func (b *bridge) dispatchAll(c *Client, out Stream, msgs []Message, isBatch bool) {
	var bt *batch
	if isBatch {
		bt = newBatch(out, c.max)
		// The reader's own hold: without it a batch whose first request is
		// answered at once (a ping) would be written before its second was
		// dispatched, and the rest of the answers would have no array.
		defer bt.release()
	}
	for i := range msgs {
		b.dispatch(c, out, &msgs[i], bt)
	}
}

// testHookHandle, when set by a test, runs first in dispatch: a way to make
// the reader panic on purpose.
var testHookHandle func(rpc.Decoded)

// dispatch handles one message from client c; its answer goes to out.
//
// The reply is made first, before anything that could fail: from then on
// whatever happens (an error, a panic caught below, the worker's answer)
// ends that one reply, so a request is answered exactly once and a
// notification never.
func (b *bridge) dispatch(c *Client, out Stream, m *Message, bt *batch) {
	var r *reply // the answer this message is owed, if any
	switch {
	case m.Req != nil && !m.Req.IsNotification():
		r = c.newReply(m.Req.ID, m.Req.Method, bt)
		r.req = m.Req
		if op := b.startOp(c, m); op != nil {
			r.tel = &replyTel{op: op}
		}
	case m.Msg == nil:
		// Not a message at all: still owed an error, with its id when the
		// framing could read one, so the client can tell which request
		// failed.
		r = c.newReply(m.ID, "", bt)
	}
	if r != nil && out != c.out {
		// An HTTP POST's answers go on that POST's response, not on the
		// client's standing stream.
		r.out = out
	}
	// One bad message must not take the bridge down: a panic here is
	// logged, answered as an internal error, and the reader goes on.
	defer func() {
		if p := recover(); p != nil {
			b.log.Error().Interface("panic", p).Str("stack", string(debug.Stack())).Msg("panic while handling a message; the bridge goes on")
			if r != nil {
				r.fail(clienterr.Internal.New("handling", r.method))
			}
		}
	}()
	if testHookHandle != nil {
		testHookHandle(m.Decoded)
	}
	if m.Err != nil {
		b.log.Debug().Str("error", m.Err.Message).Msg("invalid message")
		r.fail(m.Err)
		return
	}
	if bt != nil && m.Req != nil && m.Req.Era == lifecycle.Modern {
		// 2026-07-28 has no batches: none of its messages runs from one,
		// where none of its transport's rules (the HTTP headers checked
		// against the body) were applied.
		b.log.Debug().Str("method", m.Req.Method).Msg("a 2026-07-28 message in a batch refused")
		if r != nil {
			r.fail(clienterr.ModernInBatch.New())
		}
		return
	}
	switch {
	case m.Req == nil:
		if resp, ok := m.Msg.(*rpc.Response); ok {
			b.clientResponse(c, resp)
		}
	case m.Req.IsNotification():
		b.notification(c, m)
	default:
		b.request(c, m, r)
	}
}

// clientResponse is where every response from a client arrives. The only
// requests the bridge sends clients are its confirmation questions
// (elicitation/create); any other response is not due.
func (b *bridge) clientResponse(c *Client, m *rpc.Response) {
	if !c.asker.answered(m) {
		b.log.Debug().Str("id", m.ID.String()).Msg("ignoring a response from the client")
	}
}

// notification handles a notification from client c. It is never
// answered, not even with an error (JSON-RPC: the client expects nothing
// back); only notifications/cancelled changes anything.
func (b *bridge) notification(c *Client, m *Message) {
	n := m.Req
	if b.cfg.Telemetry != nil {
		b.startOp(c, m).End(telemetry.Result{}) // handled at once
	}
	switch n.Method {
	case lifecycle.MethodCancelled:
		if !n.Cancels.IsZero() {
			c.Cancel(n.Cancels)
		}
	case lifecycle.MethodInitialized:
		b.log.Debug().Msg("client initialized")
	default:
		b.log.Debug().Str("method", n.Method).Msg("notification ignored")
	}
}

// request answers a request at once, or queues it for the base, as the
// method table says (lifecycle.Method). Every refusal here happens before
// the queue, so a request refused by a check was never sent to CAD.
func (b *bridge) request(c *Client, m *Message, r *reply) {
	req := m.Req
	if c.inUse(r) {
		// As x/tools jsonrpc2_v2 acceptRequest does: the first keeps its id.
		// Ids name requests to cancel and answers to match; two live
		// requests under one id would make both ambiguous.
		r.fail(errIDInUse(req.ID))
		return
	}
	method := req.Info
	if req.Era == lifecycle.Modern && req.EraErr != nil && (method == nil || !method.NoEraCheck) {
		r.fail(req.EraErr)
		return
	}
	if !method.In(req.Era) || method.Notification {
		r.fail(clienterr.MethodNotFound.New(req.Method))
		return
	}
	if req.ParamsErr != nil {
		r.fail(req.ParamsErr)
		return
	}
	if method.By == lifecycle.ByWorker {
		// The journal measures a call from here: the time it waited in the
		// queue (or for the user) is part of what the client waited.
		r.arrived = time.Now()
		j := &job{req: req, frame: baseFrame(req), reply: r, rule: guard.Call{NeedsConfirm: m.confirm}}
		if req.Method == lifecycle.MethodToolsCall && (b.waitTool(c, j) || !b.mirrored(j, m.Headers) || b.joined(c, j) || !b.admitCall(c, j)) {
			return
		}
		b.enqueue(j)
		return
	}
	switch req.Method {
	case lifecycle.MethodInitialize:
		res, werr := b.cfg.Server.Initialize(req)
		if werr != nil {
			r.fail(werr)
			return
		}
		c.initialized.Store(true)
		c.setVersion(res)
		c.fitAs(req.ClientInfo.Name)
		c.asker.initialized(req, c.LegacyVersion())
		r.result(res)
	case lifecycle.MethodPing:
		// Answered by the bridge itself, never by the base: a ping must
		// say the bridge is alive even while CAD is busy or down.
		r.result([]byte(`{}`))
	case lifecycle.MethodDiscover:
		r.result(b.cfg.Server.Discover())
	case lifecycle.MethodListen:
		b.listen(c, req, r)
	}
}

// enqueue hands a job to the worker, or answers at once when the queue is
// full or closed, so that memory stays bounded and ping stays responsive.
// The job is tracked first, so that the client can cancel it.
func (b *bridge) enqueue(j *job) {
	r := j.reply
	// A child of hardCtx: the bridge's abort at shutdown ends every
	// request's context, queued or running, with one cancel.
	r.withContext(b.hardCtx)
	r.askedDesktop = j.rule.AskedBy == AskDesktop
	// Asking: the worker takes it once the user has agreed.
	if werr := r.client.track(r, j.rule.Ask); werr != nil {
		r.fail(werr)
		return
	}
	out, err := b.queue.push(j) // marks it queued for telemetry when taken
	switch err {
	case nil:
		b.armQueued(j) // answered with a job if still queued when due (jobs.go)
		if j.rule.Ask {
			if j.rule.AskedBy == AskDesktop {
				j.askAfter, j.askDone = r.client.turn.nextAsk()
			}
			go b.runQuestion(j)
		}
		if out != nil { // a client that filled the queue makes room for another
			b.queueFull(out.reply, "request taken out of the full queue to make room for another client's")
		}
	case errQueueClosed:
		r.fail(clienterr.ShuttingDown.New(r.method))
	default:
		b.queueFull(r, "request refused: too many requests queued")
	}
}

// queueFull refuses a request, unsent, because the queue is full. The
// client hears at once (-32603 with the queue's size) instead of waiting
// behind work that may take minutes: it can retry, or tell its user.
func (b *bridge) queueFull(r *reply, why string) {
	b.log.Warn().Int("queue", b.cfg.Queue).Str("id", r.id.String()).Msg(why)
	r.fail(clienterr.QueueFull.New(b.cfg.Queue, r.method))
}
