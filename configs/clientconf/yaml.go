package clientconf

// The YAML clients (Continue, Goose) are edited with github.com/goccy/go-yaml:
// its AST keeps comments, key order, blank lines, flow and quoting styles,
// and prints the file back nearly as written, where gopkg.in/yaml.v3's
// encoder re-indents the whole file and drops blank lines. The library
// reads the file, makes the change on its tree (merge, replace or remove
// one node) and prints it; no YAML is written by hand. What it would
// re-space elsewhere (two spaces before a comment become one, say) is kept
// as the user wrote it: the lines the edit did not touch are taken from
// the original file, and the result is accepted only if it reads back as
// exactly the library's own output.
//
// The library and the clients' own readers (Goose's serde_yaml, a libyaml
// port; Continue's) do not read every odd file alike: where the library's
// tree does not nest as the file's indentation does, it has misread the
// file, and an edit there could take a user's key with it or put our entry
// where the client does not look. Install leaves such a file as it is
// (misread). No second YAML library runs in the product: the fuzz tests
// FuzzYAMLInstall and FuzzYAMLUninstall hold every edit to a libyaml
// reader (gopkg.in/yaml.v3, a test dependency), which is how these forms
// were found.

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/goccy/go-yaml"
	"github.com/goccy/go-yaml/ast"
	"github.com/goccy/go-yaml/parser"
	"github.com/goccy/go-yaml/token"
)

// yamlFormat is Continue's and Goose's config.yaml, edited with the
// library.
type yamlFormat struct{}

func (yamlFormat) set(f File, src []byte, name string, s Server) ([]byte, bool, error) {
	return yamlSet(src, f.Client, name, s)
}

func (yamlFormat) remove(f File, src []byte, name string) ([]byte, bool, error) {
	return yamlRemove(src, f.Client, name)
}

func (yamlFormat) servers(f File, src []byte) ([]entriesAt, error) {
	servers, err := yamlServers(src, f.Client)
	if err != nil {
		return nil, err
	}
	return []entriesAt{{[]string{f.Client.ServersKey()}, servers}}, nil
}

func (yamlFormat) document(c *Client, name string, s Server) (string, error) {
	out, _, err := yamlSet(nil, c, name, s)
	return strings.TrimSuffix(string(out), "\n"), err
}

// libraryPanic turns a panic inside the YAML library (it has a few on
// odd input; the fuzz test found them) into an error: the file is then
// left as it is.
func libraryPanic(err *error) {
	if r := recover(); r != nil {
		*err = fmt.Errorf("the YAML library failed on this file (%v): left as it is", r)
	}
}

var bom = []byte("\xef\xbb\xbf")

// yamlDoc is a parsed YAML client file.
type yamlDoc struct {
	file *ast.File
	root yaml.MapSlice // the document decoded, keys in order; nil when empty
}

func parseYAML(src []byte) (*yamlDoc, error) {
	if oddLineBreak(src) {
		return nil, errors.New("the file holds a line break other than LF or CRLF (a lone CR, NEL, U+2028 or U+2029), which YAML readers do not agree on: left as it is")
	}
	file, err := parser.ParseBytes(src, parser.ParseComments)
	if err != nil {
		return nil, fmt.Errorf("not valid YAML: %v", err)
	}
	if len(file.Docs) > 1 {
		return nil, errors.New("the file holds several YAML documents: left as it is")
	}
	d := &yamlDoc{file: file}
	var v any
	if err := yaml.UnmarshalWithOptions(src, &v, yaml.UseOrderedMap()); err != nil {
		return nil, fmt.Errorf("not valid YAML: %v", err)
	}
	switch v := v.(type) {
	case nil:
	case yaml.MapSlice:
		d.root = v
	default:
		return nil, errors.New("the file is not a YAML mapping: left as it is")
	}
	return d, nil
}

// oddLineBreak reports a line break other than LF and CRLF. YAML 1.1
// readers (the clients' own, and gopkg.in/yaml.v3) end a line at a lone
// CR, NEL, LS and PS; the editor's library does not. Text it reads as part
// of one value, a client would read as the next key: an edit of that value
// would take the key out with it. Such files are left alone.
func oddLineBreak(src []byte) bool {
	for i, c := range src {
		if c == '\r' && (i+1 == len(src) || src[i+1] != '\n') {
			return true
		}
	}
	return bytes.Contains(src, []byte("\u0085")) || bytes.Contains(src, []byte("\u2028")) || bytes.Contains(src, []byte("\u2029"))
}

