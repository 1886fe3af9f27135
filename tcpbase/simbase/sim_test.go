package simbase

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/mcp-bridge/mcp-bridge/tcpbase"
)

// session calls the sim's tools over real sockets, one connection each.
type session struct {
	t  *testing.T
	c  *tcpbase.Client
	id int
}

func newSession(t *testing.T, opts Options) (*session, *Server) {
	s, err := Start("127.0.0.1:0", opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return &session{t: t, c: &tcpbase.Client{Addr: s.Addr()}}, s
}

// call returns the tool's text and isError.
func (s *session) call(tool, args string) (string, bool) {
	s.t.Helper()
	s.id++
	ans, err := s.c.Call(context.Background(), []byte(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":%q,"arguments":%s}}`, s.id, tool, args)))
	if err != nil {
		s.t.Fatalf("%s: %v", tool, err)
	}
	var r struct {
		Result struct {
			Content []struct{ Text string } `json:"content"`
			IsError bool                    `json:"isError"`
		} `json:"result"`
	}
	if err := json.Unmarshal(ans, &r); err != nil || len(r.Result.Content) != 1 {
		s.t.Fatalf("%s: answer %s", tool, ans)
	}
	return r.Result.Content[0].Text, r.Result.IsError
}

func TestToolsActOnTheDrawing(t *testing.T) {
	s, _ := newSession(t, Options{})
	steps := []struct {
		tool, args, want string
		isError          bool
	}{
		{"create_layer", `{"name":"walls","color":1,"linetype":"Dashed"}`, "Layer walls created (color 1, Dashed).", false},
		{"create_layer", `{"name":"WALLS"}`, `layer "WALLS" already exists`, true},
		{"set_current_layer", `{"name":"walls"}`, "Current layer is now walls.", false},
		{"draw_line", `{"start":{"x":0,"y":0},"end":{"x":10,"y":0}}`, "Line 101 drawn from (0, 0) to (10, 0), length 10.", false},
		{"draw_circle", `{"center":{"x":5,"y":5},"radius":2,"layer":"0"}`, "Circle 102 drawn at (5, 5), radius 2.", false},
		{"draw_arc", `{"center":{"x":0,"y":0},"radius":1,"start_angle":0,"end_angle":90}`, "Arc 103 drawn at (0, 0), radius 1, from 0° to 90°.", false},
		{"draw_polyline", `{"points":[{"x":0,"y":0},{"x":1,"y":1},{"x":2,"y":0}],"closed":true}`, "Polyline 104 drawn through 3 points.", false},
		{"draw_rectangle", `{"corner1":{"x":0,"y":0},"corner2":{"x":4,"y":3}}`, "Rectangle 105 drawn, 4 x 3.", false},
		{"add_text", `{"position":{"x":1,"y":1},"text":"Plan"}`, `Text 106 placed at (1, 1): "Plan".`, false},
		{"add_linear_dimension", `{"start":{"x":0,"y":0},"end":{"x":3,"y":4}}`, "Dimension 107 added: 5.", false},
		{"list_entities", `{"layer":"0"}`, "1 entity:\n- 102 circle on 0: center (5, 5), radius 2", false},
		{"move_entities", `{"handles":["102"],"dx":1,"dy":-1}`, "Moved 1 entity by (1, -1).", false},
		{"get_entity", `{"handle":"102"}`, `{"handle":"102","type":"circle","layer":"0","points":[{"X":6,"Y":4}],"radius":2}`, false},
		{"rotate_entities", `{"handles":["101"],"base":{"x":0,"y":0},"angle":90}`, "Rotated 1 entity by 90° about (0, 0).", false},
		{"get_extents", `{"handles":["101"]}`, "Extents (0, 0) - (0, 10), width 0, height 10.", false},
		{"scale_entities", `{"handles":["107"],"base":{"x":0,"y":0},"factor":2}`, "Scaled 1 entity by 2 about (0, 0).", false},
		{"get_entity", `{"handle":"107"}`, `{"handle":"107","type":"dimension","layer":"walls","points":[{"X":0,"Y":0},{"X":6,"Y":8}],"text":"10","height":5}`, false},
		{"copy_entities", `{"handles":["102"],"dx":10,"dy":0}`, "Copied 1 entity: 108.", false},
		{"change_layer", `{"handles":["108"],"layer":"walls"}`, "Moved 1 entity to layer walls.", false},
		{"delete_layer", `{"name":"walls"}`, "layer walls is current: make another layer current first", true},
		{"delete_entities", `{"handles":["108","nope"]}`, `no entity with handle "nope"`, true},
		{"delete_entities", `{"handles":["108"]}`, "Deleted 1 entity.", false},
		{"measure_distance", `{"from":{"x":0,"y":0},"to":{"x":-3,"y":-4}}`, "Distance 5, angle -126.869898°, dx -3, dy -4.", false},
		{"undo", `{"steps":2}`, "Undid 2 changes; 8 entities now.", false},
		{"redo", `{}`, "Redid 1 change; 8 entities now.", false},
		{"save_drawing", `{}`, "the drawing has never been saved: give a path", true},
		{"save_drawing", `{"path":"C:\\plans\\a.pdf"}`, `path "C:\\plans\\a.pdf" must end in .dwg or .dxf`, true},
		{"save_drawing", `{"path":"C:\\plans\\a.dwg"}`, `Saved "Drawing1" to C:\plans\a.dwg.`, false},
		{"get_drawing_info", `{}`, `Drawing "Drawing1", file C:\plans\a.dwg, unsaved changes: false. 2 layers (current: walls), 8 entities. Extents: (-1, -1) - (18, 10).`, false},
		{"new_drawing", `{"name":"Empty"}`, `New drawing "Empty".`, false},
		{"list_entities", `{}`, "0 entities:", false},
		{"undo", `{}`, "Undid 1 change; 8 entities now.", false},
	}
	for i, st := range steps {
		got, isErr := s.call(st.tool, st.args)
		if got != st.want || isErr != st.isError {
			t.Fatalf("step %d %s %s:\ngot  %q (isError %v)\nwant %q (isError %v)", i, st.tool, st.args, got, isErr, st.want, st.isError)
		}
	}
}

func TestArgumentsChecked(t *testing.T) {
	s, _ := newSession(t, Options{})
	tests := []struct{ tool, args, want string }{
		{"draw_line", `{"start":{"x":0,"y":0}}`, "Invalid arguments for draw_line: missing required argument 'end'"},
		{"draw_line", `{"start":{"x":"0","y":0},"end":{"x":1,"y":1}}`, "Invalid arguments for draw_line: 'start.x' must be a number"},
		{"draw_circle", `{"center":{"x":0,"y":0},"radius":1,"colour":3}`, "Invalid arguments for draw_circle: unknown argument 'colour'"},
		{"draw_polyline", `{"points":[{"x":0,"y":0}]}`, "Invalid arguments for draw_polyline: 'points' needs at least 2 items"},
		{"create_layer", `{"name":"x","color":300}`, "Invalid arguments for create_layer: 'color' must be at most 255"},
		{"create_layer", `{"name":"x","linetype":"Wavy"}`, "Invalid arguments for create_layer: 'linetype' must be one of Continuous, Dashed, Hidden, Center, Dot"},
		{"undo", `{"steps":1.5}`, "Invalid arguments for undo: 'steps' must be a whole number"},
		{"list_entities", `{"type":"blob"}`, "Invalid arguments for list_entities: 'type' must be one of line, circle, arc, polyline, text, dimension"},
	}
	for _, tt := range tests {
		got, isErr := s.call(tt.tool, tt.args)
		if got != tt.want || !isErr {
			t.Errorf("%s %s:\ngot  %q (isError %v)\nwant %q", tt.tool, tt.args, got, isErr, tt.want)
		}
	}
}

func TestToolList(t *testing.T) {
	testOnly := func(name string) bool { return strings.HasPrefix(name, "fault_") || strings.HasPrefix(name, "sim_") }
	for _, opts := range []Options{{}, {Faults: true}, {LimitTools: true}, {Faults: true, LimitTools: true}} {
		sim := New(opts)
		var list struct {
			Tools []struct {
				Name        string         `json:"name"`
				Description string         `json:"description"`
				InputSchema map[string]any `json:"inputSchema"`
			} `json:"tools"`
		}
		if err := json.Unmarshal(sim.list, &list); err != nil {
			t.Fatal(err)
		}
		cad, faults, limits := 0, 0, 0
		for _, tl := range list.Tools {
			switch {
			case !testOnly(tl.Name):
				cad++
			case tl.Name == "sim_slow" || tl.Name == "sim_picture" || tl.Name == "sim_listing":
				limits++
			default:
				faults++
			}
			if tl.Description == "" {
				t.Errorf("%s has no description", tl.Name)
			}
			if tl.Name == "fault_untyped_schema" {
				continue
			}
			if tl.InputSchema["type"] != "object" || tl.InputSchema["properties"] == nil {
				t.Errorf("%s: inputSchema %v", tl.Name, tl.InputSchema)
			}
		}
		if cad != 26 {
			t.Errorf("%+v: %d CAD tools, want 26", opts, cad)
		}
		if (faults > 0) != opts.Faults || (limits == 3) != opts.LimitTools || limits != 0 && limits != 3 {
			t.Errorf("%+v: %d fault tools, %d limit tools", opts, faults, limits)
		}
	}
}

func TestCallCounter(t *testing.T) {
	s, sim := newSession(t, Options{})
	s.call("get_drawing_info", `{}`)
	s.call("get_drawing_info", `{}`)
	if sim.Calls() != 2 || sim.CallsFor("1") != 1 || sim.CallsFor("2") != 1 || sim.CallsFor("3") != 0 {
		t.Errorf("calls %d, by id 1:%d 2:%d 3:%d", sim.Calls(), sim.CallsFor("1"), sim.CallsFor("2"), sim.CallsFor("3"))
	}
}
