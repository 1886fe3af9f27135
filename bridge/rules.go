package bridge

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcp-bridge/mcp-bridge/bridge/guard/confirm"
	"github.com/mcp-bridge/mcp-bridge/bridge/guard/confirm/desktop"
	"github.com/mcp-bridge/mcp-bridge/bridge/guard/journal"
	"github.com/mcp-bridge/mcp-bridge/bridge/guard/policy"
	"github.com/mcp-bridge/mcp-bridge/bridge/telemetry"
	"github.com/mcp-bridge/mcp-bridge/lifecycle"
	"github.com/mcp-bridge/mcp-bridge/lifecycle/clienterr"
	"github.com/mcp-bridge/mcp-bridge/rpc"
)

// rules applies the user's rules to tool requests: the policy (what is
// listed and callable, with which annotations), confirmation (asking the
// user before a call runs), and the journal. What it knows of each client
// is in that client's asker.
type rules struct {
	policy     *policy.Policy
	signer     *confirm.Signer
	journal    *journal.Writer
	args       bool // journal arguments too
	confirmTTL time.Duration
	// Who asks (desktopask.go): the order, the desktop asker (nil: none)
	// and why there is none, and the bridge's name the desktop shows.
	confirmWith []string
	desktop     desktop.Asker
	desktopWhy  string
	name        string
	// onScreen holds the one desktop dialog this bridge shows at a time,
	// whichever client it asks for (askDesktop).
	onScreen chan struct{}
	// unmatchedOnce: the policy's patterns that match no tool are logged
	// once, with the first tool list (listed.go).
	unmatchedOnce sync.Once
}

// testHookNow, when set by a test, is the requestState signer's clock.
var testHookNow func() time.Time

func newRules(cfg *Config) *rules {
	signer := confirm.NewSigner(cfg.ConfirmTimeout)
	if testHookNow != nil {
		signer.Now = testHookNow
	}
	return &rules{policy: cfg.Policy, signer: signer, journal: cfg.Journal, args: cfg.JournalArgs, confirmTTL: cfg.ConfirmTimeout,
		confirmWith: cfg.ConfirmWith, desktop: cfg.Desktop, desktopWhy: cfg.DesktopWhyNot, name: cfg.Name,
		onScreen: make(chan struct{}, 1)}
}

// asker is what the rules keep per client: what a handshake-era client said
// in initialize, and the questions the bridge has sent it.
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

// asksFirst reports whether m is a handshake-era tools/call that c's user
// may be asked to confirm before it is sent (question.go), so that its
// answer goes on an SSE stream that can carry the question first. A call
// the reader then refuses gets its error on that stream, which is as good.
func (b *bridge) asksFirst(c *Client, m *Message) bool {
	return m.confirm && m.Req.Era == lifecycle.Legacy && c.asker.canElicit.Load()
}

// admitCall applies the policy and confirmation to a tools/call the reader
// has checked. It returns false when it answered the call itself (denied,
// refused, or a modern client asked to confirm); true when the job goes to
// the worker, possibly marked to ask the user first.
func (b *bridge) admitCall(c *Client, j *job) bool {
	g, req := b.rules, j.req
	name, args := req.Tool.Name, req.Tool.Args
	if d := g.policy.Check(name, lifecycle.ToolAnnotations(b.tools.lastList(), name)); !d.Allowed {
		b.log.Warn().Str("tool", name).Str("id", req.ID.String()).Msg("call refused by the policy; not sent to CAD")
		werr := clienterr.Denied.With(map[string]string{"tool": name, "policy": g.policy.Source}, d.Reason)
		j.denied = true
		j.reply.op().Refused(d.Kind)
		b.settle(j, outcome{answer: rpc.EncodeError(req.ID, werr), err: werr})
		return false
	}
	if !j.needsConfirm {
		return true
	}
	if req.Era == lifecycle.Legacy {
		can := c.asker.canElicit.Load()
		return b.askWith(j, g.whoAsks(can), can)
	}
	// 2026-07-28: no server→client requests. The first call gets an
	// input_required result; the client re-sends it with the answer and the
	// signed requestState.
	state := req.RequestState
	if state == nil {
		can := req.Elicits
		if who := g.whoAsks(can); who != AskClient {
			return b.askWith(j, who, can)
		}
		j.askedBy = AskClient
		o, known := b.listedNow(j)
		if !known {
			// The base's list is not known yet: it is read, and the name
			// checked, outside the reader before the question goes out
			// (runQuestion, askUser).
			j.ask = true
			return true
		}
		if o == nil {
			o2 := b.inputRequired(j)
			o = &o2
		}
		b.settle(j, *o)
		return false
	}
	j.askedBy = AskClient
	var tok string
	if rpc.Kind(state) != rpc.KindString || json.Unmarshal(state, &tok) != nil {
		j.reply.op().Refused(telemetry.RefusalRequestState)
		b.refuse(j, confirm.Refused, "its requestState is not a string issued by mcp-bridge")
		return false
	}
	if err := g.signer.Redeem(tok, name, args); err != nil {
		why := confirm.Refused
		if errors.Is(err, confirm.ErrExpired) {
			why = confirm.TimedOut
		}
		b.log.Warn().Err(err).Str("tool", name).Msg("requestState refused; call not sent to CAD")
		if !errors.Is(err, confirm.ErrExpired) {
			j.reply.op().Refused(telemetry.RefusalRequestState)
		}
		b.refuse(j, why, err.Error())
		return false
	}
	a := confirm.Read(req.Input)
	if a != confirm.Invalid {
		j.reply.op().Answered(a)
	}
	switch a {
	case confirm.Accepted:
		j.confirm = confirm.Accepted
		return true
	case confirm.Invalid:
		b.refuse(j, confirm.Refused, "no answer to the confirmation came back with it")
	default:
		b.refuse(j, a, "you "+a.String()+" it")
	}
	return false
}

