package connect

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"sync"
	"time"

	"github.com/mcp-bridge/mcp-bridge/lifecycle"
	"github.com/mcp-bridge/mcp-bridge/rpc"
)

// sessionState is the handshake-era session with the remote, and the
// client's handshake, kept to open a new session when the remote forgets
// the old one.
type sessionState struct {
	mu          sync.Mutex // held across a replay, so that one replay serves every refused message
	id          string     // Mcp-Session-Id; "" before initialize
	version     string     // negotiated by initialize
	initLine    []byte     // the client's initialize request, as it sent it
	initialized []byte     // its notifications/initialized, once sent
	stopStream  context.CancelFunc
}

func (s *sessionState) recordInitialize(line []byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.initLine = slices.Clone(line)
	s.initialized = nil
}

func (s *sessionState) recordInitialized(line []byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.initialized = slices.Clone(line)
}

// current returns the session id and version to send a message with.
func (s *sessionState) current() (id, version string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.id, s.version
}

func (s *sessionState) hasInitialized() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.initialized != nil
}

// adopt takes the session an initialize answer opened.
func (r *relay) adopt(id, version string) {
	r.sess.mu.Lock()
	defer r.sess.mu.Unlock()
	r.adoptLocked(id, version)
}

func (r *relay) adoptLocked(id, version string) {
	if r.sess.stopStream != nil {
		r.sess.stopStream()
		r.sess.stopStream = nil
	}
	r.sess.id, r.sess.version = id, version
	r.log.Debug().Str("session", id).Str("version", version).Msg("remote session opened")
}

// openStream opens the session's GET stream (list changes), once the
// client has sent notifications/initialized.
func (r *relay) openStream() {
	r.sess.mu.Lock()
	defer r.sess.mu.Unlock()
	r.openStreamLocked()
}

func (r *relay) openStreamLocked() {
	if r.sess.id == "" || r.sess.initialized == nil {
		return
	}
	if r.sess.stopStream != nil {
		r.sess.stopStream()
	}
	ctx, cancel := context.WithCancel(r.ctx)
	r.sess.stopStream = cancel
	id, version := r.sess.id, r.sess.version
	r.spawn(&r.bg, func() { r.runStream(ctx, id, version) })
}

// errNoHandshake: the remote forgot the session, and the client never
// sent initialize through this connect to replay.
var errNoHandshake = errors.New("the remote ended the session and there is no handshake to replay (the client sent no initialize)")

// renew opens a new session after the remote answered 404 to stale: it
// replays the client's initialize (its answer goes nowhere: the client
// has had one) and notifications/initialized, then reopens the GET stream.
// A message refused on a session already replaced just uses the new one.
func (r *relay) renew(stale string) error {
	r.sess.mu.Lock()
	defer r.sess.mu.Unlock()
	if r.sess.id != stale {
		return nil
	}
	if r.sess.initLine == nil {
		return errNoHandshake
	}
	r.log.Info().Str("url", r.url).Msg("the remote session has ended (404): replaying the client's handshake")
	// Every handshake-era message waits for the session while this holds
	// it, pings too: a remote that does not answer within PingTimeout is
	// away, as for a ping.
	ctx, cancel := context.WithTimeout(r.ctx, r.cfg.PingTimeout)
	defer cancel()
	a := r.postAgain(ctx, r.sess.initLine, nil, func() {})
	if a.err != nil {
		return a.err
	}
	body, err := readAll(a.resp, r.cfg.MaxMessage)
	if err != nil {
		return err
	}
	id := a.resp.Header.Get(lifecycle.HeaderSession)
	if a.resp.StatusCode/100 != 2 || id == "" {
		return fmt.Errorf("the remote refused the replayed initialize: %s", statusText(a.resp, body))
	}
	version := ""
	if msg := firstMessage(a.resp, body); msg != nil {
		if resp, ok := rpc.DecodeMessage(msg).Msg.(*rpc.Response); ok && resp.Result != nil {
			version, _ = rpc.String(rpc.Field(resp.Result, "protocolVersion"))
		}
	}
	r.adoptLocked(id, version)
	if r.sess.initialized != nil {
		hdr := legacyHeaders(id, version)
		a := r.postAgain(ctx, r.sess.initialized, hdr, func() {})
		if a.err != nil {
			return a.err
		}
		_, _ = readAll(a.resp, 64<<10)
		if a.resp.StatusCode/100 != 2 {
			return fmt.Errorf("the remote refused the replayed notifications/initialized: %s", a.resp.Status)
		}
		r.openStreamLocked()
	}
	return nil
}

// firstMessage is the first JSON-RPC message of an answer body, JSON or
// SSE.
func firstMessage(resp *http.Response, body []byte) []byte {
	if !isSSE(resp) {
		return body
	}
	var first []byte
	_ = readSSE(bytes.NewReader(body), len(body)+1, func(data []byte) bool {
		first = data
		return false
	})
	return first
}

func legacyHeaders(id, version string) http.Header {
	h := http.Header{}
	if id != "" {
		h.Set(lifecycle.HeaderSession, id)
	}
	if version != "" {
		h.Set(lifecycle.HeaderVersion, version)
	}
	return h
}

// runStream keeps the session's GET stream open and relays what comes on
// it (notifications/tools/list_changed), reconnecting with backoff. It
// ends with ctx, when the remote offers no stream (405), or when the
// session is gone (404: the next message replays the handshake).
func (r *relay) runStream(ctx context.Context, id, version string) {
	wait := r.cfg.ProbeInterval
	for ctx.Err() == nil {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, r.url, nil)
		r.setCommon(req.Header)
		req.Header.Set("Accept", "text/event-stream")
		for k, v := range legacyHeaders(id, version) {
			req.Header[k] = v
		}
		resp, err := r.hc.Do(req)
		switch {
		case err != nil:
			if ctx.Err() == nil {
				r.markDown(err)
			}
		case resp.StatusCode == http.StatusOK:
			wait = r.cfg.ProbeInterval
			_ = readSSE(resp.Body, r.cfg.MaxMessage, func(data []byte) bool {
				if !r.fromRemote(rpc.DecodeMessage(data).Msg, nil) {
					r.relayOther(data)
				}
				return true
			})
			resp.Body.Close()
		default:
			resp.Body.Close()
			if resp.StatusCode == http.StatusMethodNotAllowed || resp.StatusCode == http.StatusNotFound {
				r.log.Debug().Int("status", resp.StatusCode).Msg("the remote's GET stream is closed")
				return
			}
			r.log.Warn().Int("status", resp.StatusCode).Msg("the remote refused the session's GET stream")
		}
		if !sleep(ctx, wait) {
			return
		}
		wait = min(wait*2, r.cfg.MaxProbe)
	}
}

// endSession ends the remote session with DELETE, at exit.
func (r *relay) endSession() {
	id, version := r.sess.current()
	if id == "" {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodDelete, r.url, nil)
	r.setCommon(req.Header)
	for k, v := range legacyHeaders(id, version) {
		req.Header[k] = v
	}
	resp, err := r.hc.Do(req)
	if err != nil {
		r.log.Warn().Err(err).Msg("could not end the remote session (DELETE); it ends there after its idle timeout")
		return
	}
	resp.Body.Close()
	r.log.Debug().Int("status", resp.StatusCode).Msg("remote session ended (DELETE)")
}

func sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}
