package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// runCLI runs the program in-process and returns stdout, stderr and the
// exit code main would use.
func runCLI(t *testing.T, vars map[string]string, stdin string, args ...string) (string, string, int) {
	t.Helper()
	var out, errb bytes.Buffer
	e := &env{args: args, getenv: func(k string) string { return vars[k] }, stdin: strings.NewReader(stdin), stdout: &out, stderr: &errb}
	code := exitCode(run(context.Background(), e), &errb)
	return out.String(), errb.String(), code
}

func TestPrintConfigShapes(t *testing.T) {
	exe, _ := os.Executable()
	exe, _ = filepath.EvalSymlinks(exe)
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

func TestUsageErrors(t *testing.T) {
	tests := []struct {
		env  map[string]string
		args []string
		want string
	}{
		{nil, []string{"--port", "0"}, "--port 0: must be 1-65535"},
		{nil, []string{"--nope"}, "unknown flag: --nope"},
		{nil, []string{"frobnicate"}, `unknown command "frobnicate"`},
		{map[string]string{"CAD_MCP_PORT": "eighty"}, nil, `environment CAD_MCP_PORT="eighty"`},
		{nil, []string{"--log-level", "loud"}, `--log-level "loud"`},
		{nil, []string{"--print-config", "--client", "emacs"}, `--client "emacs"`},
		{nil, []string{"--call-timeout", "0s"}, "--call-timeout 0s: must be positive"},
	}
	for _, tt := range tests {
		_, errs, code := runCLI(t, tt.env, "", tt.args...)
		if code != 2 || !strings.Contains(errs, tt.want) {
			t.Errorf("%v %v: exit %d, stderr %q; want 2 and %q", tt.env, tt.args, code, errs, tt.want)
		}
	}
}

func TestHelpAndVersion(t *testing.T) {
	_, errs, code := runCLI(t, nil, "", "--help")
	if code != 0 || !strings.Contains(errs, "Examples:") || !strings.Contains(errs, "--print-config") {
		t.Errorf("--help: exit %d\n%s", code, errs)
	}
	out, _, code := runCLI(t, nil, "", "--version")
	if code != 0 || !strings.HasPrefix(out, "mcp-bridge ") {
		t.Errorf("--version: exit %d %q", code, out)
	}
}

func TestBridgeModeStdoutOnlyProtocol(t *testing.T) {
	// Nothing listens on port 1: the call fails, the bridge still answers.
	in := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18"}}` + "\n" +
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"x"}}` + "\n"
	out, errs, code := runCLI(t, map[string]string{"CAD_MCP_PORT": "1", "CAD_MCP_LOG_LEVEL": "debug"}, in)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if len(lines) != 2 || !strings.Contains(lines[1], `"code":-32603`) {
		t.Fatalf("stdout: %q", out)
	}
	if !strings.Contains(errs, "CAD base is down") {
		t.Errorf("the log on stderr does not say the base is down:\n%s", errs)
	}
}

func TestLogFileIsPrivate(t *testing.T) {
	path := filepath.Join(tempDir(t), "bridge.log")
	_, errs, code := runCLI(t, nil, "", "--log-file", path)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	// Windows has no mode bits: TestLogFileACL checks its access list.
	if perm := st.Mode().Perm(); perm != 0o600 && runtime.GOOS != "windows" {
		t.Errorf("log file mode %o, want 600", perm)
	}
	b, _ := os.ReadFile(path)
	if !strings.Contains(string(b), "mcp-bridge serving on stdio") || strings.Contains(errs, "serving") {
		t.Errorf("log went to the wrong place: file %q, stderr %q", b, errs)
	}
}

func TestNonLoopbackBaseWarns(t *testing.T) {
	// No request is sent, so nothing connects anywhere.
	_, errs, code := runCLI(t, nil, "", "--host", "cad-workstation.example", "--log-level", "warn")
	if code != 0 || !strings.Contains(errs, "no authentication or encryption") {
		t.Errorf("exit %d, stderr %q", code, errs)
	}
	_, errs, _ = runCLI(t, nil, "", "--host", "localhost", "--log-level", "warn")
	if strings.Contains(errs, "authentication") {
		t.Errorf("warned about localhost: %q", errs)
	}
}

// tempDir is t.TempDir, emptied with plain deletes before testing removes
// it. Under Wine 8 (make test-windows) Go's os.RemoveAll fails on anything
// but an empty directory ("Invalid function": Wine lacks the
// NtSetInformationFile class 64 Go deletes with, and Go falls back only on
// other statuses); os.Remove works there.
func tempDir(t *testing.T) string {
	dir := t.TempDir()
	t.Cleanup(func() {
		var paths []string
		filepath.WalkDir(dir, func(p string, _ fs.DirEntry, err error) error {
			paths = append(paths, p)
			return nil
		})
		for i := len(paths) - 1; i >= 0; i-- {
			os.Remove(paths[i])
		}
	})
	return dir
}
