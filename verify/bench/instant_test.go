package bench

import (
	"io"
	"net"
	"strings"
	"testing"
)

// TestInstantBase: the pipelined figure's base answers each frame on its
// own connection with the frame's id, as written, and a result (no tools
// for tools/list), so that a relay's answers can be checked for order.
func TestInstantBase(t *testing.T) {
	addr, stop, err := instantBase()
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	for frame, want := range map[string]string{
		`{"jsonrpc":"2.0","id":17,"method":"tools/call","params":{"name":"x"}}`: `{"jsonrpc":"2.0","id":17,"result":{"content":[{"type":"text","text":"ok"}]}}` + "\n",
		`{"jsonrpc":"2.0","id":"a b","method":"tools/list"}`:                    `{"jsonrpc":"2.0","id":"a b","result":{"tools":[]}}` + "\n",
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`:                "",
	} {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		io.WriteString(c, frame+"\n")
		got, err := io.ReadAll(c)
		c.Close()
		if err != nil || string(got) != want {
			t.Errorf("%s:\n got %q, %v\nwant %q", frame, got, err, want)
		}
	}
	if !strings.Contains(addr, "127.0.0.1:") {
		t.Errorf("listens on %s, not loopback", addr)
	}
}
