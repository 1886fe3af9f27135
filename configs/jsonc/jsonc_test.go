package jsonc

import (
	"bytes"
	"encoding/json"
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
