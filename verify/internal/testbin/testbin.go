// Package testbin builds the mcp-bridge binary once for the tests that run
// it as a child process.
package testbin

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// Main builds the binary into a temporary directory, stores its path in
// *bin, runs the tests and exits with their status. Call it from TestMain.
func Main(m *testing.M, bin *string) {
	dir, err := os.MkdirTemp("", "mcp-bridge-test")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	*bin = filepath.Join(dir, "mcp-bridge")
	out, err := exec.Command("go", "build", "-o", *bin, "github.com/mcp-bridge/mcp-bridge/cmd/mcp-bridge").CombinedOutput()
	if err != nil {
		fmt.Fprintf(os.Stderr, "building mcp-bridge: %v\n%s", err, out)
		os.RemoveAll(dir)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}
