package bridge

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"

	"github.com/mcp-bridge/mcp-bridge/rpc"
)

// client is one MCP client of the bridge: the stdio client, one legacy
// HTTP session, or one modern HTTP client (see httpClientKey).
type client struct {
	name string // for logs
	// notify carries notifications that belong to no request
	// (notifications/tools/list_changed for a legacy client); nil for none.
	notify *rpc.Writer

	// pending holds the client's queued and in-flight jobs by raw id, for
	// notifications/cancelled; guarded by bridge.mu.
	pending map[string]*job

	// initialized is set once the client sent initialize: it was told
	// tools.listChanged, so it gets notifications/tools/list_changed.
	initialized atomic.Bool

	queued []*job // guarded by scheduler.mu
}

func newClient(name string, notify *rpc.Writer) *client {
	return &client{name: name, notify: notify, pending: map[string]*job{}}
}

// origin says where one incoming message came from and where what it
// causes goes.
type origin struct {
	c   *client
	out *rpc.Writer // the answer, and notifications about this request
	bt  *batch      // non-nil inside a batch: the answer goes into the array
	// ctx, when not nil, ends when the client gave the request up (a modern
	// HTTP client closed its response stream): a queued job is dropped
	// unsent, an in-flight one has its base connection closed, and nothing
	// more is written for it.
	ctx context.Context
}

var (
	errQueueClosed = errors.New("queue closed")
	errQueueFull   = errors.New("queue full")
)

// scheduler is the queue in front of the one worker. Each client has its
// own first-in-first-out line; the worker takes one job from each client in
// turn, so a client's requests keep their order and a busy client cannot
// starve the others: with n clients waiting, a job waits for at most n-1
// jobs of others between two of its own client's.
type scheduler struct {
	mu     sync.Mutex
	ring   []*client // clients with queued jobs, in turn order
	n      int       // jobs queued, all clients
	limit  int
	closed bool
	wake   chan struct{}
}

func newScheduler(limit int) *scheduler {
	return &scheduler{limit: limit, wake: make(chan struct{}, 1)}
}

// push queues a job. The whole queue holds at most limit jobs; while other
// clients are waiting, one client may hold at most half of it, so that
// there is always room for the others.
func (s *scheduler) push(j *job) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return errQueueClosed
	}
	c := j.o.c
	share := s.limit
	if len(s.ring) > 1 || (len(s.ring) == 1 && len(c.queued) == 0) {
		share = max(1, s.limit/2)
	}
	if s.n >= s.limit || len(c.queued) >= share {
		return errQueueFull
	}
	if len(c.queued) == 0 {
		s.ring = append(s.ring, c)
	}
	c.queued = append(c.queued, j)
	s.n++
	select {
	case s.wake <- struct{}{}:
	default:
	}
	return nil
}

// pop waits for the next job in turn; nil once the queue is closed and
// empty.
func (s *scheduler) pop() *job {
	for {
		s.mu.Lock()
		if len(s.ring) > 0 {
			c := s.ring[0]
			j := c.queued[0]
			c.queued[0] = nil
			c.queued = c.queued[1:]
			s.ring = s.ring[1:]
			if len(c.queued) > 0 {
				s.ring = append(s.ring, c)
			} else {
				c.queued = nil
			}
			s.n--
			s.mu.Unlock()
			return j
		}
		closed := s.closed
		s.mu.Unlock()
		if closed {
			return nil
		}
		<-s.wake
	}
}

// close refuses new jobs; pop drains what is queued, then returns nil.
func (s *scheduler) close() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.closed {
		s.closed = true
		close(s.wake)
	}
}

// len is the number of jobs queued.
func (s *scheduler) len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.n
}
