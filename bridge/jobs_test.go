package bridge

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/mcp-bridge/mcp-bridge/bridge/clientfit"
	"github.com/mcp-bridge/mcp-bridge/lifecycle"
	"github.com/mcp-bridge/mcp-bridge/rpc"
	"github.com/mcp-bridge/mcp-bridge/tcpbase/simbase"
)

// jobRE finds the job an answer names.
var jobRE = regexp.MustCompile(`as job ([0-9a-f]{32})\.`)

// within2s is --answer-within 2s: a call still running 1.8 s after it
// arrived becomes a job.
func within2s(c *Config) {
	c.Fit = clientfit.Config{AnswerWithin: 2 * time.Second, AnswerWithinSet: true}
}

// eraLines writes the requests of one era for the job tests.
type eraLines struct {
	name string
	list func(id string) string
	call func(id, tool, args string) string
	init []string
}

var jobEras = []eraLines{
	{"2025-11-25", func(id string) string {
		return `{"jsonrpc":"2.0","id":` + id + `,"method":"tools/list"}`
	}, call, []string{initialize("0", "2025-11-25")}},
	{"2026-07-28", func(id string) string {
		return `{"jsonrpc":"2.0","id":` + id + `,"method":"tools/list","params":{` + fmt.Sprintf(wireMeta, "{}") + `}}`
	}, func(id, tool, args string) string { return modernCall(id, tool, args, "{}", "") }, nil},
}

func resultText(t *testing.T, line string) string {
	t.Helper()
	var a struct {
		Result struct {
			Content []struct{ Text string }
			IsError bool
		}
	}
	if err := json.Unmarshal([]byte(line), &a); err != nil || len(a.Result.Content) == 0 {
		t.Fatalf("not a text result: %.400s", line)
	}
	if a.Result.IsError {
		return "ERROR: " + a.Result.Content[0].Text
	}
	return a.Result.Content[0].Text
}

