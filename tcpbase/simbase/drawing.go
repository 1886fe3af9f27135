package simbase

import (
	"encoding/json"
	"net"

	"fmt"
	"github.com/mcp-bridge/mcp-bridge/rpc"
	"math"
	"slices"
	"strings"
)

type pt struct{ X, Y float64 }

func (p pt) String() string { return fmt.Sprintf("(%s, %s)", f(p.X), f(p.Y)) }

// f formats a coordinate without float noise.
func f(v float64) string {
	v = math.Round(v*1e6) / 1e6
	if v == 0 {
		v = 0 // no "-0"
	}
	return fmt.Sprintf("%g", v)
}

type entity struct {
	Handle     string  `json:"handle"`
	Type       string  `json:"type"`
	Layer      string  `json:"layer"`
	Points     []pt    `json:"points,omitempty"`
	Radius     float64 `json:"radius,omitempty"`
	StartAngle float64 `json:"start_angle,omitempty"`
	EndAngle   float64 `json:"end_angle,omitempty"`
	Closed     bool    `json:"closed,omitempty"`
	Text       string  `json:"text,omitempty"`
	Height     float64 `json:"height,omitempty"`
	Rotation   float64 `json:"rotation,omitempty"`
}

type layer struct {
	Name     string `json:"name"`
	Color    int    `json:"color"`
	Linetype string `json:"linetype"`
}

// drawing is the in-memory document the sim's tools act on.
type drawing struct {
	Name     string
	Path     string
	Modified bool
	Layers   []layer
	Current  string
	Entities []entity
	Next     int
}

func newDrawing(name string) drawing {
	return drawing{Name: name, Layers: []layer{{Name: "0", Color: 7, Linetype: "Continuous"}}, Current: "0", Next: 1}
}

func (d drawing) clone() drawing {
	c := d
	c.Layers = slices.Clone(d.Layers)
	c.Entities = make([]entity, len(d.Entities))
	for i, e := range d.Entities {
		e.Points = slices.Clone(e.Points)
		c.Entities[i] = e
	}
	return c
}

func (d *drawing) layer(name string) *layer {
	for i := range d.Layers {
		if strings.EqualFold(d.Layers[i].Name, name) {
			return &d.Layers[i]
		}
	}
	return nil
}

func (d *drawing) entity(handle string) *entity {
	for i := range d.Entities {
		if strings.EqualFold(d.Entities[i].Handle, handle) {
			return &d.Entities[i]
		}
	}
	return nil
}

// toolError is a failure the tool reports as a result with isError: true.
type toolError string

func (e toolError) Error() string { return string(e) }

func errorf(format string, a ...any) error { return toolError(fmt.Sprintf(format, a...)) }

// args gives typed access to arguments already checked against the schema.
type args map[string]any

func (a args) num(k string, def float64) float64 {
	if v, ok := a[k].(float64); ok {
		return v
	}
	return def
}
func (a args) str(k, def string) string {
	if v, ok := a[k].(string); ok {
		return v
	}
	return def
}
func (a args) boolean(k string) bool { v, _ := a[k].(bool); return v }
func (a args) pt(k string) pt {
	m, _ := a[k].(map[string]any)
	x, _ := m["x"].(float64)
	y, _ := m["y"].(float64)
	return pt{x, y}
}
func (a args) pts(k string) []pt {
	list, _ := a[k].([]any)
	out := make([]pt, 0, len(list))
	for _, e := range list {
		out = append(out, args{"p": e}.pt("p"))
	}
	return out
}
func (a args) strs(k string) []string {
	list, _ := a[k].([]any)
	out := make([]string, 0, len(list))
	for _, e := range list {
		s, _ := e.(string)
		out = append(out, s)
	}
	return out
}

