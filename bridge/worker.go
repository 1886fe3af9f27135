package bridge

import (
	"bytes"
	"context"
	"errors"
	"runtime/debug"
	"time"

	"github.com/mcp-bridge/mcp-bridge/lifecycle"
	"github.com/mcp-bridge/mcp-bridge/lifecycle/clienterr"
	"github.com/mcp-bridge/mcp-bridge/lifecycle/toolschema"
	"github.com/mcp-bridge/mcp-bridge/rpc"
	"github.com/mcp-bridge/mcp-bridge/tcpbase"
)

// work is the worker goroutine, the other side of the contract with
// dispatch. Like a go-sdk jsonrpc2 Handler, it is invoked sequentially: it
// forwards queued jobs to the base one at a time, taking turns between the
// clients (jobQueue), and may block for as long as the base takes (bounded
// by the call timeouts), until the queue is closed and drained. It never
// waits for a client: answers are handed to the client's stream (over HTTP,
// the response's own writer), and confirmation questions are asked before
// a job reaches it (question.go).
func (b *bridge) work(hardCtx context.Context) {
	b.learnTools(hardCtx)
	for {
		j, ok := b.queue.pop()
		if !ok {
			return
		}
		b.runJob(hardCtx, j)
	}
}

// testHookAnswered, when set by a test, runs in the worker once a job has
// been answered: a way to make it panic after the answer.
var testHookAnswered func(method string)

// runJob forwards one job and ends its reply, exactly once whatever
// happens: cancelled while queued (no answer), dropped at shutdown, the
// base's answer or failure, or a panic. The call's timeout starts here, so
// after the user agreed to a call that needed confirmation.
func (b *bridge) runJob(hardCtx context.Context, j *job) {
	r := j.reply
	if b.dropping.Load() {
		r.fail(clienterr.ShuttingDown.New(r.method))
		return
	}
	if b.launchIfDown(j) {
		return // answered, or cancelled, while CAD was starting
	}
	timeout := b.cfg.CallTimeout
	if r.method == "tools/list" {
		timeout = b.cfg.ListTimeout
	}
	// Within the request's own context: the client's cancel, its session's
	// end and the bridge's abort all end the call; unless it outlives the
	// request as a job (jobs.go).
	lc := b.longCall(hardCtx, j, timeout)
	defer lc.cancel()
	ctx := lc.ctx
	if !r.client.update(r, reqRunning, reqWaiting) {
		return // cancelled while queued, or its client is gone; its reply has ended
	}
	r.op().Dequeued()
	defer func() {
		if p := recover(); p != nil {
			b.log.Error().Interface("panic", p).Str("stack", string(debug.Stack())).Msg("panic while forwarding a request; the bridge goes on")
			r.fail(clienterr.Internal.New("forwarding", r.method))
		}
	}()

	if !b.headersLate(hardCtx, j, true) {
		return // refused, unsent
	}
	if o := b.beforeSend(hardCtx, j); o != nil {
		b.settle(j, *o) // refused by the user's rules, unsent
		return
	}
	start := time.Now()
	stopBeat := b.heartbeat(r, j.req.ProgressToken, start)
	defer stopBeat() // also on a panic, before the recover above answers
	j.sent = true
	lc.arm(stopBeat)
	ans, err := b.callBase(ctx, j)
	if b.mayLaunch(j, err) {
		lc.disarm()
		stopBeat()
		ans, err = b.launchThenCall(j, err)
	}
	stopBeat()
	lc.answered()
	back := b.baseResult(err)
	o := b.outcome(j, ans, err, hardCtx)
	ev := b.log.Debug()
	if o.err != nil {
		ev = b.log.Warn().Int64("code", o.err.Code).Str("error", o.err.Message)
	}
	ev.Str("method", r.method).Str("id", r.id.String()).Stringer("era", j.req.Era).Dur("took_ms", time.Since(start)).Msg("forwarded")
	if !lc.kept(o) { // a job's outcome is kept for its client instead
		b.settle(j, o)
	}
	if testHookAnswered != nil {
		testHookAnswered(r.method)
	}
	b.sendListChanged(o.listChanged || back)
}

