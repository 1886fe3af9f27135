package bridge

import (
	"context"
	"encoding/json"
	"fmt"
	"github.com/mcp-bridge/mcp-bridge/lifecycle"
	"github.com/rs/zerolog"

	"github.com/mcp-bridge/mcp-bridge/bridge/clientfit"
	"github.com/mcp-bridge/mcp-bridge/rpc"
	"strings"
	"testing"
	"time"
)

// allTimers records every job timer, expiry ones too, for the test to fire.
type allTimers struct {
	armed map[string]chan armedTimer
}

func hookAllJobTimers(t *testing.T) *allTimers {
	at := &allTimers{armed: map[string]chan armedTimer{
		timerQueued: make(chan armedTimer, 100), timerRunning: make(chan armedTimer, 100), timerExpiry: make(chan armedTimer, 100)}}
	testHookJobTimer = func(what string, d time.Duration, f func()) func() bool {
		at.armed[what] <- armedTimer{d, f}
		return func() bool { return true }
	}
	t.Cleanup(func() { testHookJobTimer = nil })
	return at
}

func (at *allTimers) next(t *testing.T, what string) armedTimer {
	t.Helper()
	select {
	case a := <-at.armed[what]:
		return a
	case <-time.After(waitLimit):
		t.Fatalf("no %s timer armed", what)
	}
	return armedTimer{}
}

// fireAll fires every timer of what armed so far.
func (at *allTimers) fireAll(what string) int {
	n := 0
	for {
		select {
		case a := <-at.armed[what]:
			a.fire()
			n++
		default:
			return n
		}
	}
}

// TestAttackQueuedJobKeptPastTheHour: a call due while queued becomes a
// job; CAD answers it later; nobody collects it. Its result must be kept
// for an hour after CAD finished (noJobText, docs/limits.md) and then
// forgotten. The only expiry timer of a queued job is armed when it is
// made, and does nothing when it fires on a finished job: the result is
// kept for ever (memory held for the bridge's life, one result per job).
func TestAttackQueuedJobKeptPastTheHour(t *testing.T) {
	at := hookAllJobTimers(t)
	base := &heldBase{called: make(chan struct{}, 3), release: make(chan struct{}, 3)}
	h := newHarness(t, nil, func(c *Config) { within2s(c); c.Base = base })
	h.send(initialize("0", "2025-11-25"))
	h.recv()
	h.send(call("1", "regen", `{"n":1}`))
	<-base.called
	at.next(t, timerQueued)
	at.next(t, timerRunning)
	h.send(call("2", "regen", `{"n":2}`))
	at.next(t, timerQueued).fire() // 2 is due while queued
	m := jobRE.FindStringSubmatch(resultText(t, h.recv()))
	if m == nil {
		t.Fatal("no job for 2")
	}
	base.release <- struct{}{}
	h.expect(`{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"regenerated"}]}}`)
	<-base.called // 2, detached
	base.release <- struct{}{}
	// 3 reaches the base only once 2's answer went to its job.
	h.send(call("3", "regen", `{"n":3}`))
	<-base.called
	base.release <- struct{}{}
	for {
		got := h.recv()
		if strings.Contains(got, `"id":3,`) {
			break
		}
	}
	// An hour passes after CAD finished job 2: every expiry armed fires.
	if at.fireAll(timerExpiry) == 0 {
		t.Fatal("no expiry timer armed for the job")
	}
	h.send(call("4", "wait_for_cad", `{"job":"`+m[1]+`"}`))
	if txt := resultText(t, h.recv()); !strings.HasPrefix(txt, "ERROR: No such job") {
		t.Errorf("job %s still kept after its hour: wait_for_cad gave %q", m[1], txt)
	}
	h.closeAndWait()
}

// bigTextBase answers every tools/call with one text block of n 'x's, and
// lists one tool.
type bigTextBase struct{ n int }

func (b bigTextBase) Call(ctx context.Context, frame []byte) ([]byte, error) {
	req := rpc.DecodeMessage(frame).Msg.(*rpc.Request)
	if req.Method == "tools/list" {
		return rpc.EncodeResult(req.ID, []byte(`{"tools":[{"name":"dump","inputSchema":{"type":"object"}}]}`)).AppendTo(nil), nil
	}
	return rpc.EncodeResult(req.ID, []byte(`{"content":[{"type":"text","text":"`+strings.Repeat("x", b.n)+`"}]}`)).AppendTo(nil), nil
}

