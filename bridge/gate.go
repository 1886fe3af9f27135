package bridge

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcp-bridge/mcp-bridge/bridge/guard"
	"github.com/mcp-bridge/mcp-bridge/bridge/guard/confirm"
	"github.com/mcp-bridge/mcp-bridge/bridge/guard/journal"
	"github.com/mcp-bridge/mcp-bridge/lifecycle"
	"github.com/mcp-bridge/mcp-bridge/rpc"
)

// The user's rules are decided by the gate (bridge/guard.Gate), which the
// core calls at three moments of a tool call: on accept (admitCall, in
// the reader), before sending (beforeSend, in the worker) and at the end
// (record, when settle ends the request). What the gate decided travels
// in job.rule. The core keeps what takes time: the question in flight
// (question.go, desktopask.go) and the base's tool list (listed.go).

// testHookNow, when set by a test, is the requestState signer's clock.
var testHookNow func() time.Time

func newGate(cfg *Config) *guard.Gate {
	return guard.New(guard.Options{Policy: cfg.Policy, Journal: cfg.Journal, JournalArgs: cfg.JournalArgs,
		JournalRequired: cfg.JournalRequired, ConfirmTimeout: cfg.ConfirmTimeout, ConfirmWith: cfg.ConfirmWith,
		Desktop: cfg.Desktop != nil, DesktopWhyNot: cfg.DesktopWhyNot, Now: testHookNow, Log: cfg.Log})
}

// asker is what the core keeps per client for confirmation: what a
// handshake-era client said in initialize, and the questions the bridge
// has sent it.
type asker struct {
	info      atomic.Pointer[journal.ClientInfo]
	canElicit atomic.Bool // it declared the elicitation capability, in a version that has it
	formMode  atomic.Bool // its version's elicitation params carry "mode"
	seq       atomic.Int64
	mu        sync.Mutex
	asks      map[string]chan *rpc.Response // by the question's id key
}

// initialized notes what a handshake-era client declared: its clientInfo,
// and whether it can show an elicitation (2025-06-18 and later) in the
// version its initialize agreed (client.legacyVersion).
func (a *asker) initialized(req *lifecycle.Request, version string) {
	ci := journalClient(req.ClientInfo) // kept for the session: not the megabytes it may be
	a.info.Store(&ci)
	a.canElicit.Store(req.Elicits && version >= "2025-06-18")
	a.formMode.Store(version >= "2025-11-25")
}

// asksFirst reports whether m is a handshake-era tools/call that c's user
// may be asked to confirm before it is sent (question.go), so that its
// answer goes on an SSE stream that can carry the question first. A call
// the reader then refuses gets its error on that stream, which is as good.
func (b *bridge) asksFirst(c *Client, m *Message) bool {
	return m.confirm && m.Req.Era == lifecycle.Legacy && c.asker.canElicit.Load()
}

// admitCall is the gate on accept: the policy and confirmation, for a
// tools/call the reader has checked. It returns false when it answered
// the call itself (denied, refused, or a 2026-07-28 client asked to
// confirm); true when the job goes to the worker, possibly marked to ask
// the user first (job.rule.Ask).
func (b *bridge) admitCall(c *Client, j *job) bool {
	d := b.gate.Accept(&j.rule, j.req, b.tools.lastList(), c.asker.canElicit.Load())
	if d.Verdict == guard.InputRequired {
		o, known := b.listedNow(j)
		if !known {
			// The base's list is not known yet: it is read, and the name
			// checked, outside the reader before the question goes out
			// (runQuestion).
			j.rule.Ask = true
			return true
		}
		if o == nil {
			o2 := b.inputRequired(j)
			o = &o2
		}
		b.settle(j, *o)
		return false
	}
	if o := b.decided(j, d); o != nil {
		b.settle(j, *o)
		return false
	}
	return true
}

// beforeSend is the gate before a job goes to CAD (the worker's): the name
// listed under a policy (the list read when none is known), the journal
// writable with --journal-required. nil: send it.
func (b *bridge) beforeSend(hardCtx context.Context, j *job) *outcome {
	return b.decided(j, b.gate.BeforeSend(&j.rule, j.req, func() ([]byte, *rpc.WireError) {
		list, err := b.knownList(hardCtx)
		if err != nil {
			return nil, baseFailure(err, b.cfg.BaseAddr, "tools/list", &b.cfg)
		}
		return list, nil
	}))
}

// decided counts what a gate decision says (a refusal, an answer brought
// back) and returns the answer it gives; nil when the call goes on.
func (b *bridge) decided(j *job, d guard.Decision) *outcome {
	op := j.reply.op()
	if d.Refusal != "" {
		op.Refused(d.Refusal)
	}
	if d.Answer != confirm.NotAsked {
		op.Answered(d.Answer)
	}
	switch d.Verdict {
	case guard.Error:
		return &outcome{answer: rpc.EncodeError(j.req.ID, d.Err), err: d.Err}
	case guard.Refuse:
		o := b.refusal(j, d.Confirm, d.Why)
		return &o
	}
	return nil
}

// inputRequired is a 2026-07-28 client's question: the input_required
// result carrying it and a requestState bound to the call; or the refusal
// when the question cannot show every argument.
func (b *bridge) inputRequired(j *job) outcome {
	res, refused := b.gate.Question(&j.rule, j.req)
	if refused != nil {
		return *b.decided(j, *refused)
	}
	j.reply.op().Asked() // answered by a later request, which carries the answer
	res = b.cfg.Server.Decorate("tools/call", res)
	return outcome{answer: rpc.EncodeResult(j.req.ID, res), result: res}
}

// refusal answers a call that needed confirmation and did not get it: an
// isError result saying why; nothing goes to CAD.
func (b *bridge) refusal(j *job, how confirm.Outcome, why string) outcome {
	b.log.Info().Str("tool", j.req.Tool.Name).Stringer("confirmation", how).Msg("call not sent to CAD")
	j.rule.Confirm = how
	res := confirm.Refusal(j.req.Tool.Name, why)
	if j.req.Era == lifecycle.Modern {
		res = b.cfg.Server.Decorate("tools/call", res)
	}
	return outcome{answer: rpc.EncodeResult(j.req.ID, res), result: res}
}

// record is the gate at the end: the journal line for a job's outcome.
func (b *bridge) record(j *job, o outcome) {
	if !b.gate.Journals() {
		return
	}
	b.gate.Record(&j.rule, guard.End{Transport: b.transport, Req: j.req, Client: j.clientInfo(),
		Took: time.Since(j.reply.arrived), Bytes: o.answer.Len(), Cancelled: o.cancelled,
		Err: o.err, RawErr: o.rawErr, Result: o.result})
}

// clientInfo is what the call's client said it is: a 2026-07-28 request's
// _meta clientInfo, else its initialize's; nil when it gave no name.
func (j *job) clientInfo() *journal.ClientInfo {
	if j.req.Era == lifecycle.Modern {
		if ci := journalClient(j.req.ClientInfo); ci.Name != "" {
			return &ci
		}
	} else if ci := j.reply.client.asker.info.Load(); ci != nil && ci.Name != "" {
		return ci
	}
	return nil
}

// journalClient is a client's name and version as the journal keeps them:
// bounded.
func journalClient(ci lifecycle.ClientInfo) journal.ClientInfo {
	return journal.ClientInfo{Name: ci.Name, Version: ci.Version}.Bounded()
}
