package bridge

import (
	"errors"
	"io"
	"runtime/debug"
	"time"

	"github.com/mcp-bridge/mcp-bridge/lifecycle"
	"github.com/mcp-bridge/mcp-bridge/rpc"
)

// read is the reader goroutine. Like a go-sdk jsonrpc2 Preempter, it must
// not block: for each message it either answers at once (the protocol the
// bridge speaks itself, errors, a full or closed queue) or hands a job to
// the worker without waiting, so that ping and cancellation stay
// responsive while CAD works. onOutFail is called when stdout fails.
func (b *bridge) read(stdin io.Reader, onOutFail func()) {
	lr := rpc.NewLineReader(stdin, b.cfg.MaxMessage)
	for {
		line, err := lr.Next()
		var oe *rpc.OversizeError
		switch {
		case errors.As(err, &oe):
			b.log.Warn().Int("bytes", oe.Size).Int("limit", oe.Limit).Msg("input line over the size limit discarded")
			b.reply(nil, rpc.ID{}, nil, rpc.Errorf(rpc.CodeInvalidRequest,
				"Invalid Request: message of %d bytes exceeds the limit of %d bytes (--max-message)", oe.Size, oe.Limit))
		case err == io.EOF:
			return
		case err != nil:
			if !b.isClosed() { // else Run closed stdin itself
				b.log.Error().Err(err).Msg("reading stdin failed")
			}
			return
		default:
			b.handleLine(line)
		}
		if b.out.Err() != nil {
			onOutFail()
			return
		}
	}
}

// handleLine decodes one line and handles each message in it.
func (b *bridge) handleLine(line []byte) {
	msgs, isBatch := rpc.DecodeLine(line)
	var bt *batch
	if isBatch {
		bt = newBatch(b.out)
		defer bt.done() // the batch's own reference
	}
	for _, d := range msgs {
		b.handle(d, bt)
	}
}

// testHookHandle, when set by a test, runs first in handle: a way to make
// the reader panic on purpose.
var testHookHandle func(rpc.Decoded)

func (b *bridge) handle(d rpc.Decoded, bt *batch) {
	defer func() {
		if r := recover(); r != nil {
			b.log.Error().Interface("panic", r).Str("stack", string(debug.Stack())).Msg("panic while handling a message; the bridge goes on")
			if req, ok := d.Msg.(*rpc.Request); ok {
				b.reply(bt, req.ID, nil, rpc.Errorf(rpc.CodeInternalError, "internal error in mcp-bridge while handling %s (see its log)", req.Method))
			}
		}
	}()
	if testHookHandle != nil {
		testHookHandle(d)
	}
	if d.Err != nil {
		b.log.Debug().Str("error", d.Err.Message).Msg("invalid message")
		b.reply(bt, d.ID, nil, d.Err)
		return
	}
	switch m := d.Msg.(type) {
	case *rpc.Notification:
		b.notification(m)
	case *rpc.Response:
		// The only requests the bridge sends the client are its questions
		// (elicitation/create); anything else is not due.
		if !b.clientResponse(m) {
			b.log.Debug().Str("id", m.ID.String()).Msg("ignoring a response from the client")
		}
	case *rpc.Request:
		b.request(m, bt)
	}
}

func (b *bridge) notification(n *rpc.Notification) {
	switch n.Method {
	case "notifications/cancelled":
		id := rpc.Field(n.Params, "requestId")
		if k := rpc.Kind(id); k != '"' && k != 'n' {
			return
		}
		b.cancel(string(id))
	case "notifications/initialized":
		b.log.Debug().Msg("client initialized")
	default:
		b.log.Debug().Str("method", n.Method).Msg("notification ignored")
	}
}

// request answers a request at once, or queues it for the base.
func (b *bridge) request(r *rpc.Request, bt *batch) {
	era, version := lifecycle.EraOf(r.Params)
	srv := b.cfg.Server
	if era == lifecycle.Modern && r.Method != "server/discover" {
		if werr := lifecycle.CheckModern(version, r.Params); werr != nil {
			b.reply(bt, r.ID, nil, werr)
			return
		}
	}
	notFound := func() {
		b.reply(bt, r.ID, nil, rpc.Errorf(rpc.CodeMethodNotFound, "Method not found: %s", r.Method))
	}
	switch r.Method {
	case "initialize":
		if era == lifecycle.Modern {
			notFound()
			return
		}
		res, werr := srv.Initialize(r.Params)
		if werr == nil {
			b.initialized.Store(true)
			b.guard.initialized(r.Params, res)
		}
		b.reply(bt, r.ID, res, werr)
	case "ping":
		if era == lifecycle.Modern {
			notFound()
			return
		}
		b.reply(bt, r.ID, []byte(`{}`), nil)
	case "server/discover":
		if era != lifecycle.Modern {
			notFound()
			return
		}
		b.reply(bt, r.ID, srv.Discover(), nil)
	case "subscriptions/listen":
		if era != lifecycle.Modern {
			notFound()
			return
		}
		b.listen(r, bt)
	case "tools/list", "tools/call":
		if werr := checkToolParams(r); werr != nil {
			b.reply(bt, r.ID, nil, werr)
			return
		}
		j := &job{req: r, era: era, frame: baseFrame(r), batch: bt, start: time.Now()}
		if r.Method == "tools/call" && !b.admitCall(j) {
			return
		}
		b.enqueue(j)
	default:
		notFound()
	}
}

