package jsonc

import (
	"bytes"
	"encoding/json"
	"errors"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
	"github.com/tailscale/hujson"
)

// read is what both readers of the project do: standardize, then check.
func read(src []byte) (any, bool) {
	std, _, err := Standardize(src)
	if err != nil || !json.Valid(std) {
		return nil, false
	}
	v, err := decode(std)
	return v, err == nil
}

// decode keeps numbers as written (a float64 would overflow).
func decode(b []byte) (any, error) {
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	var v any
	err := d.Decode(&v)
	return v, err
}

func TestDialect(t *testing.T) {
	for _, tc := range []struct {
		src string
		ok  bool
	}{
		{`{"a": 1, // c` + "\n" + `"b": [1, 2, /* x */],}`, true},
		{"\xef\xbb\xbf{}", true},
		{`{"a": "//not a comment", "b": "/*"}`, true},
		{`{,}`, false}, {`[,]`, false}, {`[1,,]`, false}, {`{"a":1,,}`, false},
		{`{"a": 1 /* open`, false}, {`[1] // end`, true}, {``, false},
	} {
		if _, ok := read([]byte(tc.src)); ok != tc.ok {
			t.Errorf("%q: accepted %v; want %v", tc.src, ok, tc.ok)
		}
	}
}

// FuzzStandardize: the reader accepts exactly what tailscale/hujson
// accepts, reads the same values, and keeps every offset.
func FuzzStandardize(f *testing.F) {
	for _, s := range []string{
		`{"a": 1, // c` + "\n" + `"b": [1, 2, /* x */],}`, "\xef\xbb\xbf{}", `{,}`, `[1,,]`, `{"a":"\"//"}`, "[1, /**/ ]", "{\"a\"/*x*/:1}",
		"[1,\r\n// c\r\n]", `"\u00e9"`, "/* */ 1 // x",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		if !utf8.ValidString(src) {
			return // hujson refuses what JSON strings may hold raw; not a dialect question
		}
		std, _, err := Standardize([]byte(src))
		if errors.Is(err, ErrOddLineBreak) {
			return // refused on purpose: hujson ends a // comment at LF only, editors do not
		}
		if err == nil && len(std) != len(src) {
			t.Fatalf("length %d → %d", len(src), len(std))
		}
		got, ok := read([]byte(src))
		body := bytes.TrimPrefix([]byte(src), []byte("\xef\xbb\xbf"))
		// hujson wants a newline after a // comment even at the end of the
		// file; this reader does not (files saved without a final newline).
		v, herr := hujson.Parse(append(body, '\n'))
		if ok != (herr == nil) {
			t.Fatalf("%q: ours accepts %v, hujson: %v", src, ok, herr)
		}
		if !ok {
			return
		}
		v.Standardize()
		want, err := decode(v.Pack())
		if err != nil {
			t.Fatalf("hujson's standard JSON does not parse: %v", err)
		}
		if d := cmp.Diff(want, got); d != "" {
			t.Fatalf("%q read differently (-hujson +ours):\n%s", src, d)
		}
	})
}

// TestOddLineBreakInComment: a // comment ends at LF (its CR kept when
// CRLF); any other line break inside it, which an editor shows as the
// start of a new line, makes the file refused, with no value read. One
// character either side: the same text with LF or CRLF reads, and the
// character outside a comment is left to JSON (whitespace or an error).
func TestOddLineBreakInComment(t *testing.T) {
	for _, brk := range []string{"\r", "\v", "\f", "\u0085", "\u2028", "\u2029"} {
		src := "{\"a\": 1, // note" + brk + "\"deny\": [\"x\"]\n}"
		if _, _, err := Standardize([]byte(src)); !errors.Is(err, ErrOddLineBreak) {
			t.Errorf("%q: %v", brk, err)
		}
		if v, ok := read([]byte("{\"a\": 1, // note x" + brk[:0] + "\n\"deny\": [\"x\"]\n}")); !ok || v.(map[string]any)["deny"] == nil {
			t.Errorf("%q: the LF form reads %v", brk, v)
		}
	}
	for _, src := range []string{"{\"a\": 1 // note\r\n}", "{\"a\": 1} // note\r", "{\"a\": 1 /* x\r y */}", "{\"a\":\r1}"} {
		if _, ok := read([]byte(src)); !ok {
			t.Errorf("%q refused", src)
		}
	}
}
