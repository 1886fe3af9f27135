package bridge

import (
	"context"
	"errors"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rs/zerolog"

	"github.com/mcp-bridge/mcp-bridge/bridge/telemetry"
	"github.com/mcp-bridge/mcp-bridge/lifecycle"
	"github.com/mcp-bridge/mcp-bridge/lifecycle/clienterr"
	"github.com/mcp-bridge/mcp-bridge/rpc"
)

// Stream is where one client's messages go, one message per line (a batch
// answer is one line too): stdout for the stdio front end. *rpc.Writer is
// one. A failed write is the stream's business (for stdout, it stops the
// bridge).
type Stream interface {
	Write(m rpc.Encoded) error
	WriteBatch(ms []rpc.Encoded) error
}

// Client is one client as the core sees it, whatever front end it came
// through: where its messages go, how long one may be, and the requests it
// has in progress, by id. Ids are the client's own namespace: a duplicate
// is refused, and notifications/cancelled names a request by its id.
type Client struct {
	out  Stream // nil: the client has no stream for notifications of its own
	max  int    // bytes per message, --max-message
	log  zerolog.Logger
	turn *Turn // its place in the worker's rotation (jobQueue)

	// initialized is set once a legacy client has sent initialize: it was
	// told tools.listChanged, so it gets notifications/tools/list_changed.
	initialized atomic.Bool
	version     atomic.Pointer[string] // the protocol version initialize agreed
	fitName     atomic.Pointer[string] // its initialize's clientInfo.name, as sent: its limits (fit.go)

	asker asker // what confirmation needs to know of this client (gate.go)

	desc  Describe  // what the front end says of it (observe.go); set before its first message
	since time.Time // when Describe was called

	mu    sync.Mutex
	ids   map[string]*reply // by ID.Key: queued or running jobs, open listens
	ended bool              // gone: no request of it is taken any more
}

// newClient is a client whose own messages go to out (nil: none), never
// sent a line over max (--max-message: what the client was promised), with
// a turn of its own in the worker's rotation until a front end gives it a
// shared one (Core.NewClient).
func newClient(out Stream, max int, log zerolog.Logger) *Client {
	return &Client{out: out, max: max, log: log, turn: &Turn{}, ids: map[string]*reply{}}
}

// setVersion keeps the protocol version an initialize result agreed.
func (c *Client) setVersion(result []byte) {
	v, _ := rpc.String(rpc.Field(result, "protocolVersion"))
	c.version.Store(&v)
}

// LegacyVersion is the protocol version the client's initialize agreed,
// or the latest handshake-era one when there was none.
func (c *Client) LegacyVersion() string {
	if v := c.version.Load(); v != nil && *v != "" {
		return *v
	}
	return lifecycle.LatestLegacy
}

// notify sends a message that answers nothing (a notification). One that
// would pass the size limit is dropped with a warning.
func (c *Client) notify(m rpc.Encoded) { c.notifyOn(c.out, m) }

// notifyOn is notify to out: the client's stream, or the response of the
// HTTP POST a request came on. A notification over --max-message would
// break what the client was told of line sizes, and nothing waits for it:
// it is dropped rather than cut.
func (c *Client) notifyOn(out Stream, m rpc.Encoded) {
	if out == nil {
		return
	}
	if m.Len() > c.max {
		c.log.Warn().Int("bytes", m.Len()).Int("limit", c.max).Msg("notification over --max-message not sent")
		return
	}
	_ = out.Write(m)
}

// inUse reports whether r's id names a request of this client in
// progress.
func (c *Client) inUse(r *reply) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.ids[r.key] != nil
}

// A request's state, from the moment it is tracked until its reply ends.
// It changes only in client.update, under client.mu: the one owner of a
// request's state, as x/tools jsonrpc2_v2's updateInFlight is. Whatever
// ends a request (its answer, an error, the client's cancel, its session
// ending) ends it there, once; the request's context is cancelled as it
// ends, so a call running for it or a question asked about it stops,
// whichever it was doing.
type reqState int32

const (
	reqNew     reqState = iota // answered at once, or not yet tracked
	reqWaiting                 // tracked: queued for the worker, or an open listen
	reqAsking                  // queued, its confirmation question out: its turn waits
	reqRunning                 // the worker took it: it may reach the base
	reqEnded                   // its reply has ended
)

// update moves r from one of states to next, and reports whether it did.
// Every change of a request's state goes through here. Ending it
// (next == reqEnded) also forgets its id, and is refused only when it had
// ended already; taking it to the worker or to a question is refused once
// the client is gone.
func (c *Client) update(r *reply, next reqState, from ...reqState) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.updateLocked(r, next, from...)
}

