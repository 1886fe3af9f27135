package streamable

import "sync"

// streamTable counts the open long-lived streams (legacy GET streams and
// subscriptions/listen) against --max-streams, with the same care as the
// session table: one remote address may hold at most half, and when the
// table (or the address's share) is full, the oldest GET stream is ended to
// make room (the transport lets a server close it; the client may open it
// again). A listen is a request in progress and is never ended that way;
// only when no GET stream can make room is anyone refused.
type streamTable struct {
	mu    sync.Mutex
	max   int
	share int
	open  []*openStream // oldest first
}

// openStream is one stream's place in the table.
type openStream struct {
	addr string
	kick func() // ends the stream to make room; nil for a listen
}

func newStreamTable(n int) *streamTable { return &streamTable{max: n, share: max(1, n/2)} }

// take counts a stream from addr in; nil when there is no room. kick, when
// not nil, ends the stream should room be needed later.
func (st *streamTable) take(addr string, kick func()) *openStream {
	st.mu.Lock()
	mine := 0
	for _, s := range st.open {
		if s.addr == addr {
			mine++
		}
	}
	var victim *openStream
	switch {
	case mine >= st.share:
		if victim = st.oldestKickable(addr); victim == nil {
			st.mu.Unlock()
			return nil
		}
	case len(st.open) >= st.max:
		if victim = st.oldestKickable(""); victim == nil {
			st.mu.Unlock()
			return nil
		}
	}
	if victim != nil {
		st.removeLocked(victim)
	}
	s := &openStream{addr: addr, kick: kick}
	st.open = append(st.open, s)
	st.mu.Unlock()
	if victim != nil {
		victim.kick()
	}
	return s
}

func (st *streamTable) oldestKickable(addr string) *openStream {
	for _, s := range st.open {
		if s.kick != nil && (addr == "" || s.addr == addr) {
			return s
		}
	}
	return nil
}

func (st *streamTable) removeLocked(s *openStream) {
	for i, o := range st.open {
		if o == s {
			st.open = append(st.open[:i:i], st.open[i+1:]...)
			return
		}
	}
}

// release counts a stream out (again harmless for one kicked out).
func (st *streamTable) release(s *openStream) {
	st.mu.Lock()
	defer st.mu.Unlock()
	st.removeLocked(s)
}

func (st *streamTable) count() int {
	st.mu.Lock()
	defer st.mu.Unlock()
	return len(st.open)
}
