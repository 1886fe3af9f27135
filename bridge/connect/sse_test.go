package connect

import (
	"bytes"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestReadSSE(t *testing.T) {
	for _, c := range []struct {
		name, in string
		want     []string
	}{
		{"one event", "event: message\ndata: {\"a\":1}\n\n", []string{`{"a":1}`}},
		{"CRLF, comments, ids", ": keep-alive\r\n\r\nid: 7\r\ndata:{}\r\n\r\n", []string{`{}`}},
		{"data lines joined", "data: {\"a\":\ndata: 1}\n\n", []string{"{\"a\":\n1}"}},
		{"no blank line at the end: not an event", "data: {}\n", nil},
		{"two events", "data: 1\n\ndata: 2\n\n", []string{"1", "2"}},
		{"only one space stripped", "data:  x\n\n", []string{" x"}},
	} {
		var got []string
		err := readSSE(strings.NewReader(c.in), 1024, func(d []byte) bool { got = append(got, string(d)); return true })
		if err != nil && c.want != nil {
			t.Errorf("%s: %v", c.name, err)
		}
		if d := cmp.Diff(c.want, got); d != "" {
			t.Errorf("%s (-want +got):\n%s", c.name, d)
		}
	}
	big := "data: " + strings.Repeat("x", 2000) + "\n\n"
	if err := readSSE(strings.NewReader(big), 1024, func([]byte) bool { t.Error("an oversize event was delivered"); return true }); err != errEventTooLarge {
		t.Errorf("oversize event: %v", err)
	}
}

// FuzzReadSSE: whatever the remote streams, the reader never panics and
// never hands on more than the limit.
func FuzzReadSSE(f *testing.F) {
	f.Add([]byte("data: {}\n\n"))
	f.Add([]byte("data: a\r\ndata: b\r\n\r\n: c\n\n"))
	f.Add([]byte("data:" + strings.Repeat("y", 300) + "\n\n"))
	f.Fuzz(func(t *testing.T, in []byte) {
		_ = readSSE(bytes.NewReader(in), 256, func(d []byte) bool {
			if len(d) > 256 {
				t.Fatalf("event of %d bytes over the limit", len(d))
			}
			return true
		})
	})
}
