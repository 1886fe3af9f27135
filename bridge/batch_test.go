package bridge

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mcp-bridge/mcp-bridge/bridge/internal/bridgetest"
)

func TestBatch(t *testing.T) {
	h := newHarness(t, nil, nil)
	h.send(`[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","method":"notifications/initialized"},` +
		call("2", "measure_distance", `{"from":{"x":0,"y":0},"to":{"x":0,"y":2}}`) + `,{"jsonrpc":"2.0","id":3,"method":"nope"},42]`)
	// One array with every answer; JSON-RPC leaves their order free (the
	// forwarded one may finish before the reader has answered the rest).
	var got []json.RawMessage
	if err := json.Unmarshal([]byte(h.recv()), &got); err != nil {
		t.Fatal(err)
	}
	var gotS []string
	for _, g := range got {
		gotS = append(gotS, string(g))
	}
	want := []string{
		`{"jsonrpc":"2.0","id":1,"result":{}}`,
		`{"jsonrpc":"2.0","id":3,"error":{"code":-32601,"message":"Method not found: nope"}}`,
		`{"jsonrpc":"2.0","error":{"code":-32600,"message":"Invalid Request: a message must be a JSON object"}}`,
		textResult("2", "Distance 2, angle 90°, dx 0, dy 2.", false),
	}
	slices.Sort(gotS)
	slices.Sort(want)
	if diff := cmp.Diff(want, gotS); diff != "" {
		t.Errorf("batch answers (-want +got):\n%s", diff)
	}
	// Only notifications: nothing comes back.
	h.send(`[{"jsonrpc":"2.0","method":"notifications/initialized"}]`, `{"jsonrpc":"2.0","id":4,"method":"ping"}`)
	h.expect(`{"jsonrpc":"2.0","id":4,"result":{}}`)
	h.closeAndWait()
	h.checkExactlyOnce()
}

// TestBatchRefusesModern: 2026-07-28 has no batches. Its request inside a
// batch gets -32600 and is not run, its notification is dropped, and the
// handshake-era requests beside them run; the same 2026-07-28 request on
// a line of its own runs.
func TestBatchRefusesModern(t *testing.T) {
	h := newHarness(t, nil, nil)
	dist := `{"from":{"x":0,"y":0},"to":{"x":0,"y":2}}`
	h.send(`[` + bridgetest.ModernCall("1", "measure_distance", dist, `{}`, "") + `,` + call("2", "measure_distance", dist) +
		`,{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":2,` + bridgetest.ModernMeta + `}}` +
		`,{"jsonrpc":"2.0","id":3,"method":"server/discover","params":{` + bridgetest.ModernMeta + `}}]`)
	var got []json.RawMessage
	if err := json.Unmarshal([]byte(h.recv()), &got); err != nil {
		t.Fatal(err)
	}
	var gotS []string
	for _, g := range got {
		gotS = append(gotS, string(g))
	}
	refused := func(id string) string {
		return `{"jsonrpc":"2.0","id":` + id + `,"error":{"code":-32600,"message":"Invalid Request: a 2026-07-28 request cannot be part of a batch (2026-07-28 has none); send it on its own"}}`
	}
	want := []string{refused("1"), textResult("2", "Distance 2, angle 90°, dx 0, dy 2.", false), refused("3")}
	slices.Sort(gotS)
	slices.Sort(want)
	if diff := cmp.Diff(want, gotS); diff != "" {
		t.Errorf("batch answers (-want +got):\n%s", diff)
	}
	h.send(bridgetest.ModernCall("4", "measure_distance", dist, `{}`, ""))
	if line := h.recv(); !strings.Contains(line, `"id":4,"result"`) || !strings.Contains(line, "Distance 2") {
		t.Errorf("on a line of its own: %s", line)
	}
	h.closeAndWait()
	h.checkExactlyOnce()
}

// No line the bridge writes is longer than --max-message: a batch answer
// that would be gets "too large for a batch" for the elements that do not
// fit.
func TestBatchAnswerWithinMaxMessage(t *testing.T) {
	h := newHarness(t, nil, func(c *Config) { c.Base = sizedBase(700); c.MaxMessage = 2200 })
	h.send(`[` + call("1", "x", `{}`) + `,` + call("2", "x", `{}`) + `,` + call("3", "x", `{}`) + `]`)
	line := h.recv()
	if len(line) > 2200 {
		t.Errorf("a line of %d bytes, over --max-message 2200", len(line))
	}
	var batch []json.RawMessage
	if err := json.Unmarshal([]byte(line), &batch); err != nil {
		t.Fatal(err)
	}
	if len(batch) != 3 {
		t.Fatalf("%d answers: %s", len(batch), line)
	}
	last := string(batch[2])
	if field(t, last, "id") != float64(3) || field(t, last, "error.code") != float64(-32603) ||
		!strings.Contains(field(t, last, "error.message").(string), "too large for a batch") {
		t.Errorf("third answer: %s", last)
	}
	h.closeAndWait()
}
