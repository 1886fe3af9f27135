package lifecycle

import "github.com/mcp-bridge/mcp-bridge/rpc"

// Readers of a tools/list result, by the members' exact names: the
// names of its tools, and one tool's annotations. The policy checks a call
// against its tool's entry in the base's list, telemetry keeps the names as
// attribute values, the status page and doctor show them. Each walks the
// raw result once and copies nothing but the names.

// ToolEntry reads one element of a tools/list result's "tools" array: the
// tool's name ("" when it has none, or the element is not an object) and
// its raw "annotations" (nil when absent).
func ToolEntry(tool []byte) (name string, annotations []byte) {
	if rpc.Kind(tool) != rpc.KindObject {
		return "", nil
	}
	name, _ = rpc.String(rpc.Field(tool, "name"))
	return name, rpc.Field(tool, "annotations")
}

// ToolNames returns the names of the tools in a tools/list result, in its
// order; tools without a name are left out.
func ToolNames(result []byte) []string {
	var names []string
	tools := rpc.Field(result, "tools")
	rpc.EachElement(tools, func(from, to int) {
		if n, _ := ToolEntry(tools[from:to]); n != "" {
			names = append(names, n)
		}
	})
	return names
}

// ToolAnnotations returns the raw annotations of the first tool called
// exactly name (same characters, same case) in a tools/list result: `{}`
// when that tool has none, nil when the result does not list it.
func ToolAnnotations(result []byte, name string) []byte {
	tools := rpc.Field(result, "tools")
	var ann []byte
	rpc.EachElement(tools, func(from, to int) {
		if n, a := ToolEntry(tools[from:to]); n == name && ann == nil {
			ann = a
			if ann == nil {
				ann = []byte(`{}`)
			}
		}
	})
	return ann
}

// ListsTool reports whether a tools/list result lists a tool called
// exactly name: a base that folds case, or takes a look-alike character
// for another, would run a tool under a name nobody checked.
func ListsTool(result []byte, name string) bool { return ToolAnnotations(result, name) != nil }