// TestLongCallBecomesJob is issue 40's test, in both eras over stdio,
// against the simulated base's sim_slow with --answer-within 2s: a 7 s
// call is answered with a job (a result, not an error) while the base is
// still running it; the same call sent again joins the job and runs once
// at the base; wait_for_cad returns the base's own result, once, and then
// the job is gone, with the same words as a job that never was; the
// journal has one line for the call; the call is not cut at a
// --call-timeout shorter than it.
func TestLongCallBecomesJob(t *testing.T) {
	for _, era := range jobEras {
		t.Run(era.name, func(t *testing.T) {
			t.Parallel()
			sim, err := simbase.Start("127.0.0.1:0", simbase.Options{LimitTools: true})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { sim.Close() })
			jpath, jw := newJournal(t)
			// --call-timeout 3s, under the call's 7: a client that gets
			// jobs has its call run to its end (an hour at most).
			h := newHarness(t, sim, func(c *Config) { within2s(c); c.Journal = jw; c.CallTimeout = 3 * time.Second })
			h.send(era.init...)
			if len(era.init) > 0 {
				h.recv()
			}
			h.send(era.list("1"))
			tools := listed(t, h.recv())
			if _, ok := tools["wait_for_cad"]; !ok {
				t.Fatalf("wait_for_cad not listed: %v", tools)
			}

			slow := era.call(`"a"`, "sim_slow", `{"seconds":7,"label":"L"}`)
			h.send(slow)
			got := h.recv()
			if field(t, got, "id") != "a" || field(t, got, "result.isError") != false {
				t.Fatalf("want a result for a, got %s", got)
			}
			if n := sim.Runs("L"); n != 0 {
				t.Fatalf("the job answer came after the base finished (%d runs): not a job", n)
			}
			m := jobRE.FindStringSubmatch(resultText(t, got))
			if m == nil {
				t.Fatalf("no job in %s", got)
			}
			job := m[1]
			if txt := resultText(t, got); !strings.Contains(txt, `call wait_for_cad with {"job": "`+job+`"}`) || !strings.Contains(txt, "sim_slow is still running in CAD") {
				t.Errorf("the job answer does not say what to do: %q", txt)
			}

			// The same call again: it joins. wait_for_cad until the result.
			h.send(era.call(`"b"`, "sim_slow", `{"seconds":7,"label":"L"}`))
			wait := func(id, job string) string {
				return era.call(id, "wait_for_cad", `{"job":"`+job+`"}`)
			}
			h.send(wait(`"w0"`, job))
			var results []string
			for n := 1; len(results) < 2; {
				got := h.recv()
				id, _ := field(t, got, "id").(string)
				txt := resultText(t, got)
				switch {
				case strings.HasPrefix(txt, "L done after 7 s (run 1 of L)"):
					results = append(results, id)
				case id == "b" && strings.Contains(txt, "as job "+job):
					h.send(era.call(`"b"`, "sim_slow", `{"seconds":7,"label":"L"}`)) // joins again
				case strings.HasPrefix(id, "w") && strings.Contains(txt, "(job "+job+") is still running in CAD"):
					h.send(wait(fmt.Sprintf(`"w%d"`, n), job))
					n++
				default:
					t.Fatalf("unexpected answer %s", got)
				}
			}
			// The worker takes a client's jobs in order: a tools/list
			// answered means no sim_slow call of b's is queued either.
			h.send(era.list("2"))
			if got := h.recv(); field(t, got, "id") != float64(2) {
				t.Fatalf("want the list, got %.300s", got)
			}
			if n := sim.Runs("L"); n != 1 || sim.CallsFor(`"b"`) != 0 {
				t.Errorf("runs at the base: %d, calls of b: %d; want 1 and 0", n, sim.CallsFor(`"b"`))
			}
			// Collected: the job is gone, and says so as one that never was.
			h.send(wait(`"gone"`, job), wait(`"never"`, strings.Repeat("0", 32)))
			gone, never := resultText(t, h.recv()), resultText(t, h.recv())
			if !strings.HasPrefix(gone, "ERROR: No such job for this client.") || gone != never {
				t.Errorf("collected job: %q\nunknown job:   %q", gone, never)
			}
			h.closeAndWait()
			var lines []string
			for _, l := range journalLines(jpath) {
				if strings.Contains(l, "sim_slow") || strings.Contains(l, "wait_for_cad") {
					lines = append(lines, l)
				}
			}
			if len(lines) != 1 || lines[0] != `"a" sim_slow ok ` {
				t.Errorf("journal: %q, want one line for the call", lines)
			}
		})
	}
}

// heldBase is a base whose tools/call waits for the test: called says a
// call arrived, release lets it answer.
type heldBase struct {
	called  chan struct{}
	release chan struct{}
}