// tool is one base tool: its MCP description and what it does. mutates
// tools take an undo snapshot first.
type tool struct {
	Name        string
	Description string
	Schema      schema
	mutates     bool
	run         func(s *Server, a args) (string, error)
	// conn, for fault tools, answers (or not) on the connection itself.
	conn func(s *Server, c net.Conn, id rpc.ID, a args)
	// rawSchema, when set, is listed instead of Schema and not enforced.
	rawSchema any
}

// cadTools returns the 26 CAD tools (faultTools adds the test-only ones).
func cadTools() []tool {
	layerArg := str("Layer to draw on; the current layer when omitted")
	handles := arrayOf("Entity handles, as returned by the draw tools or list_entities", str("Entity handle"), 1)
	return []tool{
		{Name: "get_drawing_info", Description: "Summary of the open drawing: name, file, unsaved changes, layer and entity counts, current layer, extents.",
			Schema: object(nil), run: (*Server).getDrawingInfo},
		{Name: "new_drawing", Description: "Close the current drawing and start an empty one.", mutates: true,
			Schema: object(map[string]schema{"name": str("Name of the new drawing")}, "name"), run: (*Server).newDrawing},
		{Name: "save_drawing", Description: "Save the drawing, to path when given, else to its current file.",
			Schema: object(map[string]schema{"path": str("File path ending in .dwg or .dxf")}), run: (*Server).saveDrawing},
		{Name: "list_layers", Description: "All layers with their color and linetype, and which one is current.",
			Schema: object(nil), run: (*Server).listLayers},
		{Name: "create_layer", Description: "Create a layer.", mutates: true,
			Schema: object(map[string]schema{"name": str("Layer name"), "color": integer("ACI color number", 1, 255),
				"linetype": {"type": "string", "description": "Linetype", "enum": []string{"Continuous", "Dashed", "Hidden", "Center", "Dot"}}}, "name"),
			run: (*Server).createLayer},
		{Name: "set_current_layer", Description: "Make a layer current: new entities go on it.", mutates: true,
			Schema: object(map[string]schema{"name": str("Layer name")}, "name"), run: (*Server).setCurrentLayer},
		{Name: "delete_layer", Description: "Delete an empty layer other than 0 and the current one.", mutates: true,
			Schema: object(map[string]schema{"name": str("Layer name")}, "name"), run: (*Server).deleteLayer},
		{Name: "draw_line", Description: "Draw a line between two points.", mutates: true,
			Schema: object(map[string]schema{"start": point("Start point"), "end": point("End point"), "layer": layerArg}, "start", "end"),
			run:    (*Server).drawLine},
		{Name: "draw_circle", Description: "Draw a circle from its center and radius.", mutates: true,
			Schema: object(map[string]schema{"center": point("Center"), "radius": positive("Radius"), "layer": layerArg}, "center", "radius"),
			run:    (*Server).drawCircle},
		{Name: "draw_arc", Description: "Draw an arc counterclockwise from start_angle to end_angle (degrees).", mutates: true,
			Schema: object(map[string]schema{"center": point("Center"), "radius": positive("Radius"),
				"start_angle": num("Start angle in degrees"), "end_angle": num("End angle in degrees"), "layer": layerArg},
				"center", "radius", "start_angle", "end_angle"),
			run: (*Server).drawArc},
		{Name: "draw_polyline", Description: "Draw a polyline through two or more points, optionally closed.", mutates: true,
			Schema: object(map[string]schema{"points": arrayOf("Vertices in order", point("Vertex"), 2), "closed": boolean("Close the polyline"), "layer": layerArg}, "points"),
			run:    (*Server).drawPolyline},
		{Name: "draw_rectangle", Description: "Draw a closed rectangular polyline from two opposite corners.", mutates: true,
			Schema: object(map[string]schema{"corner1": point("First corner"), "corner2": point("Opposite corner"), "layer": layerArg}, "corner1", "corner2"),
			run:    (*Server).drawRectangle},
		{Name: "add_text", Description: "Place single-line text.", mutates: true,
			Schema: object(map[string]schema{"position": point("Insertion point"), "text": str("The text"),
				"height": positive("Text height (default 2.5)"), "rotation": num("Rotation in degrees"), "layer": layerArg}, "position", "text"),
			run: (*Server).addText},
		{Name: "add_linear_dimension", Description: "Dimension the distance between two points, the dimension line offset from them.", mutates: true,
			Schema: object(map[string]schema{"start": point("First point"), "end": point("Second point"), "offset": num("Offset of the dimension line (default 5)"), "layer": layerArg}, "start", "end"),
			run:    (*Server).addDimension},
		{Name: "list_entities", Description: "List entities, optionally only those on one layer or of one type.",
			Schema: object(map[string]schema{"layer": str("Only this layer"),
				"type":  {"type": "string", "description": "Only this type", "enum": []string{"line", "circle", "arc", "polyline", "text", "dimension"}},
				"limit": integer("At most this many (default 100)", 1, 10000)}),
			run: (*Server).listEntities},
		{Name: "get_entity", Description: "All properties of one entity.",
			Schema: object(map[string]schema{"handle": str("Entity handle")}, "handle"), run: (*Server).getEntity},
		{Name: "move_entities", Description: "Move entities by a displacement.", mutates: true,
			Schema: object(map[string]schema{"handles": handles, "dx": num("X displacement"), "dy": num("Y displacement")}, "handles", "dx", "dy"),
			run:    (*Server).moveEntities},
		{Name: "copy_entities", Description: "Copy entities, displaced by dx, dy; returns the new handles.", mutates: true,
			Schema: object(map[string]schema{"handles": handles, "dx": num("X displacement"), "dy": num("Y displacement")}, "handles", "dx", "dy"),
			run:    (*Server).copyEntities},
		{Name: "rotate_entities", Description: "Rotate entities about a base point by an angle in degrees (counterclockwise).", mutates: true,
			Schema: object(map[string]schema{"handles": handles, "base": point("Base point"), "angle": num("Angle in degrees")}, "handles", "base", "angle"),
			run:    (*Server).rotateEntities},
		{Name: "scale_entities", Description: "Scale entities about a base point.", mutates: true,
			Schema: object(map[string]schema{"handles": handles, "base": point("Base point"), "factor": positive("Scale factor")}, "handles", "base", "factor"),
			run:    (*Server).scaleEntities},
		{Name: "delete_entities", Description: "Delete entities.", mutates: true,
			Schema: object(map[string]schema{"handles": handles}, "handles"), run: (*Server).deleteEntities},
		{Name: "change_layer", Description: "Move entities to another layer.", mutates: true,
			Schema: object(map[string]schema{"handles": handles, "layer": str("Target layer")}, "handles", "layer"),
			run:    (*Server).changeLayer},
		{Name: "measure_distance", Description: "Distance and angle between two points.",
			Schema: object(map[string]schema{"from": point("First point"), "to": point("Second point")}, "from", "to"),
			run:    (*Server).measureDistance},
		{Name: "get_extents", Description: "Bounding box of all entities, or of the given ones.",
			Schema: object(map[string]schema{"handles": arrayOf("Only these entities", str("Entity handle"), 0)}),
			run:    (*Server).getExtents},
		{Name: "undo", Description: "Undo the last changes.",
			Schema: object(map[string]schema{"steps": integer("How many (default 1)", 1, 100)}), run: (*Server).undo},
		{Name: "redo", Description: "Redo changes undone by undo.",
			Schema: object(map[string]schema{"steps": integer("How many (default 1)", 1, 100)}), run: (*Server).redo},
	}
}

