package streamable

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/mcp-bridge/mcp-bridge/bridge"
	"github.com/mcp-bridge/mcp-bridge/bridge/guard/journal"
	"github.com/mcp-bridge/mcp-bridge/bridge/guard/policy"
	"github.com/mcp-bridge/mcp-bridge/bridge/internal/bridgetest"
)

// TestRulesOverHTTP: the policy, both eras' confirmation and the journal
// apply to Streamable HTTP clients as to stdio ones.
func TestRulesOverHTTP(t *testing.T) {
	p := bridgetest.Policy(t, bridgetest.TestPolicy, policy.Options{})
	jpath, jw := newJournal(t)
	h := newHTTPHarness(t, func(c *bridge.Config, _ *Config) { c.Policy = p; c.Journal = jw })

	// Legacy session whose client can ask.
	r := h.post(jsonHeaders, `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"elicitation":{}},"clientInfo":{"name":"http-client","version":"2"}}}`)
	sid := r.header.Get("Mcp-Session-Id")
	if sid == "" {
		t.Fatalf("initialize: %d %s", r.status, r.body)
	}
	r = h.post(withSession(sid), `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)
	tools := bridgetest.Listed(t, r.body)
	if _, ok := tools["save_drawing"]; ok {
		t.Error("save_drawing listed over HTTP")
	}
	if d, _ := tools["delete_entities"].(map[string]any); d["destructiveHint"] != true {
		t.Errorf("delete_entities annotations over HTTP: %v", tools["delete_entities"])
	}
	r = h.post(withSession(sid), bridgetest.Call("2", "save_drawing", `{}`))
	if !strings.Contains(r.body, "denied by the mcp-bridge policy") {
		t.Errorf("denied call over HTTP: %s", r.body)
	}

	// The question comes on the call's own SSE stream; the answer is POSTed.
	status, _, events, closeFn := h.stream(http.MethodPost, withSession(sid), bridgetest.Call("3", "delete_entities", `{"handles":["9"]}`))
	defer closeFn()
	if status != http.StatusOK {
		t.Fatalf("tools/call: status %d", status)
	}
	q := next(t, events)
	if bridgetest.Field(t, q, "method") != "elicitation/create" || !strings.Contains(bridgetest.Field(t, q, "params.message").(string), "delete_entities") {
		t.Fatalf("want the question first, got %s", q)
	}
	qid, _ := json.Marshal(bridgetest.Field(t, q, "id"))
	ack := h.post(withSession(sid), fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":{"action":"accept","content":{"confirm":true}}}`, qid))
	if ack.status != http.StatusAccepted {
		t.Errorf("posting the answer: %d %s", ack.status, ack.body)
	}
	final := next(t, events)
	if bridgetest.Field(t, final, "id") != float64(3) || !strings.Contains(final, "no entity with handle") {
		t.Errorf("after the user agreed, want CAD's answer, got %s", final)
	}

	// 2026-07-28 over HTTP: input_required, then the re-sent call.
	caps := `{"elicitation":{}}`
	r = h.post(modernHeaders("tools/call", "delete_entities"), bridgetest.ModernCall("4", "delete_entities", `{"handles":["9"]}`, caps, ""))
	state := bridgetest.InputRequired(t, r.body)
	r = h.post(modernHeaders("tools/call", "delete_entities"), bridgetest.ModernCall("5", "delete_entities", `{"handles":["9"]}`, caps,
		fmt.Sprintf(`,"inputResponses":{"confirm":{"action":"decline"}},"requestState":%q`, state)))
	if bridgetest.Field(t, r.body, "result.isError") != true || !strings.Contains(r.body, "you declined it") {
		t.Errorf("modern declined over HTTP: %s", r.body)
	}
	if n := h.sim.CallsFor("5"); n != 0 {
		t.Errorf("the declined call ran %d times at the base", n)
	}

	var got []string
	_ = journal.Each(jpath, func(l journal.Line) bool {
		got = append(got, l.Entry.Transport+" "+l.Entry.Method+" "+l.Entry.Tool+" "+l.Entry.Outcome)
		return true
	})
	want := "http tools/list  ok|http tools/call save_drawing denied|http tools/call delete_entities tool_error|http tools/call delete_entities input_required|http tools/call delete_entities declined"
	if strings.Join(got, "|") != want {
		t.Errorf("journal:\n got %s\nwant %s", strings.Join(got, "|"), want)
	}
}
