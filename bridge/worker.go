package bridge

import (
	"context"
	"errors"
	"runtime/debug"
	"time"

	"github.com/mcp-bridge/mcp-bridge/lifecycle"
	"github.com/mcp-bridge/mcp-bridge/lifecycle/toolschema"
	"github.com/mcp-bridge/mcp-bridge/rpc"
	"github.com/mcp-bridge/mcp-bridge/tcpbase"
)

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

// work is the worker goroutine. Like a go-sdk jsonrpc2 Handler, it is
// invoked sequentially: it forwards queued jobs to the base one at a time,
// in arrival order, and may block for as long as the base takes (bounded by
// the call timeouts), until the queue is closed and drained.
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

	if j.ask {
		askCtx, stopAsk := context.WithCancel(hardCtx)
		b.mu.Lock()
		j.cancel = func() { stopAsk(); cancel() }
		b.mu.Unlock()
		refused := b.askUser(askCtx, j)
		stopAsk()
		if refused != nil {
			b.deliver(j, *refused)
			return
		}
		// The call's own timeout starts once the user has agreed.
		ctx, cancel = context.WithTimeout(hardCtx, timeout)
		defer cancel()
		b.mu.Lock()
		j.cancel = cancel
		canceled := j.canceled
		b.mu.Unlock()
		if canceled {
			b.finish(j)
			return
		}
	}
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
	result = b.cfg.Policy.ApplyList(result)
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
	b.record(j, o)
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
