package bridge

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, errors.New("broken pipe") }

// tempDir is t.TempDir, emptied with plain deletes before testing removes
// it. Under Wine 8 (make test-windows) Go's os.RemoveAll fails on anything
// but an empty directory ("Invalid function": Wine lacks the
// NtSetInformationFile class 64 Go deletes with, and Go falls back only on
// other statuses); os.Remove works there.
func tempDir(t *testing.T) string {
	dir := t.TempDir()
	t.Cleanup(func() {
		var paths []string
		filepath.WalkDir(dir, func(p string, _ fs.DirEntry, err error) error {
			paths = append(paths, p)
			return nil
		})
		for i := len(paths) - 1; i >= 0; i-- {
			os.Remove(paths[i])
		}
	})
	return dir
}
