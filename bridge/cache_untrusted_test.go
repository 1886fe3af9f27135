//go:build !windows

// Unix only: these files are made with symlinks to system files, FIFOs,
// mode bits and chown, which Windows does not have (there the cache's owner
// SID is checked, and the cache tests that run everywhere show that the
// user's own file is served).

package bridge

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/rs/zerolog"

	"github.com/mcp-bridge/mcp-bridge/bridge/internal/toolcache"
	"github.com/mcp-bridge/mcp-bridge/verify"
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
		// Writable by others: whoever can write it chooses the tool
		// descriptions the assistant reads.
		{"mode 0666", planted(0o666, -1), ""},
		{"mode 0620", planted(0o620, -1), ""},
		{"mode 0644", planted(0o644, -1), `{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"planted","inputSchema":{"type":"object"}}]}}`},
		{"another user's", planted(0o600, 65534), ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.name == "another user's" && os.Getuid() != 0 {
				t.Skip("only root can make a file owned by another user")
			}
			dir := tempDir(t)
			if err := os.Chmod(dir, 0o777); err != nil { // as a shared --cache-dir would be
				t.Fatal(err)
			}
			if err := tt.make(filepath.Join(dir, toolcache.New(dir, addr, 4096).Path()[len(dir)+1:])); err != nil {
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

// planted writes a valid cached list with the given mode (umask aside) and,
// when uid >= 0, owner.
func planted(mode os.FileMode, uid int) func(string) error {
	return func(p string) error {
		if err := os.WriteFile(p, []byte(`{"tools":[{"name":"planted","inputSchema":{"type":"object"}}]}`), 0o600); err != nil {
			return err
		}
		if uid >= 0 {
			if err := os.Chown(p, uid, -1); err != nil {
				return err
			}
		}
		return os.Chmod(p, mode)
	}
}

// A cache file that cannot be trusted is ignored with one warning, however
// many times the list is asked for.
func TestUntrustworthyCacheWarnsOnce(t *testing.T) {
	addr := downBase(t)
	dir := tempDir(t)
	if err := planted(0o666, -1)(toolcache.New(dir, addr, 4096).Path()); err != nil {
		t.Fatal(err)
	}
	var logs verify.LockedBuffer
	h := newHarness(t, nil, func(c *Config) { atAddr(addr, dir)(c); c.Log = zerolog.New(&logs) })
	for _, id := range []string{"1", "2"} {
		h.send(`{"jsonrpc":"2.0","id":` + id + `,"method":"tools/list"}`)
		if got := h.recv(); field(t, got, "error.data.kind") != "unreachable" {
			t.Errorf("got %.300s, want the unreachable error", got)
		}
	}
	h.closeAndWait()
	if n := strings.Count(logs.String(), "tool list cache ignored"); n != 1 || !strings.Contains(logs.String(), "writable by group or others (mode 0666)") {
		t.Errorf("%d warnings; want one saying why:\n%s", n, logs.String())
	}
}
