package connect

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"sync"

	"github.com/mcp-bridge/mcp-bridge/bridge/guard/confirm"
	"github.com/mcp-bridge/mcp-bridge/bridge/guard/confirm/desktop"
	"github.com/mcp-bridge/mcp-bridge/bridge/guard/policy"
	"github.com/mcp-bridge/mcp-bridge/lifecycle"
	"github.com/mcp-bridge/mcp-bridge/lifecycle/clienterr"
	"github.com/mcp-bridge/mcp-bridge/rpc"
)

// Confirmation on the client's machine. A remote bridge whose policy wants
// a call confirmed asks the client (elicitation); a client that cannot ask
// gets a refusal. The user of connect sits at the client's machine, so
// connect can ask there itself: it declares the capability on the client's
// behalf and shows the question on its own desktop (Config.Desktop). What
// the dialog shows comes from the call connect relayed, never from the
// remote's words: connect knows which call each question belongs to.

// asksHere reports whether connect asks its user on its desktop rather
// than leaving the question to the client (clientCan: it can show a
// form): the first of ConfirmWith that can ask, as the bridge chooses.
func (r *relay) asksHere(clientCan bool) bool {
	return policy.WhoAsks(r.cfg.ConfirmWith, clientCan, r.cfg.Desktop != nil) == policy.AskDesktop
}

// withForms returns caps (a capabilities object, whose member elicitation
// is el) declaring form elicitation: "elicitation":{} added, or "form":{}
// added to an elicitation object that has only "url".
func withForms(caps, el []byte) []byte {
	v := []byte("{}")
	if rpc.Kind(el) == rpc.KindObject {
		v = setMember(el, "form", []byte("{}"))
	}
	return setMember(caps, "elicitation", v)
}

// setMember returns the JSON object obj with its member key (every
// occurrence) replaced by one whose value is v.
func setMember(obj []byte, key string, v []byte) []byte {
	k, _ := json.Marshal(key)
	return rpc.AppendMembers(rpc.WithoutMember(obj, key), string(k)+":"+string(v))
}

// legacyInitialize is what connect does with a handshake-era initialize
// line: it notes the client's name and whether connect asks for it, and
// returns the line to send, with form elicitation declared when connect
// asks and the client declared none.
func (r *relay) legacyInitialize(req *lifecycle.Request, line []byte) []byte {
	name := req.ClientInfo.Name
	r.clientName.Store(&name)
	caps := req.Capabilities
	own := r.asksHere(req.Elicits)
	r.legacyOwn.Store(own)
	if !own || req.Elicits || rpc.Kind(caps) != rpc.KindObject {
		return line
	}
	params := setMember(req.Params, "capabilities", withForms(caps, req.Elicitation))
	r.log.Debug().Msg("the client cannot ask for confirmation: connect declares elicitation for it and asks on this desktop")
	return rpc.EncodeRequest(req.ID, req.Method, params).AppendTo(nil)
}

// modernCall is the same for a 2026-07-28 tools/call: its _meta's
// clientCapabilities get form elicitation when connect asks and the
// client cannot. own is whether connect asks for this call.
func (r *relay) modernCall(req *lifecycle.Request, line []byte) (out []byte, own bool) {
	caps := req.Capabilities
	if !r.asksHere(req.Elicits) || rpc.Kind(caps) != rpc.KindObject {
		return line, false
	}
	if req.Elicits {
		return line, true
	}
	meta := setMember(req.Meta, lifecycle.MetaClientCapabilities, withForms(caps, req.Elicitation))
	params := setMember(req.Params, "_meta", meta)
	return rpc.EncodeRequest(req.ID, req.Method, params).AppendTo(nil), true
}

// callOf is the tool and arguments of o, a tools/call connect relayed, as
// read when the client sent it; ok false when o is no single tools/call
// with a name.
func callOf(o *outgoing) (tool string, args []byte, ok bool) {
	if o == nil || o.batch || o.req == nil || o.method != "tools/call" {
		return "", nil, false
	}
	return o.req.Tool.Name, o.req.Tool.Args, o.req.Tool.Name != ""
}

