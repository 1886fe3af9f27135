package bridge

import (
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/mcp-bridge/mcp-bridge/bridge/confirm/desktop"
	"github.com/mcp-bridge/mcp-bridge/bridge/internal/bridgetest"
	"github.com/mcp-bridge/mcp-bridge/bridge/policy"
)

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
