package bridge

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// The first failed write, here the worker's, stops the bridge: nothing more
// reaches CAD, and Run fails although stdin is still open.
func TestWorkerWriteFailureStopsEverything(t *testing.T) {
	g := newGateBase()
	h := newHarness(t, nil, func(c *Config) { c.Base = g })
	h.send(call("1", "x", `{}`), call("2", "x", `{}`), call("3", "x", `{}`), pingP)
	g.waitStarted(t, "1")
	h.expect(pongP) // 2 and 3 are queued
	h.stdout.kill()
	g.releaseOne() // 1's answer is the first write to fail
	select {
	case err := <-h.done:
		if err == nil || !strings.Contains(err.Error(), "stdout") {
			t.Fatalf("Run = %v, want a stdout error", err)
		}
	case <-time.After(waitLimit):
		g.releaseAll()
		t.Fatal("Run went on with a dead stdout and stdin open")
	}
	if diff := cmp.Diff([]string{"1"}, g.seen()); diff != "" {
		t.Errorf("calls that reached CAD (-want +got):\n%s", diff)
	}
}

// At the end of stdin with a dead stdout, the queue is not drained into CAD.
func TestEOFWithDeadStdoutDoesNotDrain(t *testing.T) {
	g := newGateBase()
	h := newHarness(t, nil, func(c *Config) { c.Base = g })
	h.send(call("1", "x", `{}`), call("2", "x", `{}`), call("3", "x", `{}`))
	g.waitStarted(t, "1")
	h.stdout.kill()
	h.stdin.Close()
	g.releaseAll()
	select {
	case err := <-h.done:
		if err == nil {
			t.Fatal("Run = nil, want a stdout error")
		}
	case <-time.After(waitLimit):
		t.Fatal("Run did not return")
	}
	if diff := cmp.Diff([]string{"1"}, g.seen()); diff != "" {
		t.Errorf("calls that reached CAD (-want +got):\n%s", diff)
	}
}
