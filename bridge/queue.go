package bridge

import (
	"errors"
	"slices"
	"sync"
	"sync/atomic"
)

// push's two refusals, which enqueue answers differently: a full queue is
// the client's to retry, a closed one means the bridge is shutting down.
var (
	errQueueFull   = errors.New("queue full")
	errQueueClosed = errors.New("queue closed")
)

// Turn is one place in the worker's rotation: a client's own line of jobs.
// The stdio client and each legacy HTTP session have one; the stateless
// clients that the HTTP front end takes for one program share one (see
// httpClientKey).
type Turn struct {
	jobs []*job // guarded by jobQueue.mu
	// waiters counts its requests waiting for a job (await), which the
	// queue's bound does not see: at most --queue.
	waiters atomic.Int64

	// Its desktop questions are shown one at a time, in the order its
	// jobs came (nextAsk): the last one's end, under askMu.
	askMu   sync.Mutex
	lastAsk chan struct{}
}

// nextAsk takes the next place in the turn's line of desktop questions:
// prev is closed once the question before this one has ended (nil: there
// is none), and the caller hands on (passAsk) once this one has. One
// window at a time per client: five calls waiting for confirmation are
// five questions in a row, not five dialogs at once.
func (t *Turn) nextAsk() (prev, done chan struct{}) {
	t.askMu.Lock()
	defer t.askMu.Unlock()
	prev, done = t.lastAsk, make(chan struct{})
	t.lastAsk = done
	return prev, done
}

// passAsk frees the next place in a turn's line of desktop questions
// (done) once this question has ended and the one before it (prev) has
// too. A question may end while it still waits for its turn (its call
// cancelled, a look-alike name refused, the session gone): the one after
// it must still wait for the dialog on screen, so done closes only after
// prev, on a goroutine of its own when prev is still open (it ends when
// the question before ends, which every question does: answered, timed
// out or withdrawn).
func passAsk(prev, done chan struct{}) {
	if prev == nil {
		close(done)
		return
	}
	select {
	case <-prev:
		close(done)
	default:
		go func() {
			<-prev
			close(done)
		}()
	}
}

// jobQueue is the line of jobs waiting for the one worker, bounded so that
// memory stays bounded. Each turn keeps its jobs in arrival order, and the
// worker takes one job from each waiting turn in rotation: a client's
// requests keep their order, and a busy client cannot starve the others
// (with n turns waiting, a job waits for at most one job of each other
// turn between two of its own turn's). With one client that is plain
// arrival order. A job at the head of its turn whose confirmation
// question is out (reqAsking) holds that turn only: the worker takes the
// others' jobs meanwhile. push never waits (the reader must not block); pop
// waits for a job. Safe for concurrent use.
type jobQueue struct {
	mu     sync.Mutex
	cond   *sync.Cond // signalled when a job may be ready, or the queue closed
	ring   []*Turn    // turns with jobs, in rotation order
	n      int        // jobs queued, all turns
	max    int
	closed bool
}

func newJobQueue(max int) *jobQueue {
	q := &jobQueue{max: max}
	q.cond = sync.NewCond(&q.mu)
	return q
}

// push adds a job, or fails with errQueueFull or errQueueClosed. The queue
// holds at most max jobs; while other turns are waiting, one turn may fill
// at most half of it. When the queue is full, the job of a turn that has
// fewer jobs queued than the longest turn takes the place of that turn's
// last job, which push returns (out): the caller refuses it, unsent. So a
// client that keeps the queue full (behind a slow call, or a question
// nobody answers) gets its own latest calls refused, never the next
// client's.
func (q *jobQueue) push(j *job) (out *job, err error) {
	q.mu.Lock()
	defer q.mu.Unlock()
	t := j.reply.client.turn
	// A turn alone may use the whole queue; once another turn has jobs
	// waiting (or t is about to be a second one), each keeps to half, so
	// a second client always finds room for its first calls.
	share := q.max
	if len(q.ring) > 1 || (len(q.ring) == 1 && len(t.jobs) == 0) {
		share = max(1, q.max/2)
	}
	switch {
	case q.closed:
		return nil, errQueueClosed
	case len(t.jobs) >= share:
		return nil, errQueueFull
	case q.n >= q.max:
		if out = q.pushOut(t); out == nil {
			return nil, errQueueFull
		}
	}
	if len(t.jobs) == 0 {
		q.ring = append(q.ring, t)
	}
	// Marked queued here, under q.mu, and only when taken: the worker
	// (pop, also under q.mu) cannot see the job before, and a refused
	// request, or one ended meanwhile (Queued after End does nothing), is
	// never counted as having waited.
	j.reply.op().Queued()
	t.jobs = append(t.jobs, j)
	q.n++
	q.cond.Signal()
	return out, nil
}