// empty: the file has no content yet (no document, or only comments).
func (d *yamlDoc) empty() bool {
	return len(d.file.Docs) == 0 || d.file.Docs[0].Body == nil
}

func mapGet(m yaml.MapSlice, key string) (any, int) {
	for i, it := range m {
		if k, ok := it.Key.(string); ok && k == key {
			return it.Value, i
		}
	}
	return nil, -1
}

func mapSet(m yaml.MapSlice, key string, v any) yaml.MapSlice {
	if _, i := mapGet(m, key); i >= 0 {
		m[i].Value = v
		return m
	}
	return append(m, yaml.MapItem{Key: key, Value: v})
}

// yamlEntry finds the server name: in the mapping under the client's key
// (Goose), or the item of the list under it whose "name" it is (Continue).
// index is the item's place in the list.
func yamlEntry(c *Client, d *yamlDoc, name string) (entry yaml.MapSlice, index int, err error) {
	container, at := mapGet(d.root, c.ServersKey())
	if at < 0 || container == nil {
		return nil, -1, nil
	}
	if c.YAMLList {
		list, ok := container.([]any)
		if !ok {
			return nil, -1, fmt.Errorf("%s is not a list: left as it is", c.ServersKey())
		}
		for i, item := range list {
			m, ok := item.(yaml.MapSlice)
			if !ok {
				continue
			}
			if n, _ := mapGet(m, "name"); n == name {
				return m, i, nil
			}
		}
		return nil, -1, nil
	}
	m, ok := container.(yaml.MapSlice)
	if !ok {
		return nil, -1, fmt.Errorf("%s is not a mapping: left as it is", c.ServersKey())
	}
	v, i := mapGet(m, name)
	if i < 0 {
		return nil, -1, nil
	}
	entry, ok = v.(yaml.MapSlice)
	if !ok {
		return nil, -1, fmt.Errorf("%s.%s is not a mapping: left as it is", c.ServersKey(), name)
	}
	return entry, i, nil
}

// yamlNewEntry is the entry as a new one is written.
func yamlNewEntry(c *Client, name string, s Server) yaml.MapSlice {
	var e yaml.MapSlice
	if c.NameInEntry {
		e = append(e, yaml.MapItem{Key: "name", Value: name})
	}
	if c.Type != "" {
		e = append(e, yaml.MapItem{Key: "type", Value: c.Type})
	}
	e = append(e, yaml.MapItem{Key: c.commandKey(), Value: s.Command}, yaml.MapItem{Key: "args", Value: yamlArgs(s)}, yaml.MapItem{Key: c.envKey(), Value: yamlEnv(nil, s.Env)})
	for _, x := range c.Extra {
		e = append(e, yaml.MapItem{Key: x.k, Value: x.v})
	}
	return e
}

func yamlArgs(s Server) []string {
	if s.Args == nil {
		return []string{}
	}
	return s.Args
}

// yamlEnv is the user's variables with the bridge's CAD_MCP_* ones set
// in place (new ones after them, and old ones no longer given taken out).
func yamlEnv(old yaml.MapSlice, env map[string]string) yaml.MapSlice {
	out := yaml.MapSlice{}
	for _, it := range old {
		k, _ := it.Key.(string)
		if v, ours := env[k]; ours {
			out = append(out, yaml.MapItem{Key: k, Value: v})
		} else if !strings.HasPrefix(k, "CAD_MCP_") {
			out = append(out, it)
		}
	}
	for _, k := range sortedKeys(env) {
		if _, i := mapGet(old, k); i < 0 {
			out = append(out, yaml.MapItem{Key: k, Value: env[k]})
		}
	}
	return out
}

