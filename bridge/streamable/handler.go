package streamable

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"slices"
	"strings"
	"time"

	"github.com/mcp-bridge/mcp-bridge/bridge"
	"github.com/mcp-bridge/mcp-bridge/bridge/telemetry"
	"github.com/mcp-bridge/mcp-bridge/lifecycle"
	"github.com/mcp-bridge/mcp-bridge/lifecycle/clienterr"
	"github.com/mcp-bridge/mcp-bridge/lifecycle/httpheader"
	"github.com/mcp-bridge/mcp-bridge/rpc"
)

// serveMCP is the MCP endpoint. Every request passes the guard first
// (Origin, Host, token), on every method; then it is routed by era.
func (f *httpFront) serveMCP(w http.ResponseWriter, r *http.Request) {
	if code, msg := f.guard.check(r); code != 0 {
		f.log.Warn().Int("status", code).Str("remote", r.RemoteAddr).Str("origin", r.Header.Get("Origin")).Str("host", r.Host).Msg("HTTP request refused")
		f.refuse(w, code, msg)
		return
	}
	if twin, name := underscoreTwin(r.Header); twin != "" {
		f.log.Warn().Str("header", twin).Str("remote", r.RemoteAddr).Msg("HTTP request refused: a header spelled with \"_\" for \"-\" names one the transport checks")
		f.errorStatus(w, http.StatusBadRequest, rpc.ID{}, clienterr.HeaderMismatch.New(fmt.Sprintf(
			"the header %s is %s spelled with \"_\" for \"-\", which a gateway may read as %s and mcp-bridge does not; send it with hyphens only", twin, name, name)))
		return
	}
	headerModern := isModernVersion(r.Header.Get(lifecycle.HeaderVersion))
	switch r.Method {
	case http.MethodPost:
		f.post(w, r, headerModern)
	case http.MethodGet, http.MethodDelete:
		if headerModern {
			w.Header().Set("Allow", "POST")
			f.refuse(w, http.StatusMethodNotAllowed, "Method Not Allowed: the 2026-07-28 transport has no "+r.Method)
			return
		}
		if r.Method == http.MethodGet {
			f.legacyGet(w, r)
		} else {
			f.legacyDelete(w, r)
		}
	default:
		w.Header().Set("Allow", "GET, POST, DELETE")
		f.refuse(w, http.StatusMethodNotAllowed, "Method Not Allowed: use POST (GET opens a legacy session's stream, DELETE ends it)")
	}
}

// post reads, decodes and routes one POST.
func (f *httpFront) post(w http.ResponseWriter, r *http.Request, headerModern bool) {
	if !jsonContent(r.Header.Get("Content-Type")) {
		f.refuse(w, http.StatusUnsupportedMediaType, "Unsupported Media Type: POST a JSON-RPC message as application/json")
		return
	}
	acc := r.Header.Values("Accept")
	if !accepts(acc, "application/json", "text/event-stream") {
		f.refuse(w, http.StatusNotAcceptable, "Not Acceptable: a Streamable HTTP client must send the header \"Accept: application/json, text/event-stream\" with each POST (the answer comes as either)")
		return
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, int64(f.cfg.MaxMessage)))
	if err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			f.refuse(w, http.StatusRequestEntityTooLarge, fmt.Sprintf("Request Entity Too Large: the limit is %d bytes (--max-message)", f.cfg.MaxMessage))
			return
		}
		f.refuse(w, http.StatusBadRequest, "Bad Request: could not read the body: "+err.Error())
		return
	}
	msgs, isBatch := f.core.Decode(bytes.TrimSpace(body)) // once: routing, the rules and the core read these
	// The canonical keys, read directly: Header.Get("traceparent") would
	// allocate its canonical form on every POST, telemetry on or off.
	if tp := r.Header["Traceparent"]; len(tp) > 0 && f.core.Telemetry().Enabled() {
		ts := strings.Join(r.Header["Tracestate"], ",") // W3C: several headers are one list
		for i := range msgs {
			msgs[i].LinkTraceparent, msgs[i].LinkTracestate = tp[0], ts
		}
	}
	if !isBatch && len(msgs) == 1 && msgs[0].Req != nil && !msgs[0].Req.IsNotification() {
		headerModern = headerModern || msgs[0].Req.Era == lifecycle.Modern
	}
	if headerModern {
		f.modernPost(w, r, msgs, isBatch)
		return
	}
	f.legacyPost(w, r, msgs, isBatch)
}

// ---- the stateless era (2026-07-28) ----

