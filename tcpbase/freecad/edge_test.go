package freecad

import (
	"encoding/json"
	"io"
	"net"
	"os"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/mcp-bridge/mcp-bridge/tcpbase/simbase"
)

// edgeCases are the protocol's edge cases, and what a base answers: the
// simulated base and FreeCAD alike. want "" means no answer at all: the
// base closes the connection without writing a byte.
var edgeCases = []struct {
	name      string
	frame     string
	noNewline bool // send the frame without "\n", then close our side
	want      string
}{
	{name: "unknown method",
		frame: `{"jsonrpc":"2.0","id":1,"method":"prompts/list"}`,
		want:  `{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"Method not found: prompts/list"}}`},
	{name: "notification",
		frame: `{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		want:  ``},
	{name: "notification for a tool call",
		frame: `{"jsonrpc":"2.0","method":"tools/call","params":{"name":"get_drawing_info","arguments":{}}}`,
		want:  ``},
	{name: "unknown tool",
		frame: `{"jsonrpc":"2.0","id":"u","method":"tools/call","params":{"name":"make_coffee","arguments":{}}}`,
		want:  `{"jsonrpc":"2.0","id":"u","error":{"code":-32602,"message":"Unknown tool: make_coffee"}}`},
	{name: "bad arguments: out of range",
		frame: `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"draw_circle","arguments":{"center":{"x":0,"y":0},"radius":-1}}}`,
		want:  `{"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"Invalid arguments for draw_circle: 'radius' must be greater than 0"}],"isError":true}}`},
	{name: "bad arguments: missing",
		frame: `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"draw_line","arguments":{"start":{"x":0,"y":0}}}}`,
		want:  `{"jsonrpc":"2.0","id":3,"result":{"content":[{"type":"text","text":"Invalid arguments for draw_line: missing required argument 'end'"}],"isError":true}}`},
	{name: "bad arguments: wrong type deep inside",
		frame: `{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"draw_polyline","arguments":{"points":[{"x":0,"y":0},{"x":"1","y":2}]}}}`,
		want:  `{"jsonrpc":"2.0","id":4,"result":{"content":[{"type":"text","text":"Invalid arguments for draw_polyline: 'points[1].x' must be a number"}],"isError":true}}`},
	{name: "bad arguments: unknown argument",
		frame: `{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"undo","arguments":{"steps":1,"all":true}}}`,
		want:  `{"jsonrpc":"2.0","id":5,"result":{"content":[{"type":"text","text":"Invalid arguments for undo: unknown argument 'all'"}],"isError":true}}`},
	{name: "bad arguments: not a whole number",
		frame: `{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"redo","arguments":{"steps":1.5}}}`,
		want:  `{"jsonrpc":"2.0","id":6,"result":{"content":[{"type":"text","text":"Invalid arguments for redo: 'steps' must be a whole number"}],"isError":true}}`},
	{name: "tools/call without a name",
		frame: `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"arguments":{}}}`,
		want:  `{"jsonrpc":"2.0","id":7,"error":{"code":-32602,"message":"Invalid params: tools/call needs {\"name\": string, \"arguments\": object}"}}`},
	{name: "frame without newline, then close",
		frame: `{"jsonrpc":"2.0","id":"nl","method":"resources/list"}`, noNewline: true,
		want: `{"jsonrpc":"2.0","id":"nl","error":{"code":-32601,"message":"Method not found: resources/list"}}`},
	{name: "unknown tool without newline, then close",
		frame: `{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"nope","arguments":{}}}`, noNewline: true,
		want: `{"jsonrpc":"2.0","id":8,"error":{"code":-32602,"message":"Unknown tool: nope"}}`},
	{name: "invalid JSON",
		frame: `{"jsonrpc":"2.0","id":1,`,
		want:  `{"jsonrpc":"2.0","error":{"code":-32700,"message":"Parse error: not valid JSON"}}`},
	{name: "not JSON-RPC 2.0",
		frame: `{"jsonrpc":"1.0","id":"old","method":"tools/list"}`,
		want:  `{"jsonrpc":"2.0","id":"old","error":{"code":-32600,"message":"Invalid Request: \"jsonrpc\" must be \"2.0\""}}`},
	{name: "large id echoed exactly",
		frame: `{"jsonrpc":"2.0","id":12345678901234567890,"method":"x"}`,
		want:  `{"jsonrpc":"2.0","id":12345678901234567890,"error":{"code":-32601,"message":"Method not found: x"}}`},
	{name: "fractional id echoed exactly",
		frame: `{"jsonrpc":"2.0","id":1.0,"method":"x"}`,
		want:  `{"jsonrpc":"2.0","id":1.0,"error":{"code":-32601,"message":"Method not found: x"}}`},
}

// TestEdgeCases runs the table against the simulated base, and against
// FreeCAD when CAD_MCP_FREECAD_ADDR names it: both must answer alike.
func TestEdgeCases(t *testing.T) {
	sim, err := simbase.Start("127.0.0.1:0", simbase.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer sim.Close()
	bases := map[string]string{"simbase": sim.Addr()}
	if addr := os.Getenv("CAD_MCP_FREECAD_ADDR"); addr != "" {
		bases["freecad"] = addr
	}
	for base, addr := range bases {
		for _, tc := range edgeCases {
			t.Run(base+"/"+tc.name, func(t *testing.T) {
				got := exchange(t, addr, tc.frame, tc.noNewline)
				if tc.want == "" {
					if got != "" {
						t.Fatalf("want no answer, got %s", got)
					}
					return
				}
				if diff := cmp.Diff(decode(t, tc.want), decode(t, got)); diff != "" {
					t.Errorf("answer (-want +got):\n%s\ngot %s", diff, got)
				}
				if wid, gid := rawID(tc.want), rawID(got); wid != gid {
					t.Errorf("id %s came back as %s", wid, gid)
				}
			})
		}
	}
}

// exchange sends one frame on a fresh connection and reads until the base
// closes it.
func exchange(t *testing.T, addr, frame string, noNewline bool) string {
	t.Helper()
	c, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(60 * time.Second))
	if !noNewline {
		frame += "\n"
	}
	if _, err := io.WriteString(c, frame); err != nil {
		t.Fatal(err)
	}
	if noNewline {
		if err := c.(*net.TCPConn).CloseWrite(); err != nil {
			t.Fatal(err)
		}
	}
	b, err := io.ReadAll(c)
	if err != nil {
		t.Fatalf("reading the answer: %v (got %q)", err, b)
	}
	return string(b)
}

func decode(t *testing.T, s string) any {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		t.Fatalf("not JSON: %v: %s", err, s)
	}
	return v
}

// rawID is the id's JSON text, byte for byte ("" when there is none).
func rawID(s string) string {
	var m map[string]json.RawMessage
	_ = json.Unmarshal([]byte(s), &m)
	return string(m["id"])
}
