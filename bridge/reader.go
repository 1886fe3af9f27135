package bridge

import (
	"errors"
	"io"
	"runtime/debug"
	"time"

	"github.com/mcp-bridge/mcp-bridge/lifecycle"
	"github.com/mcp-bridge/mcp-bridge/rpc"
)

// read is the stdio front end's reader goroutine: it reads stdin line by
// line and dispatches each line for the stdio client c, until stdin ends or
// the bridge stops.
func (b *bridge) read(c *client, stdin io.Reader) {
	lr := rpc.NewLineReader(stdin, b.cfg.MaxMessage)
	for !b.dropping.Load() {
		line, err := lr.Next()
		var oe *rpc.OversizeError
		switch {
		case errors.As(err, &oe):
			b.log.Warn().Int("bytes", oe.Size).Int("limit", oe.Limit).Msg("input line over the size limit discarded")
			c.newReply(rpc.ID{}, "", nil).fail(rpc.Errorf(rpc.CodeInvalidRequest,
				"Invalid Request: message of %d bytes exceeds the limit of %d bytes (--max-message)", oe.Size, oe.Limit))
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

// dispatchLine decodes one line from client c and dispatches each message
// in it; the answers to a batch go back as one array.
//
// Dispatch is the reader's side of the contract between the two
// goroutines. Like a go-sdk jsonrpc2 Preempter, it must not block: for each
// message it either answers at once (the protocol the bridge speaks itself,
// errors, a full or closed queue) or hands a job to the worker without
// waiting, so that ping and cancellation stay responsive while CAD works.
// Any front end may call it, for any client.
func (b *bridge) dispatchLine(c *client, line []byte) { b.dispatchLineTo(c, c.out, line) }

// dispatchLineTo is dispatchLine with the answers (and the notifications
// about the requests) going to out: an HTTP front end's response.
func (b *bridge) dispatchLineTo(c *client, out stream, line []byte) {
	msgs, isBatch := rpc.DecodeLine(line)
	var bt *batch
	if isBatch {
		bt = newBatch(out, c.max)
		defer bt.release() // the reader's own hold
	}
	for _, d := range msgs {
		b.dispatch(c, out, d, bt, nil)
	}
}

// testHookHandle, when set by a test, runs first in dispatch: a way to make
// the reader panic on purpose.
var testHookHandle func(rpc.Decoded)

// facts are what the bridge works out about a request before it handles
// it, once: its era and protocol version, and whether the era's per-request
// rules were checked already (by a front end that had to, to route it).
type facts struct {
	era     lifecycle.Era
	version string
	checked bool // lifecycle.CheckModern passed
}

func factsOf(req *rpc.Request) facts {
	era, version := lifecycle.EraOf(req.Params)
	return facts{era: era, version: version}
}

// dispatch handles one message from client c; its answer goes to out.
// known, when not nil, is what the front end worked out about the request.
func (b *bridge) dispatch(c *client, out stream, d rpc.Decoded, bt *batch, known *facts) {
	var r *reply // the answer this message is owed, if any
	switch m := d.Msg.(type) {
	case *rpc.Request:
		r = c.newReply(m.ID, m.Method, bt)
	case nil:
		r = c.newReply(d.ID, "", bt)
	}
	if r != nil && out != c.out {
		r.out = out
	}
	defer func() {
		if p := recover(); p != nil {
			b.log.Error().Interface("panic", p).Str("stack", string(debug.Stack())).Msg("panic while handling a message; the bridge goes on")
			if r != nil {
				r.fail(rpc.Errorf(rpc.CodeInternalError, "internal error in mcp-bridge while handling %s (see its log)", r.method))
			}
		}
	}()
	if testHookHandle != nil {
		testHookHandle(d)
	}
	if d.Err != nil {
		b.log.Debug().Str("error", d.Err.Message).Msg("invalid message")
		r.fail(d.Err)
		return
	}
	switch m := d.Msg.(type) {
	case *rpc.Notification:
		b.notification(c, m)
	case *rpc.Response:
		b.clientResponse(c, m)
	case *rpc.Request:
		f := known
		if f == nil {
			fs := factsOf(m)
			f = &fs
		}
		b.request(c, m, r, *f)
	}
}

// clientResponse is where every response from a client arrives. The only
// requests the bridge sends clients are its confirmation questions
// (elicitation/create); any other response is not due.
func (b *bridge) clientResponse(c *client, m *rpc.Response) {
	if !c.asker.answered(m) {
		b.log.Debug().Str("id", m.ID.String()).Msg("ignoring a response from the client")
	}
}

func (b *bridge) notification(c *client, n *rpc.Notification) {
	switch n.Method {
	case "notifications/cancelled":
		if id, ok := rpc.ParseID(rpc.Field(n.Params, "requestId")); ok {
			c.cancel(id)
		}
	case "notifications/initialized":
		b.log.Debug().Msg("client initialized")
	default:
		b.log.Debug().Str("method", n.Method).Msg("notification ignored")
	}
}

// request answers a request at once, or queues it for the base.
func (b *bridge) request(c *client, req *rpc.Request, r *reply, f facts) {
	if c.inUse(req.ID) {
		// As x/tools jsonrpc2_v2 acceptRequest does: the first keeps its id.
		r.fail(errIDInUse(req.ID))
		return
	}
	era := f.era
	srv := b.cfg.Server
	if era == lifecycle.Modern && req.Method != "server/discover" && !f.checked {
		if werr := lifecycle.CheckModern(f.version, req.Params); werr != nil {
			r.fail(werr)
			return
		}
	}
	notFound := func() {
		r.fail(rpc.Errorf(rpc.CodeMethodNotFound, "Method not found: %s", req.Method))
	}
	switch req.Method {
	case "initialize":
		if era == lifecycle.Modern {
			notFound()
			return
		}
		res, werr := srv.Initialize(req.Params)
		if werr != nil {
			r.fail(werr)
			return
		}
		c.initialized.Store(true)
		c.setVersion(res)
		c.asker.initialized(req.Params, c.legacyVersion())
		r.result(res)
	case "ping":
		if era == lifecycle.Modern {
			notFound()
			return
		}
		r.result([]byte(`{}`))
	case "server/discover":
		if era != lifecycle.Modern {
			notFound()
			return
		}
		r.result(srv.Discover())
	case "subscriptions/listen":
		if era != lifecycle.Modern {
			notFound()
			return
		}
		b.listen(c, req, r)
	case "tools/list", "tools/call":
		tp, werr := readToolParams(req)
		if werr != nil {
			r.fail(werr)
			return
		}
		j := &job{req: req, era: era, params: tp, frame: baseFrame(req.ID, req.Method, tp), reply: r, start: time.Now()}
		if req.Method == "tools/call" && !b.admitCall(c, j) {
			return
		}
		b.enqueue(j)
	default:
		notFound()
	}
}

// enqueue hands a job to the worker, or answers at once when the queue is
// full or closed, so that memory stays bounded and ping stays responsive.
// The job is tracked first, so that the client can cancel it.
func (b *bridge) enqueue(j *job) {
	r := j.reply
	if werr := r.client.track(r); werr != nil {
		r.fail(werr)
		return
	}
	j.held = j.ask // the worker takes it once the user has agreed
	out, err := b.queue.push(j)
	switch err {
	case nil:
		if j.ask {
			go b.runQuestion(j)
		}
		if out != nil { // a client that filled the queue makes room for another
			b.queueFull(out.reply, "request taken out of the full queue to make room for another client's")
		}
	case errQueueClosed:
		r.fail(rpc.Errorf(rpc.CodeInternalError, "mcp-bridge is shutting down; %s was not sent to CAD", r.method))
	default:
		b.queueFull(r, "request refused: too many requests queued")
	}
}

// queueFull refuses a request, unsent, because the queue is full.
func (b *bridge) queueFull(r *reply, why string) {
	b.log.Warn().Int("queue", b.cfg.Queue).Str("id", r.id.String()).Msg(why)
	r.fail(rpc.Errorf(rpc.CodeInternalError,
		"too many requests queued (%d) waiting for the CAD base; %s was not sent, try again when earlier calls have finished", b.cfg.Queue, r.method))
}