// modernPost serves one stateless request: headers checked against the
// body, then the core, with the request's context as its lifetime: when
// the client closes the response, the request is cancelled.
func (f *httpFront) modernPost(w http.ResponseWriter, r *http.Request, msgs []bridge.Message, isBatch bool) {
	if isBatch {
		f.errorStatus(w, http.StatusBadRequest, rpc.ID{}, clienterr.ModernBatch.New())
		return
	}
	m := &msgs[0]
	if m.Err != nil {
		f.errorStatus(w, http.StatusBadRequest, m.ID, m.Err)
		return
	}
	req := m.Req
	if req == nil || req.IsNotification() {
		w.WriteHeader(http.StatusAccepted) // a notification (none is defined) or a stray response
		return
	}
	if status, werr := checkModernRequest(r.Header, req); werr != nil {
		f.errorStatus(w, status, req.ID, werr)
		return
	}
	// A tools/call's Mcp-Param-* headers are checked by the core against
	// the tool's x-mcp-header declarations (its tool list).
	m.Headers = r.Header
	group := f.modernGroup(r, req)
	defer f.releaseModern(group)

	long := req.Method == lifecycle.MethodListen
	sse := long || (req.Method == lifecycle.MethodToolsCall && req.ProgressToken != nil && f.cfg.ProgressInterval > 0)
	if long {
		slot := f.streams.take(remoteHost(r), nil)
		if slot == nil {
			f.errorStatus(w, http.StatusServiceUnavailable, req.ID, clienterr.TooManyStreams.New(f.hc.MaxStreams))
			return
		}
		defer f.streams.release(slot)
	}
	// Each stateless request is a client of its own (its id is its own
	// business), taking its turns with the others of its program.
	out := newHTTPOut(w, sse, f.hc.WriteTimeout, f.log)
	c := f.core.NewClient(out, group.turn)
	describe(c, r, "")
	defer f.core.RemoveClient(c)
	f.core.Dispatch(c, out, msgs, false)
	if !f.wait(r, out, nil) {
		// The client closed the response: the request is cancelled. Queued,
		// it is dropped unsent; running, its base connection is closed.
		c.Cancel(req.ID)
	}
}

// checkedHeaders are the headers the transport reads from a request,
// besides the Mcp-Param-* ones.
var checkedHeaders = []string{lifecycle.HeaderVersion, lifecycle.HeaderMethod, lifecycle.HeaderName, lifecycle.HeaderSession}

// underscoreTwin finds a header in h whose name, "_" read as "-", names
// one the transport checks (checkedHeaders, or Mcp-Param-* by its prefix;
// without case) but is not spelled with hyphens there: a gateway that maps
// "_" to "-" (a CGI-style header environment, a proxy that lets
// underscores through) reads it as that header, or as one more of it,
// where net/http keys it apart and the bridge never looks. It returns the
// name as sent and the header it names; "" when there is none. (An
// Mcp-Param-* name after the prefix may hold "_" itself: a header of a
// declared name with "_" and "-" swapped is the core's to refuse,
// httpheader.Tool.Check.)
func underscoreTwin(h http.Header) (twin, name string) {
	p := len(httpheader.ParamPrefix)
	for k := range h {
		if strings.IndexByte(k, '_') < 0 {
			continue
		}
		n := strings.ReplaceAll(k, "_", "-")
		if len(n) > p && strings.EqualFold(n[:p], httpheader.ParamPrefix) {
			if strings.IndexByte(k[:p], '_') >= 0 {
				return k, httpheader.ParamPrefix + k[p:]
			}
			continue
		}
		for _, c := range checkedHeaders {
			if strings.EqualFold(n, c) {
				return k, c
			}
		}
	}
	return "", ""
}

