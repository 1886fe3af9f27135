package main

import (
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
