package checks

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/mcp-bridge/mcp-bridge/tcpbase/simbase"
	"github.com/mcp-bridge/mcp-bridge/verify/internal/testbin"
	"github.com/mcp-bridge/mcp-bridge/verify/testdir"
)

// bridgeBin is the real bridge, built once for these tests.
var bridgeBin string

func TestMain(m *testing.M) { testbin.Main(m, &bridgeBin) }

func results(rep *Report) map[string]Result {
	m := map[string]Result{}
	for _, r := range rep.Results {
		m[r.Name] = r
	}
	return m
}

func TestVerifyPassesAgainstTheSim(t *testing.T) {
	rep, err := Run(context.Background(), Options{Bridge: bridgeBin}, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rep.Results {
		if r.Status != Pass {
			t.Errorf("%s: %s %s", r.Name, r.Status, r.Detail)
		}
	}
	if len(rep.Results) < 40 || rep.Failed != 0 || rep.Skipped != 0 {
		t.Errorf("%d checks, %d failed, %d skipped; want >= 40, 0, 0", len(rep.Results), rep.Failed, rep.Skipped)
	}
}

func TestVerifyAgainstAClosedPort(t *testing.T) {
	dead, err := freeAddr()
	if err != nil {
		t.Fatal(err)
	}
	rep, err := Run(context.Background(), Options{Bridge: bridgeBin, Base: dead}, nil)
	if err != nil {
		t.Fatal(err)
	}
	got := results(rep)
	for _, name := range []string{"base down: -32603 naming the address, bridge alive", "base back: the next request is served", "ping answers {}"} {
		if got[name].Status != Pass {
			t.Errorf("%s: %s %s", name, got[name].Status, got[name].Detail)
		}
	}
	if got["tools/list identical to a direct base call"].Status != Fail {
		t.Errorf("tools/list against nothing should fail")
	}
	if got["fault: garbage answer"].Status != Skip {
		t.Errorf("fault checks should be skipped against a real base")
	}
	if rep.OK() || !strings.Contains(rep.Hint, "nothing answers at "+dead) {
		t.Errorf("OK=%v hint=%q", rep.OK(), rep.Hint)
	}
}

func TestVerifyCatchesABrokenBridge(t *testing.T) {
	naive, err := testbin.Build(testdir.New(t), "naivebridge", "./testdata/naivebridge")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	rep, err := Run(ctx, Options{Bridge: naive}, nil)
	if err != nil {
		t.Fatal(err)
	}
	got := results(rep)
	for _, name := range []string{
		"stdout carries only protocol messages", // its banner
		"ping during a slow tool call",          // ping waits behind the call
		"-32700 for invalid JSON, without id",   // it stays silent
	} {
		if got[name].Status != Fail {
			t.Errorf("%s: %s, want FAIL", name, got[name].Status)
		}
	}
	if rep.OK() {
		t.Error("verify passed a broken bridge")
	}
}

// TestVerifyScratch: against a user's base the checks that draw are
// skipped; --scratch (Options.Scratch) runs them, and they draw.
func TestVerifyScratch(t *testing.T) {
	sim, err := simbase.Start("127.0.0.1:0", simbase.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer sim.Close()
	const draws = "tools/call changes the drawing"
	for _, scratch := range []bool{false, true} {
		before := sim.Calls()
		rep, err := Run(context.Background(), Options{Bridge: bridgeBin, Base: sim.Addr(), Only: draws, Scratch: scratch}, nil)
		if err != nil {
			t.Fatal(err)
		}
		got := results(rep)[draws]
		want := Skip
		if scratch {
			want = Pass
		}
		if got.Status != want {
			t.Errorf("Scratch %v: %q is %s (%s), want %s", scratch, draws, got.Status, got.Detail, want)
		}
		if drew := sim.Calls() > before; drew != scratch {
			t.Errorf("Scratch %v: the base ran tool calls: %v", scratch, drew)
		}
	}
}
