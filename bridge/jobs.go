package bridge

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rs/zerolog"

	"github.com/mcp-bridge/mcp-bridge/bridge/telemetry"
	"github.com/mcp-bridge/mcp-bridge/configs/cut"
	"github.com/mcp-bridge/mcp-bridge/lifecycle"
	"github.com/mcp-bridge/mcp-bridge/lifecycle/clienterr"
	"github.com/mcp-bridge/mcp-bridge/rpc"
)

// Long calls answered in time (issue 40; docs/limits.md "Long calls").
//
// A client gives up on a tools/call after its own time (clientfit's
// table, or --answer-within). When a call is still running at CAD once
// that time, less a margin (clientfit.Limits.JobAfter), has passed since
// the call arrived, the bridge answers it with a job: a normal result
// saying the tool is still running in CAD as job J, and to call
// wait_for_cad with {"job": "J"}. The call to CAD goes on untouched on its
// TCP connection, and the worker still waits for it before the next call:
// the job frees the client, never the base, whose one call at a time is
// what keeps the drawing whole. CAD's answer is kept for the client that
// asked until it is collected or for an hour (jobKeep), and journaled then
// as the call's one line.
//
// Who may collect a job (owner): a stdio client, or an HTTP session, is a
// Client of its own, and only that Client may. A stateless 2026-07-28
// request is a Client of its own too, gone with its answer: there the
// owner is what the era lets one request say about its sender, the
// clientInfo (name and version) it names and the host it came from, the
// same key the HTTP front end gives it a turn by. Either way the era must
// be the one the call came in. The job id is 128 random bits, the real
// capability; an id that is unknown and one that is someone else's get
// the same answer.
//
// The same call (tool and arguments byte for byte) sent again by the
// job's owner while it runs joins the job instead of running twice: the
// assistant that sees no answer tries again.
//
// Call points: runJob (worker.go) makes each call a longCall, arms it once
// the frame is sent, tells it when CAD answered and hands it the outcome;
// request (reader.go) gives waitTool and joined a tools/call first, and
// enqueue arms the clock of a queued call (armQueued); prepareList
// (worker.go) lists the tool; settle (client.go) journals no collected
// answer; stop (run.go) waits for the waiters.

// jobKeep is how long a job's result is kept for its client once CAD has
// answered.
const jobKeep = time.Hour

// jobCallLimit is how long a call that may become a job may run at CAD
// (unless --call-timeout is longer): as long as its result is kept.
const jobCallLimit = jobKeep

// waitToolName is the bridge's tool for collecting a job, unless the base
// has a tool of that name (waitName).
const waitToolName = "wait_for_cad"

// owner is who may collect a job: a client that lives (stdio, an HTTP
// session), or a stateless 2026-07-28 sender by its key; in one era.
type owner struct {
	client *Client
	key    string
	era    lifecycle.Era
}

// cadJob is one call answered before CAD had finished it.
type cadJob struct {
	id      string
	owner   owner
	tool    string
	args    []byte
	arrived time.Time // when the call arrived: what "has run for" counts from
	// done closes once CAD answered, or the call failed; o is then what
	// the original request would have been answered with.
	done chan struct{}
	o    outcome
}

func (jb *cadJob) finished() bool {
	select {
	case <-jb.done:
		return true
	default:
		return false
	}
}

// jobTable is the bridge's jobs, running and kept, by id.
type jobTable struct {
	mu   sync.Mutex
	byID map[string]*cadJob
	// waiters are the goroutines waiting for a job for a client
	// (runWaiter); stop waits for them after the abort that ends them.
	waiters sync.WaitGroup
	// renamed: the base's own wait_for_cad was logged.
	renamed atomic.Bool
}

func newJobTable() *jobTable { return &jobTable{byID: map[string]*cadJob{}} }

// The jobs' timers, by what they do.
const (
	timerQueued  = "queued"  // a queued call is due (armQueued)
	timerRunning = "running" // a call CAD is running is due (longCall.arm)
	timerExpiry  = "expiry"  // a kept result is forgotten
)

// testHookJobTimer, when set by a test, replaces the jobs' timers: it gets
// what the timer is for, the delay and the function to run, and returns
// the timer's Stop. A test fires it when it wants, between two events.
var testHookJobTimer func(what string, d time.Duration, f func()) (stop func() bool)

func afterFunc(what string, d time.Duration, f func()) func() bool {
	if testHookJobTimer != nil {
		return testHookJobTimer(what, d, f)
	}
	return time.AfterFunc(d, f).Stop
}

