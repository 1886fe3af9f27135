package rpc

// The raw-JSON toolkit: looking into JSON that is already known to be valid
// without decoding it (Kind, Field, ScanObject, EachElement) and editing it
// by splicing bytes (WithoutMember, AppendMembers). The bridge forwards far
// more than it inspects; these let it read the few members it needs in a
// 15 MiB answer without a second copy. Valid (valid.go) and ValueEnd
// (plain.go) check and delimit such JSON in the first place.

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"unicode"
	"unicode/utf8"
)

// errNotObject is returned by ScanObject for input that is not a JSON object.
var errNotObject = errors.New("not a JSON object")

// ScanObject calls fn for each top-level member of the JSON object in data,
// with the member's key (unescaped) and the byte span [start, end) of its
// value within data. It copies nothing, so the bridge can look at the few
// members it cares about in a 15 MiB answer without allocating a second copy.
//
// data must already be valid JSON (see json.Valid); ScanObject only checks
// that it is an object. Returning false from fn stops the scan early.
func ScanObject(data []byte, fn func(key string, start, end int) bool) error {
	return scanMembers(data, func(key string, _, start, end int) bool { return fn(key, start, end) })
}

// scanMembers is ScanObject that also reports where each member's key starts.
func scanMembers(data []byte, fn func(key string, keyStart, start, end int) bool) error {
	var err error
	scanErr := eachMember(data, func(raw []byte, keyStart, start, end int) bool {
		var key string
		if key, err = unquote(raw); err != nil {
			return false
		}
		return fn(key, keyStart, start, end)
	})
	if err != nil {
		return err
	}
	return scanErr
}

// eachMember is the scanner under ScanObject and Field: fn gets each
// member's raw key token, quotes included, so that a lookup need not
// allocate the key.
func eachMember(data []byte, fn func(rawKey []byte, keyStart, start, end int) bool) error {
	i := skipSpace(data, 0)
	if i >= len(data) || data[i] != '{' {
		return errNotObject
	}
	i = skipSpace(data, i+1)
	if i < len(data) && data[i] == '}' {
		return nil
	}
	for i < len(data) {
		if data[i] != '"' {
			return errNotObject
		}
		kStart, kEnd := i, skipString(data, i)
		i = skipSpace(data, kEnd)
		if i >= len(data) || data[i] != ':' {
			return errNotObject
		}
		vStart := skipSpace(data, i+1)
		vEnd := skipValue(data, vStart)
		if !fn(data[kStart:kEnd], kStart, vStart, vEnd) {
			return nil
		}
		i = skipSpace(data, vEnd)
		if i >= len(data) {
			return errNotObject
		}
		switch data[i] {
		case ',':
			i = skipSpace(data, i+1)
		case '}':
			return nil
		default:
			return errNotObject
		}
	}
	return errNotObject
}

// EachMember is ScanObject with each key as its raw token, quotes and any
// escapes included, so that a reader matching a few known keys allocates
// nothing for any of them (Unquote reads a key that has escapes).
func EachMember(data []byte, fn func(rawKey []byte, start, end int) bool) error {
	return eachMember(data, func(raw []byte, _, s, e int) bool { return fn(raw, s, e) })
}

// Unquote returns the text of a JSON string token (a key EachMember
// reported, or a value Field returned); false when it is not a string.
func Unquote(tok []byte) (string, bool) {
	if len(tok) < 2 || tok[0] != '"' {
		return "", false
	}
	s, err := unquote(tok)
	return s, err == nil
}

// Field returns the raw value of the top-level member key of the JSON object
// in data (valid JSON), or nil when the member is absent. When the key occurs
// more than once the last one wins, as in encoding/json.
func Field(data []byte, key string) []byte {
	var v []byte
	_ = eachMember(data, func(raw []byte, _, s, e int) bool {
		if bytes.IndexByte(raw, '\\') < 0 { // the common case: compared in place
			if string(raw[1:len(raw)-1]) == key {
				v = data[s:e]
			}
			return true
		}
		k, err := unquote(raw)
		if err != nil {
			return false
		}
		if k == key {
			v = data[s:e]
		}
		return true
	})
	return v
}

