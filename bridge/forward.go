package bridge

import (
	"bytes"
	"encoding/json"
	"strings"

	"github.com/mcp-bridge/mcp-bridge/rpc"
)

// The forwarding rule: the base runs exactly what the bridge checked. A
// tool request's params are read once, by exact (case-sensitive) keys, into
// a toolParams; the policy, the confirmation question, the requestState and
// the journal all read that value, and the frame for the base is encoded
// from it, never from the client's bytes. Other members of the client's
// params never reach the base: a base that matches keys case-insensitively
// (Go's encoding/json, Newtonsoft.Json) would otherwise run a "NAME" or an
// "Arguments" that nobody checked.

// paramMembers are the params members each tool method may carry, spelled
// exactly. Of these the base gets name and arguments (tools/call) and
// cursor (tools/list): all the base protocol defines. _meta, requestState
// and inputResponses are for the bridge.
var paramMembers = map[string][]string{
	"tools/call": {"name", "arguments", "_meta", "requestState", "inputResponses"},
	"tools/list": {"cursor", "_meta"},
}

// toolParams is a tool request's params as the bridge read them.
type toolParams struct {
	present bool   // the request had params
	name    string // tools/call: the tool
	args    []byte // tools/call: "arguments", an object or null as sent; nil when absent
	cursor  []byte // tools/list: "cursor", a JSON string as sent; nil when absent
}

// readToolParams reads a tools/list or tools/call request's params, or says
// why they cannot be forwarded (-32602). A member spelled like a known one
// in another case ("NAME", "Arguments") and a known member given twice are
// refused: each is an attempt to make the base read something other than
// what the bridge reads. Members it does not know are left out of the
// frame.
func readToolParams(r *rpc.Request) (toolParams, *rpc.WireError) {
	p := r.Params
	if p == nil {
		if r.Method == "tools/call" {
			return toolParams{}, rpc.Errorf(rpc.CodeInvalidParams, `Invalid params: tools/call needs "name", a string`)
		}
		return toolParams{}, nil
	}
	if rpc.Kind(p) != rpc.KindObject {
		return toolParams{}, rpc.Errorf(rpc.CodeInvalidParams, "Invalid params: %s params must be an object", r.Method)
	}
	if werr := checkMembers(r.Method+" params", p, paramMembers[r.Method]); werr != nil {
		return toolParams{}, werr
	}
	tp := toolParams{present: true}
	if r.Method == "tools/list" {
		tp.cursor = rpc.Field(p, "cursor")
		if tp.cursor != nil && rpc.Kind(tp.cursor) != rpc.KindString {
			return toolParams{}, rpc.Errorf(rpc.CodeInvalidParams, `Invalid params: tools/list "cursor" must be a string`)
		}
		return tp, nil
	}
	var ok bool
	if tp.name, ok = rpc.String(rpc.Field(p, "name")); !ok {
		return toolParams{}, rpc.Errorf(rpc.CodeInvalidParams, `Invalid params: tools/call needs "name", a string`)
	}
	// Bytes that are not UTF-8 can only be inside strings here; a UTF-8
	// decoder (the base's, the journal's) reads each run as U+FFFD, so the
	// checks, the question, the frame and the journal all see that text:
	// "\xcf" and "\xce" are one name to the base, and must be to the checks.
	if tp.args = rpc.Field(p, "arguments"); tp.args != nil {
		tp.args = bytes.ToValidUTF8(tp.args, []byte("\uFFFD"))
	}
	switch rpc.Kind(tp.args) {
	case rpc.KindNone, rpc.KindNull:
	case rpc.KindObject:
		if werr := checkArguments(tp.args); werr != nil {
			return toolParams{}, werr
		}
	default:
		return toolParams{}, rpc.Errorf(rpc.CodeInvalidParams, `Invalid params: tools/call "arguments" must be an object`)
	}
	return tp, nil
}

// checkMembers refuses an object (valid JSON) in which any member is given
// twice, or in which a member differs from one of known only in case (as
// Unicode folds it, which is how case-insensitive decoders match: "ſ"
// matches "s").
func checkMembers(what string, obj []byte, known []string) *rpc.WireError {
	var werr *rpc.WireError
	seen := map[string]bool{}
	_ = rpc.ScanObject(obj, func(k string, _, _ int) bool {
		if seen[k] {
			werr = rpc.Errorf(rpc.CodeInvalidParams, "Invalid params: %s has %q twice; nothing was sent to CAD", what, k)
			return false
		}
		seen[k] = true
		for _, want := range known {
			if k != want && strings.EqualFold(k, want) {
				werr = rpc.Errorf(rpc.CodeInvalidParams, "Invalid params: %s has %q, which is not %q (member names are case-sensitive); nothing was sent to CAD", what, k, want)
				return false
			}
		}
		return true
	})
	return werr
}

// checkArguments refuses arguments in which an object, at any depth, has
// two members that a case-insensitive decoder takes for one (rpc.FoldTwins):
// a name given twice, or "layer" and "LAYER". The question shows, and the
// requestState binds, one value per name; the base must not pick another.
func checkArguments(v []byte) *rpc.WireError {
	first, second, twins := rpc.FoldTwins(v, true)
	switch {
	case !twins:
		return nil
	case first == second:
		return rpc.Errorf(rpc.CodeInvalidParams, `Invalid params: tools/call "arguments" has %q twice; nothing was sent to CAD`, first)
	}
	return rpc.Errorf(rpc.CodeInvalidParams, `Invalid params: tools/call "arguments" has both %q and %q, which a CAD base may take for one name (they differ only in case); nothing was sent to CAD`, first, second)
}

// baseFrame is the request as the base gets it: the client's id and method,
// and params encoded from what the bridge read.
func baseFrame(id rpc.ID, method string, tp toolParams) []byte {
	var params []byte
	switch {
	case method == "tools/call":
		params = append(params, `{"name":`...)
		name, _ := json.Marshal(tp.name) // a Go string always marshals
		params = append(params, name...)
		if tp.args != nil {
			params = append(append(params, `,"arguments":`...), tp.args...)
		}
		params = append(params, '}')
	case tp.cursor != nil:
		params = append(append([]byte(`{"cursor":`), tp.cursor...), '}')
	case tp.present:
		params = []byte(`{}`)
	}
	return rpc.AppendRequest(make([]byte, 0, 64+len(params)), id, method, params)
}
