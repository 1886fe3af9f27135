package checks

import (
	"context"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcp-bridge/mcp-bridge/verify/internal/testbin"
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
	naive := filepath.Join(t.TempDir(), "naivebridge")
	if out, err := exec.Command("go", "build", "-o", naive, "./testdata/naivebridge").CombinedOutput(); err != nil {
		t.Fatalf("building the broken bridge: %v\n%s", err, out)
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