// isConfirmForm reports whether elicitation params are a form asking the
// one boolean "confirm" (the bridge's question): the only form connect can
// fill in.
func isConfirmForm(params []byte) bool {
	if _, _, twins := rpc.FoldTwins(params, true); twins {
		return false // two spellings of one key say two things: not the bridge's question
	}
	if mode, ok := rpc.String(rpc.Field(params, "mode")); rpc.Field(params, "mode") != nil && (!ok || mode != "form") {
		return false
	}
	props := rpc.Field(rpc.Field(params, "requestedSchema"), "properties")
	n := 0
	_ = rpc.ScanObject(props, func(string, int, int) bool { n++; return true })
	typ, _ := rpc.String(rpc.Field(rpc.Field(props, lifecycle.InputKey), "type"))
	return n == 1 && typ == "boolean"
}

// isURLMode: elicitation params asking the client to open a URL, which
// connect leaves to a client that declared it.
func isURLMode(params []byte) bool {
	mode, _ := rpc.String(rpc.Field(params, "mode"))
	return mode == "url"
}

// bridgeName is the remote's name for the dialog: its serverInfo name, or
// the URL's host.
func (r *relay) bridgeName(serverInfo []byte) string {
	if name, ok := rpc.String(rpc.Field(serverInfo, "name")); ok && name != "" {
		return name
	}
	if p := r.serverName.Load(); p != nil && *p != "" {
		return *p
	}
	if u, err := url.Parse(r.url); err == nil {
		return u.Host
	}
	return r.url
}

// ask shows q on the desktop until the user answers, the timeout passes or
// ctx ends (the dialog closes at once). One dialog at a time: the remote
// may ask about several calls of the client at once, and q waits (within
// ctx) until the dialog before it has closed.
func (r *relay) ask(ctx context.Context, q desktop.Question) (desktop.Answer, error) {
	select {
	case r.dialog <- struct{}{}:
	default:
		r.log.Debug().Str("tool", q.Tool).Msg("the remote's question waits for the dialog before it to close")
		select {
		case r.dialog <- struct{}{}:
		case <-ctx.Done():
			return desktop.Cancelled, nil
		}
	}
	defer func() { <-r.dialog }()
	q.Timeout = r.cfg.ConfirmTimeout
	r.log.Info().Str("tool", q.Tool).Str("asker", r.cfg.Desktop.Name()).Msg("asking the user to confirm on this desktop, for the remote")
	ans, err := r.cfg.Desktop.Ask(ctx, q)
	if err != nil {
		r.log.Warn().Err(err).Str("tool", q.Tool).Msg("the question could not be shown on this desktop")
	} else {
		r.log.Info().Str("tool", q.Tool).Str("answer", ans.String()).Msg("desktop question answered")
	}
	return ans, err
}

// elicitResult is the elicitation result for a desktop answer.
func elicitResult(a desktop.Answer) []byte {
	switch a {
	case desktop.Run:
		return []byte(`{"action":"accept","content":{"confirm":true}}`)
	case desktop.DontRun:
		return []byte(`{"action":"decline"}`)
	}
	return []byte(`{"action":"cancel"}`)
}

// questions are the questions the remote asked on one call's answer
// stream (handshake era).
type questions struct {
	r      *relay
	o      *outgoing
	ctx    context.Context // ends with the stream, the call's cancellation, stdin's end or exit
	stop   context.CancelFunc
	mu     sync.Mutex
	asked  bool                          // one question per call: the bridge asks once
	open   map[string]context.CancelFunc // by question id key: withdraws it
	closed map[string]bool               // withdrawn by the remote: not answered
}

// newQuestions starts the questions of o's answer stream; end ends them.
func (r *relay) newQuestions(o *outgoing) *questions {
	ctx := r.ctx
	if len(o.pending) == 1 {
		ctx = o.pending[0].asks
	}
	ctx, stop := context.WithCancel(ctx)
	return &questions{r: r, o: o, ctx: ctx, stop: stop, open: map[string]context.CancelFunc{}, closed: map[string]bool{}}
}

