package streamable

import (
	"context"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/mcp-bridge/mcp-bridge/bridge"
	"github.com/mcp-bridge/mcp-bridge/bridge/internal/bridgetest"
	"github.com/mcp-bridge/mcp-bridge/tcpbase"
)

// BenchmarkServe measures one call end to end in-process: an HTTP client
// on keep-alive connections → Serve → the simulated base over loopback,
// for a legacy session's small call and 1 MiB answer, a stateless small
// call, and ten legacy sessions calling at once.
func BenchmarkServe(b *testing.B) {
	legacy := func(tool, args string) string {
		return `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"` + tool + `","arguments":` + args + `}}`
	}
	modern := bridgetest.ModernCall("1", "get_drawing_info", `{}`, `{}`, "")
	for _, tc := range []struct {
		name, body string
		modern     bool
		clients    int
	}{
		{"legacy", legacy("get_drawing_info", `{}`), false, 1},
		{"modern", modern, true, 1},
		{"1MiB", legacy("fault_big", `{"mib":1}`), false, 1},
		{"ten", legacy("get_drawing_info", `{}`), false, 10},
	} {
		b.Run(tc.name, func(b *testing.B) {
			sim := bridgetest.StartSim(b)
			ln, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				b.Fatal(err)
			}
			ctx, stop := context.WithCancel(context.Background())
			done := make(chan error, 1)
			cfg := bridge.Config{Base: &tcpbase.Client{Addr: sim.Addr()}, BaseAddr: sim.Addr(), CacheDir: b.TempDir()}
			go func() { done <- Serve(ctx, cfg, Config{}, ln) }()
			defer func() { stop(); <-done }()
			url := "http://" + ln.Addr().String() + "/mcp"
			client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 16}}
			defer client.CloseIdleConnections()
			post := func(session string) (*http.Response, error) {
				req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(tc.body))
				req.Header.Set("Content-Type", "application/json")
				req.Header.Set("Accept", "application/json, text/event-stream")
				if tc.modern {
					req.Header.Set("MCP-Protocol-Version", "2026-07-28")
					req.Header.Set("Mcp-Method", "tools/call")
					req.Header.Set("Mcp-Name", "get_drawing_info")
				} else {
					req.Header.Set("Mcp-Session-Id", session)
				}
				return client.Do(req)
			}
			sessions := make([]string, tc.clients)
			if !tc.modern {
				for i := range sessions {
					req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"b","version":"1"}}}`))
					req.Header.Set("Content-Type", "application/json")
					req.Header.Set("Accept", "application/json, text/event-stream")
					resp, err := client.Do(req)
					if err != nil {
						b.Fatal(err)
					}
					_, _ = io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
					sessions[i] = resp.Header.Get("Mcp-Session-Id")
				}
			}
			call := func(session string) {
				resp, err := post(session)
				if err != nil {
					b.Error(err)
					return
				}
				_, _ = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				if resp.StatusCode != http.StatusOK {
					b.Errorf("status %d", resp.StatusCode)
				}
			}
			b.ReportAllocs()
			if tc.clients == 1 {
				for b.Loop() {
					call(sessions[0])
				}
				return
			}
			// Ten clients: each loop is one call from each.
			for b.Loop() {
				var wg sync.WaitGroup
				for _, s := range sessions {
					wg.Go(func() { call(s) })
				}
				wg.Wait()
			}
		})
	}
}