// callBase sends the job's frame, re-dialling (only) while no connection
// could be made: a request that may have reached the base is never sent
// twice, since tool calls draw, delete and save. This is the one place the
// worker finds the base unreachable (tcpbase.ErrUnreachable): it retries
// here; starting the CAD program follows in runJob (launch.go).
func (b *bridge) callBase(ctx context.Context, j *job) ([]byte, error) {
	wait := b.cfg.RetryBackoff
	for attempt := 0; ; attempt++ {
		call := j.reply.op().CallBase()
		frame := j.frame
		if tp, ts := call.TraceMeta(); tp != "" { // --otel-propagate-to-base
			frame = tracedFrame(j.req, tp, ts)
		}
		ans, err := b.cfg.Base.Call(ctx, frame)
		call.End(callKind(err))
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

// outcome is what the client gets for a job.
type outcome struct {
	answer rpc.Encoded
	err    *rpc.WireError // the bridge's own error in answer, for the log
	// result and rawErr are answer's payload, for the journal: a result,
	// or an error object from the base.
	result []byte
	rawErr []byte
	// listChanged: this tools/list differs from the last one; clients that
	// asked are told after the answer.
	listChanged bool
	// cancelled: the request had ended while CAD ran it (the client
	// cancelled it, or its session ended); answer went nowhere.
	cancelled bool
}

// outcome turns what the base did into the client's answer. An error the
// base answered goes to the client as the base wrote it (its error object
// raw: -32602 "Unknown tool" is CAD's word, not the bridge's); the bridge
// speaks for itself only when the base gave no answer, and then says which
// side failed. At shutdown it tells a call never sent from one CAD may
// have run, since only the second may have drawn something.
func (b *bridge) outcome(j *job, ans []byte, err error, hardCtx context.Context) outcome {
	id, method := j.reply.id, j.reply.method
	failed := func(werr *rpc.WireError) outcome { return outcome{answer: rpc.EncodeError(id, werr), err: werr} }
	if err != nil {
		if context.Cause(hardCtx) == errShutdown {
			if !j.sent || errors.Is(err, tcpbase.ErrUnreachable) {
				// Stopped before anything reached CAD (while CAD was
				// being started, or no connection was made): not run.
				return failed(clienterr.ShuttingDown.New(method))
			}
			return failed(clienterr.StoppedWhileRun.With(map[string]string{"address": b.cfg.BaseAddr, "method": method}, method))
		}
		if method == "tools/list" && errors.Is(err, tcpbase.ErrUnreachable) {
			if cached := b.tools.fallback(b.log); cached != nil {
				b.log.Warn().Str("base", b.cfg.BaseAddr).Msg("CAD base is down: answering tools/list with the last known tool list; calls fail until it is back")
				res := b.prepareList(j, cached, cached)
				return outcome{answer: rpc.EncodeResult(id, res), result: res}
			}
		}
		return failed(baseFailure(err, b.cfg.BaseAddr, method, &b.cfg))
	}
	d := rpc.DecodeValidMessage(ans) // tcpbase validated it
	resp, ok := d.Msg.(*rpc.Response)
	if !ok {
		why := "not a response"
		if d.Err != nil {
			why = d.Err.Message
		}
		return failed(malformedAnswer(b.cfg.BaseAddr, method, why))
	}
	if resp.Error != nil {
		return outcome{answer: rpc.EncodeErrorRaw(id, resp.ErrorRaw), rawErr: resp.ErrorRaw}
	}
	if method != "tools/list" {
		result := resp.Result
		if j.req.Era == lifecycle.Modern {
			result = b.cfg.Server.Decorate(method, result)
		}
		return outcome{answer: rpc.EncodeResult(id, result), result: result}
	}
	changed := false
	if j.req.Tool.Cursor == nil && rpc.Kind(resp.Result) == rpc.KindObject && !lifecycle.Paged(resp.Result) { // a complete list
		if changed = b.recordList(resp.Result); changed {
			b.log.Info().Msg("the CAD base's tool list changed; telling the client")
		}
	} else {
		// A page: the list the bridge holds is read whole (fetchList),
		// but a call may now have it read again (mirrored.go).
		b.tools.listSeen()
	}
	complete := resp.Result
	if j.req.Tool.Cursor != nil && !lifecycle.Paged(resp.Result) && b.jobAfter(j) > 0 {
		// The last page of several, where wait_for_cad is added: it is
		// named from the whole list (read now, by the worker, when none is
		// held), as the reader names it for calls, so that a base's own
		// wait_for_cad on an earlier page keeps its name. Unread, it is
		// named from none, as the reader does then.
		complete, _ = b.knownList(hardCtx)
	}
	res := b.prepareList(j, resp.Result, complete)
	return outcome{answer: rpc.EncodeResult(id, res), result: res, listChanged: changed}
}

// prepareList prepares a tools/list result for the client: schemas
// repaired, the tool metadata its client acts on added (fit.go), and
// decorated for modern clients. complete is the base's whole list, result
// one of its pages (the same when it has one).
func (b *bridge) prepareList(j *job, result, complete []byte) []byte {
	// Claude Code's metadata goes on the bridge's wait_for_cad too (else
	// deferred, it is never called); the base's tools alone are counted.
	shown := b.shownList(result)
	withWait, added := b.listWithWait(j, complete, shown), 0
	if len(withWait) != len(shown) {
		added = 1
	}
	result = b.listMeta(j, withWait, added)
	if j.req.Era == lifecycle.Modern {
		result = b.cfg.Server.Decorate("tools/list", result)
	}
	return result
}

// shownList is the base's list as the user's policy and the schema repair
// show it. The base sends the same list again and again and this takes
// several passes over it, so the last one is kept (worker only); capped,
// so that no append to it can write into the kept copy.
func (b *bridge) shownList(raw []byte) []byte {
	if b.lastShown.raw != nil && bytes.Equal(raw, b.lastShown.raw) {
		return b.lastShown.shown
	}
	result := b.cfg.Policy.ApplyList(raw) // the list as the user's policy shows it
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
	result = result[:len(result):len(result)]
	b.lastShown.raw, b.lastShown.shown = raw, result
	return result
}