func (b *heldBase) Call(ctx context.Context, frame []byte) ([]byte, error) {
	d := rpc.DecodeMessage(frame)
	req, _ := d.Msg.(*rpc.Request)
	if req.Method == "tools/list" {
		return rpc.EncodeResult(req.ID, []byte(`{"tools":[{"name":"regen","inputSchema":{"type":"object"}}]}`)).AppendTo(nil), nil
	}
	b.called <- struct{}{}
	select {
	case <-b.release:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	return rpc.EncodeResult(req.ID, []byte(`{"content":[{"type":"text","text":"regenerated"}]}`)).AppendTo(nil), nil
}

// jobTimer replaces the timers that make a call a job: the test fires
// them. Each call arms one when queued (still queued when due) and one
// when sent (still running when due).
type jobTimer struct {
	armed map[string]chan armedTimer
}

type armedTimer struct {
	d    time.Duration
	fire func()
}

func hookJobTimer(t *testing.T) *jobTimer {
	jt := &jobTimer{armed: map[string]chan armedTimer{timerQueued: make(chan armedTimer, 100), timerRunning: make(chan armedTimer, 100)}}
	testHookJobTimer = func(what string, d time.Duration, f func()) func() bool {
		if ch := jt.armed[what]; ch != nil {
			ch <- armedTimer{d, f}
		}
		return func() bool { return true }
	}
	t.Cleanup(func() { testHookJobTimer = nil })
	return jt
}

// next returns the next timer armed for what.
func (jt *jobTimer) next(t *testing.T, what string) armedTimer {
	t.Helper()
	select {
	case a := <-jt.armed[what]:
		return a
	case <-time.After(waitLimit):
		t.Fatalf("no %s timer armed", what)
	}
	return armedTimer{}
}

// TestJobEdge: the two sides of the answer being due. A call CAD answers
// before it is due is answered as usual, and the timer firing after that
// makes no job; one it has not answered when the timer fires is answered
// with a job while the base still holds the call, and wait_for_cad returns
// the base's answer once released. The timer is armed at JobAfter from
// the call's arrival: at most 1.8 s for --answer-within 2s.
func TestJobEdge(t *testing.T) {
	jt := hookJobTimer(t)
	base := &heldBase{called: make(chan struct{}, 1), release: make(chan struct{}, 1)}
	h := newHarness(t, nil, func(c *Config) { within2s(c); c.Base = base; c.ProgressInterval = 5 * time.Millisecond })
	h.send(initialize("0", "2025-11-25"))
	h.recv()

	// Before: CAD answers, then the answer would have been due.
	h.send(call("1", "regen", `{}`))
	<-base.called
	queued, running := jt.next(t, timerQueued), jt.next(t, timerRunning)
	for _, a := range []armedTimer{queued, running} {
		if a.d <= 0 || a.d > 1800*time.Millisecond {
			t.Errorf("armed after %s, want (0, 1.8 s]", a.d)
		}
	}
	queued.fire() // sent already: nothing
	base.release <- struct{}{}
	h.expect(`{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"regenerated"}]}}`)
	running.fire()
	h.send(`{"jsonrpc":"2.0","id":"p","method":"ping"}`)
	h.expect(`{"jsonrpc":"2.0","id":"p","result":{}}`)

	// After: the answer is due while CAD still holds the call. Its
	// progress (it asked for it) stops with its answer; wait_for_cad's
	// flows while it waits.
	h.send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"regen","arguments":{},"_meta":{"progressToken":"p2"}}}`)
	<-base.called
	jt.next(t, timerQueued)
	fire := jt.next(t, timerRunning).fire
	got := h.recv()
	if field(t, got, "params.progressToken") != "p2" {
		t.Fatalf("want progress for 2, got %s", got)
	}
	fire()
	var job string
	for job == "" {
		got := h.recv()
		if field(t, got, "method") == "notifications/progress" {
			continue // sent before the answer
		}
		m := jobRE.FindStringSubmatch(resultText(t, got))
		if field(t, got, "id") != float64(2) || m == nil {
			t.Fatalf("want a job for 2, got %s", got)
		}
		job = m[1]
	}
	h.send(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"wait_for_cad","arguments":{"job":"` + job + `"},"_meta":{"progressToken":"p3"}}}`)
	got = h.recv()
	if field(t, got, "params.progressToken") != "p3" {
		t.Fatalf("want progress for wait_for_cad and none for 2 after its answer, got %s", got)
	}
	base.release <- struct{}{}
	for {
		got := h.recv()
		if field(t, got, "params.progressToken") == "p3" {
			continue
		}
		if got != `{"jsonrpc":"2.0","id":3,"result":{"content":[{"type":"text","text":"regenerated"}]}}` {
			t.Fatalf("want the base's answer for 3, got %s", got)
		}
		break
	}
	h.closeAndWait()
}

// waitNamedBase lists a tool of its own named wait_for_cad, and answers every
// call with the tool's name.
type waitNamedBase struct{}