func (qs *questions) end() { qs.stop() }

// fromRemote handles a request or notification from the remote on a
// call's stream (qs) or elsewhere (qs nil); false when it is not connect's
// to handle (it goes to the client).
func (r *relay) fromRemote(m rpc.Message, qs *questions) bool {
	switch m := m.(type) {
	case *rpc.Request:
		if m.Method != "elicitation/create" || !r.legacyOwn.Load() || isURLMode(m.Params) {
			return false
		}
		if qs == nil {
			r.log.Warn().Str("id", m.ID.String()).Msg("the remote asked a question that belongs to no call connect relayed (on the session's GET stream): declined")
			r.answerRemote(m.ID, elicitResult(desktop.DontRun), nil)
			return true
		}
		qs.ask(m)
		return true
	case *rpc.Notification:
		if m.Method != "notifications/cancelled" || qs == nil {
			return false
		}
		id, ok := rpc.ParseID(rpc.Field(m.Params, "requestId"))
		return ok && qs.withdraw(id)
	}
	return false
}

// ask shows the remote's question about the call of this stream on the
// desktop, on a goroutine of its own (the stream's keep-alives go on being
// read), and answers the remote as the client would.
func (qs *questions) ask(m *rpc.Request) {
	r := qs.r
	tool, args, ok := callOf(qs.o)
	why := ""
	switch {
	case !ok:
		why = "it does not belong to one tools/call with a tool name"
	case !isConfirmForm(m.Params):
		why = "it is not a form asking only to confirm (the one question connect can ask on this desktop)"
	}
	qs.mu.Lock()
	if why == "" && qs.asked {
		why = "the remote already asked about this call"
	}
	if why != "" {
		qs.mu.Unlock()
		r.log.Warn().Str("id", m.ID.String()).Str("why", why).Msg("the remote asked a question connect will not show: declined")
		r.answerRemote(m.ID, elicitResult(desktop.DontRun), nil)
		return
	}
	qs.asked = true
	// The question's id outlives this call: its bytes lie in the SSE
	// reader's buffer, which the next event overwrites (a data race under
	// -race, and a wrong id in the answer), so the goroutine keeps a copy.
	id, _ := rpc.ParseID(bytes.Clone(m.ID.Raw()))
	ctx, withdraw := context.WithCancel(qs.ctx)
	qs.open[id.Key()] = withdraw
	qs.mu.Unlock()
	name := ""
	if p := r.clientName.Load(); p != nil {
		name = *p
	}
	q := desktop.Question{Bridge: r.bridgeName(nil), Client: name, Tool: tool, Args: args}
	if !r.spawn(&r.calls, func() {
		defer withdraw()
		ans, err := r.ask(ctx, q)
		qs.mu.Lock()
		gone := qs.closed[id.Key()]
		delete(qs.open, id.Key())
		qs.mu.Unlock()
		switch {
		case gone:
			return // the remote withdrew it: nobody waits for an answer
		case err != nil && ctx.Err() == nil:
			r.answerRemote(id, nil, clienterr.DesktopFailed.New(err))
		case ctx.Err() != nil:
			r.answerRemote(id, elicitResult(desktop.Cancelled), nil)
		default:
			r.answerRemote(id, elicitResult(ans), nil)
		}
	}) {
		withdraw()
	}
}

// withdraw closes the dialog of a question the remote withdrew; false
// when it is none of connect's.
func (qs *questions) withdraw(id rpc.ID) bool {
	qs.mu.Lock()
	defer qs.mu.Unlock()
	stop, ok := qs.open[id.Key()]
	if ok {
		qs.closed[id.Key()] = true
		stop()
	}
	return ok
}

