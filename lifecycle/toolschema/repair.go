package toolschema

import (
	"bytes"

	"github.com/mcp-bridge/mcp-bridge/rpc"
)

// RepairToolSchemas fixes the one schema problem that makes SDK clients
// silently drop a tool: an inputSchema that is missing, not an object, or
// whose root lacks "type". It adds "type": "object" (or, for a missing or
// non-object schema, uses {"type":"object"}) and leaves everything else,
// inside and around the schema, byte for byte. It returns result itself when
// nothing needed repair, and the names of the tools it repaired.
//
// A root "type" other than "object" is left alone: that is a different
// schema, not a missing word, and guessing would change its meaning.
func RepairToolSchemas(result []byte) ([]byte, []string) {
	tools := rpc.Field(result, "tools")
	if rpc.Kind(tools) != rpc.KindArray {
		return result, nil
	}
	var repaired []string
	var spans [][2]int // byte spans of tools that need a new version
	var fixed [][]byte
	base := offset(result, tools)
	rpc.EachElement(tools, func(from, to int) {
		tool := tools[from:to]
		if rpc.Kind(tool) != rpc.KindObject {
			return
		}
		schema := rpc.Field(tool, "inputSchema")
		var newTool []byte
		switch {
		case rpc.Kind(schema) != rpc.KindObject:
			newTool = rpc.AppendMembers(rpc.WithoutMember(tool, "inputSchema"), `"inputSchema":{"type":"object"}`)
		case rpc.Field(schema, "type") == nil:
			newSchema := prependMember(schema, `"type":"object"`)
			newTool = rpc.AppendMembers(rpc.WithoutMember(tool, "inputSchema"), `"inputSchema":`+string(newSchema))
		default:
			return
		}
		name := rpc.Field(tool, "name")
		repaired = append(repaired, string(bytes.Trim(name, `"`)))
		spans = append(spans, [2]int{base + from, base + to})
		fixed = append(fixed, newTool)
	})
	if len(spans) == 0 {
		return result, nil
	}
	out := make([]byte, 0, len(result)+32*len(spans))
	at := 0
	for i, sp := range spans {
		out = append(out, result[at:sp[0]]...)
		out = append(out, fixed[i]...)
		at = sp[1]
	}
	return append(out, result[at:]...), repaired
}

// prependMember puts member first in obj, so a repaired schema still reads
// with its type at the top.
func prependMember(obj []byte, member string) []byte {
	i := bytes.IndexByte(obj, '{')
	out := make([]byte, 0, len(obj)+len(member)+1)
	out = append(out, obj[:i+1]...)
	out = append(out, member...)
	if rest := bytes.TrimSpace(obj[i+1:]); len(rest) > 0 && rest[0] != '}' {
		out = append(out, ',')
	}
	return append(out, obj[i+1:]...)
}

// offset is where sub (a subslice of whole) starts within whole.
func offset(whole, sub []byte) int {
	return cap(whole) - cap(sub)
}