// yamlSet adds or updates the server name; the members of an existing
// entry that install does not own, and the user's own variables, stay.
func yamlSet(src []byte, c *Client, name string, s Server) (_ []byte, _ bool, err error) {
	defer libraryPanic(&err)
	if rest, ok := bytes.CutPrefix(src, bom); ok { // the library does not read a BOM: kept aside
		out, existed, err := yamlSet(rest, c, name, s)
		if err != nil || bytes.Equal(out, rest) {
			return src, existed, err
		}
		return append(append([]byte(nil), bom...), out...), existed, nil
	}
	if bytes.Contains(src, []byte("\r\n")) { // edited with LF lines; the caller gives the file its CRLF back
		lf := bytes.ReplaceAll(src, []byte("\r\n"), []byte("\n"))
		out, existed, err := yamlSet(lf, c, name, s)
		if err != nil || bytes.Equal(out, lf) {
			return src, existed, err
		}
		return out, existed, nil
	}
	d, err := parseYAML(src)
	if err != nil {
		return nil, false, err
	}
	entry, index, err := yamlEntry(c, d, name)
	if err != nil {
		return nil, false, err
	}
	misreadSrc := misread(d, c, name, index) // before the edit changes the tree
	key := c.ServersKey()
	b := (&yaml.PathBuilder{}).Root()
	var path *yaml.Path
	var node any
	merge := true
	// want is the document the edit must produce, checked at the end.
	want := append(yaml.MapSlice(nil), d.root...)
	container, at := mapGet(d.root, key)
	switch {
	case entry != nil:
		updated := append(yaml.MapSlice(nil), entry...)
		if c.Type != "" {
			updated = mapSet(updated, "type", c.Type)
		}
		updated = mapSet(updated, c.commandKey(), s.Command)
		updated = mapSet(updated, "args", yamlArgs(s))
		oldEnv, _ := mapGet(entry, c.envKey())
		oldMap, _ := oldEnv.(yaml.MapSlice)
		updated = mapSet(updated, c.envKey(), yamlEnv(oldMap, s.Env))
		if yamlEqual(entry, updated) {
			return src, true, nil
		}
		if c.YAMLList {
			list := append([]any(nil), container.([]any)...)
			list[index] = updated
			want = mapSet(want, key, list)
		} else {
			want = mapSet(want, key, mapSet(append(yaml.MapSlice(nil), container.(yaml.MapSlice)...), name, updated))
		}
		// Only the members install owns are replaced, one by one: the
		// user's own members are never printed again.
		entryPath := func(member ...string) *yaml.Path { return yamlEntryPath(c, name, index, member...) }
		if n, err := entryPath().FilterFile(d.file); err != nil || isFlow(n) != nil || flowAbove(d.file, key) {
			return nil, true, fmt.Errorf("%s is written in flow style ({…} or […]), which install does not edit: write it as a block (one member per line), then run install again", name)
		}
		for _, it := range updated {
			m := it.Key.(string)
			old, at := mapGet(entry, m)
			if at >= 0 && yamlEqual(old, it.Value) {
				continue
			}
			var err error
			if oldEnv, ok := old.(yaml.MapSlice); ok && m == c.envKey() {
				if yamlEnvInPlace(d.file, entryPath, m, oldEnv, s.Env) {
					continue
				}
				if usersOwnVars(oldEnv) && !plainMapping(d.file, entryPath(m)) {
					// Printing the user's variables again would change them
					// (a key that is a number, a tag): refuse rather than guess.
					return nil, true, fmt.Errorf("the %s of %s is written in flow style ({…}), which install does not edit: write it as a block (one variable per line), then run install again", m, name)
				}
			}
			if at >= 0 {
				// A flow collection ({…}, […]) is replaced in flow
				// style: the library fails on block text in its place
				// (connect's "env: {}" turned back into the bridge's).
				var text []byte
				if n, err := entryPath(m).FilterFile(d.file); err == nil && isFlow(n) != nil {
					text, _ = yaml.MarshalWithOptions(it.Value, yaml.Flow(true))
				} else {
					text, _ = yaml.Marshal(it.Value)
				}
				err = entryPath(m).ReplaceWithReader(d.file, bytes.NewReader(text))
			} else {
				text, _ := yaml.Marshal(yaml.MapSlice{it})
				err = entryPath().MergeFromReader(d.file, bytes.NewReader(text))
			}
			if err != nil {
				return nil, true, fmt.Errorf("cannot edit %s here: %v", name, err)
			}
		}
		path = nil
	case d.empty():
		if !onlyComments(src) {
			return nil, false, errReadersDisagree // the library read text as nothing
		}
		var doc yaml.MapSlice
		for _, x := range c.NewFile {
			doc = append(doc, yaml.MapItem{Key: x.k, Value: x.v})
		}
		doc = append(doc, yaml.MapItem{Key: key, Value: yamlContainer(c, name, s)})
		out, err := yaml.Marshal(doc)
		if err != nil {
			return nil, false, err
		}
		return out, false, nil
	default:
		switch {
		case at < 0:
			path, node = b.Build(), yaml.MapSlice{{Key: key, Value: yamlContainer(c, name, s)}}
			want = append(want, yaml.MapItem{Key: key, Value: yamlContainer(c, name, s)})
		case container == nil: // "extensions:" with nothing under it
			if err := replaceWithBlock(d.file, key, yamlContainer(c, name, s)); err != nil {
				return nil, false, err
			}
			want = moveLast(mapSet(want, key, yamlContainer(c, name, s)), key)
		default:
			path, node = b.Child(key).Build(), yamlContainer(c, name, s)
			if c.YAMLList {
				want = mapSet(want, key, append(append([]any(nil), container.([]any)...), yamlNewEntry(c, name, s)))
			} else {
				want = mapSet(want, key, append(append(yaml.MapSlice(nil), container.(yaml.MapSlice)...), yaml.MapItem{Key: name, Value: yamlNewEntry(c, name, s)}))
			}
		}
	}
	// Block text cannot go into a flow collection ({…} or […]), and the
	// library would re-print the user's flow text around it: an empty one
	// ("extensions: {}") is replaced, a full one refused.
	if root, servers := flowNodes(d.file, key); path != nil && (root != nil || servers != nil && merge) {
		if servers == nil || servers.nonEmpty {
			return nil, entry != nil, fmt.Errorf("%s is written in flow style ({…} or […]), which install does not edit: write it as a block (one entry per line), then run install again", key)
		}
		path = nil
		if err := replaceWithBlock(d.file, key, yamlContainer(c, name, s)); err != nil {
			return nil, false, err
		}
		want = moveLast(want, key)
	}
	if path != nil {
		text, err := yaml.Marshal(node)
		if err != nil {
			return nil, false, err
		}
		if merge {
			err = path.MergeFromReader(d.file, bytes.NewReader(text))
		} else {
			err = path.ReplaceWithReader(d.file, bytes.NewReader(text))
		}
		if err != nil {
			return nil, entry != nil, fmt.Errorf("cannot edit %s here: %v", key, err)
		}
	}
	out, err := keepUntouchedLines(src, d.file.String())
	if err != nil {
		return nil, entry != nil, err
	}
	if got, err := yamlValue(out); err != nil || !yamlEqual(got, want) {
		return nil, entry != nil, fmt.Errorf("cannot edit %s in this file safely (the result would not read as intended): left as it is", key)
	}
	if misreadSrc {
		return nil, entry != nil, errReadersDisagree
	}
	// What install writes, uninstall must be able to take out again.
	if _, _, err := yamlRemove(out, c, name); err != nil {
		return nil, entry != nil, fmt.Errorf("cannot edit %s in this file safely (uninstall could not take the entry out again: %v): left as it is", key, err)
	}
	return out, entry != nil, nil
}

