package lifecycle

import (
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mcp-bridge/mcp-bridge/rpc"
)

const meta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`

// read is ReadRequest on one message's text, as a front end decodes it.
func read(t *testing.T, msg string) *Request {
	t.Helper()
	d := rpc.DecodeMessage([]byte(msg))
	switch m := d.Msg.(type) {
	case *rpc.Request:
		return ReadRequest(m.ID, m.Method, m.Params)
	case *rpc.Notification:
		return ReadRequest(rpc.ID{}, m.Method, m.Params)
	}
	t.Fatalf("not a request: %s", msg)
	return nil
}

func call(params string) string {
	return `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":` + params + `}`
}

// TestReadToolParams: what the base will run is what was read, by exact
// keys; a member twice or in another case (as Unicode folds it) is
// refused, one character either side of each rule.
func TestReadToolParams(t *testing.T) {
	tests := []struct {
		msg     string
		tool    ToolParams
		problem string // the refusal's message, "" when none
	}{
		{call(`{"name":"draw","arguments":{"a":1}}`), ToolParams{Present: true, Name: "draw", Args: []byte(`{"a":1}`)}, ""},
		{call(`{"name":"dr\u0061w"}`), ToolParams{Present: true, Name: "draw"}, ""},
		{call(`{"name":"draw","arguments":null}`), ToolParams{Present: true, Name: "draw", Args: []byte(`null`)}, ""},
		{call(`{"name":"draw","x-extra":1}`), ToolParams{Present: true, Name: "draw"}, ""},
		{call(`{"name":"a","name":"b"}`), ToolParams{Name: "b"}, `Invalid params: tools/call params has "name" twice; nothing was sent to CAD`},
		{call(`{"name":"a","x":1,"x":2}`), ToolParams{Name: "a"}, `Invalid params: tools/call params has "x" twice; nothing was sent to CAD`},
		{call(`{"name":"a","na\u006de":"b"}`), ToolParams{Name: "b"}, `Invalid params: tools/call params has "name" twice; nothing was sent to CAD`},
		{call(`{"name":"a","NAME":"b"}`), ToolParams{Name: "a"}, `Invalid params: tools/call params has "NAME", which is not "name" (member names are case-sensitive); nothing was sent to CAD`},
		{call(`{"name":"a","Arguments":{}}`), ToolParams{Name: "a"}, `Invalid params: tools/call params has "Arguments", which is not "arguments" (member names are case-sensitive); nothing was sent to CAD`},
		{call(`{"name":"a","argument\u017f":{}}`), ToolParams{Name: "a"}, `Invalid params: tools/call params has "argumentſ", which is not "arguments" (member names are case-sensitive); nothing was sent to CAD`},
		{call(`{"name":"a","names":"b"}`), ToolParams{Present: true, Name: "a"}, ""},
		{call(`{"name":"a","arguments":{"k":1,"K":2}}`), ToolParams{Present: true, Name: "a", Args: []byte(`{"k":1,"K":2}`)}, `Invalid params: tools/call "arguments" has both "k" and "K", which a CAD base may take for one name (they differ only in case); nothing was sent to CAD`},
		{call(`{"name":"a","arguments":[1]}`), ToolParams{Present: true, Name: "a", Args: []byte(`[1]`)}, `Invalid params: tools/call "arguments" must be an object`},
		{call(`{"name":1}`), ToolParams{Present: true}, `Invalid params: tools/call needs "name", a string`},
		{`{"jsonrpc":"2.0","id":1,"method":"tools/call"}`, ToolParams{}, `Invalid params: tools/call needs "name", a string`},
		{call(`[1]`), ToolParams{}, `Invalid params: tools/call params must be an object`},
		{`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`, ToolParams{}, ""},
		{`{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}}`, ToolParams{Present: true}, ""},
		{`{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"cursor":"c2"}}`, ToolParams{Present: true, Cursor: []byte(`"c2"`)}, ""},
		{`{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"cursor":2}}`, ToolParams{Present: true, Cursor: []byte(`2`)}, `Invalid params: tools/list "cursor" must be a string`},
		{`{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"Cursor":"c"}}`, ToolParams{}, `Invalid params: tools/list params has "Cursor", which is not "cursor" (member names are case-sensitive); nothing was sent to CAD`},
		// A method with no member rule (ping) takes any params.
		{`{"jsonrpc":"2.0","id":1,"method":"ping","params":{"a":1,"a":2}}`, ToolParams{}, ""},
	}
	for _, tt := range tests {
		r := read(t, tt.msg)
		if d := cmp.Diff(tt.tool, r.Tool); d != "" {
			t.Errorf("%s: Tool (-want +got):\n%s", tt.msg, d)
		}
		got := ""
		if r.ParamsErr != nil {
			got = r.ParamsErr.Message
			if r.ParamsErr.Code != rpc.CodeInvalidParams {
				t.Errorf("%s: code %d", tt.msg, r.ParamsErr.Code)
			}
		}
		if got != tt.problem {
			t.Errorf("%s: ParamsErr %q, want %q", tt.msg, got, tt.problem)
		}
	}
}

