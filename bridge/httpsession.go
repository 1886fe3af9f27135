package bridge

import (
	"crypto/rand"
	"encoding/base64"
	"sync"
	"time"
)

// session is one legacy-era (2025-03-26 … 2025-11-25) HTTP client, from
// its initialize to DELETE or the idle timeout.
type session struct {
	id      string
	version string // negotiated by initialize
	client  *client

	mu       sync.Mutex
	lastUsed time.Time
	busy     int                 // requests and streams in progress: never idle while > 0
	stream   *httpOut            // the GET stream, nil when none is open
	waiting  map[string]*httpOut // POSTs waiting for the answer to one request, by id key
	ended    chan struct{}       // closed when the session ends
}

// touch marks the session used now; hold/release bracket a request or a
// stream so that a session is never idle while it is in use.
func (s *session) hold() {
	s.mu.Lock()
	s.busy++
	s.lastUsed = time.Now()
	s.mu.Unlock()
}

func (s *session) release() {
	s.mu.Lock()
	s.busy--
	s.lastUsed = time.Now()
	s.mu.Unlock()
}

// sessions is the table of open legacy sessions.
type sessions struct {
	mu   sync.Mutex
	byID map[string]*session
	max  int
	idle time.Duration
}

func newSessions(max int, idle time.Duration) *sessions {
	return &sessions{byID: map[string]*session{}, max: max, idle: idle}
}

// newSessionID is 128 random bits in URL-safe Base64: visible ASCII, as
// the transport requires, and unguessable.
func newSessionID() string {
	var b [16]byte
	_, _ = rand.Read(b[:]) // never fails (crypto/rand panics instead)
	return base64.RawURLEncoding.EncodeToString(b[:])
}

// open starts a session; nil when the table is full. The caller sets its
// client.
func (t *sessions) open(version string) *session {
	t.mu.Lock()
	defer t.mu.Unlock()
	if len(t.byID) >= t.max {
		return nil
	}
	s := &session{id: newSessionID(), version: version, lastUsed: time.Now(), ended: make(chan struct{}), waiting: map[string]*httpOut{}}
	t.byID[s.id] = s
	return s
}

// get finds an open session and holds it; the caller releases it.
func (t *sessions) get(id string) *session {
	t.mu.Lock()
	defer t.mu.Unlock()
	s := t.byID[id]
	if s != nil {
		s.hold()
	}
	return s
}

// end removes a session; it reports whether it was open.
func (t *sessions) end(id string) (*session, bool) {
	t.mu.Lock()
	s, ok := t.byID[id]
	delete(t.byID, id)
	t.mu.Unlock()
	if ok {
		close(s.ended)
	}
	return s, ok
}

// expire ends the sessions idle for longer than the idle timeout and
// returns them.
func (t *sessions) expire(now time.Time) []*session {
	return t.endMatching(func(s *session) bool {
		s.mu.Lock()
		defer s.mu.Unlock()
		return s.busy == 0 && now.Sub(s.lastUsed) > t.idle
	})
}

// all ends every session, at shutdown.
func (t *sessions) all() []*session {
	return t.endMatching(func(*session) bool { return true })
}

// endMatching removes the sessions match picks (it is called with t.mu
// held), closes their ended channels once t.mu is released, and returns
// them.
func (t *sessions) endMatching(match func(*session) bool) []*session {
	t.mu.Lock()
	var gone []*session
	for id, s := range t.byID {
		if match(s) {
			delete(t.byID, id)
			gone = append(gone, s)
		}
	}
	t.mu.Unlock()
	for _, s := range gone {
		close(s.ended)
	}
	return gone
}

func (t *sessions) count() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return len(t.byID)
}