// checkToolParams rejects what the base should never see.
func checkToolParams(r *rpc.Request) *rpc.WireError {
	p := r.Params
	if p != nil && rpc.Kind(p) != '{' {
		return rpc.Errorf(rpc.CodeInvalidParams, "Invalid params: %s params must be an object", r.Method)
	}
	if r.Method != "tools/call" {
		return nil
	}
	if rpc.Kind(rpc.Field(p, "name")) != '"' {
		return rpc.Errorf(rpc.CodeInvalidParams, `Invalid params: tools/call needs "name", a string`)
	}
	if a := rpc.Field(p, "arguments"); a != nil && rpc.Kind(a) != '{' && rpc.Kind(a) != 'z' {
		return rpc.Errorf(rpc.CodeInvalidParams, `Invalid params: tools/call "arguments" must be an object`)
	}
	return nil
}

// baseFrame is the request as the base gets it: the client's id, method
// and params, without params._meta, which is for the bridge.
func baseFrame(r *rpc.Request) []byte {
	b := rpc.AppendResponseHead(make([]byte, 0, 64+len(r.Params)), r.ID)
	b = append(b, `,"method":`...)
	b = append(b, '"')
	b = append(b, r.Method...) // tools/list or tools/call: nothing to escape
	b = append(b, '"')
	if r.Params != nil {
		b = append(b, `,"params":`...)
		b = append(b, rpc.WithoutMember(r.Params, "_meta")...)
	}
	return append(b, '}')
}

// enqueue hands a job to the worker, or answers at once when the queue is
// full or closed, so that memory stays bounded and ping stays responsive.
func (b *bridge) enqueue(j *job) {
	b.mu.Lock()
	if b.closed {
		b.mu.Unlock()
		b.reply(j.batch, j.req.ID, nil, rpc.Errorf(rpc.CodeInternalError, "mcp-bridge is shutting down; %s was not sent to CAD", j.req.Method))
		return
	}
	select {
	case b.queue <- j:
		b.pending[j.req.ID.String()] = j
		if j.batch != nil {
			j.batch.add()
		}
		b.mu.Unlock()
	default:
		b.mu.Unlock()
		b.log.Warn().Int("queue", b.cfg.Queue).Msg("request refused: too many requests queued")
		b.reply(j.batch, j.req.ID, nil, rpc.Errorf(rpc.CodeInternalError,
			"too many requests queued (%d) waiting for the CAD base; %s was not sent, try again when earlier calls have finished", b.cfg.Queue, j.req.Method))
	}
}

// cancel handles notifications/cancelled: a queued request is dropped, an
// in-flight one has its connection closed, an open listen ends; nothing is
// sent for the id afterwards. Unknown and finished ids are ignored.
func (b *bridge) cancel(id string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if j, ok := b.pending[id]; ok {
		j.canceled = true
		delete(b.pending, id)
		if j.cancel != nil {
			j.cancel()
		}
		b.log.Debug().Str("id", id).Msg("request cancelled by the client")
		return
	}
	if l, ok := b.listens[id]; ok {
		delete(b.listens, id)
		if l.batch != nil {
			l.batch.done()
		}
	}
}

// reply answers one request: to stdout, or into its batch. Exactly one of
// result and werr is set.
func (b *bridge) reply(bt *batch, id rpc.ID, result []byte, werr *rpc.WireError) {
	if bt != nil {
		bt.put(func(w *rpc.Writer) error {
			if werr != nil {
				return w.WriteError(id, werr)
			}
			return w.WriteResult(id, result)
		})
		return
	}
	if werr != nil {
		_ = b.out.WriteError(id, werr)
		return
	}
	_ = b.out.WriteResult(id, result)
}
