package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/mcp-bridge/mcp-bridge/tcpbase/launch/launchtest"
	"github.com/mcp-bridge/mcp-bridge/verify/testdir"
)

// syncBuffer is stdout or stderr for a run in-process: the bridge's
// goroutines (reader, worker, prober) log at once, which os.Stderr takes
// (one write each) and a bare bytes.Buffer does not (a data race in the
// test, seen under -race about once in 150 runs).
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// runCLI runs the program in-process and returns stdout, stderr and the
// exit code main would use.
func runCLI(t *testing.T, vars map[string]string, stdin string, args ...string) (string, string, int) {
	t.Helper()
	var out, errb syncBuffer
	e := &env{args: args, getenv: func(k string) string { return vars[k] }, stdin: strings.NewReader(stdin), stdout: &out, stderr: &errb}
	code := exitCode(run(context.Background(), e), &errb)
	return out.String(), errb.String(), code
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
		{nil, []string{"--log-level", "trace"}, `--log-level "trace": want debug, info, warn or error`},
		{map[string]string{"CAD_MCP_LOG_LEVEL": "disabled"}, nil, `--log-level "disabled"`},
		{nil, []string{"sim", "--port", "-5"}, "--port -5: must be 0-65535"},
		{nil, []string{"sim", "--addr", "nonsense"}, `--addr "nonsense"`},
	}
	for _, tt := range tests {
		_, errs, code := runCLI(t, tt.env, "", tt.args...)
		if code != 2 || !strings.Contains(errs, tt.want) {
			t.Errorf("%v %v: exit %d, stderr %q; want 2 and %q", tt.env, tt.args, code, errs, tt.want)
		}
	}
}

func TestHelpAndVersion(t *testing.T) {
	out, errs, code := runCLI(t, nil, "", "--help")
	if code != 0 || !strings.Contains(out, "Set up and check:") || !strings.Contains(out, "--print-config") {
		t.Errorf("--help: exit %d\n%s%s", code, out, errs)
	}
	out, _, code = runCLI(t, nil, "", "--version")
	if code != 0 || !strings.HasPrefix(out, "mcp-bridge ") {
		t.Errorf("--version: exit %d %q", code, out)
	}
}

func TestActionFlagsAreNotReadFromTheEnvironment(t *testing.T) {
	// A registered server carries CAD_MCP_* in its env block: only settings
	// may come from there, never what the program does.
	for _, v := range []string{"CAD_MCP_PRINT_CONFIG", "CAD_MCP_VERSION"} {
		out, errs, code := runCLI(t, map[string]string{v: "true", "CAD_MCP_PORT": "1"}, "")
		if code != 0 || out != "" {
			t.Errorf("%s=true: exit %d, stdout %q (want the bridge, which says nothing at EOF); stderr %s", v, code, out, errs)
		}
	}
	out, errs, code := runCLI(t, map[string]string{"CAD_MCP_CLIENT": "vscode", "CAD_MCP_NAME": "other"}, "", "--print-config")
	var doc struct{ MCPServers map[string]any }
	_ = json.Unmarshal([]byte(out), &doc)
	if code != 0 || doc.MCPServers["cad-autocad"] == nil {
		t.Errorf("CAD_MCP_CLIENT and CAD_MCP_NAME changed --print-config: exit %d, %s%s", code, out, errs)
	}
}

// tempDir is testdir.New: a t.TempDir that Wine can remove.
var tempDir = testdir.New

// TestMain lets a test start this test binary as the program itself: with
// MCP_BRIDGE_TEST_AS_MAIN=1 in its env it is mcp-bridge (doctor's tests
// register it as a client would; TestInstalledUnderProgramFiles installs a
// copy of it). As a fake CAD program (launchtest) it is what the launch
// tests start.
func TestMain(m *testing.M) {
	launchtest.Main(os.Stdout, os.Stderr) // first: a fake CAD program a bridge started inherits MCP_BRIDGE_TEST_AS_MAIN
	if os.Getenv("MCP_BRIDGE_TEST_AS_MAIN") == "1" {
		main()
		return
	}
	os.Exit(m.Run())
}
