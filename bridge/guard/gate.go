package guard

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/rs/zerolog"

	"github.com/mcp-bridge/mcp-bridge/bridge/guard/confirm"
	"github.com/mcp-bridge/mcp-bridge/bridge/guard/journal"
	"github.com/mcp-bridge/mcp-bridge/bridge/guard/policy"
	"github.com/mcp-bridge/mcp-bridge/lifecycle"
	"github.com/mcp-bridge/mcp-bridge/lifecycle/clienterr"
	"github.com/mcp-bridge/mcp-bridge/rpc"
)

// Gate is the user's rules as the core meets them, at three moments of a
// tool call:
//
//   - on accept (Accept), in the reader: the policy passes or denies it,
//     and a call that needs the user's agreement is given to whoever can
//     ask (the client or this machine's desktop), or refused when nobody
//     can; a 2026-07-28 call that brings the answer back is decided by it;
//   - before sending (BeforeSend), in the worker: under a policy only a
//     name the base lists runs, and with --journal-required only while the
//     journal can be written;
//   - at the end (Record): the journal line.
//
// Its methods decide and say why; they never wait. The core keeps the
// scheduling: the question in flight (a client's turn held while it is
// out), one desktop dialog at a time, cancellation, and reading the
// base's tool list. What the gate decided about a call travels with it in
// a Call.
type Gate struct {
	policy   *policy.Policy
	journal  *journal.Writer
	args     bool // journal the arguments too
	required bool // --journal-required
	ttl      time.Duration
	// Who asks: the order, whether this machine can show a dialog, and why
	// it cannot.
	confirmWith []string
	desktop     bool
	desktopWhy  string
	signer      *confirm.Signer
	log         zerolog.Logger
	// unmatchedOnce: the policy's patterns that match no tool are logged
	// once, with the first tool list (ListSeen).
	unmatchedOnce sync.Once
}

// Options are what a Gate is made of: the rules as the settings gave them
// (Config builds the policy, the askers and the journal).
type Options struct {
	Policy          *policy.Policy // nil: none, every tool as the base describes it
	Journal         *journal.Writer
	JournalArgs     bool
	JournalRequired bool
	ConfirmTimeout  time.Duration // default DefaultConfirmTimeout
	// ConfirmWith is who asks, in order (policy.AskClient,
	// policy.AskDesktop); default both, the client first.
	ConfirmWith []string
	// Desktop says this machine can show a dialog; DesktopWhyNot is why
	// it cannot, when it cannot.
	Desktop       bool
	DesktopWhyNot string
	// Now is the requestState clock (time.Now when nil).
	Now func() time.Time
	Log zerolog.Logger
}

// New makes the gate.
func New(o Options) *Gate {
	if o.ConfirmTimeout <= 0 {
		o.ConfirmTimeout = DefaultConfirmTimeout
	}
	if o.ConfirmWith == nil {
		o.ConfirmWith = []string{policy.AskClient, policy.AskDesktop}
	}
	signer := confirm.NewSigner(o.ConfirmTimeout)
	if o.Now != nil {
		signer.Now = o.Now
	}
	return &Gate{policy: o.Policy, journal: o.Journal, args: o.JournalArgs, required: o.JournalRequired,
		ttl: o.ConfirmTimeout, confirmWith: o.ConfirmWith, desktop: o.Desktop, desktopWhy: o.DesktopWhyNot,
		signer: signer, log: o.Log}
}

// Policy is the gate's policy (nil: none).
func (g *Gate) Policy() *policy.Policy { return g.policy }

// ConfirmTimeout is how long a question waits for the user.
func (g *Gate) ConfirmTimeout() time.Duration { return g.ttl }

// NeedsConfirm reports whether a call of the tool name waits for the
// user's agreement.
func (g *Gate) NeedsConfirm(name string) bool {
	_, ask := g.policy.NeedsConfirm(name)
	return ask
}

// Call is what the gate has decided about one tool call so far, from
// accept to record.
type Call struct {
	NeedsConfirm bool // the policy asks the user before it runs
	// Ask: the user is asked before the call is sent (the core's
	// question, by AskedBy).
	Ask     bool
	AskedBy string          // who asks or asked: policy.AskClient or policy.AskDesktop
	Confirm confirm.Outcome // how confirmation went
	Denied  bool            // refused by the policy: a rule, or a name the base does not list
}