func (s *Server) getDrawingInfo(args) (string, error) {
	d := &s.doc
	path := d.Path
	if path == "" {
		path = "(never saved)"
	}
	ext := "empty"
	if lo, hi, ok := extents(d.Entities); ok {
		ext = lo.String() + " - " + hi.String()
	}
	return fmt.Sprintf("Drawing %q, file %s, unsaved changes: %v. %s (current: %s), %s. Extents: %s.",
		d.Name, path, d.Modified, count(len(d.Layers), "layer"), d.Current, count(len(d.Entities), "entity"), ext), nil
}

func (s *Server) newDrawing(a args) (string, error) {
	s.doc = newDrawing(a.str("name", ""))
	return fmt.Sprintf("New drawing %q.", s.doc.Name), nil
}

func (s *Server) saveDrawing(a args) (string, error) {
	path := a.str("path", s.doc.Path)
	if path == "" {
		return "", errorf("the drawing has never been saved: give a path")
	}
	if l := strings.ToLower(path); !strings.HasSuffix(l, ".dwg") && !strings.HasSuffix(l, ".dxf") {
		return "", errorf("path %q must end in .dwg or .dxf", path)
	}
	// The sim keeps everything in memory: saving only records the file name.
	s.doc.Path, s.doc.Modified = path, false
	return fmt.Sprintf("Saved %q to %s.", s.doc.Name, path), nil
}

