package connect

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/mcp-bridge/mcp-bridge/bridge"
	"github.com/mcp-bridge/mcp-bridge/bridge/guard/confirm/desktop"
	"github.com/mcp-bridge/mcp-bridge/bridge/guard/policy"
)

// scriptedAsker is a desktop whose user the test plays: each question
// shown arrives on shown, the test answers on answers, and a dialog
// closed by its ctx reports the cause on closed.
type scriptedAsker struct {
	shown   chan desktop.Question
	answers chan desktop.Answer
	closed  chan error

	mu            sync.Mutex
	open, maxOpen int // dialogs on the desktop at once, now and at most
}

func newScriptedAsker() *scriptedAsker {
	return &scriptedAsker{shown: make(chan desktop.Question, 10), answers: make(chan desktop.Answer, 10), closed: make(chan error, 10)}
}

func (a *scriptedAsker) Name() string { return "scripted" }

func (a *scriptedAsker) Ask(ctx context.Context, q desktop.Question) (desktop.Answer, error) {
	a.mu.Lock()
	a.open++
	a.maxOpen = max(a.maxOpen, a.open)
	a.mu.Unlock()
	defer func() { a.mu.Lock(); a.open--; a.mu.Unlock() }()
	a.shown <- q
	select {
	case ans := <-a.answers:
		return ans, nil
	case <-ctx.Done():
		a.closed <- ctx.Err()
		return desktop.Cancelled, nil
	}
}

// question waits for the next question shown.
func (a *scriptedAsker) question(t *testing.T) desktop.Question {
	t.Helper()
	select {
	case q := <-a.shown:
		return q
	case <-time.After(waitLimit):
		t.Fatalf("no question was shown on the desktop")
	}
	return desktop.Question{}
}

// neverAsked fails when a question was shown.
func (a *scriptedAsker) neverAsked(t *testing.T) {
	t.Helper()
	select {
	case q := <-a.shown:
		t.Errorf("the desktop was asked %+v", q)
	default:
	}
}