// Verdict is what the core does with a call.
type Verdict uint8

const (
	// Pass: on it goes (to the queue, or to CAD); Call.Ask says whether
	// the user is asked first.
	Pass Verdict = iota
	// Error: answered with the JSON-RPC error Decision.Err; nothing sent.
	Error
	// Refuse: answered with the refusal result (confirm.Refusal, saying
	// Decision.Why); nothing sent. Decision.Confirm is how confirmation
	// went.
	Refuse
	// InputRequired: a 2026-07-28 client asks its user itself: the answer
	// is the question (Question), once the core has checked the name
	// (Listed).
	InputRequired
)

// Refusal kinds the gate itself gives (Decision.Refusal), beside the
// policy's (policy.Decision.Kind); telemetry counts them by these names.
const (
	RefusalUnlisted     = "unlisted"      // the base does not list the tool
	RefusalRequestState = "request_state" // a 2026-07-28 requestState that is not the bridge's
)

// Decision is one of the gate's decisions about a call.
type Decision struct {
	Verdict Verdict
	Err     *rpc.WireError  // Error: the error to answer
	Confirm confirm.Outcome // Refuse: how confirmation went
	Why     string          // Refuse: why it did not run, for the result
	// Refusal is a refusal to count (the policy's kind, or one of the
	// gate's); "" for none.
	Refusal string
	// Answer is a user's answer to count, which a 2026-07-28 call brought
	// back; NotAsked for none.
	Answer confirm.Outcome
}

func refuse(how confirm.Outcome, why string) Decision {
	return Decision{Verdict: Refuse, Confirm: how, Why: why}
}

// Accept decides a tools/call the reader has checked. list is the base's
// last tool list (nil: none yet), whose annotations a read-only rule
// reads; clientCan says a handshake-era client can show an elicitation
// (its initialize said so, in a version that has it). A 2026-07-28 call
// says it itself (Elicits), and may bring the answer back.
func (g *Gate) Accept(c *Call, req *lifecycle.Request, list []byte, clientCan bool) Decision {
	name, args := req.Tool.Name, req.Tool.Args
	if d := g.policy.Check(name, lifecycle.ToolAnnotations(list, name)); !d.Allowed {
		g.log.Warn().Str("tool", name).Str("id", req.ID.String()).Msg("call refused by the policy; not sent to CAD")
		c.Denied = true
		return Decision{Verdict: Error, Refusal: d.Kind,
			Err: clienterr.Denied.With(map[string]string{"tool": name, "policy": g.policy.Source}, d.Reason)}
	}
	if !c.NeedsConfirm {
		return Decision{}
	}
	if req.Era == lifecycle.Legacy {
		return g.askWith(c, clientCan)
	}
	// 2026-07-28: no server→client requests. The first call gets an
	// input_required result; the client re-sends it with the answer and the
	// signed requestState.
	state := req.RequestState
	if state == nil {
		if g.whoAsks(req.Elicits) != policy.AskClient {
			return g.askWith(c, req.Elicits)
		}
		c.AskedBy = policy.AskClient
		return Decision{Verdict: InputRequired}
	}
	c.AskedBy = policy.AskClient
	var tok string
	if rpc.Kind(state) != rpc.KindString || json.Unmarshal(state, &tok) != nil {
		d := refuse(confirm.Refused, "its requestState is not a string issued by mcp-bridge")
		d.Refusal = RefusalRequestState
		return d
	}
	if err := g.signer.Redeem(tok, name, args); err != nil {
		g.log.Warn().Err(err).Str("tool", name).Msg("requestState refused; call not sent to CAD")
		if errors.Is(err, confirm.ErrExpired) {
			return refuse(confirm.TimedOut, err.Error())
		}
		d := refuse(confirm.Refused, err.Error())
		d.Refusal = RefusalRequestState
		return d
	}
	a := confirm.Read(req.Input)
	var d Decision
	switch a {
	case confirm.Accepted:
		c.Confirm = confirm.Accepted
	case confirm.Invalid:
		return refuse(confirm.Refused, "no answer to the confirmation came back with it")
	default:
		d = refuse(a, "you "+a.String()+" it")
	}
	d.Answer = a
	return d
}

