package streamable

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/mcp-bridge/mcp-bridge/bridge"
	"github.com/mcp-bridge/mcp-bridge/bridge/guard/confirm/desktop"
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

// TestDesktopOneDialogAtATimeForStatelessClients: a stateless 2026-07-28
// client that cannot ask, naming another clientInfo in each call, is a
// client of its own for each (httpClientKey): its questions were shown
// at once, three dialogs on top of each other, where one client's are
// asked one after the other. The bridge shows one dialog at a time,
// whichever client it asks for: the others wait, and are asked once the
// one on screen is answered.
func TestDesktopOneDialogAtATimeForStatelessClients(t *testing.T) {
	d := bridgetest.NewDesktop()
	waiting := make(chan struct{}, 10)
	h := newHTTPHarness(t, func(c *bridge.Config, _ *Config) {
		c.Policy = bridgetest.Policy(t, bridgetest.TestPolicy, policy.Options{})
		c.Name, c.Desktop, c.ConfirmTimeout = "cad-test", d, time.Hour
		c.Log = zerolog.New(zerolog.MultiLevelWriter(zerolog.NewTestWriter(t), logLines("waits for the dialog on screen", waiting))).Level(zerolog.DebugLevel)
	})
	const n = 3
	var answers []<-chan answer
	for i := range n {
		body := strings.Replace(bridgetest.ModernCall(fmt.Sprint(i), "delete_entities", fmt.Sprintf(`{"handles":["%d"]}`, i), `{}`, ""),
			`"name":"wire-test"`, fmt.Sprintf(`"name":"client-%d"`, i), 1)
		answers = append(answers, h.postAsync(modernHeaders("tools/call", "delete_entities"), body))
	}
	// One shown, two waiting; were they shown instead, a second would be
	// on the desktop.
	var shown []desktop.Question
	for waited := 0; waited < n-1; {
		select {
		case <-waiting:
			waited++
		case q := <-d.Asked:
			if shown = append(shown, q); len(shown) > 1 {
				t.Fatalf("a second dialog opened while the first was open: %s's, %s's", shown[0].Client, q.Client)
			}
		case <-time.After(bridgetest.WaitLimit):
			t.Fatal("the questions neither waited nor were shown")
		}
	}
	for i := range n {
		if i > 0 {
			shown = append(shown, d.Question(t))
		}
		d.Answers <- desktop.DontRun
	}
	for i, ch := range answers {
		if r := within(t, ch); r.status != http.StatusOK || bridgetest.Field(t, r.body, "result.isError") != true {
			t.Errorf("call %d: %d %s", i, r.status, r.body)
		}
	}
	if m := d.MaxOpen(); m != 1 {
		t.Errorf("%d dialogs on the desktop at once, want one", m)
	}
	if h.sim.Calls() != 0 {
		t.Errorf("the base ran %d calls", h.sim.Calls())
	}
}

// logLines is a log writer that signals on ch each line holding msg.
func logLines(msg string, ch chan<- struct{}) io.Writer {
	return writerFunc(func(p []byte) {
		if strings.Contains(string(p), msg) {
			ch <- struct{}{}
		}
	})
}

type writerFunc func([]byte)

func (f writerFunc) Write(p []byte) (int, error) { f(p); return len(p), nil }
