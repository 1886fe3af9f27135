package bridge

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rs/zerolog"

	"github.com/mcp-bridge/mcp-bridge/lifecycle"
	"github.com/mcp-bridge/mcp-bridge/lifecycle/toolschema"
	"github.com/mcp-bridge/mcp-bridge/rpc"
	"github.com/mcp-bridge/mcp-bridge/tcpbase"
)

// job is one request for the base, from the moment the reader accepts it
// until the worker has answered it or dropped it.
type job struct {
	req    *rpc.Request
	era    lifecycle.Era
	frame  []byte // the request as the base gets it
	batch  *batch // non-nil when the request came in a batch
	cancel context.CancelFunc
	// canceled is set, under bridge.mu, by notifications/cancelled: from
	// then on nothing is sent for this id.
	canceled bool
}

// bridge is the state shared by the reader and the worker.
type bridge struct {
	cfg Config
	log zerolog.Logger
	out *rpc.Writer

	queue chan *job

	mu      sync.Mutex
	closed  bool               // the queue is closed: no more jobs
	pending map[string]*job    // by raw id: queued or in flight
	listens map[string]*listen // open subscriptions/listen requests

	dropping atomic.Bool // shutting down on a signal: answer queued jobs without sending them

	// initialized is set once a legacy client has sent initialize: it was
	// told tools.listChanged, so it gets notifications/tools/list_changed.
	initialized atomic.Bool

	tools toolState // is the base up, and its last tool list

	warned map[string]bool // tools whose schema repair was logged (worker only)
}

// outcome is how a job ends: a result, an error of the bridge's own, or an
// error object from the base passed on byte for byte.
type outcome struct {
	result []byte
	err    *rpc.WireError
	rawErr []byte
	// listChanged: this tools/list differs from the last one; clients that
	// asked are told after the answer.
	listChanged bool
}

// errShutdown is the cause given to in-flight calls abandoned at shutdown.
var errShutdown = errors.New("mcp-bridge is shutting down")

// Run serves one client on stdin/stdout until stdin ends or ctx is done.
//
// At the end of stdin it stops reading, finishes every request already
// accepted (bounded by ShutdownTimeout) and returns nil. When ctx is done
// (a signal), it gives the in-flight request Grace to finish, answers the
// queued ones with an error without sending them, and returns nil. It
// returns an error only when stdout fails. When Run returns, its worker has
// ended and its reader has too, unless stdin is a reader that cannot be
// interrupted (then the reader ends at its next read).
func Run(ctx context.Context, cfg Config, stdin io.Reader, stdout io.Writer) error {
	cfg.setDefaults()
	b := &bridge{
		cfg:     cfg,
		log:     cfg.Log,
		out:     rpc.NewWriter(stdout),
		queue:   make(chan *job, cfg.Queue),
		pending: map[string]*job{},
		listens: map[string]*listen{},
		warned:  map[string]bool{},
		tools:   toolState{cache: newToolCache(cfg.CacheDir, cfg.BaseAddr), wake: make(chan struct{}, 1)},
	}
	hardCtx, abort := context.WithCancelCause(context.Background())
	defer abort(nil)

	proberDone := make(chan struct{})
	probeCtx, stopProbe := context.WithCancel(context.Background())
	go func() {
		defer close(proberDone)
		if cfg.ProbeInterval > 0 {
			b.probe(probeCtx)
		}
	}()
	defer func() { stopProbe(); <-proberDone }()

	outFailed := make(chan struct{})
	var failOnce sync.Once
	readerDone := make(chan struct{})
	go func() {
		defer close(readerDone)
		b.read(stdin, func() { failOnce.Do(func() { close(outFailed) }) })
	}()
	workerDone := make(chan struct{})
	go func() {
		defer close(workerDone)
		b.work(hardCtx)
	}()

	var result error
	select {
	case <-readerDone:
		b.log.Debug().Msg("stdin closed: finishing accepted requests")
		b.closeQueue()
		select {
		case <-workerDone:
		case <-time.After(cfg.ShutdownTimeout):
			n := b.dropQueued()
			b.log.Warn().Int("dropped", n).Dur("after", cfg.ShutdownTimeout).Msg("shutdown timeout: abandoning the remaining requests")
			abort(errShutdown)
			<-workerDone
		}
	case <-ctx.Done():
		b.log.Info().Msg("signal received: finishing the request in flight, dropping the queue")
		b.stopReading(stdin)
		n := b.dropQueued()
		if n > 0 {
			b.log.Warn().Int("dropped", n).Msg("queued requests dropped at shutdown, none sent to CAD")
		}
		graceTimer := time.AfterFunc(cfg.Grace, func() { abort(errShutdown) })
		<-workerDone
		graceTimer.Stop()
	case <-outFailed:
		result = fmt.Errorf("writing to stdout: %w", b.out.Err())
		b.log.Error().Err(b.out.Err()).Msg("the client closed stdout: stopping")
		b.stopReading(stdin)
		b.dropQueued()
		abort(errShutdown)
		<-workerDone
	}
	if result == nil && b.out.Err() != nil {
		// The reader may have ended because stdout failed; say so either way.
		result = fmt.Errorf("writing to stdout: %w", b.out.Err())
	}
	b.endListens()
	b.stopReading(stdin)
	select {
	case <-readerDone:
	case <-time.After(250 * time.Millisecond):
		b.log.Debug().Msg("stdin cannot be interrupted: its reader ends at its next read")
	}
	return result
}

