package bridge

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/rs/zerolog"

	"github.com/mcp-bridge/mcp-bridge/rpc"
)

func schedJob(c *client, id string) *job {
	rid, _ := rpc.ParseID([]byte(`"` + id + `"`))
	return &job{reply: &reply{id: rid, client: c}}
}

func newTestClient(string) *client {
	return newClient(nil, rpc.DefaultMaxMessage, zerolog.Nop())
}

// TestQueueTurns: one client queues many jobs, then three others one
// each; the worker takes one job per client in turn, each client's in its
// order, so a late client waits for at most one job of each other client.
func TestQueueTurns(t *testing.T) {
	s := newJobQueue(64)
	busy, a, b, c := newTestClient("busy"), newTestClient("a"), newTestClient("b"), newTestClient("c")
	for i := range 6 {
		if err := s.push(schedJob(busy, fmt.Sprint(i))); err != nil {
			t.Fatal(err)
		}
	}
	for i, cl := range []*client{a, b, c} {
		if err := s.push(schedJob(cl, []string{"a1", "b1", "c1"}[i])); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.push(schedJob(a, "a2")); err != nil {
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

// TestQueueShares: the queue holds at most its limit, and while others
// wait one client may fill at most half of it, so there is always room
// for another client's request.
func TestQueueShares(t *testing.T) {
	s := newJobQueue(8)
	busy, other := newTestClient("busy"), newTestClient("other")
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
	s = newJobQueue(8)
	busy, other = newTestClient("busy"), newTestClient("other")
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