// askWith gives a call that needs confirmation to whoever can ask its
// user, or refuses it when nobody can.
func (g *Gate) askWith(c *Call, clientCan bool) Decision {
	who := g.whoAsks(clientCan)
	if who == "" {
		return refuse(confirm.Unsupported, g.cannotAsk(clientCan))
	}
	c.Ask, c.AskedBy = true, who
	return Decision{}
}

// whoAsks is who asks this call's user (policy.WhoAsks): "" when nobody
// the user chose can.
func (g *Gate) whoAsks(clientCan bool) string {
	return policy.WhoAsks(g.confirmWith, clientCan, g.desktop)
}

// cannotAsk is why a call that needs confirmation was refused: nobody the
// user chose can ask, and what would make it work. With --confirm-with
// client it is what it always was.
func (g *Gate) cannotAsk(clientCan bool) string {
	why := "it needs your confirmation, and "
	switch {
	case !slices.Contains(g.confirmWith, policy.AskClient):
		why += "the client is not asked (--confirm-with desktop)"
	default:
		why += "this client cannot ask (it did not declare the elicitation capability)"
	}
	if slices.Contains(g.confirmWith, policy.AskDesktop) {
		why += ", and no dialog can be shown on this machine's desktop: " + g.desktopWhy
	}
	return why
}

// Question is a 2026-07-28 client's question (InputRequired): the
// input_required result carrying it and a requestState bound to the call;
// or, when the question cannot show every argument, the refusal.
func (g *Gate) Question(c *Call, req *lifecycle.Request) (result []byte, refused *Decision) {
	name, args := req.Tool.Name, req.Tool.Args
	ask, err := confirm.InputRequest(name, args)
	if err != nil {
		d := refuse(confirm.Refused, err.Error())
		return nil, &d
	}
	c.Confirm = confirm.Asked
	return fmt.Appendf(nil, `{"resultType":"input_required","inputRequests":%s,"requestState":%q}`,
		ask, g.signer.Issue(name, args)), nil
}

// Listed is the rule on names while a policy is in force: a call runs
// only for a tool the base lists under exactly the name the policy
// checked. The patterns were matched against that name; a base that folds
// case ("LAYER/delete") or is lenient with look-alike characters
// ("layer∕delete", U+2215) must not run a tool the patterns never saw.
// list is the base's tool list, or failure the client-facing error of
// reading it. Pass when the name is listed, or there is no policy.
func (g *Gate) Listed(c *Call, req *lifecycle.Request, list []byte, failure *rpc.WireError) Decision {
	p, name := g.policy, req.Tool.Name
	switch {
	case p == nil || req.Method != lifecycle.MethodToolsCall:
		return Decision{}
	case failure != nil:
		return Decision{Verdict: Error, Err: clienterr.ListUnread.New(name, p.Source, failure.Message).WithData(json.RawMessage(failure.Data))}
	case lifecycle.ListsTool(list, name):
		return Decision{}
	}
	g.log.Warn().Str("tool", name).Str("id", req.ID.String()).Msg("call for a tool the base does not list refused by the policy; not sent to CAD")
	c.Denied = true
	return Decision{Verdict: Error, Refusal: RefusalUnlisted,
		Err: clienterr.Unlisted.With(map[string]string{"tool": name, "policy": p.Source}, name, p.Source)}
}

// BeforeSend is the gate's last word before a call goes to CAD: Listed,
// with the list read by list (only under a policy: the list known, or
// read now; its error the client-facing failure), then JournalReady.
func (g *Gate) BeforeSend(c *Call, req *lifecycle.Request, list func() ([]byte, *rpc.WireError)) Decision {
	if g.policy != nil && req.Method == lifecycle.MethodToolsCall {
		l, failure := list()
		if d := g.Listed(c, req, l, failure); d.Verdict != Pass {
			return d
		}
	}
	return g.JournalReady(req)
}

