package bridge

import (
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
func baseFrame(req *lifecycle.Request) []byte { return appendFrame(req, nil) }

// tracedFrame is baseFrame with params._meta holding the CAD span's trace
// context (--otel-propagate-to-base): traceparent is the bridge's own span,
// tracestate the client's as the trace context parser rebuilt it. Nothing
// else of the client's _meta goes on.
func tracedFrame(req *lifecycle.Request, traceparent, tracestate string) []byte {
	meta := rpc.AppendString(append(make([]byte, 0, 128), `{"traceparent":`...), traceparent)
	if tracestate != "" {
		meta = rpc.AppendString(append(meta, `,"tracestate":`...), tracestate)
	}
	return appendFrame(req, append(meta, '}'))
}

// appendFrame encodes the frame, with meta (a JSON object) as
// params._meta when it is not nil.
func appendFrame(req *lifecycle.Request, meta []byte) []byte {
	tp := req.Tool
	var buf [256]byte // the params of most calls, without a heap copy
	var params []byte
	switch {
	case req.Method == lifecycle.MethodToolsCall:
		params = rpc.AppendString(append(buf[:0], `{"name":`...), tp.Name)
		if tp.Args != nil {
			params = append(append(params, `,"arguments":`...), tp.Args...)
		}
	case tp.Cursor != nil:
		params = append(append(buf[:0], `{"cursor":`...), tp.Cursor...)
	case tp.Present || meta != nil:
		params = append(buf[:0], '{')
	}
	if meta != nil {
		if len(params) > 1 {
			params = append(params, ',')
		}
		params = append(append(params, `"_meta":`...), meta...)
	}
	if params != nil {
		params = append(params, '}')
	}
	return rpc.AppendRequest(make([]byte, 0, 64+len(params)), req.ID, req.Method, params)
}
