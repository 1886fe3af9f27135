// Package testdir gives tests a temporary directory that can be removed
// under Wine too.
package testdir

import (
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

// New is t.TempDir, emptied with plain deletes before testing removes it.
// Under Wine 8 (make test-windows) Go's os.RemoveAll fails on anything but
// an empty directory ("Invalid function": Wine lacks the
// NtSetInformationFile class 64 Go deletes with, and Go falls back only on
// other statuses); os.Remove works there.
func New(t *testing.T) string {
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
