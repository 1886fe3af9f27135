package checks

import (
	"context"
	"net"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/mcp-bridge/mcp-bridge/bridge"
	"github.com/mcp-bridge/mcp-bridge/lifecycle"
	"github.com/mcp-bridge/mcp-bridge/tcpbase"
	"github.com/mcp-bridge/mcp-bridge/tcpbase/simbase"
)

// serveHTTP runs the HTTP front end in-process against a simulated base
// and returns its MCP URL.
func serveHTTP(t *testing.T, hc bridge.HTTPConfig) string {
	t.Helper()
	sim, err := simbase.Start("127.0.0.1:0", simbase.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sim.Close() })
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	cfg := bridge.Config{Base: &tcpbase.Client{Addr: sim.Addr(), ConnectTimeout: time.Second}, BaseAddr: sim.Addr(),
		Server: lifecycle.NewServer("mcp-bridge", "test", "", true), Log: zerolog.Nop()}
	go func() { done <- bridge.Serve(ctx, cfg, hc, ln) }()
	t.Cleanup(func() { cancel(); <-done })
	return "http://" + ln.Addr().String() + "/mcp"
}

func TestVerifyURLPasses(t *testing.T) {
	url := serveHTTP(t, bridge.HTTPConfig{Token: "tok"})
	rep := RunHTTP(context.Background(), HTTPOptions{URL: url, Token: "tok"}, nil)
	for _, r := range rep.Results {
		if r.Status != Pass {
			t.Errorf("%s: %s %s", r.Name, r.Status, r.Detail)
		}
	}
	if len(rep.Results) < 20 || rep.Failed != 0 {
		t.Errorf("%d checks, %d failed", len(rep.Results), rep.Failed)
	}
	// Without the token every check fails, and says so.
	rep = RunHTTP(context.Background(), HTTPOptions{URL: url, Only: "tools/call in a session"}, nil)
	if rep.Failed != 1 || rep.Hint == "" {
		t.Errorf("without the token: %+v", rep)
	}
}