// newJobID is 128 bits from crypto/rand, in hex: unguessable, and never
// the same twice.
func newJobID() string {
	var b [16]byte
	_, _ = rand.Read(b[:]) // never fails (crypto/rand)
	return hex.EncodeToString(b[:])
}

// jobAfter is how long after its arrival tools/call j is answered with a
// job; 0: never.
func (b *bridge) jobAfter(j *job) time.Duration {
	return b.clientLimits(j).JobAfter()
}

// ownerOf is who may collect the jobs of req, from c.
func ownerOf(c *Client, req *lifecycle.Request) owner {
	if c.desc.Transport == telemetry.TransportTCP && c.desc.SessionID == "" {
		host, _, err := net.SplitHostPort(c.desc.Addr)
		if err != nil {
			host = c.desc.Addr
		}
		return owner{key: req.ClientInfo.Name + "/" + req.ClientInfo.Version + "@" + host, era: req.Era}
	}
	return owner{client: c, era: req.Era}
}

// waitName is the bridge's tool for collecting jobs, given the base's tool
// list: wait_for_cad, or when the base has a tool of that name,
// wait_for_cad_job (then _2, _3, …): the base's tool keeps its name.
func waitName(list []byte) string {
	if list == nil || !lifecycle.ListsTool(list, waitToolName) {
		return waitToolName
	}
	// The names read once: a base listing wait_for_cad_job, _2, … _10000
	// must not have its list read again for each.
	taken := map[string]bool{}
	for _, n := range lifecycle.ToolNames(list) {
		taken[n] = true
	}
	name := waitToolName + "_job"
	for i := 2; taken[name]; i++ {
		name = waitToolName + "_job_" + strconv.Itoa(i)
	}
	return name
}

// waitTool is wait_for_cad as the tools list shows it. The tool metadata
// a client acts on (Claude Code's anthropic/alwaysLoad) is added to it with
// the base's tools, after it is listed.
func waitTool(name string) string {
	return `{"name":` + string(rpc.AppendString(nil, name)) +
		`,"description":"Waits for a CAD tool call that was still running when its answer was due: its answer named a job. Returns the call's result once CAD has finished it, or says it is still running: then call this again with the same job.",` +
		`"inputSchema":{"type":"object","properties":{"job":{"type":"string","description":"The job named in the tool's answer"}},"required":["job"]},` +
		`"annotations":{"title":"Wait for a CAD job","readOnlyHint":true,"openWorldHint":false}}`
}

// listWithWait adds the bridge's wait tool to a tools/list result shown
// to a client that gets jobs (j's); raw is the base's own whole list. Of a
// list in pages, the last page (no nextCursor) gets it: a client reads the
// pages in order, and the first would name it before the base's later
// pages could show a wait_for_cad of the base's own.
func (b *bridge) listWithWait(j *job, raw, shown []byte) []byte {
	if b.jobAfter(j) <= 0 || rpc.Kind(shown) != rpc.KindObject || lifecycle.Paged(shown) {
		return shown
	}
	tools := rpc.Field(shown, "tools")
	if rpc.Kind(tools) != rpc.KindArray {
		return shown
	}
	name := waitName(raw)
	if name != waitToolName && !b.jobs.renamed.Swap(true) {
		b.log.Warn().Str("tool", name).Msg("the CAD base has a tool named " + waitToolName + ": it keeps its name, and the bridge's tool for collecting long calls is named " + name)
	}
	out := make([]byte, 0, len(tools)+512)
	out = append(out, '[')
	rpc.EachElement(tools, func(from, to int) {
		out = append(append(out, tools[from:to]...), ',')
	})
	out = append(append(out, waitTool(name)...), ']')
	return rpc.AppendMembers(rpc.WithoutMember(shown, "tools"), `"tools":`+string(out))
}

// textResult is a tools/call result of one text block, decorated for a
// 2026-07-28 request.
func (b *bridge) textResult(req *lifecycle.Request, text string, isError bool) []byte {
	// The text names a tool as the client or the base wrote it: JSON's
	// quoting, never Go's (strconv.Quote writes \x7f, which JSON has not).
	res := []byte(`{"content":[{"type":"text","text":` + string(rpc.AppendString(nil, text)) + `}],"isError":` + strconv.FormatBool(isError) + `}`)
	if req.Era == lifecycle.Modern {
		res = b.cfg.Server.Decorate(lifecycle.MethodToolsCall, res)
	}
	return res
}