func (s *Server) listLayers(args) (string, error) {
	var b strings.Builder
	fmt.Fprintf(&b, "%s:", count(len(s.doc.Layers), "layer"))
	for _, l := range s.doc.Layers {
		cur := ""
		if l.Name == s.doc.Current {
			cur = " (current)"
		}
		fmt.Fprintf(&b, "\n- %s: color %d, %s%s", l.Name, l.Color, l.Linetype, cur)
	}
	return b.String(), nil
}

func (s *Server) createLayer(a args) (string, error) {
	name := strings.TrimSpace(a.str("name", ""))
	if name == "" {
		return "", errorf("layer name must not be empty")
	}
	if s.doc.layer(name) != nil {
		return "", errorf("layer %q already exists", name)
	}
	l := layer{Name: name, Color: int(a.num("color", 7)), Linetype: a.str("linetype", "Continuous")}
	s.doc.Layers = append(s.doc.Layers, l)
	return fmt.Sprintf("Layer %s created (color %d, %s).", l.Name, l.Color, l.Linetype), nil
}

func (s *Server) setCurrentLayer(a args) (string, error) {
	l := s.doc.layer(a.str("name", ""))
	if l == nil {
		return "", errorf("no layer named %q", a.str("name", ""))
	}
	s.doc.Current = l.Name
	return fmt.Sprintf("Current layer is now %s.", l.Name), nil
}

func (s *Server) deleteLayer(a args) (string, error) {
	l := s.doc.layer(a.str("name", ""))
	switch {
	case l == nil:
		return "", errorf("no layer named %q", a.str("name", ""))
	case l.Name == "0":
		return "", errorf("layer 0 cannot be deleted")
	case l.Name == s.doc.Current:
		return "", errorf("layer %s is current: make another layer current first", l.Name)
	}
	for _, e := range s.doc.Entities {
		if e.Layer == l.Name {
			return "", errorf("layer %s still holds entities (e.g. %s)", l.Name, e.Handle)
		}
	}
	name := l.Name
	s.doc.Layers = slices.DeleteFunc(s.doc.Layers, func(x layer) bool { return x.Name == name })
	return fmt.Sprintf("Layer %s deleted.", name), nil
}

// add places e on its layer and gives it a handle.
func (s *Server) add(a args, e entity) (string, error) {
	e.Layer = s.doc.Current
	if name, ok := a["layer"].(string); ok {
		l := s.doc.layer(name)
		if l == nil {
			return "", errorf("no layer named %q", name)
		}
		e.Layer = l.Name
	}
	e.Handle = fmt.Sprintf("%X", 0x100+s.doc.Next)
	s.doc.Next++
	s.doc.Entities = append(s.doc.Entities, e)
	return e.Handle, nil
}

