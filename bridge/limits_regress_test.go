package bridge

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/mcp-bridge/mcp-bridge/rpc"
)

// sizedBase answers every call with a text result of n bytes of "x".
func sizedBase(n int) baseFunc {
	return func(_ context.Context, frame []byte) ([]byte, error) {
		id := string(rpc.Field(frame, "id"))
		return []byte(`{"jsonrpc":"2.0","id":` + id + `,"result":{"content":[{"type":"text","text":"` + strings.Repeat("x", n) + `"}],"isError":false}}`), nil
	}
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

func TestAnswerOverMaxMessage(t *testing.T) {
	h := newHarness(t, nil, func(c *Config) { c.Base = sizedBase(1200); c.MaxMessage = 1000 })
	h.send(call("1", "x", `{}`))
	got := h.recv()
	if len(got) > 1000 || field(t, got, "error.data.kind") != "too_large" {
		t.Errorf("got %.300s", got)
	}
	h.closeAndWait()
}
