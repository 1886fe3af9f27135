// Package toolcache keeps the CAD base's last good tool list on disk, per
// base address, so that a client starting while CAD is down still gets
// tools; the file is trusted only when it is the user's own regular file.
package toolcache

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/mcp-bridge/mcp-bridge/configs/userfile"
	"github.com/mcp-bridge/mcp-bridge/rpc"
)

// Cache keeps the last good tools/list result per base address on
// disk, so that a client starting while CAD is down still gets tools. Writes
// are atomic (a temporary file, synced, renamed over the old one), so two
// bridges sharing the directory never see half a file.
//
// The file is not trusted: Load uses it only when it is a regular file (not
// a link, a FIFO or a device) of the user's own that nobody else may write
// (userfile.OpenOwn), of at most max bytes holding one tools/list result,
// and hands it back on one line.
type Cache struct {
	path string // "" when caching is off
	max  int
}

// New is the cache for the base at addr in dir, of results up to max
// bytes; with dir "" caching is off.
func New(dir, addr string, max int) Cache {
	if dir == "" {
		return Cache{}
	}
	safe := strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '.' || r == '-' {
			return r
		}
		return '_' // ':' is not allowed in Windows file names
	}, addr)
	return Cache{path: filepath.Join(dir, "tools-"+safe+".json"), max: max}
}

// Path is the cache file's name; "" when caching is off.
func (c Cache) Path() string { return c.path }

// Load returns the cached result, or nil: with no error when there is
// none, with one saying why when the file cannot be used.
func (c Cache) Load() ([]byte, error) {
	if c.path == "" {
		return nil, nil
	}
	f, err := userfile.OpenOwn(c.path, os.O_RDONLY, 0)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, nil
	case err != nil:
		return nil, err
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil {
		return nil, err
	} else if fi.Size() > int64(c.max) {
		return nil, fmt.Errorf("%d bytes, over --max-message (%d)", fi.Size(), c.max)
	}
	data, err := io.ReadAll(io.LimitReader(f, int64(c.max)+1))
	switch {
	case err != nil:
		return nil, err
	case len(data) > c.max:
		return nil, fmt.Errorf("over --max-message (%d bytes)", c.max)
	case !rpc.Valid(data) || rpc.Kind(data) != rpc.KindObject || rpc.Kind(rpc.Field(data, "tools")) != rpc.KindArray:
		return nil, errors.New(`not a tools/list result (one JSON object with a "tools" array)`)
	}
	return rpc.Compact(bytes.TrimSpace(data)), nil
}

// Store replaces the cached result.
func (c Cache) Store(result []byte) error {
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
	if err := tmp.Sync(); err != nil { // the data is on disk before the name points at it
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), c.path)
}
