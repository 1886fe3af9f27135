// Package tracecontext reads and writes W3C Trace Context values
// (traceparent and tracestate, https://www.w3.org/TR/trace-context/) as
// MCP carries them in params._meta. A client's value is hostile: it is
// validated strictly, a bad traceparent is no parent at all (the bridge
// starts a new trace), and a bad or oversized tracestate is dropped whole,
// so nothing a client sends is passed on unless it was checked.
package tracecontext

import (
	"strings"
)

// Parent is a parsed traceparent.
type Parent struct {
	TraceID [16]byte
	SpanID  [8]byte
	// Flags keeps the sampled bit only: the other bits have no meaning
	// this bridge knows, and a flag it passed on unread could mean
	// something to the next hop.
	Flags byte
}

// FlagSampled is the traceparent's sampled bit.
const FlagSampled = 0x01

// Sampled reports the sampled bit.
func (p Parent) Sampled() bool { return p.Flags&FlagSampled != 0 }

// ParseParent reads a traceparent header value. It accepts version 00
// exactly as specified (55 characters, lower-case hex, neither id all
// zeros), and a later version the way the specification asks a version-00
// reader to: its first 55 characters in version 00's shape, followed by
// nothing or by "-" and more. Version ff is invalid.
func ParseParent(s string) (Parent, bool) {
	const size = 55
	if len(s) < size {
		return Parent{}, false
	}
	ver, ok := hexByte(s[0:2])
	if !ok || ver == 0xff {
		return Parent{}, false
	}
	if ver == 0 && len(s) != size {
		return Parent{}, false
	}
	if len(s) > size && s[size] != '-' {
		return Parent{}, false
	}
	if s[2] != '-' || s[35] != '-' || s[52] != '-' {
		return Parent{}, false
	}
	var p Parent
	if !hexInto(p.TraceID[:], s[3:35]) || !hexInto(p.SpanID[:], s[36:52]) {
		return Parent{}, false
	}
	flags, ok := hexByte(s[53:55])
	if !ok || allZero(p.TraceID[:]) || allZero(p.SpanID[:]) {
		return Parent{}, false
	}
	p.Flags = flags & FlagSampled
	return p, true
}

// String is p as a version-00 traceparent.
func (p Parent) String() string {
	var b [55]byte
	const hexDigits = "0123456789abcdef"
	put := func(dst []byte, src []byte) {
		for i, c := range src {
			dst[2*i], dst[2*i+1] = hexDigits[c>>4], hexDigits[c&15]
		}
	}
	b[0], b[1], b[2] = '0', '0', '-'
	put(b[3:35], p.TraceID[:])
	b[35] = '-'
	put(b[36:52], p.SpanID[:])
	b[52] = '-'
	put(b[53:55], []byte{p.Flags})
	return string(b[:])
}

// Limits on a tracestate: the specification's 32 list members, and the 512
// characters it asks every vendor to pass on. A longer value is dropped
// rather than cut, so that what goes on is what came in.
const (
	MaxMembers    = 32
	MaxStateBytes = 512
)

// ParseState validates a tracestate header value and returns it in
// canonical form (members joined by ",", blanks around them removed), or
// false when any member is invalid, a key repeats, there are more than
// MaxMembers members, or the value is longer than MaxStateBytes. An empty
// or blank value is valid and canonically "".
func ParseState(s string) (string, bool) {
	if len(s) > MaxStateBytes {
		return "", false
	}
	var keys [MaxMembers]string
	n := 0
	var out strings.Builder
	for m := range strings.SplitSeq(s, ",") {
		m = strings.Trim(m, " \t")
		if m == "" {
			continue // the specification allows empty members
		}
		key, value, ok := strings.Cut(m, "=")
		if !ok || !validKey(key) || !validValue(value) {
			return "", false
		}
		if n == MaxMembers {
			return "", false
		}
		for _, k := range keys[:n] {
			if k == key {
				return "", false
			}
		}
		keys[n] = key
		n++
		if out.Len() > 0 {
			out.WriteByte(',')
		}
		out.WriteString(m)
	}
	return out.String(), true
}

// validKey: simple-key = lcalpha 0*255(lcalpha / DIGIT / "_" / "-"/ "*" / "/"),
// or multi-tenant-key = tenant-id "@" system-id, with
// tenant-id = (lcalpha / DIGIT) 0*240(…) and system-id = lcalpha 0*13(…).
func validKey(k string) bool {
	tenant, system, multi := strings.Cut(k, "@")
	if !multi {
		return len(k) >= 1 && len(k) <= 256 && lcalpha(k[0]) && keyRest(k[1:])
	}
	return len(tenant) >= 1 && len(tenant) <= 241 && (lcalpha(tenant[0]) || digit(tenant[0])) && keyRest(tenant[1:]) &&
		len(system) >= 1 && len(system) <= 14 && lcalpha(system[0]) && keyRest(system[1:])
}

func keyRest(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !lcalpha(c) && !digit(c) && c != '_' && c != '-' && c != '*' && c != '/' {
			return false
		}
	}
	return true
}

// validValue: 0*255(chr) nblk-chr, where chr is 0x20-0x7E except "," and
// "=", and nblk-chr is chr but not a space.
func validValue(v string) bool {
	if len(v) < 1 || len(v) > 256 || v[len(v)-1] == ' ' {
		return false
	}
	for i := 0; i < len(v); i++ {
		c := v[i]
		if c < 0x20 || c > 0x7e || c == ',' || c == '=' {
			return false
		}
	}
	return true
}

func lcalpha(c byte) bool { return c >= 'a' && c <= 'z' }
func digit(c byte) bool   { return c >= '0' && c <= '9' }

// hexByte reads two lower-case hex digits.
func hexByte(s string) (byte, bool) {
	hi, ok1 := hexDigit(s[0])
	lo, ok2 := hexDigit(s[1])
	return hi<<4 | lo, ok1 && ok2
}

func hexInto(dst []byte, s string) bool {
	for i := range dst {
		b, ok := hexByte(s[2*i : 2*i+2])
		if !ok {
			return false
		}
		dst[i] = b
	}
	return true
}

// hexDigit accepts lower case only, as the specification requires.
func hexDigit(c byte) (byte, bool) {
	switch {
	case c >= '0' && c <= '9':
		return c - '0', true
	case c >= 'a' && c <= 'f':
		return c - 'a' + 10, true
	}
	return 0, false
}

func allZero(b []byte) bool {
	for _, c := range b {
		if c != 0 {
			return false
		}
	}
	return true
}
