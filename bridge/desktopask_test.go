package bridge

import (
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/rs/zerolog"

	"github.com/mcp-bridge/mcp-bridge/bridge/guard/confirm/desktop"
	"github.com/mcp-bridge/mcp-bridge/bridge/guard/journal"
	"github.com/mcp-bridge/mcp-bridge/bridge/guard/policy"
	"github.com/mcp-bridge/mcp-bridge/bridge/internal/bridgetest"
)

func withDesktop(d *bridgetest.Desktop, with ...string) func(*Config) {
	return func(c *Config) {
		c.Name = "cad-test"
		if d != nil {
			c.Desktop = d
		} else {
			c.DesktopWhyNot = "neither DISPLAY nor WAYLAND_DISPLAY is set"
		}
		if with != nil {
			c.ConfirmWith = with
		}
	}
}

// initPlain is a client without the elicitation capability (Claude
// Desktop, Gemini CLI).
const initPlain = `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"Claude Desktop","version":"1.0"}}}`

// initWith is a 2025-11-25 initialize declaring this elicitation capability.
func initWith(elicitation string) string {
	return `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"elicitation":` + elicitation + `},"clientInfo":{"name":"c","version":"1"}}}`
}

func TestDesktopAsksWhenTheClientCannot(t *testing.T) {
	jpath, jw := newJournal(t)
	d := bridgetest.NewDesktop()
	h := newHarness(t, nil, both(withPolicy(t, testPolicy, policy.Options{}), withDesktop(d), func(c *Config) { c.Journal = jw }))
	h.send(initPlain)
	h.recv()
	h.send(call("0", "draw_line", `{"start":{"x":0,"y":0},"end":{"x":3,"y":4}}`))
	line := h.recv()
	handle := strings.Fields(field(t, line, "result.content").([]any)[0].(map[string]any)["text"].(string))[1]
	args := fmt.Sprintf(`{"handles":[%q]}`, handle)

	// Run: sent once, and its answer reaches the client.
	h.send(call("1", "delete_entities", args))
	q := d.Question(t)
	if d := cmp.Diff(desktop.Question{Bridge: "cad-test", Client: "Claude Desktop", Tool: "delete_entities", Args: []byte(args), Timeout: q.Timeout}, q); d != "" || q.Timeout <= 0 {
		t.Errorf("the question (-want +got):\n%s", d)
	}
	// The client's next call waits behind the open question: its answer
	// comes after the first call's.
	h.send(call("2", "get_drawing_info", `{}`))
	h.send(`{"jsonrpc":"2.0","id":"p","method":"ping"}`)
	h.expect(`{"jsonrpc":"2.0","id":"p","result":{}}`)
	d.Answers <- desktop.Run
	if line := h.recv(); field(t, line, "id") != float64(1) || field(t, line, "result.isError") == true {
		t.Errorf("run on the desktop: want the call's answer first, got %s", line)
	}
	if line := h.recv(); field(t, line, "id") != float64(2) {
		t.Errorf("want the second call's answer after the first, got %s", line)
	}
	// Don't run, and the timeout: nothing sent.
	for i, c := range []struct {
		answer desktop.Answer
		says   string
	}{{desktop.DontRun, "you declined it on the desktop"}, {desktop.TimedOut, "nobody answered the question on the desktop"}} {
		id := fmt.Sprint(3 + i)
		h.send(call(id, "delete_entities", args))
		h.skipCount(id)
		d.Question(t)
		d.Answers <- c.answer
		if line := h.recv(); field(t, line, "result.isError") != true || !strings.Contains(line, c.says) || !strings.Contains(line, "Nothing was sent to CAD") {
			t.Errorf("%v: %s", c.answer, line)
		}
	}
	// The client cancels: the question is withdrawn, nothing sent, no answer.
	h.send(call("5", "delete_entities", args))
	h.skipCount("5")
	d.Question(t)
	h.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":5}}`)
	select {
	case <-d.Withdrawn:
	case <-time.After(waitLimit):
		t.Fatal("the desktop question stayed open after the client cancelled the call")
	}
	h.send(`{"jsonrpc":"2.0","id":"p2","method":"ping"}`)
	h.expect(`{"jsonrpc":"2.0","id":"p2","result":{}}`)
	h.closeAndWait()
	h.checkExactlyOnce()

	var got []string
	_ = journal.Each(jpath, func(l journal.Line) bool {
		e := l.Entry
		got = append(got, fmt.Sprintf("%s %s %s confirm=%s by=%s", e.ID, e.Tool, e.Outcome, e.Confirm, e.AskedBy))
		return true
	})
	want := []string{
		"0 draw_line ok confirm= by=",
		"1 delete_entities ok confirm=accepted by=desktop",
		"2 get_drawing_info ok confirm= by=",
		"3 delete_entities declined confirm=declined by=desktop",
		"4 delete_entities declined confirm=timed out by=desktop",
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("journal (-want +got):\n%s", d)
	}
}

