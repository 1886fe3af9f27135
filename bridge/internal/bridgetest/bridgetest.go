// Package bridgetest is what the tests of the core (package bridge) and of
// its front ends (bridge/streamable) share: the simulated base they run
// against, the requests they send, readers of the answers and the journal,
// the test policy, and fakes of the other parties (a recording base, a
// desktop whose user is the test). It imports no front end and not the
// core, so that the core's own tests can use it, and nothing of verify,
// which sits above the core.
package bridgetest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcp-bridge/mcp-bridge/bridge/guard/confirm/desktop"
	"github.com/mcp-bridge/mcp-bridge/bridge/guard/journal"
	"github.com/mcp-bridge/mcp-bridge/bridge/guard/policy"
	"github.com/mcp-bridge/mcp-bridge/rpc"
	"github.com/mcp-bridge/mcp-bridge/tcpbase/simbase"
)

// WaitLimit bounds every wait for something the bridge must do: past it,
// the test fails.
const WaitLimit = 15 * time.Second

// StartSim starts a simulated base with its fault tools on a loopback
// port; it is closed when the test ends.
func StartSim(t testing.TB) *simbase.Server {
	t.Helper()
	sim, err := simbase.Start("127.0.0.1:0", simbase.Options{Faults: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sim.Close() })
	return sim
}

// Call is a tools/call request line.
func Call(id, tool, args string) string {
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"method":"tools/call","params":{"name":%q,"arguments":%s}}`, id, tool, args)
}

// ModernMeta is the _meta a 2026-07-28 client puts on every request.
const ModernMeta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`

// WireMeta is a 2026-07-28 request's _meta with clientInfo, its
// capabilities left as a %s.
const WireMeta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":%s,"io.modelcontextprotocol/clientInfo":{"name":"wire-test","version":"9"}}`

