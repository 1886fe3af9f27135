package main

import (
	"bufio"
	"context"
	"io"
	"net"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestLimitsFromTheCommandLine: `mcp-bridge sim --limit-tools` serves
// sim_listing, and a bridge given --max-result-bytes (or its variable)
// keeps a 1 MiB listing to it, where one without passes it whole.
func TestLimitsFromTheCommandLine(t *testing.T) {
	pr, pw := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	e := &env{args: []string{"sim", "--port", "0", "--limit-tools"}, getenv: func(string) string { return "" }, stdin: strings.NewReader(""), stdout: pw, stderr: io.Discard}
	done := make(chan error, 1)
	go func() { done <- run(ctx, e); pw.Close() }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("sim: %v", err)
		}
	})
	sc := bufio.NewScanner(pr)
	var port string
	for sc.Scan() {
		if addr, ok := strings.CutPrefix(sc.Text(), "listening on "); ok {
			_, port, _ = net.SplitHostPort(addr)
			break
		}
	}
	go io.Copy(io.Discard, pr)
	if port == "" {
		t.Fatal("the simulated base did not listen")
	}
	const session = `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"some-client","version":"1"}}}
{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"sim_listing","arguments":{"bytes":1048576}}}
`
	answer := func(vars map[string]string, args ...string) string {
		t.Helper()
		out, errs, code := runCLI(t, vars, session, append([]string{"--port", port, "--no-cache"}, args...)...)
		lines := strings.Split(strings.TrimSpace(out), "\n")
		if code != 0 || len(lines) != 2 || !strings.HasPrefix(lines[1], `{"jsonrpc":"2.0","id":1,"result":`) {
			t.Fatalf("exit %d, %d lines: %.300s\n%s", code, len(lines), out, errs)
		}
		return lines[1]
	}
	if line := answer(nil); len(line) < 1<<20 || strings.Contains(line, "mcp-bridge: the text above was cut") {
		t.Errorf("without a limit: %d bytes, want the whole listing", len(line))
	}
	for _, tt := range []struct {
		vars map[string]string
		args []string
	}{
		{nil, []string{"--max-result-bytes", "200000"}},
		{map[string]string{"CAD_MCP_MAX_RESULT_BYTES": "200000"}, nil},
	} {
		if line := answer(tt.vars, tt.args...); len(line) > 200000 || !strings.Contains(line, "mcp-bridge: the text above was cut") {
			t.Errorf("%v %v: %d bytes, want at most 200000, saying it was cut", tt.vars, tt.args, len(line))
		}
	}
}

// TestPrintConfigKeepsLimits: the entry --print-config (and install)
// writes carries the limits' settings, from the command line or from the
// environment, as it does the others'.
func TestPrintConfigKeepsLimits(t *testing.T) {
	for _, tt := range []struct {
		vars map[string]string
		args []string
	}{
		{nil, []string{"--max-result-bytes", "200000", "--answer-within", "90s"}},
		{map[string]string{"CAD_MCP_MAX_RESULT_BYTES": "200000", "CAD_MCP_ANSWER_WITHIN": "90s"}, nil},
	} {
		out, errs, code := runCLI(t, tt.vars, "", append([]string{"--print-config"}, tt.args...)...)
		args, _ := server(t, out)["args"].([]any)
		want := []any{"--answer-within", "1m30s", "--max-result-bytes", "200000"}
		if code != 0 || !cmp.Equal(want, args) {
			t.Errorf("%v %v: exit %d, args %v, want %v\n%s", tt.vars, tt.args, code, args, want, errs)
		}
	}
	out, _, _ := runCLI(t, nil, "", "--print-config")
	if strings.Contains(out, "max-result-bytes") || strings.Contains(out, "answer-within") {
		t.Errorf("not set, the entry names them:\n%s", out)
	}
}
