package bench

import (
	_ "embed"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"time"

	"github.com/mcp-bridge/mcp-bridge/verify"
)

// relaySource is the floor every figure is also compared with: a minimal
// relay from a client to the base (relay/main.go), built by the benchmark
// itself so that it carries nothing of the bridge.
//
//go:embed relay/main.go
var relaySource []byte

// buildRelay builds the relay into a temporary directory with the Go
// toolchain on PATH; it returns the binary and a function that removes it.
func buildRelay() (string, func(), error) {
	dir, err := os.MkdirTemp("", "mcp-bridge-bench-relay")
	if err != nil {
		return "", nil, err
	}
	cleanup := func() { os.RemoveAll(dir) }
	files := map[string][]byte{"main.go": relaySource, "go.mod": []byte("module relay\n\ngo 1.22\n")}
	for name, b := range files {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o600); err != nil {
			cleanup()
			return "", nil, err
		}
	}
	bin := filepath.Join(dir, "relay")
	if runtime.GOOS == "windows" {
		bin += ".exe"
	}
	cmd := exec.Command("go", "build", "-trimpath", "-o", bin, ".")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=", "GOTOOLCHAIN=local", "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		cleanup()
		return "", nil, fmt.Errorf("building the floor relay (needs the Go toolchain): %v: %s", err, out)
	}
	return bin, cleanup, nil
}

// floor is the relay as the figures use it; a nil *floor leaves the floor
// columns empty.
type floor struct {
	bin  string
	base string
}

// startStdio starts the stdio relay.
func (f *floor) startStdio() (*verify.Bridge, error) {
	return verify.Start(f.bin, []string{f.base}, verify.Options{Stderr: os.Stderr})
}

// startHTTP starts the HTTP relay on a free loopback port and returns its
// /mcp URL once it answers.
func (f *floor) startHTTP() (*httpBridge, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	addr := ln.Addr().String()
	ln.Close()
	cmd := exec.Command(f.bin, f.base, addr)
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	return waitHTTP(cmd, addr)
}

// withFloor adds the floor's figures to f: its stats, and the bridge's
// figure as a multiple of the floor's (for rates, bridged / floor too:
// below 1 is slower).
func withFloor(f Figure, fl *Stats) Figure {
	if fl == nil || f.Bridged == nil || fl.P50 == 0 {
		return f
	}
	f.Floor = fl
	f.VsFloor = f.Bridged.P50 / fl.P50
	return f
}

// memFloor is the relay's memory figure, as Stats, for withFloor.
func memFloor(pid int, key string) *Stats {
	kb, ok := verify.ProcStatus(pid, key)
	if !ok {
		return nil
	}
	return &Stats{P50: kb / 1024, N: 1}
}

// spawnToInit starts a line-speaking child and has its initialize answered;
// it returns how long that took, and the child.
func spawnToInit(start func() (*verify.Bridge, error)) (time.Duration, *verify.Bridge, error) {
	t0 := time.Now()
	b, err := start()
	if err != nil {
		return 0, nil, err
	}
	if _, err := roundTrip(b, verify.Initialize("1", "2025-06-18")); err != nil {
		b.Close()
		return 0, nil, err
	}
	return time.Since(t0), b, nil
}
