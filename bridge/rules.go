package bridge

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcp-bridge/mcp-bridge/bridge/confirm"
	"github.com/mcp-bridge/mcp-bridge/bridge/journal"
	"github.com/mcp-bridge/mcp-bridge/bridge/policy"
	"github.com/mcp-bridge/mcp-bridge/lifecycle"
	"github.com/mcp-bridge/mcp-bridge/rpc"
)

// guard applies the user's rules to tool requests: the policy (what is
// listed and callable, with which annotations), confirmation (asking the
// user before a call runs), and the journal.
type guard struct {
	policy  *policy.Policy
	signer  *confirm.Signer
	journal *journal.Writer
	args    bool // journal arguments too

	// What a handshake-era client said in initialize.
	client     atomic.Pointer[journal.ClientInfo]
	canElicit  atomic.Bool // it declared the elicitation capability, in a version that has it
	formMode   atomic.Bool // its version's elicitation params carry "mode"
	askSeq     atomic.Int64
	mu         sync.Mutex
	asks       map[string]chan *rpc.Response // the bridge's elicitation requests awaiting an answer, by raw id
	confirmTTL time.Duration
}

// testHookNow, when set by a test, is the requestState signer's clock.
var testHookNow func() time.Time

func newGuard(cfg *Config) *guard {
	signer := confirm.NewSigner(cfg.ConfirmTimeout)
	if testHookNow != nil {
		signer.Now = testHookNow
	}
	return &guard{
		policy:     cfg.Policy,
		signer:     signer,
		journal:    cfg.Journal,
		args:       cfg.JournalArgs,
		asks:       map[string]chan *rpc.Response{},
		confirmTTL: cfg.ConfirmTimeout,
	}
}

// initialized notes what a handshake-era client declared: its clientInfo,
// and whether it can show an elicitation (2025-06-18 and later).
func (g *guard) initialized(params, result []byte) {
	var p struct {
		ClientInfo   journal.ClientInfo `json:"clientInfo"`
		Capabilities struct {
			Elicitation json.RawMessage `json:"elicitation"`
		} `json:"capabilities"`
	}
	_ = json.Unmarshal(params, &p)
	ci := p.ClientInfo
	g.client.Store(&ci)
	var version string
	_ = json.Unmarshal(rpc.Field(result, "protocolVersion"), &version)
	g.canElicit.Store(rpc.Kind(p.Capabilities.Elicitation) == '{' && version >= "2025-06-18")
	g.formMode.Store(version >= "2025-11-25")
}

// callArgs returns a tools/call's name and arguments.
func callArgs(params []byte) (string, []byte) {
	var name string
	_ = json.Unmarshal(rpc.Field(params, "name"), &name)
	return name, rpc.Field(params, "arguments")
}