// stopReading makes the reader stop: stdin is closed when it can be (a pipe
// made pollable by the caller, or an io.Pipe in tests), and the queue is
// closed to new work.
func (b *bridge) stopReading(stdin io.Reader) {
	b.closeQueue()
	if c, ok := stdin.(io.Closer); ok {
		_ = c.Close()
	}
}

func (b *bridge) isClosed() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.closed
}

func (b *bridge) closeQueue() {
	b.mu.Lock()
	defer b.mu.Unlock()
	if !b.closed {
		b.closed = true
		close(b.queue)
	}
}

// dropQueued marks the bridge as dropping: the worker answers every job
// still queued with an error instead of sending it. It returns how many.
func (b *bridge) dropQueued() int {
	b.dropping.Store(true)
	return len(b.queue)
}

// read is the reader goroutine: it answers what it can at once and queues
// the rest for the worker. onOutFail is called when stdout fails.
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
		// The bridge sends the client no requests, so no response is due.
		b.log.Debug().Str("id", m.ID.String()).Msg("ignoring a response from the client")
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
		b.enqueue(&job{req: r, era: era, frame: baseFrame(r), batch: bt})
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

// batch gathers the answers to the requests of one batch line and writes
// them as one array when the last is in. Each queued request or open listen
// holds a reference, and so does the reader until it has handled the line.
type batch struct {
	out   *rpc.Writer
	mu    sync.Mutex
	refs  int
	parts [][]byte
}

func newBatch(out *rpc.Writer) *batch { return &batch{out: out, refs: 1} }

func (bt *batch) add() {
	bt.mu.Lock()
	bt.refs++
	bt.mu.Unlock()
}

// put adds an answer written by fn. Answers given inline need no reference:
// the reader's own reference keeps the batch open while it handles the line.
func (bt *batch) put(fn func(w *rpc.Writer) error) {
	var buf bytes.Buffer
	_ = fn(rpc.NewWriter(&buf))
	bt.mu.Lock()
	bt.parts = append(bt.parts, bytes.TrimSuffix(buf.Bytes(), []byte("\n")))
	bt.mu.Unlock()
}

// done drops a reference; the last one writes the array, if it holds any
// answer (a batch of notifications gets nothing back).
func (bt *batch) done() {
	bt.mu.Lock()
	bt.refs--
	last := bt.refs == 0
	parts := bt.parts
	bt.mu.Unlock()
	if !last || len(parts) == 0 {
		return
	}
	line := append([]byte{'['}, bytes.Join(parts, []byte{','})...)
	_ = bt.out.WriteLine(append(line, ']'))
}

// work is the worker goroutine: it forwards queued requests to the base,
// one at a time, in arrival order, until the queue is closed and drained.
func (b *bridge) work(hardCtx context.Context) {
	for j := range b.queue {
		b.runJob(hardCtx, j)
	}
}

func (b *bridge) runJob(hardCtx context.Context, j *job) {
	timeout := b.cfg.CallTimeout
	if j.req.Method == "tools/list" {
		timeout = b.cfg.ListTimeout
	}
	ctx, cancel := context.WithTimeout(hardCtx, timeout)
	defer cancel()

	b.mu.Lock()
	if j.canceled {
		b.mu.Unlock()
		b.finish(j)
		return
	}
	if b.dropping.Load() {
		delete(b.pending, j.req.ID.String())
		b.mu.Unlock()
		b.answer(j, outcome{err: rpc.Errorf(rpc.CodeInternalError, "mcp-bridge is shutting down; %s was not sent to CAD", j.req.Method)})
		return
	}
	j.cancel = cancel
	b.mu.Unlock()

	defer func() {
		if r := recover(); r != nil {
			b.log.Error().Interface("panic", r).Str("stack", string(debug.Stack())).Msg("panic while forwarding a request; the bridge goes on")
			b.deliver(j, outcome{err: rpc.Errorf(rpc.CodeInternalError, "internal error in mcp-bridge while forwarding %s (see its log)", j.req.Method)})
		}
	}()

	start := time.Now()
	stopBeat := b.heartbeat(progressToken(j.req.Params), start)
	ans, err := b.callBase(ctx, j)
	stopBeat()
	back := b.baseResult(err)
	o := b.interpret(j, ans, err, hardCtx)
	o.listChanged = o.listChanged || back
	ev := b.log.Debug()
	if o.err != nil {
		ev = b.log.Warn().Int64("code", o.err.Code).Str("error", o.err.Message)
	}
	ev.Str("method", j.req.Method).Str("id", j.req.ID.String()).Dur("took", time.Since(start)).Msg("forwarded")
	b.deliver(j, o)
	b.sendListChanged(o.listChanged)
}

