package bridge

import (
	"encoding/json"

	"github.com/mcp-bridge/mcp-bridge/lifecycle"
	"github.com/mcp-bridge/mcp-bridge/rpc"
)

// The forwarding rule: the base runs exactly what the bridge checked. A
// tool request's params are read once, by exact (case-sensitive) keys, into
// a lifecycle.ToolParams (lifecycle.ReadRequest, which refuses a member
// given twice or spelled like a known one in another case); the policy,
// the confirmation question, the requestState and the journal all read
// that value, and the frame for the base is encoded from it, never from the client's bytes. Other members of the client's
// params never reach the base: a base that matches keys case-insensitively
// (Go's encoding/json, Newtonsoft.Json) would otherwise run a "NAME" or an
// "Arguments" that nobody checked.

// baseFrame is the request as the base gets it: the client's id and method,
// and params encoded from what the bridge read.
func baseFrame(req *lifecycle.Request) []byte {
	tp := req.Tool
	var params []byte
	switch {
	case req.Method == lifecycle.MethodToolsCall:
		params = append(params, `{"name":`...)
		name, _ := json.Marshal(tp.Name) // a Go string always marshals
		params = append(params, name...)
		if tp.Args != nil {
			params = append(append(params, `,"arguments":`...), tp.Args...)
		}
		params = append(params, '}')
	case tp.Cursor != nil:
		params = append(append([]byte(`{"cursor":`), tp.Cursor...), '}')
	case tp.Present:
		params = []byte(`{}`)
	}
	return rpc.AppendRequest(make([]byte, 0, 64+len(params)), req.ID, req.Method, params)
}