// confirmRemote is a remote whose policy wants delete_entities confirmed,
// with no desktop of its own: a client that cannot ask is refused there.
func confirmRemote(t *testing.T) *remote {
	t.Helper()
	p, err := policy.Build("p.json", []byte(`{"confirm":["delete_entities"]}`), policy.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return newRemoteWith(t, func(c *bridge.Config) { c.Policy = p })
}

const deleteArgs = `{"handles":["<b>9</b> $(rm) \"q\""]}`

// untilAnswer reads connect's lines up to the answer to id, failing on a
// question or an input_required the client should never see.
func untilAnswer(t *testing.T, c *client, id string) map[string]any {
	t.Helper()
	for {
		l := c.recv()
		if strings.Contains(l, "elicitation/create") || strings.Contains(l, "input_required") {
			t.Fatalf("the client saw the remote's question: %s", l)
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("not JSON: %q", l)
		}
		if b, _ := json.Marshal(m["id"]); string(b) == id {
			return m
		}
	}
}

// checkQuestion: the desktop shows the call the client sent.
func checkQuestion(t *testing.T, q desktop.Question, client string) {
	t.Helper()
	if q.Tool != "delete_entities" || string(q.Args) != deleteArgs || q.Client != client || q.Bridge != "mcp-bridge" || q.Timeout != 2*time.Minute {
		t.Errorf("question %+v (args %s): want delete_entities, %s, client %q, bridge mcp-bridge, 2m", q, q.Args, deleteArgs, client)
	}
}

func resultText(m map[string]any) (string, bool) {
	res, _ := m["result"].(map[string]any)
	isErr, _ := res["isError"].(bool)
	return toJSON(res["content"]), isErr
}

// legacyEra starts connect with the asker and a client of version with
// capabilities caps.
func legacyEra(t *testing.T, r *remote, a *scriptedAsker, confirmWith []string, caps string) *client {
	t.Helper()
	cfg := r.config(t)
	cfg.Desktop, cfg.ConfirmWith = a, confirmWith
	c := startConnect(t, cfg)
	c.send(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":` + caps + `,"clientInfo":{"name":"cli <i>","version":"1"}}}`)
	if res := c.answer("0"); res["result"] == nil {
		t.Fatalf("initialize: %v", res)
	}
	c.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	return c
}

// TestDesktopLegacy: a handshake-era client without elicitation behind
// connect: the remote's question is shown on connect's desktop, with the
// call the client sent; the client sees only the outcome.
func TestDesktopLegacy(t *testing.T) {
	for _, caps := range []string{`{}`, `{"elicitation":{"url":{}}}`} {
		t.Run("run "+caps, func(t *testing.T) {
			r, a := confirmRemote(t), newScriptedAsker()
			c := legacyEra(t, r, a, nil, caps)
			before := r.sim.Calls()
			c.send(call("1", "delete_entities", deleteArgs))
			checkQuestion(t, a.question(t), "cli <i>")
			a.answers <- desktop.Run
			if text, _ := resultText(untilAnswer(t, c, "1")); !strings.Contains(text, "no entity with handle") {
				t.Errorf("after Run, want CAD's answer, got %s", text)
			}
			if n := r.sim.Calls() - before; n != 1 {
				t.Errorf("the call ran %d times", n)
			}
		})
	}
	t.Run("don't run", func(t *testing.T) {
		r, a := confirmRemote(t), newScriptedAsker()
		c := legacyEra(t, r, a, nil, `{}`)
		before := r.sim.Calls()
		c.send(call("1", "delete_entities", deleteArgs))
		a.question(t)
		a.answers <- desktop.DontRun
		if text, isErr := resultText(untilAnswer(t, c, "1")); !isErr || !strings.Contains(text, "you declined it") {
			t.Errorf("after Don't run, want the remote's refusal, got %s (isError %v)", text, isErr)
		}
		if n := r.sim.Calls() - before; n != 0 {
			t.Errorf("the declined call ran %d times", n)
		}
	})
	t.Run("client cancels", func(t *testing.T) {
		r, a := confirmRemote(t), newScriptedAsker()
		c := legacyEra(t, r, a, nil, `{}`)
		before := r.sim.Calls()
		c.send(call("1", "delete_entities", deleteArgs))
		a.question(t)
		c.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}`)
		select {
		case <-a.closed:
		case <-time.After(waitLimit):
			t.Fatal("the dialog stayed open after the client cancelled the call")
		}
		// The client's next call waits behind the question on the remote:
		// its answer means the cancelled one was settled.
		c.send(call("2", "measure_distance", measure))
		for {
			l := c.recv()
			if strings.Contains(l, `"id":1,`) {
				t.Fatalf("an answer for the cancelled call: %s", l)
			}
			if strings.Contains(l, `"id":2,`) {
				break
			}
		}
		if n := r.sim.Calls() - before; n != 1 {
			t.Errorf("%d calls ran, want only measure_distance", n)
		}
	})
	t.Run("stdin ends", func(t *testing.T) {
		r, a := confirmRemote(t), newScriptedAsker()
		c := legacyEra(t, r, a, nil, `{}`)
		before := r.sim.Calls()
		c.send(call("1", "delete_entities", deleteArgs))
		a.question(t)
		c.in.Close()
		select {
		case <-a.closed:
		case <-time.After(waitLimit):
			t.Fatal("the dialog stayed open after stdin ended")
		}
		if text, isErr := resultText(untilAnswer(t, c, "1")); !isErr || !strings.Contains(text, "you cancelled it") {
			t.Errorf("want the remote's refusal, got %s (isError %v)", text, isErr)
		}
		if n := r.sim.Calls() - before; n != 0 {
			t.Errorf("the call ran %d times", n)
		}
	})
	t.Run("client asks", func(t *testing.T) {
		r, a := confirmRemote(t), newScriptedAsker()
		c := legacyEra(t, r, a, nil, `{"elicitation":{}}`)
		c.send(call("1", "delete_entities", deleteArgs))
		var q map[string]any
		if err := json.Unmarshal([]byte(c.recv()), &q); err != nil || q["method"] != "elicitation/create" {
			t.Fatalf("want the question passed to the client, got %v", q)
		}
		qid, _ := json.Marshal(q["id"])
		c.send(`{"jsonrpc":"2.0","id":` + string(qid) + `,"result":{"action":"decline"}}`)
		if text, _ := resultText(c.answer("1")); !strings.Contains(text, "you declined it") {
			t.Errorf("want the refusal, got %s", text)
		}
		a.neverAsked(t)
	})
	t.Run("confirm-with client", func(t *testing.T) {
		r, a := confirmRemote(t), newScriptedAsker()
		c := legacyEra(t, r, a, []string{policy.AskClient}, `{}`)
		before := r.sim.Calls()
		c.send(call("1", "delete_entities", deleteArgs))
		if text, isErr := resultText(c.answer("1")); !isErr || !strings.Contains(text, "this client cannot ask") {
			t.Errorf("want the remote's refusal, got %s", text)
		}
		if n := r.sim.Calls() - before; n != 0 {
			t.Errorf("the call ran %d times", n)
		}
		a.neverAsked(t)
	})
}

// modernCallLine is a 2026-07-28 delete_entities call with these client
// capabilities.
// TestDesktopOneAtATime: the remote asks about three calls of one client
// at once (each on its call's stream); connect shows one dialog at a
// time, in the order asked, the next once the one before is answered.
// Before, three windows opened together.
func TestDesktopOneAtATime(t *testing.T) {
	r, a := confirmRemote(t), newScriptedAsker()
	waiting := make(chan struct{}, 10)
	cfg := r.config(t)
	cfg.Desktop = a
	cfg.Log = zerolog.New(zerolog.MultiLevelWriter(zerolog.NewTestWriter(t), writerFunc(func(p []byte) {
		if strings.Contains(string(p), "waits for the dialog before it") {
			waiting <- struct{}{}
		}
	}))).Level(zerolog.DebugLevel)
	c := startConnect(t, cfg)
	c.send(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"cli","version":"1"}}}`)
	c.answer("0")
	c.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	for i := range 3 {
		c.send(call(fmt.Sprint(i+1), "delete_entities", deleteArgs))
	}
	// Two questions wait while the first is shown; were they shown
	// instead, a second one would be on the desktop.
	var shown []desktop.Question
	for waited := 0; waited < 2; {
		select {
		case <-waiting:
			waited++
		case q := <-a.shown:
			if shown = append(shown, q); len(shown) > 1 {
				t.Fatal("a second dialog opened while the first was open")
			}
		case <-time.After(waitLimit):
			t.Fatal("the questions neither waited nor were shown")
		}
	}
	for i := range 3 {
		if len(shown) == 0 {
			a.question(t)
		}
		shown = nil
		a.answers <- desktop.DontRun
		if m := untilAnswerOf(t, c, "1", "2", "3"); m["result"] == nil {
			t.Fatalf("after question %d: %v", i+1, m)
		}
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.maxOpen != 1 {
		t.Errorf("%d dialogs were open at once, want one at a time", a.maxOpen)
	}
}

type writerFunc func([]byte)

func (f writerFunc) Write(p []byte) (int, error) { f(p); return len(p), nil }

// untilAnswerOf reads connect's lines up to an answer to one of ids.
func untilAnswerOf(t *testing.T, c *client, ids ...string) map[string]any {
	t.Helper()
	for {
		var m map[string]any
		if err := json.Unmarshal([]byte(c.recv()), &m); err != nil {
			t.Fatal(err)
		}
		b, _ := json.Marshal(m["id"])
		if slices.Contains(ids, string(b)) {
			return m
		}
	}
}

func modernCallLine(id, caps string) string {
	return `{"jsonrpc":"2.0","id":` + id + `,"method":"tools/call","params":{"name":"delete_entities","arguments":` + deleteArgs +
		`,"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":` + caps +
		`,"io.modelcontextprotocol/clientInfo":{"name":"modern-cli","version":"2"}}}}`
}

func modernEra(t *testing.T, r *remote, a *scriptedAsker, confirmWith []string) *client {
	t.Helper()
	cfg := r.config(t)
	cfg.Desktop, cfg.ConfirmWith = a, confirmWith
	return startConnect(t, cfg)
}

// TestDesktopModern: a 2026-07-28 client without elicitation behind
// connect: connect answers the remote's input_required itself, after the
// desktop question, and the client gets only the final answer.
func TestDesktopModern(t *testing.T) {
	t.Run("run", func(t *testing.T) {
		r, a := confirmRemote(t), newScriptedAsker()
		c := modernEra(t, r, a, nil)
		before := r.sim.Calls()
		c.send(modernCallLine("1", `{}`))
		checkQuestion(t, a.question(t), "modern-cli")
		a.answers <- desktop.Run
		if text, _ := resultText(untilAnswer(t, c, "1")); !strings.Contains(text, "no entity with handle") {
			t.Errorf("after Run, want CAD's answer, got %s", text)
		}
		if n := r.sim.Calls() - before; n != 1 {
			t.Errorf("the call ran %d times", n)
		}
	})
	t.Run("don't run", func(t *testing.T) {
		r, a := confirmRemote(t), newScriptedAsker()
		c := modernEra(t, r, a, nil)
		before := r.sim.Calls()
		c.send(modernCallLine("1", `{"elicitation":{"url":{}}}`))
		a.question(t)
		a.answers <- desktop.DontRun
		if text, isErr := resultText(untilAnswer(t, c, "1")); !isErr || !strings.Contains(text, "you declined it") {
			t.Errorf("after Don't run, want the remote's refusal, got %s (isError %v)", text, isErr)
		}
		if n := r.sim.Calls() - before; n != 0 {
			t.Errorf("the declined call ran %d times", n)
		}
	})
	t.Run("client cancels", func(t *testing.T) {
		r, a := confirmRemote(t), newScriptedAsker()
		c := modernEra(t, r, a, nil)
		before := r.sim.Calls()
		c.send(modernCallLine("1", `{}`))
		a.question(t)
		c.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1,"_meta":{` + modernMeta + `}}}`)
		select {
		case <-a.closed:
		case <-time.After(waitLimit):
			t.Fatal("the dialog stayed open after the client cancelled the call")
		}
		if err := c.wait(); err != nil {
			t.Fatal(err)
		}
		for l := range c.lines {
			if strings.Contains(l, `"id":1,`) {
				t.Errorf("an answer for the cancelled call: %s", l)
			}
		}
		calls := 0
		for _, q := range r.requests() {
			if q.RPCMethod == "tools/call" {
				calls++
			}
		}
		if n := r.sim.Calls() - before; n != 0 || calls != 1 {
			t.Errorf("ran %d times; the remote got %d tools/call, want only the first", n, calls)
		}
	})
	t.Run("client asks", func(t *testing.T) {
		r, a := confirmRemote(t), newScriptedAsker()
		c := modernEra(t, r, a, nil)
		c.send(modernCallLine("1", `{"elicitation":{}}`))
		res, _ := c.answer("1")["result"].(map[string]any)
		if res["resultType"] != "input_required" {
			t.Errorf("want the input_required passed to the client, got %v", res)
		}
		a.neverAsked(t)
	})
	t.Run("confirm-with client", func(t *testing.T) {
		r, a := confirmRemote(t), newScriptedAsker()
		c := modernEra(t, r, a, []string{policy.AskClient})
		before := r.sim.Calls()
		c.send(modernCallLine("1", `{}`))
		if text, isErr := resultText(c.answer("1")); !isErr || !strings.Contains(text, "this client cannot ask") {
			t.Errorf("want the remote's refusal, got %s", text)
		}
		if n := r.sim.Calls() - before; n != 0 {
			t.Errorf("the call ran %d times", n)
		}
		a.neverAsked(t)
	})
}

// TestDesktopUntiedQuestion: connect asks on its desktop only about a call
// it relayed, and only the one question it can show. A remote's question
// on the session's GET stream, or a form asking anything but to confirm,
// is declined: never shown, never passed to a client that cannot ask.
func TestDesktopUntiedQuestion(t *testing.T) {
	answers, q1done := make(chan string, 10), make(chan struct{})
	var initBody atomic.Value
	confirmSchema := `"requestedSchema":{"type":"object","properties":{"confirm":{"type":"boolean"}}}`
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		if req.Method == http.MethodGet {
			w.Header().Set("Content-Type", "text/event-stream")
			fmt.Fprint(w, `data: {"jsonrpc":"2.0","id":"g1","method":"elicitation/create","params":{"message":"run delete_entities?",`+confirmSchema+`}}`+"\n\n")
			w.(http.Flusher).Flush()
			<-req.Context().Done()
			return
		}
		if req.Method != http.MethodPost {
			w.WriteHeader(http.StatusNoContent)
			return
		}
		body, _ := io.ReadAll(req.Body)
		var m struct {
			ID     json.RawMessage
			Method string
		}
		_ = json.Unmarshal(body, &m)
		switch m.Method {
		case "initialize":
			initBody.Store(string(body))
			w.Header().Set("Mcp-Session-Id", "s1")
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"fake","version":"1"}}}`, m.ID)
		case "tools/call":
			w.Header().Set("Content-Type", "text/event-stream")
			fmt.Fprint(w, `data: {"jsonrpc":"2.0","id":"q1","method":"elicitation/create","params":{"message":"confirm?","requestedSchema":{"type":"object","properties":{"password":{"type":"string"}}}}}`+"\n\n")
			w.(http.Flusher).Flush()
			select {
			case <-q1done:
			case <-req.Context().Done():
				return
			}
			fmt.Fprintf(w, `data: {"jsonrpc":"2.0","id":%s,"result":{"content":[{"type":"text","text":"done"}]}}`+"\n\n", m.ID)
		case "":
			answers <- string(body)
			if strings.Contains(string(body), `"q1"`) {
				close(q1done)
			}
			w.WriteHeader(http.StatusAccepted)
		default:
			w.WriteHeader(http.StatusAccepted)
		}
	}))
	t.Cleanup(srv.Close)
	a := newScriptedAsker()
	c := startConnect(t, Config{URL: srv.URL + "/mcp", Desktop: a, Log: zerolog.New(zerolog.NewTestWriter(t)).Level(zerolog.ErrorLevel)})
	c.handshake("2025-11-25")
	if b, _ := initBody.Load().(string); !strings.Contains(b, `"elicitation":{}`) {
		t.Errorf("the remote's initialize does not declare elicitation for the client: %s", b)
	}
	decline := func(id string) {
		t.Helper()
		select {
		case got := <-answers:
			if !strings.Contains(got, `"id":"`+id+`"`) || !strings.Contains(got, `"action":"decline"`) {
				t.Errorf("want %s declined, the remote got %s", id, got)
			}
		case <-time.After(waitLimit):
			t.Fatalf("no answer to the remote's question %s", id)
		}
	}
	decline("g1")
	c.send(call("1", "delete_entities", deleteArgs))
	decline("q1")
	if text, _ := resultText(untilAnswer(t, c, "1")); !strings.Contains(text, "done") {
		t.Errorf("the call's answer: %s", text)
	}
	a.neverAsked(t)
}

