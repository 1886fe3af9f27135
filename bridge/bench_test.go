package bridge

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"testing"

	"github.com/mcp-bridge/mcp-bridge/bridge/internal/bridgetest"
	"github.com/mcp-bridge/mcp-bridge/lifecycle"
	"github.com/mcp-bridge/mcp-bridge/rpc"
	"github.com/mcp-bridge/mcp-bridge/tcpbase"
)

// BenchmarkBaseFrame: the client's request read and encoded as the base gets it.
func BenchmarkBaseFrame(b *testing.B) {
	ds, _ := rpc.DecodeLine([]byte(`{"jsonrpc":"2.0","id":42,"method":"tools/call","params":{"name":"draw_line","arguments":{"start":{"x":0,"y":0}},"_meta":{"progressToken":7}}}`))
	req := ds[0].Msg.(*rpc.Request)
	b.ReportAllocs()
	for b.Loop() {
		_ = baseFrame(lifecycle.ReadRequest(req.ID, req.Method, req.Params))
	}
}

// BenchmarkForward measures one forwarded request end to end in-process:
// stdin pipe → Run → sim over loopback → stdout pipe; tools/list with the
// cache on, as it is by default.
func BenchmarkForward(b *testing.B) {
	call := func(tool, args string) string {
		return fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":%q,"arguments":%s}}`, tool, args)
	}
	for _, tc := range []struct{ name, line string }{
		{"small", call("get_drawing_info", `{}`)},
		{"1MiB", call("fault_big", `{"mib":1}`)},
		{"list", `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`},
	} {
		b.Run(tc.name, func(b *testing.B) {
			inW, out := stdioBridge(b)
			line := []byte(tc.line + "\n")
			b.ReportAllocs()
			for b.Loop() {
				if _, err := inW.Write(line); err != nil {
					b.Fatal(err)
				}
				if _, err := out.ReadSlice('\n'); err != nil && err != bufio.ErrBufferFull {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkPipelined keeps 16 small calls in flight on one stdin pipe, a
// new one sent as each answer arrives, as the bench's throughput figure
// does; each loop is one call.
func BenchmarkPipelined(b *testing.B) {
	const window = 16
	inW, out := stdioBridge(b)
	send := make(chan struct{}, window)
	for range window {
		send <- struct{}{}
	}
	go func() {
		var line []byte
		for i := 0; ; i++ {
			if _, ok := <-send; !ok {
				return
			}
			line = fmt.Appendf(line[:0], `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"get_drawing_info","arguments":{}}}`+"\n", i)
			if _, err := inW.Write(line); err != nil {
				return
			}
		}
	}()
	b.ReportAllocs()
	for b.Loop() {
		ans, err := out.ReadSlice('\n')
		if err != nil || !bytes.Contains(ans, []byte(`"result"`)) {
			b.Fatalf("%v %s", err, ans)
		}
		send <- struct{}{}
	}
	close(send)
}

// stdioBridge runs Run in-process on pipes against a simulated base of its
// own, with the tool list cache on as it is by default, until the
// benchmark ends: stdin closed, the answers still owed read and dropped.
func stdioBridge(b *testing.B) (stdin *io.PipeWriter, stdout *bufio.Reader) {
	sim := bridgetest.StartSim(b)
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	cfg := Config{Base: &tcpbase.Client{Addr: sim.Addr()}, BaseAddr: sim.Addr(), CacheDir: b.TempDir()}
	done := make(chan error, 1)
	go func() { done <- Run(context.Background(), cfg, inR, outW); outW.Close() }()
	b.Cleanup(func() {
		inW.Close()
		_, _ = io.Copy(io.Discard, outR)
		<-done
	})
	return inW, bufio.NewReaderSize(outR, 4<<20)
}
