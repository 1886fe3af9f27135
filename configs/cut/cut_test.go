package cut

import (
	"strings"
	"testing"
)

// TestChars: n characters in all, "…" included, at the edge (n, n+1) and
// with characters of two, three and four bytes, which are never split.
func TestChars(t *testing.T) {
	for _, tt := range []struct {
		in   string
		n    int
		want string
	}{
		{"", 3, ""},
		{"abc", 3, "abc"},
		{"abcd", 3, "ab…"},
		{"abcd", 4, "abcd"},
		{"ééé", 3, "ééé"},
		{"éééé", 3, "éé…"},
		{"日本語テキスト", 4, "日本語…"},
		{"🙂🙂🙂", 2, "🙂…"},
		{"a\xffbc", 3, "a\uFFFD…"}, // a byte that is not UTF-8 counts as one
		{"a\xffb", 3, "a\xffb"},
		{"abc", 1, "…"},
		{"abc", 0, ""},
	} {
		if got := Chars(tt.in, tt.n); got != tt.want {
			t.Errorf("Chars(%q, %d) = %q, want %q", tt.in, tt.n, got, tt.want)
		}
	}
}

// TestBytes: at most n bytes of the text, then "…"; a character that
// would straddle n goes whole; what is not UTF-8 becomes U+FFFD.
func TestBytes(t *testing.T) {
	a := strings.Repeat("a", 8)
	for _, tt := range []struct {
		in   string
		n    int
		want string
	}{
		{a, 8, a},
		{a + "b", 8, a + "…"},
		{a[:7] + "é", 8, a[:7] + "…"}, // é's second byte would be the ninth
		{a[:6] + "é", 8, a[:6] + "é"},
		{a[:6] + "€", 8, a[:6] + "…"},
		{"\xff", 8, "\uFFFD"},
		{a[:7] + "\xff", 8, a[:7] + "…"}, // U+FFFD takes three bytes
		{"abc", 0, "…"},
		{"", 0, ""},
	} {
		if got := Bytes(tt.in, tt.n); got != tt.want {
			t.Errorf("Bytes(%q, %d) = %q, want %q", tt.in, tt.n, got, tt.want)
		}
	}
}
