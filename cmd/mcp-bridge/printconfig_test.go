package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestPrintConfigShapes(t *testing.T) {
	exe, _ := os.Executable()
	tests := []struct {
		name string
		env  map[string]string
		args []string
		want string
	}{
		{"generic", nil, []string{"--print-config"},
			`{"mcpServers":{"cad-autocad":{"args":[],"command":"EXE","env":{"CAD_MCP_HOST":"127.0.0.1","CAD_MCP_PORT":"8080"},"type":"stdio"}}}`},
		{"claude desktop, no type", nil, []string{"--print-config", "--client", "claude-desktop", "--name", "my-cad"},
			`{"mcpServers":{"my-cad":{"args":[],"command":"EXE","env":{"CAD_MCP_HOST":"127.0.0.1","CAD_MCP_PORT":"8080"}}}}`},
		{"vscode uses servers", nil, []string{"--print-config", "--client", "vscode", "--port", "9000"},
			`{"servers":{"cad-autocad":{"args":[],"command":"EXE","env":{"CAD_MCP_HOST":"127.0.0.1","CAD_MCP_PORT":"9000"},"type":"stdio"}}}`},
		{"non-default flags travel in args", nil, []string{"--print-config", "--client", "cursor", "--call-timeout", "5m", "--no-schema-repair", "--host", "localhost"},
			`{"mcpServers":{"cad-autocad":{"args":["--call-timeout","5m0s","--no-schema-repair"],"command":"EXE","env":{"CAD_MCP_HOST":"localhost","CAD_MCP_PORT":"8080"},"type":"stdio"}}}`},
		{"environment fills in", map[string]string{"CAD_MCP_PORT": "7777", "CAD_MCP_LOG_LEVEL": "debug"}, []string{"--print-config", "--client", "inspector"},
			`{"mcpServers":{"cad-autocad":{"args":["--log-level","debug"],"command":"EXE","env":{"CAD_MCP_HOST":"127.0.0.1","CAD_MCP_PORT":"7777"},"type":"stdio"}}}`},
		{"flag beats environment", map[string]string{"CAD_MCP_PORT": "7777"}, []string{"--print-config", "--port", "8081"},
			`{"mcpServers":{"cad-autocad":{"args":[],"command":"EXE","env":{"CAD_MCP_HOST":"127.0.0.1","CAD_MCP_PORT":"8081"},"type":"stdio"}}}`},
		{"HTTP: the URL form", nil, []string{"--print-config", "--client", "cursor", "--listen", "127.0.0.1:8931"},
			`{"mcpServers":{"cad-autocad":{"type":"http","url":"http://127.0.0.1:8931/mcp"}}}`},
		{"HTTP: the token as a header", map[string]string{"CAD_MCP_TOKEN": "t0k", "CAD_MCP_LISTEN": "0.0.0.0:8931"}, []string{"--print-config", "--client", "vscode"},
			`{"servers":{"cad-autocad":{"type":"http","url":"http://127.0.0.1:8931/mcp","headers":{"Authorization":"Bearer ${env:CAD_MCP_TOKEN}"}}}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, errs, code := runCLI(t, tt.env, "", tt.args...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errs)
			}
			var got, want any
			if err := json.Unmarshal([]byte(out), &got); err != nil {
				t.Fatalf("not JSON: %s", out)
			}
			wantJSON, _ := json.Marshal(exe)
			_ = json.Unmarshal([]byte(strings.Replace(tt.want, `"EXE"`, string(wantJSON), 1)), &want)
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
			if !filepath.IsAbs(exe) {
				t.Errorf("command %q is not absolute", exe)
			}
		})
	}
}

func TestListenRefusals(t *testing.T) {
	for _, tt := range []struct {
		name string
		env  map[string]string
		args []string
		want string
	}{
		{"not loopback, no token", nil, []string{"--listen", "0.0.0.0:0"}, "reachable from other machines"},
		{"bad address", nil, []string{"--listen", "8931"}, "want HOST:PORT"},
		{"bad --trust-proxy", nil, []string{"--listen", "127.0.0.1:0", "--trust-proxy", "10.0.0.0/33"}, `--trust-proxy "10.0.0.0/33"`},
		{"TLS without --listen", nil, []string{"--tls-self-signed"}, "they need --listen"},
		{"a cert without its key", nil, []string{"--listen", "127.0.0.1:0", "--tls-cert", "c.pem"}, "go together"},
		{"claude desktop takes no URL", nil, []string{"--print-config", "--client", "claude-desktop", "--listen", "127.0.0.1:8931"}, "stdio servers only"},
		{"empty token file", nil, []string{"--listen", "0.0.0.0:0", "--token-file", os.DevNull}, "is empty"},
		{"no sessions", nil, []string{"--listen", "127.0.0.1:0", "--max-sessions", "0"}, "--max-sessions at least 1"},
		{"no sessions from the environment", map[string]string{"CAD_MCP_MAX_SESSIONS": "0"}, []string{"--listen", "127.0.0.1:0"}, "--max-sessions at least 1"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, errs, code := runCLI(t, tt.env, "", tt.args...)
			if code != 2 || !strings.Contains(errs, tt.want) {
				t.Errorf("exit %d, stderr %q; want 2 and %q", code, errs, tt.want)
			}
		})
	}
}
