package bridge

import (
	"encoding/json"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/mcp-bridge/mcp-bridge/bridge/guard/journal"
	"github.com/mcp-bridge/mcp-bridge/bridge/guard/policy"
	"github.com/mcp-bridge/mcp-bridge/lifecycle"
	"github.com/mcp-bridge/mcp-bridge/rpc"
	"github.com/mcp-bridge/mcp-bridge/tcpbase/simbase"
)

func both(fns ...func(*Config)) func(*Config) {
	return func(c *Config) {
		for _, f := range fns {
			f(c)
		}
	}
}

func modernList(id string) string {
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"method":"tools/list","params":{`+wireMeta+`}}`, id, `{}`)
}

func TestDeniedToolNeitherListedNorSent(t *testing.T) {
	h := newHarness(t, nil, withPolicy(t, testPolicy, policy.Options{}))
	for _, list := range []string{`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`, modernList("2")} {
		h.send(list)
		tools := listed(t, h.recv())
		for _, denied := range []string{"save_drawing", "new_drawing"} {
			if _, ok := tools[denied]; ok {
				t.Errorf("%s is listed", denied)
			}
		}
		if _, ok := tools["draw_line"]; !ok {
			t.Error("draw_line, which nothing denies, is not listed")
		}
	}
	before := h.sim.Calls()
	h.send(call("3", "save_drawing", `{"path":"x.dwg"}`), modernCall("4", "new_drawing", `{}`, `{}`, ""))
	h.skipCount("3")
	h.skipCount("4")
	for range 2 {
		line := h.recv()
		if field(t, line, "error.code") != float64(-32602) || !strings.Contains(field(t, line, "error.message").(string), "denied by the mcp-bridge policy") ||
			field(t, line, "error.data.kind") != "denied" {
			t.Errorf("denied call answered %s", line)
		}
	}
	if n := h.sim.Calls() - before; n != 0 {
		t.Errorf("the base ran %d calls of denied tools", n)
	}
	h.checkExactlyOnce()
}

func TestAnnotationsSameInBothErasAndFromTheCache(t *testing.T) {
	sim, err := simbase.Start("127.0.0.1:0", simbase.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer sim.Close()
	dir := tempDir(t)
	h := newHarness(t, sim, both(withPolicy(t, testPolicy, policy.Options{}), func(c *Config) { c.CacheDir = dir; c.Retries = -1 }))
	h.send(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)
	legacy := listed(t, h.recv())
	h.send(modernList("2"))
	modern := listed(t, h.recv())
	if d := cmp.Diff(legacy, modern); d != "" {
		t.Errorf("annotations differ between eras (-legacy +modern):\n%s", d)
	}
	want := map[string]any{"destructiveHint": true, "title": "Delete entities"}
	if d := cmp.Diff(want, legacy["delete_entities"]); d != "" {
		t.Errorf("delete_entities annotations (-want +got):\n%s", d)
	}
	if d := cmp.Diff(map[string]any{"readOnlyHint": true}, legacy["get_entity"]); d != "" {
		t.Errorf("get_entity annotations (-want +got):\n%s", d)
	}
	if legacy["draw_line"] != nil {
		t.Errorf("draw_line got annotations the policy does not give: %v", legacy["draw_line"])
	}
	sim.Close() // CAD goes away: the list now comes from the cache
	h.send(`{"jsonrpc":"2.0","id":3,"method":"tools/list"}`)
	cached := listed(t, h.recv())
	if d := cmp.Diff(legacy, cached); d != "" {
		t.Errorf("the cached list differs from the live one (-live +cached):\n%s", d)
	}
	// A second bridge with no policy over the same cache sees every tool:
	// the cache keeps the base's list, the policy applies on the way out.
	h2 := newHarness(t, sim, func(c *Config) { c.CacheDir = dir; c.Retries = -1 })
	h2.send(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)
	if _, ok := listed(t, h2.recv())["save_drawing"]; !ok {
		t.Error("a bridge without policy lost save_drawing from the shared cache")
	}
}

func TestReadOnlyLeavesOnlyReadOnlyTools(t *testing.T) {
	h := newHarness(t, nil, withPolicy(t, `{"annotations":{"get_*":{"readOnlyHint":true},"list_*":{"readOnlyHint":true},"measure_distance":{"readOnlyHint":true}}}`, policy.Options{ReadOnly: true}))
	h.send(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)
	var names []string
	for n := range listed(t, h.recv()) {
		names = append(names, n)
	}
	for _, n := range names {
		if !strings.HasPrefix(n, "get_") && !strings.HasPrefix(n, "list_") && n != "measure_distance" {
			t.Errorf("%s listed under --read-only", n)
		}
	}
	if len(names) != 6 {
		t.Errorf("%d tools listed; want the 6 read-only ones: %v", len(names), names)
	}
	h.send(call("2", "draw_line", `{"start":{"x":0,"y":0},"end":{"x":1,"y":1}}`))
	h.skipCount("2")
	if line := h.recv(); !strings.Contains(line, "allows only read-only tools") {
		t.Errorf("draw_line under --read-only: %s", line)
	}
	h.checkExactlyOnce()
}

const initElicit = `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"elicitation":{}},"clientInfo":{"name":"wire-client","version":"1.2"}}}`

// question reads the bridge's elicitation/create request.
func question(t *testing.T, h *harness) (id string, message string) {
	t.Helper()
	line := h.recv()
	if field(t, line, "method") != "elicitation/create" || field(t, line, "params.mode") != "form" {
		t.Fatalf("want an elicitation/create request, got %s", line)
	}
	raw, _ := json.Marshal(field(t, line, "id"))
	return string(raw), field(t, line, "params.message").(string)
}

func TestConfirmLegacy(t *testing.T) {
	jpath, jw := newJournal(t)
	h := newHarness(t, nil, both(withPolicy(t, testPolicy, policy.Options{}), func(c *Config) { c.Journal = jw }))
	h.send(initElicit)
	h.recv()
	h.send(call("1", "draw_line", `{"start":{"x":0,"y":0},"end":{"x":3,"y":4}}`))
	handle := ""
	if line := h.recv(); !strings.Contains(line, "drawn") {
		t.Fatalf("draw_line: %s", line)
	} else {
		handle = strings.Fields(field(t, line, "result.content").([]any)[0].(map[string]any)["text"].(string))[1]
	}
	args := fmt.Sprintf(`{"handles":[%q]}`, handle)

	// Declined: not sent.
	h.send(call("2", "delete_entities", args))
	qid, msg := question(t, h)
	if !strings.Contains(msg, "delete_entities") || !strings.Contains(msg, handle) {
		t.Errorf("the question does not name the tool and its arguments: %q", msg)
	}
	h.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":{"action":"decline"}}`, qid))
	h.skipCount("2")
	if line := h.recv(); field(t, line, "result.isError") != true || !strings.Contains(line, "you declined it") {
		t.Errorf("declined: %s", line)
	}
	// Cancelled (the dialog dismissed): not sent.
	h.send(call("3", "delete_entities", args))
	qid, _ = question(t, h)
	h.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":{"action":"cancel"}}`, qid))
	h.skipCount("3")
	if line := h.recv(); field(t, line, "result.isError") != true || !strings.Contains(line, "you cancelled it") {
		t.Errorf("cancelled: %s", line)
	}
	// The client's error answer: not sent.
	h.send(call("4", "delete_entities", args))
	qid, _ = question(t, h)
	h.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"error":{"code":-32601,"message":"Method not found"}}`, qid))
	h.skipCount("4")
	if line := h.recv(); field(t, line, "result.isError") != true || !strings.Contains(line, "could not ask") {
		t.Errorf("error answer: %s", line)
	}
	// Accepted: sent, once, and a ping is answered while the question waits.
	h.send(call("5", "delete_entities", args))
	qid, _ = question(t, h)
	h.send(`{"jsonrpc":"2.0","id":"p","method":"ping"}`)
	h.expect(`{"jsonrpc":"2.0","id":"p","result":{}}`)
	h.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":{"action":"accept","content":{"confirm":true}}}`, qid))
	if line := h.recv(); field(t, line, "id") != float64(5) || field(t, line, "result.isError") != false {
		t.Errorf("accepted: %s", line)
	}
	h.closeAndWait()
	h.checkExactlyOnce()

	var got []string
	_ = journal.Each(jpath, func(l journal.Line) bool {
		e := l.Entry
		got = append(got, fmt.Sprintf("%s %s %s confirm=%s declined=%v confirmed=%v by=%s client=%s/%s", e.ID, e.Tool, e.Outcome, e.Confirm, e.Declined, e.Confirmed, e.AskedBy, e.Client.Name, e.Client.Version))
		return true
	})
	want := []string{
		"1 draw_line ok confirm= declined=false confirmed=false by= client=wire-client/1.2",
		"2 delete_entities declined confirm=declined declined=true confirmed=false by=client client=wire-client/1.2",
		"3 delete_entities declined confirm=cancelled declined=true confirmed=false by=client client=wire-client/1.2",
		"4 delete_entities declined confirm=refused declined=true confirmed=false by=client client=wire-client/1.2",
		"5 delete_entities ok confirm=accepted declined=false confirmed=true by=client client=wire-client/1.2",
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("journal (-want +got):\n%s", d)
	}
}

