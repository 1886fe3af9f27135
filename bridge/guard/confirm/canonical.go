package confirm

import (
	"bytes"
	"math"
	"slices"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/mcp-bridge/mcp-bridge/rpc"
)

// canonical is args in a form that does not depend on spacing, member
// order or how a string is spelt, and keeps every string exactly as sent,
// for binding requestState to them. encoding/json is no such form: it
// reads every lone surrogate (\ud800, \udbff) as U+FFFD, so a state
// issued for one string would redeem for another. Members keep each their
// own entry (a name twice is refused before; here it would stay two);
// numbers stay as written.
//
// It runs in the reader (a 2026-07-28 question is issued there), so its
// cost is linear in the arguments, however deep they nest: a first look
// finds where every object and array ends, then one pass writes each
// value once into one buffer, an object's members in the order of their
// keys. (Writing each member's form apart and copying it into its
// object's copied every byte once per level: 2 MB nested 9,000 deep
// allocated 17 GB and held the reader 13 s.)
func canonical(args []byte) []byte {
	args = bytes.TrimSpace(args)
	if len(args) == 0 || rpc.Kind(args) == rpc.KindNull {
		return []byte("{}")
	}
	if !rpc.Valid(args) || len(args) > math.MaxInt32 {
		return args // bound as sent, byte for byte
	}
	c := canonicalizer{in: args, out: make([]byte, 0, len(args))}
	c.index()
	c.value(0, 0)
	return c.out
}

// canonicalizer writes the canonical form of in (valid JSON, no space
// around it) to out.
type canonicalizer struct {
	in  []byte
	out []byte
	// nest has an entry for each object and array of in, in the order
	// they open: where it ends, and the number of the one after it and
	// everything inside it (so that a member's value is skipped in one
	// step, whatever it holds).
	nest []nested
	// members and keys are stacks shared by the objects being written,
	// each object's members on top while its values are written: the
	// members (by index, as nested objects may grow them) and their keys'
	// canonical forms.
	members []member
	keys    []byte
}

// nested and member hold offsets as int32 (canonical binds arguments of
// 2 GiB or more as sent), so that what they take stays a small multiple
// of the arguments even when every other byte opens an array.
type nested struct{ end, next int32 }

type member struct {
	key   [2]int32 // its key's form, in keys
	start int32    // its value, in in
	nest  int32    // the entry in nest of the first object or array at or after start
}

// index fills nest, and makes room for members, in two passes over in:
// the first counts the objects and arrays and the members (their colons),
// so that neither slice is grown, and copied, on the way.
func (c *canonicalizer) index() {
	containers, members := 0, 0
	for i := 0; i < len(c.in); i++ {
		switch c.in[i] {
		case '"':
			i = skipString(c.in, i) - 1
		case '{', '[':
			containers++
		case ':':
			members++
		}
	}
	c.nest = make([]nested, 0, containers)
	c.members = make([]member, 0, members)
	var open []int
	for i := 0; i < len(c.in); i++ {
		switch c.in[i] {
		case '"':
			i = skipString(c.in, i) - 1
		case '{', '[':
			open = append(open, len(c.nest))
			c.nest = append(c.nest, nested{})
		case '}', ']':
			k := open[len(open)-1]
			open = open[:len(open)-1]
			c.nest[k] = nested{end: int32(i + 1), next: int32(len(c.nest))}
		}
	}
}

// value writes the value starting at i; n is the entry in nest of the
// first object or array at or after i (the value's own when it is one).
func (c *canonicalizer) value(i, n int) {
	switch c.in[i] {
	case '{':
		c.object(i, n)
	case '[':
		c.out = append(c.out, '[')
		j, n := skipSpace(c.in, i+1), n+1
		for first := true; c.in[j] != ']'; first = false {
			if !first {
				c.out = append(c.out, ',')
			}
			end, next := c.span(j, n)
			c.value(j, n)
			j, n = c.following(end), next
		}
		c.out = append(c.out, ']')
	case '"':
		c.out = appendCanonicalString(c.out, c.in[i:skipString(c.in, i)])
	default: // a number, true, false or null, as written
		c.out = append(c.out, c.in[i:skipScalar(c.in, i)]...)
	}
}

