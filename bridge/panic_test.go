package bridge

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/mcp-bridge/mcp-bridge/rpc"
	"github.com/rs/zerolog"
)

func TestPanicsAreRecovered(t *testing.T) {
	var logs bytes.Buffer
	panicky := baseFunc(func(_ context.Context, frame []byte) ([]byte, error) {
		if bytes.Contains(frame, []byte(`"boom"`)) {
			panic("base adapter exploded")
		}
		return []byte(`{"jsonrpc":"2.0","id":1,"result":{}}`), nil
	})
	testHookHandle = func(d rpc.Decoded) {
		if r, ok := d.Msg.(*rpc.Request); ok && r.Method == "explode" {
			panic("reader exploded")
		}
	}
	defer func() { testHookHandle = nil }()
	h := newHarness(t, nil, func(c *Config) {
		c.Base = panicky
		c.Log = zerolog.New(zerolog.SyncWriter(&logs))
	})
	h.send(call("1", "boom", `{}`))
	h.expect(`{"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":"internal error in mcp-bridge while forwarding tools/call (see its log)"}}`)
	h.send(`{"jsonrpc":"2.0","id":2,"method":"explode"}`)
	h.expect(`{"jsonrpc":"2.0","id":2,"error":{"code":-32603,"message":"internal error in mcp-bridge while handling explode (see its log)"}}`)
	// The bridge goes on.
	h.send(call("3", "fine", `{}`))
	h.expect(`{"jsonrpc":"2.0","id":3,"result":{}}`)
	h.closeAndWait()
	for _, want := range []string{"base adapter exploded", "reader exploded", "goroutine", "worker.go", "reader.go"} {
		if !strings.Contains(logs.String(), want) {
			t.Errorf("the log lacks %q (a stack): %s", want, logs.String())
		}
	}
}

// A panic in the base adapter ends the request once: its heartbeats stop
// before the error answer, none follows it.
func TestHeartbeatsStopOnPanic(t *testing.T) {
	beat := make(chan struct{})
	base := baseFunc(func(context.Context, []byte) ([]byte, error) {
		<-beat
		panic("base adapter exploded")
	})
	h := newHarness(t, nil, func(c *Config) { c.Base = base; c.ProgressInterval = time.Millisecond })
	h.send(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x","_meta":{"progressToken":"t"}}}`)
	if got := h.recv(); field(t, got, "method") != "notifications/progress" {
		t.Fatalf("want a heartbeat first, got %s", got)
	}
	close(beat)
	for {
		got := h.recv()
		if field(t, got, "id") == float64(1) {
			if field(t, got, "error.code") != float64(-32603) {
				t.Fatalf("got %s", got)
			}
			break
		}
	}
	h.send(pingP)
	if got := h.recv(); got != pongP {
		t.Fatalf("after the answer: %s", got)
	}
	for _, l := range h.closeAndWait() {
		t.Errorf("after the answer: %s", l)
	}
}

// A panic after a request was answered does not answer it again, nor end
// its batch twice.
func TestPanicAfterAnswerAnswersOnce(t *testing.T) {
	testHookAnswered = func(string) { panic("after the answer") }
	defer func() { testHookAnswered = nil }()
	h := newHarness(t, nil, nil)
	h.send(`[` + call("1", "get_drawing_info", `{}`) + `,` + call("2", "get_drawing_info", `{}`) + `]`)
	var batch []json.RawMessage
	if err := json.Unmarshal([]byte(h.recv()), &batch); err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, m := range batch {
		ids = append(ids, fmt.Sprint(field(t, string(m), "id")))
	}
	if strings.Join(ids, ",") != "1,2" {
		t.Errorf("batch answered ids %v, want 1,2 once each", ids)
	}
	h.send(call("3", "get_drawing_info", `{}`))
	if got := h.recv(); field(t, got, "id") != float64(3) {
		t.Fatalf("got %s", got)
	}
	for _, l := range h.closeAndWait() {
		t.Errorf("more after the answers: %s", l)
	}
}