func TestConfirmLegacyTimeoutAndUnsupportedClient(t *testing.T) {
	h := newHarness(t, nil, both(withPolicy(t, testPolicy, policy.Options{}), func(c *Config) { c.ConfirmTimeout = 50 * time.Millisecond }))
	h.send(initElicit)
	h.recv()
	h.send(call("1", "delete_entities", `{"handles":["1"]}`))
	h.skipCount("1")
	qid, _ := question(t, h)
	// Nobody answers: the bridge withdraws its question, then refuses.
	if line := h.recv(); field(t, line, "method") != "notifications/cancelled" || !strings.Contains(line, qid) {
		t.Errorf("want the question withdrawn, got %s", line)
	}
	if line := h.recv(); field(t, line, "result.isError") != true || !strings.Contains(line, "nobody answered") {
		t.Errorf("timed out: %s", line)
	}
	// A late answer is ignored.
	h.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":{"action":"accept","content":{"confirm":true}}}`, qid))
	h.closeAndWait()
	h.checkExactlyOnce()

	// A client without the elicitation capability: refused at once.
	h2 := newHarness(t, nil, withPolicy(t, testPolicy, policy.Options{}))
	h2.send(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`)
	h2.recv()
	h2.send(call("1", "delete_entities", `{"handles":["1"]}`))
	h2.skipCount("1")
	if line := h2.recv(); field(t, line, "result.isError") != true || !strings.Contains(line, "cannot ask") {
		t.Errorf("unsupported client: %s", line)
	}
	h2.checkExactlyOnce()
}

func TestConfirmModern(t *testing.T) {
	h := newHarness(t, nil, withPolicy(t, testPolicy, policy.Options{}))
	caps := `{"elicitation":{}}`
	args := `{"handles":["1"]}`
	accept := `,"inputResponses":{"confirm":{"action":"accept","content":{"confirm":true}}},"requestState":%q`

	h.send(modernCall("1", "delete_entities", args, caps, ""))
	h.skipCount("1")
	state := inputRequired(t, h.recv())

	h.send(modernCall("2", "delete_entities", args, caps, fmt.Sprintf(accept, state)))
	line := h.recv()
	if field(t, line, "result.resultType") != "complete" || field(t, line, "result.isError") != true ||
		!strings.Contains(line, `no entity with handle`) {
		t.Errorf("accepted: want the base's own answer, got %s", line)
	}
	// The same requestState again: refused, not sent.
	h.send(modernCall("3", "delete_entities", args, caps, fmt.Sprintf(accept, state)))
	h.skipCount("3")
	if line := h.recv(); field(t, line, "result.isError") != true || !strings.Contains(line, "already used") {
		t.Errorf("replayed: %s", line)
	}
	// Declined.
	h.send(modernCall("4", "delete_entities", args, caps, ""))
	h.skipCount("4")
	state = inputRequired(t, h.recv())
	h.send(modernCall("5", "delete_entities", args, caps, fmt.Sprintf(`,"inputResponses":{"confirm":{"action":"decline"}},"requestState":%q`, state)))
	h.skipCount("5")
	if line := h.recv(); field(t, line, "result.isError") != true || !strings.Contains(line, "you declined it") {
		t.Errorf("declined: %s", line)
	}
	// Forged: a made-up state, and a genuine one for other arguments.
	h.send(modernCall("6", "delete_entities", args, caps, fmt.Sprintf(accept, "eyJ2IjoxfQ.AAAA")))
	h.skipCount("6")
	if line := h.recv(); field(t, line, "result.isError") != true || !strings.Contains(line, "not issued by this mcp-bridge") {
		t.Errorf("forged: %s", line)
	}
	h.send(modernCall("7", "delete_entities", args, caps, ""))
	h.skipCount("7")
	state = inputRequired(t, h.recv())
	h.send(modernCall("8", "delete_entities", `{"handles":["2","3"]}`, caps, fmt.Sprintf(accept, state)))
	h.skipCount("8")
	if line := h.recv(); field(t, line, "result.isError") != true || !strings.Contains(line, "other arguments") {
		t.Errorf("state for other arguments: %s", line)
	}
	// A client that cannot ask.
	h.send(modernCall("9", "delete_entities", args, `{}`, ""))
	h.skipCount("9")
	if line := h.recv(); field(t, line, "result.isError") != true || !strings.Contains(line, "cannot ask") {
		t.Errorf("unsupported: %s", line)
	}
	h.closeAndWait()
	h.checkExactlyOnce()
}

func TestConfirmModernExpired(t *testing.T) {
	now := time.Now()
	var clock atomic.Int64 // minutes the test has moved the clock on
	testHookNow = func() time.Time { return now.Add(time.Duration(clock.Load()) * time.Minute) }
	defer func() { testHookNow = nil }()
	h := newHarness(t, nil, withPolicy(t, testPolicy, policy.Options{}))
	h.send(modernCall("1", "delete_entities", `{}`, `{"elicitation":{}}`, ""))
	state := inputRequired(t, h.recv())
	clock.Store(3) // past the 2-minute default
	h.send(modernCall("2", "delete_entities", `{}`, `{"elicitation":{}}`,
		fmt.Sprintf(`,"inputResponses":{"confirm":{"action":"accept","content":{"confirm":true}}},"requestState":%q`, state)))
	h.skipCount("1")
	h.skipCount("2")
	if line := h.recv(); field(t, line, "result.isError") != true || !strings.Contains(line, "expired") {
		t.Errorf("expired: %s", line)
	}
	h.closeAndWait()
	h.checkExactlyOnce()
}

// TestListChangedSeesTheClientsList: a change in a tool the policy hides is
// no news to the client; a change in one it sees is.
func TestListChangedSeesTheClientsList(t *testing.T) {
	p, err := policy.Build("p.json", nil, policy.Options{Deny: []string{"save_*"}})
	if err != nil {
		t.Fatal(err)
	}
	s := toolState{policy: p}
	lists := []struct {
		list    string
		changed bool
	}{
		{`{"tools":[{"name":"draw_line","description":"a"},{"name":"save_drawing","description":"a"}]}`, false}, // the first
		{`{"tools":[{"name":"draw_line","description":"a"},{"name":"save_drawing","description":"b"}]}`, false}, // hidden tool changed
		{`{"tools":[{"name":"draw_line","description":"b"},{"name":"save_drawing","description":"b"}]}`, true},  // visible tool changed
	}
	for i, l := range lists {
		changed, _, err := s.record([]byte(l.list))
		if err != nil {
			t.Fatal(err)
		}
		if changed != l.changed {
			t.Errorf("list %d: changed = %v; want %v", i, changed, l.changed)
		}
	}
}

// A policy file's "allow": [] is a list of the tools allowed, and it names
// none: no tool is listed or runs (an absent "allow" is what allows every
// tool). The file's deny rules do not change that.
func TestEmptyAllowListAllowsNothing(t *testing.T) {
	for _, file := range []string{`{"allow": []}`, `{"allow": [], "deny": ["save_*"]}`} {
		t.Run(file, func(t *testing.T) {
			h := newHarness(t, nil, withPolicy(t, file, policy.Options{}))
			h.send(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)
			if got := listed(t, h.recv()); len(got) != 0 {
				t.Errorf("listed %d tools, want none", len(got))
			}
			h.send(call("2", "new_drawing", `{"name":"pwned"}`))
			h.skipCount("2")
			if line := h.recv(); field(t, line, "error.data.kind") != "denied" {
				t.Errorf("got %s, want -32602 denied", line)
			}
			h.closeAndWait()
			h.checkExactlyOnce()
		})
	}
}

// TestClientInfoKeptBounded: what a session keeps of its client's
// clientInfo is what the journal records (256 bytes each), not what
// initialize sent. Before, twenty sessions naming 8 MiB programs held
// 160 MiB for --session-idle.
func TestClientInfoKeptBounded(t *testing.T) {
	var a asker
	huge := strings.Repeat("n", 1<<20)
	a.initialized(lifecycle.ReadRequest(rpc.ID{}, "initialize", []byte(`{"clientInfo":{"name":"`+huge+`","version":"`+huge+`"}}`)), "2025-06-18")
	ci := a.info.Load()
	if len(ci.Name) > 256 || len(ci.Version) > 256 || !strings.HasPrefix(ci.Name, "nnnn") {
		t.Errorf("kept a clientInfo of %d and %d bytes (%.10q)", len(ci.Name), len(ci.Version), ci.Name)
	}
}

// TestConfirmLegacyByVersion: whether and how a handshake-era client is
// asked follows the version its initialize agreed, not the latest one: a
// 2025-03-26 client has no elicitation (even if it declares the
// capability) and is refused at once; a 2025-06-18 client is asked
// without "mode", which its version's params lack.
func TestConfirmLegacyByVersion(t *testing.T) {
	initAt := func(version string) string {
		return `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"` + version + `","capabilities":{"elicitation":{}},"clientInfo":{"name":"c","version":"1"}}}`
	}
	h := newHarness(t, nil, withPolicy(t, testPolicy, policy.Options{}))
	h.send(initAt("2025-03-26"))
	h.recv()
	h.send(call("1", "delete_entities", `{"handles":["1"]}`))
	h.skipCount("1")
	if line := h.recv(); field(t, line, "result.isError") != true || !strings.Contains(line, "cannot ask") {
		t.Errorf("2025-03-26 client: want a refusal, got %s", line)
	}
	h.checkExactlyOnce()

	h2 := newHarness(t, nil, withPolicy(t, testPolicy, policy.Options{}))
	h2.send(initAt("2025-06-18"))
	h2.recv()
	h2.send(call("1", "delete_entities", `{"handles":["1"]}`))
	h2.skipCount("1")
	line := h2.recv()
	if field(t, line, "method") != "elicitation/create" || strings.Contains(line, `"mode"`) {
		t.Errorf("2025-06-18 client: want an elicitation/create without mode, got %s", line)
	}
	raw, _ := json.Marshal(field(t, line, "id"))
	h2.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":{"action":"decline"}}`, raw))
	if line := h2.recv(); field(t, line, "result.isError") != true || !strings.Contains(line, "you declined it") {
		t.Errorf("declined: %s", line)
	}
	h2.closeAndWait()
	h2.checkExactlyOnce()
}

