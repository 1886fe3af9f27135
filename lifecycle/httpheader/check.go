package httpheader

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/mcp-bridge/mcp-bridge/rpc"
)

// Check holds a tools/call's headers to its arguments (an object, null or
// absent, as decoded once by lifecycle.ReadRequest), as a server must
// before anything reaches the tool. For each declared argument: with a
// value, its header must be there, once, decode (Decode) and say that
// value; without one (absent, or null), the header must be absent too. A
// header of a name the tool does not declare is none of its business. The
// error says which rule failed, in the words of the HeaderMismatch answer.
//
// h is keyed as net/http keys what it read; names are compared without
// case all the same, so that no spelling of a name escapes the check.
func (t *Tool) Check(args []byte, h map[string][]string) error {
	if t == nil {
		return nil
	}
	if t.Problem != "" {
		return fmt.Errorf("the tool's %s declarations are invalid (%s), so a call of it cannot be checked: a 2026-07-28 client leaves it out of its tool list", keyword, t.Problem)
	}
	sent := sentParams(h)
	for _, p := range t.Params {
		name := ParamPrefix + p.Name
		got := sent[paramKey(p.Name)]
		var vs []string
		if got != nil {
			vs = got.values
		}
		v := valueAt(args, p.Path)
		arg := strings.Join(p.Path, ".")
		switch k := rpc.Kind(v); {
		case got.misspelt(p.Name) != "":
			return fmt.Errorf("the header %s is %s with \"_\" and \"-\" swapped, which a gateway may read as %s; send it as %s only", got.misspelt(p.Name), name, name, name)
		case len(vs) > 1:
			return fmt.Errorf("the %s header was sent %d times; send it once", name, len(vs))
		case k == rpc.KindNone || k == rpc.KindNull:
			if len(vs) == 1 {
				return fmt.Errorf("the %s header was sent, but the argument %s has no value in the body: leave the header out", name, arg)
			}
		case len(vs) == 0:
			return fmt.Errorf("the %s header is required: the argument %s has a value in the body", name, arg)
		default:
			got, ok := Decode(vs[0])
			if !ok {
				return fmt.Errorf("the %s header value %s is not valid: printable ASCII as it is, or =?base64?…?= with strict Base64 of UTF-8", name, quote(vs[0]))
			}
			if err := matches(v, got); err != nil {
				return fmt.Errorf("the %s header value %s does not match the body's argument %s: %w", name, quote(got), arg, err)
			}
		}
	}
	return nil
}

