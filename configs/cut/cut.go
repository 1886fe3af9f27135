// Package cut shortens text for a message, a table, a log or a span: by
// characters (what a person reads) or by bytes (what a limit counts),
// never inside a character, and says it did with "…". It imports only
// the standard library, so that every layer cuts alike.
package cut

import (
	"strings"
	"unicode/utf8"
)

// Ellipsis ends text that was cut.
const Ellipsis = "…"

// Chars is s when it has at most n characters; else its first n-1
// characters and "…": n characters in all. Bytes that are not UTF-8
// count as a character each, and become U+FFFD when s is cut.
func Chars(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	if n < 1 {
		return ""
	}
	r := []rune(s)
	return string(r[:n-1]) + Ellipsis
}

// Bytes is s made UTF-8 (U+FFFD for what is not) and, when that is over
// n bytes, cut to at most n at a character's start and followed by "…":
// for a limit on what s itself may take (a span attribute, a reason kept
// in memory), "…" aside.
func Bytes(s string, n int) string {
	if !utf8.ValidString(s) {
		s = strings.ToValidUTF8(s, "\uFFFD")
	}
	if len(s) <= n {
		return s
	}
	n = max(n, 0)
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + Ellipsis
}
