//go:build linux

package verify

import (
	"net"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mcp-bridge/mcp-bridge/tcpbase/simbase"
)

// TestSignals: SIGTERM with a call in flight finishes it and exits 0; a
// second SIGINT exits at once; stdin closed mid-line still gets its answer.
func TestSignals(t *testing.T) {
	sim, err := simbase.Start("127.0.0.1:0", simbase.Options{Faults: true})
	if err != nil {
		t.Fatal(err)
	}
	defer sim.Close()
	_, port, _ := net.SplitHostPort(sim.Addr())
	// inFlight starts a bridge and has it send tool to the base: once the
	// base counts the call, the bridge is up (its signal handling too) and
	// the call is in flight.
	inFlight := func(t *testing.T, tool, args string) *Bridge {
		t.Helper()
		s, err := Start(bridgeBin, []string{"--port", port, "--no-cache"}, Options{})
		if err != nil {
			t.Fatal(err)
		}
		before := sim.Calls()
		s.Send(ToolCall("1", tool, args))
		deadline := time.Now().Add(time.Minute)
		for sim.Calls() == before {
			if time.Now().After(deadline) {
				t.Fatal("the call never reached the base")
			}
			time.Sleep(5 * time.Millisecond) // polling a condition, not waiting for it to happen
		}
		return s
	}

	t.Run("SIGTERM finishes the call in flight", func(t *testing.T) {
		s := inFlight(t, "fault_sleep", `{"ms":500}`)
		defer s.Close()
		// The reader answers ping in order: after the answer, call 2 is queued.
		s.Send(ToolCall("2", "get_drawing_info", `{}`))
		s.Send(`{"jsonrpc":"2.0","id":"queued","method":"ping"}`)
		if got, err := s.Recv(time.Minute); err != nil || got != `{"jsonrpc":"2.0","id":"queued","result":{}}` {
			t.Fatalf("ping: %q %v", got, err)
		}
		s.Signal(syscall.SIGTERM)
		first, err := s.Recv(5 * time.Second)
		if err != nil || !strings.Contains(first, "slept 500 ms") {
			t.Fatalf("in flight: %q %v", first, err)
		}
		second, err := s.Recv(5 * time.Second)
		if err != nil || !strings.Contains(second, "shutting down") || !strings.Contains(second, `"id":2`) {
			t.Fatalf("queued: %q %v", second, err)
		}
		if code, err := s.Wait(5 * time.Second); err != nil || code != 0 {
			t.Fatalf("exit %d %v", code, err)
		}
		if !strings.Contains(s.Stderr(), "dropped=1") {
			t.Errorf("the dropped request was not logged:\n%s", s.Stderr())
		}
	})

	t.Run("a second SIGINT exits at once", func(t *testing.T) {
		s := inFlight(t, "fault_hang", `{}`)
		defer s.Close()
		start := time.Now()
		s.Signal(syscall.SIGINT)
		time.Sleep(50 * time.Millisecond)
		s.Signal(syscall.SIGINT)
		if _, err := s.Wait(5 * time.Second); err != nil {
			t.Fatal(err)
		}
		// Without the second signal it would exit only after the 2 s grace.
		if d := time.Since(start); d > 1500*time.Millisecond {
			t.Errorf("took %v: the second signal should not wait for the 2 s grace", d)
		}
		if bad := s.Impure(); bad != "" {
			t.Errorf("stdout: %s", bad)
		}
	})

	t.Run("stdin closed mid-line", func(t *testing.T) {
		for _, tc := range []struct{ tail, want string }{
			{`{"jsonrpc":"2.0","id":1,"method":"ping"}`, `{"jsonrpc":"2.0","id":1,"result":{}}`},
			{`{"jsonrpc":"2.0","id":1,"meth`, `{"jsonrpc":"2.0","error":{"code":-32700,"message":"Parse error: the line is not valid JSON"}}`},
		} {
			s, err := Start(bridgeBin, []string{"--port", port, "--no-cache"}, Options{})
			if err != nil {
				t.Fatal(err)
			}
			s.SendRaw([]byte(tc.tail))
			s.CloseStdin()
			got, err := s.Recv(5 * time.Second)
			if err != nil || got != tc.want {
				t.Errorf("%s: got %q %v", tc.tail, got, err)
			}
			if code, err := s.Wait(5 * time.Second); err != nil || code != 0 {
				t.Errorf("exit %d %v", code, err)
			}
			s.Close()
		}
	})
}
