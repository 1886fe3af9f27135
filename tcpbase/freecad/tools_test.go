package freecad

import (
	"context"
	"encoding/json"
	"flag"
	"os"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/mcp-bridge/mcp-bridge/tcpbase"
	"github.com/mcp-bridge/mcp-bridge/tcpbase/simbase"
)

var update = flag.Bool("update", false, "rewrite tools.json from the simulated base's tools/list")

// listTools asks the base at addr for tools/list and returns its tools.
func listTools(t *testing.T, addr string) []any {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c := &tcpbase.Client{Addr: addr}
	ans, err := c.Call(ctx, []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`))
	if err != nil {
		t.Fatalf("tools/list at %s: %v", addr, err)
	}
	var m struct {
		Result struct {
			Tools []any `json:"tools"`
		} `json:"result"`
	}
	if err := json.Unmarshal(ans, &m); err != nil || len(m.Result.Tools) == 0 {
		t.Fatalf("tools/list at %s: %v: %.200s", addr, err, ans)
	}
	return m.Result.Tools
}

func simTools(t *testing.T) []any {
	sim, err := simbase.Start("127.0.0.1:0", simbase.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer sim.Close()
	return listTools(t, sim.Addr())
}

// TestToolsFile: the FreeCAD base lists tools.json, which must be exactly
// the simulated base's 26 tools (names, descriptions, inputSchemas).
// `go test ./tcpbase/freecad -run TestToolsFile -update` rewrites it.
func TestToolsFile(t *testing.T) {
	want := simTools(t)
	if *update {
		b, err := json.MarshalIndent(want, "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile("cadbase/tools.json", append(b, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	b, err := os.ReadFile("cadbase/tools.json")
	if err != nil {
		t.Fatal(err)
	}
	var got []any
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatalf("cadbase/tools.json: %v", err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("cadbase/tools.json differs from the simulated base's tools/list (-sim +file); run with -update:\n%s", diff)
	}
}

// TestFreeCADToolsList: the running FreeCAD base lists the simulated
// base's tools, unchanged and in the same order, then render_drawing.
func TestFreeCADToolsList(t *testing.T) {
	addr := freecadAddr(t)
	want := simTools(t)
	got := listTools(t, addr)
	if len(got) != len(want)+1 {
		t.Fatalf("FreeCAD lists %d tools, want the simulated base's %d plus render_drawing", len(got), len(want))
	}
	if diff := cmp.Diff(want, got[:len(want)]); diff != "" {
		t.Errorf("FreeCAD's tools differ from the simulated base's (-sim +freecad):\n%s", diff)
	}
	render, _ := got[len(want)].(map[string]any)
	sch, _ := render["inputSchema"].(map[string]any)
	if render["name"] != "render_drawing" || sch["type"] != "object" {
		t.Errorf("last tool: %v, want render_drawing with an object inputSchema", render)
	}
}

// freecadAddr is the FreeCAD base's address, or skips the test.
func freecadAddr(t *testing.T) string {
	t.Helper()
	addr := os.Getenv("CAD_MCP_FREECAD_ADDR")
	if addr == "" {
		t.Skip("CAD_MCP_FREECAD_ADDR not set: `make test-freecad` runs this against FreeCAD")
	}
	return addr
}