// The words the client sees (docs/limits.md "Long calls" quotes them).
// A tool is named by its first 64 characters: the name is the client's or
// the base's, and the job and how to collect it must stay within what the
// client takes (--max-result-bytes is at least 1024).
func jobText(tool, id, wait string, ran time.Duration) string {
	tool = cut.Chars(tool, 64)
	return fmt.Sprintf("%s is still running in CAD (%s so far), as job %s. CAD goes on with it; its result is kept for you for an hour. To get the result, call %s with {\"job\": %q}. Calling %s again with the same arguments waits for this job: it does not run twice.",
		tool, seconds(ran), id, wait, id, tool)
}

func stillRunningText(tool, id, wait string, ran time.Duration) string {
	tool = cut.Chars(tool, 64)
	return fmt.Sprintf("%s (job %s) is still running in CAD, %s so far. Call %s with {\"job\": %q} again to go on waiting.",
		tool, id, seconds(ran), wait, id)
}

func noJobText(wait string) string {
	return "No such job for this client. " + wait + ` collects a job named in the answer of a tool call that CAD was still running; it takes {"job": "<the job>"}, works only for the client that made the call, and only until the result has been collected or for an hour after CAD finished.`
}

func seconds(d time.Duration) string {
	return strconv.Itoa(int(d.Round(time.Second)/time.Second)) + " s"
}

// longCall is one tools/call at the worker that may outlive its request:
// answered with a job while CAD goes on. Its state changes under mu, in
// one order: running, then either kept (answered with a job; CAD's answer
// goes to the job) or over (CAD answered first, or no job may be made).
type longCall struct {
	b     *bridge
	j     *job
	after time.Duration // JobAfter; 0: never a job

	ctx    context.Context // the call to the base
	cancel func()

	mu        sync.Mutex
	state     int
	job       *cadJob
	stopTimer func() bool
	stopBeat  func()
}

const (
	callRunning = iota
	callKept
	callOver
)

// longCall gives j's call to the base its context. A call that may become
// a job must outlive its request, whose context ends with its answer: its
// context is the bridge's, and the request's end (the client's cancel,
// its session's end) still ends it, unless it ended by becoming a job.
func (b *bridge) longCall(hardCtx context.Context, j *job, timeout time.Duration) *longCall {
	r := j.reply
	lc := &longCall{b: b, j: j}
	if stop := b.queue.takeStop(j); stop != nil {
		stop()
	}
	if r.method == lifecycle.MethodToolsCall && !j.detached {
		lc.after = b.jobAfter(j)
	}
	if lc.after <= 0 {
		if j.detached {
			// A job made while queued: its client's hour, as below.
			timeout = max(timeout, jobCallLimit)
		}
		lc.ctx, lc.cancel = context.WithTimeout(r.ctx, timeout)
		return lc
	}
	// A client that gets jobs is answered in its time whatever CAD takes,
	// so the call is not cut at --call-timeout (2 minutes, under Claude
	// Desktop's 4: it would never get a job) but at jobCallLimit, or the
	// setting when longer: a regeneration or a plot of a large drawing
	// takes what it takes, and wait_for_cad says how long it has run.
	timeout = max(timeout, jobCallLimit)
	callCtx, cancelCall := context.WithCancelCause(hardCtx)
	ctx, cancel := context.WithTimeout(callCtx, timeout)
	stopWatch := context.AfterFunc(r.ctx, func() {
		lc.mu.Lock()
		kept := lc.state == callKept
		lc.mu.Unlock()
		if !kept {
			cancelCall(context.Cause(r.ctx))
		}
	})
	lc.ctx = ctx
	lc.cancel = func() {
		stopWatch()
		cancel()
		cancelCall(nil)
	}
	return lc
}

// arm starts the clock once the call's frame is on its way: at JobAfter
// from the call's arrival (the client's clock started when it sent it),
// the call becomes a job; at once when that time has passed already.
// stopBeat ends the request's heartbeats, which must not follow its answer.
func (lc *longCall) arm(stopBeat func()) {
	if lc.after <= 0 {
		return
	}
	lc.mu.Lock()
	defer lc.mu.Unlock()
	lc.stopBeat = stopBeat
	d := max(time.Until(lc.j.reply.arrived.Add(lc.after)), 0)
	lc.stopTimer = afterFunc(timerRunning, d, lc.keep)
}

