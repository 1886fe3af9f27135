package verify

import (
	"net"
	"testing"
	"time"

	"github.com/mcp-bridge/mcp-bridge/tcpbase/simbase"
)

// TestProgressOnALongCall: a 12 s call with a progressToken gets heartbeats
// at the default 5 s interval (at 5 s and 10 s), none after its answer; a
// call without one gets none.
func TestProgressOnALongCall(t *testing.T) {
	if testing.Short() {
		t.Skip("takes 12 s")
	}
	sim, err := simbase.Start("127.0.0.1:0", simbase.Options{Faults: true})
	if err != nil {
		t.Fatal(err)
	}
	defer sim.Close()
	_, port, _ := net.SplitHostPort(sim.Addr())
	s, err := Start(bridgeBin, []string{"--port", port, "--no-cache"}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	s.Send(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"fault_sleep","arguments":{"ms":12000},"_meta":{"progressToken":42}}}`)
	s.Send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"fault_sleep","arguments":{"ms":6000}}}`)
	var lines []string
	for len(lines) < 4 {
		line, err := s.Recv(30 * time.Second)
		if err != nil {
			t.Fatalf("after %q: %v", lines, err)
		}
		lines = append(lines, line)
	}
	want := []string{
		`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":42,"progress":1,"message":"waiting for CAD (5 s)"}}`,
		`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":42,"progress":2,"message":"waiting for CAD (10 s)"}}`,
		`{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"slept 12000 ms"}],"isError":false}}`,
		`{"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"slept 6000 ms"}],"isError":false}}`,
	}
	for i := range want {
		if lines[i] != want[i] {
			t.Errorf("line %d:\ngot  %s\nwant %s", i, lines[i], want[i])
		}
	}
}