// FoldTwins returns two members of one object in data (valid JSON) that a
// decoder matching keys case-insensitively (encoding/json into a struct,
// Newtonsoft.Json) takes for one: a key given twice, or two keys equal
// under Unicode case folding ("name" and "NAME", "ſ" and "s"). It looks at
// the members of data itself, or, when deep, at those of every object
// within it too. ok is false when there are none. Whoever reads such an
// object by exact keys and forwards it, or acts on it, would not read what
// that decoder reads. One pass over data, whatever its nesting.
func FoldTwins(data []byte, deep bool) (first, second string, ok bool) {
	type level struct {
		obj  bool
		keys map[string]string // folded key → the key as sent
	}
	var stack []level
	wantKey := false
	for i := 0; i < len(data); {
		switch c := data[i]; c {
		case '{', '[':
			stack = append(stack, level{obj: c == '{'})
			wantKey = c == '{'
			i++
		case '}', ']':
			stack = stack[:len(stack)-1]
			wantKey = false
			i++
		case ',':
			wantKey = stack[len(stack)-1].obj
			i++
		case '"':
			end := skipString(data, i)
			if top := len(stack) - 1; wantKey && (deep || top == 0) {
				k, err := unquote(data[i:end])
				if err != nil {
					return "", "", false
				}
				f := foldKey(k)
				if prev, dup := stack[top].keys[f]; dup {
					return prev, k, true
				}
				if stack[top].keys == nil {
					stack[top].keys = map[string]string{}
				}
				stack[top].keys[f] = k
			}
			wantKey = false
			i = end
		default: // whitespace, ':', or a number, true, false, null
			i++
		}
	}
	return "", "", false
}

// FoldKey maps every string that strings.EqualFold holds equal (which is
// how encoding/json matches keys, and how a base may match tool names) to
// one string: each character becomes the smallest of its case-folding
// orbit; a byte that is not UTF-8 becomes U+FFFD, as decoders read it. Two
// strings are EqualFold exactly when their FoldKeys are equal, so a map
// keyed by it finds every such twin at once.
func FoldKey(s string) string { return foldKey(s) }

func foldKey(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	for _, r := range s {
		low := r
		for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
			low = min(low, f)
		}
		b.WriteRune(low)
	}
	return b.String()
}

// unquote returns the string a JSON string token stands for. Keys almost
// never contain escapes, so the common case costs one small allocation.
func unquote(tok []byte) (string, error) {
	plain := true
	for _, c := range tok[1 : len(tok)-1] {
		if c == '\\' {
			plain = false
			break
		}
	}
	if plain {
		return string(tok[1 : len(tok)-1]), nil
	}
	var s string
	err := json.Unmarshal(tok, &s)
	return s, err
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

func skipSpace(data []byte, i int) int {
	for i < len(data) && isSpace(data[i]) {
		i++
	}
	return i
}

// skipString returns the index just past the string token starting at i.
func skipString(data []byte, i int) int {
	q := -1
	for j := i + 1; j < len(data); j += 2 { // past an escape and the character it escapes
		if j = nextSpecial(data, j, &q); j >= len(data) {
			break
		}
		if data[j] == '"' {
			return j + 1
		}
	}
	return len(data)
}

// SkipValue returns the index just past the JSON value (valid JSON) that
// starts at i in data: one pass over it, whatever its nesting, for a
// reader that walks into some values and steps over the rest.
func SkipValue(data []byte, i int) int { return skipValue(data, i) }

// skipValue returns the index just past the (valid) JSON value starting at i.
func skipValue(data []byte, i int) int {
	if i >= len(data) {
		return i
	}
	switch data[i] {
	case '"':
		return skipString(data, i)
	case '{', '[':
		depth := 0
		for j := i; j < len(data); j++ {
			switch data[j] {
			case '"':
				j = skipString(data, j) - 1
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return j + 1
				}
			}
		}
		return len(data)
	default: // number, true, false, null
		j := i
		for j < len(data) {
			switch data[j] {
			case ',', '}', ']', ' ', '\t', '\n', '\r':
				return j
			}
			j++
		}
		return j
	}
}

