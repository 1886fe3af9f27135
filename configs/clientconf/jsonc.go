package clientconf

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/mcp-bridge/mcp-bridge/configs/jsonc"
)

// jsoncDoc is a JSON-with-comments file held as its original bytes plus a
// standardized copy of the same length (comments and trailing commas
// blanked out by package jsonc, the project's one JSONC reader), so that plain JSON offsets found in the copy address the
// original. Edits splice text into the original; nothing else changes.
type jsoncDoc struct {
	src      []byte
	std      []byte
	trailing map[int]bool // offsets of trailing commas (blanked in std)
	root     *jnode
}

// jnode is one JSON value's span; objects keep their members.
type jnode struct {
	start, end int // value bytes [start, end)
	object     bool
	members    []jmember
}

type jmember struct {
	key        string
	keyStart   int
	value      *jnode
	commaAfter int // offset of the separating comma after the value, or -1
}

var errNotJSON = errors.New("not valid JSON (comments and trailing commas are fine)")

// parseJSONC reads src. An empty or blank file is an empty object.
func parseJSONC(src []byte) (*jsoncDoc, error) {
	if len(bytes.TrimSpace(src)) == 0 {
		src = []byte("{}\n")
	}
	d := &jsoncDoc{src: src, trailing: map[int]bool{}}
	std, trailing, err := jsonc.Standardize(src)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", errNotJSON, err)
	}
	for _, i := range trailing {
		d.trailing[i] = true
	}
	d.std = std
	if !json.Valid(std) {
		var v any
		err := json.Unmarshal(std, &v)
		return nil, fmt.Errorf("%w: %v", errNotJSON, err)
	}
	p := &jparser{b: std}
	p.ws()
	d.root = p.value()
	if !d.root.object {
		return nil, errors.New("the file's top level is not a JSON object")
	}
	return d, nil
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// jparser walks JSON already known to be valid, recording spans.
type jparser struct {
	b []byte
	i int
}

func (p *jparser) ws() {
	for p.i < len(p.b) && isSpace(p.b[p.i]) {
		p.i++
	}
}

func (p *jparser) value() *jnode {
	n := &jnode{start: p.i}
	switch p.b[p.i] {
	case '{':
		n.object = true
		p.i++
		p.ws()
		for p.b[p.i] != '}' {
			m := jmember{keyStart: p.i, commaAfter: -1}
			ks := p.i
			p.str()
			_ = json.Unmarshal(p.b[ks:p.i], &m.key)
			p.ws()
			p.i++ // ':'
			p.ws()
			m.value = p.value()
			p.ws()
			if p.b[p.i] == ',' {
				m.commaAfter = p.i
				p.i++
				p.ws()
			}
			n.members = append(n.members, m)
		}
		p.i++
	case '[':
		p.i++
		p.ws()
		for p.b[p.i] != ']' {
			p.value()
			p.ws()
			if p.b[p.i] == ',' {
				p.i++
				p.ws()
			}
		}
		p.i++
	case '"':
		p.str()
	default:
		for p.i < len(p.b) && !isSpace(p.b[p.i]) && !strings.ContainsRune(",]}", rune(p.b[p.i])) {
			p.i++
		}
	}
	n.end = p.i
	return n
}

func (p *jparser) str() {
	for p.i++; p.b[p.i] != '"'; p.i++ {
		if p.b[p.i] == '\\' {
			p.i++
		}
	}
	p.i++
}

func (n *jnode) member(key string) *jmember {
	if n == nil || !n.object {
		return nil
	}
	// The last of duplicate keys wins, as in JavaScript.
	for i := len(n.members) - 1; i >= 0; i-- {
		if n.members[i].key == key {
			return &n.members[i]
		}
	}
	return nil
}

// lookup finds the value at path, or nil.
func (d *jsoncDoc) lookup(path []string) *jnode {
	n := d.root
	for _, k := range path {
		m := n.member(k)
		if m == nil {
			return nil
		}
		n = m.value
	}
	return n
}

// decode unmarshals the value at n (comments already blanked).
func (d *jsoncDoc) decode(n *jnode, v any) error {
	return json.Unmarshal(d.std[n.start:n.end], v)
}

// edit is one splice of the original bytes.
type edit struct {
	start, end int
	text       string
}

