package httpheader

import (
	"bytes"
	"fmt"
	"net/textproto"
	"strings"

	"github.com/mcp-bridge/mcp-bridge/rpc"
)

// ParamPrefix starts the name of every custom header: an argument whose
// schema says "x-mcp-header": "Region" travels as Mcp-Param-Region.
const ParamPrefix = "Mcp-Param-"

// keyword is the schema member that declares a custom header.
const keyword = "x-mcp-header"

// Param is one argument a tool mirrors into a header.
type Param struct {
	Name string   // the x-mcp-header value: the header is ParamPrefix + Name
	Path []string // the property names leading to the argument from the root
	Type string   // the property's type: "string", "integer" or "boolean"
}

// Header is the header's name, in Go's canonical form (how net/http keys
// what it read: header names are compared without case).
func (p Param) Header() string { return textproto.CanonicalMIMEHeaderKey(ParamPrefix + p.Name) }

// Tool is what a tool's inputSchema declares. A tool whose declarations
// break a rule of the specification (Problem) is one a conforming client
// leaves out of its tool list; no call of it can be checked the way a
// gateway reads it, so none is let through.
type Tool struct {
	Params  []Param
	Problem string // why the declarations are invalid; "" when they are not
}

// Table is a tool list's declarations by tool name: every tool of the list
// has an entry, nil when it declares nothing.
type Table map[string]*Tool

// Lookup is the tool's declarations (nil: none), and whether the list
// holds a tool of that name at all.
func (t Table) Lookup(name string) (*Tool, bool) {
	d, ok := t[name]
	return d, ok
}

// Problems lists the tools whose declarations are invalid, one line each
// naming the tool and the rule.
func (t Table) Problems() []string {
	var out []string
	for name, d := range t {
		if d != nil && d.Problem != "" {
			out = append(out, fmt.Sprintf("%q: %s", name, d.Problem))
		}
	}
	return out
}

// Read reads the declarations of every tool in a tools/list result, by the
// members' exact names. Two tools of one name (a base's mistake) are one
// tool holding both's declarations: a call of it must satisfy either.
func Read(result []byte) Table {
	t := Table{}
	t.Add(result)
	return t
}

// Add reads one more page of a tool list into t.
func (t Table) Add(result []byte) {
	tools := rpc.Field(result, "tools")
	if rpc.Kind(tools) != rpc.KindArray {
		return
	}
	rpc.EachElement(tools, func(from, to int) {
		tool := tools[from:to]
		name, ok := rpc.String(rpc.Field(tool, "name"))
		if !ok {
			return
		}
		d := readTool(rpc.Field(tool, "inputSchema"))
		if prev, seen := t[name]; seen && prev != nil {
			if d == nil {
				return
			}
			merged := &Tool{Params: append(append([]Param{}, prev.Params...), d.Params...), Problem: prev.Problem}
			if merged.Problem == "" {
				merged.Problem = d.Problem
			}
			d = merged
		}
		t[name] = d
	})
}

// Valid returns result without the tools whose declarations are invalid,
// and what was left out, one line each; result itself when nothing was. A
// client of the 2026-07-28 HTTP transport must leave such a tool out of
// its list (mcp-bridge connect does).
func Valid(result []byte) ([]byte, []string) {
	tools := rpc.Field(result, "tools")
	if rpc.Kind(tools) != rpc.KindArray || !mayDeclare(tools) {
		return result, nil
	}
	var kept [][]byte
	var dropped []string
	rpc.EachElement(tools, func(from, to int) {
		tool := tools[from:to]
		if d := readTool(rpc.Field(tool, "inputSchema")); d != nil && d.Problem != "" {
			name, _ := rpc.String(rpc.Field(tool, "name"))
			dropped = append(dropped, fmt.Sprintf("%q: %s", name, d.Problem))
			return
		}
		kept = append(kept, tool)
	})
	if dropped == nil {
		return result, nil
	}
	list := append([]byte{'['}, bytes.Join(kept, []byte{','})...)
	list = append(list, ']')
	out := rpc.AppendMembers(rpc.WithoutMember(result, "tools"), `"tools":`+string(list))
	return out, dropped
}

// mayDeclare: raw may hold the keyword as a member name, plainly or with
// an escape in it (the only escape that can stand for a letter or "-").
func mayDeclare(raw []byte) bool {
	return bytes.Contains(raw, []byte(keyword)) || bytes.Contains(raw, []byte(`\u`))
}

// maxDepth bounds how deep the walk goes into a schema: a hostile list
// nests millions of levels in 16 MiB. A declaration deeper down cannot be
// read, and makes the tool invalid.
const maxDepth = 64

