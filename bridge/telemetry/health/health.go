// Package health answers /healthz and /livez. /livez says the process
// answers; /healthz says whether CAD does: 200 while the base answered its
// last probe or call, 503 with the reason while it could not be reached,
// so that a proxy or a checker tells "bridge up, CAD down" from "bridge
// down". The state is the core's to update; reading it never calls the
// base.
package health

import (
	"encoding/json"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcp-bridge/mcp-bridge/configs/cut"
)

// Base is what the bridge knows of the CAD base.
type Base int32

// The states: Unknown before the first call or probe.
const (
	Unknown Base = iota
	Up
	Down
)

func (b Base) String() string {
	switch b {
	case Up:
		return "up"
	case Down:
		return "down"
	}
	return "unknown"
}

// State is the base's state as the core last saw it. Its methods are safe
// for concurrent use; Up, called after every answer, costs one atomic load
// while nothing changes.
type State struct {
	base atomic.Int32
	now  func() time.Time // time.Now; tests set it

	mu     sync.Mutex
	reason string
	since  time.Time // when base took its present value
}

// New returns a state that knows nothing of the base yet.
func New() *State { return &State{now: time.Now} }

// maxReason bounds the reason kept (it can hold an error's text, with
// addresses and what the operating system said).
const maxReason = 512

// Up records that the base answered (a probe or a call, whatever the
// answer said).
func (s *State) Up() {
	if Base(s.base.Load()) == Up {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if Base(s.base.Load()) != Up {
		s.base.Store(int32(Up))
		s.reason, s.since = "", s.now()
	}
}

// Down records that the base could not be reached, and why (a sentence a
// person reads: "connection refused by 127.0.0.1:8080"). While it stays
// down, the time it went down is kept and the reason updated.
func (s *State) Down(reason string) {
	reason = cut.Bytes(reason, maxReason)
	s.mu.Lock()
	defer s.mu.Unlock()
	if Base(s.base.Load()) != Down {
		s.since = s.now()
	}
	s.base.Store(int32(Down))
	s.reason = reason
}

// Status is a copy of the state.
type Status struct {
	Base   Base
	Reason string    // why it is down; "" otherwise
	Since  time.Time // when Base took its value; zero while Unknown
}

// Status returns the state now.
func (s *State) Status() Status {
	s.mu.Lock()
	defer s.mu.Unlock()
	return Status{Base: Base(s.base.Load()), Reason: s.reason, Since: s.since}
}

// Healthz answers /healthz from s: 200 while the base is up or not yet
// known, 503 while it is down, with a JSON body naming the base's state,
// since when, and why it is down. details, when not nil, adds the core's
// figures (version, uptime, queue, sessions…) to the body; the state's
// own members win over its keys.
func Healthz(s *State, details func() map[string]any) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !readOnly(w, r) {
			return
		}
		st := s.Status()
		body := map[string]any{}
		if details != nil {
			for k, v := range details() {
				body[k] = v
			}
		}
		code := http.StatusOK
		body["status"] = "ok"
		body["base"] = st.Base.String()
		delete(body, "reason")
		delete(body, "since")
		if !st.Since.IsZero() {
			body["since"] = st.Since.UTC().Format(time.RFC3339)
		}
		if st.Base == Down {
			code = http.StatusServiceUnavailable
			body["status"] = "cad_unreachable"
			body["reason"] = st.Reason
		}
		b, err := json.Marshal(body)
		if err != nil {
			http.Error(w, "health: "+err.Error(), http.StatusInternalServerError)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(code)
		_, _ = w.Write(append(b, '\n'))
	})
}

// Livez answers /livez: 200 whenever the process can answer at all.
func Livez() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !readOnly(w, r) {
			return
		}
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		_, _ = w.Write([]byte("ok\n"))
	})
}

// readOnly refuses methods other than GET and HEAD, and marks the answer
// as one no cache keeps.
func readOnly(w http.ResponseWriter, r *http.Request) bool {
	w.Header().Set("Cache-Control", "no-store")
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return false
	}
	return true
}