// TestAttackFitAtTheSmallestLimit: --max-result-bytes 1024, the smallest
// the flag takes, is "the largest answer to a tools/call every client
// gets, in bytes of the whole JSON-RPC message (its id and envelope
// counted)" (docs/limits.md). Fit floors the result's own share at
// MinResultBytes after taking the envelope off, so the message goes out
// at 1024 + the envelope: over the limit, by 34 bytes for id 1 and by the
// id's length for a long one.
func TestAttackFitAtTheSmallestLimit(t *testing.T) {
	for _, id := range []string{"1", `"` + strings.Repeat("i", 300) + `"`} {
		h := newHarness(t, nil, func(c *Config) {
			c.Base = bigTextBase{n: 5000}
			c.Fit = clientfit.Config{MaxResultBytes: clientfit.MinResultBytes, MaxResultBytesSet: true}
		})
		h.send(initialize("0", "2025-11-25"))
		h.recv()
		h.send(call(id, "dump", `{}`))
		got := h.recv()
		// Reduced within the limit, or (an id too long to leave Fit its
		// room) the short too_large_for_client error: never over.
		if !strings.Contains(got, "mcp-bridge:") && !(len(id) > 200 && strings.Contains(got, "does not fit in the 1024 bytes")) {
			t.Fatalf("not reduced: %.300s", got)
		}
		if len(got) > clientfit.MinResultBytes {
			t.Errorf("id %.10s…: answer of %d bytes under --max-result-bytes %d", id, len(got), clientfit.MinResultBytes)
		}
		h.closeAndWait()
	}
}

// TestAttackJobAnswerOverTheLimit: the bridge's own job answer names the
// tool twice, as the client (or the base's list) wrote it, and is not
// fitted (keep writes it with r.end): a tool named with 400 characters
// gives a job answer over --max-result-bytes 1024, which docs/limits.md
// says no answer to a tools/call goes over.
func TestAttackJobAnswerOverTheLimit(t *testing.T) {
	jt := hookJobTimer(t)
	base := &heldBase{called: make(chan struct{}, 1), release: make(chan struct{}, 1)}
	h := newHarness(t, nil, func(c *Config) {
		c.Base = base
		c.Fit = clientfit.Config{AnswerWithin: 2 * time.Second, AnswerWithinSet: true,
			MaxResultBytes: clientfit.MinResultBytes, MaxResultBytesSet: true}
	})
	h.send(initialize("0", "2025-11-25"))
	h.recv()
	h.send(call("1", strings.Repeat("t", 400), `{}`))
	<-base.called
	jt.next(t, timerQueued)
	jt.next(t, timerRunning).fire()
	got := h.recv()
	if jobRE.FindStringSubmatch(resultText(t, got)) == nil {
		t.Fatalf("want a job, got %.200s", got)
	}
	if len(got) > clientfit.MinResultBytes {
		t.Errorf("job answer of %d bytes under --max-result-bytes %d", len(got), clientfit.MinResultBytes)
	}
	base.release <- struct{}{}
	h.closeAndWait()
}

// TestAttackWaitersUnbounded: the queue is bounded (--queue) "so that
// memory stays bounded" (enqueue): a call over it is refused at once. A
// call that joins a running job, and a wait_for_cad call, skip the queue
// and its bound (reader.go: waitTool and joined come before admitCall and
// enqueue): each is a goroutine and a tracked request held up to the
// client's time, as many as one client sends. With --queue 2 and a job
// running, a third waiter must be refused like a third queued call.
func TestAttackWaitersUnbounded(t *testing.T) {
	jt := hookJobTimer(t)
	base := &heldBase{called: make(chan struct{}, 1), release: make(chan struct{}, 1)}
	h := newHarness(t, nil, func(c *Config) { within2s(c); c.Base = base; c.Queue = 2 })
	h.send(initialize("0", "2025-11-25"))
	h.recv()
	h.send(call("1", "regen", `{}`))
	<-base.called
	jt.next(t, timerQueued)
	jt.next(t, timerRunning).fire()
	m := jobRE.FindStringSubmatch(resultText(t, h.recv()))
	if m == nil {
		t.Fatal("no job")
	}
	for _, kind := range []string{"join", "wait"} {
		for i := range 3 {
			id := fmt.Sprintf(`"%s%d"`, kind, i)
			if kind == "join" {
				h.send(call(id, "regen", `{}`))
			} else {
				h.send(call(id, "wait_for_cad", `{"job":"`+m[1]+`"}`))
			}
		}
		h.send(`{"jsonrpc":"2.0","id":"p` + kind + `","method":"ping"}`)
		if got := h.recv(); !strings.Contains(got, `"error"`) {
			t.Errorf("%s: 3 waiters under --queue 2 all held, none refused; first answer %s", kind, got)
			if got != `{"jsonrpc":"2.0","id":"p`+kind+`","result":{}}` {
				h.recv()
			}
		} else {
			h.recv() // the ping
		}
	}
	base.release <- struct{}{}
	h.closeAndWait()
}

