package bridge

import (
	"strings"
	"testing"
	"time"
)

func TestProgressHeartbeats(t *testing.T) {
	h := newHarness(t, nil, func(c *Config) { c.ProgressInterval = 100 * time.Millisecond })
	h.send(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"fault_sleep","arguments":{"ms":450},"_meta":{"progressToken":"tok"}}}`)
	var beats []string
	for {
		line := h.recv()
		if field(t, line, "id") == float64(1) {
			if !strings.Contains(line, "slept 450 ms") {
				t.Fatalf("answer: %s", line)
			}
			break
		}
		beats = append(beats, line)
	}
	if len(beats) < 2 || len(beats) > 6 { // about 4; a starved ticker drops ticks
		t.Fatalf("%d heartbeats in 450 ms at 100 ms: %q", len(beats), beats)
	}
	for i, b := range beats {
		if field(t, b, "method") != "notifications/progress" || field(t, b, "params.progressToken") != "tok" ||
			field(t, b, "params.progress") != float64(i+1) || !strings.HasPrefix(field(t, b, "params.message").(string), "waiting for CAD (") {
			t.Errorf("heartbeat %d: %s", i, b)
		}
	}
	// Without a token, none.
	h.send(call("2", "fault_sleep", `{"ms":350}`))
	if got := h.recv(); field(t, got, "id") != float64(2) {
		t.Fatalf("without a progressToken got %s first", got)
	}
	h.closeAndWait()

	// Turned off.
	h2 := newHarness(t, nil, func(c *Config) { c.ProgressInterval = -1 })
	h2.send(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"fault_sleep","arguments":{"ms":300},"_meta":{"progressToken":7}}}`)
	if got := h2.recv(); field(t, got, "id") != float64(3) {
		t.Fatalf("with heartbeats off got %s first", got)
	}
	h2.closeAndWait()
}
