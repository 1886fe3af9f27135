// Package testbin builds the mcp-bridge binary once for the tests that run
// it as a child process.
package testbin

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
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
	*bin, err = Build(dir, "mcp-bridge", "github.com/mcp-bridge/mcp-bridge/cmd/mcp-bridge")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.RemoveAll(dir)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// Build builds the command in pkg into dir and returns its path. When
// MCP_BRIDGE_TEST_BINDIR is set it returns the one already built there
// instead: `make test-windows` runs the tests under Wine, where there is no
// go command, and builds mcp-bridge.exe and naivebridge.exe beforehand.
func Build(dir, name, pkg string) (string, error) {
	if runtime.GOOS == "windows" {
		name += ".exe"
	}
	if pre := os.Getenv("MCP_BRIDGE_TEST_BINDIR"); pre != "" {
		return filepath.Join(pre, name), nil
	}
	bin := filepath.Join(dir, name)
	if out, err := exec.Command("go", "build", "-o", bin, pkg).CombinedOutput(); err != nil {
		return "", fmt.Errorf("building %s: %v\n%s", pkg, err, out)
	}
	return bin, nil
}
