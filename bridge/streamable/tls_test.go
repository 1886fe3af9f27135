package streamable

import (
	"bytes"
	"context"
	"crypto/tls"
	"encoding/json"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/mcp-bridge/mcp-bridge/bridge"
	"github.com/mcp-bridge/mcp-bridge/bridge/internal/bridgetest"
	"github.com/mcp-bridge/mcp-bridge/bridge/streamable/tlscert"
	"github.com/mcp-bridge/mcp-bridge/lifecycle"
	"github.com/mcp-bridge/mcp-bridge/tcpbase"
	"github.com/mcp-bridge/mcp-bridge/verify/testdir"
)

// lockedBuffer is a log destination the test reads while the bridge
// writes.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// TestServerErrorsInTheLog: what net/http reports itself (here a failed
// TLS handshake: plain http:// to the HTTPS port; scanners and clients
// that refuse the certificate do the same) goes to the bridge's log, in
// its format (JSON here), not as a bare line of Go's standard logger on
// stderr, past --log-file and --log-format.
func TestServerErrorsInTheLog(t *testing.T) {
	cert, _, err := tlscert.SelfSigned(testdir.New(t))
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var logs lockedBuffer
	cfg := bridge.Config{
		Base:   &tcpbase.Client{Addr: "127.0.0.1:1", ConnectTimeout: time.Second},
		Server: lifecycle.NewServer("mcp-bridge", "test", "", true),
		Log:    zerolog.New(&logs).Level(zerolog.DebugLevel),
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- Serve(ctx, cfg, Config{Version: "test"}, tls.NewListener(ln, tlscert.ServerConfig(cert)))
	}()
	defer func() { cancel(); <-done }()

	resp, err := http.Get("http://" + ln.Addr().String() + "/healthz")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	bridgetest.WaitFor(t, func() bool { return strings.Contains(logs.String(), "TLS handshake error") })
	for _, line := range strings.Split(strings.TrimSpace(logs.String()), "\n") {
		if !json.Valid([]byte(line)) {
			t.Errorf("log line not in the bridge's format: %q", line)
		}
	}
}