// callBase sends the job's frame, re-dialling (only) while no connection
// could be made: a request that may have reached the base is never sent
// twice, since tool calls draw, delete and save.
func (b *bridge) callBase(ctx context.Context, j *job) ([]byte, error) {
	wait := b.cfg.RetryBackoff
	for attempt := 0; ; attempt++ {
		ans, err := b.cfg.Base.Call(ctx, j.frame)
		if err == nil || !errors.Is(err, tcpbase.ErrUnreachable) || attempt >= b.cfg.Retries {
			return ans, err
		}
		if dl, ok := ctx.Deadline(); ok && time.Until(dl) < wait {
			return ans, err
		}
		select {
		case <-ctx.Done():
			return ans, err
		case <-time.After(wait):
		}
		wait *= 2
	}
}

// interpret turns what the base did into the client's answer.
func (b *bridge) interpret(j *job, ans []byte, err error, hardCtx context.Context) outcome {
	method := j.req.Method
	if err != nil {
		if context.Cause(hardCtx) == errShutdown {
			return outcome{err: rpc.Errorf(rpc.CodeInternalError,
				"mcp-bridge was stopped while CAD was working on %s; the call may still have run in CAD", method).
				WithData(map[string]string{"address": b.cfg.BaseAddr, "kind": "shutdown", "method": method})}
		}
		if method == "tools/list" && errors.Is(err, tcpbase.ErrUnreachable) {
			if cached := b.tools.fallback(); cached != nil {
				b.log.Warn().Str("base", b.cfg.BaseAddr).Msg("CAD base is down: answering tools/list with the last known tool list; calls fail until it is back")
				return outcome{result: b.finishList(j, cached)}
			}
		}
		return outcome{err: baseFailure(err, b.cfg.BaseAddr, method, &b.cfg)}
	}
	d := rpc.DecodeValidMessage(ans) // tcpbase validated it
	resp, ok := d.Msg.(*rpc.Response)
	if !ok {
		why := "not a response"
		if d.Err != nil {
			why = d.Err.Message
		}
		return outcome{err: malformedAnswer(b.cfg.BaseAddr, method, why)}
	}
	if resp.Error != nil {
		return outcome{rawErr: resp.ErrorRaw}
	}
	if method != "tools/list" {
		result := resp.Result
		if j.era == lifecycle.Modern {
			result = b.cfg.Server.Decorate(method, result)
		}
		return outcome{result: result}
	}
	changed := false
	if rpc.Field(j.req.Params, "cursor") == nil && rpc.Kind(resp.Result) == '{' { // a complete list
		var err error
		if changed, err = b.tools.record(resp.Result); err != nil {
			b.log.Warn().Err(err).Msg("could not write the tool list cache")
		}
		if changed {
			b.log.Info().Msg("the CAD base's tool list changed; telling the client")
		}
	}
	return outcome{result: b.finishList(j, resp.Result), listChanged: changed}
}

// finishList prepares a tools/list result for the client: schemas
// repaired, and decorated for modern clients.
func (b *bridge) finishList(j *job, result []byte) []byte {
	if !b.cfg.NoSchemaRepair {
		var fixed []string
		result, fixed = toolschema.RepairToolSchemas(result)
		for _, name := range fixed {
			if !b.warned[name] {
				b.warned[name] = true
				b.log.Warn().Str("tool", name).Msg(`tool inputSchema lacks "type": "object"; added it so that SDK clients do not drop the tool`)
			}
		}
	}
	if j.era == lifecycle.Modern {
		result = b.cfg.Server.Decorate("tools/list", result)
	}
	return result
}

// deliver answers a job unless it was cancelled, and forgets it.
func (b *bridge) deliver(j *job, o outcome) {
	b.mu.Lock()
	canceled := j.canceled
	delete(b.pending, j.req.ID.String())
	b.mu.Unlock()
	if canceled {
		b.finish(j)
		return
	}
	b.answer(j, o)
}

// answer writes a job's answer and releases it.
func (b *bridge) answer(j *job, o outcome) {
	if o.rawErr != nil {
		id := j.req.ID
		if j.batch != nil {
			j.batch.put(func(w *rpc.Writer) error { return w.WriteErrorRaw(id, o.rawErr) })
		} else {
			_ = b.out.WriteErrorRaw(id, o.rawErr)
		}
	} else {
		b.reply(j.batch, j.req.ID, o.result, o.err)
	}
	b.finish(j)
}

// finish releases the job's hold on its batch.
func (b *bridge) finish(j *job) {
	if j.batch != nil {
		j.batch.done()
	}
}