// Undeclared are the names of h's Mcp-Param-* headers the tool (nil:
// none) does not declare, after the prefix, each as rpc.FoldKey writes it,
// in order; nil when there are none. A client that sends one read another
// schema than this one, perhaps a newer one (a server then reads the tool
// list again before it checks).
func (t *Tool) Undeclared(h map[string][]string) []string {
	sent := sentParams(h)
	if t != nil {
		for _, p := range t.Params {
			delete(sent, paramKey(p.Name))
		}
	}
	if len(sent) == 0 {
		return nil
	}
	out := make([]string, 0, len(sent))
	for k := range sent {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// Headers are the headers a client sends with a call of the tool, by
// their canonical names, each value encoded (Encode): an argument without
// a value, or with one no header can carry (an object, an array), gets
// none. A tool whose declarations are invalid gets none: a client does not
// call it.
func (t *Tool) Headers(args []byte) map[string]string {
	if t == nil || t.Problem != "" {
		return nil
	}
	out := map[string]string{}
	for _, p := range t.Params {
		if s, ok := asText(valueAt(args, p.Path)); ok {
			out[p.Header()] = Encode(s)
		}
	}
	return out
}

// paramPrefixKey is ParamPrefix as rpc.FoldKey writes it.
var paramPrefixKey = rpc.FoldKey(ParamPrefix)

// paramKey is the name of an Mcp-Param-* header after the prefix as a
// gateway may read it: without case (rpc.FoldKey, as strings.EqualFold
// compares), and "_" as "-" (CGI-style header environments, proxies that
// let underscores through): two names with one key are one header to it.
func paramKey(name string) string { return rpc.FoldKey(strings.ReplaceAll(name, "_", "-")) }

// sent is what a request sent of one Mcp-Param-* header (paramKey): the
// values of every spelling together, and each spelling.
type sent struct {
	values    []string
	spellings []spelling
}

type spelling struct {
	name   string // rpc.FoldKey of the name after the prefix
	header string // the header's name as sent
}

// misspelt is a header of s whose name is not name's ("_" and "-"
// swapped), as sent; "" when there is none.
func (s *sent) misspelt(name string) string {
	if s == nil {
		return ""
	}
	want := rpc.FoldKey(name)
	for _, sp := range s.spellings {
		if sp.name != want {
			return sp.header
		}
	}
	return ""
}

// sentParams are h's Mcp-Param-* headers by the paramKey of their names
// after the prefix: one pass over h, whatever the tool declares.
func sentParams(h map[string][]string) map[string]*sent {
	out := map[string]*sent{}
	for k, v := range h {
		if len(k) <= len(ParamPrefix) || k[0] != 'M' && k[0] != 'm' {
			continue // the usual headers, at no cost
		}
		name, ok := strings.CutPrefix(rpc.FoldKey(k), paramPrefixKey)
		if !ok || name == "" {
			continue
		}
		key := strings.ReplaceAll(name, "_", "-") // paramKey: FoldKey leaves "_" and "-" be
		s := out[key]
		if s == nil {
			s = &sent{}
			out[key] = s
		}
		s.values = append(s.values, v...)
		s.spellings = append(s.spellings, spelling{name, k})
	}
	return out
}

// valueAt is the argument at path (property names from the root), raw;
// nil when a step has no value or is not an object.
func valueAt(args []byte, path []string) []byte {
	v := args
	for _, k := range path {
		if rpc.Kind(v) != rpc.KindObject {
			return nil
		}
		v = rpc.Field(v, k)
	}
	return v
}

// matches compares a body value with a decoded header value: a string
// exactly, a boolean as "true" or "false", a number by its value (42,
// 42.0 and 4.2e1 are one), so that the header says what the base gets.
func matches(v []byte, got string) error {
	switch rpc.Kind(v) {
	case rpc.KindString:
		s, ok := exactString(v)
		if !ok {
			return errors.New("it holds a lone UTF-16 surrogate, which reads differently in every decoder")
		}
		if s != got {
			return fmt.Errorf("the body says %s", quote(s))
		}
	case rpc.KindTrue, rpc.KindFalse:
		if got != string(v) {
			return fmt.Errorf("the body says %s", v)
		}
	case rpc.KindNumber:
		want, _ := parseDecimal(string(v))
		if !want.safe() {
			return fmt.Errorf("the body's %s is an integer outside ±(2^53−1), which a header cannot carry safely", v)
		}
		d, ok := parseDecimal(got)
		if !ok || d != want {
			return fmt.Errorf("the body says %s", v)
		}
	default:
		return errors.New("it is an object or an array; a header carries only a string, an integer or a boolean")
	}
	return nil
}

// asText is a body value as a header's text (before encoding): a string
// as it is, a boolean as "true" or "false", an integer in decimal, another
// number as the body wrote it; false when no header can carry it.
func asText(v []byte) (string, bool) {
	switch rpc.Kind(v) {
	case rpc.KindString:
		return exactString(v)
	case rpc.KindTrue, rpc.KindFalse:
		return string(v), true
	case rpc.KindNumber:
		d, ok := parseDecimal(string(v))
		if !ok || !d.safe() {
			return "", false
		}
		if d.exp >= 0 {
			s := d.digits + strings.Repeat("0", int(d.exp))
			if d.digits == "" {
				s = "0"
			}
			if d.neg {
				s = "-" + s
			}
			return s, true
		}
		return string(v), true
	}
	return "", false
}

// exactString is a JSON string's text; false when an escape in it is a
// lone UTF-16 surrogate, which encoding/json reads as U+FFFD and another
// decoder (the base's) may keep.
func exactString(raw []byte) (string, bool) {
	for i := 0; i+5 < len(raw); i++ {
		if raw[i] == '\\' {
			if raw[i+1] == 'u' {
				if u, err := strconv.ParseUint(string(raw[i+2:i+6]), 16, 16); err == nil && u >= 0xd800 && u <= 0xdfff {
					lo := u <= 0xdbff && i+11 < len(raw) && raw[i+6] == '\\' && raw[i+7] == 'u'
					if lo {
						l, err := strconv.ParseUint(string(raw[i+8:i+12]), 16, 16)
						lo = err == nil && l >= 0xdc00 && l <= 0xdfff
					}
					if !lo {
						return "", false
					}
					i += 6 // the pair's low half, checked
				}
			}
			i++ // the escaped character
		}
	}
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return "", false
	}
	return s, true
}

// decimal is a JSON number's exact value: its sign, its digits without
// leading or trailing zeros ("" for zero), and the power of ten of the
// last one.
type decimal struct {
	neg    bool
	digits string
	exp    int64
}

// maxSafe is 2^53−1, the largest integer every JSON reader keeps exactly.
const maxSafe = 1<<53 - 1

// safe: not an integer outside ±(2^53−1).
func (d decimal) safe() bool {
	if d.exp < 0 {
		return true // has a fraction
	}
	if int64(len(d.digits))+d.exp > 16 {
		return false
	}
	n, err := strconv.ParseInt(d.digits+strings.Repeat("0", int(d.exp)), 10, 64)
	return err == nil && n <= maxSafe || d.digits == ""
}

// parseDecimal reads s as a JSON number (its grammar exactly: no "+", no
// leading zeros, no hex), exponents within ±10^9.
func parseDecimal(s string) (decimal, bool) {
	var d decimal
	i := 0
	if i < len(s) && s[i] == '-' {
		d.neg = true
		i++
	}
	start := i
	switch {
	case i < len(s) && s[i] == '0':
		i++
	case i < len(s) && s[i] >= '1' && s[i] <= '9':
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
	default:
		return d, false
	}
	digits := s[start:i]
	var frac string
	if i < len(s) && s[i] == '.' {
		i++
		fs := i
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
		if i == fs {
			return d, false
		}
		frac = s[fs:i]
	}
	var exp int64
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		es := i
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		ds := i
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
		if i == ds || i-ds > 9 {
			return d, false
		}
		exp, _ = strconv.ParseInt(s[es:i], 10, 64)
	}
	if i != len(s) {
		return d, false
	}
	all := strings.TrimLeft(digits+frac, "0")
	exp -= int64(len(frac))
	trimmed := strings.TrimRight(all, "0")
	exp += int64(len(all) - len(trimmed))
	d.digits = trimmed
	d.exp = exp
	if d.digits == "" { // zero, whatever its sign and exponent
		return decimal{}, true
	}
	return d, true
}

// quote is a value for a message: quoted, and cut past 64 bytes.
func quote(s string) string {
	if len(s) > 64 {
		return strconv.Quote(s[:64]) + "…"
	}
	return strconv.Quote(s)
}