// checkModernRequest applies the transport's header rules and the era's
// per-request rules (worked out when the request was decoded), with the
// status each failure gets.
func checkModernRequest(h http.Header, req *lifecycle.Request) (int, *rpc.WireError) {
	version := req.Version
	if version == "" {
		return http.StatusBadRequest, clienterr.NoVersion.New(lifecycle.MetaProtocolVersion)
	}
	mismatch := func(format string, args ...any) (int, *rpc.WireError) {
		return http.StatusBadRequest, clienterr.HeaderMismatch.New(fmt.Sprintf(format, args...))
	}
	// Each header once: a gateway that reads the first of two and one
	// that reads the last would route one request two ways.
	for _, k := range []string{lifecycle.HeaderVersion, lifecycle.HeaderMethod, lifecycle.HeaderName} {
		if n := len(h.Values(k)); n > 1 {
			return mismatch("the %s header was sent %d times; send it once", k, n)
		}
	}
	switch hv := h.Get(lifecycle.HeaderVersion); {
	case hv == "":
		return mismatch("the %s header is required", lifecycle.HeaderVersion)
	case hv != version:
		return mismatch("%s header %q does not match the body's %q", lifecycle.HeaderVersion, hv, version)
	}
	if req.EraErr != nil {
		return http.StatusBadRequest, req.EraErr
	}
	switch hm := h.Get(lifecycle.HeaderMethod); {
	case hm == "":
		return mismatch("the %s header is required", lifecycle.HeaderMethod)
	case hm != req.Method:
		return mismatch("%s header %q does not match the body's method %q", lifecycle.HeaderMethod, hm, req.Method)
	}
	if req.Method == lifecycle.MethodToolsCall {
		name := req.Tool.Name
		raw, sent := h[lifecycle.HeaderName]
		got, ok := "", false
		if sent {
			got, ok = httpheader.Decode(raw[0])
		}
		switch {
		case !sent:
			return mismatch("the %s header is required for tools/call", lifecycle.HeaderName)
		case !ok:
			return mismatch("%s header is not valid: printable ASCII as it is, or =?base64?…?= with strict Base64 of UTF-8", lifecycle.HeaderName)
		case got != name:
			return mismatch("%s header %q does not match the body's name %q", lifecycle.HeaderName, got, name)
		}
	}
	if m := req.Info; !m.In(lifecycle.Modern) || m.Notification {
		return http.StatusNotFound, clienterr.MethodNotFound.New(req.Method)
	}
	return 0, nil
}

// httpClientKey tells stateless clients apart, for the scheduler's turns:
// the clientInfo the request names in _meta (name and version) and the
// remote host. Two copies of one program on one machine share a turn;
// different programs, or one program on different machines, get their own.
func httpClientKey(r *http.Request, req *lifecycle.Request) string {
	return req.ClientInfo.Name + "/" + req.ClientInfo.Version + "@" + remoteHost(r)
}

// remoteHost is who sent the request, for the per-address shares of
// sessions and streams and for fair turns: the remote address without its
// port, and for IPv6 its /64 network. One IPv6 host is normally given a
// whole /64 and may pick any address in it for each connection: counted
// one by one, a single machine could take every share. An IPv4-mapped
// IPv6 address is its IPv4 address.
func remoteHost(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	ip, err := netip.ParseAddr(host)
	if err != nil {
		return host
	}
	ip = ip.Unmap()
	if ip.Is4() || ip.IsLoopback() {
		return ip.String()
	}
	p, _ := ip.WithZone("").Prefix(64)
	return p.String()
}

func (f *httpFront) modernGroup(r *http.Request, req *lifecycle.Request) *modernGroup {
	key := httpClientKey(r, req)
	f.modernMu.Lock()
	defer f.modernMu.Unlock()
	mc := f.modern[key]
	if mc == nil {
		mc = &modernGroup{key: key, turn: &bridge.Turn{}}
		f.modern[key] = mc
	}
	mc.busy++
	return mc
}

// releaseModern ends one request of the group; the group is forgotten with
// its last request, so that what is kept is bounded by the requests in
// progress, whatever names clients send (a turn with nothing queued holds
// nothing worth keeping).
func (f *httpFront) releaseModern(mc *modernGroup) {
	f.modernMu.Lock()
	if mc.busy--; mc.busy == 0 && f.modern[mc.key] == mc {
		delete(f.modern, mc.key)
	}
	f.modernMu.Unlock()
}

func (f *httpFront) modernCount() int {
	f.modernMu.Lock()
	defer f.modernMu.Unlock()
	return len(f.modern)
}

// ---- the handshake era (2025-03-26 … 2025-11-25) ----

