package connect

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"mime"
	"net/http"
	"strconv"

	"github.com/mcp-bridge/mcp-bridge/bridge/telemetry"
	"github.com/mcp-bridge/mcp-bridge/configs/cut"
	"github.com/mcp-bridge/mcp-bridge/lifecycle"
	"github.com/mcp-bridge/mcp-bridge/lifecycle/clienterr"
	"github.com/mcp-bridge/mcp-bridge/rpc"
)

// outgoing is one client message on its way to the remote.
type outgoing struct {
	body    []byte             // the line as the client sent it
	req     *lifecycle.Request // the request or notification as read; nil for a response or a batch
	method  string             // "" for a response or a batch
	modern  bool
	batch   bool
	ids     []rpc.ID   // the requests owed an answer
	pending []*pending // their entries, in the order of ids

	own    bool           // a modern call whose confirmation connect asks on its desktop (ask.go)
	resent bool           // sent again with connect's answer to the remote's question
	input  *inputRequired // the remote's question, taken out of the answer

	op  *telemetry.Op    // its span; nil when telemetry is off, and for a batch
	res telemetry.Result // how it failed here (answerAll); zero when the remote answered
}

func (o *outgoing) isCall() bool { return o.method == "tools/call" || o.batch }

// headers returns the transport headers for o and the session they name
// ("" for none).
func (r *relay) headers(o *outgoing) (http.Header, string) {
	if o.modern {
		h := modernHeaders(o)
		for k, v := range r.paramHeaders(o) {
			h.Set(k, v)
		}
		return h, ""
	}
	if o.method == "initialize" {
		return http.Header{}, ""
	}
	id, version := r.sess.current()
	return legacyHeaders(id, version), id
}

// request sends a request (or a batch) and relays its answer. A 404 on a
// session means the remote ran nothing: the handshake is replayed and the
// message sent once more. Anything else that fails after the message was
// written is never sent again.
func (r *relay) request(o *outgoing, sent func()) {
	defer r.untrack(o.pending)
	if o.op != nil {
		call := o.op.CallRemote(r.remoteAddr)
		o.body = withTraceContext(o.body, o.req, call)
		defer func() {
			call.End(o.res.Kind)
			o.op.End(o.res)
		}()
	}
	if !o.modern && o.method == "initialize" {
		// What the client writes next belongs to the session this
		// opens: it waits for the answer that names it (sendOrdered
		// lets it go when this returns), not only for these bytes to
		// leave, or it would go out without Mcp-Session-Id.
		sent = func() {}
	}
	ctx := r.ctx
	if !o.batch {
		ctx = o.pending[0].ctx
	}
	if o.localPing() {
		// A remote that takes the connection and answers nothing (asleep,
		// hung, packets dropped) is as away as one that refuses it.
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeoutCause(ctx, r.cfg.PingTimeout, errNoAnswer)
		defer cancel()
	}
	renewed, again, noExpect, relisted := false, false, false, false
	for {
		hdr, session := r.headers(o)
		var a attempt
		if o.isCall() {
			a = r.post(ctx, o.body, hdr, true, sent)
			if a.err == nil && a.resp.StatusCode == http.StatusExpectationFailed && !a.wrote && !noExpect {
				// Refused for the header, before any of the body left:
				// the call goes again without it (the rule that no call
				// is sent twice then rests on the body alone).
				_, _ = readAll(a.resp, 64<<10)
				if !r.noExpect.Swap(true) {
					r.log.Info().Msg("the remote refuses \"Expect: 100-continue\" (417): calls go without it")
				}
				noExpect = true
				continue
			}
			if a.err != nil && !a.wrote && !again && ctx.Err() == nil {
				// None of the call left: it may go once more, on a new
				// connection (the other pooled ones may be as stale).
				again = true
				r.hc.CloseIdleConnections()
				continue
			}
		} else {
			a = r.postAgain(ctx, o.body, hdr, sent)
		}
		if a.err != nil {
			if context.Cause(ctx) == errNoAnswer {
				a.err = fmt.Errorf("%w within %v: %w", errNoAnswer, r.cfg.PingTimeout, a.err)
			}
			r.failed(o, a)
			return
		}
		if a.resp.StatusCode == http.StatusNotFound && session != "" && renewed {
			// Refused on the new session too, right after the replay: the
			// remote keeps no session, and replaying again would loop.
			body, _ := readAll(a.resp, 64<<10)
			r.answerAll(o, clienterr.SessionLost.New(fmt.Sprintf("the remote MCP server at %s refused this request on a new session too (%s, right after the handshake was replayed): it does not keep sessions; check its log", r.url, statusText(a.resp, body))))
			return
		}
		if a.resp.StatusCode == http.StatusNotFound && session != "" {
			_, _ = readAll(a.resp, 64<<10)
			if err := r.renew(session); err != nil {
				r.log.Warn().Err(err).Msg("could not open a new remote session")
				r.answerAll(o, clienterr.SessionLost.New(fmt.Sprintf("the remote MCP server at %s ended this session and a new one could not be opened: %s", r.url, r.hint(err))))
				return
			}
			renewed = true
			continue
		}
		if a.resp.StatusCode == http.StatusBadRequest && o.modern && o.method == "tools/call" && !relisted {
			// A HeaderMismatch ran nothing: with a tool list read again,
			// the call may go once more (mirror.go).
			body, _ := readAll(a.resp, 64<<10)
			if r.relistOnMismatch(ctx, o, hdr, body) {
				relisted, again = true, false
				continue
			}
			r.answerAll(o, r.refusal(a.resp, body))
			return
		}
		r.answer(o, a.resp)
		if o.input != nil {
			body := r.answerInput(o, o.input)
			if body == nil {
				return
			}
			o.body, o.input, o.resent, again = body, nil, true, false
			continue
		}
		return
	}
}

