package rpc

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"testing"
	"unicode/utf8"
)

func FuzzDecodeLine(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"ping"}`,
		`[{"jsonrpc":"2.0","id":"a","method":"tools/call","params":{"name":"x"}},{"jsonrpc":"2.0","method":"n"}]`,
		`{"jsonrpc":"2.0","id":1,"error":{"code":-1,"message":"m"}}`,
		`{"jsonrpc":"2.0","\u0069d":1e400,"method":""}`,
		`[]`, `nul`, `{"a":"\"}"}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		ds, batch := DecodeLine(line)
		if len(ds) == 0 {
			t.Fatal("no result for a line")
		}
		if batch && !json.Valid(line) {
			t.Fatal("batch from invalid JSON")
		}
		for _, d := range ds {
			if (d.Msg == nil) == (d.Err == nil) {
				t.Fatalf("want exactly one of Msg and Err: %+v", d)
			}
			if !d.ID.IsZero() && !json.Valid(d.ID.Raw()) {
				t.Fatalf("id %q is not JSON", d.ID.Raw())
			}
			// Whatever came in, the answer we would write is one valid
			// line of UTF-8 JSON.
			var out bytes.Buffer
			w := NewWriter(&out)
			if d.Err != nil {
				_ = w.Write(EncodeError(d.ID, d.Err))
			} else if r, ok := d.Msg.(*Request); ok && r.Params != nil {
				_ = w.Write(EncodeResult(r.ID, r.Params))
			}
			if out.Len() > 0 {
				b := out.Bytes()
				if bytes.IndexByte(b[:len(b)-1], '\n') >= 0 || !json.Valid(b) || !utf8.Valid(b) {
					t.Fatalf("bad output line %q", b)
				}
			}
			if r, ok := d.Msg.(*Request); ok && r.Params != nil && Kind(r.Params) == KindObject {
				if s := WithoutMember(r.Params, "_meta"); !json.Valid(s) || Field(s, "_meta") != nil {
					t.Fatalf("WithoutMember(%s) = %s", r.Params, s)
				}
			}
		}
	})
}

func FuzzLineReader(f *testing.F) {
	f.Add([]byte("a\r\n\nb\n"), 4)
	f.Add([]byte("\xef\xbb\xbfxxxxxxxxxxxx\nyy"), 3)
	f.Fuzz(func(t *testing.T, in []byte, max int) {
		if max <= 0 || max > 1<<16 {
			max = 8
		}
		lr := NewLineReader(bytes.NewReader(in), max)
		total := 0
		for range len(in) + 2 {
			line, err := lr.Next()
			if err == io.EOF {
				return
			}
			var oe *OversizeError
			if errors.As(err, &oe) {
				total += oe.Size
				continue
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(line) == 0 || len(line) > max || bytes.IndexByte(line, '\n') >= 0 {
				t.Fatalf("line %q breaks the contract (max %d)", line, max)
			}
			total += len(line)
		}
		if total > len(in) {
			t.Fatalf("returned more bytes than were read")
		}
		t.Fatal("Next did not reach EOF")
	})
}

// FuzzValid checks that Valid accepts exactly what encoding/json does.
func FuzzValid(f *testing.F) {
	for _, s := range []string{
		`{"a":[1,-0.5e+3,"x\u00e9\n",true,false,null,{}]}`, `[]`, ` 1 `, `"\ud800"`, `01`, `-`, `1.`, `1e`,
		`{"a" 1}`, `[1,]`, `{"a":1,}`, "\"\x01\"", `"\x"`, "\"\xff\"", `nul`, `[[[[`, `{"a":{"b":[}]}}`,
	} {
		f.Add([]byte(s))
	}
	// Strings longer than a short run (shortLen), where the scan goes
	// vectorized: a quote, an escape or a control character past it.
	long := strings.Repeat("a", 150)
	for _, s := range []string{`"` + long + `"`, `["` + long + `\"` + long + `","x"]`, "\"" + long + "\x01" + long + "\"", `{"` + long + `":"` + long + `\u00e9` + long + `"}`, `"` + long} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if got, want := Valid(data), json.Valid(data); got != want {
			t.Fatalf("Valid(%q) = %v, json.Valid = %v", data, got, want)
		}
	})
}

// FuzzValueEnd feeds a value in random pieces: the end found must be the
// end of the first value, wherever the pieces were cut.
func FuzzValueEnd(f *testing.F) {
	f.Add([]byte(`{"a":"x\"}y","b":[1,{"c":"\\"}]} trailing`), uint8(3))
	f.Add([]byte(`"abc\\"def`), uint8(1))
	long := strings.Repeat("a", 150)
	f.Add([]byte(`{"a":"`+long+`\"`+long+`}","b":["`+long+`\\"]} trailing`), uint8(15))
	f.Add([]byte(`["`+long+`\\\"`+long+`"]`), uint8(7))
	f.Fuzz(func(t *testing.T, data []byte, step uint8) {
		n := int(step%16) + 1
		var s ValueEnd
		end, done := -1, false
		for from := 0; from < len(data) && !done; from += n {
			to := min(from+n, len(data))
			end, done = s.Feed(data[:to], from)
		}
		if !done || Kind(data) == 0 {
			return
		}
		v := data[:end]
		if Valid(bytes.TrimSpace(v)) {
			// A valid prefix ends exactly where skipValue says it does.
			i := skipSpace(data, 0)
			if want := skipValue(data, i); Kind(data) != KindNumber && Kind(data) != KindTrue && Kind(data) != KindFalse && Kind(data) != KindNull && want != end {
				t.Fatalf("Feed end %d, skipValue end %d for %q", end, want, data)
			}
		}
	})
}

