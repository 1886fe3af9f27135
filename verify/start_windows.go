package verify

import (
	"errors"

	"golang.org/x/sys/windows"
)

// startTransient reports whether a failed start is ERROR_INTERNAL_ERROR:
// Wine's CreateProcess returns it when the new process died in Wine's own
// start-up, before any of the program's code ran (CI saw it once in a run
// of hundreds of bridge starts under load: "fork/exec …\mcp-bridge.exe:
// Internal error."). Nothing ran, so starting it again is safe.
func startTransient(err error) bool {
	return errors.Is(err, windows.ERROR_INTERNAL_ERROR)
}
