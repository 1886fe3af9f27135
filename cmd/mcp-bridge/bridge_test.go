package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

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
	path := filepath.Join(t.TempDir(), "bridge.log")
	_, errs, code := runCLI(t, nil, "", "--log-file", path)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if perm := st.Mode().Perm(); perm != 0o600 {
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

// TestLogFileThatIsStdoutRefused: logs written to the file that is the
// bridge's stdout would corrupt the protocol stream (--log-file /dev/stdout).
func TestLogFileThatIsStdoutRefused(t *testing.T) {
	path := filepath.Join(t.TempDir(), "stdout")
	stdout, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer stdout.Close()
	link := filepath.Join(t.TempDir(), "link")
	if err := os.Symlink(path, link); err != nil {
		t.Fatal(err)
	}
	for _, logFile := range []string{path, link} {
		var errb strings.Builder
		e := &env{args: []string{"--log-file", logFile}, getenv: func(string) string { return "" }, stdin: strings.NewReader(""), stdout: stdout, stderr: &errb}
		code := exitCode(run(context.Background(), e), &errb)
		if code != 2 || !strings.Contains(errb.String(), "is the bridge's stdout") {
			t.Errorf("--log-file %s: exit %d, stderr %q; want 2 and a refusal", logFile, code, errb.String())
		}
	}
	if b, _ := os.ReadFile(path); len(b) != 0 {
		t.Errorf("stdout got %q", b)
	}
}