// TestStringScan: nextSpecial finds the first quote or backslash from any
// offset, its quote carried across calls, controlIndex the first control
// character, and plainRun the plain bytes before the first of either (up
// to shortLen), as a byte loop does.
func TestStringScan(t *testing.T) {
	long := strings.Repeat("y", shortLen)
	for _, s := range []string{"", "abc", "abcdefghijkl\"", "abcdefgh\\ijkl", "abcdefghijk\x1f", "\xff\xfe\x80abcdefgh\"",
		strings.Repeat("é", 20) + "\"", `a\"b\\c"d`, strings.Repeat(`x\n`, 20) + `"`, "\x7f\x80\x1f\x20",
		long + `"`, long + `\"x"`, long[1:] + `\`, long + "x\x01" + long + `"`, long + long + `\\` + long + `"`} {
		b := []byte(s)
		q := -1
		for j := 0; j <= len(b); j++ {
			want := j
			for want < len(b) && b[want] != '"' && b[want] != '\\' {
				want++
			}
			if got := nextSpecial(b, j, &q); got != want {
				t.Errorf("nextSpecial(%q, %d) = %d, want %d", s, j, got, want)
			}
		}
		want := -1
		for i := range b {
			if b[i] < 0x20 {
				want = i
				break
			}
		}
		if got := controlIndex(b); got != want {
			t.Errorf("controlIndex(%q) = %d, want %d", s, got, want)
		}
		plain := 0
		for plain < min(len(b), shortLen) && b[plain] >= 0x20 && b[plain] != '"' && b[plain] != '\\' {
			plain++
		}
		if got := plainRun(b); got != plain {
			t.Errorf("plainRun(%q) = %d, want %d", s, got, plain)
		}
	}
}

// FuzzFoldTwins checks FoldTwins against encoding/json's own reading: its
// tokens, keys compared with strings.EqualFold (how it matches keys to
// struct fields), in the top object or, deep, in every object.
func FuzzFoldTwins(f *testing.F) {
	for _, s := range []string{
		`{"a":1,"A":2}`, `{"a":{"b":[{"c":1,"C":2}]}}`, `{"a":"{\"x\":1,\"X\":2}"}`, `[{"k":1},{"K":1}]`,
		`{"cloſed":1,"closed":2}`, `{"n\u0061me":1,"name":2}`, "{\"\xff\":1,\"\\ufffd\":2}", `{"a":[1,{"b":2},"c"],"B":{}}`,
	} {
		f.Add([]byte(s), true)
	}
	f.Fuzz(func(t *testing.T, data []byte, deep bool) {
		if !json.Valid(data) {
			return
		}
		_, _, got := FoldTwins(data, deep)
		if want := foldTwinsByTokens(data, deep); got != want {
			t.Fatalf("FoldTwins(%s, deep %v) found twins: %v; encoding/json's tokens say %v", data, deep, got, want)
		}
	})
}

// foldTwinsByTokens is FoldTwins the slow way.
func foldTwinsByTokens(data []byte, deep bool) bool {
	type open struct {
		obj, wantKey bool
		keys         []string
	}
	var stack []*open
	d := json.NewDecoder(bytes.NewReader(data))
	for {
		tok, err := d.Token()
		if err != nil {
			return false
		}
		if n := len(stack); n > 0 && stack[n-1].obj && stack[n-1].wantKey {
			if k, ok := tok.(string); ok {
				if deep || n == 1 {
					for _, prev := range stack[n-1].keys {
						if strings.EqualFold(prev, k) {
							return true
						}
					}
					stack[n-1].keys = append(stack[n-1].keys, k)
				}
				stack[n-1].wantKey = false
				continue
			}
		}
		switch tok {
		case json.Delim('{'):
			stack = append(stack, &open{obj: true, wantKey: true})
			continue
		case json.Delim('['):
			stack = append(stack, &open{})
			continue
		case json.Delim('}'), json.Delim(']'):
			stack = stack[:len(stack)-1]
		}
		if n := len(stack); n > 0 && stack[n-1].obj {
			stack[n-1].wantKey = true
		}
	}
}

// FuzzAppendString: a string is written exactly as encoding/json writes
// it, whether it takes the plain path or not.
func FuzzAppendString(f *testing.F) {
	for _, s := range []string{"", "tools/call", "get_drawing_info", "a\"b", `a\b`, "a<b", "a>b", "a&b", "\x00\x1f\x7f", "é", "\xff", "\u2028", " ~"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		want, _ := json.Marshal(s)
		if got := AppendString([]byte("x"), s); string(got) != "x"+string(want) {
			t.Fatalf("AppendString(%q) = %s, want x%s", s, got, want)
		}
	})
}
