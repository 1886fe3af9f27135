package bridge

import (
	"context"
	"errors"
	"fmt"
	"runtime/debug"
	"strconv"

	"github.com/mcp-bridge/mcp-bridge/bridge/guard"
	"github.com/mcp-bridge/mcp-bridge/bridge/guard/confirm"
	"github.com/mcp-bridge/mcp-bridge/lifecycle"
	"github.com/mcp-bridge/mcp-bridge/lifecycle/clienterr"
	"github.com/mcp-bridge/mcp-bridge/rpc"
)

// Handshake-era confirmation is asked outside the worker, so that one
// unanswered question holds only the client that must answer it: the job
// waits at the head of its client's turn (held), the client's later calls
// wait behind it in order, and the worker serves the other clients
// meanwhile (jobQueue.pop skips a held turn).

// questionIDPrefix starts the id of every question the bridge asks a
// client.
const questionIDPrefix = "mcp-bridge-confirm-"

var (
	// errQuestionGone is why a question is withdrawn when nobody can answer
	// it any more: the client's session ended or the stream carrying the
	// question closed.
	errQuestionGone = errors.New("the client's session or stream ended")
	// errCallCancelled is why a question is withdrawn when the client
	// cancelled its call (notifications/cancelled).
	errCallCancelled = errors.New("the client cancelled the call")
)

// runQuestion is the goroutine enqueue starts for a job that needs the
// user's confirmation (job.rule.Ask). It asks, and then either lets the worker
// take the job (the user agreed) or answers it with the refusal and takes
// it out of the queue unsent. It ends when the question is answered, times
// out, or is withdrawn: the client cancelled the call, its session or the
// stream carrying the question ended, or the bridge is stopping (askCtx).
func (b *bridge) runQuestion(j *job) {
	r := j.reply
	if j.askDone != nil {
		// The next desktop question of its turn may show once this one
		// and every one before it have ended.
		defer passAsk(j.askAfter, j.askDone)
	}
	// The question lives within the request's context (the client's
	// cancel, its session's end), and ends too when the bridge stops
	// asking (shutdown).
	ctx, withdraw := context.WithCancelCause(r.ctx)
	defer withdraw(nil)
	stop := context.AfterFunc(b.askCtx, func() { withdraw(context.Cause(b.askCtx)) })
	defer stop()
	defer func() {
		if p := recover(); p != nil {
			b.log.Error().Interface("panic", p).Str("stack", string(debug.Stack())).Msg("panic while asking for a confirmation; the bridge goes on")
			r.fail(clienterr.Internal.New("asking to confirm", r.method))
			b.queue.remove(j)
		}
	}()
	if reqState(r.state.Load()) == reqEnded {
		b.queue.remove(j) // cancelled already; its reply has ended
		return
	}
	// Nobody is asked about a call whose Mcp-Param headers lie
	// (mirrored.go), nor about a name the base does not list.
	if !b.headersLate(ctx, j, false) {
		b.queue.remove(j) // answered
		return
	}
	if o := b.listedBeforeAsking(ctx, j); o != nil {
		b.settle(j, *o)
		b.queue.remove(j)
		return
	}
	if j.req.Era == lifecycle.Modern && j.rule.AskedBy == AskClient {
		// A 2026-07-28 client asks its user itself: the question is the
		// answer, and the call comes back with the user's.
		b.settle(j, b.inputRequired(j))
		b.queue.remove(j)
		return
	}
	r.op().Asked()
	refused := b.askUser(ctx, j)
	r.op().Answered(j.rule.Confirm)
	if refused == nil && r.client.update(r, reqWaiting, reqAsking) {
		b.queue.wake()
		return
	}
	if refused != nil {
		b.settle(j, *refused)
	}
	b.queue.remove(j)
}

// answered routes a response from the client to the question it answers;
// false when none is waiting for it.
func (a *asker) answered(m *rpc.Response) bool {
	a.mu.Lock()
	ch, ok := a.asks[m.ID.Key()]
	delete(a.asks, m.ID.Key())
	a.mu.Unlock()
	if ok {
		ch <- m // buffered, one answer per question
	}
	return ok
}

// ender is a Stream that can end before its client does (an HTTP
// response): a question asked on it cannot be answered once it has.
type ender interface{ Ended() <-chan struct{} }

// streamEnded is closed when out has ended; nil (never) for a stream that
// lasts as long as its client.
func streamEnded(out Stream) <-chan struct{} {
	if e, ok := out.(ender); ok {
		return e.Ended()
	}
	return nil
}

// askUser is the handshake-era confirmation: an elicitation/create request
// to the client, on the stream the call's answer goes to, and its answer.
// It returns the refusal to give when the call must not run, or nil when
// the user agreed. ctx ends when the question is withdrawn.
func (b *bridge) askUser(ctx context.Context, j *job) *outcome {
	c := j.reply.client
	if j.rule.AskedBy == AskDesktop {
		return b.askDesktop(ctx, j, streamEnded(j.reply.stream()))
	}
	a := &c.asker
	name, args := j.req.Tool.Name, j.req.Tool.Args // what was checked, and what runs
	ask := confirm.LegacyParams
	if a.formMode.Load() {
		ask = confirm.Params
	}
	params, err := ask(name, args)
	if err != nil { // the question cannot show every argument: no question, no call
		return b.decided(j, guard.Decision{Verdict: guard.Refuse, Confirm: confirm.Refused, Why: err.Error()})
	}
	id, _ := rpc.ParseID([]byte(strconv.Quote(questionIDPrefix + strconv.FormatInt(a.seq.Add(1), 10))))
	ch := make(chan *rpc.Response, 1)
	a.mu.Lock()
	if a.asks == nil {
		a.asks = map[string]chan *rpc.Response{}
	}
	a.asks[id.Key()] = ch
	a.mu.Unlock()
	defer func() {
		a.mu.Lock()
		delete(a.asks, id.Key())
		a.mu.Unlock()
	}()
	refused := func(how confirm.Outcome, why string) *outcome { o := b.refusal(j, how, why); return &o }
	ttl := b.gate.ConfirmTimeout()
	out := j.reply.stream() // stdio; over HTTP, the call's own response stream
	gone := streamEnded(out)
	if err := out.Write(rpc.EncodeRequest(id, "elicitation/create", params)); err != nil {
		return refused(guard.NotSent())
	}
	b.log.Info().Str("tool", name).Str("ask", id.String()).Msg("asking the user to confirm")
	askCtx, cancel := context.WithTimeout(ctx, ttl)
	defer cancel()
	select {
	case resp := <-ch:
		how, why := guard.Elicited(resp)
		if how == confirm.Accepted {
			j.rule.Confirm = how
			return nil
		}
		return refused(how, why)
	case <-gone:
		b.log.Info().Str("tool", name).Str("ask", id.String()).Msg("question withdrawn: the stream carrying it closed")
		return refused(guard.StreamClosed())
	case <-askCtx.Done():
		_ = out.Write(rpc.EncodeNotification("notifications/cancelled",
			fmt.Appendf(nil, `{"requestId":%s,"reason":"mcp-bridge stopped waiting for the answer"}`, id.Raw())))
		if ctx.Err() == nil { // our own timeout
			return refused(b.gate.TimedOut(AskClient))
		}
		b.log.Info().Str("tool", name).Str("ask", id.String()).AnErr("why", context.Cause(ctx)).Msg("question withdrawn")
		return refused(guard.Withdrawn(true))
	}
}
