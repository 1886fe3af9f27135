package bridge

import (
	"os"
	"path/filepath"
	"strings"
)

// toolCache keeps the last good tools/list result per base address on
// disk, so that a client starting while CAD is down still gets tools. Writes
// are atomic (a temporary file renamed over the old one), so two bridges
// sharing the directory never see half a file.
type toolCache struct {
	path string // "" when caching is off
}

func newToolCache(dir, addr string) toolCache {
	if dir == "" {
		return toolCache{}
	}
	safe := strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '.' || r == '-' {
			return r
		}
		return '_' // ':' is not allowed in Windows file names
	}, addr)
	return toolCache{path: filepath.Join(dir, "tools-"+safe+".json")}
}

// load returns the cached result, or nil.
func (c toolCache) load() []byte {
	if c.path == "" {
		return nil
	}
	b, err := os.ReadFile(c.path)
	if err != nil {
		return nil
	}
	return b
}

// store replaces the cached result.
func (c toolCache) store(result []byte) error {
	if c.path == "" {
		return nil
	}
	dir := filepath.Dir(c.path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(dir, ".tools-*.tmp")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name()) // after a successful rename there is nothing to remove
	if _, err := tmp.Write(result); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), c.path)
}
