package bridge

import (
	"errors"
	"sync"
)

var (
	errQueueFull   = errors.New("queue full")
	errQueueClosed = errors.New("queue closed")
)

// jobQueue is the line of jobs waiting for the one worker, in arrival
// order, bounded so that memory stays bounded. push never waits (the
// reader must not block); pop waits for a job. Safe for concurrent use.
type jobQueue struct {
	mu     sync.Mutex
	jobs   []*job
	max    int
	closed bool
	ready  chan struct{} // a token while jobs may be waiting; closed with the queue
}

func newJobQueue(max int) *jobQueue {
	return &jobQueue{max: max, ready: make(chan struct{}, 1)}
}

// push adds a job, or fails with errQueueFull or errQueueClosed.
func (q *jobQueue) push(j *job) error {
	q.mu.Lock()
	defer q.mu.Unlock()
	switch {
	case q.closed:
		return errQueueClosed
	case len(q.jobs) >= q.max:
		return errQueueFull
	}
	q.jobs = append(q.jobs, j)
	select {
	case q.ready <- struct{}{}:
	default:
	}
	return nil
}

// pop returns the next job, waiting for one; false once the queue is
// closed and empty.
func (q *jobQueue) pop() (*job, bool) {
	for {
		q.mu.Lock()
		if len(q.jobs) > 0 {
			j := q.jobs[0]
			q.jobs[0] = nil
			q.jobs = q.jobs[1:]
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
	return len(q.jobs)
}
