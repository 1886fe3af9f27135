package confirm

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/mcp-bridge/mcp-bridge/rpc"
)

// FuzzCanonical: the form requestState binds is JSON, is its own form
// (spelt once, it is spelt the same again), and means what the arguments
// mean to a JSON decoder; a lone surrogate in it stays a \u escape of its
// own, never U+FFFD; and it is, byte for byte, the form issue 37 defined
// by writing each level apart (byLevels), so that a requestState issued
// before still redeems.
func FuzzCanonical(f *testing.F) {
	for _, s := range []string{
		`{"text":"\ud800"}`, `{"\udbff":1,"a":[1,2.50,{"b":"\ud83d\ude00"}]}`, `{"a":"\u00e9\n\/\"\\"}`,
		`{"a":1,"a":2}`, ` { "z" : null , "y" : [ ] , "x" : { } } `, `{"t":"\ufffd\ud800\udc00\udc00"}`,
		"{\"raw\":\"\xff\xfe\"}", `{"n":-0.0e+1}`, `[]`, `"\ud800"`, `1`,
		`[{"b":1,"a":[{"d":2,"c":{}}]},{"b":[[]],"a":"x"}]`, "{\"b\"\t:\n[ 1 ,\r2 ] , \"a\" :{ \"y\":true,\"x\":false } }",
		`{"é":1,"\u00e9":2,"e\u0301":3}`, `{"a":{"a":{"a":{"b":1,"a":0}}},"A":0}`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		if !rpc.Valid([]byte(in)) {
			return
		}
		c := canonical([]byte(in))
		if want := byLevels([]byte(in)); !bytes.Equal(c, want) {
			t.Fatalf("canonical(%s) = %s, want %s", in, c, want)
		}
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

// byLevels is the canonical form as issue 37 wrote it, each member's value
// apart and then copied into its object's (linear only for flat
// arguments): FuzzCanonical's oracle.
func byLevels(args []byte) []byte {
	args = bytes.TrimSpace(args)
	if len(args) == 0 || rpc.Kind(args) == rpc.KindNull {
		return []byte("{}")
	}
	if !rpc.Valid(args) {
		return args
	}
	return appendByLevels(nil, args)
}

func appendByLevels(b, v []byte) []byte {
	switch rpc.Kind(v) {
	case rpc.KindObject:
		type member struct{ key, value []byte }
		var ms []member
		_ = rpc.EachMember(v, func(rawKey []byte, start, end int) bool {
			ms = append(ms, member{appendCanonicalString(nil, rawKey), appendByLevels(nil, v[start:end])})
			return true
		})
		slices.SortStableFunc(ms, func(x, y member) int { return bytes.Compare(x.key, y.key) })
		b = append(b, '{')
		for i, m := range ms {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(append(append(b, m.key...), ':'), m.value...)
		}
		return append(b, '}')
	case rpc.KindArray:
		b = append(b, '[')
		first := true
		rpc.EachElement(v, func(from, to int) {
			if !first {
				b = append(b, ',')
			}
			first = false
			b = appendByLevels(b, v[from:to])
		})
		return append(b, ']')
	case rpc.KindString:
		return appendCanonicalString(b, v)
	}
	return append(b, v...)
}

// TestCanonicalDeepArgumentsLinear: the form requestState binds is made
// in memory proportional to the arguments, however deep they nest. A
// 2026-07-28 call's arguments are canonicalized when its question is
// issued (in the reader, before anything else of the client is read) and
// again when it comes back. Objects nested d deep around a value of n
// bytes: each level copied the canonical form of the one inside it
// (appendCanonical(nil, ...) per member), d·n bytes in all. 2 MB of
// arguments nested 9,000 deep (a valid message, well under --max-message)
// allocated 17 GB and held the reader 13 s, where encoding/json took
// milliseconds. Counted in bytes allocated, not timed: one level either
// side of flat, and deep; objects whose members must be put in order at
// every level, arrays, both; and wide ones, where the bookkeeping per
// member or per array is what could grow.
func TestCanonicalDeepArgumentsLinear(t *testing.T) {
	blob := `"` + strings.Repeat("x", 100_000) + `"`
	shapes := map[string]func(depth int) string{
		"objects": func(d int) string { return strings.Repeat(`{"a":`, d) + blob + strings.Repeat("}", d) },
		"objects in reverse order": func(d int) string {
			return strings.Repeat(`{"b":`, d) + blob + strings.Repeat(`,"a":0}`, d)
		},
		"arrays": func(d int) string { return strings.Repeat(`[0,`, d) + blob + strings.Repeat("]", d) },
		"objects in arrays": func(d int) string {
			return strings.Repeat(`[{"b":`, d) + blob + strings.Repeat(`,"a":[]}]`, d)
		},
	}
	check := func(name string, args []byte) {
		t.Helper()
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		c := canonical(args)
		runtime.ReadMemStats(&after)
		if want := byLevels(args); !bytes.Equal(c, want) {
			t.Fatalf("%s: canonical %.80s…, want %.80s…", name, c, want)
		}
		if got, limit := after.TotalAlloc-before.TotalAlloc, uint64(16*len(args)); got > limit {
			t.Errorf("%s, %d bytes of arguments: %d bytes allocated, more than %d (16 times the arguments)", name, len(args), got, limit)
		}
	}
	for name, shape := range shapes {
		for _, depth := range []int{1, 2, 1000} {
			check(fmt.Sprintf("%s %d deep", name, depth), []byte(shape(depth)))
		}
	}
	check("100,000 members", []byte(`{"a":0`+strings.Repeat(`,"":0`, 100_000)+`}`))
	check("100,000 arrays", []byte(`[[]`+strings.Repeat(`,[]`, 100_000)+`]`))
}
