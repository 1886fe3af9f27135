package verify

import (
	"net"
	"testing"
	"time"

	"github.com/mcp-bridge/mcp-bridge/tcpbase/simbase"
)

// TestStdinClosed: the client closes stdin, the way clients stop a stdio
// server on every system: a final line without newline still gets its
// answer, and the bridge exits 0.
func TestStdinClosed(t *testing.T) {
	sim, err := simbase.Start("127.0.0.1:0", simbase.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer sim.Close()
	_, port, _ := net.SplitHostPort(sim.Addr())
	for _, tc := range []struct{ tail, want string }{
		{`{"jsonrpc":"2.0","id":1,"method":"ping"}`, `{"jsonrpc":"2.0","id":1,"result":{}}`},
		{`{"jsonrpc":"2.0","id":1,"meth`, `{"jsonrpc":"2.0","error":{"code":-32700,"message":"Parse error: the line is not valid JSON"}}`},
	} {
		s, err := Start(bridgeBin, []string{"--port", port, "--no-cache"}, Options{})
		if err != nil {
			t.Fatal(err)
		}
		s.SendRaw([]byte(tc.tail))
		s.CloseStdin()
		got, err := s.Recv(10 * time.Second)
		if err != nil || got != tc.want {
			t.Errorf("%s: got %q %v", tc.tail, got, err)
		}
		if code, err := s.Wait(10 * time.Second); err != nil || code != 0 {
			t.Errorf("exit %d %v", code, err)
		}
		s.Close()
	}
}
