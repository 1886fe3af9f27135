package bridge

import (
	"errors"
	"io"
	"runtime/debug"
	"time"

	"github.com/mcp-bridge/mcp-bridge/bridge/telemetry"
	"github.com/mcp-bridge/mcp-bridge/lifecycle"
	"github.com/mcp-bridge/mcp-bridge/lifecycle/clienterr"
	"github.com/mcp-bridge/mcp-bridge/rpc"
)

// read is the stdio front end's reader goroutine: it reads stdin line by
// line and dispatches each line for the stdio client c, until stdin ends or
// the bridge stops.
func (b *bridge) read(c *Client, stdin io.Reader) {
	lr := rpc.NewLineReader(stdin, b.cfg.MaxMessage)
	for !b.dropping.Load() {
		line, err := lr.Next()
		var oe *rpc.OversizeError
		switch {
		case errors.As(err, &oe):
			b.log.Warn().Int("bytes", oe.Size).Int("limit", oe.Limit).Msg("input line over the size limit discarded")
			c.newReply(rpc.ID{}, "", nil).fail(clienterr.TooLong.New(oe.Size, oe.Limit))
		case err == io.EOF:
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

// decode decodes one line (or HTTP body) of client messages.
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
			_, m.confirm = b.rules.policy.NeedsConfirm(m.Req.Tool.Name)
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
		defer bt.release() // the reader's own hold
	}
	for i := range msgs {
		b.dispatch(c, out, &msgs[i], bt)
	}
}

// testHookHandle, when set by a test, runs first in dispatch: a way to make
// the reader panic on purpose.
var testHookHandle func(rpc.Decoded)

// dispatch handles one message from client c; its answer goes to out.
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
		r = c.newReply(m.ID, "", bt)
	}
	if r != nil && out != c.out {
		r.out = out
	}
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
// method table says (lifecycle.Method).
func (b *bridge) request(c *Client, m *Message, r *reply) {
	req := m.Req
	if c.inUse(r) {
		// As x/tools jsonrpc2_v2 acceptRequest does: the first keeps its id.
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
		r.arrived = time.Now()
		j := &job{req: req, frame: baseFrame(req), reply: r, needsConfirm: m.confirm}
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
		c.asker.initialized(req, c.LegacyVersion())
		r.result(res)
	case lifecycle.MethodPing:
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
	r.withContext(b.hardCtx)
	r.askedDesktop = j.askedBy == AskDesktop
	// Asking: the worker takes it once the user has agreed.
	if werr := r.client.track(r, j.ask); werr != nil {
		r.fail(werr)
		return
	}
	out, err := b.queue.push(j) // marks it queued for telemetry when taken
	switch err {
	case nil:
		b.armQueued(j) // answered with a job if still queued when due (jobs.go)
		if j.ask {
			if j.askedBy == AskDesktop {
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

// queueFull refuses a request, unsent, because the queue is full.
func (b *bridge) queueFull(r *reply, why string) {
	b.log.Warn().Int("queue", b.cfg.Queue).Str("id", r.id.String()).Msg(why)
	r.fail(clienterr.QueueFull.New(b.cfg.Queue, r.method))
}
