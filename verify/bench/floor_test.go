package bench

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/mcp-bridge/mcp-bridge/tcpbase/simbase"
	"github.com/mcp-bridge/mcp-bridge/verify"
)

// TestFloorRelay: the benchmark builds its floor and the floor relays, over
// stdio and over HTTP, what the base answers.
func TestFloorRelay(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a program")
	}
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("the floor is built with the go command, which is not here (under Wine the tests run without it)")
	}
	sim, err := simbase.Start("127.0.0.1:0", simbase.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer sim.Close()
	bin, cleanup, err := buildRelay()
	if err != nil {
		t.Fatal(err)
	}
	defer cleanup()
	fl := &floor{bin: bin, base: sim.Addr()}

	_, r, err := spawnToInit(fl.startStdio)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	ans, err := roundTrip(r, verify.ToolCall("7", "get_drawing_info", `{}`))
	if err != nil || !strings.HasPrefix(ans, `{"jsonrpc":"2.0","id":7,"result"`) {
		t.Fatalf("stdio relay: %v %.200s", err, ans)
	}

	h, err := fl.startHTTP()
	if err != nil {
		t.Fatal(err)
	}
	defer h.close()
	if err := h.call("relay", 8); err != nil {
		t.Fatalf("HTTP relay: %v", err)
	}
	if n := sim.Calls(); n != 2 {
		t.Errorf("the base ran %d calls, want 2", n)
	}
}