func apply(src []byte, edits []edit) []byte {
	// Edits never overlap. Apply them from the end of the file backwards;
	// of two at one offset, the one listed first ends up first.
	order := make([]int, len(edits))
	for i := range order {
		order[i] = i
	}
	sort.Slice(order, func(a, b int) bool {
		ea, eb := edits[order[a]], edits[order[b]]
		if ea.start != eb.start {
			return ea.start > eb.start
		}
		return order[a] > order[b]
	})
	out := append([]byte(nil), src...)
	for _, i := range order {
		e := edits[i]
		out = append(out[:e.start], append([]byte(e.text), out[e.end:]...)...)
	}
	return out
}

// set puts value (any JSON-marshalable) at path, creating the objects on
// the way. An existing value is replaced in place; a new member goes after
// the object's last member. Everything else is kept byte for byte.
func (d *jsoncDoc) set(path []string, value any) ([]byte, error) {
	n := d.root
	var where []string
	for i, k := range path {
		if !n.object {
			return nil, fmt.Errorf("%s is not an object", jsonPath(where))
		}
		m := n.member(k)
		if m == nil {
			v := value
			for j := len(path) - 1; j > i; j-- {
				v = orderedObject{{path[j], v}}
			}
			return apply(d.src, d.insert(n, k, v)), nil
		}
		where = append(where, k)
		n = m.value
	}
	text := d.render(value, d.lineIndent(n.start))
	return apply(d.src, []edit{{n.start, n.end, text}}), nil
}

// insert adds "key": value as the last member of object n.
func (d *jsoncDoc) insert(n *jnode, key string, value any) []edit {
	unit := d.indentUnit()
	closeAt := n.end - 1
	if len(n.members) == 0 {
		outer := d.lineIndent(n.start)
		inner := outer + unit
		between := d.src[n.start+1 : closeAt]
		member := d.renderMember(key, value, inner)
		if len(bytes.TrimSpace(d.std[n.start+1:closeAt])) == 0 && len(bytes.TrimSpace(between)) == 0 {
			return []edit{{n.start + 1, closeAt, "\n" + inner + member + "\n" + outer}}
		}
		// Only comments inside: add after them.
		p := lastNonSpace(d.src, n.start+1, closeAt)
		return []edit{{p, p, "\n" + inner + member}}
	}
	first := n.members[0]
	inner := d.lineIndent(first.keyStart)
	last := n.members[len(n.members)-1]
	if !d.aloneOnLine(first.keyStart) {
		// Compact object: stay on one line.
		k, _ := marshal(key, "", "")
		v, _ := marshal(value, "", "")
		return []edit{{last.value.end, last.value.end, ", " + k + ": " + v}}
	}
	var edits []edit
	trailing := ""
	if d.trailingComma(last.value.end, closeAt) >= 0 {
		trailing = "," // the file's style: keep one after the new last member
	} else {
		edits = append(edits, edit{last.value.end, last.value.end, ","})
	}
	p := lastNonSpace(d.src, last.value.end, closeAt)
	edits = append(edits, edit{p, p, "\n" + inner + d.renderMember(key, value, inner) + trailing})
	return edits
}

// remove deletes the member at path; ok is false when it is not there.
func (d *jsoncDoc) remove(path []string) (out []byte, ok bool) {
	parent := d.lookup(path[:len(path)-1])
	if parent == nil || !parent.object {
		return d.src, false
	}
	idx := -1
	for i := range parent.members {
		if parent.members[i].key == path[len(path)-1] {
			idx = i
		}
	}
	if idx < 0 {
		return d.src, false
	}
	m := parent.members[idx]
	closeAt := parent.end - 1
	start := m.keyStart
	if d.aloneOnLine(m.keyStart) {
		start = lineStart(d.src, m.keyStart) - 1 // the newline before
		if start > 0 && d.src[start-1] == '\r' {
			start-- // and its CR
		}
		if start < parent.start+1 {
			start = parent.start + 1
		}
	}
	if len(parent.members) == 1 {
		if len(bytes.TrimSpace(d.std[parent.start+1:closeAt])) == len(bytes.TrimSpace(d.std[m.keyStart:m.value.end])) &&
			len(bytes.TrimSpace(d.src[parent.start+1:closeAt])) == len(bytes.TrimSpace(d.src[m.keyStart:m.value.end])) {
			return apply(d.src, []edit{{parent.start + 1, closeAt, ""}}), true
		}
		// Its trailing comma goes with it: "{,}" is no JSONC.
		if tc := d.trailingComma(m.value.end, closeAt); tc >= 0 {
			return apply(d.src, []edit{{start, tc + 1, ""}}), true
		}
		return apply(d.src, []edit{{start, m.value.end, ""}}), true
	}
	if m.commaAfter >= 0 {
		if !d.aloneOnLine(m.keyStart) {
			// Compact: drop the member, its comma and the space after.
			end := m.commaAfter + 1
			for end < closeAt && d.src[end] == ' ' {
				end++
			}
			return apply(d.src, []edit{{m.keyStart, end, ""}}), true
		}
		return apply(d.src, []edit{{start, m.commaAfter + 1, ""}}), true
	}
	// The last member. With a trailing comma of its own, the one before
	// keeps its comma (it becomes the trailing one); without, that comma goes.
	if tc := d.trailingComma(m.value.end, closeAt); tc >= 0 && d.aloneOnLine(m.keyStart) {
		return apply(d.src, []edit{{start, tc + 1, ""}}), true
	}
	prev := parent.members[idx-1]
	edits := []edit{{start, m.value.end, ""}}
	if prev.commaAfter >= 0 {
		if d.aloneOnLine(m.keyStart) {
			edits = append(edits, edit{prev.commaAfter, prev.commaAfter + 1, ""})
		} else {
			edits = []edit{{prev.commaAfter, m.value.end, ""}}
		}
	}
	return apply(d.src, edits), true
}