// readTool reads one inputSchema's declarations; nil when it has none
// (the usual case, seen without decoding anything).
func readTool(schema []byte) *Tool {
	if rpc.Kind(schema) != rpc.KindObject || !mayDeclare(schema) {
		return nil
	}
	w := walker{}
	w.walk(schema, nil, true, 0)
	if w.problem == "" {
		w.problem = unique(w.params)
	}
	if w.problem == "" && len(w.params) == 0 {
		return nil
	}
	return &Tool{Params: w.params, Problem: w.problem}
}

type walker struct {
	params  []Param
	problem string // the first rule broken
}

func (w *walker) fail(format string, args ...any) {
	if w.problem == "" {
		w.problem = fmt.Sprintf(format, args...)
	}
}

// The keywords whose values are schemas, one, a list or a map of them:
// wherever the keyword may stand other than along the properties chain.
var (
	oneSchema  = []string{"items", "additionalItems", "additionalProperties", "unevaluatedItems", "unevaluatedProperties", "not", "if", "then", "else", "contains", "propertyNames", "contentSchema"}
	listSchema = []string{"allOf", "anyOf", "oneOf", "prefixItems", "items"}
	mapSchema  = []string{"patternProperties", "$defs", "definitions", "dependentSchemas", "dependencies"}
)

// walk reads schema s at path: reachable while every step from the root
// was a "properties" member, the only place a declaration may stand.
func (w *walker) walk(s []byte, path []string, reachable bool, depth int) {
	if rpc.Kind(s) != rpc.KindObject || !mayDeclare(s) {
		return
	}
	if depth > maxDepth {
		w.fail("the schema nests deeper than %d levels where %s may stand", maxDepth, keyword)
		return
	}
	members := map[string][]byte{}
	twice := ""
	_ = rpc.EachMember(s, func(raw []byte, from, to int) bool {
		k, ok := rpc.Unquote(raw)
		if !ok {
			return false
		}
		if _, seen := members[k]; seen && twice == "" {
			twice = k
		}
		members[k] = s[from:to]
		return true
	})
	if twice != "" {
		// Readers differ on which of the two counts.
		w.fail("the schema at %s has the member %q twice", where(path), twice)
		return
	}
	if v, ok := members[keyword]; ok {
		w.declare(v, path, reachable, members["type"])
	}
	if props := members["properties"]; rpc.Kind(props) == rpc.KindObject {
		_ = rpc.EachMember(props, func(raw []byte, from, to int) bool {
			k, ok := rpc.Unquote(raw)
			if !ok {
				return false
			}
			w.walk(props[from:to], append(path[:len(path):len(path)], k), reachable, depth+1)
			return true
		})
	}
	for _, k := range oneSchema {
		w.walk(members[k], path, false, depth+1)
	}
	for _, k := range listSchema {
		if v := members[k]; rpc.Kind(v) == rpc.KindArray {
			rpc.EachElement(v, func(from, to int) { w.walk(v[from:to], path, false, depth+1) })
		}
	}
	for _, k := range mapSchema {
		if v := members[k]; rpc.Kind(v) == rpc.KindObject {
			_ = rpc.EachMember(v, func(_ []byte, from, to int) bool {
				w.walk(v[from:to], path, false, depth+1)
				return true
			})
		}
	}
}

// declare checks one declaration against the specification's rules.
func (w *walker) declare(v []byte, path []string, reachable bool, typ []byte) {
	name, ok := rpc.String(v)
	switch {
	case !ok:
		w.fail("%s at %s is not a string", keyword, where(path))
	case name == "":
		w.fail("%s at %s is empty", keyword, where(path))
	case !isToken(name):
		w.fail("%s %q at %s is not a header name (letters, digits and !#$%%&'*+-.^_`|~ only)", keyword, name, where(path))
	case !reachable || len(path) == 0:
		w.fail("%s %q stands where no argument is (only along \"properties\" from the root)", keyword, name)
	default:
		t, _ := rpc.String(typ)
		if t != "string" && t != "integer" && t != "boolean" {
			w.fail("%s %q is on %s, whose type is not string, integer or boolean", keyword, name, where(path))
			return
		}
		w.params = append(w.params, Param{Name: name, Path: path, Type: t})
	}
}

// unique: no two declarations name one header (the case of the name does
// not count).
func unique(ps []Param) string {
	for i := range ps {
		for j := range i {
			if strings.EqualFold(ps[i].Name, ps[j].Name) {
				return fmt.Sprintf("%s %q and %q name one header", keyword, ps[j].Name, ps[i].Name)
			}
		}
	}
	return ""
}

// isToken: s is an HTTP field name (RFC 9110 token: 1*tchar).
func isToken(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0) {
			return false
		}
	}
	return true
}

func where(path []string) string {
	if len(path) == 0 {
		return "the schema's root"
	}
	return "argument " + strings.Join(path, ".")
}