// notify sends a notification or a client's response; the remote owes no
// answer. Failures are logged: there is nobody to tell.
func (r *relay) notify(o *outgoing, sent func()) {
	for try := 0; ; try++ {
		hdr, session := r.headers(o)
		a := r.postAgain(r.ctx, o.body, hdr, sent)
		if a.err != nil {
			if r.ctx.Err() == nil {
				r.log.Warn().Err(a.err).Str("method", o.method).Msg("could not send a notification to the remote")
				if !a.wrote {
					r.markDown(a.err)
				}
			}
			return
		}
		body, _ := readAll(a.resp, 64<<10)
		if a.resp.StatusCode == http.StatusNotFound && session != "" && try == 0 {
			if r.renew(session) == nil {
				continue
			}
		}
		if a.resp.StatusCode/100 != 2 {
			r.log.Warn().Str("method", o.method).Str("status", statusText(a.resp, body)).Msg("the remote refused a notification")
			return
		}
		if o.method == "notifications/initialized" {
			r.openStream()
		}
		return
	}
}

// postAgain posts a message that is not a tools/call, once more if its
// connection broke on the way (a pooled connection the remote closed while
// it was idle): only tools/call acts on the drawing.
func (r *relay) postAgain(ctx context.Context, body []byte, hdr http.Header, sent func()) attempt {
	a := r.post(ctx, body, hdr, false, sent)
	if a.err != nil && a.wrote && ctx.Err() == nil && !errors.Is(a.err, errSilent) {
		r.log.Debug().Err(a.err).Msg("the connection broke on the way: sending once more, on a new connection")
		r.hc.CloseIdleConnections() // the other pooled ones may be as stale
		a = r.post(ctx, body, hdr, false, sent)
	}
	return a
}

// errNoAnswer: the remote did not answer a ping within PingTimeout.
var errNoAnswer = errors.New("no answer from the remote")

// localPing: a handshake-era ping, answered here when the remote is away.
func (o *outgoing) localPing() bool { return o.method == "ping" && !o.modern && !o.batch }