func TestDesktopBridgeStopClosesTheQuestion(t *testing.T) {
	d := bridgetest.NewDesktop()
	h := newHarness(t, nil, both(withPolicy(t, testPolicy, policy.Options{}), withDesktop(d)))
	h.send(initPlain)
	h.recv()
	h.send(call("1", "delete_entities", `{"handles":["h-1"]}`))
	h.skipCount("1")
	d.Question(t)
	h.cancel() // a signal
	select {
	case <-d.Withdrawn:
	case <-time.After(waitLimit):
		t.Fatal("the desktop question stayed open after the bridge was stopped")
	}
	h.closeAndWait()
	h.checkExactlyOnce()
}

// TestDesktopClientQuitsClosesTheQuestion: a stdio client that quits by
// closing stdin cannot answer for its calls any more: the question open on
// the desktop is withdrawn at once (not after the 30 s given to the calls
// already accepted), its call is answered not run and never sent, and a
// call accepted behind it still runs. Before, the dialog stayed up to
// --shutdown-timeout, and Run sent the call for a client that was gone.
func TestDesktopClientQuitsClosesTheQuestion(t *testing.T) {
	d := bridgetest.NewDesktop()
	h := newHarness(t, nil, both(withPolicy(t, testPolicy, policy.Options{}), withDesktop(d), func(c *Config) { c.ShutdownTimeout = time.Hour }))
	h.send(initPlain)
	h.recv()
	h.send(call("1", "delete_entities", `{"handles":["h-1"]}`))
	h.skipCount("1")
	d.Question(t)
	h.send(call("2", "get_drawing_info", `{}`))
	h.stdin.Close()
	select {
	case <-d.Withdrawn:
	case <-time.After(waitLimit):
		t.Fatal("the desktop question stayed open after the client closed stdin")
	}
	rest := h.closeAndWait()
	if len(rest) != 2 || field(t, rest[0], "id") != float64(1) || field(t, rest[0], "result.isError") != true || !strings.Contains(rest[0], "Nothing was sent to CAD") ||
		field(t, rest[1], "id") != float64(2) || field(t, rest[1], "result.isError") != false {
		t.Errorf("after stdin closed: %q; want the question's call refused unsent, then the accepted call's answer", rest)
	}
	h.checkExactlyOnce()
}

