package rpc

import (
	"bytes"
	"io"
	"strings"
	"testing"
)

var callLine = []byte(`{"jsonrpc":"2.0","id":42,"method":"tools/call","params":{"name":"draw_line","arguments":{"start":{"x":0,"y":0},"end":{"x":10,"y":0}},"_meta":{"progressToken":7}}}`)

func BenchmarkDecodeLine(b *testing.B) {
	b.ReportAllocs()
	b.SetBytes(int64(len(callLine)))
	for b.Loop() {
		if ds, _ := DecodeLine(callLine); ds[0].Err != nil {
			b.Fatal(ds[0].Err)
		}
	}
}

func BenchmarkLineReader(b *testing.B) {
	in := bytes.Repeat(append(callLine, '\n'), 1000)
	b.ReportAllocs()
	b.SetBytes(int64(len(in)))
	for b.Loop() {
		lr := NewLineReader(bytes.NewReader(in), 0)
		for {
			if _, err := lr.Next(); err == io.EOF {
				break
			}
		}
	}
}

// mustID is ParseID for ids known to be good.
func mustID(raw string) ID {
	id, ok := ParseID([]byte(raw))
	if !ok {
		panic("bad id " + raw)
	}
	return id
}

// BenchmarkWriteResult is the id re-stamp: the base's result written out
// under the client's id.
func BenchmarkWriteResult(b *testing.B) {
	result := []byte(`{"content":[{"type":"text","text":"Line 101 drawn from (0, 0) to (10, 0), length 10."}],"isError":false}`)
	w := NewWriter(io.Discard)
	id := mustID(`"req-42"`)
	b.ReportAllocs()
	for b.Loop() {
		_ = w.Write(EncodeResult(id, result))
	}
}

func BenchmarkWriteResultLarge(b *testing.B) {
	result := []byte(`{"content":[{"type":"text","text":"` + strings.Repeat("x", 1<<20) + `"}],"isError":false}`)
	w := NewWriter(io.Discard)
	id := mustID(`1`)
	b.ReportAllocs()
	b.SetBytes(int64(len(result)))
	for b.Loop() {
		_ = w.Write(EncodeResult(id, result))
	}
}

func BenchmarkDecodeLargeAnswer(b *testing.B) {
	answer := []byte(`{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"` + strings.Repeat("x", 1<<20) + `"}],"isError":false}}`)
	b.ReportAllocs()
	b.SetBytes(int64(len(answer)))
	for b.Loop() {
		if d := DecodeMessage(answer); d.Err != nil {
			b.Fatal(d.Err)
		}
	}
}

// largeAnswers are answers as a base sends them: 1 MiB of one long plain
// text, 1 MiB of a listing whose lines are escaped ("\n") every 40 bytes or
// so, and a tool list of 15 KiB (many short strings).
var largeAnswers = map[string][]byte{
	"list": []byte(`{"jsonrpc":"2.0","id":1,"result":{"tools":[` + strings.TrimSuffix(strings.Repeat(
		`{"name":"draw_line","description":"Draw a line from start to end on the current layer; returns the new entity's handle.","inputSchema":{"type":"object","properties":{"start":{"type":"object","description":"Start point"},"end":{"type":"object","description":"End point"}},"required":["start","end"]}},`, 50), ",") + `]}}`),
	"plain":   []byte(`{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"` + strings.Repeat("x", 1<<20) + `"}],"isError":false}}`),
	"listing": []byte(`{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"` + strings.Repeat(`entity 12345: LINE (0, 0) to (10, 0)\n`, (1<<20)/38) + `"}],"isError":false}}`),
}

// BenchmarkLargeAnswer: the passes the bridge makes over a base's 1 MiB
// answer: finding its end as it arrives (ValueEnd), checking it (Valid),
// and reading its members (DecodeValidMessage).
func BenchmarkLargeAnswer(b *testing.B) {
	for _, name := range []string{"plain", "listing", "list"} {
		answer := largeAnswers[name]
		b.Run(name+"/ValueEnd", func(b *testing.B) {
			b.SetBytes(int64(len(answer)))
			for b.Loop() {
				var s ValueEnd
				if _, ok := s.Feed(answer, 0); !ok {
					b.Fatal("no end")
				}
			}
		})
		b.Run(name+"/Valid", func(b *testing.B) {
			b.SetBytes(int64(len(answer)))
			for b.Loop() {
				if !Valid(answer) {
					b.Fatal("not valid")
				}
			}
		})
		b.Run(name+"/Decode", func(b *testing.B) {
			b.SetBytes(int64(len(answer)))
			for b.Loop() {
				if d := DecodeValidMessage(answer); d.Err != nil {
					b.Fatal(d.Err)
				}
			}
		})
	}
}