func (c *Client) updateLocked(r *reply, next reqState, from ...reqState) bool {
	cur := reqState(r.state.Load())
	switch {
	case cur == reqEnded:
		return false
	case next == reqEnded:
		if cur != reqNew && c.ids[r.key] == r {
			delete(c.ids, r.key)
		}
	case c.ended && next != reqWaiting && !r.detached:
		return false
	case len(from) > 0 && !slices.Contains(from, cur):
		return false
	}
	r.state.Store(int32(next))
	r.stateAt = time.Now()
	return true
}

// track records r as in progress, with its context, so that it can be
// cancelled and its id is not reused meanwhile; asking marks it as
// waiting for a confirmation question before the worker may take it. It
// refuses r when the id is already in use, or when the client is gone: a
// request read while its session ended (the POST found the session just
// before) must not run after the end.
func (c *Client) track(r *reply, asking bool) *rpc.WireError {
	c.mu.Lock()
	defer c.mu.Unlock()
	switch {
	case c.ended:
		return clienterr.SessionGone.New(r.method)
	case c.ids[r.key] != nil:
		return errIDInUse(r.id)
	}
	c.ids[r.key] = r
	next := reqWaiting
	if asking {
		next = reqAsking
	}
	r.state.Store(int32(next))
	r.stateAt = time.Now()
	return nil
}

// Cancel handles notifications/cancelled for id: the request is ended with
// no answer, and its context cancelled: queued, the worker skips it;
// asking, its question is withdrawn; running, its call is stopped.
// Unknown and finished ids are ignored.
func (c *Client) Cancel(id rpc.ID) {
	c.mu.Lock()
	r := c.ids[id.Key()]
	if r == nil || !c.updateLocked(r, reqEnded) {
		c.mu.Unlock()
		return
	}
	c.mu.Unlock()
	c.log.Debug().Str("id", id.String()).Msg("request cancelled by the client")
	r.ended(errCallCancelled)
	r.op().End(telemetry.Result{Kind: "cancelled", Message: "cancelled by the client"})
	if r.batch != nil {
		r.batch.release()
	}
}

// End ends every request of the client in progress: it is gone (an HTTP
// session that ended). Queued requests are dropped unsent (their POSTs get
// 404: nothing ran), running ones are answered that they may have run,
// then stopped; a question still out is withdrawn, and its call refused as
// cancelled (question.go). A call answered with a job goes on, queued or
// running: its client was told CAD goes on with it (jobs.go).
func (c *Client) End() {
	c.mu.Lock()
	c.ended = true
	var ids []rpc.ID
	var asking, running []*reply
	for _, r := range c.ids {
		if r.detached {
			// A job made while queued: its client was told CAD goes on
			// with it, as it does with a job made while running (longCall).
			continue
		}
		switch reqState(r.state.Load()) {
		case reqAsking:
			asking = append(asking, r)
		case reqRunning:
			running = append(running, r)
		default:
			ids = append(ids, r.id)
		}
	}
	c.mu.Unlock()
	// The calls queued first: stopping the running one or withdrawing a
	// question lets the worker take them.
	for _, id := range ids {
		c.Cancel(id)
	}
	// A request CAD is working on gets an answer, not the 404 its POST
	// would get: 404 says the session ran nothing, and a client (connect)
	// sends the request again on a new session, so a call would run twice.
	for _, r := range running {
		r.end(rpc.EncodeError(r.id, clienterr.SessionEnded.With(map[string]string{"method": r.method}, r.method)))
	}
	for _, r := range asking {
		r.cancel(errQuestionGone) // the question's own end answers the call
	}
}

// listening returns the client's open listens.
func (c *Client) listening() []*reply {
	c.mu.Lock()
	defer c.mu.Unlock()
	var ls []*reply
	for _, r := range c.ids {
		if r.listen {
			ls = append(ls, r)
		}
	}
	return ls
}

// reply is the one answer a client request is owed: whichever part of the
// bridge ends it first (an answer, an error, a cancellation) ends it, and
// later attempts do nothing. It delivers to its client's stream, or into
// the batch the request came in.
type reply struct {
	id     rpc.ID
	key    string // id.Key(), worked out once: the client's ids are by key
	method string
	req    *lifecycle.Request // the request as decoded; nil for an invalid message
	// arrived is when the reader accepted it for the worker: the
	// journal's duration runs from there to its answer.
	arrived time.Time
	client  *Client
	batch   *batch // non-nil: the answer goes into this batch
	listen  bool   // an open subscriptions/listen
	// detached: a job's own request, made while its call was queued
	// (keepQueued); its client's end does not end it: the job goes on.
	detached bool
	// askedDesktop: its question is (or was) on the desktop, not the
	// client's; for the status page, read under client.mu.
	askedDesktop bool
	// out, when not nil, is where the answer and the notifications about
	// this request go instead of the client's stream: the HTTP response of
	// the POST that carried it.
	out Stream

	// state is changed only by client.update (under client.mu); the
	// queue reads it without the lock to skip a job whose question is out.
	state atomic.Int32
	// stateAt is when state took its value: the status page reads it
	// under client.mu.
	stateAt time.Time
	// ctx is the request's lifetime, from its arrival to its end: the call
	// to the base and the confirmation question run within it. cancel ends
	// it with a cause; the request's end cancels it (ended).
	ctx    context.Context
	cancel context.CancelCauseFunc
	// progress numbers the notifications/progress sent for the request
	// (heartbeats, a launch's news): each is one more than the last.
	progress atomic.Int64

	tel *replyTel // its telemetry; nil when off (observe.go)
}