// TestDesktopOneQuestionAtATime: a client's calls that need confirmation
// on the desktop are asked one after the other, in the order sent, each
// once the one before is answered: never several windows at once for one
// client. Before, five calls opened five dialogs together.
func TestDesktopOneQuestionAtATime(t *testing.T) {
	d := bridgetest.NewDesktop()
	waiting := make(chan struct{}, 10)
	h := newHarness(t, nil, both(withPolicy(t, testPolicy, policy.Options{}), withDesktop(d), func(c *Config) {
		c.Log = zerolog.New(zerolog.MultiLevelWriter(zerolog.NewTestWriter(t), logWatch("waits for the client's one before it", waiting))).Level(zerolog.DebugLevel)
	}))
	h.send(initPlain)
	h.recv()
	const n = 5
	for i := range n {
		h.send(call(fmt.Sprint(i+1), "delete_entities", fmt.Sprintf(`{"handles":["h-%d"]}`, i+1)))
		h.skipCount(fmt.Sprint(i + 1))
	}
	// Four questions wait while the first is shown; were they shown
	// instead, a second one would be on the desktop.
	var shown []desktop.Question
	for waited := 0; waited < n-1; {
		select {
		case <-waiting:
			waited++
		case q := <-d.Asked:
			if shown = append(shown, q); len(shown) > 1 {
				t.Fatalf("a second dialog opened while the first was open: %s, %s", shown[0].Args, q.Args)
			}
		case <-time.After(waitLimit):
			t.Fatal("the questions neither waited nor were shown")
		}
	}
	for i := range n {
		var q desktop.Question
		if len(shown) > 0 {
			q, shown = shown[0], nil
		} else {
			q = d.Question(t)
		}
		if want := fmt.Sprintf(`{"handles":["h-%d"]}`, i+1); string(q.Args) != want {
			t.Errorf("question %d is about %s, want %s", i+1, q.Args, want)
		}
		d.Answers <- desktop.DontRun
		if line := h.recv(); field(t, line, "id") != float64(i+1) || field(t, line, "result.isError") != true {
			t.Errorf("answer %d: %s", i+1, line)
		}
	}
	if m := d.MaxOpen(); m != 1 {
		t.Errorf("%d questions were on the desktop at once, want one at a time", m)
	}
	h.closeAndWait()
	h.checkExactlyOnce()
}

// TestDesktopOneAtATimeWhenOneInLineEnds: one dialog at a time per client
// holds when a question waiting in line ends before its turn: the client
// cancelled that call, or it was refused before anyone was asked (a
// look-alike name). The call after it still waits for the dialog on
// screen. Before, the line's next place was freed when the question
// before it ended, however it ended: the third call's dialog opened
// beside the first's, two windows of one client at once.
func TestDesktopOneAtATimeWhenOneInLineEnds(t *testing.T) {
	for _, how := range []string{"cancelled", "look-alike"} {
		t.Run(how, func(t *testing.T) {
			d := bridgetest.NewDesktop()
			waiting := make(chan struct{}, 10)
			h := newHarness(t, nil, both(withPolicy(t, testPolicy, policy.Options{}), withDesktop(d), func(c *Config) {
				c.Log = zerolog.New(zerolog.MultiLevelWriter(zerolog.NewTestWriter(t), logWatch("waits for the client's one before it", waiting))).Level(zerolog.DebugLevel)
			}))
			h.send(initPlain)
			h.recv()
			h.send(call("1", "delete_entities", `{"handles":["h-1"]}`))
			d.Question(t) // the first dialog, left open
			switch how {
			case "cancelled":
				h.send(call("2", "delete_entities", `{"handles":["h-2"]}`))
				<-waiting
				h.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":2}}`)
				h.skipCount("2")
			case "look-alike":
				h.send(call("2", "delete_entities ", `{"handles":["h-2"]}`))
				if line := h.recv(); field(t, line, "id") != float64(2) || field(t, line, "error.data.kind") != "unlisted" {
					t.Fatalf("the look-alike: %s", line)
				}
			}
			h.send(call("3", "delete_entities", `{"handles":["h-3"]}`))
			select {
			case <-waiting:
			case q := <-d.Asked:
				t.Errorf("%s: call 3's dialog (%s) opened while call 1's is open", how, q.Args)
				d.Answers <- desktop.DontRun
			case <-time.After(waitLimit):
				t.Fatal("call 3 neither waited nor was shown")
			}
			d.Answers <- desktop.DontRun // call 1
			h.closeAndWait()
		})
	}
}

// logWatch is a log writer that signals on ch each line holding msg.
func logWatch(msg string, ch chan<- struct{}) io.Writer {
	return writerFunc(func(p []byte) {
		if strings.Contains(string(p), msg) {
			ch <- struct{}{}
		}
	})
}

