package toolcache

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/mcp-bridge/mcp-bridge/verify/testdir"
)

// TestStoreLoad: what is stored comes back on one line; a file that is not
// one tools/list result, or over the limit by one byte, is not used.
func TestStoreLoad(t *testing.T) {
	dir := testdir.New(t)
	c := New(dir, "127.0.0.1:9876", 32)
	if got, err := c.Load(); got != nil || err != nil {
		t.Fatalf("empty cache: %s, %v", got, err)
	}
	if filepath.Base(c.Path()) != "tools-127.0.0.1_9876.json" {
		t.Errorf("path %s", c.Path())
	}
	if err := c.Store([]byte(`{"tools":[]}`)); err != nil {
		t.Fatal(err)
	}
	if got, err := c.Load(); string(got) != `{"tools":[]}` || err != nil {
		t.Errorf("Load = %s, %v", got, err)
	}
	for _, bad := range []string{`{"tools":{}}`, `[]`, `{"tools":[],"tools":{}}`} {
		if err := os.WriteFile(c.Path(), []byte(bad), 0o600); err != nil {
			t.Fatal(err)
		}
		if got, err := c.Load(); got != nil || err == nil {
			t.Errorf("%s: Load = %s, %v; want refused", bad, got, err)
		}
	}
	fits := `{"tools":[],"pad":"` + "xxxxxxxxxxx" + `"}` // 32 bytes
	if err := os.WriteFile(c.Path(), []byte(fits), 0o600); err != nil {
		t.Fatal(err)
	}
	if got, _ := c.Load(); string(got) != fits {
		t.Errorf("%d bytes at a limit of 32 not used", len(fits))
	}
	if err := os.WriteFile(c.Path(), []byte(fits+" "), 0o600); err != nil {
		t.Fatal(err)
	}
	if got, err := c.Load(); got != nil || err == nil {
		t.Errorf("33 bytes at a limit of 32: %s, %v", got, err)
	}
	if got, err := New("", "x", 32).Load(); got != nil || err != nil || New("", "x", 32).Store([]byte(`{}`)) != nil {
		t.Error("caching off still reads or writes")
	}
}