// yamlEntryPath is the path to the entry name (Continue: the list item at
// index), or to one of its members.
func yamlEntryPath(c *Client, name string, index int, member ...string) *yaml.Path {
	p := (&yaml.PathBuilder{}).Root().Child(c.ServersKey())
	if c.YAMLList {
		p = p.Index(uint(index))
	} else {
		p = p.Child(name)
	}
	for _, m := range member {
		p = p.Child(m)
	}
	return p.Build()
}

var errReadersDisagree = errors.New("YAML readers do not agree on what this file says (an unusual form: odd indentation, tags, complex keys, …), so it cannot be edited safely: left as it is")

// misread reports a file the library has read otherwise than its
// indentation says where install edits it: the document's own keys, and
// the members of the entry name at index (-1: none yet), which install
// sets one by one among the user's. Elsewhere what the library reads
// does not matter: those lines are written back as they were, and what
// it makes of them is checked by reading the result back. (Uninstall
// takes the entry out whole, and is checked by reading back alone.)
func misread(d *yamlDoc, c *Client, name string, index int) bool {
	if d.empty() {
		return false
	}
	if misnested(d.file.Docs[0].Body) {
		return true
	}
	if index < 0 {
		return false
	}
	entry, err := yamlEntryPath(c, name, index).FilterFile(d.file)
	return err == nil && misnested(entry)
}

