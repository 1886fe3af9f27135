package confirm

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"

	"github.com/mcp-bridge/mcp-bridge/rpc"
)

// FuzzCanonical: the form requestState binds is JSON, is its own form
// (spelt once, it is spelt the same again), and means what the arguments
// mean to a JSON decoder; a lone surrogate in it stays a \u escape of its
// own, never U+FFFD.
func FuzzCanonical(f *testing.F) {
	for _, s := range []string{
		`{"text":"\ud800"}`, `{"\udbff":1,"a":[1,2.50,{"b":"\ud83d\ude00"}]}`, `{"a":"\u00e9\n\/\"\\"}`,
		`{"a":1,"a":2}`, ` { "z" : null , "y" : [ ] , "x" : { } } `, `{"t":"\ufffd\ud800\udc00\udc00"}`,
		"{\"raw\":\"\xff\xfe\"}", `{"n":-0.0e+1}`, `[]`, `"\ud800"`, `1`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		if !rpc.Valid([]byte(in)) {
			return
		}
		c := canonical([]byte(in))
		if !rpc.Valid(c) {
			t.Fatalf("canonical(%s) = %s: not JSON", in, c)
		}
		if again := canonical(c); !bytes.Equal(again, c) {
			t.Fatalf("canonical(%s) = %s, and canonical of that = %s", in, c, again)
		}
		decode := func(b []byte) any {
			d := json.NewDecoder(bytes.NewReader(b))
			d.UseNumber()
			var v any
			if err := d.Decode(&v); err != nil {
				t.Fatalf("%s: %v", b, err)
			}
			return v
		}
		if rpc.Kind([]byte(in)) != rpc.KindNull {
			if a, b := decode([]byte(in)), decode(c); !reflect.DeepEqual(a, b) {
				t.Fatalf("canonical(%s) = %s, which decodes to %v, not %v", in, c, b, a)
			}
		}
		if bytes.Contains(c, []byte(`\ufffd`)) {
			t.Fatalf("canonical(%s) = %s: U+FFFD escaped", in, c)
		}
	})
}
