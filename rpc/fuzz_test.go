package rpc

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"testing"
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
			// Whatever came in, the answer we would write is one valid line.
			var out bytes.Buffer
			w := NewWriter(&out)
			if d.Err != nil {
				_ = w.WriteError(d.ID, d.Err)
			} else if r, ok := d.Msg.(*Request); ok {
				_ = w.WriteResult(r.ID, r.Params[:0:0])
				out.Reset()
				if r.Params != nil {
					_ = w.WriteResult(r.ID, r.Params)
				}
			}
			if out.Len() > 0 {
				b := out.Bytes()
				if bytes.IndexByte(b[:len(b)-1], '\n') >= 0 || !json.Valid(b) {
					t.Fatalf("bad output line %q", b)
				}
			}
			if r, ok := d.Msg.(*Request); ok && r.Params != nil && Kind(r.Params) == '{' {
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
