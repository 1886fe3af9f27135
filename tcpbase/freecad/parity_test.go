package freecad

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/mcp-bridge/mcp-bridge/tcpbase"
	"github.com/mcp-bridge/mcp-bridge/tcpbase/simbase"
)

// sameScript is a drawing session whose every answer must be the same,
// word for word, from FreeCAD as from the simulated base: results, refusals
// and their isError flags. (Left out where FreeCAD differs by design, see
// README.md: save_drawing's file type, extents of arcs and of dimension
// lines, undo past new_drawing, "unsaved changes" of a new drawing.)
var sameScript = [][2]string{
	{"new_drawing", `{"name":"parity"}`},
	{"list_layers", `{}`},
	{"create_layer", `{"name":"walls","color":3,"linetype":"Dashed"}`},
	{"create_layer", `{"name":"WALLS"}`},
	{"create_layer", `{"name":"  "}`},
	{"set_current_layer", `{"name":"walls"}`},
	{"set_current_layer", `{"name":"roof"}`},
	{"draw_line", `{"start":{"x":1,"y":1},"end":{"x":4,"y":5}}`},
	{"draw_line", `{"start":{"x":1,"y":1},"end":{"x":1,"y":1}}`},
	{"draw_circle", `{"center":{"x":10,"y":10},"radius":2.5,"layer":"0"}`},
	{"draw_circle", `{"center":{"x":10,"y":10},"radius":1,"layer":"roof"}`},
	{"draw_polyline", `{"points":[{"x":0,"y":0},{"x":6,"y":0},{"x":6,"y":3}],"closed":true}`},
	{"draw_rectangle", `{"corner1":{"x":-5,"y":-5},"corner2":{"x":35,"y":15}}`},
	{"draw_rectangle", `{"corner1":{"x":0,"y":0},"corner2":{"x":0,"y":5}}`},
	{"add_text", `{"position":{"x":2,"y":3},"text":"Room \"A\"","height":3.5}`},
	{"add_text", `{"position":{"x":2,"y":3},"text":" "}`},
	{"add_linear_dimension", `{"start":{"x":0,"y":0},"end":{"x":30,"y":0},"offset":2}`},
	{"get_drawing_info", `{}`},
	{"list_layers", `{}`},
	{"list_entities", `{}`},
	{"list_entities", `{"layer":"WALLS","type":"line"}`},
	{"list_entities", `{"limit":2}`},
	{"get_entity", `{"handle":"101"}`},
	{"get_entity", `{"handle":"105"}`},
	{"get_entity", `{"handle":"999"}`},
	{"move_entities", `{"handles":["101","102"],"dx":2.5,"dy":-1}`},
	{"move_entities", `{"handles":["101","nope"],"dx":1,"dy":1}`},
	{"get_entity", `{"handle":"102"}`},
	{"copy_entities", `{"handles":["103"],"dx":0,"dy":10}`},
	{"scale_entities", `{"handles":["102","106"],"base":{"x":0,"y":0},"factor":2}`},
	{"get_entity", `{"handle":"106"}`},
	{"get_extents", `{}`},
	{"get_extents", `{"handles":["101"]}`},
	{"measure_distance", `{"from":{"x":1,"y":1},"to":{"x":-2,"y":-3}}`},
	{"change_layer", `{"handles":["101","104"],"layer":"0"}`},
	{"change_layer", `{"handles":["101"],"layer":"roof"}`},
	{"delete_layer", `{"name":"walls"}`},
	{"set_current_layer", `{"name":"0"}`},
	{"delete_layer", `{"name":"walls"}`},
	{"delete_layer", `{"name":"0"}`},
	{"delete_entities", `{"handles":["103","107"]}`},
	{"list_entities", `{}`},
	{"undo", `{"steps":2}`},
	{"list_entities", `{"type":"polyline"}`},
	{"redo", `{}`},
	{"redo", `{"steps":5}`},
	{"redo", `{}`},
	{"rotate_entities", `{"handles":["101"],"base":{"x":0,"y":0},"angle":90}`},
	{"list_entities", `{"type":"line"}`},
	{"draw_arc", `{"center":{"x":0,"y":0},"radius":3,"start_angle":30,"end_angle":390}`},
	{"draw_arc", `{"center":{"x":0,"y":0},"radius":3,"start_angle":-45,"end_angle":45}`},
	{"list_entities", `{"type":"arc"}`},
	{"undo", `{"steps":3}`},
	{"list_entities", `{}`},
	{"save_drawing", `{}`},
}

// TestSameAnswers runs sameScript against a fresh simulated base and
// against FreeCAD and compares every answer.
func TestSameAnswers(t *testing.T) {
	addr := freecadAddr(t)
	sim, err := simbase.Start("127.0.0.1:0", simbase.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer sim.Close()
	for i, step := range sameScript {
		want := callTool(t, sim.Addr(), step[0], step[1])
		got := callTool(t, addr, step[0], step[1])
		if got != want {
			t.Errorf("step %d, %s %s:\nsimbase: %s\nfreecad: %s", i, step[0], step[1], want, got)
		}
	}
}

// callTool calls a tool directly on a base and returns its result's text
// and isError flag, or the error it answered.
func callTool(t *testing.T, addr, tool, args string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c := &tcpbase.Client{Addr: addr}
	ans, err := c.Call(ctx, fmt.Appendf(nil, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":%q,"arguments":%s}}`, tool, args))
	if err != nil {
		t.Fatalf("%s at %s: %v", tool, addr, err)
	}
	var m struct {
		Result *toolResult     `json:"result"`
		Error  json.RawMessage `json:"error"`
	}
	if err := json.Unmarshal(ans, &m); err != nil || m.Result == nil || len(m.Result.Content) == 0 {
		return "answer: " + string(ans)
	}
	return fmt.Sprintf("isError %v: %s", m.Result.IsError, m.Result.Content[0].Text)
}