// misnested reports a block mapping whose tree does not follow its
// indentation: a key's block value, on the lines after it, not indented
// more than the key, as YAML requires (a list may stand at its key's
// column). The library gave the key a value that a libyaml reader takes
// for the mapping's next key, or the document's.
func misnested(n ast.Node) bool {
	var pairs []*ast.MappingValueNode
	switch m := unwrapped(n).(type) {
	case *ast.MappingNode:
		if !m.IsFlowStyle {
			pairs = m.Values
		}
	case *ast.MappingValueNode: // a mapping of one pair
		pairs = []*ast.MappingValueNode{m}
	}
	for _, pair := range pairs {
		key := pair.Key.GetToken().Position
		var at *token.Position
		list := false
		switch v := unwrapped(pair.Value).(type) {
		case *ast.MappingNode:
			if !v.IsFlowStyle && len(v.Values) > 0 {
				at = v.Values[0].Key.GetToken().Position
			}
		case *ast.MappingValueNode:
			at = v.Key.GetToken().Position
		case *ast.SequenceNode:
			if !v.IsFlowStyle {
				at, list = v.GetToken().Position, true
			}
		}
		if at != nil && at.Line > key.Line && (at.Column < key.Column || at.Column == key.Column && !list) {
			return true
		}
	}
	return false
}

// unwrapped is the node a tag or an anchor stands before.
func unwrapped(n ast.Node) ast.Node {
	for {
		switch x := n.(type) {
		case *ast.TagNode:
			n = x.Value
		case *ast.AnchorNode:
			n = x.Value
		default:
			return n
		}
	}
}

// onlyComments: src holds nothing but blank lines, comments, directives
// and document markers, which is all a file the library reads as empty
// may hold before a new one replaces it (it reads a lone tag and colon,
// "!\t:", as nothing at all, where libyaml reads a key).
func onlyComments(src []byte) bool {
	for line := range strings.SplitSeq(string(src), "\n") {
		line = strings.TrimSpace(line)
		if strings.HasPrefix(line, "---") || strings.HasPrefix(line, "...") {
			line = strings.TrimSpace(line[3:])
		}
		if line != "" && line[0] != '#' && line[0] != '%' {
			return false
		}
	}
	return true
}

// flowNode is a collection written in flow style ({…} or […]).
type flowNode struct{ nonEmpty bool }

func isFlow(n ast.Node) *flowNode {
	switch n := n.(type) {
	case *ast.MappingNode:
		if n.IsFlowStyle {
			return &flowNode{len(n.Values) > 0}
		}
	case *ast.SequenceNode:
		if n.IsFlowStyle {
			return &flowNode{len(n.Values) > 0}
		}
	}
	return nil
}

// flowAbove: the document or the client's key is in flow style.
func flowAbove(f *ast.File, key string) bool {
	root, servers := flowNodes(f, key)
	return root != nil || servers != nil
}

// flowNodes says whether the document itself, and the client's key in
// it, are written in flow style (nil when not).
func flowNodes(f *ast.File, key string) (root, servers *flowNode) {
	flow := isFlow
	if len(f.Docs) == 0 {
		return nil, nil
	}
	root = flow(f.Docs[0].Body)
	if n, err := (&yaml.PathBuilder{}).Root().Child(key).Build().FilterFile(f); err == nil {
		servers = flow(n)
	}
	return root, servers
}

// moveLast puts the key at the end of the mapping.
func moveLast(m yaml.MapSlice, key string) yaml.MapSlice {
	v, i := mapGet(m, key)
	if i < 0 {
		return m
	}
	return append(append(append(yaml.MapSlice{}, m[:i]...), m[i+1:]...), yaml.MapItem{Key: key, Value: v})
}