type writerFunc func([]byte)

func (f writerFunc) Write(p []byte) (int, error) { f(p); return len(p), nil }

func TestConfirmWho(t *testing.T) {
	const modernNoAsk = `{}`
	const modernAsk = `{"elicitation":{}}`
	for _, c := range []struct {
		name    string
		with    []string
		desktop bool
		init    string // "" for a 2026-07-28 client
		caps    string
		want    string // "desktop", "client", or the refusal's words
	}{
		{"default, client can ask", nil, true, initElicit, "", "client"},
		{"default, client cannot", nil, true, initPlain, "", "desktop"},
		{"default, neither", nil, false, initPlain, "", "cannot ask (it did not declare the elicitation capability), and no dialog can be shown on this machine's desktop: neither DISPLAY nor WAYLAND_DISPLAY is set"},
		{"client only", []string{AskClient}, true, initPlain, "", "it needs your confirmation, and this client cannot ask (it did not declare the elicitation capability). Nothing"},
		{"desktop only, client can ask", []string{AskDesktop}, true, initElicit, "", "desktop"},
		{"desktop only, no desktop", []string{AskDesktop}, false, initElicit, "", "the client is not asked (--confirm-with desktop), and no dialog can be shown"},
		{"desktop first", []string{AskDesktop, AskClient}, true, initElicit, "", "desktop"},
		{"desktop first, none there", []string{AskDesktop, AskClient}, false, initElicit, "", "client"},
		{"modern, client cannot", nil, true, "", modernNoAsk, "desktop"},
		{"modern, client can", nil, true, "", modernAsk, "client"},
		{"modern, client only", []string{AskClient}, true, "", modernNoAsk, "this client cannot ask"},
		// The capability's modes (2025-11-25): a form needs {} or "form".
		{"url mode only", nil, true, initWith(`{"url":{}}`), "", "desktop"},
		{"form mode", nil, true, initWith(`{"form":{}}`), "", "client"},
		{"form and url", nil, true, initWith(`{"form":{},"url":{}}`), "", "client"},
		{"form not an object", nil, true, initWith(`{"form":true}`), "", "desktop"},
		{"modern url mode only", nil, true, "", `{"elicitation":{"url":{}}}`, "desktop"},
		{"modern form mode", nil, true, "", `{"elicitation":{"form":{}}}`, "client"},
	} {
		t.Run(c.name, func(t *testing.T) {
			d := bridgetest.NewDesktop()
			dd := d
			if !c.desktop {
				dd = nil
			}
			h := newHarness(t, nil, both(withPolicy(t, testPolicy, policy.Options{}), withDesktop(dd, c.with...)))
			req := modernCall("1", "delete_entities", `{"handles":["h-1"]}`, c.caps, "")
			if c.init != "" {
				h.send(c.init)
				h.recv()
				req = call("1", "delete_entities", `{"handles":["h-1"]}`)
			}
			h.send(req)
			if c.want == "desktop" {
				d.Question(t)
				d.Answers <- desktop.Run
				// The base's own answer (it has no such entity), not a refusal.
				if line := h.recv(); field(t, line, "id") != float64(1) || !strings.Contains(line, `no entity with handle`) {
					t.Errorf("want the base's answer after Run on the desktop, got %s", line)
				}
				return
			}
			h.skipCount("1")
			line := h.recv()
			if c.want == "client" {
				if field(t, line, "method") != "elicitation/create" && field(t, line, "result.resultType") != "input_required" {
					t.Errorf("want the client asked, got %s", line)
				}
			} else if field(t, line, "result.isError") != true || !strings.Contains(line, c.want) {
				t.Errorf("want a refusal saying %q, got %s", c.want, line)
			}
			select {
			case q := <-d.Asked:
				if c.want != "desktop" {
					t.Errorf("the desktop was asked: %+v", q)
				}
			default:
			}
		})
	}
}