// disarm: the call will not become a job (CAD is being started for it:
// that wait runs within the request, launch.go), unless it is one already.
// answered: CAD answered, or the call failed: a call that finished before
// its answer was due is answered as usual, however soon after.
func (lc *longCall) answered() { lc.disarm() }

func (lc *longCall) disarm() {
	lc.mu.Lock()
	defer lc.mu.Unlock()
	if lc.stopTimer != nil {
		lc.stopTimer()
	}
	if lc.state == callRunning {
		lc.state = callOver
	}
}

// keep answers the request with a job, when CAD is still on it and the
// request has not ended otherwise.
func (lc *longCall) keep() {
	lc.mu.Lock()
	defer lc.mu.Unlock()
	if lc.state != callRunning {
		return
	}
	b, j, r := lc.b, lc.j, lc.j.reply
	jb := b.jobs.open(j) // before its id is out: the client may ask at once
	lc.stopBeat()
	wait := waitName(b.tools.lastList())
	if !r.end(rpc.EncodeResult(r.id, b.textResult(j.req, jobText(jb.tool, jb.id, wait, time.Since(jb.arrived)), false))) {
		b.jobs.forget(jb) // it had ended: cancelled, its session gone
		return
	}
	lc.state, lc.job = callKept, jb
	b.log.Info().Str("tool", jb.tool).Str("id", r.id.String()).Str("job", jb.id).Dur("after_ms", time.Since(jb.arrived)).
		Msg("tools/call still running in CAD when its answer was due: answered with a job; the call goes on")
}

// kept hands CAD's outcome to the call's job, when the call became one,
// and journals it there: its one line. false: the call is answered as
// usual (settle).
func (lc *longCall) kept(o outcome) bool {
	if lc.after <= 0 {
		return false
	}
	lc.mu.Lock()
	kept := lc.state == callKept
	lc.mu.Unlock()
	if !kept {
		return false
	}
	b := lc.b
	b.record(lc.j, o)
	jb := lc.job
	jb.o = o
	close(jb.done)
	afterFunc(timerExpiry, jobKeep, func() { b.jobs.forget(jb) })
	b.log.Info().Str("job", jb.id).Str("tool", jb.tool).Dur("took_ms", time.Since(jb.arrived)).Msg("job finished in CAD; its result is kept for its client")
	return true
}

// open registers a job for call j.
func (t *jobTable) open(j *job) *cadJob {
	r := j.reply
	jb := &cadJob{id: newJobID(), owner: ownerOf(r.client, j.req), tool: j.req.Tool.Name, args: j.req.Tool.Args,
		arrived: r.arrived, done: make(chan struct{})}
	t.mu.Lock()
	t.byID[jb.id] = jb
	t.mu.Unlock()
	return jb
}

func (t *jobTable) forget(jb *cadJob) {
	t.mu.Lock()
	if t.byID[jb.id] == jb {
		delete(t.byID, jb.id)
	}
	t.mu.Unlock()
}

// lookup finds the job id of who; nil when there is none, or it is
// someone else's: the caller cannot tell which.
func (t *jobTable) lookup(id string, who owner) *cadJob {
	t.mu.Lock()
	defer t.mu.Unlock()
	if jb := t.byID[id]; jb != nil && jb.owner == who {
		return jb
	}
	return nil
}

// running finds who's job still running for this very call.
func (t *jobTable) running(who owner, tool string, args []byte) *cadJob {
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, jb := range t.byID {
		if jb.owner == who && jb.tool == tool && bytes.Equal(jb.args, args) && !jb.finished() {
			return jb
		}
	}
	return nil
}

// waitTool answers a call of the bridge's wait tool (the reader's, before
// the policy: it is the bridge's, not the base's); false when j is not
// one, or its client gets no jobs.
func (b *bridge) waitTool(c *Client, j *job) bool {
	req := j.req
	if !strings.HasPrefix(req.Tool.Name, waitToolName) || req.Tool.Name != waitName(b.tools.lastList()) || b.jobAfter(j) <= 0 {
		return false
	}
	id, _ := rpc.String(rpc.Field(req.Tool.Args, "job"))
	if rpc.Kind(req.Tool.Args) != rpc.KindObject {
		id = ""
	}
	jb := b.jobs.lookup(id, ownerOf(c, req))
	if jb == nil {
		b.log.Debug().Str("id", req.ID.String()).Msg(req.Tool.Name + ": no such job for this client")
		j.reply.result(b.textResult(req, noJobText(req.Tool.Name), true))
		return true
	}
	b.await(j, jb, false)
	return true
}

