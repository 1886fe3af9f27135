package verify

import "testing"

func TestCheckStdout(t *testing.T) {
	tests := []struct {
		out  string
		good bool
	}{
		{`{"jsonrpc":"2.0","id":1,"result":{}}` + "\n", true},
		{`[{"jsonrpc":"2.0","id":1,"result":{}}]` + "\n", true},
		{`{"jsonrpc":"2.0","error":{"code":-32700,"message":"x"}}` + "\n", true},
		{"", true},
		{"starting\n", false},
		{`{"jsonrpc":"2.0","id":1,"result":{}}`, false}, // unterminated
		{`{"jsonrpc":"2.0","id":1,"result":{}}` + "\r\n", false},
		{`{"id":1,"result":{}}` + "\n", false},
		{"\n", false},
	}
	for _, tt := range tests {
		if bad := CheckStdout([]byte(tt.out)); (bad == "") != tt.good {
			t.Errorf("CheckStdout(%q) = %q, want good=%v", tt.out, bad, tt.good)
		}
	}
}
