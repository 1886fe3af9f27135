package main

import (
	"encoding/json"
	"os"
	"strings"
	"testing"
)

// TestConnectUsage: connect's mistakes are usage errors (exit 2) that say
// what to give, before anything is sent.
func TestConnectUsage(t *testing.T) {
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"connect"}, "connect takes one URL"},
		{[]string{"connect", "cad-pc:8931"}, "is not an http:// or https:// URL"},
		{[]string{"connect", "https://user:pw@cad-pc:8931/mcp"}, "give the token with --token-file"},
		{[]string{"connect", "https://cad-pc:8931/mcp", "--fingerprint", "ab:cd"}, "want sha256: followed by 64 hex digits"},
		{[]string{"connect", "https://cad-pc:8931/mcp", "--ca", "/nonexistent/ca.pem"}, "--ca"},
		{[]string{"connect", "https://cad-pc:8931/mcp", "--token-file", "/nonexistent/token"}, "--token-file"},
		{[]string{"conect", "https://cad-pc:8931/mcp"}, "did you mean connect?"},
	} {
		_, errs, code := runCLI(t, nil, "", tt.args...)
		if code != 2 || !strings.Contains(errs, tt.want) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", tt.args, code, errs, tt.want)
		}
	}
}

// TestDoctorConnectRegistration: a client entry that starts `mcp-bridge
// connect URL …` (recognised here by its CAD_MCP_PORT: the test binary is
// not named mcp-bridge) is no problem for doctor: the command runs with its
// settings (connect --version checks them), and the note says the remote
// is not checked yet.
func TestDoctorConnectRegistration(t *testing.T) {
	_, env, write := doctorHome(t)
	exe, _ := os.Executable()
	cmd, _ := json.Marshal(exe)
	fp := "sha256:" + strings.Repeat("ab", 32)
	write(".cursor/mcp.json", `{"mcpServers":{"cad":{"command":`+string(cmd)+`,"args":["connect","https://cad-pc:8931/mcp","--fingerprint","`+fp+`"],"env":{"CAD_MCP_PORT":"1"}}}}`)
	out, _, _ := runCLI(t, env, "", "doctor", "--port", startSim(t))
	if !strings.Contains(out, `ok    Cursor registers "cad"`) || !strings.Contains(out, "relays to https://cad-pc:8931/mcp") {
		t.Errorf("doctor with a connect registration:\n%s", out)
	}
	// What doctor runs to check the settings: connect --version checks
	// them first.
	if out, errs, code := runCLI(t, nil, "", "connect", "https://cad-pc:8931/mcp", "--fingerprint", fp, "--version"); code != 0 || out != "mcp-bridge dev\n" {
		t.Errorf("connect --version: exit %d, %q %q", code, out, errs)
	}
	if _, errs, code := runCLI(t, nil, "", "connect", "https://cad-pc:8931/mcp", "--fingerprint", "sha256:00", "--version"); code != 2 || !strings.Contains(errs, "--fingerprint") {
		t.Errorf("connect --version with a bad fingerprint: exit %d, %q", code, errs)
	}
}