// answerRemote posts the answer to a question, as the client would: a
// result, or an error e. It is sent even while connect is stopping (within
// PingTimeout), so that the remote refuses the call at once.
func (r *relay) answerRemote(id rpc.ID, result []byte, e *rpc.WireError) {
	var body []byte
	if e != nil {
		body = rpc.EncodeError(id, e).AppendTo(nil)
	} else {
		body = rpc.EncodeResult(id, result).AppendTo(nil)
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(r.ctx), r.cfg.PingTimeout)
	defer cancel()
	sid, version := r.sess.current()
	a := r.postAgain(ctx, body, legacyHeaders(sid, version), func() {})
	if a.err != nil {
		r.log.Warn().Err(a.err).Msg("could not send the answer to the remote's question")
		return
	}
	b, _ := readAll(a.resp, 64<<10)
	if a.resp.StatusCode/100 != 2 {
		r.log.Warn().Str("status", statusText(a.resp, b)).Msg("the remote refused the answer to its question")
	}
}

// inputRequired is a 2026-07-28 call's input_required answer that connect
// answers itself: the bridge's one confirm question.
type inputRequired struct {
	state      []byte // requestState, raw
	serverInfo []byte // the result's _meta serverInfo
}

// asInputRequired reads a result as the bridge's confirm question; nil for
// anything else (which goes to the client unchanged).
func asInputRequired(result []byte) *inputRequired {
	if kind, _ := rpc.String(rpc.Field(result, "resultType")); kind != "input_required" {
		return nil
	}
	if _, _, twins := rpc.FoldTwins(result, true); twins {
		return nil
	}
	reqs := rpc.Field(result, "inputRequests")
	n := 0
	if rpc.ScanObject(reqs, func(string, int, int) bool { n++; return true }) != nil || n != 1 {
		return nil
	}
	ask := rpc.Field(reqs, lifecycle.InputKey)
	if method, _ := rpc.String(rpc.Field(ask, "method")); method != "elicitation/create" || !isConfirmForm(rpc.Field(ask, "params")) {
		return nil
	}
	state := rpc.Field(result, "requestState")
	if rpc.Kind(state) != rpc.KindString {
		return nil
	}
	// Copies: result may lie in the SSE reader's buffer, which the next
	// event overwrites, and these are used after the stream is read.
	return &inputRequired{state: bytes.Clone(state), serverInfo: bytes.Clone(rpc.Field(rpc.Field(result, "_meta"), lifecycle.MetaServerInfo))}
}

// answerInput asks the user about o's call on the desktop and returns the
// call to send again with the answer (nothing ran: input_required is the
// remote's question, not an outcome); nil when o was answered here or is
// owed nothing (cancelled, exiting).
func (r *relay) answerInput(o *outgoing, ir *inputRequired) []byte {
	p := o.pending[0]
	// The line as sent last (its capabilities amended, modernCall), to be
	// sent again with the answer; what the dialog shows, as read.
	m, ok := rpc.DecodeMessage(bytes.TrimSpace(o.body)).Msg.(*rpc.Request)
	if !ok {
		return nil
	}
	tool, args := o.req.Tool.Name, o.req.Tool.Args
	ans, err := r.ask(p.asks, desktop.Question{Bridge: r.bridgeName(ir.serverInfo), Client: o.req.ClientInfo.Name, Tool: tool, Args: args})
	if p.ctx.Err() != nil {
		return nil // the client cancelled, or connect is exiting
	}
	if err != nil && p.asks.Err() == nil {
		res := confirm.Refusal(tool, fmt.Sprintf("the question could not be shown on this machine's desktop (%v)", err))
		r.release(p)
		r.write(rpc.EncodeResult(p.id, res))
		return nil
	}
	if p.asks.Err() != nil {
		ans = desktop.Cancelled
	}
	params := rpc.WithoutMember(rpc.WithoutMember(m.Params, "inputResponses"), "requestState")
	params = rpc.AppendMembers(params, fmt.Sprintf(`%q:{%q:%s},"requestState":%s`, "inputResponses", lifecycle.InputKey, elicitResult(ans), ir.state))
	return rpc.EncodeRequest(m.ID, m.Method, params).AppendTo(nil)
}
