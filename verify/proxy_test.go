package verify

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcp-bridge/mcp-bridge/bridge/streamable/tlscert"
	"github.com/mcp-bridge/mcp-bridge/tcpbase/simbase"
	"github.com/mcp-bridge/mcp-bridge/verify/testdir"
)

// nginxConf ends TLS in front of the bridge with nginx's defaults, response
// buffering included: the bridge's SSE answers must still stream
// (X-Accel-Buffering: no).
const nginxConf = `worker_processes 1;
error_log %[1]s/error.log;
pid %[1]s/nginx.pid;
events { worker_connections 64; }
http {
  access_log off;
  client_body_temp_path %[1]s/body;
  proxy_temp_path %[1]s/proxy;
  fastcgi_temp_path %[1]s/fastcgi;
  uwsgi_temp_path %[1]s/uwsgi;
  scgi_temp_path %[1]s/scgi;
  server {
    listen 127.0.0.1:%[2]d ssl;
    ssl_certificate %[3]s;
    ssl_certificate_key %[4]s;
    location / {
      proxy_pass http://%[5]s;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;
      proxy_read_timeout 1h;
      # Large buffers: a buffered answer would wait for its end.
      proxy_buffer_size 1m;
      proxy_buffers 4 1m;
      proxy_busy_buffers_size 1m;
    }
  }
}
`

// TestReverseProxy: the bridge behind nginx (Debian's, installed by make
// test-proxy), nginx ending TLS: the Go SDK through connect in both eras,
// and a streamed answer (progress while the call still runs) in both.
// Skipped when nginx is not installed.
func TestReverseProxy(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("nginx runs on the Linux side: make test-proxy")
	}
	nginx, err := exec.LookPath("nginx")
	if err != nil {
		if _, err = os.Stat("/usr/sbin/nginx"); err != nil {
			t.Skip("nginx is not installed (make test-proxy installs it)")
		}
		nginx = "/usr/sbin/nginx"
	}
	sim, err := simbase.Start("127.0.0.1:0", simbase.Options{Faults: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sim.Close() })
	_, simPort, _ := net.SplitHostPort(sim.Addr())
	bridgeURL, blog := startHTTPBridge(t, simPort, "--trust-proxy", "127.0.0.1", "--progress-interval", "20ms")

	dir := testdir.New(t)
	if _, _, err := tlscert.SelfSigned(dir); err != nil {
		t.Fatal(err)
	}
	fp := tlscert.Existing(dir)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	conf := filepath.Join(dir, "nginx.conf")
	backend := strings.TrimSuffix(strings.TrimPrefix(bridgeURL, "http://"), "/mcp")
	if err := os.WriteFile(conf, fmt.Appendf(nil, nginxConf, dir, port, filepath.Join(dir, tlscert.CertFile), filepath.Join(dir, tlscert.KeyFile), backend), 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(nginx, "-p", dir, "-c", conf, "-g", "daemon off;")
	var nlog LockedBuffer
	cmd.Stderr = &nlog
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Signal(syscall.SIGTERM); _ = cmd.Wait() })
	deadline := time.Now().Add(20 * time.Second)
	for {
		c, err := net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", port))
		if err == nil {
			c.Close()
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("nginx did not start: %s", nlog.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	proxied := fmt.Sprintf("https://127.0.0.1:%d/mcp", port)

	forGoSDKEras(t, func(t *testing.T, ctx context.Context, version, name string) {
		cs, err := newGoSDKClient("gosdk-proxy").Connect(ctx, &mcp.CommandTransport{Command: exec.Command(bridgeBin, "connect", proxied, "--fingerprint", fp)}, &mcp.ClientSessionOptions{ProtocolVersion: version})
		if err != nil {
			t.Fatalf("connect through nginx: %v", err)
		}
		defer cs.Close()
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "measure_distance", Arguments: map[string]any{
			"from": map[string]any{"x": 0, "y": 0}, "to": map[string]any{"x": 6, "y": 8}}})
		if err != nil || res.IsError || len(res.Content) == 0 {
			t.Fatalf("tools/call through nginx: %+v, %v", res, err)
		}
		if text, _ := res.Content[0].(*mcp.TextContent); text == nil || !strings.HasPrefix(text.Text, "Distance 10,") {
			t.Errorf("tools/call through nginx: %+v", res.Content[0])
		}
	})

	modern := `,"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}`
	for _, era := range []struct{ name, meta, cancelMeta string }{{"legacy", "", ""}, {"modern", modern, `,"_meta":{` + modern[1:] + `}`}} {
		t.Run("streamed "+era.name, func(t *testing.T) {
			b, _, err := startConnect(t, []string{proxied, "--fingerprint", fp}, Options{})
			if err != nil {
				t.Fatal(err)
			}
			_ = b.Send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
			// fault_hang never answers: progress can only reach the client
			// if the proxy streams the answer as it comes.
			_ = b.Send(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"fault_hang","arguments":{},"_meta":{"progressToken":"p"` + era.meta + `}}}`)
			for {
				line, err := b.Recv(30 * time.Second)
				if err != nil {
					t.Fatalf("no progress through nginx while the call runs: %v\nconnect:\n%s\nbridge:\n%s", err, b.Stderr(), blog.String())
				}
				if strings.Contains(line, `"notifications/progress"`) {
					break
				}
			}
			_ = b.Send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1` + era.cancelMeta + `}}`)
			// The cancellation reaches the base through nginx: the hung
			// call's connection is closed, and the worker is free again.
			for deadline := time.Now().Add(30 * time.Second); sim.OpenConns() > 0; time.Sleep(10 * time.Millisecond) {
				if time.Now().After(deadline) {
					t.Fatalf("the cancelled call still holds the base")
				}
			}
		})
	}
}
