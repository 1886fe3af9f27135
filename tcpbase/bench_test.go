package tcpbase_test

import (
	"context"
	"io"
	"net"
	"testing"
	"time"

	"github.com/mcp-bridge/mcp-bridge/tcpbase"
	"github.com/mcp-bridge/mcp-bridge/tcpbase/simbase"
)

var smallFrame = []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"get_drawing_info","arguments":{}}}`)

// BenchmarkCall is tcpbase's call; BenchmarkMinimalCall is the least any
// client can do (dial, write, read to close), for comparison.
func BenchmarkCall(b *testing.B) {
	sim, _ := simbase.Start("127.0.0.1:0", simbase.Options{})
	defer sim.Close()
	c := &tcpbase.Client{Addr: sim.Addr()}
	b.ReportAllocs()
	for b.Loop() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		if _, err := c.Call(ctx, smallFrame); err != nil {
			b.Fatal(err)
		}
		cancel()
	}
}

func BenchmarkMinimalCall(b *testing.B) {
	sim, _ := simbase.Start("127.0.0.1:0", simbase.Options{})
	defer sim.Close()
	b.ReportAllocs()
	for b.Loop() {
		conn, err := net.Dial("tcp", sim.Addr())
		if err != nil {
			b.Fatal(err)
		}
		conn.Write(append(smallFrame, '\n'))
		io.ReadAll(conn)
		conn.Close()
	}
}