// joined makes a call that its client's job is running already wait for
// that job instead of running again; false when there is none.
func (b *bridge) joined(c *Client, j *job) bool {
	if j.headers != nil || b.jobAfter(j) <= 0 {
		return false // headers still to check at the worker: not a call to match yet
	}
	jb := b.jobs.running(ownerOf(c, j.req), j.req.Tool.Name, j.req.Tool.Args)
	if jb == nil {
		return false
	}
	b.log.Info().Str("tool", jb.tool).Str("id", j.req.ID.String()).Str("job", jb.id).Msg("the same call again while its job runs in CAD: it waits for the job, not sent again")
	b.await(j, jb, true)
	return true
}

// await makes request j wait for job jb, on a goroutine of its own
// (runWaiter): tracked like a queued request, so that the client can
// cancel it and its session's end ends it.
func (b *bridge) await(j *job, jb *cadJob, join bool) {
	r := j.reply
	// A waiter skips the queue, and so the bound --queue puts on what one
	// client holds: each is a goroutine and a tracked request held up to
	// the client's time. Its turn (its client's, or the stateless sender's
	// program's) holds at most --queue of them, refused beyond like a call
	// over a full queue.
	t := r.client.turn
	if t.waiters.Add(1) > int64(b.cfg.Queue) {
		t.waiters.Add(-1)
		b.queueFull(r, "request refused: too many requests waiting for jobs")
		return
	}
	r.withContext(b.hardCtx)
	if werr := r.client.track(r, false); werr != nil {
		t.waiters.Add(-1)
		r.fail(werr)
		return
	}
	j.collect = true
	b.jobs.waiters.Add(1)
	go b.runWaiter(j, jb, join)
}

// runWaiter waits for job jb on behalf of request j, up to j's client's
// JobAfter from j's arrival: then answers with CAD's result (the job is
// collected), or says the job is still running. It ends then, or when the
// request ends (cancelled, its session gone, the bridge stopping).
// Heartbeats go to j if it asked for progress, counted from the job's
// start.
func (b *bridge) runWaiter(j *job, jb *cadJob, join bool) {
	defer b.jobs.waiters.Done()
	defer j.reply.client.turn.waiters.Add(-1)
	r := j.reply
	stopBeat := b.heartbeat(r, j.req.ProgressToken, jb.arrived)
	defer stopBeat()
	t := time.NewTimer(max(time.Until(r.arrived.Add(b.jobAfter(j))), 0))
	defer t.Stop()
	wait := waitName(b.tools.lastList())
	select {
	case <-jb.done:
		if testHookCollect != nil {
			testHookCollect(r)
		}
		stopBeat()
		// Collected only when the answer went out: a request that ended
		// meanwhile (cancelled as the job finished, select picking this
		// case) leaves the job for the next wait_for_cad.
		if b.settle(j, collected(j, jb)) {
			b.jobs.forget(jb)
		}
	case <-t.C:
		stopBeat()
		text := stillRunningText(jb.tool, jb.id, wait, time.Since(jb.arrived))
		if join {
			text = jobText(jb.tool, jb.id, wait, time.Since(jb.arrived))
		}
		r.result(b.textResult(j.req, text, false))
	case <-r.ctx.Done():
		r.fail(clienterr.ShuttingDown.New(r.method)) // nothing when it had ended: cancelled, its session gone
	}
}

// testHookCollect, when set by a test, runs as a waiter is about to
// answer with its finished job: the test ends the request there, as a
// cancel arriving at that very moment would.
var testHookCollect func(r *reply)

// collected is job jb's outcome as request j's answer: CAD's result or
// error as it was, under j's id.
func collected(j *job, jb *cadJob) outcome {
	o := jb.o
	id := j.reply.id
	switch {
	case o.err != nil:
		o.answer = rpc.EncodeError(id, o.err)
	case o.rawErr != nil:
		o.answer = rpc.EncodeErrorRaw(id, o.rawErr)
	default:
		o.answer = rpc.EncodeResult(id, o.result)
	}
	o.listChanged = false
	return o
}

// A call can also be due while it waits in the queue, behind a job or a
// long call of another client's: its client would give up on it there. At
// its time it is answered with a job too, and stays in its place in the
// queue: the request the queue holds is swapped for a detached one of the
// same client (its turn, its rules and journal), whose answer, when the
// worker has sent it and CAD has answered, goes to the job (jobSink)
// instead of a stream. Calls asked about first, and calls in a batch, are
// left as they are.

