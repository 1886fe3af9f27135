// Package httpheader is what the 2026-07-28 Streamable HTTP transport
// mirrors from a request's body into its headers, for the gateways in
// between: the value encoding of Mcp-Name and Mcp-Param-* (Encode, Decode),
// and SEP-2243's custom headers, the tool arguments whose schema says
// "x-mcp-header" (Read, Tool.Check for the serving side, Tool.Headers for
// the relaying one, mcp-bridge connect).
package httpheader

import (
	"encoding/base64"
	"strings"
	"unicode/utf8"
)

// The Base64 sentinel: a value that cannot travel as plain header text is
// written "=?base64?" + Base64 of its UTF-8 + "?=", markers in lower case.
const (
	sentinelStart = "=?base64?"
	sentinelEnd   = "?="
)

// Encode writes a value as a client must: as it is when it is printable
// ASCII (space inside, not at either end) and does not start like an
// encoded word ("=?"); else in the Base64 form. A tab or any other control
// character is encoded too: the transport's rules count them as unsafe.
// Every value that starts with "=?" is encoded, not only one that reads as
// the whole sentinel: a gateway that decodes by the opening marker alone
// would read "=?base64?ZXU=" as "eu", where the server reads the text.
func Encode(s string) string {
	plain := !strings.HasPrefix(s, "=?") && (s == "" || s[0] != ' ' && s[len(s)-1] != ' ')
	for i := 0; plain && i < len(s); i++ {
		plain = s[i] >= 0x20 && s[i] < 0x7f
	}
	if plain {
		return s
	}
	return sentinelStart + base64.StdEncoding.EncodeToString([]byte(s)) + sentinelEnd
}

// Decode reads a header value as a server must before it compares it with
// the body. The Base64 form is decoded strictly: the standard alphabet, the
// padding that makes its length a multiple of four, no bits left over, and
// UTF-8 inside; anything else that starts with "=?base64?" and ends with
// "?=" is refused, not taken as text, so that a gateway that decodes
// leniently cannot read another value than the bridge. A value without the
// markers (or with them in another case) is literal, and may hold only what
// a header field value may: printable ASCII, space and tab. ok is false
// when the value is refused.
func Decode(v string) (s string, ok bool) {
	if !isSentinel(v) {
		for i := 0; i < len(v); i++ {
			if c := v[i]; (c < 0x20 && c != '\t') || c >= 0x7f {
				return "", false
			}
		}
		return v, true
	}
	inner := v[len(sentinelStart) : len(v)-len(sentinelEnd)]
	for i := 0; i < len(inner); i++ {
		// base64's decoder skips CR and LF, which must not pass either.
		if c := inner[i]; !(c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '+' || c == '/' || c == '=') {
			return "", false
		}
	}
	raw, err := base64.StdEncoding.Strict().DecodeString(inner)
	if err != nil || !utf8.Valid(raw) {
		return "", false
	}
	return string(raw), true
}

// isSentinel: v starts with the opening marker and ends with the closing
// one, the two not overlapping ("=?base64?=" is text).
func isSentinel(v string) bool {
	return len(v) >= len(sentinelStart)+len(sentinelEnd) &&
		strings.HasPrefix(v, sentinelStart) && strings.HasSuffix(v, sentinelEnd)
}
