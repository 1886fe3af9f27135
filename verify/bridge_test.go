package verify

import (
	"strings"
	"testing"
	"time"
)

// TestRecvAfterAnImmediateExit: a bridge that exits at once (it refuses its
// flags) gives Recv an error that says so, and the race detector finds no
// unsynchronised exit status.
func TestRecvAfterAnImmediateExit(t *testing.T) {
	for range 20 {
		b, err := Start(bridgeBin, []string{"--no-such-flag"}, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if line, err := b.Recv(10 * time.Second); err == nil {
			t.Fatalf("a line from a bridge that refused its flags: %s", line)
		} else if !strings.Contains(err.Error(), "closed stdout") {
			t.Fatalf("Recv: %v", err)
		}
		if code, err := b.Wait(10 * time.Second); err != nil || code != 2 {
			t.Fatalf("exit %d, %v; want 2 (usage)", code, err)
		}
		b.Close()
	}
}

// TestCloseWithLinesUnread: Close returns even when more lines came than
// anyone read (the reader must not stay blocked handing them over).
func TestCloseWithLinesUnread(t *testing.T) {
	b, err := Start(bridgeBin, []string{"--no-cache"}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	pings := strings.Repeat(`{"jsonrpc":"2.0","id":1,"method":"ping"}`+"\n", 20000)
	if err := b.SendRaw([]byte(pings)); err != nil {
		t.Fatal(err)
	}
	if err := b.CloseStdin(); err != nil {
		t.Fatal(err)
	}
	closed := make(chan struct{})
	go func() { b.Close(); close(closed) }()
	select {
	case <-closed:
	case <-time.After(time.Minute): // a guard against a hang
		t.Fatal("Close did not return")
	}
}