// JournalReady is --journal-required: a tools/call is refused, before
// anything reaches CAD, while the journal cannot be written (its last
// write failed, or it cannot be opened now). The refusal is journalled
// like any answer, and the first write that works ends the outage.
func (g *Gate) JournalReady(req *lifecycle.Request) Decision {
	w := g.journal
	if !g.required || w == nil || req.Method != lifecycle.MethodToolsCall {
		return Decision{}
	}
	err := w.Ready()
	if err == nil {
		return Decision{}
	}
	g.log.Warn().Err(err).Str("tool", req.Tool.Name).Msg("journal cannot be written: call refused (--journal-required); not sent to CAD")
	return Decision{Verdict: Error, Err: clienterr.Journal.With(map[string]string{"journal": w.Path(), "tool": req.Tool.Name}, w.Path(), err)}
}

// ListSeen is told of each complete tool list the bridge reads from the
// base; with the first, the policy's patterns that match none of its tools
// are logged (a typo?).
func (g *Gate) ListSeen(list []byte) {
	g.unmatchedOnce.Do(func() {
		if u := g.policy.Unmatched(lifecycle.ToolNames(list)); len(u) > 0 {
			g.log.Warn().Str("policy", g.policy.Source).Str("patterns", strings.Join(u, ", ")).
				Msg("policy patterns that match none of the base's tools (a typo?)")
		}
	})
}

// End is how a request ended, for its journal line.
type End struct {
	Transport string // stdio or http
	Req       *lifecycle.Request
	Client    *journal.ClientInfo // what the client said it is; nil: nothing
	Took      time.Duration       // from its arrival to its answer
	Bytes     int                 // the answer's size as sent
	// Cancelled: the client cancelled it, or its session ended, while CAD
	// ran it: no answer went out, and it may have run.
	Cancelled bool
	Err       *rpc.WireError // the bridge's own error, answered
	RawErr    []byte         // the base's error object, passed on
	Result    []byte         // the result answered
}

// Journals reports whether Record writes anything.
func (g *Gate) Journals() bool { return g.journal != nil }

// Record writes the journal line of a request that ended.
func (g *Gate) Record(c *Call, e End) {
	if g.journal != nil {
		_ = g.journal.Write(g.Entry(c, e, time.Now())) // it logs an outage once, and the end of it
	}
}

var pid = os.Getpid()

// Entry is the journal line of a request that ended at now.
func (g *Gate) Entry(c *Call, e End, now time.Time) *journal.Entry {
	req := e.Req
	en := &journal.Entry{
		Time: now.UTC(), PID: pid, Transport: e.Transport, Era: req.Era.String(),
		Method: req.Method, Tool: req.Tool.Name, ID: req.ID.String(),
		DurationMs: float64(e.Took.Microseconds()) / 1000,
		Bytes:      e.Bytes,
		Denied:     c.Denied, Confirm: c.Confirm.String(),
		Confirmed: c.Confirm == confirm.Accepted,
		Declined:  c.Confirm.Withheld(),
		AskedBy:   c.AskedBy,
		Client:    e.Client,
	}
	if g.args && req.Method == lifecycle.MethodToolsCall {
		en.Args = req.Tool.Args
	}
	switch {
	case e.Cancelled:
		en.Outcome = journal.Cancelled
	case e.Err != nil:
		en.Outcome, en.Code, en.Message = journal.Error, e.Err.Code, e.Err.Message
		var data struct {
			Kind string `json:"kind"`
		}
		if json.Unmarshal(e.Err.Data, &data) == nil {
			en.Kind = data.Kind
		}
	case e.RawErr != nil:
		// By the exact names, as the client reads the error passed on.
		var code int64
		_ = json.Unmarshal(rpc.Field(e.RawErr, "code"), &code)
		msg, _ := rpc.String(rpc.Field(e.RawErr, "message"))
		en.Outcome, en.Code, en.Message, en.Kind = journal.Error, code, msg, "base"
	default:
		en.IsError = rpc.Kind(rpc.Field(e.Result, "isError")) == rpc.KindTrue
		switch {
		case c.Confirm == confirm.Asked:
			en.Outcome = journal.InputRequired
		case en.Declined:
			en.Outcome = journal.Declined
		case en.IsError:
			en.Outcome = journal.ToolError
		default:
			en.Outcome = journal.OK
		}
	}
	if c.Denied {
		en.Outcome = journal.Denied
	}
	return en
}
