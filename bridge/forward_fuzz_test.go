package bridge

import (
	"bytes"
	"context"
	"encoding/json"
	"path/filepath"
	"sync"
	"testing"

	"github.com/rs/zerolog"

	"github.com/mcp-bridge/mcp-bridge/bridge/guard/journal"
	"github.com/mcp-bridge/mcp-bridge/bridge/guard/policy"
	"github.com/mcp-bridge/mcp-bridge/lifecycle"
	"github.com/mcp-bridge/mcp-bridge/rpc"
)

// fuzzTools is the fuzz base's tool list; fuzzPolicy denies some, asks
// about others.
const (
	fuzzTools  = `{"tools":[{"name":"get_info"},{"name":"new_drawing"},{"name":"layer/delete"},{"name":"delete_entities"},{"name":"draw"},{"name":"图层/删除"}]}`
	fuzzPolicy = `{"deny":["new_*","layer/*"],"confirm":["delete_*"],"annotations":{"get_*":{"readOnlyHint":true}}}`
)

// FuzzToolCallParams sends one tools/call with arbitrary params (random
// members, case variants, duplicate keys, nested _meta) through a bridge
// with a policy and a journal, to a base that reads params as Go's
// encoding/json does (keys matched case-insensitively, the last duplicate
// wins). What must hold: every call frame the base receives carries only
// name and arguments; the tool it names, read the base's way, is one the
// policy lets run unasked and the base lists; name and arguments are those
// the client's params hold under their exact keys; and the journal line of
// the call records that same tool and those same arguments; no object in
// those arguments has a name twice, case folded. A call the base never
// received is not journaled as run.
func FuzzToolCallParams(f *testing.F) {
	for _, s := range []string{
		`{"name":"get_info","arguments":{"a":1}}`,
		`{"name":"get_info","NAME":"new_drawing","arguments":{"name":"pwned"}}`,
		`{"name":"get_info","Name":"new_drawing"}`,
		`{"name":"new_drawing","name":"get_info"}`,
		`{"name":"get_info","arguments":{},"Arguments":{"x":1}}`,
		`{"name":"get_info","arguments":{"a":1,"a":2}}`,
		`{"name":"get_info","argumentſ":{"x":1}}`,
		`{"name":"LAYER/delete"}`,
		`{"name":"layer∕delete"}`,
		`{"name":"图层/删除","arguments":null}`,
		`{"name":"get_info","_meta":{"name":"new_drawing","_meta":{"arguments":{}}},"arguments":{"_meta":{"name":"x"}}}`,
		`{"name":"get_info","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}},"arguments":{"k":"v"}}`,
		`{"name":"delete_entities","arguments":{"handles":["1"]},"requestState":"x.y","inputResponses":{}}`,
		`{"n\u0061me":"draw","NAME":"new_drawing","task":{}}`,
		`{"name":"get_info","arguments":{"o":[{"x":1,"X":2}],"layer":0,"LAYER":1}}`,
	} {
		f.Add([]byte(s))
	}
	p, err := policy.Build("fuzz.json", []byte(fuzzPolicy), policy.Options{})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, params []byte) {
		var compact bytes.Buffer
		if json.Compact(&compact, params) != nil {
			return // not JSON: the decoder's fuzz target covers that
		}
		line := append(append([]byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":`), compact.Bytes()...), "}\n"...)
		var mu sync.Mutex
		var frames [][]byte
		base := baseFunc(func(_ context.Context, frame []byte) ([]byte, error) {
			mu.Lock()
			frames = append(frames, append([]byte(nil), frame...))
			mu.Unlock()
			if bytes.Contains(frame, []byte(`"method":"tools/list"`)) {
				return []byte(`{"jsonrpc":"2.0","id":"mcp-bridge-probe","result":` + fuzzTools + `}`), nil
			}
			return []byte(`{"jsonrpc":"2.0","id":1,"result":{"content":[],"isError":false}}`), nil
		})
		jpath := filepath.Join(tempDir(t), "journal.jsonl")
		jw, err := journal.Open(jpath, 0, 0)
		if err != nil {
			t.Fatal(err)
		}
		cfg := Config{Base: base, BaseAddr: "fuzz", MaxMessage: 4096, Policy: p, Journal: jw, JournalArgs: true, Log: zerolog.Nop()}
		var out bytes.Buffer
		if err := Run(context.Background(), cfg, bytes.NewReader(line), zerolog.SyncWriter(&out)); err != nil {
			t.Fatalf("Run: %v", err)
		}
		jw.Close()
		var entries []*journal.Entry
		_ = journal.Each(jpath, func(l journal.Line) bool {
			entries = append(entries, l.Entry)
			return true
		})
		if len(entries) > 1 {
			t.Fatalf("%d journal lines for one call", len(entries))
		}

		var calls [][]byte
		for _, fr := range frames {
			if !bytes.Contains(fr, []byte(`"method":"tools/list"`)) {
				calls = append(calls, fr)
			}
		}
		if len(calls) == 0 {
			if len(entries) == 1 && (entries[0].Outcome == journal.OK || entries[0].Outcome == journal.ToolError) {
				t.Fatalf("journaled as run (%s), never sent\nparams %s", entries[0].Outcome, params)
			}
			return
		}
		if len(calls) > 1 {
			t.Fatalf("%d frames for one call", len(calls))
		}
		req, ok := rpc.DecodeMessage(calls[0]).Msg.(*rpc.Request)
		if !ok {
			t.Fatalf("the base got %s", calls[0])
		}
		seen := map[string]bool{}
		_ = rpc.ScanObject(req.Params, func(k string, _, _ int) bool {
			if (k != "name" && k != "arguments") || seen[k] {
				t.Fatalf("the base got member %q (params %s)\nclient's params %s", k, req.Params, params)
			}
			seen[k] = true
			return true
		})
		// The base's reading: case-insensitive keys, the last one wins.
		var asBase struct {
			Name      *string
			Arguments json.RawMessage
		}
		if err := json.Unmarshal(req.Params, &asBase); err != nil || asBase.Name == nil {
			t.Fatalf("the base cannot read %s: %v", req.Params, err)
		}
		name := *asBase.Name
		if d := p.Check(name, nil); !d.Allowed {
			t.Fatalf("the base ran %q: %s\nclient's params %s", name, d.Reason, params)
		}
		if _, ask := p.NeedsConfirm(name); ask {
			t.Fatalf("the base ran %q, which needs confirmation, unasked\nclient's params %s", name, params)
		}
		if !lifecycle.ListsTool([]byte(fuzzTools), name) {
			t.Fatalf("the base ran %q, which it does not list\nclient's params %s", name, params)
		}
		// The bridge's reading: exact keys.
		var clientName string
		_ = json.Unmarshal(rpc.Field(compact.Bytes(), "name"), &clientName)
		// The client's arguments as a UTF-8 decoder reads them (bytes that
		// are not UTF-8 are U+FFFD to the base too).
		clientArgs := rpc.Field(compact.Bytes(), "arguments")
		if clientArgs != nil {
			clientArgs = bytes.ToValidUTF8(clientArgs, []byte("\uFFFD"))
		}
		if clientName != name || !sameJSON(clientArgs, asBase.Arguments) {
			t.Fatalf("the base ran %q with %s; the client's params say %q with %s", name, asBase.Arguments, clientName, clientArgs)
		}
		if len(entries) != 1 {
			t.Fatalf("%d journal lines for a call that ran", len(entries))
		}
		if e := entries[0]; e.Tool != name || !bytes.Equal(e.Args, compactJSON(asBase.Arguments)) {
			t.Fatalf("journal says %q with %s; the base got %s", e.Tool, e.Args, req.Params)
		}
		if _, _, twins := rpc.FoldTwins(asBase.Arguments, true); twins { // FuzzFoldTwins checks it against encoding/json's tokens
			t.Fatalf("the base got arguments %s, in which a case-insensitive decoder finds a name twice", asBase.Arguments)
		}
	})
}

// sameJSON reports whether two raw JSON values (nil for absent) are the
// same text once compacted.
// compactJSON is b without insignificant white space, as the journal
// writes arguments.
func compactJSON(b []byte) []byte {
	var c bytes.Buffer
	if json.Compact(&c, b) != nil {
		return b
	}
	return c.Bytes()
}

func sameJSON(a, b []byte) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	var ca, cb bytes.Buffer
	return json.Compact(&ca, a) == nil && json.Compact(&cb, b) == nil && bytes.Equal(ca.Bytes(), cb.Bytes())
}