func (f *httpFront) legacyPost(w http.ResponseWriter, r *http.Request, msgs []bridge.Message, isBatch bool) {
	hv := r.Header.Get(lifecycle.HeaderVersion)
	if hv != "" && !slices.Contains(lifecycle.LegacyVersions, hv) {
		f.refuse(w, http.StatusBadRequest, fmt.Sprintf("Bad Request: unsupported %s %q; supported: %v", lifecycle.HeaderVersion, hv, lifecycle.LegacyVersions))
		return
	}
	if len(msgs) == 1 && msgs[0].Err != nil && msgs[0].Err.Code == rpc.CodeParseError {
		f.errorStatus(w, http.StatusBadRequest, rpc.ID{}, msgs[0].Err)
		return
	}
	initialize := false
	for _, m := range msgs {
		if m.Req != nil && !m.Req.IsNotification() && m.Req.Method == lifecycle.MethodInitialize {
			initialize = true
		}
	}
	var s *session
	if initialize {
		if isBatch {
			f.refuse(w, http.StatusBadRequest, "Invalid Request: initialize must not be part of a batch")
			return
		}
		var evicted *session
		s, evicted = f.sessions.open(remoteHost(r), func(s *session) *bridge.Client {
			// The session's own stream (for list changes) is its GET stream.
			c := f.core.NewClient(sessionStream{s}, nil)
			describe(c, r, s.id)
			s.tel = f.core.Telemetry().SessionStart(telemetry.SessionInfo{Transport: telemetry.TransportTCP, HTTPVersion: httpVersion(r)})
			return c
		})
		if evicted != nil {
			f.log.Info().Str("session", evicted.id).Msg("session evicted to make room for a new one: the session table (or this address's share, --max-sessions) was full; its client must initialize again")
			f.endSession(evicted, "evicted: the session table was full")
		}
		if s == nil {
			f.refuse(w, http.StatusServiceUnavailable, fmt.Sprintf("Service Unavailable: %d sessions are open and all in use (at most %d, half of them from one address; --max-sessions)", f.sessions.count(), f.hc.MaxSessions))
			return
		}
		f.log.Debug().Str("session", s.id).Msg("session opened")
	} else {
		var status int
		if s, status = f.findSession(r); s == nil {
			f.refuse(w, status, sessionRefusal(status))
			return
		}
	}
	defer s.release()
	if v := s.client.LegacyVersion(); isBatch && v != "2025-03-26" {
		f.refuse(w, http.StatusBadRequest, fmt.Sprintf("Invalid Request: JSON-RPC batches are part of protocol version 2025-03-26 only (this session uses %s)", v))
		return
	}
	answered, progress, asks := 0, false, false // messages owed an answer: requests, and what is invalid
	var cancels []rpc.ID
	for i := range msgs {
		m := &msgs[i]
		switch req := m.Req; {
		case req != nil && !req.IsNotification():
			answered++
			progress = progress || (req.Method == lifecycle.MethodToolsCall && req.ProgressToken != nil)
			// A call the user must confirm first: the question travels on
			// this response's SSE stream, before the answer (bridge/gate.go).
			asks = asks || f.core.AsksFirst(s.client, m)
		case req != nil:
			if req.Method == lifecycle.MethodCancelled && !req.Cancels.IsZero() {
				cancels = append(cancels, req.Cancels)
			}
		case m.Msg == nil:
			answered++
		}
	}
	if answered == 0 {
		f.core.Dispatch(s.client, discard{}, msgs, isBatch)
		// A cancelled request is owed no answer: the POST that carried it
		// ends without one.
		for _, id := range cancels {
			s.mu.Lock()
			out := s.waiting[id.Key()]
			s.mu.Unlock()
			if out != nil {
				out.abandon()
			}
		}
		w.WriteHeader(http.StatusAccepted)
		return
	}
	out := newHTTPOut(w, (progress && f.cfg.ProgressInterval > 0) || asks, f.hc.WriteTimeout, f.log)
	if initialize {
		id := s.id
		out.header = func(h http.Header) { h.Set(lifecycle.HeaderSession, id) }
	}
	// A dropped connection is not a cancellation in this era: the job runs
	// to its end (its answer has nowhere to go); notifications/cancelled is.
	if !isBatch {
		if req := msgs[0].Req; req != nil && !req.IsNotification() {
			key := req.ID.Key()
			s.mu.Lock()
			s.waiting[key] = out
			s.mu.Unlock()
			defer func() {
				s.mu.Lock()
				if s.waiting[key] == out {
					delete(s.waiting, key)
				}
				s.mu.Unlock()
			}()
		}
	}
	if testHookDispatch != nil {
		testHookDispatch(msgs)
	}
	f.core.Dispatch(s.client, out, msgs, isBatch)
	f.wait(r, out, s.ended)
}

// testHookDispatch, when set by a test, runs in a legacy POST just before
// its messages are dispatched, its session found: a way to end the session
// in between.
var testHookDispatch func([]bridge.Message)

// findSession returns the request's session, held, or the status for its
// absence: 400 without the header, 404 for an unknown or ended session.
func (f *httpFront) findSession(r *http.Request) (*session, int) {
	id := r.Header.Get(lifecycle.HeaderSession)
	if id == "" {
		return nil, http.StatusBadRequest
	}
	s := f.sessions.get(id)
	if s == nil {
		return nil, http.StatusNotFound
	}
	return s, 0
}