// replaceWithBlock sets the value of the document's key (an empty one:
// nothing, or "{}") to v, printed as a block under the key: the library's
// own replace would keep the old value's place, after the colon. The key
// is taken out and added again as a block at the end of the document,
// with the comments it had: the lines above it, and the one on its line
// ("extensions: {} # note", "extensions: # note"), which the parser
// gives the empty value.
func replaceWithBlock(f *ast.File, key string, v any) error {
	root, ok := f.Docs[0].Body.(*ast.MappingNode)
	if !ok {
		return fmt.Errorf("the file holds nothing but an empty %s: remove that line, then run install again", key)
	}
	var comment, lineComment *ast.CommentGroupNode
	kept := root.Values[:0:0]
	for _, mv := range root.Values {
		if mv.Key.GetToken().Value == key {
			comment, lineComment = mv.GetComment(), mv.Value.GetComment()
		} else {
			kept = append(kept, mv)
		}
	}
	root.Values = kept
	text, err := yaml.Marshal(yaml.MapSlice{{Key: key, Value: v}})
	switch {
	case err == nil && len(kept) == 0:
		// The key was all the document held: the library's merge into an
		// empty mapping indents the whole block (ten spaces).
		var nf *ast.File
		if nf, err = parser.ParseBytes(text, parser.ParseComments); err == nil {
			f.Docs[0].Body = nf.Docs[0].Body
		}
	case err == nil:
		err = (&yaml.PathBuilder{}).Root().Build().MergeFromReader(f, bytes.NewReader(text))
	}
	if err != nil {
		return fmt.Errorf("cannot edit %s here: %v", key, err)
	}
	if root, ok := f.Docs[0].Body.(*ast.MappingNode); ok && len(root.Values) > 0 {
		last := root.Values[len(root.Values)-1]
		if comment != nil {
			_ = last.SetComment(comment)
		}
		if lineComment != nil {
			_ = last.Value.SetComment(lineComment)
		}
	}
	return nil
}

// usersOwnVars reports whether an environment holds a variable that is not
// one of the bridge's (CAD_MCP_*).
func usersOwnVars(env yaml.MapSlice) bool {
	for _, it := range env {
		if k, _ := it.Key.(string); !strings.HasPrefix(k, "CAD_MCP_") {
			return true
		}
	}
	return false
}

// plainMapping reports whether the mapping at p has only plain string keys
// and untagged scalar values, which print again as they read.
func plainMapping(f *ast.File, p *yaml.Path) bool {
	n, err := p.FilterFile(f)
	m, ok := n.(*ast.MappingNode)
	if err != nil || !ok {
		return false
	}
	for _, v := range m.Values {
		switch v.Key.GetToken().Type {
		case token.StringType, token.DoubleQuoteType, token.SingleQuoteType:
		default:
			return false
		}
		switch v.Value.(type) {
		case *ast.StringNode, *ast.IntegerNode, *ast.FloatNode, *ast.BoolNode:
		default:
			return false
		}
	}
	return true
}

// yamlEnvInPlace sets the bridge's variables in the entry's environment
// one by one (and takes out its old ones), so the user's own variables
// are not printed again. False when the environment is not a block
// mapping it can edit so: the caller replaces it whole.
func yamlEnvInPlace(f *ast.File, entryPath func(...string) *yaml.Path, envKey string, old yaml.MapSlice, env map[string]string) bool {
	n, err := entryPath(envKey).FilterFile(f)
	m, ok := n.(*ast.MappingNode)
	if err != nil || !ok || m.IsFlowStyle {
		return false
	}
	var gone []string
	for _, it := range old {
		k, _ := it.Key.(string)
		if _, keep := env[k]; !keep && strings.HasPrefix(k, "CAD_MCP_") {
			gone = append(gone, k)
		}
	}
	if len(gone) == len(m.Values) {
		return false // nothing of the user's in it
	}
	kept := m.Values[:0:0]
	for _, v := range m.Values {
		if !slices.Contains(gone, v.Key.GetToken().Value) {
			kept = append(kept, v)
		}
	}
	m.Values = kept
	for _, k := range sortedKeys(env) {
		var err error
		if v, at := mapGet(old, k); at < 0 {
			text, _ := yaml.Marshal(yaml.MapSlice{{Key: k, Value: env[k]}})
			err = entryPath(envKey).MergeFromReader(f, bytes.NewReader(text))
		} else if !yamlEqual(v, env[k]) {
			text, _ := yaml.Marshal(env[k])
			err = entryPath(envKey, k).ReplaceWithReader(f, bytes.NewReader(text))
		}
		if err != nil {
			return false
		}
	}
	return true
}

// yamlContainer is what goes under the client's key for one new server.
func yamlContainer(c *Client, name string, s Server) any {
	if c.YAMLList {
		return []any{yamlNewEntry(c, name, s)}
	}
	return yaml.MapSlice{{Key: name, Value: yamlNewEntry(c, name, s)}}
}