func (s *Server) drawLine(a args) (string, error) {
	p, q := a.pt("start"), a.pt("end")
	if p == q {
		return "", errorf("start and end are the same point %s", p)
	}
	h, err := s.add(a, entity{Type: "line", Points: []pt{p, q}})
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("Line %s drawn from %s to %s, length %s.", h, p, q, f(dist(p, q))), nil
}

func (s *Server) drawCircle(a args) (string, error) {
	c, r := a.pt("center"), a.num("radius", 0)
	h, err := s.add(a, entity{Type: "circle", Points: []pt{c}, Radius: r})
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("Circle %s drawn at %s, radius %s.", h, c, f(r)), nil
}

func (s *Server) drawArc(a args) (string, error) {
	c, r := a.pt("center"), a.num("radius", 0)
	sa, ea := a.num("start_angle", 0), a.num("end_angle", 0)
	if math.Mod(sa-ea, 360) == 0 {
		return "", errorf("start_angle and end_angle must differ (use draw_circle for a full circle)")
	}
	h, err := s.add(a, entity{Type: "arc", Points: []pt{c}, Radius: r, StartAngle: sa, EndAngle: ea})
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("Arc %s drawn at %s, radius %s, from %s° to %s°.", h, c, f(r), f(sa), f(ea)), nil
}

func (s *Server) drawPolyline(a args) (string, error) {
	pts := a.pts("points")
	h, err := s.add(a, entity{Type: "polyline", Points: pts, Closed: a.boolean("closed")})
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("Polyline %s drawn through %d points.", h, len(pts)), nil
}

func (s *Server) drawRectangle(a args) (string, error) {
	p, q := a.pt("corner1"), a.pt("corner2")
	if p.X == q.X || p.Y == q.Y {
		return "", errorf("corners %s and %s do not span a rectangle", p, q)
	}
	pts := []pt{p, {q.X, p.Y}, q, {p.X, q.Y}}
	h, err := s.add(a, entity{Type: "polyline", Points: pts, Closed: true})
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("Rectangle %s drawn, %s x %s.", h, f(math.Abs(q.X-p.X)), f(math.Abs(q.Y-p.Y))), nil
}

func (s *Server) addText(a args) (string, error) {
	text := a.str("text", "")
	if strings.TrimSpace(text) == "" {
		return "", errorf("text must not be empty")
	}
	h, err := s.add(a, entity{Type: "text", Points: []pt{a.pt("position")}, Text: text,
		Height: a.num("height", 2.5), Rotation: a.num("rotation", 0)})
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("Text %s placed at %s: %q.", h, a.pt("position"), text), nil
}

func (s *Server) addDimension(a args) (string, error) {
	p, q := a.pt("start"), a.pt("end")
	if p == q {
		return "", errorf("start and end are the same point %s", p)
	}
	d := dist(p, q)
	h, err := s.add(a, entity{Type: "dimension", Points: []pt{p, q}, Height: a.num("offset", 5), Text: f(d)})
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("Dimension %s added: %s.", h, f(d)), nil
}

func (s *Server) listEntities(a args) (string, error) {
	layer, typ, limit := a.str("layer", ""), a.str("type", ""), int(a.num("limit", 100))
	var b strings.Builder
	n := 0
	for _, e := range s.doc.Entities {
		if (layer != "" && !strings.EqualFold(e.Layer, layer)) || (typ != "" && e.Type != typ) {
			continue
		}
		n++
		if n <= limit {
			fmt.Fprintf(&b, "\n- %s %s on %s: %s", e.Handle, e.Type, e.Layer, describe(e))
		}
	}
	head := count(n, "entity")
	if n > limit {
		head += fmt.Sprintf(" (first %d shown)", limit)
	}
	return head + ":" + b.String(), nil
}

func (s *Server) getEntity(a args) (string, error) {
	e := s.doc.entity(a.str("handle", ""))
	if e == nil {
		return "", errorf("no entity with handle %q", a.str("handle", ""))
	}
	out, _ := json.Marshal(e)
	return string(out), nil
}