// JSONKind is the JSON type of a raw value, as Kind reports it.
type JSONKind byte

// The kinds; KindNone is for empty or invalid input.
const (
	KindNone   JSONKind = 0
	KindObject JSONKind = '{'
	KindArray  JSONKind = '['
	KindString JSONKind = '"'
	KindNumber JSONKind = 'n'
	KindTrue   JSONKind = 't'
	KindFalse  JSONKind = 'f'
	KindNull   JSONKind = 'z'
)

// Kind reports the JSON type of a raw value by its first byte.
func Kind(raw []byte) JSONKind {
	i := skipSpace(raw, 0)
	if i >= len(raw) {
		return KindNone
	}
	switch c := raw[i]; c {
	case '{':
		return KindObject
	case '[':
		return KindArray
	case '"':
		return KindString
	case 't':
		return KindTrue
	case 'f':
		return KindFalse
	case 'n':
		return KindNull
	case '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
		return KindNumber
	}
	return KindNone
}

// String returns the text of a raw JSON string value (valid JSON, as
// Field returns it); false when raw is absent or not a string. Bytes that
// are not UTF-8 read as U+FFFD, as every UTF-8 decoder (encoding/json, the
// base's) reads them, so a check on this text is a check on what they see.
func String(raw []byte) (string, bool) {
	if Kind(raw) != KindString {
		return "", false
	}
	if plain := raw[1 : len(raw)-1]; bytes.IndexByte(plain, '\\') < 0 && utf8.Valid(plain) {
		return string(plain), true // no escape, nothing to replace: the text as it lies
	}
	var s string
	return s, json.Unmarshal(raw, &s) == nil
}

// WithoutMember returns the JSON object obj without its top-level member
// key (every occurrence). obj itself is returned, uncopied, when the member
// is absent, which is the common case.
func WithoutMember(obj []byte, key string) []byte {
	found := false
	_ = ScanObject(obj, func(k string, _, _ int) bool {
		found = found || k == key
		return !found
	})
	if !found {
		return obj
	}
	out := make([]byte, 0, len(obj))
	out = append(out, '{')
	_ = scanMembers(obj, func(k string, ks, _, e int) bool {
		if k != key {
			if len(out) > 1 {
				out = append(out, ',')
			}
			out = append(out, obj[ks:e]...)
		}
		return true
	})
	return append(out, '}')
}

// AppendMembers returns obj (a JSON object) with the members in add (a
// fragment such as `"a":1,"b":2`, no braces) placed before its closing brace.
// The result is a new slice; obj is not modified.
func AppendMembers(obj []byte, add string) []byte {
	end := len(obj) - 1
	for end > 0 && obj[end] != '}' {
		end--
	}
	body := obj[:end]
	empty := Kind(obj) == KindObject && skipSpace(obj, skipSpace(obj, 0)+1) == end
	out := make([]byte, 0, len(obj)+len(add)+1)
	out = append(out, body...)
	if !empty {
		out = append(out, ',')
	}
	out = append(out, add...)
	return append(out, obj[end:]...)
}

// EachElement calls fn with the byte span [from, to) of each element of the
// JSON array in data (valid JSON).
func EachElement(data []byte, fn func(from, to int)) {
	i := skipSpace(data, 0)
	if i >= len(data) || data[i] != '[' {
		return
	}
	i = skipSpace(data, i+1)
	for i < len(data) && data[i] != ']' {
		end := skipValue(data, i)
		fn(i, end)
		i = skipSpace(data, end)
		if i < len(data) && data[i] == ',' {
			i = skipSpace(data, i+1)
		}
	}
}