func (waitNamedBase) Call(ctx context.Context, frame []byte) ([]byte, error) {
	req := rpc.DecodeMessage(frame).Msg.(*rpc.Request)
	if req.Method == "tools/list" {
		return rpc.EncodeResult(req.ID, []byte(`{"tools":[{"name":"wait_for_cad","inputSchema":{"type":"object"}}]}`)).AppendTo(nil), nil
	}
	name, _ := rpc.String(rpc.Field(req.Params, "name"))
	return rpc.EncodeResult(req.ID, []byte(`{"content":[{"type":"text","text":"the base's `+name+`"}]}`)).AppendTo(nil), nil
}

// TestWaitToolGivesWayToTheBase: a base with a tool named wait_for_cad
// keeps it, listed and called as the base's; the bridge's is
// wait_for_cad_job, listed after it, with its schema; a client that gets
// no jobs (no --answer-within, a name not in the table) is listed none.
func TestWaitToolGivesWayToTheBase(t *testing.T) {
	h := newHarness(t, nil, func(c *Config) { within2s(c); c.Base = waitNamedBase{} })
	h.send(initialize("0", "2025-11-25"))
	h.recv()
	h.send(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)
	got := h.recv()
	var list struct {
		Result struct {
			Tools []struct {
				Name        string
				InputSchema map[string]any
			}
		}
	}
	if err := json.Unmarshal([]byte(got), &list); err != nil || len(list.Result.Tools) != 2 ||
		list.Result.Tools[0].Name != "wait_for_cad" || list.Result.Tools[1].Name != "wait_for_cad_job" ||
		fmt.Sprint(list.Result.Tools[1].InputSchema["required"]) != "[job]" {
		t.Fatalf("list: %s", got)
	}
	h.send(call("2", "wait_for_cad", `{"job":"x"}`))
	h.expect(`{"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"the base's wait_for_cad"}]}}`)
	h.send(call("3", "wait_for_cad_job", `{"job":"x"}`))
	if txt := resultText(t, h.recv()); !strings.HasPrefix(txt, "ERROR: No such job for this client. wait_for_cad_job collects") {
		t.Errorf("wait_for_cad_job: %q", txt)
	}
	h.closeAndWait()

	plain := newHarness(t, nil, func(c *Config) { c.Base = waitNamedBase{} })
	plain.send(initialize("0", "2025-11-25"), `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)
	plain.recv()
	if got := plain.recv(); strings.Contains(got, "wait_for_cad_job") {
		t.Errorf("a client that gets no jobs is listed the bridge's tool: %s", got)
	}
	plain.closeAndWait()
}

// TestQueuedCallDue: a call due while it still waits in the queue (behind
// a call CAD holds) is answered with a job then, and keeps its place: it
// is sent once the call before it is answered, and its answer is the
// job's, collected by wait_for_cad and by the same call sent again
// meanwhile (which joined it, and is never sent). The journal has one line
// for each call sent.
func TestQueuedCallDue(t *testing.T) {
	jt := hookJobTimer(t)
	base := &heldBase{called: make(chan struct{}, 2), release: make(chan struct{}, 2)}
	jpath, jw := newJournal(t)
	h := newHarness(t, nil, func(c *Config) { within2s(c); c.Base = base; c.Journal = jw })
	h.send(initialize("0", "2025-11-25"))
	h.recv()
	h.send(call("1", "regen", `{"n":1}`))
	<-base.called
	jt.next(t, timerQueued)
	jt.next(t, timerRunning)
	h.send(call("2", "regen", `{"n":2}`))
	jt.next(t, timerQueued).fire() // 2 is due while queued
	got := h.recv()
	m := jobRE.FindStringSubmatch(resultText(t, got))
	if field(t, got, "id") != float64(2) || m == nil {
		t.Fatalf("want a job for 2, got %s", got)
	}
	select {
	case <-base.called:
		t.Fatal("2 was sent while 1 ran")
	default:
	}
	h.send(call("3", "regen", `{"n":2}`), call("4", "wait_for_cad", `{"job":"`+m[1]+`"}`))
	h.send(`{"jsonrpc":"2.0","id":"p","method":"ping"}`)
	h.expect(`{"jsonrpc":"2.0","id":"p","result":{}}`) // 3 and 4 were read, and wait
	base.release <- struct{}{}
	h.expect(`{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"regenerated"}]}}`)
	<-base.called // 2, detached
	base.release <- struct{}{}
	answers := map[string]bool{h.recv(): true, h.recv(): true}
	for _, id := range []string{"3", "4"} {
		if want := `{"jsonrpc":"2.0","id":` + id + `,"result":{"content":[{"type":"text","text":"regenerated"}]}}`; !answers[want] {
			t.Errorf("want %s among %v", want, answers)
		}
	}
	h.closeAndWait()
	if got := journalLines(jpath); fmt.Sprint(got) != fmt.Sprint([]string{"1 regen ok ", "2 regen ok "}) {
		t.Errorf("journal %q", got)
	}
	select {
	case <-base.called:
		t.Error("a call was sent twice")
	default:
	}
}

// TestWaitNameTakesTheNextFree: the bridge's tool takes wait_for_cad, or
// the first of wait_for_cad_job, _2, _3 … the base does not list; a name
// that only looks like one (another case, a space) takes nothing.
func TestWaitNameTakesTheNextFree(t *testing.T) {
	list := func(names ...string) []byte {
		var tools []string
		for _, n := range names {
			tools = append(tools, `{"name":"`+n+`","inputSchema":{"type":"object"}}`)
		}
		return []byte(`{"tools":[` + strings.Join(tools, ",") + `]}`)
	}
	many := []string{"wait_for_cad", "wait_for_cad_job"}
	for i := 2; i <= 5000; i++ {
		many = append(many, fmt.Sprintf("wait_for_cad_job_%d", i))
	}
	for _, c := range []struct {
		list []byte
		want string
	}{
		{nil, "wait_for_cad"},
		{list(), "wait_for_cad"},
		{list("Wait_for_cad", "wait_for_cad "), "wait_for_cad"},
		{list("wait_for_cad"), "wait_for_cad_job"},
		{list("wait_for_cad", "wait_for_cad_job"), "wait_for_cad_job_2"},
		{list("wait_for_cad", "wait_for_cad_job", "wait_for_cad_job_2"), "wait_for_cad_job_3"},
		{list("wait_for_cad", "wait_for_cad_job_2"), "wait_for_cad_job"},
		{list(many...), "wait_for_cad_job_5001"},
	} {
		if got := waitName(c.list); got != c.want {
			t.Errorf("%.80s: %s, want %s", c.list, got, c.want)
		}
	}
}

// TestCollectCancelledKeepsJob: a wait_for_cad whose job finishes as its
// request ends (the client's cancel, its session's end) answers nobody, so
// the job is not collected: it is kept for the next wait_for_cad. The
// hook ends the request right between the job's end and the answer.
func TestCollectCancelledKeepsJob(t *testing.T) {
	jt := hookJobTimer(t)
	base := &heldBase{called: make(chan struct{}, 1), release: make(chan struct{}, 1)}
	cfg := Config{Base: base, BaseAddr: "127.0.0.1:1", Server: lifecycle.NewServer("mcp-bridge", "test", "", true),
		Log: zerolog.New(zerolog.NewTestWriter(t)).Level(zerolog.InfoLevel),
		// An hour: the waiters' own (real) timers never fire in the test.
		Fit: clientfit.Config{AnswerWithin: time.Hour, AnswerWithinSet: true}}
	core := Start(cfg, "stdio")
	defer core.Stop()
	out := make(lineStream, 100)
	cl := core.NewClient(out, nil)
	send := func(line string) {
		msgs, batch := core.Decode([]byte(line))
		core.Dispatch(cl, out, msgs, batch)
	}
	send(initialize("0", "2025-11-25"))
	<-out
	send(call("1", "regen", `{}`))
	<-base.called
	jt.next(t, timerQueued)
	jt.next(t, timerRunning).fire()
	m := jobRE.FindStringSubmatch(resultText(t, <-out))
	if m == nil {
		t.Fatal("no job")
	}
	base.release <- struct{}{}
	testHookCollect = func(r *reply) { r.client.Cancel(r.id) }
	send(call("2", "wait_for_cad", `{"job":"`+m[1]+`"}`))
	core.b.jobs.waiters.Wait() // 2 has ended, unanswered
	testHookCollect = nil
	send(call("3", "wait_for_cad", `{"job":"`+m[1]+`"}`))
	if got := <-out; got != `{"jsonrpc":"2.0","id":3,"result":{"content":[{"type":"text","text":"regenerated"}]}}` {
		t.Errorf("the job's result was lost with the cancelled wait_for_cad: 3 got %s", got)
	}
}

// TestWaitersAtTheQueueBound: a client holds --queue calls waiting for
// jobs (here 2 joined calls), the next one is refused at once like a call
// over a full queue, and the count goes back down once they are answered.
func TestWaitersAtTheQueueBound(t *testing.T) {
	jt := hookJobTimer(t)
	base := &heldBase{called: make(chan struct{}, 1), release: make(chan struct{}, 1)}
	cfg := Config{Base: base, BaseAddr: "127.0.0.1:1", Server: lifecycle.NewServer("mcp-bridge", "test", "", true),
		Log:   zerolog.New(zerolog.NewTestWriter(t)).Level(zerolog.InfoLevel),
		Queue: 2,
		// An hour: the waiters' own (real) timers never fire in the test.
		Fit: clientfit.Config{AnswerWithin: time.Hour, AnswerWithinSet: true}}
	core := Start(cfg, "stdio")
	defer core.Stop()
	out := make(lineStream, 100)
	cl := core.NewClient(out, nil)
	send := func(line string) {
		msgs, batch := core.Decode([]byte(line))
		core.Dispatch(cl, out, msgs, batch)
	}
	next := func() string {
		t.Helper()
		select {
		case l := <-out:
			return l
		case <-time.After(waitLimit):
			t.Fatal("no answer within the wait limit")
		}
		return ""
	}
	send(initialize("0", "2025-11-25"))
	next()
	regenerated := func(id string) string {
		return `{"jsonrpc":"2.0","id":"` + id + `","result":{"content":[{"type":"text","text":"regenerated"}]}}`
	}
	for round := range 2 {
		send(call(fmt.Sprintf(`"call%d"`, round), "regen", `{}`))
		<-base.called
		jt.next(t, timerQueued)
		jt.next(t, timerRunning).fire()
		if jobRE.FindStringSubmatch(resultText(t, next())) == nil {
			t.Fatal("no job")
		}
		for i := range 3 {
			send(call(fmt.Sprintf(`"join%d"`, i), "regen", `{}`))
		}
		// join0 and join1 wait for the job: the first answer is join2's.
		want := `{"jsonrpc":"2.0","id":"join2","error":{"code":-32603,"message":"too many requests queued (2) waiting for the CAD base; tools/call was not sent, try again when earlier calls have finished"}}`
		if got := next(); got != want {
			t.Fatalf("round %d: the third waiter under --queue 2:\n got %s\nwant %s", round, got, want)
		}
		base.release <- struct{}{}
		got := map[string]bool{next(): true, next(): true}
		if !got[regenerated("join0")] || !got[regenerated("join1")] {
			t.Fatalf("round %d: the two waiters got %v", round, got)
		}
		core.b.jobs.waiters.Wait() // their count is back to 0 for the next round
	}
}
