package bridge

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/rs/zerolog"

	"github.com/mcp-bridge/mcp-bridge/rpc"
)

func schedJob(c *Client, id string) *job {
	rid, _ := rpc.ParseID([]byte(`"` + id + `"`))
	return &job{reply: &reply{id: rid, client: c}}
}

func newTestClient(string) *Client {
	return newClient(nil, rpc.DefaultMaxMessage, zerolog.Nop())
}

// TestQueueTurns: one client queues many jobs, then three others one
// each; the worker takes one job per client in turn, each client's in its
// order, so a late client waits for at most one job of each other client.
func TestQueueTurns(t *testing.T) {
	s := newJobQueue(64)
	busy, a, b, c := newTestClient("busy"), newTestClient("a"), newTestClient("b"), newTestClient("c")
	for i := range 6 {
		if _, err := s.push(schedJob(busy, fmt.Sprint(i))); err != nil {
			t.Fatal(err)
		}
	}
	for i, cl := range []*Client{a, b, c} {
		if _, err := s.push(schedJob(cl, []string{"a1", "b1", "c1"}[i])); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.push(schedJob(a, "a2")); err != nil {
		t.Fatal(err)
	}
	s.close()
	var got []string
	for j, ok := s.pop(); ok; j, ok = s.pop() {
		got = append(got, strings.Trim(j.reply.id.String(), `"`))
	}
	want := []string{"0", "a1", "b1", "c1", "1", "a2", "2", "3", "4", "5"}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("order (-want +got):\n%s", d)
	}
}

// pushed is push for tests that expect no job to be pushed out.
func pushed(t *testing.T, s *jobQueue, j *job) error {
	t.Helper()
	out, err := s.push(j)
	if out != nil {
		t.Errorf("pushing %s pushed %s out", j.reply.id, out.reply.id)
	}
	return err
}

// TestQueueShares: the queue holds at most its limit, and while others
// wait one client may fill at most half of it. A lone client may fill it
// all, but then another client's job takes the place of its last one
// (pushed out, to be refused), so a client that keeps the queue full
// never gets the next client refused.
func TestQueueShares(t *testing.T) {
	s := newJobQueue(8)
	busy, other, third := newTestClient("busy"), newTestClient("other"), newTestClient("third")
	n := 0
	for pushed(t, s, schedJob(busy, fmt.Sprint(n))) == nil {
		n++
	}
	if n != 8 {
		t.Fatalf("a lone client queued %d, want the whole queue (8)", n)
	}
	out, err := s.push(schedJob(other, "o"))
	if err != nil || out == nil || out.reply.id.String() != `"7"` {
		t.Fatalf("another client's job on a full queue: %v, pushed out %v; want the lone client's last (7) pushed out", err, out)
	}
	if s.len() != 8 {
		t.Errorf("%d jobs queued; want 8", s.len())
	}
	// Two turns: busy 7, other 1. A third client pushes out busy's last
	// again; other, with one job, is never the one to make room.
	if out, err := s.push(schedJob(third, "t")); err != nil || out == nil || out.reply.id.String() != `"6"` {
		t.Errorf("a third client: %v, pushed out %v; want busy's 6", err, out)
	}
	if err := pushed(t, s, schedJob(busy, "again")); err != errQueueFull {
		t.Errorf("the client that filled the queue pushed again: %v; want errQueueFull", err)
	}

	// Of two turns that could make room, the longer one does.
	s = newJobQueue(8)
	busy, mid := newTestClient("busy"), newTestClient("mid")
	for i := range 5 {
		if err := pushed(t, s, schedJob(busy, fmt.Sprint(i))); err != nil {
			t.Fatal(err)
		}
	}
	for i := range 3 {
		if err := pushed(t, s, schedJob(mid, fmt.Sprint("m", i))); err != nil {
			t.Fatal(err)
		}
	}
	if out, err := s.push(schedJob(other, "n")); err != nil || out == nil || out.reply.id.String() != `"4"` {
		t.Errorf("a new client on a queue of 5 + 3: %v, pushed out %v; want the longer turn's last (4)", err, out)
	}

	// A job whose user is asked to confirm it is never pushed out.
	s = newJobQueue(2)
	busy, other = newTestClient("busy"), newTestClient("other")
	asking := schedJob(busy, "asking")
	asking.rule.Ask = true
	asking.reply.state.Store(int32(reqAsking))
	for _, j := range []*job{schedJob(busy, "plain"), asking} {
		if err := pushed(t, s, j); err != nil {
			t.Fatal(err)
		}
	}
	if err := pushed(t, s, schedJob(other, "o")); err != errQueueFull {
		t.Errorf("a full queue whose longest turn ends in a question: %v; want errQueueFull", err)
	}

	s = newJobQueue(8)
	busy, other = newTestClient("busy"), newTestClient("other")
	if err := pushed(t, s, schedJob(other, "o1")); err != nil {
		t.Fatal(err)
	}
	n = 0
	for pushed(t, s, schedJob(busy, fmt.Sprint(n))) == nil {
		n++
	}
	if n != 4 {
		t.Errorf("with another client waiting, a client queued %d, want half the queue (4)", n)
	}
	if err := pushed(t, s, schedJob(other, "o2")); err != nil {
		t.Errorf("no room left for the other client: %v", err)
	}
}