// newReply starts the reply owed for a request (or for a message whose
// error must be answered); a batch waits for it.
func (c *Client) newReply(id rpc.ID, method string, bt *batch) *reply {
	if bt != nil {
		bt.hold()
	}
	r := &reply{id: id, method: method, client: c, batch: bt}
	if !id.IsZero() {
		r.key = id.Key()
	}
	return r
}

// errAnswered is the cause a request's context ends with when its reply
// ended with an answer.
var errAnswered = errors.New("the request was answered")

// withContext gives r its context, a child of parent, when it is tracked.
func (r *reply) withContext(parent context.Context) {
	r.ctx, r.cancel = context.WithCancelCause(parent)
}

// ended is the request's end as its context sees it: whoever ended the
// request calls it once, after update to reqEnded succeeded.
func (r *reply) ended(cause error) {
	if r.tel != nil {
		r.tel.stream.Closed()
	}
	if r.cancel != nil {
		r.cancel(cause)
	}
}

// end delivers m as the answer, once. An answer over the size limit is
// replaced by an error saying so. It reports whether this call ended the
// request (false: it had ended already, and m is dropped).
func (r *reply) end(m rpc.Encoded) bool { return r.endWith(m, nil) }

// endWith is end with won run first, only when this call ends the request
// and before the answer goes out: a job's journal line is written exactly
// once, by whoever ends it, and before its client can see the answer.
func (r *reply) endWith(m rpc.Encoded, won func()) bool {
	if !r.client.update(r, reqEnded) {
		return false
	}
	r.ended(errAnswered)
	if won != nil {
		won()
	}
	if r.batch != nil {
		r.endOp(m)
		r.batch.put(m, r.tooLargeForBatch)
		r.batch.release()
		return true
	}
	if m.Len() > r.client.max {
		r.client.log.Warn().Str("method", r.method).Int("bytes", m.Len()).Int("limit", r.client.max).Msg("answer over --max-message replaced by an error")
		m = rpc.EncodeError(r.id, answerTooLarge(r.method, m.Len(), r.client.max, false))
	}
	r.endOp(m)
	_ = r.stream().Write(m)
	return true
}

// stream is where the reply's messages go.
func (r *reply) stream() Stream {
	if r.out != nil {
		return r.out
	}
	return r.client.out
}

// notify sends a notification about this request (progress, a listen's
// acknowledgement and list changes) where its answer goes.
func (r *reply) notify(m rpc.Encoded) { r.client.notifyOn(r.stream(), m) }

// tooLargeForBatch is the error that takes the place of an answer of size
// bytes that would push its batch's array past --max-message (batch.put).
// The request has run: sent alone, its answer may have fitted.
func (r *reply) tooLargeForBatch(size int) rpc.Encoded {
	r.client.log.Warn().Str("method", r.method).Int("bytes", size).Msg("answer too large for its batch replaced by an error")
	return rpc.EncodeError(r.id, answerTooLarge(r.method, size, r.client.max, true))
}

// settle ends a job's reply with its outcome, and journals it when that
// ended the request (the gate records it: gate.go). It reports whether it
// did: false when the request had ended already, and o went nowhere.
func (b *bridge) settle(j *job, o outcome) bool {
	// The client gets the answer fitted to its limits; the journal records
	// the base's (fit.go), once: a job's answer was journaled when CAD
	// answered (jobs.go).
	if j.reply.endWith(b.fitted(j, o.answer), func() {
		if !j.collect {
			b.record(j, o)
		}
	}) {
		return true
	}
	if j.sent {
		// The client cancelled it, or its session ended, while CAD ran it:
		// no answer goes out, but the call may have run, and the journal
		// says so.
		b.record(j, outcome{cancelled: true})
	}
	return false
}

// result and fail end the request with a result or an error.
func (r *reply) result(res []byte)     { r.end(rpc.EncodeResult(r.id, res)) }
func (r *reply) fail(e *rpc.WireError) { r.end(rpc.EncodeError(r.id, e)) }