// pagedWaitBase lists its tools in two pages, its own wait_for_cad on the
// second, and answers every call with the tool's name.
type pagedWaitBase struct{}

func (pagedWaitBase) Call(ctx context.Context, frame []byte) ([]byte, error) {
	req := rpc.DecodeMessage(frame).Msg.(*rpc.Request)
	if req.Method == "tools/list" {
		if rpc.Field(req.Params, "cursor") == nil {
			return rpc.EncodeResult(req.ID, []byte(`{"tools":[{"name":"regen","inputSchema":{"type":"object"}}],"nextCursor":"p2"}`)).AppendTo(nil), nil
		}
		return rpc.EncodeResult(req.ID, []byte(`{"tools":[{"name":"wait_for_cad","inputSchema":{"type":"object"}}]}`)).AppendTo(nil), nil
	}
	name, _ := rpc.String(rpc.Field(req.Params, "name"))
	return rpc.EncodeResult(req.ID, []byte(`{"content":[{"type":"text","text":"the base's `+name+`"}]}`)).AppendTo(nil), nil
}

// TestAttackPagedBaseWaitForCad: "If the base has a tool named
// wait_for_cad itself, that one keeps its name" (docs/limits.md). The
// bridge names its tool from the page it adds it to (the first) and, for
// calls, from the complete list it holds, none when the base pages: a
// base whose wait_for_cad is on its second page is listed to the client
// next to the bridge's tool of the same name, and calls to it never reach
// the base.
func TestAttackPagedBaseWaitForCad(t *testing.T) {
	h := newHarness(t, nil, func(c *Config) { within2s(c); c.Base = pagedWaitBase{} })
	h.send(initialize("0", "2025-11-25"))
	h.recv()
	var names []string
	for i, cursor := range []string{"", `,"params":{"cursor":"p2"}`} {
		h.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/list"%s}`, i+1, cursor))
		var list struct {
			Result struct{ Tools []struct{ Name string } }
		}
		got := h.recv()
		if err := json.Unmarshal([]byte(got), &list); err != nil {
			t.Fatalf("list: %s", got)
		}
		for _, tl := range list.Result.Tools {
			names = append(names, tl.Name)
		}
	}
	seen := map[string]bool{}
	for _, n := range names {
		if seen[n] {
			t.Errorf("tool %q listed twice across the pages: %q", n, names)
		}
		seen[n] = true
	}
	h.send(call("3", "wait_for_cad", `{"job":"x"}`))
	if got := h.recv(); got != `{"jsonrpc":"2.0","id":3,"result":{"content":[{"type":"text","text":"the base's wait_for_cad"}]}}` {
		t.Errorf("the base's wait_for_cad was not called: %s", got)
	}
	h.closeAndWait()
}

// deadlineBase is heldBase telling the test each call's deadline.
type deadlineBase struct {
	heldBase
	deadlines chan time.Duration
}

func (b *deadlineBase) Call(ctx context.Context, frame []byte) ([]byte, error) {
	if req := rpc.DecodeMessage(frame).Msg.(*rpc.Request); req.Method == "tools/call" {
		left := time.Duration(-1)
		if dl, ok := ctx.Deadline(); ok {
			left = time.Until(dl)
		}
		b.deadlines <- left
	}
	return b.heldBase.Call(ctx, frame)
}