// TestQueuePushOutEdge: on a full queue a turn gives up its last job to
// another turn only when it holds at least two more: one more is a fair
// share already (giving way then would only move the shortfall, each
// client's call pushed out in turn).
func TestQueuePushOutEdge(t *testing.T) {
	fill := func(counts ...int) (*jobQueue, []*Client) {
		s := newJobQueue(8)
		var cs []*Client
		for i, n := range counts {
			c := newTestClient("")
			cs = append(cs, c)
			for k := range n {
				if err := pushed(t, s, schedJob(c, fmt.Sprintf("%c%d", 'a'+i, k))); err != nil {
					t.Fatal(err)
				}
			}
		}
		return s, cs
	}
	// 3, 3, 2: the third holds one fewer than the longest: refused,
	// nobody's call taken out.
	s, cs := fill(3, 3, 2)
	if out, err := s.push(schedJob(cs[2], "c2")); err != errQueueFull || out != nil {
		t.Errorf("3+3+2, the third's next: %v, pushed out %v; want errQueueFull and nothing pushed out", err, out != nil)
	}
	// 4, 2, 2: two fewer: the longest's last makes room.
	s, cs = fill(4, 2, 2)
	if out, err := s.push(schedJob(cs[2], "c2")); err != nil || out == nil || out.reply.id.String() != `"a3"` {
		t.Errorf("4+2+2, the third's next: %v, pushed out %v; want the first's last (a3)", err, out)
	}
	if s.len() != 8 {
		t.Errorf("%d queued; want 8", s.len())
	}
}

// TestNoStartOnceGone: a request the worker takes while its session ends
// (gone() has marked the client ended and counted the request as queued,
// and not yet cancelled it) does not start. Else it ran in CAD while its
// POST was told 404, "nothing ran", and connect sent it again.
func TestNoStartOnceGone(t *testing.T) {
	c := newTestClient("")
	id, _ := rpc.ParseID([]byte(`1`))
	r := c.newReply(id, "tools/call", nil)
	if err := c.track(r, false); err != nil {
		t.Fatal(err)
	}
	c.mu.Lock()
	c.ended = true // gone(), between its snapshot and its cancels
	c.mu.Unlock()
	if c.update(r, reqRunning, reqWaiting) {
		t.Error("a call of an ended session started; its POST gets 404, which says it did not run")
	}
}

// TestCancelEndsContext: a request has its context from the moment it is
// tracked; notifications/cancelled while it is queued ends it once, frees
// its id and cancels that context, as for a running one; nothing ends it
// a second time, and the worker does not take it to the base.
func TestCancelEndsContext(t *testing.T) {
	c := newTestClient("")
	id, _ := rpc.ParseID([]byte(`7`))
	r := c.newReply(id, "tools/call", nil)
	r.withContext(context.Background())
	if err := c.track(r, false); err != nil {
		t.Fatal(err)
	}
	c.Cancel(id)
	if r.ctx.Err() == nil || context.Cause(r.ctx) != errCallCancelled {
		t.Errorf("context after cancel: %v (cause %v); want cancelled by the client", r.ctx.Err(), context.Cause(r.ctx))
	}
	if c.inUse(r) {
		t.Error("the cancelled request's id is still in use")
	}
	if r.end(rpc.EncodeResult(id, []byte(`{}`))) {
		t.Error("a cancelled request ended a second time")
	}
	if c.update(r, reqRunning, reqWaiting) {
		t.Error("the worker took a cancelled request")
	}
}
