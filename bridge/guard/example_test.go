package guard_test

import (
	"fmt"

	"github.com/mcp-bridge/mcp-bridge/bridge/guard"
	"github.com/mcp-bridge/mcp-bridge/bridge/guard/policy"
	"github.com/mcp-bridge/mcp-bridge/lifecycle"
	"github.com/mcp-bridge/mcp-bridge/rpc"
)

// The core meets the gate three times a call: on accept, before sending
// and at the end. Here, on accept: one call passes, one is denied, one
// waits for the user, whom the client asks.
func ExampleGate() {
	p, err := policy.Build("policy.json", []byte(`{"deny": ["save_*"], "confirm": ["delete_*"]}`), policy.Options{})
	if err != nil {
		panic(err)
	}
	g := guard.New(guard.Options{Policy: p, ConfirmWith: []string{policy.AskClient}})
	id, _ := rpc.ParseID([]byte(`1`))
	for _, name := range []string{"draw_line", "save_as", "delete_all"} {
		req := lifecycle.ReadRequest(id, "tools/call", fmt.Appendf(nil, `{"name":%q,"arguments":{}}`, name))
		call := guard.Call{NeedsConfirm: g.NeedsConfirm(name)}
		// A handshake-era client that declared it can show a form.
		d := g.Accept(&call, req, nil, true)
		switch {
		case d.Verdict == guard.Error:
			fmt.Printf("%s: %d %s\n", name, d.Err.Code, d.Err.Message)
		case call.Ask:
			fmt.Printf("%s: asked first, by the %s\n", name, call.AskedBy)
		default:
			fmt.Printf("%s: sent on\n", name)
		}
		// Before sending: the journal is ready (there is none here), and
		// under a policy the base must list the name.
		if call.Ask || d.Verdict != guard.Pass {
			continue
		}
		list := func() ([]byte, *rpc.WireError) { return []byte(`{"tools":[{"name":"draw_line"}]}`), nil }
		fmt.Printf("%s: before sending: %v\n", name, g.BeforeSend(&call, req, list).Verdict == guard.Pass)
	}
	// Output:
	// draw_line: sent on
	// draw_line: before sending: true
	// save_as: -32602 tool "save_as" is denied by the mcp-bridge policy (policy.json: deny "save_*"); nothing was sent to CAD
	// delete_all: asked first, by the client
}
