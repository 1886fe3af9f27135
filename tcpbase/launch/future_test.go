package launch_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/mcp-bridge/mcp-bridge/tcpbase/launch"
)

// TestFutureLaunchForgotten: a lock file naming a launch that started
// later than now (written while the clock was hours ahead: a dual-boot
// machine whose Windows keeps the hardware clock in local time, a VM
// resumed, NTP stepping the clock back) says nothing about a launch on
// its way up: its process id, maybe another program's by now (here this
// test's own), holds nothing off. Before, a start in the future was never
// older than the forget limit: every launch waited the whole --launch-wait
// for a program that was not coming, until the clock caught up.
func TestFutureLaunchForgotten(t *testing.T) {
	s := newSetup(t)
	clk := newClock()
	o := s.options(clk)
	lockPath := strings.TrimSuffix(launch.New(o).LogPath(), ".log") + ".lock"
	st := fmt.Sprintf(`{"pid":%d,"started":%q}`, os.Getpid(), clk.now().Add(2*time.Hour).Format(time.RFC3339Nano))
	if err := os.WriteFile(lockPath, []byte(st), 0o600); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	m := newMessages("FakeCAD (pid")
	done := make(chan error, 1)
	go func() { done <- launch.New(o).Ensure(ctx, m.add) }()
	select {
	case <-m.seen["FakeCAD (pid"]:
		cancel()
		t.Errorf("a launch started 2 h from now is waited for: %q", m.list())
		if err := result(t, done); err != nil && !errors.Is(err, context.Canceled) {
			t.Fatal(err)
		}
	case err := <-done:
		if err != nil {
			t.Fatalf("a launch started 2 h from now: %v", err)
		}
		if n := len(s.starts()); n != 1 {
			t.Errorf("%d starts, want the program started", n)
		}
	case <-time.After(2 * limit):
		t.Fatal("Ensure neither waited nor returned")
	}
}