// ModernCall is a 2026-07-28 tools/call with WireMeta declaring caps, and
// extra params after it.
func ModernCall(id, tool, args, caps, extra string) string {
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"method":"tools/call","params":{"name":%q,"arguments":%s,`+WireMeta+`%s}}`, id, tool, args, caps, extra)
}

// Field extracts a value from a JSON line by a dotted path of member
// names (exact, as the bridge reads them), for checks on answers whose
// text carries variable parts: nil when a member on the way is missing or
// not an object; else the value as encoding/json decodes it into an any
// (a number is a float64).
func Field(t *testing.T, line, path string) any {
	t.Helper()
	if !json.Valid([]byte(line)) {
		t.Fatalf("not JSON: %s", line)
	}
	v := []byte(line)
	for _, name := range strings.Split(path, ".") {
		if rpc.Kind(v) != rpc.KindObject {
			return nil
		}
		v = rpc.Field(v, name)
	}
	var out any
	if json.Unmarshal(v, &out) != nil {
		return nil
	}
	return out
}

// WaitFor polls cond until it holds, failing the test past WaitLimit.
func WaitFor(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(WaitLimit)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("condition not met in time")
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// Listed returns name → annotations of a tools/list answer line.
func Listed(t *testing.T, line string) map[string]any {
	t.Helper()
	var r struct {
		Result struct {
			Tools []map[string]any `json:"tools"`
		} `json:"result"`
	}
	if err := json.Unmarshal([]byte(line), &r); err != nil || r.Result.Tools == nil {
		t.Fatalf("not a tools/list answer: %.300s", line)
	}
	out := map[string]any{}
	for _, tl := range r.Result.Tools {
		out[tl["name"].(string)] = tl["annotations"]
	}
	return out
}

// InputRequired checks an input_required answer to a call of
// delete_entities and returns its requestState.
func InputRequired(t *testing.T, line string) string {
	t.Helper()
	if Field(t, line, "result.resultType") != "input_required" ||
		Field(t, line, "result.inputRequests.confirm.method") != "elicitation/create" ||
		Field(t, line, "result._meta") == nil {
		t.Fatalf("want an input_required result, got %s", line)
	}
	if msg, _ := Field(t, line, "result.inputRequests.confirm.params.message").(string); !strings.Contains(msg, "delete_entities") {
		t.Errorf("the question does not name the tool: %q", msg)
	}
	return Field(t, line, "result.requestState").(string)
}

// TestPolicy is the policy file the tests' user wrote.
const TestPolicy = `{
  // what the user allows the assistant to do
  "deny": ["save_*", "new_drawing"],
  "confirm": ["delete_*"],
  "annotations": {
    "get_*": {"readOnlyHint": true},
    "list_*": {"readOnlyHint": true},
    "delete_entities": {"destructiveHint": true, "title": "Delete entities"}
  }
}`

// Policy builds a policy from a file's text ("" for none) and options.
func Policy(t *testing.T, file string, opt policy.Options) *policy.Policy {
	t.Helper()
	var data []byte
	if file != "" {
		data = []byte(file)
	}
	p, err := policy.Build("test-policy.json", data, opt)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// NewJournal opens a journal in dir, a fresh folder of the test's
// (testdir.New, which Wine can remove); it is closed when the test ends.
func NewJournal(t *testing.T, dir string) (string, *journal.Writer) {
	t.Helper()
	jpath := filepath.Join(dir, "journal.jsonl")
	jw, err := journal.Open(jpath, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { jw.Close() })
	return jpath, jw
}

// JournalLines reads a journal as "id tool outcome confirm" lines.
func JournalLines(path string) []string {
	var got []string
	_ = journal.Each(path, func(l journal.Line) bool {
		e := l.Entry
		got = append(got, fmt.Sprintf("%s %s %s %s", e.ID, e.Tool, e.Outcome, e.Confirm))
		return true
	})
	return got
}

// SmuggledArgs is tool arguments that hold, between two line breaks brk
// (whitespace to JSON), a whole request of their own: a call of
// new_drawing. A base that reads a request as a line would take it for
// one, unchecked.
func SmuggledArgs(brk string) string {
	const smuggled = `{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"new_drawing","arguments":{"name":"pwned"}}}`
	return `{"a":[` + brk + smuggled + brk + `]}`
}

// OneLine fails the test for each frame that a base reading lines (ending
// one at "\r" as at "\n", as .NET's ReadLine does) takes for more than one
// request.
func OneLine(t *testing.T, frames []string) {
	t.Helper()
	for _, f := range frames {
		if lines := strings.FieldsFunc(f, func(r rune) bool { return r == '\r' || r == '\n' }); len(lines) != 1 {
			t.Errorf("a base reading lines gets %d requests from one frame:\n%q", len(lines), lines)
		}
	}
}

// Base is the CAD base as the bridge calls it (bridge.Base).
type Base interface {
	Call(ctx context.Context, frame []byte) ([]byte, error)
}

// Recorder is a base in front of Next that keeps every frame the base
// received.
type Recorder struct {
	Next   Base
	mu     sync.Mutex
	frames []string
}

// Call records the frame and passes it on.
func (r *Recorder) Call(ctx context.Context, frame []byte) ([]byte, error) {
	r.mu.Lock()
	r.frames = append(r.frames, string(frame))
	r.mu.Unlock()
	return r.Next.Call(ctx, frame)
}

// All is every frame received so far.
func (r *Recorder) All() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.frames...)
}

// Paged is a base in front of Next that answers tools/list in pages
// (nextCursor "p1", "p2", …): the tools whose JSON holds Later on the
// last page, each other tool on a page of its own before them. With Loop,
// the last page's nextCursor is "p1" again.
type Paged struct {
	Next  Base
	Later string
	Loop  bool
}

// Call answers tools/list with the page its cursor asks for; any other
// frame goes to Next.
func (p *Paged) Call(ctx context.Context, frame []byte) ([]byte, error) {
	req, ok := rpc.DecodeMessage(bytes.TrimSpace(frame)).Msg.(*rpc.Request)
	if !ok || req.Method != "tools/list" {
		return p.Next.Call(ctx, frame)
	}
	full, err := p.Next.Call(ctx, []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`+"\n"))
	if err != nil {
		return nil, err
	}
	var all struct {
		Result struct {
			Tools []json.RawMessage `json:"tools"`
		} `json:"result"`
	}
	if err := json.Unmarshal(full, &all); err != nil {
		return nil, err
	}
	var pages [][]json.RawMessage
	var later []json.RawMessage
	for _, tool := range all.Result.Tools {
		if strings.Contains(string(tool), p.Later) {
			later = append(later, tool)
		} else {
			pages = append(pages, []json.RawMessage{tool})
		}
	}
	pages = append(pages, later)
	n := 0
	if c, ok := rpc.String(rpc.Field(req.Params, "cursor")); ok {
		fmt.Sscanf(c, "p%d", &n)
	}
	page := map[string]any{"tools": pages[min(n, len(pages)-1)]}
	switch {
	case n+1 < len(pages):
		page["nextCursor"] = fmt.Sprintf("p%d", n+1)
	case p.Loop:
		page["nextCursor"] = "p1"
	}
	res, _ := json.Marshal(page)
	return rpc.AppendResult(nil, req.ID, res), nil
}

// Desktop is a desktop whose user is the test: each question is handed to
// the test on Asked, and Ask returns what the test sends on Answers, or
// Cancelled once the question is withdrawn (ctx done), telling the test so
// on Withdrawn.
type Desktop struct {
	Asked     chan desktop.Question
	Answers   chan desktop.Answer
	Withdrawn chan desktop.Question

	mu            sync.Mutex
	open, maxOpen int // questions shown at once, now and at most
}

// MaxOpen is the most questions that were on the desktop at once.
func (d *Desktop) MaxOpen() int {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.maxOpen
}

func NewDesktop() *Desktop {
	return &Desktop{Asked: make(chan desktop.Question, 16), Answers: make(chan desktop.Answer, 16), Withdrawn: make(chan desktop.Question, 16)}
}

func (d *Desktop) Name() string { return "scripted" }

func (d *Desktop) Ask(ctx context.Context, q desktop.Question) (desktop.Answer, error) {
	d.mu.Lock()
	d.open++
	d.maxOpen = max(d.maxOpen, d.open)
	d.mu.Unlock()
	defer func() { d.mu.Lock(); d.open--; d.mu.Unlock() }()
	d.Asked <- q
	select {
	case a := <-d.Answers:
		return a, nil
	case <-ctx.Done():
		d.Withdrawn <- q
		return desktop.Cancelled, nil
	}
}

// Question is the next question shown.
func (d *Desktop) Question(t *testing.T) desktop.Question {
	t.Helper()
	select {
	case q := <-d.Asked:
		return q
	case <-time.After(WaitLimit):
		t.Fatal("no question was shown on the desktop")
		return desktop.Question{}
	}
}