// TestDesktopReplay: the handshake connect replays when the remote forgot
// the session declares elicitation for the client too.
func TestDesktopReplay(t *testing.T) {
	r, a := confirmRemote(t), newScriptedAsker()
	c := legacyEra(t, r, a, nil, `{}`)
	c.send(`{"jsonrpc":"2.0","id":"p","method":"ping"}`)
	c.answer(`"p"`)
	r.deleteSession(t, r.lastSession())
	before := r.sim.Calls()
	c.send(call("1", "delete_entities", deleteArgs))
	checkQuestion(t, a.question(t), "cli <i>")
	a.answers <- desktop.Run
	if text, _ := resultText(untilAnswer(t, c, "1")); !strings.Contains(text, "no entity with handle") {
		t.Errorf("after Run, want CAD's answer, got %s", text)
	}
	if n := r.sim.Calls() - before; n != 1 {
		t.Errorf("the call ran %d times", n)
	}
}

// TestConfirmFormTwins: a question whose keys come in two spellings (mode
// and MODE) says two things to two readers: not the bridge's question, so
// connect shows no dialog for it and accepts nothing.
func TestConfirmFormTwins(t *testing.T) {
	const form = `"requestedSchema":{"type":"object","properties":{"confirm":{"type":"boolean"}},"required":["confirm"]}`
	if !isConfirmForm([]byte(`{"mode":"form","message":"m",` + form + `}`)) {
		t.Fatal("the bridge's own question is not taken for one")
	}
	for _, bad := range []string{
		`{"mode":"form","MODE":"url","message":"m",` + form + `}`,
		`{"mode":"form","message":"m",` + form + `,"RequestedSchema":{}}`,
	} {
		if isConfirmForm([]byte(bad)) {
			t.Errorf("taken for the bridge's question: %s", bad)
		}
	}
}
