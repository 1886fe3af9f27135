package lifecycle_test

import (
	"fmt"

	"github.com/mcp-bridge/mcp-bridge/lifecycle"
	"github.com/mcp-bridge/mcp-bridge/rpc"
)

// A tools/call line from a client, decoded once: everything the rest of
// the bridge reads about it (the era, the tool, its arguments, the
// progress token) is in the Request, read by exact keys; nobody parses the
// params again.
func ExampleReadRequest() {
	line := []byte(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"draw_line","arguments":{"from":[0,0],"to":[10,0]},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"inspector","version":"1.0"},"io.modelcontextprotocol/clientCapabilities":{},"progressToken":"p1"}}}`)
	d := rpc.DecodeMessage(line)
	m := d.Msg.(*rpc.Request)

	r := lifecycle.ReadRequest(m.ID, m.Method, m.Params)
	fmt.Printf("id %s, %s, era %s %s, era checks passed: %v\n", r.ID, r.Method, r.Era, r.Version, r.EraChecked())
	fmt.Printf("tool %s, arguments %s, progress token %s, client %s\n", r.Tool.Name, r.Tool.Args, r.ProgressToken, r.ClientInfo.Name)
	fmt.Println("params refused:", r.ParamsErr)

	// "Name" is not "name": a reader that folded case would see a tool
	// here that the bridge does not, so the call is refused.
	r = lifecycle.ReadRequest(m.ID, "tools/call", []byte(`{"Name":"draw_line"}`))
	fmt.Println("params refused:", r.ParamsErr)
	// Output:
	// id 7, tools/call, era modern 2026-07-28, era checks passed: true
	// tool draw_line, arguments {"from":[0,0],"to":[10,0]}, progress token "p1", client inspector
	// params refused: <nil>
	// params refused: jsonrpc error -32602: Invalid params: tools/call params has "Name", which is not "name" (member names are case-sensitive); nothing was sent to CAD
}

// The readers of a tools/list result, as the policy, telemetry and doctor
// use them: the names in the base's order (a tool without one left out),
// a tool's annotations raw (`{}` when it has none), and a name matched
// exactly, case and all.
func ExampleToolNames() {
	result := []byte(`{"tools":[{"name":"draw_line","inputSchema":{"type":"object"}},{"name":"delete_layer","annotations":{"destructiveHint":true}},{"description":"no name"}]}`)
	fmt.Println(lifecycle.ToolNames(result))
	fmt.Println(string(lifecycle.ToolAnnotations(result, "delete_layer")))
	fmt.Println(string(lifecycle.ToolAnnotations(result, "draw_line")))
	fmt.Println(lifecycle.ListsTool(result, "Draw_Line"), lifecycle.ListsTool(result, "draw_line"))
	// Output:
	// [draw_line delete_layer]
	// {"destructiveHint":true}
	// {}
	// false true
}
