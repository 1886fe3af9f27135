package bridge

import (
	"bytes"
	"context"
	"io"
	"strings"
	"testing"

	"github.com/rs/zerolog"

	"github.com/mcp-bridge/mcp-bridge/rpc"
)

// echoBase answers every frame at once with a result carrying the frame's
// id, or an error or garbage when the tool name asks for it.
func echoBase(_ context.Context, frame []byte) ([]byte, error) {
	id := rpc.Field(frame, "id")
	switch {
	case bytes.Contains(frame, []byte(`"err"`)):
		return append(append([]byte(`{"jsonrpc":"2.0","id":`), id...), `,"error":{"code":-32602,"message":"Unknown tool: err"}}`...), nil
	case bytes.Contains(frame, []byte(`"junk"`)):
		return []byte(`[1,2]`), nil
	case bytes.Contains(frame, []byte(`"latin1"`)):
		return append(append([]byte(`{"jsonrpc":"2.0","id":`), id...), ",\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"caf\xe9 \xff\"}]}}"...), nil
	}
	return append(append([]byte(`{"jsonrpc":"2.0","id":`), id...), `,"result":{"tools":[{"name":"t"}],"content":[]}}`...), nil
}

// FuzzDispatch feeds arbitrary input to the whole bridge and checks, from
// the client's side, what must always hold: no panic, every stdout line
// valid UTF-8 JSON and one JSON-RPC message (or batch), at most one
// response per request, none for notifications.
func FuzzDispatch(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18"}}`,
		`{"jsonrpc":"2.0","id":"a","method":"tools/call","params":{"name":"x","arguments":{}}}` + "\n" + `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"a"}}`,
		`[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","id":2,"method":"tools/list"},{"jsonrpc":"2.0","method":"x"}]`,
		`{"jsonrpc":"2.0","id":3,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`,
		`{"jsonrpc":"2.0","id":4,"method":"subscriptions/listen","params":{"notifications":{"toolsListChanged":true},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`,
		`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"err"}}` + "\r\n" + `{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"junk"}}`,
		"\xef\xbb\xbf[]\n\n{\"jsonrpc\":\"2.0\",\"id\":null}\n[1,{}]\ngarbage",
		"{\"jsonrpc\":\"2.0\",\"id\":\"a\xff\xfeb\",\"method\":\"tools/call\",\"params\":{\"name\":\"latin1\"}}",
		`{"jsonrpc":"2.0","id":7,"method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"1"}}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, input []byte) {
		var logs bytes.Buffer
		var out bytes.Buffer
		cfg := Config{
			Base: baseFunc(echoBase), BaseAddr: "fuzz", MaxMessage: 4096,
			Log: zerolog.New(zerolog.SyncWriter(&logs)).Level(zerolog.ErrorLevel),
		}
		if err := Run(context.Background(), cfg, bytes.NewReader(input), zerolog.SyncWriter(&out)); err != nil {
			t.Fatalf("Run: %v", err)
		}
		if strings.Contains(logs.String(), "panic") {
			t.Fatalf("a panic was recovered: %s", logs.String())
		}

		// What the client asked: requests per id.
		requests := map[string]int{}
		noID := 0 // items that can only be answered without an id
		lr := rpc.NewLineReader(bytes.NewReader(input), 4096)
		for {
			line, err := lr.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				noID++
				continue
			}
			ds, _ := rpc.DecodeLine(line)
			for _, d := range ds {
				if r, ok := d.Msg.(*rpc.Request); ok {
					requests[wireID(r.ID)]++
				} else if d.Err != nil {
					if d.ID.IsZero() {
						noID++
					} else {
						requests[wireID(d.ID)]++
					}
				}
			}
		}

		// What the client got.
		responses := map[string]int{}
		for _, line := range strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n") {
			if line == "" {
				continue
			}
			if !isMessageLine(line) || strings.Contains(line, "\r") {
				t.Fatalf("output line is not one JSON-RPC message: %q", line)
			}
			ds, _ := rpc.DecodeLine([]byte(line))
			for _, d := range ds {
				r, ok := d.Msg.(*rpc.Response)
				if !ok {
					continue // a notification to the client
				}
				if r.ID.IsZero() {
					noID--
					continue
				}
				responses[r.ID.String()]++
			}
		}
		for id, n := range responses {
			if n > requests[id] {
				t.Fatalf("id %s: %d responses for %d requests\ninput %q\noutput %s", id, n, requests[id], input, out.String())
			}
		}
		if noID < 0 {
			t.Fatalf("more id-less error answers than unreadable messages\ninput %q\noutput %s", input, out.String())
		}
	})
}

// wireID is id as the bridge writes it (invalid UTF-8 replaced).
func wireID(id rpc.ID) string {
	d := rpc.DecodeMessage(rpc.AppendResult(nil, id, []byte("0")))
	return d.Msg.(*rpc.Response).ID.String()
}