// pushOut takes the last job of the longest turn other than t out of the
// queue and returns it, when that turn has at least two jobs more than t
// and the job is a plain one (no question asked or to ask for it); nil
// when there is none. q.mu is held.
func (q *jobQueue) pushOut(t *Turn) *job {
	var longest *Turn
	for _, u := range q.ring {
		// Two more, not one: after the swap u still has at least as many
		// as t, so two clients cannot push each other's jobs out in turn.
		if u == t || len(u.jobs) < len(t.jobs)+2 {
			continue
		}
		// A job with a question may have a dialog on the user's screen:
		// taking it out would pull the question from under the user.
		if last := u.jobs[len(u.jobs)-1]; last.rule.Ask {
			continue
		}
		if longest == nil || len(u.jobs) > len(longest.jobs) {
			longest = u
		}
	}
	if longest == nil {
		return nil
	}
	out := longest.jobs[len(longest.jobs)-1]
	longest.jobs[len(longest.jobs)-1] = nil // the array must not keep the job alive
	longest.jobs = longest.jobs[:len(longest.jobs)-1]
	q.n--
	return out
}

// pop returns the next job in rotation that is not held, waiting for one;
// false once the queue is closed and empty. Only the worker calls it.
func (q *jobQueue) pop() (*job, bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	for {
		for i, t := range q.ring {
			// Only a turn's first job is a candidate: its later jobs never
			// overtake it, so a client's calls reach CAD in the order sent.
			j := t.jobs[0]
			if reqState(j.reply.state.Load()) == reqAsking {
				continue // its turn waits for the answer; the others go on
			}
			t.jobs[0] = nil // the array must not keep the job alive
			t.jobs = t.jobs[1:]
			q.ring = slices.Delete(q.ring, i, i+1)
			if len(t.jobs) > 0 {
				q.ring = append(q.ring, t) // its next job waits for the others' turns
			} else {
				t.jobs = nil // let the array go: a busy client's grew
			}
			q.n--
			return j, true
		}
		// Closed, the queue still hands out what it holds: at the end of
		// stdin, accepted requests are finished, not dropped (stop decides
		// whether the worker answers them unsent: dropping).
		if q.closed && q.n == 0 {
			return nil, false
		}
		q.cond.Wait()
	}
}

// wake tells the worker that a job whose question was out may be taken
// now (its state changed: client.update).
func (q *jobQueue) wake() {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.cond.Broadcast()
}

// remove takes a job out of the queue unsent (its question was refused or
// withdrawn); the jobs behind it in its turn move up.
func (q *jobQueue) remove(j *job) {
	q.mu.Lock()
	defer q.mu.Unlock()
	t := j.reply.client.turn
	i := slices.Index(t.jobs, j)
	if i < 0 {
		return
	}
	t.jobs = slices.Delete(t.jobs, i, i+1)
	q.n--
	if len(t.jobs) == 0 {
		t.jobs = nil
		q.ring = slices.DeleteFunc(q.ring, func(o *Turn) bool { return o == t })
	}
	// The removed job may have been its turn's held head: the jobs behind
	// it may now be taken.
	q.cond.Broadcast()
}

// close refuses further jobs; those queued are still popped.
func (q *jobQueue) close() {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.closed = true
	q.cond.Broadcast()
}

// isClosed reports whether the bridge is shutting down: the reader then
// knows that stdin was closed by the bridge itself (a read error is no
// fault), and a listen is acknowledged but not held open.
func (q *jobQueue) isClosed() bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.closed
}

// len is how many jobs wait: for the health report, and for shutdown's
// count of those it drops.
func (q *jobQueue) len() int {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.n
}