// trailingComma is the offset of a trailing comma in [from, to), or -1.
func (d *jsoncDoc) trailingComma(from, to int) int {
	for i := from; i < to; i++ {
		if d.trailing[i] {
			return i
		}
	}
	return -1
}

// aloneOnLine: only spaces precede offset on its line.
func (d *jsoncDoc) aloneOnLine(off int) bool {
	ls := lineStart(d.src, off)
	return len(bytes.TrimLeft(d.src[ls:off], " \t")) == 0 && ls > 0
}

func lineStart(b []byte, off int) int {
	return bytes.LastIndexByte(b[:off], '\n') + 1
}

func lastNonSpace(b []byte, from, to int) int {
	p := to
	for p > from && isSpace(b[p-1]) {
		p--
	}
	return p
}

func (d *jsoncDoc) lineIndent(off int) string {
	ls := lineStart(d.src, off)
	e := ls
	for e < off && (d.src[e] == ' ' || d.src[e] == '\t') {
		e++
	}
	return string(d.src[ls:e])
}

// indentUnit is the file's indentation step (two spaces when unknown).
func (d *jsoncDoc) indentUnit() string {
	for _, line := range bytes.Split(d.src, []byte("\n")) {
		t := bytes.TrimLeft(line, " \t")
		if len(t) > 0 && len(t) < len(line) {
			return string(line[:len(line)-len(t)])
		}
	}
	return "  "
}

func (d *jsoncDoc) renderMember(key string, value any, indent string) string {
	k, _ := marshal(key, "", "")
	return k + ": " + d.render(value, indent)
}

// render is value as indented JSON whose continuation lines start at
// indent; "" indent with a compact document gives one line.
func (d *jsoncDoc) render(value any, indent string) string {
	s, _ := marshal(value, indent, d.indentUnit())
	return s
}

// marshal is JSON without HTML escaping; indent "" and unit "" is compact.
func marshal(v any, prefix, unit string) (string, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if unit != "" {
		enc.SetIndent(prefix, unit)
	}
	if err := enc.Encode(v); err != nil {
		return "", err
	}
	return strings.TrimRight(buf.String(), "\n"), nil
}

// orderedObject is a JSON object that keeps its keys in this order.
type orderedObject []kv

type kv struct {
	k string
	v any
}

func (o orderedObject) MarshalJSON() ([]byte, error) {
	var buf bytes.Buffer
	buf.WriteByte('{')
	for i, p := range o {
		if i > 0 {
			buf.WriteByte(',')
		}
		k, err := marshal(p.k, "", "")
		if err != nil {
			return nil, err
		}
		v, err := marshal(p.v, "", "")
		if err != nil {
			return nil, err
		}
		buf.WriteString(k + ":" + v)
	}
	buf.WriteByte('}')
	return buf.Bytes(), nil
}

func jsonPath(p []string) string {
	if len(p) == 0 {
		return "the top level"
	}
	q := make([]string, len(p))
	for i, s := range p {
		q[i] = fmt.Sprintf("%q", s)
	}
	return strings.Join(q, " → ")
}
