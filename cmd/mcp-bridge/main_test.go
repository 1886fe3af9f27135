package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
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
