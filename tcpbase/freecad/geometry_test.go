package freecad

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"image/png"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/mcp-bridge/mcp-bridge/verify"
)

// TestFreeCADGeometry draws through the bridge and reads the geometry back
// from FreeCAD: a 40 x 20 rectangle has those extents, undo removes it,
// the saved .FCStd reopens in a fresh FreeCAD with the same entities and
// the same bounding box, render_drawing returns a PNG.
// Needs CAD_MCP_FREECAD_ADDR and CAD_MCP_BRIDGE (the binary to test);
// CAD_MCP_FREECADCMD names freecadcmd when it is not on PATH.
func TestFreeCADGeometry(t *testing.T) {
	addr := freecadAddr(t)
	bin := os.Getenv("CAD_MCP_BRIDGE")
	if bin == "" {
		t.Skip("CAD_MCP_BRIDGE not set: `make test-freecad` sets it to the built bridge")
	}
	host, port, _ := net.SplitHostPort(addr)
	s, err := verify.Start(bin, []string{"--host", host, "--port", port, "--no-cache", "--log-level", "warn"}, verify.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	c := &caller{t: t, s: s}
	c.request("initialize", `{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"geometry-test","version":"1"}}`)
	if err := s.Send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`); err != nil {
		t.Fatal(err)
	}

	c.text("new_drawing", `{"name":"geometry"}`, `New drawing "geometry".`)
	c.text("get_extents", `{}`, `The drawing is empty: no extents.`)
	c.match("draw_rectangle", `{"corner1":{"x":10,"y":5},"corner2":{"x":50,"y":25}}`, `^Rectangle \w+ drawn, 40 x 20\.$`)
	c.text("get_extents", `{}`, `Extents (10, 5) - (50, 25), width 40, height 20.`)
	c.match("undo", `{}`, `^Undid 1 change; 0 entities now\.$`)
	c.text("get_extents", `{}`, `The drawing is empty: no extents.`)
	c.match("redo", `{}`, `^Redid 1 change; 1 entity now\.$`)
	c.text("get_extents", `{}`, `Extents (10, 5) - (50, 25), width 40, height 20.`)
	c.match("create_layer", `{"name":"holes","color":1}`, `^Layer holes created`)
	c.match("draw_circle", `{"center":{"x":30,"y":15},"radius":4,"layer":"holes"}`, `^Circle \w+ drawn`)
	c.match("draw_line", `{"start":{"x":10,"y":5},"end":{"x":40,"y":45}}`, `length 50\.$`)
	c.match("add_text", `{"position":{"x":12,"y":22},"text":"plate"}`, `^Text \w+ placed`)
	c.match("get_drawing_info", `{}`, `2 layers \(current: 0\), 4 entities\.`)

	path := filepath.Join(t.TempDir(), "geometry.FCStd")
	c.text("save_drawing", fmt.Sprintf(`{"path":%q}`, path), fmt.Sprintf(`Saved "geometry" to %s.`, path))
	c.match("get_drawing_info", `{}`, `unsaved changes: false`)
	reopened := reopen(t, path)
	if reopened.Entities != 4 || reopened.Layers != 2 {
		t.Errorf("the saved file reopens with %d entities on %d layers, want 4 on 2", reopened.Entities, reopened.Layers)
	}
	if want := [4]float64{10, 5, 50, 45}; reopened.Box != want {
		t.Errorf("the saved file's bounding box is %v, want %v", reopened.Box, want)
	}

	res := c.call("render_drawing", `{"size":640}`)
	var img []byte
	for _, b := range res.Content {
		if b.Type == "image" {
			if b.MimeType != "image/png" {
				t.Errorf("image block mimeType %q", b.MimeType)
			}
			if img, err = base64.StdEncoding.DecodeString(b.Data); err != nil {
				t.Fatalf("image data is not base64: %v", err)
			}
		}
	}
	if img == nil {
		t.Fatalf("render_drawing returned no image block: %+v", res)
	}
	cfg, err := png.DecodeConfig(bytes.NewReader(img))
	if err != nil {
		t.Fatalf("render_drawing's image is not a PNG: %v", err)
	}
	if cfg.Width != 640 || cfg.Height < 100 {
		t.Errorf("render_drawing {size: 640} gave %d x %d px", cfg.Width, cfg.Height)
	}
	if _, err := png.Decode(bytes.NewReader(img)); err != nil {
		t.Errorf("render_drawing's PNG does not decode: %v", err)
	}
}

// reopened is what a fresh FreeCAD reads from a saved drawing.
type reopened struct {
	Entities int        `json:"entities"`
	Layers   int        `json:"layers"`
	Box      [4]float64 `json:"box"` // xmin, ymin, xmax, ymax of every entity's shape
}

// reopen opens path in a new freecadcmd process (not the base's) and reads
// the entities back from FreeCAD's own objects.
func reopen(t *testing.T, path string) reopened {
	t.Helper()
	cmd := os.Getenv("CAD_MCP_FREECADCMD")
	if cmd == "" {
		cmd = "freecadcmd"
	}
	script, err := filepath.Abs("reopen.py")
	if err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(cmd, script, path).Output()
	if err != nil {
		t.Fatalf("%s reopen.py %s: %v\n%s", cmd, path, err, out)
	}
	i := bytes.Index(out, []byte("reopened: "))
	if i < 0 {
		t.Fatalf("reopen.py printed no result:\n%s", out)
	}
	line, _, _ := strings.Cut(string(out[i+len("reopened: "):]), "\n")
	var r reopened
	if err := json.Unmarshal([]byte(line), &r); err != nil {
		t.Fatalf("reopen.py: %v: %s", err, line)
	}
	return r
}

// caller makes tool calls through a bridge session.
type caller struct {
	t  *testing.T
	s  *verify.Bridge
	id int
}

type toolResult struct {
	Content []struct {
		Type     string `json:"type"`
		Text     string `json:"text"`
		Data     string `json:"data"`
		MimeType string `json:"mimeType"`
	} `json:"content"`
	IsError bool `json:"isError"`
}

func (c *caller) request(method, params string) json.RawMessage {
	c.t.Helper()
	c.id++
	if err := c.s.Send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":%q,"params":%s}`, c.id, method, params)); err != nil {
		c.t.Fatal(err)
	}
	line, err := c.s.Recv(60 * time.Second)
	if err != nil {
		c.t.Fatalf("%s: %v; bridge stderr:\n%s", method, err, c.s.Stderr())
	}
	var m struct {
		Result json.RawMessage `json:"result"`
		Error  json.RawMessage `json:"error"`
	}
	if err := json.Unmarshal([]byte(line), &m); err != nil || m.Result == nil {
		c.t.Fatalf("%s %s: %s", method, params, line)
	}
	return m.Result
}

func (c *caller) call(tool, args string) toolResult {
	c.t.Helper()
	raw := c.request("tools/call", fmt.Sprintf(`{"name":%q,"arguments":%s}`, tool, args))
	var r toolResult
	if err := json.Unmarshal(raw, &r); err != nil || len(r.Content) == 0 {
		c.t.Fatalf("%s: %v: %s", tool, err, raw)
	}
	if r.IsError {
		c.t.Fatalf("%s %s: isError: %s", tool, args, r.Content[0].Text)
	}
	return r
}

func (c *caller) text(tool, args, want string) {
	c.t.Helper()
	if got := c.call(tool, args).Content[0].Text; got != want {
		c.t.Errorf("%s %s:\n got %q\nwant %q", tool, args, got, want)
	}
}

func (c *caller) match(tool, args, pattern string) {
	c.t.Helper()
	if got := c.call(tool, args).Content[0].Text; !regexp.MustCompile(pattern).MatchString(got) {
		c.t.Errorf("%s %s: %q does not match %s", tool, args, got, pattern)
	}
}
