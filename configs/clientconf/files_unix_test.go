//go:build unix

package clientconf

import (
	"strings"
	"syscall"
	"testing"
)

// TestFIFOConfigRefused: a FIFO at the config's path is refused at once
// (it would block a read). Unix only: Windows has no FIFOs in its file
// system.
func TestFIFOConfigRefused(t *testing.T) {
	f := cursorFile(t)
	if err := syscall.Mkfifo(f.Path, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, dry := range []bool{false, true} {
		if _, err := Install(f, "cad", bridge, Options{DryRun: dry}); err == nil || !strings.Contains(err.Error(), "FIFO") {
			t.Errorf("a FIFO for a config (dry run %v): %v", dry, err)
		}
	}
	if _, err := readFile(f.Path); err == nil {
		t.Error("doctor's read of a FIFO: no error")
	}
}