// object writes the object starting at i (its entry in nest: n): its
// members' keys first, each in its canonical form, then the members in
// the order of those forms, each value written once.
func (c *canonicalizer) object(i, n int) {
	base, keysBase := len(c.members), len(c.keys)
	j, n := skipSpace(c.in, i+1), n+1
	for c.in[j] != '}' {
		keyEnd := skipString(c.in, j)
		from := len(c.keys)
		c.keys = appendCanonicalString(c.keys, c.in[j:keyEnd])
		v := skipSpace(c.in, skipSpace(c.in, keyEnd)+1) // past the colon
		end, next := c.span(v, n)
		c.members = append(c.members, member{key: [2]int32{int32(from), int32(len(c.keys))}, start: int32(v), nest: int32(n)})
		j, n = c.following(end), next
	}
	top := len(c.members)
	slices.SortStableFunc(c.members[base:top], func(x, y member) int {
		return bytes.Compare(c.keys[x.key[0]:x.key[1]], c.keys[y.key[0]:y.key[1]])
	})
	c.out = append(c.out, '{')
	for k := base; k < top; k++ { // by index: the values' own objects grow members
		m := c.members[k]
		if k > base {
			c.out = append(c.out, ',')
		}
		c.out = append(append(c.out, c.keys[m.key[0]:m.key[1]]...), ':')
		c.value(int(m.start), int(m.nest))
	}
	c.out = append(c.out, '}')
	c.members, c.keys = c.members[:base], c.keys[:keysBase]
}

// span is where the value starting at i ends, and the entry in nest of
// the first object or array after it; n is as for value.
func (c *canonicalizer) span(i, n int) (end, next int) {
	switch c.in[i] {
	case '{', '[':
		return int(c.nest[n].end), int(c.nest[n].next)
	case '"':
		return skipString(c.in, i), n
	}
	return skipScalar(c.in, i), n
}

// following is where the next member or element starts after a value
// that ends at end, or the closing bracket.
func (c *canonicalizer) following(end int) int {
	j := skipSpace(c.in, end)
	if c.in[j] == ',' {
		j = skipSpace(c.in, j+1)
	}
	return j
}

// skipSpace is the index of the first byte at or after i that is not
// JSON whitespace.
func skipSpace(data []byte, i int) int {
	for i < len(data) && (data[i] == ' ' || data[i] == '\t' || data[i] == '\n' || data[i] == '\r') {
		i++
	}
	return i
}

// skipString is the index after the string token starting at i (valid
// JSON).
func skipString(data []byte, i int) int {
	for i++; i < len(data); i++ {
		switch data[i] {
		case '\\':
			i++
		case '"':
			return i + 1
		}
	}
	return i
}

// skipScalar is the index after the number, true, false or null starting
// at i (valid JSON).
func skipScalar(data []byte, i int) int {
	for i < len(data) {
		switch data[i] {
		case ',', '}', ']', ' ', '\t', '\n', '\r':
			return i
		}
		i++
	}
	return i
}

// appendCanonicalString appends the string token tok (quotes included)
// spelt one way: each character as UTF-8 (a surrogate pair as its
// character), but for the quote, the backslash and control characters,
// escaped as \" \\ and \u00xx; a lone surrogate as \udxxx, which no
// character's spelling is; a byte that is not UTF-8 as it is.
func appendCanonicalString(b, tok []byte) []byte {
	const hex = "0123456789abcdef"
	s := tok[1 : len(tok)-1]
	b = append(b, '"')
	put := func(r rune) {
		switch {
		case r == '"' || r == '\\':
			b = append(b, '\\', byte(r))
		case r < 0x20 || (r >= 0xd800 && r <= 0xdfff):
			b = append(b, '\\', 'u', hex[r>>12&0xf], hex[r>>8&0xf], hex[r>>4&0xf], hex[r&0xf])
		default:
			b = utf8.AppendRune(b, r)
		}
	}
	for i := 0; i < len(s); {
		c := s[i]
		if c != '\\' {
			r, n := utf8.DecodeRune(s[i:])
			if r == utf8.RuneError && n == 1 {
				b = append(b, c) // not UTF-8: kept, never taken for U+FFFD
			} else {
				put(r)
			}
			i += n
			continue
		}
		switch s[i+1] {
		case 'u':
			r := hexRune(s[i+2 : i+6])
			i += 6
			if utf16.IsSurrogate(r) && r < 0xdc00 && i+6 <= len(s) && s[i] == '\\' && s[i+1] == 'u' {
				if pair := utf16.DecodeRune(r, hexRune(s[i+2:i+6])); pair != utf8.RuneError {
					r = pair
					i += 6
				}
			}
			put(r)
			continue
		case 'b':
			put('\b')
		case 'f':
			put('\f')
		case 'n':
			put('\n')
		case 'r':
			put('\r')
		case 't':
			put('\t')
		default: // \" \\ \/
			put(rune(s[i+1]))
		}
		i += 2
	}
	return append(b, '"')
}

// hexRune reads four hex digits (valid JSON has them after \u).
func hexRune(h []byte) rune {
	var r rune
	for _, c := range h {
		switch {
		case c >= '0' && c <= '9':
			c -= '0'
		case c >= 'a' && c <= 'f':
			c -= 'a' - 10
		default:
			c -= 'A' - 10
		}
		r = r<<4 | rune(c)
	}
	return r
}