// TestReadMeta: the era, the per-request check, the progress token, the
// client's name and capabilities, each read once from _meta (the last of
// a member given twice, as encoding/json reads it).
func TestReadMeta(t *testing.T) {
	type facts struct {
		Era      Era
		Version  string
		EraErr   int64
		Token    string
		Client   ClientInfo
		Elicits  bool
		Canceled string
	}
	tests := []struct {
		msg  string
		want facts
	}{
		{call(`{"name":"a"}`), facts{}},
		{call(`{"name":"a",` + meta + `}`), facts{Era: Modern, Version: "2026-07-28"}},
		{call(`{"name":"a","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}`), facts{Era: Modern, Version: "2026-07-28", EraErr: rpc.CodeInvalidParams}},
		{call(`{"name":"a","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-29","io.modelcontextprotocol/clientCapabilities":{}}}`), facts{Era: Modern, Version: "2026-07-29", EraErr: rpc.CodeUnsupportedVersion}},
		// Both wrong: the version is checked first, so the client learns the
		// versions it may fall back on (-32022 with the supported list),
		// not that its capabilities are missing.
		{call(`{"name":"a","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-29"}}`), facts{Era: Modern, Version: "2026-07-29", EraErr: rpc.CodeUnsupportedVersion}},
		{call(`{"name":"a","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-29","io.modelcontextprotocol/clientCapabilities":[]}}`), facts{Era: Modern, Version: "2026-07-29", EraErr: rpc.CodeUnsupportedVersion}},
		{call(`{"name":"a","_meta":{"io.modelcontextprotocol/protocolVersion":1}}`), facts{}},
		{call(`{"name":"a","_meta":{"IO.modelcontextprotocol/protocolVersion":"2026-07-28"}}`), facts{}},
		{call(`{"name":"a","_meta":{"progressToken":7}}`), facts{Token: "7"}},
		{call(`{"name":"a","_meta":{"progressToken":"t"}}`), facts{Token: `"t"`}},
		{call(`{"name":"a","_meta":{"progressToken":null}}`), facts{}},
		{call(`{"name":"a","_meta":{"progressToken":{}}}`), facts{}},
		{call(`{"name":"a","_meta":{"progressToken":1,"progressToken":2}}`), facts{Token: "2"}},
		{call(`{"name":"a","_meta":[1]}`), facts{}},
		{call(`{"name":"a","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{}},"io.modelcontextprotocol/clientInfo":{"name":"c","version":"1","NAME":"x"}}}`),
			facts{Era: Modern, Version: "2026-07-28", Client: ClientInfo{Name: "c", Version: "1"}, Elicits: true}},
		{call(`{"name":"a","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{"url":{}}}}}`),
			facts{Era: Modern, Version: "2026-07-28"}},
		{`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","clientInfo":{"name":"i","version":"2"},"capabilities":{"elicitation":{}}}}`,
			facts{Client: ClientInfo{Name: "i", Version: "2"}, Elicits: true}},
		{`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"x"}}`, facts{Canceled: `"x"`}},
		{`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":null}}`, facts{}},
		{`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"RequestId":3}}`, facts{}},
	}
	for _, tt := range tests {
		r := read(t, tt.msg)
		got := facts{Era: r.Era, Version: r.Version, Token: string(r.ProgressToken), Client: r.ClientInfo, Elicits: r.Elicits, Canceled: string(r.Cancels.Raw())}
		if r.EraErr != nil {
			got.EraErr = r.EraErr.Code
		}
		if d := cmp.Diff(tt.want, got); d != "" {
			t.Errorf("%s (-want +got):\n%s", tt.msg, d)
		}
	}
}

// TestReadConfirmation: a 2026-07-28 call sent again with its answer
// carries requestState and the answer in inputResponses as sent;
// inputResponses in which two members are one to a case-insensitive reader
// are no answer.
func TestReadConfirmation(t *testing.T) {
	r := read(t, call(`{"name":"a","requestState":"s","inputResponses":{"confirm":{"action":"accept"}}}`))
	if string(r.RequestState) != `"s"` || string(r.Input) != `{"action":"accept"}` {
		t.Errorf("got %s %s", r.RequestState, r.Input)
	}
	r = read(t, call(`{"name":"a","requestState":"s","inputResponses":{"confirm":{},"CONFIRM":{}}}`))
	if r.Input != nil {
		t.Errorf("twins kept: %s", r.Input)
	}
	r = read(t, `{"jsonrpc":"2.0","id":1,"method":"subscriptions/listen","params":{"notifications":{"toolsListChanged":true}}}`)
	if !r.ListensTools {
		t.Error("listen: toolsListChanged not read")
	}
	r = read(t, `{"jsonrpc":"2.0","id":1,"method":"subscriptions/listen","params":{"notifications":{"toolsListChanged":"true"}}}`)
	if r.ListensTools {
		t.Error(`listen: "true" read as true`)
	}
}

// TestMethodTable: which methods exist in which era, and who answers.
func TestMethodTable(t *testing.T) {
	want := map[Era][]string{
		Legacy: {"initialize", "notifications/cancelled", "notifications/initialized", "ping", "tools/call", "tools/list"},
		Modern: {"notifications/cancelled", "server/discover", "subscriptions/listen", "tools/call", "tools/list"},
	}
	for era, names := range want {
		got := Methods(era)
		slices.Sort(got)
		if d := cmp.Diff(names, got); d != "" {
			t.Errorf("%v (-want +got):\n%s", era, d)
		}
	}
	for _, name := range []string{"tools/call", "tools/list"} {
		if LookupMethod(name).By != ByWorker {
			t.Errorf("%s not answered by the worker", name)
		}
	}
	if LookupMethod("resources/list") != nil || LookupMethod("resources/list").In(Legacy) {
		t.Error("an unknown method is in the table")
	}
}
