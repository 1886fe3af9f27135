package checks

import (
	"context"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/mcp-bridge/mcp-bridge/bridge"
	"github.com/mcp-bridge/mcp-bridge/bridge/streamable"
	"github.com/mcp-bridge/mcp-bridge/lifecycle"
	"github.com/mcp-bridge/mcp-bridge/tcpbase"
	"github.com/mcp-bridge/mcp-bridge/tcpbase/simbase"
)

// serveHTTP runs the HTTP front end in-process against a simulated base
// and returns its MCP URL.
func serveHTTP(t *testing.T, hc streamable.Config) string {
	t.Helper()
	sim, err := simbase.Start("127.0.0.1:0", simbase.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sim.Close() })
	return serveHTTPFor(t, sim.Addr(), hc)
}

// serveHTTPFor is serveHTTP in front of the base at addr.
func serveHTTPFor(t *testing.T, addr string, hc streamable.Config) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	cfg := bridge.Config{Base: &tcpbase.Client{Addr: addr, ConnectTimeout: time.Second}, BaseAddr: addr,
		Server: lifecycle.NewServer("mcp-bridge", "test", "", true), Log: zerolog.Nop()}
	go func() { done <- streamable.Serve(ctx, cfg, hc, ln) }()
	t.Cleanup(func() { cancel(); <-done })
	return "http://" + ln.Addr().String() + "/mcp"
}

func TestVerifyURLPasses(t *testing.T) {
	url := serveHTTP(t, streamable.Config{Token: "tok"})
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

// TestVerifyURLAgainstForeignBases: through a bridge serving HTTP, the
// foreign bases give no FAIL, and the tool called is the one each offers
// for reading.
func TestVerifyURLAgainstForeignBases(t *testing.T) {
	for _, fb := range foreignBases {
		t.Run(fb.name, func(t *testing.T) {
			base := fb.start(t)
			rep := RunHTTP(context.Background(), HTTPOptions{URL: serveHTTPFor(t, base.addr(), streamable.Config{})}, nil)
			got := results(rep)
			for _, r := range rep.Results {
				if r.Status != Pass {
					t.Errorf("%s: %s %s", r.Name, r.Status, r.Detail)
				}
			}
			if d := got["modern tools/call"].Detail; !strings.Contains(d, "called "+fb.tool+" ") {
				t.Errorf("modern tools/call: %q does not name %s", d, fb.tool)
			}
			for _, c := range base.calls() {
				if c != fb.tool && c != "no_such_tool_mcp_bridge" {
					t.Errorf("verify --url called %s on the user's base", c)
				}
			}
		})
	}
}
