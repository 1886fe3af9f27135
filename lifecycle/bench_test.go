package lifecycle

import (
	"strings"
	"testing"

	"github.com/mcp-bridge/mcp-bridge/rpc"
)

func BenchmarkDecorateCall(b *testing.B) {
	s := NewServer("mcp-bridge", "1.0.0", "", true)
	result := []byte(`{"content":[{"type":"text","text":"Line 101 drawn from (0, 0) to (10, 0), length 10."}],"isError":false}`)
	b.ReportAllocs()
	for b.Loop() {
		_ = s.Decorate("tools/call", result)
	}
}

func BenchmarkDecorateList(b *testing.B) {
	s := NewServer("mcp-bridge", "1.0.0", "", true)
	tool := `{"name":"draw_line","description":"Draw a line.","inputSchema":{"type":"object","properties":{"start":{"type":"object"}}}}`
	result := []byte(`{"tools":[` + strings.TrimSuffix(strings.Repeat(tool+",", 26), ",") + `]}`)
	b.ReportAllocs()
	b.SetBytes(int64(len(result)))
	for b.Loop() {
		_ = s.Decorate("tools/list", result)
	}
}

// BenchmarkReadRequest: a 2026-07-28 tools/call decoded.
func BenchmarkReadRequest(b *testing.B) {
	params := []byte(`{"name":"x","arguments":{},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}`)
	b.ReportAllocs()
	for b.Loop() {
		_ = ReadRequest(rpc.ID{}, MethodToolsCall, params)
	}
}
