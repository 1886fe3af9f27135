package verify

import (
	"context"
	"net"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcp-bridge/mcp-bridge/tcpbase/simbase"
)

// TestGoSDKClient drives the bridge binary with the official Go SDK client
// through its command transport, in the modern era (the SDK's default,
// with a list-changed handler, so that it opens subscriptions/listen) and
// pinned to a legacy version.
func TestGoSDKClient(t *testing.T) {
	port := goSDKSimPort(t)

	forGoSDKEras(t, func(t *testing.T, ctx context.Context, version, name string) {
		client := newGoSDKClient("gosdk-check")
		cmd := exec.Command(bridgeBin, "--port", port, "--log-level", "debug", "--log-format", "json", "--no-cache")
		var stderr LockedBuffer
		cmd.Stderr = &stderr
		transport := &mcp.CommandTransport{Command: cmd}
		cs, err := client.Connect(ctx, transport, &mcp.ClientSessionOptions{ProtocolVersion: version})
		if err != nil {
			t.Fatalf("connect: %v", err)
		}
		defer cs.Close()
		init := cs.InitializeResult()
		if init == nil || init.Capabilities == nil || init.Capabilities.Tools == nil || !init.Capabilities.Tools.ListChanged {
			t.Fatalf("capabilities: %+v", init)
		}
		wantVersion := version
		if wantVersion == "" {
			wantVersion = "2026-07-28"
		}
		if init.ProtocolVersion != wantVersion {
			t.Errorf("negotiated %q, want %q", init.ProtocolVersion, wantVersion)
		}

		checkGoSDKTools(ctx, t, cs)
		cs.Close()
		// In the modern era the list-changed handler makes the SDK open a
		// listen stream, which the bridge acknowledges and holds.
		if opened, modern := listenOpened(stderr.String()), version == ""; opened != modern {
			t.Errorf("subscriptions/listen opened = %v in era %s; bridge log:\n%s", opened, name, stderr.String())
		}
	})
}

// goSDKSimPort starts a simulated base for the test and returns its port.
func goSDKSimPort(t *testing.T) string {
	t.Helper()
	sim, err := simbase.Start("127.0.0.1:0", simbase.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sim.Close() })
	_, port, _ := net.SplitHostPort(sim.Addr())
	return port
}

// forGoSDKEras runs check in a subtest for the SDK's default version (the
// modern era) and for one pinned legacy version ("" and "2025-06-18"),
// each with a minute's context.
func forGoSDKEras(t *testing.T, check func(t *testing.T, ctx context.Context, version, name string)) {
	for _, version := range []string{"", "2025-06-18"} {
		name := version
		if name == "" {
			name = "default (modern)"
		}
		t.Run(name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			check(t, ctx, version, name)
		})
	}
}

// newGoSDKClient is a Go SDK client with a list-changed handler, so that in
// the modern era it opens subscriptions/listen.
func newGoSDKClient(name string) *mcp.Client {
	return mcp.NewClient(&mcp.Implementation{Name: name, Version: "1"}, &mcp.ClientOptions{
		ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) {},
	})
}

// checkGoSDKTools runs the tool steps every Go SDK check shares: tools/list
// sees the 26 tools, measure_distance answers, an unknown tool is an error.
func checkGoSDKTools(ctx context.Context, t *testing.T, cs *mcp.ClientSession) {
	t.Helper()
	tools, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatalf("tools/list: %v", err)
	}
	if len(tools.Tools) != 26 {
		t.Errorf("%d tools, want 26", len(tools.Tools))
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "measure_distance", Arguments: map[string]any{
		"from": map[string]any{"x": 0, "y": 0}, "to": map[string]any{"x": 6, "y": 8}}})
	if err != nil {
		t.Fatalf("tools/call: %v", err)
	}
	text, _ := res.Content[0].(*mcp.TextContent)
	if res.IsError || text == nil || !strings.HasPrefix(text.Text, "Distance 10,") {
		t.Errorf("tools/call result: %+v", res)
	}
	if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "no_such_tool"}); err == nil || !strings.Contains(err.Error(), "Unknown tool: no_such_tool") {
		t.Errorf("unknown tool: err = %v", err)
	}
}

// listenOpened reports whether the bridge's JSON log says it held a
// subscriptions/listen stream for tool-list changes.
func listenOpened(log string) bool {
	for _, line := range strings.Split(log, "\n") {
		if strings.Contains(line, `"message":"subscriptions/listen opened"`) && strings.Contains(line, `"toolsListChanged":true`) {
			return true
		}
	}
	return false
}
