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

// Symlink makes a symbolic link, or skips the test where links cannot be
// made or do not work: Windows without the privilege, and Wine 8, where
// os.Symlink succeeds but the link it leaves cannot be read or followed
// ("File not found"), so a test of link handling would prove nothing.
func Symlink(t *testing.T, target, link string) {
	t.Helper()
	if err := os.Symlink(target, link); err != nil {
		t.Skipf("cannot make a symbolic link here: %v", err)
	}
	if _, err := os.Readlink(link); err != nil {
		t.Skipf("symbolic links do not work here (Wine?): made %s, but reading it back: %v", link, err)
	}
}