// each applies fn to every named entity, after checking they all exist.
func (s *Server) each(a args, fn func(e *entity)) (int, error) {
	hs := a.strs("handles")
	for _, h := range hs {
		if s.doc.entity(h) == nil {
			return 0, errorf("no entity with handle %q", h)
		}
	}
	for _, h := range hs {
		fn(s.doc.entity(h))
	}
	return len(hs), nil
}

func (s *Server) moveEntities(a args) (string, error) {
	dx, dy := a.num("dx", 0), a.num("dy", 0)
	n, err := s.each(a, func(e *entity) { transform(e, func(p pt) pt { return pt{p.X + dx, p.Y + dy} }) })
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("Moved %s by (%s, %s).", count(n, "entity"), f(dx), f(dy)), nil
}

func (s *Server) copyEntities(a args) (string, error) {
	dx, dy := a.num("dx", 0), a.num("dy", 0)
	var copies []entity
	if _, err := s.each(a, func(e *entity) {
		c := *e
		c.Points = slices.Clone(e.Points)
		transform(&c, func(p pt) pt { return pt{p.X + dx, p.Y + dy} })
		copies = append(copies, c)
	}); err != nil {
		return "", err
	}
	var hs []string
	for _, c := range copies {
		h, _ := s.add(args{"layer": c.Layer}, c)
		hs = append(hs, h)
	}
	return fmt.Sprintf("Copied %s: %s.", count(len(hs), "entity"), strings.Join(hs, ", ")), nil
}

func (s *Server) rotateEntities(a args) (string, error) {
	base, deg := a.pt("base"), a.num("angle", 0)
	rad := deg * math.Pi / 180
	sin, cos := math.Sincos(rad)
	n, err := s.each(a, func(e *entity) {
		transform(e, func(p pt) pt {
			x, y := p.X-base.X, p.Y-base.Y
			return pt{base.X + x*cos - y*sin, base.Y + x*sin + y*cos}
		})
		switch e.Type {
		case "arc":
			e.StartAngle, e.EndAngle = e.StartAngle+deg, e.EndAngle+deg
		case "text":
			e.Rotation += deg
		}
	})
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("Rotated %s by %s° about %s.", count(n, "entity"), f(deg), base), nil
}

func (s *Server) scaleEntities(a args) (string, error) {
	base, k := a.pt("base"), a.num("factor", 1)
	n, err := s.each(a, func(e *entity) {
		transform(e, func(p pt) pt { return pt{base.X + (p.X-base.X)*k, base.Y + (p.Y-base.Y)*k} })
		e.Radius *= k
		if e.Type == "text" {
			e.Height *= k
		}
		if e.Type == "dimension" {
			e.Text = f(dist(e.Points[0], e.Points[1]))
		}
	})
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("Scaled %s by %s about %s.", count(n, "entity"), f(k), base), nil
}

func (s *Server) deleteEntities(a args) (string, error) {
	gone := map[string]bool{}
	n, err := s.each(a, func(e *entity) { gone[e.Handle] = true })
	if err != nil {
		return "", err
	}
	s.doc.Entities = slices.DeleteFunc(s.doc.Entities, func(e entity) bool { return gone[e.Handle] })
	return fmt.Sprintf("Deleted %s.", count(n, "entity")), nil
}

func (s *Server) changeLayer(a args) (string, error) {
	l := s.doc.layer(a.str("layer", ""))
	if l == nil {
		return "", errorf("no layer named %q", a.str("layer", ""))
	}
	n, err := s.each(a, func(e *entity) { e.Layer = l.Name })
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("Moved %s to layer %s.", count(n, "entity"), l.Name), nil
}

func (s *Server) measureDistance(a args) (string, error) {
	p, q := a.pt("from"), a.pt("to")
	ang := math.Atan2(q.Y-p.Y, q.X-p.X) * 180 / math.Pi
	return fmt.Sprintf("Distance %s, angle %s°, dx %s, dy %s.", f(dist(p, q)), f(ang), f(q.X-p.X), f(q.Y-p.Y)), nil
}

