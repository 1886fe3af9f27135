package bridge

import (
	"errors"
	"sync"
)

var (
	errQueueFull   = errors.New("queue full")
	errQueueClosed = errors.New("queue closed")
)

// turn is one place in the worker's rotation: a client's own line of jobs.
// The stdio client and each legacy HTTP session have one; the stateless
// clients that the HTTP front end takes for one program share one (see
// httpClientKey).
type turn struct {
	jobs []*job // guarded by jobQueue.mu
}

// jobQueue is the line of jobs waiting for the one worker, bounded so that
// memory stays bounded. Each turn keeps its jobs in arrival order, and the
// worker takes one job from each waiting turn in rotation: a client's
// requests keep their order, and a busy client cannot starve the others
// (with n turns waiting, a job waits for at most one job of each other
// turn between two of its own turn's). With one client that is plain
// arrival order. push never waits (the reader must not block); pop waits
// for a job. Safe for concurrent use.
type jobQueue struct {
	mu     sync.Mutex
	ring   []*turn // turns with jobs, in rotation order
	n      int     // jobs queued, all turns
	max    int
	closed bool
	ready  chan struct{} // a token while jobs may be waiting; closed with the queue
}

func newJobQueue(max int) *jobQueue {
	return &jobQueue{max: max, ready: make(chan struct{}, 1)}
}

// push adds a job, or fails with errQueueFull or errQueueClosed. The queue
// holds at most max jobs; while other turns are waiting, one turn may fill
// at most half of it, so that there is always room for the others.
func (q *jobQueue) push(j *job) error {
	q.mu.Lock()
	defer q.mu.Unlock()
	t := j.reply.client.turn
	share := q.max
	if len(q.ring) > 1 || (len(q.ring) == 1 && len(t.jobs) == 0) {
		share = max(1, q.max/2)
	}
	switch {
	case q.closed:
		return errQueueClosed
	case q.n >= q.max || len(t.jobs) >= share:
		return errQueueFull
	}
	if len(t.jobs) == 0 {
		q.ring = append(q.ring, t)
	}
	t.jobs = append(t.jobs, j)
	q.n++
	select {
	case q.ready <- struct{}{}:
	default:
	}
	return nil
}

// pop returns the next job in rotation, waiting for one; false once the
// queue is closed and empty.
func (q *jobQueue) pop() (*job, bool) {
	for {
		q.mu.Lock()
		if len(q.ring) > 0 {
			t := q.ring[0]
			j := t.jobs[0]
			t.jobs[0] = nil
			t.jobs = t.jobs[1:]
			q.ring[0] = nil
			q.ring = q.ring[1:]
			if len(t.jobs) > 0 {
				q.ring = append(q.ring, t) // its next job waits for the others' turns
			} else {
				t.jobs = nil
			}
			q.n--
			q.mu.Unlock()
			return j, true
		}
		closed := q.closed
		q.mu.Unlock()
		if closed {
			return nil, false
		}
		<-q.ready
	}
}

// close refuses further jobs; those queued are still popped.
func (q *jobQueue) close() {
	q.mu.Lock()
	defer q.mu.Unlock()
	if !q.closed {
		q.closed = true
		close(q.ready)
	}
}

func (q *jobQueue) isClosed() bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.closed
}

func (q *jobQueue) len() int {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.n
}