// failed answers the requests of a POST that got no HTTP answer.
func (r *relay) failed(o *outgoing, a attempt) {
	if r.ctx.Err() != nil {
		return // exiting: nobody is waiting
	}
	if !o.batch && o.pending[0].ctx.Err() != nil {
		return // cancelled by the client: it is owed nothing
	}
	if !a.wrote || errors.Is(a.err, errNoAnswer) {
		r.markDown(a.err)
		if o.localPing() {
			r.release(o.pending[0])
			r.write(rpc.EncodeResult(o.ids[0], []byte("{}")))
			return
		}
		r.answerAll(o, clienterr.RemoteUnreachable.New(r.url, r.hint(a.err)))
		return
	}
	if errors.Is(a.err, errSilent) {
		r.markDown(a.err) // ping is answered here, and the probe notices its return
	}
	r.answerAll(o, r.lost(o, a.err.Error()))
}

// lost is the answer to a request whose outcome is unknown: it was
// written, and no answer came.
func (r *relay) lost(o *outgoing, why string) *rpc.WireError {
	if o.isCall() {
		return clienterr.ConnectionLost.New(fmt.Sprintf("the connection to the remote MCP server at %s broke during the call (%s): the call may have run there. It was not sent again: check the drawing before trying again", r.url, why))
	}
	return clienterr.ConnectionLost.New(fmt.Sprintf("the connection to the remote MCP server at %s broke before it answered %s (%s)", r.url, o.method, why))
}

// notAnswered is the answer to a request the remote answered with
// something that is not its answer (a proxy's or a captive portal's page,
// JSON that is no JSON-RPC response to it, an empty body): like lost, the
// request was written, so a call may have run.
func (r *relay) notAnswered(o *outgoing, why string) *rpc.WireError {
	if o.isCall() {
		return clienterr.ConnectionLost.New(fmt.Sprintf("the remote MCP server at %s did not answer the call (%s): the call may have run there. It was not sent again: check the drawing before trying again", r.url, why))
	}
	return clienterr.ConnectionLost.New(fmt.Sprintf("the remote MCP server at %s did not answer %s (%s)", r.url, o.method, why))
}

// notMCP says what a 2xx body that held no answer was.
func notMCP(resp *http.Response) string {
	ct := resp.Header.Get("Content-Type")
	mt, _, _ := mime.ParseMediaType(ct)
	if mt == "application/json" {
		return "it answered " + resp.Status + " with JSON that is no JSON-RPC response to this request"
	}
	switch {
	case ct == "":
		ct = "no Content-Type"
	default: // the remote's words: a short sample is enough
		ct = cut.Bytes(ct, 80)
	}
	return "it answered " + resp.Status + " with " + strconv.Quote(ct) + ", not an MCP message: a proxy's or a captive portal's page?"
}

// answerAll answers every request of o that is still owed one with e.
func (r *relay) answerAll(o *outgoing, e *rpc.WireError) {
	o.res = failure(e)
	for _, p := range o.pending {
		if !p.cancelled.Load() {
			r.release(p)
			r.write(rpc.EncodeError(p.id, e))
		}
	}
}

