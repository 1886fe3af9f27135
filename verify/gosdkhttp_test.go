package verify

import (
	"context"
	"encoding/json"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// startHTTPBridge runs the bridge binary with --listen on a free port and
// returns its MCP URL; the bridge gets SIGTERM at cleanup and must exit 0.
func startHTTPBridge(t *testing.T, basePort string, extra ...string) (url string, stderr *LockedBuffer) {
	t.Helper()
	args := append([]string{"--port", basePort, "--listen", "127.0.0.1:0", "--log-level", "debug", "--log-format", "json", "--no-cache"}, extra...)
	cmd := exec.Command(bridgeBin, args...)
	stderr = &LockedBuffer{}
	cmd.Stderr = stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	t.Cleanup(func() {
		if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
			// Windows has no SIGTERM to send (os: not supported): end it
			// there; the SIGTERM exit is checked where signals exist.
			_ = cmd.Process.Kill()
			<-exited
			return
		}
		select {
		case err := <-exited:
			if err != nil {
				t.Errorf("bridge exit after SIGTERM: %v\n%s", err, stderr.String())
			}
		case <-time.After(20 * time.Second):
			_ = cmd.Process.Kill()
			t.Errorf("bridge did not exit after SIGTERM")
		}
	})
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		for _, line := range strings.Split(stderr.String(), "\n") {
			var l struct{ URL string }
			if json.Unmarshal([]byte(line), &l) == nil && l.URL != "" {
				return l.URL, stderr
			}
		}
		select {
		case err := <-exited:
			t.Fatalf("bridge exited: %v\n%s", err, stderr.String())
		case <-time.After(20 * time.Millisecond):
		}
	}
	t.Fatalf("bridge did not print its URL:\n%s", stderr.String())
	return "", nil
}

// TestGoSDKStreamableHTTP drives the bridge's Streamable HTTP front end
// with the official Go SDK client's StreamableClientTransport, in the
// modern era (the SDK's default, with a list-changed handler, so that it
// opens subscriptions/listen) and pinned to a legacy version (a session,
// with its GET stream).
func TestGoSDKStreamableHTTP(t *testing.T) {
	url, stderr := startHTTPBridge(t, goSDKSimPort(t))

	forGoSDKEras(t, func(t *testing.T, ctx context.Context, version, name string) {
		client := newGoSDKClient("gosdk-http-" + name)
		cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: url, MaxRetries: -1}, &mcp.ClientSessionOptions{ProtocolVersion: version})
		if err != nil {
			t.Fatalf("connect: %v\n%s", err, stderr.String())
		}
		defer cs.Close()
		init := cs.InitializeResult()
		wantVersion := version
		if wantVersion == "" {
			wantVersion = "2026-07-28"
		}
		if init == nil || init.ProtocolVersion != wantVersion {
			t.Fatalf("negotiated %+v, want %q", init, wantVersion)
		}
		checkGoSDKTools(ctx, t, cs)
	})
	// The modern client's list-changed handler made it open a listen
	// stream, which the bridge acknowledged and held.
	if !listenOpened(stderr.String()) {
		t.Errorf("no subscriptions/listen stream held; bridge log:\n%s", stderr.String())
	}
}
