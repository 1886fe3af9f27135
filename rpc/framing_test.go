package rpc

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// readAll drains a LineReader, recording lines and oversize errors.
func readAll(t *testing.T, lr *LineReader) []string {
	t.Helper()
	var got []string
	for {
		line, err := lr.Next()
		var oe *OversizeError
		switch {
		case err == io.EOF:
			return got
		case errors.As(err, &oe):
			got = append(got, "OVERSIZE")
		case err != nil:
			t.Fatalf("Next: %v", err)
		default:
			got = append(got, string(line))
		}
	}
}

func TestLineReader(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want []string
	}{
		{"lf", "a\nb\n", []string{"a", "b"}},
		{"crlf", "a\r\nb\r\n", []string{"a", "b"}},
		{"bom", "\xef\xbb\xbf{\"x\":1}\n", []string{`{"x":1}`}},
		{"bom only on first line", "a\n\xef\xbb\xbfb\n", []string{"a", "\xef\xbb\xbfb"}},
		{"blank lines skipped", "\n\r\n  \na\n\n", []string{"a"}},
		{"last line without newline", "a\nb", []string{"a", "b"}},
		{"empty", "", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := readAll(t, NewLineReader(strings.NewReader(tt.in), 0))
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestLineReaderOversizeThenGood(t *testing.T) {
	const max = DefaultMaxMessage
	good := `{"jsonrpc":"2.0","id":1,"method":"ping"}`
	var in bytes.Buffer
	in.WriteString(good + "\n")
	in.Write(bytes.Repeat([]byte("x"), max+1))
	in.WriteString("\n")
	in.Write(bytes.Repeat([]byte("y"), max)) // exactly at the limit: accepted
	in.WriteString("\r\n")
	in.WriteString(good + "\n")
	lr := NewLineReader(&in, max)

	line, err := lr.Next()
	if err != nil || string(line) != good {
		t.Fatalf("first line = %q, %v", line, err)
	}
	_, err = lr.Next()
	var oe *OversizeError
	if !errors.As(err, &oe) || oe.Size != max+1 || oe.Limit != max {
		t.Fatalf("oversize line: err = %v, want OversizeError{Size: %d}", err, max+1)
	}
	line, err = lr.Next()
	if err != nil || len(line) != max {
		t.Fatalf("line at the limit: len %d, err %v", len(line), err)
	}
	line, err = lr.Next()
	if err != nil || string(line) != good {
		t.Fatalf("line after the oversize one = %q, %v", line, err)
	}
	if _, err := lr.Next(); err != io.EOF {
		t.Fatalf("end: %v, want EOF", err)
	}
}

func TestLineReaderOversizeAtEOF(t *testing.T) {
	lr := NewLineReader(strings.NewReader(strings.Repeat("z", 100)), 10)
	_, err := lr.Next()
	var oe *OversizeError
	if !errors.As(err, &oe) || oe.Size != 100 {
		t.Fatalf("err = %v, want OversizeError{Size: 100}", err)
	}
	if _, err := lr.Next(); err != io.EOF {
		t.Fatalf("then %v, want EOF", err)
	}
}

func TestWriterPrettyPayloadIsOneLine(t *testing.T) {
	var out bytes.Buffer
	w := NewWriter(&out)
	pretty := []byte("{\n  \"content\": [\n    {\"type\": \"text\", \"text\": \"a\\nb\"}\n  ]\n}")
	if err := w.Write(EncodeResult(mustID(`"7"`), pretty)); err != nil {
		t.Fatal(err)
	}
	want := `{"jsonrpc":"2.0","id":"7","result":{"content":[{"type":"text","text":"a\nb"}]}}` + "\n"
	if diff := cmp.Diff(want, out.String()); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestWriterShapes(t *testing.T) {
	var out bytes.Buffer
	w := NewWriter(&out)
	big := []byte(`{"text":"` + strings.Repeat("a", 100<<10) + `"}`)
	steps := []func() error{
		func() error { return w.Write(EncodeResult(mustID(`12345678901234567890`), []byte(`{}`))) },
		func() error { return w.Write(EncodeError(ID{}, Errorf(CodeParseError, "Parse error"))) },
		func() error {
			return w.Write(EncodeError(mustID(`1.0`), Errorf(CodeInternalError, "x").WithData(map[string]string{"kind": "refused"})))
		},
		func() error {
			return w.Write(EncodeErrorRaw(mustID(`2`), []byte("{\"code\":-32602,\n\"message\":\"Unknown tool: q\"}")))
		},
		func() error { return w.Write(EncodeNotification("notifications/x", []byte(`{"a":1}`))) },
		func() error { return w.Write(EncodeResult(mustID(`3`), big)) },
	}
	for _, s := range steps {
		if err := s(); err != nil {
			t.Fatal(err)
		}
	}
	want := []string{
		`{"jsonrpc":"2.0","id":12345678901234567890,"result":{}}`,
		`{"jsonrpc":"2.0","error":{"code":-32700,"message":"Parse error"}}`,
		`{"jsonrpc":"2.0","id":1.0,"error":{"code":-32603,"message":"x","data":{"kind":"refused"}}}`,
		`{"jsonrpc":"2.0","id":2,"error":{"code":-32602,"message":"Unknown tool: q"}}`,
		`{"jsonrpc":"2.0","method":"notifications/x","params":{"a":1}}`,
		`{"jsonrpc":"2.0","id":3,"result":` + string(big) + `}`,
	}
	got := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestWriterConcurrentLinesStayWhole(t *testing.T) {
	var out bytes.Buffer
	w := NewWriter(&out)
	payload := []byte(`{"text":"` + strings.Repeat("p", 200<<10) + `"}`)
	var wg sync.WaitGroup
	for i := range 20 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_ = w.Write(EncodeResult(mustID(string(rune('0'+i%10))), payload))
		}()
	}
	wg.Wait()
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	if len(lines) != 20 {
		t.Fatalf("%d lines, want 20", len(lines))
	}
	for _, l := range lines {
		if !json.Valid([]byte(l)) {
			t.Fatalf("interleaved line: %.80s…", l)
		}
	}
}

// A blank line is skipped whatever its length: a line of spaces longer than
// the limit is not an oversize message.
func TestLongBlankLineIgnored(t *testing.T) {
	in := strings.Repeat(" ", 100) + "\n" + strings.Repeat(" \t", 50) + "\r\n" + `{"a":1}` + "\n" + strings.Repeat(" ", 100)
	got := readAll(t, NewLineReader(strings.NewReader(in), 10))
	if diff := cmp.Diff([]string{`{"a":1}`}, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}
