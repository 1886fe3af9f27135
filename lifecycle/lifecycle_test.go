package lifecycle

import (
	"testing"

	"github.com/mcp-bridge/mcp-bridge/rpc"
)

func TestDecorate(t *testing.T) {
	s := NewServer("b", "1", "", false)
	const si = `"io.modelcontextprotocol/serverInfo":{"name":"b","version":"1"}`
	tests := []struct{ method, in, want string }{
		{"tools/call", `{"content":[]}`, `{"content":[],"resultType":"complete","_meta":{` + si + `}}`},
		{"tools/list", `{"tools":[]}`, `{"tools":[],"resultType":"complete","ttlMs":0,"cacheScope":"private","_meta":{` + si + `}}`},
		{"tools/call", `{"content":[],"_meta":{"k":1}}`, `{"content":[],"resultType":"complete","_meta":{"k":1,` + si + `}}`},
		{"tools/list", `{"tools":[],"ttlMs":5,"resultType":"complete"}`, `{"tools":[],"ttlMs":5,"resultType":"complete","cacheScope":"private","_meta":{` + si + `}}`},
		{"tools/call", `[1]`, `[1]`},
	}
	for _, tt := range tests {
		if got := string(s.Decorate(tt.method, []byte(tt.in))); got != tt.want {
			t.Errorf("Decorate(%s, %s)\ngot  %s\nwant %s", tt.method, tt.in, got, tt.want)
		}
	}
}

// TestEraOf: the decoder takes a request for a modern one exactly when
// params._meta names a version as a string.
func TestEraOf(t *testing.T) {
	tests := []struct {
		params string
		era    Era
		v      string
	}{
		{``, Legacy, ""},
		{`{}`, Legacy, ""},
		{`{"_meta":{}}`, Legacy, ""},
		{`{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}`, Modern, "2026-07-28"},
		{`{"_meta":{"io.modelcontextprotocol/protocolVersion":"x"}}`, Modern, "x"},
		{`{"_meta":{"io.modelcontextprotocol/protocolVersion":1}}`, Legacy, ""},
		{`{"_meta":{"IO.modelcontextprotocol/protocolVersion":"2026-07-28"}}`, Legacy, ""},
		{`[1]`, Legacy, ""},
	}
	for _, tt := range tests {
		var params []byte
		if tt.params != "" {
			params = []byte(tt.params)
		}
		r := ReadRequest(rpc.ID{}, MethodPing, params)
		if r.Era != tt.era || r.Version != tt.v {
			t.Errorf("ReadRequest(%s) era %v %q, want %v %q", tt.params, r.Era, r.Version, tt.era, tt.v)
		}
	}
}