// TestClientFieldsByExactName: what the bridge reads of a client's
// initialize and _meta is read by the exact member names, as the client
// wrote them for a reader that matches names exactly: "Elicitation" is
// not the elicitation capability (the client is not asked, the call is
// refused), and a "NAME" beside "name" does not rename the client in the
// journal, in either era.
func TestClientFieldsByExactName(t *testing.T) {
	jpath, jw := newJournal(t)
	h := newHarness(t, nil, both(withPolicy(t, testPolicy, policy.Options{}), func(c *Config) { c.Journal = jw }))
	h.send(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{"Elicitation":{}},"clientInfo":{"name":"real","NAME":"forged","version":"1"}}}`)
	h.recv()
	h.send(call("1", "delete_entities", `{"handles":["1"]}`))
	h.skipCount("1")
	if line := h.recv(); field(t, line, "result.isError") != true || !strings.Contains(line, "cannot ask") {
		t.Errorf("a client declaring only \"Elicitation\": want a refusal, got %s", line)
	}
	h.send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"get_drawing_info","arguments":{},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"modern","Name":"forged","version":"2"}}}}`)
	h.recv()
	h.closeAndWait()
	var got []string
	_ = journal.Each(jpath, func(l journal.Line) bool {
		if l.Entry.Client != nil {
			got = append(got, l.Entry.Client.Name)
		}
		return true
	})
	if d := cmp.Diff([]string{"real", "modern"}, got); d != "" {
		t.Errorf("journal's client names (-want +got):\n%s", d)
	}
}