// armQueued starts the clock of a call the queue has taken (enqueue).
func (b *bridge) armQueued(j *job) {
	r := j.reply
	if r.method != lifecycle.MethodToolsCall || j.rule.Ask || r.batch != nil {
		return
	}
	after := b.jobAfter(j)
	if after <= 0 {
		return
	}
	stop := afterFunc(timerQueued, max(time.Until(r.arrived.Add(after)), 0), func() { b.keepQueued(j, r) })
	b.queue.mu.Lock() // the worker may have taken j already (takeStop)
	j.stopQueued = stop
	b.queue.mu.Unlock()
}

// takeStop returns the stop of j's queued clock, once (the worker took j:
// its clock while running is longCall's).
func (q *jobQueue) takeStop(j *job) func() bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	stop := j.stopQueued
	j.stopQueued = nil
	return stop
}

// keepQueued answers queued call j (its request r) with a job, when it is
// still queued, and leaves a detached request in its place.
func (b *bridge) keepQueued(j *job, r *reply) {
	if reqState(r.state.Load()) != reqWaiting {
		return // taken by the worker, or ended
	}
	jb := b.jobs.open(j)
	d := &reply{id: r.id, key: "\x00job " + jb.id, method: r.method, req: r.req, arrived: r.arrived, client: r.client,
		out: jobSink{jb: jb, jobs: b.jobs, log: b.log}, detached: true}
	d.withContext(b.hardCtx)
	// A detached request is sent even once its session has ended (Client.End
	// leaves it be), and at shutdown it is answered into its job; should one
	// ever be left unfinished, its job is forgotten after the hour all the
	// same.
	afterFunc(timerExpiry, jobKeep, func() {
		if !jb.finished() {
			b.jobs.forget(jb)
		}
	})
	if r.client.track(d, false) != nil {
		b.jobs.forget(jb) // the client is gone
		return
	}
	drop := func() {
		if d.client.update(d, reqEnded) {
			d.ended(errCallCancelled)
		}
		b.jobs.forget(jb)
	}
	if !b.queue.swap(j, r, d) {
		drop() // the worker took it meanwhile: its own clock runs (longCall)
		return
	}
	wait := waitName(b.tools.lastList())
	if !r.end(rpc.EncodeResult(r.id, b.textResult(j.req, jobText(jb.tool, jb.id, wait, time.Since(jb.arrived)), false))) {
		drop() // the client cancelled it meanwhile: it is not sent
		return
	}
	b.log.Info().Str("tool", jb.tool).Str("id", r.id.String()).Str("job", jb.id).Dur("after_ms", time.Since(jb.arrived)).
		Msg("tools/call still queued when its answer was due: answered with a job; it keeps its place in the queue")
}

// swap puts to in from's place as the request of queued job j, and marks
// j detached; false when j is not queued with from any more (the worker
// took it, or it was taken out). Under the queue's lock, like pop: the
// worker sees j either as it was or swapped.
func (q *jobQueue) swap(j *job, from, to *reply) bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	if j.reply != from || !slices.Contains(j.reply.client.turn.jobs, j) {
		return false
	}
	j.reply, j.detached = to, true
	return true
}

// jobSink is where a detached request's messages go: its answer finishes
// the job; heartbeats go nowhere.
type jobSink struct {
	jb   *cadJob
	jobs *jobTable
	log  zerolog.Logger
}

func (s jobSink) Write(m rpc.Encoded) error {
	resp, ok := rpc.DecodeValidMessage(m.AppendTo(nil)).Msg.(*rpc.Response)
	if !ok {
		return nil // a heartbeat
	}
	s.jb.o = outcome{result: resp.Result, rawErr: resp.ErrorRaw}
	close(s.jb.done)
	// Kept for an hour from now, as a job answered while running is
	// (kept): the timer armed when the job was made spares a finished one.
	jb, jobs := s.jb, s.jobs
	afterFunc(timerExpiry, jobKeep, func() { jobs.forget(jb) })
	s.log.Info().Str("job", s.jb.id).Str("tool", s.jb.tool).Dur("took_ms", time.Since(s.jb.arrived)).Msg("job finished in CAD; its result is kept for its client")
	return nil
}

func (s jobSink) WriteBatch([]rpc.Encoded) error { return nil }
