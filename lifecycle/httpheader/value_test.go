package httpheader

import (
	"encoding/base64"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestDecode(t *testing.T) {
	cases := []struct {
		name, in, want string
		ok             bool
	}{
		{"plain", "us-west1", "us-west1", true},
		{"empty", "", "", true},
		{"inner space and tab", "us west\t1", "us west\t1", true},
		{"Base64 with padding", "=?base64?SGVsbG8=?=", "Hello", true},
		{"Base64 of UTF-8", "=?base64?SGVsbG8sIOS4lueVjA==?=", "Hello, 世界", true},
		{"Base64 of nothing", "=?base64??=", "", true},
		{"Base64 of the sentinel itself", "=?base64?PT9iYXNlNjQ/bGl0ZXJhbD89?=", "=?base64?literal?=", true},
		{"Base64 of a newline", "=?base64?bGluZTEKbGluZTI=?=", "line1\nline2", true},
		// SEP-2243's table: strict padding and alphabet.
		{"padding missing", "=?base64?SGVsbG8?=", "", false},
		{"padding one short", "=?base64?SGVsbA=?=", "", false},
		{"padding too much", "=?base64?SGVsbG8==?=", "", false},
		{"not in the alphabet", "=?base64?SGVs!!!bG8=?=", "", false},
		{"URL alphabet", "=?base64?_-8=?=", "", false},
		{"space inside", "=?base64?SGVs bG8=?=", "", false},
		{"bits left over", "=?base64?SGVsbG9=?=", "", false},
		{"not UTF-8 inside", "=?base64?/w==?=", "", false},
		// Literal: the markers must both be there, in lower case.
		{"no prefix", "SGVsbG8=", "SGVsbG8=", true},
		{"no suffix", "=?base64?SGVsbG8=", "=?base64?SGVsbG8=", true},
		{"upper-case prefix", "=?BASE64?SGVsbG8=?=", "=?BASE64?SGVsbG8=?=", true},
		{"markers overlapping", "=?base64?=", "=?base64?=", true},
		// Literal text holds only what a field value may.
		{"non-ASCII literal", "Région", "", false},
		{"DEL", "a\x7fb", "", false},
		{"NUL", "a\x00b", "", false},
		{"CR", "a\rb", "", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, ok := Decode(c.in)
			if got != c.want || ok != c.ok {
				t.Errorf("Decode(%q) = %q, %v; want %q, %v", c.in, got, ok, c.want, c.ok)
			}
		})
	}
}

func TestEncode(t *testing.T) {
	// SEP-2243's encoding table, and the edges of each rule.
	cases := []struct{ in, want string }{
		{"us-west1", "us-west1"},
		{"us west 1", "us west 1"},
		{"", ""},
		{" us-west1", "=?base64?IHVzLXdlc3Qx?="},
		{"us-west1 ", "=?base64?dXMtd2VzdDEg?="},
		{" us-west1 ", "=?base64?IHVzLXdlc3QxIA==?="},
		{"日本語", "=?base64?5pel5pys6Kqe?="},
		{"line1\nline2", "=?base64?bGluZTEKbGluZTI=?="},
		{"line1\r\nline2", "=?base64?bGluZTENCmxpbmUy?="},
		{"\tindented", "=?base64?CWluZGVudGVk?="},
		{"a\tb", "=?base64?YQli?="},
		{"~", "~"},
		{"\x7f", "=?base64?fw==?="},
		{"=?base64?literal?=", "=?base64?PT9iYXNlNjQ/bGl0ZXJhbD89?="},
		// Whatever starts with "=?" is encoded: a gateway may decode by
		// the opening marker alone.
		{"=?base64?literal", "=?base64?PT9iYXNlNjQ/bGl0ZXJhbA==?="},
		{"=?BASE64?SGVsbG8=?=", "=?base64?PT9CQVNFNjQ/U0dWc2JHOD0/PQ==?="},
		{"=?x", "=?base64?PT94?="},
		{"=?", "=?base64?PT8=?="},
		{"=", "="},
		{"?=", "?="},
		{"a=?b", "a=?b"},
		{" =?", "=?base64?ID0/?="},
	}
	for _, c := range cases {
		if got := Encode(c.in); got != c.want {
			t.Errorf("Encode(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// FuzzDecode: whatever a header holds, Decode never panics; what it accepts
// is UTF-8, is the one value Encode writes back the same way, and a Base64
// form it accepts is the canonical one (one header per value: no second
// spelling a lenient gateway would read alike).
func FuzzDecode(f *testing.F) {
	for _, s := range []string{"us-west1", "=?base64?SGVsbG8=?=", "=?base64?SGVsbG8?=", "=?base64?SGVs!!!bG8=?=", "=?base64?=", "=?BASE64?SGVsbG8=?=", "=?base64??=", "Région", "=?base64?SGVsbG9=?="} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, v string) {
		got, ok := Decode(v)
		if !ok {
			if got != "" {
				t.Fatalf("refused %q with a value %q", v, got)
			}
			return
		}
		if !utf8.ValidString(got) {
			t.Fatalf("Decode(%q) = %q: not UTF-8", v, got)
		}
		if isSentinel(v) {
			inner := v[len(sentinelStart) : len(v)-len(sentinelEnd)]
			if base64.StdEncoding.EncodeToString([]byte(got)) != inner {
				t.Fatalf("Decode(%q) accepted a Base64 form that is not the canonical one of %q", v, got)
			}
		} else if got != v {
			t.Fatalf("Decode(%q) = %q: a literal changed", v, got)
		}
		if back, ok := Decode(Encode(got)); !ok || back != got {
			t.Fatalf("Decode(Encode(%q)) = %q, %v", got, back, ok)
		}
		if e := Encode(v); strings.HasPrefix(e, "=?") && !isSentinel(e) {
			t.Fatalf("Encode(%q) = %q: starts like an encoded word, and is not one", v, e)
		}
	})
}
