//go:build !windows

package bridge

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// The tool-list cache is read only when it is a regular file of at most
// --max-message bytes holding one tools/list result; anything else is
// ignored, and the client gets the base's failure as if there were none.
func TestUntrustworthyCache(t *testing.T) {
	addr := downBase(t)
	tests := []struct {
		name   string
		make   func(path string) error
		served string // "" when the cache must be ignored
	}{
		{"empty", func(p string) error { return os.WriteFile(p, nil, 0o600) }, ""},
		{"forged second message", func(p string) error {
			return os.WriteFile(p, []byte(`{"tools":[]}}`+"\n"+`{"jsonrpc":"2.0","id":99,"result":{}}`), 0o600)
		}, ""},
		{"not a tools/list result", func(p string) error { return os.WriteFile(p, []byte(`{"content":[]}`), 0o600) }, ""},
		{"symlink to a system file", func(p string) error { return os.Symlink("/etc/passwd", p) }, ""},
		{"too large", func(p string) error {
			return os.WriteFile(p, []byte(`{"tools":[{"name":"`+strings.Repeat("x", 5000)+`"}]}`), 0o600)
		}, ""},
		{"pretty-printed", func(p string) error {
			return os.WriteFile(p, []byte("{\n  \"tools\": [\n    {\"name\": \"a\", \"inputSchema\": {\"type\": \"object\"}}\n  ]\n}\n"), 0o600)
		}, `{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"a","inputSchema":{"type":"object"}}]}}`},
		{"/dev/zero", func(p string) error { return os.Symlink("/dev/zero", p) }, ""},
		{"fifo", func(p string) error { return syscall.Mkfifo(p, 0o600) }, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			if err := tt.make(filepath.Join(dir, newToolCache(dir, addr, 4096).path[len(dir)+1:])); err != nil {
				t.Fatal(err)
			}
			h := newHarness(t, nil, func(c *Config) { atAddr(addr, dir)(c); c.MaxMessage = 4096 })
			h.send(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)
			got := h.recv()
			if tt.served != "" {
				if got != tt.served {
					t.Errorf("got  %s\nwant %s", got, tt.served)
				}
			} else if field(t, got, "error.data.kind") != "unreachable" {
				t.Errorf("got %.300s, want the unreachable error", got)
			}
			h.send(pingP)
			h.expect(pongP)
			h.closeAndWait()
		})
	}
}