// admitCall applies the policy and confirmation to a tools/call the reader
// has checked. It returns false when it answered the call itself (denied,
// refused, or a modern client asked to confirm); true when the job goes to
// the worker, possibly marked to ask the user first.
func (b *bridge) admitCall(j *job) bool {
	g := b.guard
	name, args := callArgs(j.req.Params)
	j.tool = name
	if d := g.policy.Check(name, policy.ToolAnnotations(b.tools.lastList(), name)); !d.Allowed {
		b.log.Warn().Str("tool", name).Str("id", j.req.ID.String()).Msg("call refused by the policy; not sent to CAD")
		werr := rpc.Errorf(rpc.CodeInvalidParams, "%s; nothing was sent to CAD", d.Reason).
			WithData(map[string]string{"kind": "denied", "tool": name, "policy": g.policy.Source})
		j.denied = true
		b.answerNow(j, outcome{err: werr})
		return false
	}
	if _, ok := g.policy.NeedsConfirm(name); !ok {
		return true
	}
	if j.era == lifecycle.Legacy {
		if !g.canElicit.Load() {
			b.refuse(j, "unsupported", "it needs your confirmation, and this client cannot ask (it did not declare the elicitation capability)")
			return false
		}
		j.ask = true
		return true
	}
	// 2026-07-28: no server→client requests. The first call gets an
	// input_required result; the client re-sends it with the answer and the
	// signed requestState.
	params := j.req.Params
	state := rpc.Field(params, "requestState")
	if state == nil {
		caps := rpc.Field(rpc.Field(params, "_meta"), lifecycle.MetaClientCapabilities)
		if rpc.Kind(rpc.Field(caps, "elicitation")) != '{' {
			b.refuse(j, "unsupported", "it needs your confirmation, and this client cannot ask (it did not declare the elicitation capability)")
			return false
		}
		res := fmt.Appendf(nil, `{"resultType":"input_required","inputRequests":%s,"requestState":%q}`,
			confirm.InputRequest(name, args), g.signer.Issue(name, args))
		j.confirm = "asked"
		b.answerNow(j, outcome{result: b.cfg.Server.Decorate("tools/call", res)})
		return false
	}
	var tok string
	if rpc.Kind(state) != '"' || json.Unmarshal(state, &tok) != nil {
		b.refuse(j, "refused", "its requestState is not a string issued by mcp-bridge")
		return false
	}
	if err := g.signer.Redeem(tok, name, args); err != nil {
		why := "refused"
		if errors.Is(err, confirm.ErrExpired) {
			why = "timed out"
		}
		b.log.Warn().Err(err).Str("tool", name).Msg("requestState refused; call not sent to CAD")
		b.refuse(j, why, err.Error())
		return false
	}
	switch a := confirm.Read(rpc.Field(rpc.Field(params, "inputResponses"), confirm.InputKey)); a {
	case confirm.Accepted:
		j.confirm = "accepted"
		p := rpc.WithoutMember(rpc.WithoutMember(params, "requestState"), "inputResponses")
		j.frame = baseFrame(&rpc.Request{ID: j.req.ID, Method: j.req.Method, Params: p})
		return true
	case confirm.Invalid:
		b.refuse(j, "refused", "no answer to the confirmation came back with it")
	default:
		b.refuse(j, a.String(), "you "+a.String()+" it")
	}
	return false
}

// refuse answers a call that needed confirmation and did not get it: an
// isError result saying why; nothing goes to CAD.
func (b *bridge) refuse(j *job, how, why string) {
	b.log.Info().Str("tool", j.tool).Str("confirmation", how).Msg("call not sent to CAD")
	j.confirm = how
	res := confirm.Refusal(j.tool, why)
	if j.era == lifecycle.Modern {
		res = b.cfg.Server.Decorate("tools/call", res)
	}
	b.answerNow(j, outcome{result: res})
}

// answerNow answers a job the reader settles itself, and journals it.
func (b *bridge) answerNow(j *job, o outcome) {
	b.record(j, o)
	b.reply(j.batch, j.req.ID, o.result, o.err) // not queued: holds no batch reference
}

