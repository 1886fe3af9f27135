package bridge

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mcp-bridge/mcp-bridge/rpc"
)

func schedJob(c *client, id string) *job {
	return &job{req: &rpc.Request{ID: rpc.RawID([]byte(id))}, o: origin{c: c}}
}

// TestSchedulerTurns: one client queues many jobs, then three others one
// each; the worker takes one job per client in turn, each client's in its
// order, so a late client waits for at most one job of each other client.
func TestSchedulerTurns(t *testing.T) {
	s := newScheduler(64)
	busy, a, b, c := newClient("busy", nil), newClient("a", nil), newClient("b", nil), newClient("c", nil)
	for i := range 6 {
		if err := s.push(schedJob(busy, fmt.Sprint(i))); err != nil {
			t.Fatal(err)
		}
	}
	for _, cl := range []*client{a, b, c} {
		if err := s.push(schedJob(cl, cl.name+"1")); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.push(schedJob(a, "a2")); err != nil {
		t.Fatal(err)
	}
	s.close()
	var got []string
	for j := s.pop(); j != nil; j = s.pop() {
		got = append(got, j.req.ID.String())
	}
	want := []string{"0", "a1", "b1", "c1", "1", "a2", "2", "3", "4", "5"}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("order (-want +got):\n%s", d)
	}
}

// TestSchedulerShares: the queue holds at most its limit, and while others
// wait one client may fill at most half of it, so there is always room
// for another client's request.
func TestSchedulerShares(t *testing.T) {
	s := newScheduler(8)
	busy, other := newClient("busy", nil), newClient("other", nil)
	n := 0
	for s.push(schedJob(busy, fmt.Sprint(n))) == nil {
		n++
	}
	if n != 8 {
		t.Fatalf("a lone client queued %d, want the whole queue (8)", n)
	}
	if err := s.push(schedJob(other, "o")); err != errQueueFull {
		t.Fatalf("a full queue took another job: %v", err)
	}
	s = newScheduler(8)
	busy, other = newClient("busy", nil), newClient("other", nil)
	if err := s.push(schedJob(other, "o1")); err != nil {
		t.Fatal(err)
	}
	n = 0
	for s.push(schedJob(busy, fmt.Sprint(n))) == nil {
		n++
	}
	if n != 4 {
		t.Errorf("with another client waiting, a client queued %d, want half the queue (4)", n)
	}
	if err := s.push(schedJob(other, "o2")); err != nil {
		t.Errorf("no room left for the other client: %v", err)
	}
}