// yamlRemove takes the server name out and nothing else.
func yamlRemove(src []byte, c *Client, name string) (_ []byte, _ bool, err error) {
	defer libraryPanic(&err)
	if rest, ok := bytes.CutPrefix(src, bom); ok {
		out, removed, err := yamlRemove(rest, c, name)
		if err != nil || !removed {
			return nil, removed, err
		}
		return append(append([]byte(nil), bom...), out...), true, nil
	}
	if bytes.Contains(src, []byte("\r\n")) {
		return yamlRemove(bytes.ReplaceAll(src, []byte("\r\n"), []byte("\n")), c, name)
	}
	d, err := parseYAML(src)
	if err != nil {
		return nil, false, err
	}
	entry, index, err := yamlEntry(c, d, name)
	if err != nil || entry == nil {
		return nil, false, err
	}
	if root, servers := flowNodes(d.file, c.ServersKey()); root != nil || servers != nil {
		return nil, false, fmt.Errorf("%s is written in flow style ({…} or […]), which uninstall does not edit: take %s out by hand", c.ServersKey(), name)
	}
	path := (&yaml.PathBuilder{}).Root().Child(c.ServersKey()).Build()
	container, err := path.FilterFile(d.file)
	if err != nil {
		return nil, false, err
	}
	// The comment the servers' value has (install put the one on the
	// key's line there) stays when the last server goes and the value
	// becomes empty again.
	lineComment := container.GetComment()
	switch n := container.(type) {
	case *ast.SequenceNode:
		if index >= len(n.Values) {
			return nil, false, errors.New("cannot find the entry in the file's tree")
		}
		n.Values = append(n.Values[:index:index], n.Values[index+1:]...)
		if len(n.ValueHeadComments) > index {
			n.ValueHeadComments = append(n.ValueHeadComments[:index:index], n.ValueHeadComments[index+1:]...)
		}
		if len(n.Values) == 0 {
			err = path.ReplaceWithReader(d.file, strings.NewReader("[]\n"))
		}
	case *ast.MappingNode:
		kept := n.Values[:0:0]
		for _, v := range n.Values {
			if v.Key.GetToken().Value != name {
				kept = append(kept, v)
			}
		}
		if len(kept) == 0 && lineComment == nil && len(n.Values) > 0 {
			lineComment = n.Values[0].GetComment() // read back, it is the first entry's
		}
		n.Values = kept
		if len(kept) == 0 {
			err = path.ReplaceWithReader(d.file, strings.NewReader("{}\n"))
		}
	case *ast.MappingValueNode: // the only server
		err = path.ReplaceWithReader(d.file, strings.NewReader("{}\n"))
	default:
		return nil, false, fmt.Errorf("cannot edit %s here", c.ServersKey())
	}
	if err != nil {
		return nil, false, err
	}
	if now, ferr := path.FilterFile(d.file); ferr == nil && lineComment != nil && now.GetComment() == nil {
		_ = now.SetComment(lineComment)
	}
	out, err := keepUntouchedLines(src, d.file.String())
	if err != nil {
		return nil, false, err
	}
	// The result must be the document without that one server.
	want := append(yaml.MapSlice(nil), d.root...)
	servers, _ := mapGet(d.root, c.ServersKey())
	if c.YAMLList {
		list := servers.([]any)
		want = mapSet(want, c.ServersKey(), append(append([]any{}, list[:index]...), list[index+1:]...))
	} else {
		m := servers.(yaml.MapSlice)
		want = mapSet(want, c.ServersKey(), append(append(yaml.MapSlice{}, m[:index]...), m[index+1:]...))
	}
	if got, err := yamlValue(out); err != nil || !yamlEqual(got, want) {
		return nil, false, fmt.Errorf("cannot take %s out of %s safely (the result would not read as intended): left as it is", name, c.ServersKey())
	}
	return out, true, nil
}