// answer relays the remote's HTTP answer to o.
func (r *relay) answer(o *outgoing, resp *http.Response) {
	switch {
	case resp.StatusCode/100 == 2 && isSSE(resp):
		defer resp.Body.Close()
		owed := r.owed(o)
		qs := r.newQuestions(o)
		defer qs.end()
		err := readSSE(resp.Body, r.cfg.MaxMessage, func(data []byte) bool {
			r.relayAnswer(o, resp, data, owed, qs)
			return len(owed) > 0
		})
		if len(owed) > 0 && r.ctx.Err() == nil {
			why := "the stream ended before the answer"
			if err != nil {
				why = err.Error()
			}
			for _, p := range owed {
				r.answerAll(&outgoing{method: o.method, batch: o.batch, pending: []*pending{p}}, r.lost(o, why))
			}
		}
	case resp.StatusCode/100 == 2:
		body, err := readAll(resp, r.cfg.MaxMessage)
		if err != nil {
			r.answerAll(o, r.lost(o, err.Error()))
			return
		}
		if len(bytes.TrimSpace(body)) == 0 {
			// 202/204: nothing to answer (a cancelled request is owed
			// nothing; answerAll skips it).
			r.answerAll(o, r.notAnswered(o, "it answered "+resp.Status+" without a message"))
			return
		}
		owed := r.owed(o)
		msgs, isBatch := rpc.DecodeLine(bytes.TrimSpace(body))
		if isBatch {
			var out []rpc.Encoded
			for _, d := range msgs {
				if m, ok := r.checkAnswer(d, owed); ok {
					out = append(out, m)
				}
			}
			switch {
			case len(out) > 0 && o.batch:
				_ = r.out.WriteBatch(out)
			case len(out) > 0:
				// An array for a single request: the client, which sent
				// none, may not read one (batches are 2025-03-26 only).
				r.write(out[0])
			}
		} else {
			r.relayAnswer(o, resp, body, owed, nil)
		}
		if len(owed) > 0 {
			r.answerAll(&outgoing{method: o.method, batch: o.batch, pending: values(owed)}, r.notAnswered(o, notMCP(resp)))
		}
	case resp.StatusCode/100 == 5:
		body, _ := readAll(resp, 64<<10)
		r.answerAll(o, r.lost(o, "it answered "+statusText(resp, body)))
	default:
		body, _ := readAll(resp, 64<<10)
		r.answerAll(o, r.refusal(resp, body))
	}
}

// refusal is the answer for a 4xx, in the words the client reads.
func (r *relay) refusal(resp *http.Response, body []byte) *rpc.WireError {
	switch {
	case resp.StatusCode == http.StatusBadRequest && bytes.Contains(body, []byte("HTTP request to an HTTPS server")):
		return clienterr.RemoteTLS.WithStatus(resp.StatusCode, r.url)
	case resp.StatusCode == http.StatusUnauthorized:
		if r.cfg.Token == "" {
			return clienterr.Unauthorized.WithStatus(resp.StatusCode, fmt.Sprintf("the remote MCP server at %s wants a token (%s), and none was sent: give connect --token-file FILE, or set CAD_MCP_TOKEN", r.url, resp.Status))
		}
		from := r.cfg.TokenFrom
		if from == "" {
			from = "the token"
		}
		return clienterr.Unauthorized.WithStatus(resp.StatusCode, fmt.Sprintf("the remote MCP server at %s refused the token (%s): check %s against the token the remote bridge was started with", r.url, resp.Status, from))
	}
	if m, ok := rpc.DecodeMessage(bytes.TrimSpace(body)).Msg.(*rpc.Response); ok && m.Error != nil && resp.StatusCode != http.StatusForbidden {
		// The remote's own JSON-RPC error (an unknown method, a version it
		// does not serve, …) passes on as it is.
		return m.Error
	}
	return clienterr.RemoteRefused.WithStatus(resp.StatusCode, r.url, statusText(resp, body))
}

// owed maps the id keys of o's requests still owed an answer.
func (r *relay) owed(o *outgoing) map[string]*pending {
	m := map[string]*pending{}
	for _, p := range o.pending {
		m[p.id.Key()] = p
	}
	return m
}

func values(m map[string]*pending) []*pending {
	var ps []*pending
	for _, p := range m {
		ps = append(ps, p)
	}
	return ps
}

