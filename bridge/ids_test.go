package bridge

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/mcp-bridge/mcp-bridge/rpc"
	"github.com/mcp-bridge/mcp-bridge/tcpbase/simbase"
)

// answerID is the raw id of an answer line, byte for byte.
func answerID(t *testing.T, line string) string {
	t.Helper()
	r, ok := rpc.DecodeMessage([]byte(line)).Msg.(*rpc.Response)
	if !ok {
		t.Fatalf("not a response: %s", line)
	}
	return r.ID.String()
}

var clientIDs = []string{`"s1"`, `"7"`, `7`, `424242`, `1.0`, `12345678901234567890`, `"a\u00e9"`}

// A base that answers tools/call with another id (a number for a string,
// another number, null), on the result and the error path: the client
// always gets its own id back, byte for byte. (An answer with a null id
// answers no request: the client gets a "malformed" error.)
func TestForeignIDFromBaseOnCalls(t *testing.T) {
	h := newHarness(t, nil, nil)
	for _, kind := range []string{"swap", "other", "null"} {
		for _, isErr := range []bool{false, true} {
			for _, id := range clientIDs {
				h.send(call(id, "fault_foreign_id", fmt.Sprintf(`{"kind":%q,"error":%v}`, kind, isErr)))
				line := h.recv()
				if got := answerID(t, line); got != id {
					t.Errorf("kind %s, error %v: client id %s came back as %s: %s", kind, isErr, id, got, line)
				}
				// A null id is no answer to any request: the bridge calls it malformed.
				wantErr := isErr || kind == "null"
				if wantErr && field(t, line, "error") == nil || !wantErr && field(t, line, "result") == nil {
					t.Errorf("kind %s, error %v: %s", kind, isErr, line)
				}
			}
		}
	}
	h.closeAndWait()
}

// The same on tools/list, in both eras.
func TestForeignIDFromBaseOnLists(t *testing.T) {
	for _, opts := range []simbase.Options{
		{ListID: json.RawMessage(`7`)},
		{ListID: json.RawMessage(`"L"`)},
		{ListID: json.RawMessage(`null`)},
		{ListID: json.RawMessage(`424242`), ListError: true},
		{ListID: json.RawMessage(`null`), ListError: true},
	} {
		t.Run(fmt.Sprintf("%s/%v", opts.ListID, opts.ListError), func(t *testing.T) {
			sim, err := simbase.Start("127.0.0.1:0", opts)
			if err != nil {
				t.Fatal(err)
			}
			defer sim.Close()
			h := newHarness(t, sim, nil)
			for _, id := range append(clientIDs, `"L"`) {
				for _, list := range []string{`{"jsonrpc":"2.0","id":` + id + `,"method":"tools/list"}`, modernList(id)} {
					h.send(list)
					line := h.recv()
					if got := answerID(t, line); got != id {
						t.Errorf("client id %s came back as %s: %.200s", id, got, line)
					}
					wantErr := opts.ListError || string(opts.ListID) == "null"
					if wantErr && field(t, line, "error") == nil || !wantErr && field(t, line, "result.tools") == nil {
						t.Errorf("%.200s", line)
					}
				}
			}
			h.closeAndWait()
		})
	}
}