func (s *Server) getExtents(a args) (string, error) {
	ents := s.doc.Entities
	if hs := a.strs("handles"); len(hs) > 0 {
		ents = nil
		for _, h := range hs {
			e := s.doc.entity(h)
			if e == nil {
				return "", errorf("no entity with handle %q", h)
			}
			ents = append(ents, *e)
		}
	}
	lo, hi, ok := extents(ents)
	if !ok {
		return "The drawing is empty: no extents.", nil
	}
	return fmt.Sprintf("Extents %s - %s, width %s, height %s.", lo, hi, f(hi.X-lo.X), f(hi.Y-lo.Y)), nil
}

func (s *Server) undo(a args) (string, error) {
	steps := int(a.num("steps", 1))
	if len(s.undoStack) == 0 {
		return "", errorf("nothing to undo")
	}
	done := 0
	for ; done < steps && len(s.undoStack) > 0; done++ {
		s.redoStack = append(s.redoStack, s.doc.clone())
		s.doc = s.undoStack[len(s.undoStack)-1]
		s.undoStack = s.undoStack[:len(s.undoStack)-1]
	}
	s.doc.Modified = true
	return fmt.Sprintf("Undid %s; %s now.", count(done, "change"), count(len(s.doc.Entities), "entity")), nil
}

func (s *Server) redo(a args) (string, error) {
	steps := int(a.num("steps", 1))
	if len(s.redoStack) == 0 {
		return "", errorf("nothing to redo")
	}
	done := 0
	for ; done < steps && len(s.redoStack) > 0; done++ {
		s.undoStack = append(s.undoStack, s.doc.clone())
		s.doc = s.redoStack[len(s.redoStack)-1]
		s.redoStack = s.redoStack[:len(s.redoStack)-1]
	}
	return fmt.Sprintf("Redid %s; %s now.", count(done, "change"), count(len(s.doc.Entities), "entity")), nil
}

func transform(e *entity, fn func(pt) pt) {
	for i, p := range e.Points {
		e.Points[i] = fn(p)
	}
}

func dist(p, q pt) float64 { return math.Hypot(q.X-p.X, q.Y-p.Y) }

func describe(e entity) string {
	switch e.Type {
	case "line":
		return fmt.Sprintf("%s to %s", e.Points[0], e.Points[1])
	case "circle":
		return fmt.Sprintf("center %s, radius %s", e.Points[0], f(e.Radius))
	case "arc":
		return fmt.Sprintf("center %s, radius %s, %s° to %s°", e.Points[0], f(e.Radius), f(e.StartAngle), f(e.EndAngle))
	case "polyline":
		kind := "open"
		if e.Closed {
			kind = "closed"
		}
		return fmt.Sprintf("%d vertices, %s", len(e.Points), kind)
	case "text":
		return fmt.Sprintf("%q at %s", e.Text, e.Points[0])
	case "dimension":
		return fmt.Sprintf("%s between %s and %s", e.Text, e.Points[0], e.Points[1])
	}
	return ""
}

// extents is the bounding box of ents, circles and arcs by their full circle.
func extents(ents []entity) (lo, hi pt, ok bool) {
	lo = pt{math.Inf(1), math.Inf(1)}
	hi = pt{math.Inf(-1), math.Inf(-1)}
	for _, e := range ents {
		for _, p := range e.Points {
			r := e.Radius
			lo = pt{math.Min(lo.X, p.X-r), math.Min(lo.Y, p.Y-r)}
			hi = pt{math.Max(hi.X, p.X+r), math.Max(hi.Y, p.Y+r)}
			ok = true
		}
	}
	return lo, hi, ok
}

// count is "1 entity", "2 entities", "0 layers".
func count(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	if strings.HasSuffix(noun, "y") {
		return fmt.Sprintf("%d %sies", n, strings.TrimSuffix(noun, "y"))
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