// inputRequired is a 2026-07-28 client's question: the input_required
// result carrying it and a requestState bound to the call; or the refusal
// when the question cannot show every argument.
func (b *bridge) inputRequired(j *job) outcome {
	name, args := j.req.Tool.Name, j.req.Tool.Args
	ask, err := confirm.InputRequest(name, args)
	if err != nil {
		return b.refusal(j, confirm.Refused, err.Error())
	}
	res := fmt.Appendf(nil, `{"resultType":"input_required","inputRequests":%s,"requestState":%q}`,
		ask, b.rules.signer.Issue(name, args))
	j.confirm = confirm.Asked
	j.reply.op().Asked() // answered by a later request, which carries the answer
	res = b.cfg.Server.Decorate("tools/call", res)
	return outcome{answer: rpc.EncodeResult(j.req.ID, res), result: res}
}

// refuse answers a call that needed confirmation and did not get it: an
// isError result saying why; nothing goes to CAD.
func (b *bridge) refuse(j *job, how confirm.Outcome, why string) {
	b.settle(j, b.refusal(j, how, why))
}

func (b *bridge) refusal(j *job, how confirm.Outcome, why string) outcome {
	b.log.Info().Str("tool", j.req.Tool.Name).Stringer("confirmation", how).Msg("call not sent to CAD")
	j.confirm = how
	res := confirm.Refusal(j.req.Tool.Name, why)
	if j.req.Era == lifecycle.Modern {
		res = b.cfg.Server.Decorate("tools/call", res)
	}
	return outcome{answer: rpc.EncodeResult(j.req.ID, res), result: res}
}

// record writes the journal line for a job's outcome.
func (b *bridge) record(j *job, o outcome) {
	g := b.rules
	if g.journal == nil {
		return
	}
	e := &journal.Entry{
		Time: time.Now().UTC(), PID: pid, Transport: b.transport, Era: j.req.Era.String(),
		Method: j.req.Method, Tool: j.req.Tool.Name, ID: j.req.ID.String(),
		DurationMs: float64(time.Since(j.reply.arrived).Microseconds()) / 1000,
		Bytes:      o.answer.Len(),
		Denied:     j.denied, Confirm: j.confirm.String(),
		Confirmed: j.confirm == confirm.Accepted,
		Declined:  j.confirm.Withheld(),
		AskedBy:   j.askedBy,
	}
	e.Client = j.clientInfo()
	if g.args && j.req.Method == lifecycle.MethodToolsCall {
		e.Args = j.req.Tool.Args
	}
	switch {
	case o.cancelled:
		e.Outcome = journal.Cancelled
	case o.err != nil:
		e.Outcome, e.Code, e.Message = journal.Error, o.err.Code, o.err.Message
		var data struct {
			Kind string `json:"kind"`
		}
		if json.Unmarshal(o.err.Data, &data) == nil {
			e.Kind = data.Kind
		}
	case o.rawErr != nil:
		// By the exact names, as the client reads the error passed on.
		var code int64
		_ = json.Unmarshal(rpc.Field(o.rawErr, "code"), &code)
		msg, _ := rpc.String(rpc.Field(o.rawErr, "message"))
		e.Outcome, e.Code, e.Message, e.Kind = journal.Error, code, msg, "base"
	default:
		e.IsError = rpc.Kind(rpc.Field(o.result, "isError")) == rpc.KindTrue
		switch {
		case j.confirm == confirm.Asked:
			e.Outcome = journal.InputRequired
		case e.Declined:
			e.Outcome = journal.Declined
		case e.IsError:
			e.Outcome = journal.ToolError
		default:
			e.Outcome = journal.OK
		}
	}
	if j.denied {
		e.Outcome = journal.Denied
	}
	_ = g.journal.Write(e) // it logs an outage once, and the end of it
}

var pid = os.Getpid()

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