// askUser is the worker's handshake-era confirmation: an elicitation/create
// request to the client, and its answer. It returns the refusal to give
// when the call must not run, or nil when the user agreed. Nothing is
// returned after ctx ends because the client cancelled the call: deliver
// then sends nothing.
func (b *bridge) askUser(ctx context.Context, j *job) *outcome {
	g := b.guard
	name, args := callArgs(j.req.Params)
	params := confirm.LegacyParams(name, args)
	if g.formMode.Load() {
		params = confirm.Params(name, args)
	}
	id := strconv.Quote("mcp-bridge-confirm-" + strconv.FormatInt(g.askSeq.Add(1), 10))
	ch := make(chan *rpc.Response, 1)
	g.mu.Lock()
	g.asks[id] = ch
	g.mu.Unlock()
	defer func() {
		g.mu.Lock()
		delete(g.asks, id)
		g.mu.Unlock()
	}()
	req := fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%s,"method":"elicitation/create","params":%s}`, id, params)
	if err := b.out.WriteLine(req); err != nil {
		return b.refusal(j, "refused", "the question could not be sent to the client")
	}
	b.log.Info().Str("tool", name).Str("ask", id).Msg("asking the user to confirm")
	askCtx, cancel := context.WithTimeout(ctx, g.confirmTTL)
	defer cancel()
	select {
	case resp := <-ch:
		if resp.Error != nil {
			return b.refusal(j, "refused", "the client could not ask you ("+resp.Error.Message+")")
		}
		switch a := confirm.Read(resp.Result); a {
		case confirm.Accepted:
			j.confirm = "accepted"
			return nil
		case confirm.Invalid:
			return b.refusal(j, "refused", "the client's answer to the question was not an elicitation result")
		default:
			return b.refusal(j, a.String(), "you "+a.String()+" it")
		}
	case <-askCtx.Done():
		_ = b.out.WriteNotification("notifications/cancelled",
			fmt.Appendf(nil, `{"requestId":%s,"reason":"mcp-bridge stopped waiting for the answer"}`, id))
		if ctx.Err() == nil { // our own timeout, not the client's cancel or shutdown
			return b.refusal(j, "timed out", fmt.Sprintf("nobody answered the question within %s", g.confirmTTL))
		}
		return b.refusal(j, "cancelled", "it was cancelled or mcp-bridge stopped while waiting for your answer")
	}
}

func (b *bridge) refusal(j *job, how, why string) *outcome {
	j.confirm = how
	return &outcome{result: confirm.Refusal(j.tool, why)}
}

// clientResponse routes a response from the client to the elicitation
// request it answers. It reports whether one was waiting.
func (b *bridge) clientResponse(r *rpc.Response) bool {
	g := b.guard
	g.mu.Lock()
	ch, ok := g.asks[r.ID.String()]
	delete(g.asks, r.ID.String())
	g.mu.Unlock()
	if ok {
		ch <- r
	}
	return ok
}

// record writes the journal line for a job's answer.
func (b *bridge) record(j *job, o outcome) {
	g := b.guard
	if g.journal == nil {
		return
	}
	e := &journal.Entry{
		Time: time.Now().UTC(), PID: pid, Transport: b.cfg.Transport, Era: j.era.String(),
		Method: j.req.Method, Tool: j.tool, ID: j.req.ID.String(),
		DurationMs: float64(time.Since(j.start).Microseconds()) / 1000,
		Denied:     j.denied, Confirm: j.confirm,
		Confirmed: j.confirm == "accepted",
	}
	e.Declined = j.confirm != "" && j.confirm != "accepted" && j.confirm != "asked"
	if j.era == lifecycle.Modern {
		var ci journal.ClientInfo
		if json.Unmarshal(rpc.Field(rpc.Field(j.req.Params, "_meta"), "io.modelcontextprotocol/clientInfo"), &ci) == nil && ci.Name != "" {
			e.Client = &ci
		}
	} else if ci := g.client.Load(); ci != nil && ci.Name != "" {
		e.Client = ci
	}
	if g.args && j.req.Method == "tools/call" {
		_, e.Args = callArgs(j.req.Params)
	}
	switch {
	case o.err != nil:
		e.Outcome, e.Code, e.Message = journal.Error, o.err.Code, o.err.Message
		e.Bytes = len(o.err.Message)
		var data struct {
			Kind string `json:"kind"`
		}
		if json.Unmarshal(o.err.Data, &data) == nil {
			e.Kind = data.Kind
		}
	case o.rawErr != nil:
		e.Outcome, e.Bytes = journal.Error, len(o.rawErr)
		var we struct {
			Code    int64  `json:"code"`
			Message string `json:"message"`
		}
		_ = json.Unmarshal(o.rawErr, &we)
		e.Code, e.Message, e.Kind = we.Code, we.Message, "base"
	default:
		e.Bytes = len(o.result)
		e.IsError = rpc.Kind(rpc.Field(o.result, "isError")) == 't'
		switch {
		case j.confirm == "asked":
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
	if err := g.journal.Write(e); err != nil {
		b.log.Warn().Err(err).Msg("could not write the journal")
	}
}

var pid = os.Getpid()
