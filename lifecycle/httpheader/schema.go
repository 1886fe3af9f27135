package httpheader

import (
	"bytes"
	"fmt"
	"math"
	"net/textproto"
	"slices"
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
// has an entry, nil when it declares nothing. A nil *Table is an empty one.
type Table struct {
	byName map[string]*Tool
	// folded are the names by their rpc.FoldKey: a base may match tool
	// names without case, and run "test_x" for a call of "TEST_X".
	folded map[string][]string
}

// Lookup is what a call of the tool name must satisfy (nil: nothing), and
// whether the list holds a tool of that name. A name the list does not
// hold exactly stands for every tool whose name strings.EqualFold holds
// equal to it, all of them: a base that matches names without case runs
// one of them, and its declarations are checked whichever it is. It is
// listed when there is any.
func (t *Table) Lookup(name string) (*Tool, bool) {
	if t == nil {
		return nil, false
	}
	if d, ok := t.byName[name]; ok {
		return d, true
	}
	names := t.folded[rpc.FoldKey(name)]
	var d *Tool
	fresh := false
	for _, n := range names {
		switch u := t.byName[n]; {
		case u == nil:
		case d == nil:
			d = u
		default:
			if !fresh { // the table's tools stay as they are
				d, fresh = &Tool{Params: slices.Clone(d.Params), Problem: d.Problem}, true
			}
			d.Params = append(d.Params, u.Params...)
			if d.Problem == "" {
				d.Problem = u.Problem
			}
		}
	}
	return d, len(names) > 0
}

// with is t and u as one tool, whose calls must satisfy both: their
// declarations together, the first problem of either; a new Tool when both
// declare something. Only for the table's own tools while it is read (Add):
// append may write past len(t.Params), where no holder of t reads, and
// never twice, since t is replaced.
func (t *Tool) with(u *Tool) *Tool {
	switch {
	case u == nil:
		return t
	case t == nil:
		return u
	}
	m := &Tool{Params: append(t.Params, u.Params...), Problem: t.Problem}
	if m.Problem == "" {
		m.Problem = u.Problem
	}
	return m
}

// Problems lists the tools whose declarations are invalid, one line each
// naming the tool and the rule.
func (t *Table) Problems() []string {
	if t == nil {
		return nil
	}
	var out []string
	for name, d := range t.byName {
		if d != nil && d.Problem != "" {
			out = append(out, fmt.Sprintf("%q: %s", name, d.Problem))
		}
	}
	return out
}

// Read reads the declarations of every tool in a tools/list result, by the
// members' exact names. Two tools of one name (a base's mistake) are one
// tool holding both's declarations: a call of it must satisfy both.
func Read(result []byte) *Table {
	t := &Table{byName: map[string]*Tool{}, folded: map[string][]string{}}
	t.Add(result)
	return t
}

// Add reads one more page of a tool list into t (not nil).
func (t *Table) Add(result []byte) {
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
		prev, seen := t.byName[name]
		if !seen {
			f := rpc.FoldKey(name)
			t.folded[f] = append(t.folded[f], name)
		}
		t.byName[name] = prev.with(d)
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
	w := walker{data: schema, kw: finder{pat: []byte(keyword)}, esc: finder{pat: []byte(`\u`)}}
	w.schema(skipSpace(schema, 0), nil, true, 0)
	if w.problem == "" {
		w.problem = unique(w.params)
	}
	if w.problem == "" && len(w.params) == 0 {
		return nil
	}
	return &Tool{Params: w.params, Problem: w.problem}
}

// walker reads one schema's declarations in one pass over its bytes: it
// walks into the values that are schemas as it meets them and steps over
// the rest (rpc.SkipValue), so that reading a list costs its size, however
// deep it nests. (Listing an object's members first and then walking into
// each read every level again: a 16 MiB list nested 64 levels took
// seconds.)
type walker struct {
	data    []byte
	params  []Param
	problem string // the first rule broken
	// kw and esc find where the keyword, and an escape that may spell it,
	// next stand: whether an object may declare anything (mayDeclare) is
	// known when it ends, without reading it again.
	kw, esc finder
}

func (w *walker) fail(format string, args ...any) {
	if w.problem == "" {
		w.problem = fmt.Sprintf(format, args...)
	}
}

// finder is where pat next stands in data at or after a position. The
// walker asks at the start of each object, in the order they start, so
// that data is searched once in all.
type finder struct {
	pat      []byte
	searched bool
	from, at int // the last search started at from and found pat at at (MaxInt: nowhere)
}

func (f *finder) next(data []byte, s int) int {
	if f.searched && s >= f.from && s <= f.at {
		return f.at // nothing stands in [from, at)
	}
	f.searched, f.from, f.at = true, s, math.MaxInt
	if s < len(data) {
		if i := bytes.Index(data[s:], f.pat); i >= 0 {
			f.at = s + i
		}
	}
	return f.at
}

// The keywords whose values are schemas, one, a list or a map of them:
// wherever the keyword may stand other than along the properties chain.
var (
	oneSchema  = []string{"items", "additionalItems", "additionalProperties", "unevaluatedItems", "unevaluatedProperties", "not", "if", "then", "else", "contains", "propertyNames", "contentSchema"}
	listSchema = []string{"allOf", "anyOf", "oneOf", "prefixItems", "items"}
	mapSchema  = []string{"patternProperties", "$defs", "definitions", "dependentSchemas", "dependencies"}
)

// schema reads the schema whose value starts at i, at path: reachable
// while every step from the root was a "properties" member, the only place
// a declaration may stand. It returns where the value ends. An object that
// cannot declare anything (mayDeclare of its bytes) counts for nothing,
// whatever it holds.
func (w *walker) schema(i int, path []string, reachable bool, depth int) int {
	d := w.data
	if i >= len(d) || d[i] != '{' {
		return rpc.SkipValue(d, i)
	}
	kw, esc := w.kw.next(d, i), w.esc.next(d, i)
	may := func(end int) bool { return kw <= end-len(keyword) || esc <= end-2 }
	if depth > maxDepth {
		end := rpc.SkipValue(d, i)
		if may(end) {
			w.fail("the schema nests deeper than %d levels where %s may stand", maxDepth, keyword)
		}
		return end
	}
	params, problem := len(w.params), w.problem
	var keys memberNames
	twice := ""
	var decl, typ []byte
	sub := func(reachable bool) func(string, int) int {
		return func(_ string, v int) int { return w.schema(v, path, reachable, depth+1) }
	}
	end := w.members(i, func(key string, v int) int {
		if keys.add(key) && twice == "" {
			twice = key
		}
		isObject, isArray := v < len(d) && d[v] == '{', v < len(d) && d[v] == '['
		switch {
		case key == keyword || key == "type":
			e := rpc.SkipValue(d, v)
			if key == keyword {
				decl = d[v:e]
			} else {
				typ = d[v:e]
			}
			return e
		case key == "properties" && isObject:
			return w.members(v, func(k string, pv int) int {
				return w.schema(pv, append(path[:len(path):len(path)], k), reachable, depth+1)
			})
		case isArray && slices.Contains(listSchema, key):
			return w.elements(v, sub(false))
		case slices.Contains(oneSchema, key):
			return w.schema(v, path, false, depth+1)
		case isObject && slices.Contains(mapSchema, key):
			return w.members(v, sub(false))
		}
		return rpc.SkipValue(d, v)
	})
	if !may(end) {
		return end
	}
	if twice != "" {
		// Readers differ on which of the two counts: nothing in it does.
		w.params, w.problem = w.params[:params], problem
		w.fail("the schema at %s has the member %q twice", where(path), twice)
		return end
	}
	if decl != nil {
		if p, ok := w.declare(decl, path, reachable, typ); ok {
			w.params = slices.Insert(w.params, params, p) // before those beneath it
		}
	}
	return end
}

// members calls fn for each member of the object at i with its key and
// where its value starts; fn returns where the value ends. It returns
// where the object ends.
func (w *walker) members(i int, fn func(key string, v int) int) int {
	d := w.data
	i = skipSpace(d, i+1)
	if i < len(d) && d[i] == '}' {
		return i + 1
	}
	for i < len(d) && d[i] == '"' {
		ke := rpc.SkipValue(d, i)
		key, ok := rpc.Unquote(d[i:ke])
		if i = skipSpace(d, ke); !ok || i >= len(d) || d[i] != ':' {
			return len(d)
		}
		v := skipSpace(d, i+1)
		if i = skipSpace(d, max(fn(key, v), v)); i >= len(d) {
			return len(d)
		}
		switch d[i] {
		case ',':
			i = skipSpace(d, i+1)
		case '}':
			return i + 1
		default:
			return len(d)
		}
	}
	return len(d)
}

// elements calls fn for each element of the array at i with where it
// starts (the key is ""); fn returns where it ends. It returns where the
// array ends.
func (w *walker) elements(i int, fn func(_ string, v int) int) int {
	d := w.data
	i = skipSpace(d, i+1)
	if i < len(d) && d[i] == ']' {
		return i + 1
	}
	for i < len(d) {
		if i = skipSpace(d, max(fn("", i), i+1)); i >= len(d) {
			return len(d)
		}
		switch d[i] {
		case ',':
			i = skipSpace(d, i+1)
		case ']':
			return i + 1
		default:
			return len(d)
		}
	}
	return len(d)
}

func skipSpace(d []byte, i int) int {
	for i < len(d) && (d[i] == ' ' || d[i] == '\t' || d[i] == '\n' || d[i] == '\r') {
		i++
	}
	return i
}

// memberNames are the names of an object's members so far: a few in a
// slice, more in a map.
type memberNames struct {
	few  []string
	many map[string]struct{}
}

// add adds k and reports whether it was there already.
func (m *memberNames) add(k string) bool {
	if m.many != nil {
		_, seen := m.many[k]
		m.many[k] = struct{}{}
		return seen
	}
	if slices.Contains(m.few, k) {
		return true
	}
	if m.few = append(m.few, k); len(m.few) > 16 {
		m.many = map[string]struct{}{}
		for _, n := range m.few {
			m.many[n] = struct{}{}
		}
	}
	return false
}

// declare checks one declaration against the specification's rules: the
// argument it declares, or false.
func (w *walker) declare(v []byte, path []string, reachable bool, typ []byte) (Param, bool) {
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
			return Param{}, false
		}
		return Param{Name: name, Path: path, Type: t}, true
	}
	return Param{}, false
}

// unique: no two declarations name one header as a gateway may read it:
// the case of the name does not count, nor "_" for "-" (paramKey).
func unique(ps []Param) string {
	first := make(map[string]int, len(ps))
	for i, p := range ps {
		k := paramKey(p.Name)
		if j, seen := first[k]; seen {
			return fmt.Sprintf("%s %q and %q name one header", keyword, ps[j].Name, p.Name)
		}
		first[k] = i
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
