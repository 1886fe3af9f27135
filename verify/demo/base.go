package demo

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"time"

	"github.com/mcp-bridge/mcp-bridge/verify"
)

// RunBase tells the demo's story against a real CAD base at addr (the
// FreeCAD base of `make demo-freecad`): the handshake, the tools, drawing
// and undoing, a refused call, an unknown tool; then it draws a small
// part, saves the drawing into outDir and writes the base's render_drawing
// picture next to it, and prints both paths.
func RunBase(w io.Writer, bin, addr, outDir string) error {
	outDir, err := filepath.Abs(outDir)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(outDir, 0o755); err != nil {
		return err
	}
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "CAD base at %s.\n", addr)
	d, err := startBridge(w, bin, "--host", host, "--port", port)
	if err != nil {
		return err
	}
	s := d.s
	defer s.Close()

	names := d.tools()
	fmt.Fprintf(w, "← %d tools:\n", len(names))
	d.names(names)

	d.heading("3. Drawing, and seeing the effect")
	d.call(3, "new_drawing", `{"name":"bracket"}`)
	d.call(4, "draw_rectangle", `{"corner1":{"x":0,"y":0},"corner2":{"x":40,"y":20}}`)
	d.call(5, "draw_circle", `{"center":{"x":20,"y":10},"radius":5}`)
	d.call(6, "get_drawing_info", `{}`)
	d.call(7, "undo", `{}`)
	d.call(8, "get_drawing_info", `{}`)
	d.call(9, "redo", `{}`)
	d.call(10, "draw_circle", `{"center":{"x":20,"y":10},"radius":-1}`)

	d.heading("4. An unknown tool: the base's error passes through unchanged")
	d.call(11, "make_coffee", `{}`)

	d.heading("5. Finishing the part: layers, an arc, text, a dimension")
	d.call(12, "create_layer", `{"name":"annotations","color":5}`)
	d.call(13, "create_layer", `{"name":"holes","color":1,"linetype":"Continuous"}`)
	d.call(14, "change_layer", `{"handles":["102"],"layer":"holes"}`)
	d.call(15, "copy_entities", `{"handles":["102"],"dx":-12,"dy":0}`)
	d.call(16, "copy_entities", `{"handles":["102"],"dx":12,"dy":0}`)
	d.call(17, "draw_arc", `{"center":{"x":40,"y":10},"radius":10,"start_angle":-90,"end_angle":90}`)
	d.call(18, "add_linear_dimension", `{"start":{"x":0,"y":0},"end":{"x":40,"y":0},"offset":-6,"layer":"annotations"}`)
	d.call(19, "add_text", `{"position":{"x":0,"y":24},"text":"bracket, 2 mm steel","layer":"annotations"}`)
	d.call(20, "get_extents", `{}`)

	d.heading("6. Saving the drawing, and a picture of it")
	fcstd := filepath.Join(outDir, "bracket.FCStd")
	d.call(21, "save_drawing", fmt.Sprintf(`{"path":%q}`, fcstd))
	d.send(`{"jsonrpc":"2.0","id":22,"method":"tools/call","params":{"name":"render_drawing","arguments":{}}}`)
	pngPath := filepath.Join(outDir, "bracket.png")
	if err := savePicture(d.recv(), pngPath); err != nil && d.err == nil {
		d.err = err
	}
	if d.err == nil {
		fmt.Fprintf(w, "← a PNG image block, written to %s\n", pngPath)
	}

	d.heading("7. The client quits (closes stdin)")
	_ = s.CloseStdin()
	code, err := s.Wait(10 * time.Second)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "bridge exited with code %d\n", code)
	if d.err != nil {
		return d.err
	}
	if bad := s.Impure(); bad != "" {
		return fmt.Errorf("stdout carried something that is not a protocol message: %s", bad)
	}
	if code != 0 {
		return fmt.Errorf("the bridge exited with code %d", code)
	}
	fmt.Fprintf(w, "\nThe drawing: %s\nIts picture: %s\n", fcstd, pngPath)
	return nil
}

// savePicture writes the PNG of a render_drawing answer to path.
func savePicture(line, path string) error {
	var m struct {
		Result struct {
			Content []struct {
				Type, Data, MimeType, Text string
			} `json:"content"`
			IsError bool `json:"isError"`
		} `json:"result"`
	}
	if err := json.Unmarshal([]byte(line), &m); err != nil {
		return fmt.Errorf("render_drawing: %v: %s", err, verify.Short(line))
	}
	for _, c := range m.Result.Content {
		if c.Type == "image" && c.MimeType == "image/png" {
			png, err := base64.StdEncoding.DecodeString(c.Data)
			if err != nil {
				return fmt.Errorf("render_drawing: the image is not base64: %v", err)
			}
			return os.WriteFile(path, png, 0o644)
		}
	}
	return fmt.Errorf("render_drawing answered without a PNG image: %s", verify.Short(line))
}
