//go:build unix

package main

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestDoctorReadsOnlyRegularFiles: a FIFO, a device or a huge file where a
// client keeps its configuration is reported, and doctor still ends. Unix
// only: Windows has no FIFOs or /dev/zero.
func TestDoctorReadsOnlyRegularFiles(t *testing.T) {
	port := startSim(t)
	home := tempDir(t)
	os.MkdirAll(filepath.Join(home, ".cursor"), 0o700)
	if err := syscall.Mkfifo(filepath.Join(home, ".cursor", "mcp.json"), 0o600); err != nil {
		t.Skip("no FIFOs here:", err)
	}
	if err := os.Symlink("/dev/zero", filepath.Join(home, ".claude.json")); err != nil {
		t.Fatal(err)
	}
	os.MkdirAll(filepath.Join(home, ".codebuddy"), 0o700)
	big, err := os.Create(filepath.Join(home, ".codebuddy", ".mcp.json"))
	if err != nil {
		t.Fatal(err)
	}
	big.Truncate(200 << 20) // sparse: takes no disk
	big.Close()
	env := map[string]string{"CAD_MCP_PORT": port, "HOME": home, "XDG_CONFIG_HOME": filepath.Join(home, ".config")}
	type result struct {
		out, errs string
		code      int
	}
	done := make(chan result, 1)
	go func() {
		out, errs, code := runCLI(t, env, "", "doctor", "--timeout", "5s")
		done <- result{out, errs, code}
	}()
	select {
	case r := <-done:
		for _, want := range []string{"Cursor config " + filepath.Join(home, ".cursor", "mcp.json") + ": not a regular file",
			"Claude Code config " + filepath.Join(home, ".claude.json") + ": not a regular file",
			"CodeBuddy config " + filepath.Join(home, ".codebuddy", ".mcp.json") + ": larger than"} {
			if !strings.Contains(r.out, want) {
				t.Errorf("doctor output lacks %q:\n%s", want, r.out)
			}
		}
		if r.code != 1 {
			t.Errorf("exit %d: %s", r.code, r.errs)
		}
	case <-time.After(time.Minute): // a guard against a hang, far above --timeout
		t.Fatal("doctor still reading a client configuration after a minute")
	}
}