// TestAttackQueuedJobCutAtCallTimeout: "A call of a client that gets jobs
// runs at CAD for up to an hour (or --call-timeout when that is longer),
// not the 2 minutes of --call-timeout's default" (docs/limits.md). A call
// that became a job while queued is sent detached, and longCall gives a
// detached call no job time: it is cut at --call-timeout (here 2
// minutes), CAD's work broken off and the job's result a timeout error,
// where the same call sent at once would have had its hour.
func TestAttackQueuedJobCutAtCallTimeout(t *testing.T) {
	jt := hookJobTimer(t)
	base := &deadlineBase{heldBase{called: make(chan struct{}, 2), release: make(chan struct{}, 2)}, make(chan time.Duration, 2)}
	h := newHarness(t, nil, func(c *Config) { within2s(c); c.Base = base; c.CallTimeout = 2 * time.Minute })
	h.send(initialize("0", "2025-11-25"))
	h.recv()
	h.send(call("1", "regen", `{"n":1}`))
	<-base.called
	if left := <-base.deadlines; left < 59*time.Minute {
		t.Errorf("call 1 (sent at once) may run %s at CAD, want an hour", left)
	}
	jt.next(t, timerQueued)
	jt.next(t, timerRunning)
	h.send(call("2", "regen", `{"n":2}`))
	jt.next(t, timerQueued).fire() // 2 is due while queued
	if jobRE.FindStringSubmatch(resultText(t, h.recv())) == nil {
		t.Fatal("no job for 2")
	}
	base.release <- struct{}{}
	h.recv() // 1's answer
	<-base.called
	if left := <-base.deadlines; left < 59*time.Minute {
		t.Errorf("call 2 (a job made while queued) may run only %s at CAD, want an hour", left.Round(time.Second))
	}
	base.release <- struct{}{}
	h.closeAndWait()
}

// ctxBase is heldBase telling the test each call's context.
type ctxBase struct {
	heldBase
	ctxs chan context.Context
}

func (b *ctxBase) Call(ctx context.Context, frame []byte) ([]byte, error) {
	if req := rpc.DecodeMessage(frame).Msg.(*rpc.Request); req.Method == "tools/call" {
		b.ctxs <- ctx
	}
	return b.heldBase.Call(ctx, frame)
}

// lineStream is a Stream handing the test each message.
type lineStream chan string

func (s lineStream) Write(m rpc.Encoded) error { s <- string(m.AppendTo(nil)); return nil }
func (s lineStream) WriteBatch(ms []rpc.Encoded) error {
	for _, m := range ms {
		s <- string(m.AppendTo(nil))
	}
	return nil
}

// TestAttackSessionEndCutsQueuedJob: "CAD is not interrupted. The call
// goes on, untouched, on its own connection to the base" (docs/limits.md,
// "Long calls"). A job made while the call ran goes on when its HTTP
// session ends (longCall stops watching the request once it is kept);
// one made while the call was queued is a detached request tracked on the
// same session, and the session's end (Client.End) cancels it: the call
// the client was told "CAD goes on with it" is never sent (and, were it
// running, its context would end: CAD's call broken off mid-way).
func TestAttackSessionEndCutsQueuedJob(t *testing.T) {
	jt := hookJobTimer(t)
	base := &ctxBase{heldBase{called: make(chan struct{}, 2), release: make(chan struct{}, 2)}, make(chan context.Context, 2)}
	cfg := Config{Base: base, BaseAddr: "127.0.0.1:1", Server: lifecycle.NewServer("mcp-bridge", "test", "", true),
		Log: zerolog.New(zerolog.NewTestWriter(t)).Level(zerolog.InfoLevel)}
	within2s(&cfg)
	core := Start(cfg, "http")
	defer core.Stop()
	out := make(lineStream, 100)
	cl := core.NewClient(out, nil)
	send := func(line string) {
		msgs, batch := core.Decode([]byte(line))
		core.Dispatch(cl, out, msgs, batch)
	}
	send(initialize("0", "2025-11-25"))
	<-out
	send(call("1", "regen", `{"n":1}`))
	<-base.called
	ctx1 := <-base.ctxs
	jt.next(t, timerQueued)
	jt.next(t, timerRunning).fire() // 1 is a job while CAD runs it
	if jobRE.FindStringSubmatch(resultText(t, <-out)) == nil {
		t.Fatal("no job for 1")
	}
	send(call("2", "regen", `{"n":2}`))
	jt.next(t, timerQueued).fire() // 2 is a job while queued
	if jobRE.FindStringSubmatch(resultText(t, <-out)) == nil {
		t.Fatal("no job for 2")
	}
	cl.End() // the session ends while CAD runs job 1
	if ctx1.Err() != nil {
		t.Fatalf("job 1's call was cut by its session's end: %v", ctx1.Err())
	}
	base.release <- struct{}{}
	select {
	case <-base.called: // job 2 is sent
	case <-time.After(waitLimit):
		t.Fatal("job 2 (made while queued) was never sent to CAD once its session ended")
	}
	<-base.ctxs
	base.release <- struct{}{}
}