func sessionRefusal(status int) string {
	if status == http.StatusBadRequest {
		return "Bad Request: " + lifecycle.HeaderSession + " header required (send initialize first)"
	}
	return "Not Found: unknown or ended session; send initialize to start a new one"
}

// legacyGet opens the session's stream: notifications/tools/list_changed
// travels on it. One per session.
func (f *httpFront) legacyGet(w http.ResponseWriter, r *http.Request) {
	if !accepts(r.Header.Values("Accept"), "text/event-stream") {
		f.refuse(w, http.StatusNotAcceptable, "Not Acceptable: GET opens an SSE stream; send the header \"Accept: text/event-stream\"")
		return
	}
	s, status := f.findSession(r)
	if s == nil {
		f.refuse(w, status, sessionRefusal(status))
		return
	}
	defer s.release()
	out := newHTTPOut(w, true, f.hc.WriteTimeout, f.log)
	slot := f.streams.take(remoteHost(r), out.kick)
	if slot == nil {
		f.refuse(w, http.StatusServiceUnavailable, fmt.Sprintf("Service Unavailable: too many open streams (%d, half of them from one address; --max-streams)", f.hc.MaxStreams))
		return
	}
	defer f.streams.release(slot)
	s.mu.Lock()
	if s.stream != nil {
		s.mu.Unlock()
		f.refuse(w, http.StatusConflict, "Conflict: this session already has a stream open")
		return
	}
	s.stream = out
	s.mu.Unlock()
	defer f.core.Telemetry().StreamOpened().Closed()
	defer func() {
		s.mu.Lock()
		if s.stream == out {
			s.stream = nil
		}
		s.mu.Unlock()
	}()
	out.openStream()
	f.wait(r, out, s.ended)
}

func (f *httpFront) legacyDelete(w http.ResponseWriter, r *http.Request) {
	id := r.Header.Get(lifecycle.HeaderSession)
	if id == "" {
		f.refuse(w, http.StatusBadRequest, sessionRefusal(http.StatusBadRequest))
		return
	}
	if s := f.sessions.find(id); s == nil || !f.endSession(s, "DELETE") {
		f.refuse(w, http.StatusNotFound, sessionRefusal(http.StatusNotFound))
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

// sessionStream is a legacy client's notify writer: it forwards to the
// session's GET stream when one is open, and drops the message otherwise.
type sessionStream struct{ s *session }

func (ss sessionStream) Write(m rpc.Encoded) error {
	ss.s.mu.Lock()
	st := ss.s.stream
	ss.s.mu.Unlock()
	if st != nil {
		return st.Write(m)
	}
	return nil
}

func (ss sessionStream) WriteBatch(ms []rpc.Encoded) error {
	for _, m := range ms {
		_ = ss.Write(m)
	}
	return nil
}

// discard is the stream for messages that are owed no answer.
type discard struct{}

func (discard) Write(rpc.Encoded) error        { return nil }
func (discard) WriteBatch([]rpc.Encoded) error { return nil }

// ---- shared ----

// wait is the response's own writer: it holds the handler until the
// response is complete, writing what the core hands over (httpOut) as it
// comes: the answer was written, the client went away, the session ended or
// the server is stopping. Every response gets keep-alive comments
// meanwhile, each KeepAlive (one still owed its answer then turns into an
// SSE stream, which every client accepts): a long call shows the client
// (mcp-bridge connect) that the remote is alive, and one that stays silent
// can be told dead. It returns false when the client went away before its
// answer was handed over.
func (f *httpFront) wait(r *http.Request, out *httpOut, ended <-chan struct{}) bool {
	t := time.NewTicker(f.hc.KeepAlive)
	defer t.Stop()
	tick := t.C
	for {
		select {
		case <-out.wake:
			if out.flush() {
				out.close()
				return true
			}
		case <-r.Context().Done():
			return out.close()
		case <-ended:
			out.flush()
			if !out.close() && !out.started {
				f.refuse(out.w, http.StatusNotFound, "Not Found: the session ended before this request was answered")
			}
			return true
		case <-out.abandoned:
			out.flush()
			if !out.close() && !out.started {
				out.w.WriteHeader(http.StatusNoContent)
			}
			return true
		case <-out.kicked:
			out.flush()
			out.close()
			return true
		case <-f.stopping:
			out.flush()
			if !out.close() && !out.started {
				f.refuse(out.w, http.StatusServiceUnavailable, "Service Unavailable: mcp-bridge is shutting down")
			}
			return true
		case <-tick:
			if !out.keepAlive() {
				return out.close()
			}
		}
	}
}