// keepUntouchedLines puts the library's output edited back over the
// user's own bytes: the lines before and after the part the edit changed
// are the original file's, so everything the edit did not touch stays as
// the user wrote it (the library would re-space some of it, and re-prints
// a few rare forms wrongly). When the library's print of the unedited
// file does not line up with the file, the file is left as it is.
func keepUntouchedLines(src []byte, edited string) ([]byte, error) {
	d, err := parser.ParseBytes(src, parser.ParseComments)
	if err != nil {
		return nil, err
	}
	base := strings.SplitAfter(d.String(), "\n")
	orig := strings.SplitAfter(string(src), "\n")
	out := strings.SplitAfter(edited, "\n")
	if len(src) == 0 {
		return []byte(edited), nil
	}
	// Each line of the library's print must be the file's line, give or
	// take spacing; otherwise lines cannot be matched up safely.
	lineUp := len(base) == len(orig)
	for i := 0; lineUp && i < len(base); i++ {
		lineUp = strings.Join(strings.Fields(base[i]), " ") == strings.Join(strings.Fields(orig[i]), " ")
	}
	if !lineUp {
		return nil, errors.New("cannot line the library's view of this file up with the file: left as it is")
	}
	if len(base)*len(out) > 4_000_000 {
		return nil, errors.New("the file is too long to edit line by line: left as it is")
	}
	// A line diff of the library's print before and after the edit: the
	// lines both share are taken from the user's file, the others from the
	// edit.
	lcs := make([][]int32, len(base)+1)
	for i := range lcs {
		lcs[i] = make([]int32, len(out)+1)
	}
	for i := len(base) - 1; i >= 0; i-- {
		for j := len(out) - 1; j >= 0; j-- {
			if base[i] == out[j] {
				lcs[i][j] = lcs[i+1][j+1] + 1
			} else {
				lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
			}
		}
	}
	var b strings.Builder
	open := false // the last line written has no line end yet
	put := func(l string) {
		if open && l != "" {
			b.WriteString("\n") // the file's last line had no line end, and more follows now
		}
		b.WriteString(l)
		if l != "" {
			open = !strings.HasSuffix(l, "\n")
		}
	}
	i, j := 0, 0
	for i < len(base) || j < len(out) {
		switch {
		case i < len(base) && j < len(out) && base[i] == out[j]:
			put(orig[i])
			i, j = i+1, j+1
		case j < len(out) && (i == len(base) || lcs[i][j+1] >= lcs[i+1][j]):
			put(out[j])
			j++
		default:
			i++
		}
	}
	return []byte(b.String()), nil
}

func yamlValue(b []byte) (any, error) {
	var v any
	err := yaml.UnmarshalWithOptions(b, &v, yaml.UseOrderedMap())
	return v, err
}

func yamlEqual(a, b any) bool {
	x, err1 := yaml.Marshal(a)
	y, err2 := yaml.Marshal(b)
	return err1 == nil && err2 == nil && bytes.Equal(x, y)
}

// yamlServers reads every server in a YAML client's file.
func yamlServers(src []byte, c *Client) (_ map[string]Server, err error) {
	defer libraryPanic(&err)
	src = bytes.TrimPrefix(src, bom)
	d, err := parseYAML(src)
	if err != nil {
		return nil, err
	}
	out := map[string]Server{}
	container, _ := mapGet(d.root, c.ServersKey())
	add := func(name string, e yaml.MapSlice) {
		s := Server{Env: map[string]string{}}
		s.Command, _ = mustGet(e, c.commandKey()).(string)
		// A remote server's URL (Continue's "url", Goose's "uri"): no
		// entry of ours has one, but install must not take a server of
		// the user's own for an empty entry (replaceable).
		for _, k := range []string{"url", "uri"} {
			if u, ok := mustGet(e, k).(string); ok && s.URL == "" {
				s.URL = u
			}
		}
		if args, ok := mustGet(e, "args").([]any); ok {
			for _, a := range args {
				if str, ok := a.(string); ok {
					s.Args = append(s.Args, str)
				}
			}
		}
		if env, ok := mustGet(e, c.envKey()).(yaml.MapSlice); ok {
			for _, it := range env {
				k, _ := it.Key.(string)
				if v, ok := it.Value.(string); ok {
					s.Env[k] = v
				}
			}
		}
		out[name] = s
	}
	switch container := container.(type) {
	case []any:
		for _, item := range container {
			if m, ok := item.(yaml.MapSlice); ok {
				if n, ok := mustGet(m, "name").(string); ok {
					add(n, m)
				}
			}
		}
	case yaml.MapSlice:
		for _, it := range container {
			k, _ := it.Key.(string)
			if m, ok := it.Value.(yaml.MapSlice); ok {
				add(k, m)
			}
		}
	}
	return out, nil
}

func mustGet(m yaml.MapSlice, key string) any {
	v, _ := mapGet(m, key)
	return v
}
