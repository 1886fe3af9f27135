package streamable

import (
	"crypto/rand"
	"encoding/base64"
	"slices"
	"sync"
	"time"

	"github.com/mcp-bridge/mcp-bridge/bridge"
	"github.com/mcp-bridge/mcp-bridge/bridge/telemetry"
)

// session is one legacy-era (2025-03-26 … 2025-11-25) HTTP client, from
// its initialize to DELETE, the idle timeout or eviction.
type session struct {
	id     string
	addr   string         // the remote host that opened it, for its share of the table
	client *bridge.Client // its protocol version is the one its initialize agreed
	tel    *telemetry.Session

	mu       sync.Mutex
	lastUsed time.Time
	used     bool                // a request came after initialize
	busy     int                 // requests and streams in progress: never idle while > 0
	stream   *httpOut            // the GET stream, nil when none is open
	waiting  map[string]*httpOut // POSTs waiting for the answer to one request, by id key

	endOnce sync.Once     // endSession's: a session ends once, whoever took it out of the table
	ended   chan struct{} // closed when the session ends
}

// hold and release bracket a request or a stream, so that a session is
// never idle while it is in use; each marks it used now.
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

// idle reports whether the session has been unused past its timeout: the
// idle timeout once it was used; before, the shorter of the idle timeout
// and the unused one (a --session-idle shorter than the unused timeout
// holds for every session).
func (s *session) idle(now time.Time, idle, unused time.Duration) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	limit := idle
	if !s.used {
		limit = min(idle, unused)
	}
	return s.busy == 0 && now.Sub(s.lastUsed) > limit
}

// state is what eviction weighs: whether the session was used after its
// initialize, whether a request or stream of it is in progress, and when
// it was last used.
func (s *session) state() (used, busy bool, last time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.used, s.busy > 0, s.lastUsed
}

// sessions is the table of open legacy sessions. It holds at most max,
// and one remote address at most share of them, so that one client
// opening sessions in a loop cannot lock the others out: when the table
// (or the address's share) is full, the oldest session never used after
// its initialize makes room; when there is none, the session idle the
// longest does (one cheap request makes a session "used", so used
// sessions left open would otherwise lock everyone out until
// --session-idle). Only when every session is in use (a request or a
// stream in progress) is anyone refused. An evicted client that comes
// back gets 404 and, as the transport says, initializes again.
type sessions struct {
	mu     sync.Mutex
	byID   map[string]*session
	order  []*session // by opening time, oldest first
	perIP  map[string]int
	max    int
	share  int
	idle   time.Duration
	unused time.Duration
}

func newSessions(n int, idle, unused time.Duration) *sessions {
	return &sessions{byID: map[string]*session{}, perIP: map[string]int{}, max: n, share: max(1, n/2), idle: idle, unused: unused}
}

// newSessionID is 128 random bits in URL-safe Base64: visible ASCII, as
// the transport requires, and unguessable.
func newSessionID() string {
	var b [16]byte
	_, _ = rand.Read(b[:]) // never fails (crypto/rand panics instead)
	return base64.RawURLEncoding.EncodeToString(b[:])
}

// open starts a session for a client at addr, held (the caller releases
// it), with the client newClient makes for it; nil when there is no room.
// evicted, when not nil, is the session that made room: the caller ends
// it.
func (t *sessions) open(addr string, newClient func(*session) *bridge.Client) (s, evicted *session) {
	t.mu.Lock()
	defer t.mu.Unlock()
	switch {
	case t.perIP[addr] >= t.share:
		if evicted = t.evictable(addr); evicted == nil {
			return nil, nil
		}
	case len(t.byID) >= t.max:
		if evicted = t.evictable(""); evicted == nil {
			return nil, nil
		}
	}
	if evicted != nil {
		t.removeLocked(evicted)
	}
	s = &session{id: newSessionID(), addr: addr, lastUsed: time.Now(), busy: 1, ended: make(chan struct{}), waiting: map[string]*httpOut{}}
	s.client = newClient(s)
	t.byID[s.id] = s
	t.order = append(t.order, s)
	t.perIP[addr]++
	return s, evicted
}

// evictable is the session that makes room, of addr when it is not empty:
// the oldest never-used one, else the one idle the longest; nil when every
// one is in use. t.mu is held.
func (t *sessions) evictable(addr string) *session {
	var lru *session
	var lruLast time.Time
	for _, s := range t.order {
		if addr != "" && s.addr != addr {
			continue
		}
		used, busy, last := s.state()
		switch {
		case busy:
		case !used:
			return s
		case lru == nil || last.Before(lruLast):
			lru, lruLast = s, last
		}
	}
	return lru
}

// removeLocked takes s out of the table; t.mu is held. It reports whether
// s was in it.
func (t *sessions) removeLocked(s *session) bool {
	if t.byID[s.id] != s {
		return false
	}
	delete(t.byID, s.id)
	for i, o := range t.order {
		if o == s {
			t.order = append(t.order[:i:i], t.order[i+1:]...)
			break
		}
	}
	if t.perIP[s.addr]--; t.perIP[s.addr] <= 0 {
		delete(t.perIP, s.addr)
	}
	return true
}

// get finds an open session, marks it used and holds it; the caller
// releases it.
func (t *sessions) get(id string) *session {
	t.mu.Lock()
	defer t.mu.Unlock()
	s := t.byID[id]
	if s != nil {
		s.hold()
		s.mu.Lock()
		s.used = true
		s.mu.Unlock()
	}
	return s
}

// find returns an open session without holding it.
func (t *sessions) find(id string) *session {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.byID[id]
}

// remove takes s out of the table; it reports whether s was still in it.
// Only httpFront.endSession calls it (open takes an evicted one out
// itself, and the caller ends it).
func (t *sessions) remove(s *session) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.removeLocked(s)
}

// takeExpired takes the sessions idle past their timeout out of the
// table and returns them, for the caller to end. Whether each is idle is
// decided under the table's lock, which get takes too: a session used
// after the janitor's clock reading (get holds it, and marks it used
// later than now) stays; one taken out is not found by a request that
// comes after (404: it initializes again). Before, the janitor listed the
// expired sessions and then ended each, a session used in between
// included: its request was cancelled.
func (t *sessions) takeExpired(now time.Time) []*session {
	t.mu.Lock()
	defer t.mu.Unlock()
	var out []*session
	for _, s := range slices.Clone(t.order) {
		if s.idle(now, t.idle, t.unused) {
			t.removeLocked(s)
			out = append(out, s)
		}
	}
	return out
}

// all returns every open session, for shutdown.
func (t *sessions) all() []*session {
	return t.matching(func(*session) bool { return true })
}

func (t *sessions) matching(match func(*session) bool) []*session {
	t.mu.Lock()
	defer t.mu.Unlock()
	var out []*session
	for _, s := range t.order {
		if match(s) {
			out = append(out, s)
		}
	}
	return out
}

func (t *sessions) count() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return len(t.byID)
}
