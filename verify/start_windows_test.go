package verify

import (
	"os"
	"syscall"
	"testing"

	"golang.org/x/sys/windows"
)

// TestStartTransientOnWindows: only ERROR_INTERNAL_ERROR, as os/exec wraps
// it, is Wine's failed start-up; a missing program or a refused one is not.
func TestStartTransientOnWindows(t *testing.T) {
	for _, c := range []struct {
		err  error
		want bool
	}{
		{&os.PathError{Op: "fork/exec", Path: `C:\b\mcp-bridge.exe`, Err: windows.ERROR_INTERNAL_ERROR}, true},
		{&os.PathError{Op: "fork/exec", Path: `C:\b\mcp-bridge.exe`, Err: syscall.ERROR_FILE_NOT_FOUND}, false},
		{&os.PathError{Op: "fork/exec", Path: `C:\b\mcp-bridge.exe`, Err: syscall.ERROR_ACCESS_DENIED}, false},
		{windows.ERROR_INTERNAL_ERROR - 1, false},
	} {
		if got := startTransient(c.err); got != c.want {
			t.Errorf("startTransient(%v) = %v, want %v", c.err, got, c.want)
		}
	}
}
