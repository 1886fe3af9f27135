package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"testing"
	"time"
)

// TestSymbolPackage: a function's package, whatever its receiver, closure
// or type arguments.
func TestSymbolPackage(t *testing.T) {
	for name, want := range map[string]string{
		"net/http.(*Client).Do": "net/http",
		"net/http.init.func1":   "net/http",
		"runtime.mallocgc":      "runtime",
		"slices.SortFunc[go.shape.struct { net/http.x int }]":   "slices",
		"github.com/mcp-bridge/mcp-bridge/bridge.(*client).run": "github.com/mcp-bridge/mcp-bridge/bridge",
		"vendor/golang.org/x/net/http2/hpack.(*Decoder).Write":  "vendor/golang.org/x/net/http2/hpack",
		"go:buildid": "runtime",
		"_rt0_amd64": "runtime",
	} {
		if got := symbolPackage(name); got != want {
			t.Errorf("symbolPackage(%q) = %q, want %q", name, got, want)
		}
	}
}

// TestAccountOfTheFloor: the account of a running process (the floor
// relay, built with its symbols, idle on its stdin) adds up to its RSS and
// finds the code it ran (the runtime's) on resident pages of its binary.
func TestAccountOfTheFloor(t *testing.T) {
	// GOOS first: under Wine the Linux /proc is visible, but nothing else
	// this test needs is (no go command, no pagemap of a Windows process).
	if _, err := os.Stat("/proc/self/pagemap"); runtime.GOOS != "linux" || err != nil {
		t.Skip("needs /proc (Linux)")
	}
	dir := t.TempDir()
	src, err := filepath.Abs("../floor/main.go")
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "floor")
	build := exec.Command("go", "build", "-trimpath", "-o", bin, src)
	build.Env = append(os.Environ(), "CGO_ENABLED=0", "GOWORK=off", "GOFLAGS=")
	if out, err := build.CombinedOutput(); err != nil {
		t.Skipf("no go command to build the floor with: %v %s", err, out)
	}
	cmd := exec.Command(bin, "-base", "127.0.0.1:1")
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { stdin.Close(); _ = cmd.Wait() }()
	// Poll until the process has mapped its binary and run some code.
	var a *RSSAccount
	for deadline := time.Now().Add(30 * time.Second); ; {
		a, err = Account(cmd.Process.Pid, bin)
		if err == nil && slices.ContainsFunc(a.Packages, func(p Part) bool { return p.Name == "runtime" && p.KiB > 0 }) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no account with the runtime's code resident: %v %+v", err, a)
		}
		time.Sleep(10 * time.Millisecond)
	}
	sum := 0.0
	for _, k := range a.Kinds {
		sum += k.KiB
	}
	if a.TotalKiB <= 0 || int(sum+0.5) != a.TotalKiB {
		t.Errorf("the kinds add up to %.0f KiB, the total is %d KiB: %+v", sum, a.TotalKiB, a.Kinds)
	}
	for _, p := range a.Packages {
		if p.OfKiB > 0 && p.KiB > p.OfKiB+0.01 {
			t.Errorf("%s: %.1f KiB resident of %.1f KiB", p.Name, p.KiB, p.OfKiB)
		}
	}
	if !slices.ContainsFunc(a.Sections, func(p Part) bool { return p.Name == ".text" && p.KiB > 0 }) {
		t.Errorf("no resident .text: %+v", a.Sections)
	}
}