// relayAnswer passes on one message of o's answer: a response to one of
// its requests (rebuilt from what was checked, with the id as the client
// sent it), or a notification or question on the way (progress,
// elicitation).
func (r *relay) relayAnswer(o *outgoing, resp *http.Response, data []byte, owed map[string]*pending, qs *questions) {
	d := rpc.DecodeMessage(data)
	res, ok := d.Msg.(*rpc.Response)
	if !ok {
		if !r.fromRemote(d.Msg, qs) {
			r.relayOther(data)
		}
		return
	}
	if o.method == "initialize" && !o.modern && res.Result != nil {
		if id := resp.Header.Get(lifecycle.HeaderSession); id != "" {
			v, _ := rpc.String(rpc.Field(res.Result, "protocolVersion"))
			r.adopt(id, v)
		}
		name, _ := rpc.String(rpc.Field(rpc.Field(res.Result, "serverInfo"), "name"))
		r.serverName.Store(&name)
	}
	if owed[res.ID.Key()] != nil {
		r.relayedList(o, res)
	}
	if o.own && !o.resent && res.Result != nil {
		if p := owed[res.ID.Key()]; p != nil && !p.cancelled.Load() {
			if ir := asInputRequired(res.Result); ir != nil {
				// The bridge's question, which connect asks on its
				// desktop: the client gets only the final answer.
				delete(owed, res.ID.Key())
				o.input = ir
				return
			}
		}
	}
	if m, ok := r.checkAnswer(d, owed); ok {
		r.write(m)
	}
}

// checkAnswer takes a response out of owed and encodes it for the client;
// false for a response to nothing owed, or to a cancelled request.
func (r *relay) checkAnswer(d rpc.Decoded, owed map[string]*pending) (rpc.Encoded, bool) {
	res, ok := d.Msg.(*rpc.Response)
	if !ok {
		r.log.Warn().Msg("the remote sent something that is not a JSON-RPC response where one was due; dropped")
		return rpc.Encoded{}, false
	}
	p := owed[res.ID.Key()]
	if p == nil {
		r.log.Warn().Str("id", res.ID.String()).Msg("the remote answered a request that is not waiting; dropped")
		return rpc.Encoded{}, false
	}
	delete(owed, res.ID.Key())
	if p.cancelled.Load() {
		return rpc.Encoded{}, false
	}
	r.release(p)
	if res.Error != nil {
		return rpc.EncodeErrorRaw(p.id, res.ErrorRaw), true
	}
	return rpc.EncodeResult(p.id, res.Result), true
}

// relayOther passes on a notification or a request from the remote.
func (r *relay) relayOther(data []byte) {
	switch m := rpc.DecodeMessage(data).Msg.(type) {
	case *rpc.Notification:
		r.write(rpc.EncodeNotification(m.Method, m.Params))
	case *rpc.Request:
		r.write(rpc.EncodeRequest(m.ID, m.Method, m.Params))
	default:
		r.log.Warn().Msg("the remote sent a message that is not JSON-RPC, or a response where none was due; dropped")
	}
}

// markDown notes that the remote cannot be reached and starts the probe
// that notices its return.
func (r *relay) markDown(err error) {
	if r.down.Swap(true) {
		return
	}
	r.log.Warn().Err(err).Str("url", r.url).Msg("the remote MCP server cannot be reached: answering ping here, probing for its return")
	r.spawn(&r.bg, r.probe)
}

func (r *relay) markUp() { r.down.Store(false) }

// probe waits for the remote to answer any HTTP request (from
// ProbeInterval, doubling to MaxProbe), then tells a handshake-era client
// that the tool list may have changed.
func (r *relay) probe() {
	wait := r.cfg.ProbeInterval
	for sleep(r.ctx, wait) {
		ctx, cancel := context.WithTimeout(r.ctx, r.cfg.PingTimeout) // a hung remote is not back
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, r.url, nil)
		r.setCommon(req.Header)
		req.Header.Set("Accept", "text/event-stream")
		resp, err := r.hc.Do(req)
		cancel()
		if err == nil {
			resp.Body.Close()
			r.markUp()
			r.log.Info().Str("url", r.url).Msg("the remote MCP server is back")
			if r.sess.hasInitialized() {
				r.write(rpc.EncodeNotification("notifications/tools/list_changed", nil))
			}
			return
		}
		wait = min(wait*2, r.cfg.MaxProbe)
	}
}
