package bridge

import (
	"testing"

	"github.com/mcp-bridge/mcp-bridge/rpc"
)

// BenchmarkBaseFrame: the client's request as the base gets it (_meta cut).
func BenchmarkBaseFrame(b *testing.B) {
	ds, _ := rpc.DecodeLine([]byte(`{"jsonrpc":"2.0","id":42,"method":"tools/call","params":{"name":"draw_line","arguments":{"start":{"x":0,"y":0}},"_meta":{"progressToken":7}}}`))
	req := ds[0].Msg.(*rpc.Request)
	b.ReportAllocs()
	for b.Loop() {
		_ = baseFrame(req)
	}
}
