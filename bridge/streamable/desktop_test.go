package streamable

import (
	"context"
	"net/http"
	"slices"
	"testing"
	"time"

	"github.com/mcp-bridge/mcp-bridge/bridge"
	"github.com/mcp-bridge/mcp-bridge/bridge/guard/policy"
	"github.com/mcp-bridge/mcp-bridge/bridge/internal/bridgetest"
)

// TestDesktopQuestionHoldsOnlyItsClient, over HTTP: while the desktop asks
// about A's call, A's later call waits and B's calls are answered; A
// dropping the call's POST closes the question at once (nothing sent, A's
// later call runs); A's session ending closes the next one.
func TestDesktopQuestionHoldsOnlyItsClient(t *testing.T) {
	d := bridgetest.NewDesktop()
	p := bridgetest.Policy(t, bridgetest.TestPolicy, policy.Options{})
	jpath, jw := newJournal(t)
	h := newHTTPHarness(t, func(c *bridge.Config, _ *Config) {
		c.Policy = p
		c.Name, c.Desktop = "cad-test", d // as the core's withDesktop(d)
		c.Journal, c.ConfirmTimeout = jw, time.Hour
	})
	a := h.initialize("2025-11-25") // declares no elicitation
	ctx, drop := context.WithCancel(context.Background())
	first := make(chan struct{})
	go func() {
		defer close(first)
		_, _ = h.try(ctx, withSession(a), bridgetest.Call(`"q"`, "delete_entities", `{"handles":["1"]}`))
	}()
	if q := d.Question(t); q.Client != "t" || q.Tool != "delete_entities" {
		t.Errorf("the question: %+v", q)
	}
	later := othersGoOn(t, h, a)
	drop()
	<-first
	select {
	case <-d.Withdrawn:
	case <-time.After(bridgetest.WaitLimit):
		t.Fatal("the dialog stayed open after the client dropped the call")
	}
	if r := within(t, later); r.status != http.StatusOK || bridgetest.Field(t, r.body, "result.isError") != false {
		t.Fatalf("A's later call after the question was withdrawn: %d %s", r.status, r.body)
	}
	bridgetest.WaitFor(t, func() bool {
		return slices.Contains(bridgetest.JournalLines(jpath), `"q" delete_entities declined cancelled`)
	})

	// The session ends (DELETE) while the desktop asks: closed, not sent.
	later2 := h.postAsync(withSession(a), bridgetest.Call(`"q2"`, "delete_entities", `{"handles":["1"]}`))
	d.Question(t)
	if r := h.do(context.Background(), http.MethodDelete, h.url, withSession(a), ""); r.status != http.StatusNoContent {
		t.Fatalf("DELETE: %d %s", r.status, r.body)
	}
	select {
	case <-d.Withdrawn:
	case <-time.After(bridgetest.WaitLimit):
		t.Fatal("the dialog stayed open after the session ended")
	}
	<-later2
	for _, id := range []string{`"q"`, `"q2"`} {
		if n := h.sim.CallsFor(id); n != 0 {
			t.Errorf("%s ran %d times", id, n)
		}
	}
}
