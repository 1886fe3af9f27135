"""The 26 drawing tools of the simulated base, done with FreeCAD objects.

The drawing is a FreeCAD document. Each layer is a group
(App::DocumentObjectGroup) inside the group "Layers"; each entity is a
Part::Feature in its layer's group, whose Shape is real Part geometry
(lines, circles, arcs, polygons) and whose Cad* properties keep what the
tools were told (points, radius, text...). Every tool that changes the
drawing runs inside one FreeCAD transaction, so undo and redo are FreeCAD's
own, and save_drawing writes a real .FCStd.

Everything here must run on the thread that owns the document (FreeCAD's
main thread); base.py sees to that.
"""

import json
import math
import os

import FreeCAD as App
import Part

from . import schema

V = App.Vector


class ToolError(Exception):
    """A failure the tool reports as a result with isError: true."""


def f(v):
    """A coordinate without float noise, as the simulated base writes it."""
    v = round(v * 1e6) / 1e6
    if v == 0:
        v = 0.0  # no "-0"
    if v == int(v) and abs(v) < 1e21:
        return str(int(v))
    return repr(v)


def pt(p):
    return "(%s, %s)" % (f(p[0]), f(p[1]))


def quote(s):
    return json.dumps(s, ensure_ascii=False)


def count(n, noun):
    if n == 1:
        return "1 " + noun
    if noun.endswith("y"):
        return "%d %sies" % (n, noun[:-1])
    return "%d %ss" % (n, noun)


def dist(p, q):
    return math.hypot(q[0] - p[0], q[1] - p[1])


# Entity fields, kept as properties of the entity's Part::Feature.
FIELDS = [
    ("CadHandle", "App::PropertyString"),
    ("CadType", "App::PropertyString"),
    ("CadPoints", "App::PropertyVectorList"),
    ("CadRadius", "App::PropertyFloat"),
    ("CadStartAngle", "App::PropertyFloat"),
    ("CadEndAngle", "App::PropertyFloat"),
    ("CadClosed", "App::PropertyBool"),
    ("CadText", "App::PropertyString"),
    ("CadHeight", "App::PropertyFloat"),
    ("CadRotation", "App::PropertyFloat"),
]

MUTATES = {
    "new_drawing", "create_layer", "set_current_layer", "delete_layer", "draw_line", "draw_circle",
    "draw_arc", "draw_polyline", "draw_rectangle", "add_text", "add_linear_dimension",
    "move_entities", "copy_entities", "rotate_entities", "scale_entities", "delete_entities",
    "change_layer",
}


class Entity:
    """A plain copy of an entity's fields, for reading and transforming."""

    def __init__(self, obj=None, **kw):
        self.handle, self.type, self.layer = "", "", ""
        self.points, self.radius, self.start_angle, self.end_angle = [], 0.0, 0.0, 0.0
        self.closed, self.text, self.height, self.rotation = False, "", 0.0, 0.0
        if obj is not None:
            self.handle, self.type = obj.CadHandle, obj.CadType
            self.points = [(p.x, p.y) for p in obj.CadPoints]
            self.radius, self.start_angle, self.end_angle = obj.CadRadius, obj.CadStartAngle, obj.CadEndAngle
            self.closed, self.text = obj.CadClosed, obj.CadText
            self.height, self.rotation = obj.CadHeight, obj.CadRotation
            group = obj.getParentGroup()
            self.layer = group.CadLayer if group is not None and hasattr(group, "CadLayer") else ""
        self.__dict__.update(kw)

    def write(self, obj):
        obj.CadHandle, obj.CadType = self.handle, self.type
        obj.CadPoints = [V(x, y, 0) for x, y in self.points]
        obj.CadRadius, obj.CadStartAngle, obj.CadEndAngle = self.radius, self.start_angle, self.end_angle
        obj.CadClosed, obj.CadText = self.closed, self.text
        obj.CadHeight, obj.CadRotation = self.height, self.rotation
        obj.Shape = self.shape()

    def shape(self):
        """The entity's FreeCAD geometry."""
        p = [V(x, y, 0) for x, y in self.points]
        if self.type == "line":
            return Part.makeLine(p[0], p[1])
        if self.type == "circle":
            return Part.makeCircle(self.radius, p[0])
        if self.type == "arc":
            sa, ea = self.start_angle % 360, self.end_angle % 360
            if ea <= sa:
                ea += 360
            return Part.makeCircle(self.radius, p[0], V(0, 0, 1), sa, ea)
        if self.type == "polyline":
            return Part.makePolygon(p + [p[0]] if self.closed else p)
        if self.type == "dimension":
            a, b = p
            d = b - a
            n = V(-d.y, d.x, 0).normalize() * self.height
            return Part.Compound([Part.makeLine(a, a + n), Part.makeLine(b, b + n), Part.makeLine(a + n, b + n)])
        return Part.Compound([Part.Vertex(p[0])])  # text: its insertion point

    def describe(self):
        p = self.points
        if self.type == "line":
            return "%s to %s" % (pt(p[0]), pt(p[1]))
        if self.type == "circle":
            return "center %s, radius %s" % (pt(p[0]), f(self.radius))
        if self.type == "arc":
            return "center %s, radius %s, %s° to %s°" % (pt(p[0]), f(self.radius), f(self.start_angle), f(self.end_angle))
        if self.type == "polyline":
            return "%d vertices, %s" % (len(p), "closed" if self.closed else "open")
        if self.type == "text":
            return "%s at %s" % (quote(self.text), pt(p[0]))
        if self.type == "dimension":
            return "%s between %s and %s" % (self.text, pt(p[0]), pt(p[1]))
        return ""

    def as_json(self):
        """The fields as the simulated base's get_entity lists them."""
        out = {"handle": self.handle, "type": self.type, "layer": self.layer}
        if self.points:
            out["points"] = [{"X": _num(x), "Y": _num(y)} for x, y in self.points]
        for key, v in (("radius", self.radius), ("start_angle", self.start_angle), ("end_angle", self.end_angle)):
            if v:
                out[key] = _num(v)
        if self.closed:
            out["closed"] = True
        if self.text:
            out["text"] = self.text
        for key, v in (("height", self.height), ("rotation", self.rotation)):
            if v:
                out[key] = _num(v)
        return out

    def transform(self, fn):
        self.points = [fn(p) for p in self.points]


def _num(v):
    return int(v) if v == int(v) and abs(v) < 1e15 else v


class Drawing:
    """The document the tools act on, and the tools themselves.

    The base works in a document of its own; new_drawing closes that one
    and starts another, and never touches a document a desktop user opened.
    """

    def __init__(self):
        self.doc, self.doc_name = None, ""
        self.modified = False
        self.desktop = App.GuiUp  # a 3D view and a tree to keep in step (view.py)
        self.tools = TOOLS
        if self.desktop:
            from . import view
            self.tools = TOOLS + [view.ZOOM_TOOL]
        self.schemas = {t["name"]: t["inputSchema"] for t in self.tools}
        self.new("Drawing1")

    # ---- the document ---------------------------------------------------

    def new(self, name):
        old = self.doc_name
        doc = App.newDocument("Drawing")
        doc.Label = name
        doc.UndoMode = 1
        layers = doc.addObject("App::DocumentObjectGroup", "Layers")
        layers.addProperty("App::PropertyString", "CadCurrent", "CAD", "The current layer")
        layers.addProperty("App::PropertyInteger", "CadNext", "CAD", "The next entity handle")
        layers.CadCurrent, layers.CadNext = "0", 1
        self.doc, self.doc_name = doc, doc.Name
        self._add_layer("0", 7, "Continuous")
        doc.recompute()
        doc.clearUndos()  # the empty drawing is where undo stops
        self.modified = False
        if old is not None and old in App.listDocuments():
            App.closeDocument(old)
        App.setActiveDocument(doc.Name)
        if self.desktop:
            import FreeCADGui
            from . import view
            FreeCADGui.ActiveDocument = FreeCADGui.getDocument(doc.Name)
            view.look_from_top(doc)

    def ensure_doc(self):
        """Starts a new drawing if a desktop user closed ours."""
        if self.doc_name in App.listDocuments():
            self.doc = App.getDocument(self.doc_name)
            return
        self.doc = None
        self.new("Drawing1")

    def layers_group(self):
        return self.doc.getObject("Layers")

    def layer_objs(self):
        return [o for o in self.layers_group().Group if hasattr(o, "CadLayer")]

    def layer(self, name):
        for o in self.layer_objs():
            if o.CadLayer.lower() == name.lower():
                return o
        return None

    def entity_objs(self):
        objs = [o for o in self.doc.Objects if hasattr(o, "CadHandle")]
        return sorted(objs, key=lambda o: int(o.CadHandle, 16))

    def entity_obj(self, handle):
        for o in self.doc.Objects:
            if hasattr(o, "CadHandle") and o.CadHandle.lower() == handle.lower():
                return o
        return None

    def entities(self):
        return [Entity(o) for o in self.entity_objs()]

    def _add_layer(self, name, color, linetype):
        g = self.doc.addObject("App::DocumentObjectGroup", "Layer")
        g.Label = name
        g.addProperty("App::PropertyString", "CadLayer", "CAD", "Layer name")
        g.addProperty("App::PropertyInteger", "CadColor", "CAD", "ACI color number")
        g.addProperty("App::PropertyString", "CadLinetype", "CAD", "Linetype")
        g.CadLayer, g.CadColor, g.CadLinetype = name, color, linetype
        self.layers_group().addObject(g)
        return g

    def _add_entity(self, a, e):
        """Places e on its layer (the one named in a["layer"], else the
        current one), gives it a handle, and returns the handle."""
        group = self.layer(self.layers_group().CadCurrent)
        if "layer" in a:
            group = self.layer(a["layer"])
            if group is None:
                raise ToolError("no layer named %s" % quote(a["layer"]))
        lg = self.layers_group()
        e.handle = "%X" % (0x100 + lg.CadNext)
        lg.CadNext = lg.CadNext + 1
        obj = self.doc.addObject("Part::Feature", "%s%s" % (e.type.capitalize(), e.handle))
        for prop, kind in FIELDS:
            obj.addProperty(kind, prop, "CAD")
        e.write(obj)
        group.addObject(obj)
        self._show(obj, group)
        return e.handle

    def _show(self, obj, group):
        """In the desktop program: draws obj in its layer's color, and opens
        the layer in the tree when obj is its first entity."""
        if not self.desktop or getattr(obj, "ViewObject", None) is None:
            return
        rgb = tuple(float(c) for c in aci_rgb(group.CadColor))  # FreeCAD refuses a color of ints
        obj.ViewObject.LineColor = rgb
        obj.ViewObject.PointColor = rgb
        if len([o for o in group.Group if hasattr(o, "CadHandle")]) == 1:
            from . import view
            view.open_in_tree(self.doc, self.layers_group(), group)

    def extents(self, ents=None):
        objs = self.entity_objs() if ents is None else ents
        box = None
        for o in objs:
            bb = o.Shape.BoundBox
            if not bb.isValid():
                continue
            if box is None:
                box = App.BoundBox(bb)
            else:
                box.add(bb)
        return box

    # ---- dispatch -------------------------------------------------------

    def call(self, tool, a):
        """Runs one tool call and returns its tools/call result."""
        self.ensure_doc()
        sch = self.schemas.get(tool)
        if sch is not None:
            msg = schema.check(sch, a)
            if msg:
                return _result("Invalid arguments for %s: %s" % (tool, msg), True)
        fn = getattr(self, "t_" + tool)
        was_empty = self.desktop and tool in MUTATES and self.extents() is None
        try:
            if tool in MUTATES and tool != "new_drawing":
                out = self._transaction(tool, fn, a)
            else:
                out = fn(a)
        except ToolError as e:
            return _result(str(e), True)
        if was_empty and self.extents() is not None:
            from . import view
            view.fit(self.doc)  # the first geometry: show it (view.py says why only then)
        if isinstance(out, dict):
            return out
        return _result(out, False)

    def _transaction(self, tool, fn, a):
        doc = self.doc
        doc.openTransaction(tool)
        try:
            out = fn(a)
            doc.recompute()
        except BaseException:
            doc.abortTransaction()
            raise
        doc.commitTransaction()
        self.modified = True
        return out

    # ---- the tools ------------------------------------------------------

    def t_get_drawing_info(self, a):
        path = self.doc.FileName or "(never saved)"
        box = self.extents()
        ext = "empty" if box is None else "%s - %s" % (pt((box.XMin, box.YMin)), pt((box.XMax, box.YMax)))
        lg = self.layers_group()
        return "Drawing %s, file %s, unsaved changes: %s. %s (current: %s), %s. Extents: %s." % (
            quote(self.doc.Label), path, "true" if self.modified else "false", count(len(self.layer_objs()), "layer"),
            lg.CadCurrent, count(len(self.entity_objs()), "entity"), ext)

    def t_new_drawing(self, a):
        self.new(a["name"])
        return "New drawing %s." % quote(self.doc.Label)

    def t_save_drawing(self, a):
        path = a.get("path", self.doc.FileName)
        if not path:
            raise ToolError("the drawing has never been saved: give a path")
        root, ext = os.path.splitext(path)
        note = ""
        if ext.lower() in (".dwg", ".dxf"):
            path, note = root + ".FCStd", " (FreeCAD writes its own .FCStd documents, not %s)" % ext
        elif ext.lower() != ".fcstd":
            raise ToolError("path %s must end in .FCStd (or .dwg/.dxf, saved as .FCStd)" % quote(path))
        path = os.path.abspath(path)
        if not os.path.isdir(os.path.dirname(path)):
            raise ToolError("cannot save to %s: no such directory" % path)
        try:
            self.doc.saveAs(path)
        except Exception as e:
            raise ToolError("cannot save to %s: %s" % (path, e))
        self.modified = False
        return "Saved %s to %s%s." % (quote(self.doc.Label), path, note)

    def t_list_layers(self, a):
        cur = self.layers_group().CadCurrent
        lines = ["%s:" % count(len(self.layer_objs()), "layer")]
        for g in self.layer_objs():
            lines.append("- %s: color %d, %s%s" % (g.CadLayer, g.CadColor, g.CadLinetype,
                                                 " (current)" if g.CadLayer == cur else ""))
        return "\n".join(lines)

    def t_create_layer(self, a):
        name = a["name"].strip()
        if not name:
            raise ToolError("layer name must not be empty")
        if self.layer(name) is not None:
            raise ToolError("layer %s already exists" % quote(name))
        g = self._add_layer(name, int(a.get("color", 7)), a.get("linetype", "Continuous"))
        return "Layer %s created (color %d, %s)." % (g.CadLayer, g.CadColor, g.CadLinetype)

    def t_set_current_layer(self, a):
        g = self.layer(a["name"])
        if g is None:
            raise ToolError("no layer named %s" % quote(a["name"]))
        self.layers_group().CadCurrent = g.CadLayer
        return "Current layer is now %s." % g.CadLayer

    def t_delete_layer(self, a):
        g = self.layer(a["name"])
        if g is None:
            raise ToolError("no layer named %s" % quote(a["name"]))
        if g.CadLayer == "0":
            raise ToolError("layer 0 cannot be deleted")
        if g.CadLayer == self.layers_group().CadCurrent:
            raise ToolError("layer %s is current: make another layer current first" % g.CadLayer)
        for e in self.entities():
            if e.layer == g.CadLayer:
                raise ToolError("layer %s still holds entities (e.g. %s)" % (g.CadLayer, e.handle))
        name = g.CadLayer
        self.doc.removeObject(g.Name)
        return "Layer %s deleted." % name

    def t_draw_line(self, a):
        p, q = _pt(a["start"]), _pt(a["end"])
        if p == q:
            raise ToolError("start and end are the same point %s" % pt(p))
        h = self._add_entity(a, Entity(type="line", points=[p, q]))
        return "Line %s drawn from %s to %s, length %s." % (h, pt(p), pt(q), f(self._length(h)))

    def _length(self, handle):
        return self.entity_obj(handle).Shape.Length  # FreeCAD's measure, not ours

    def t_draw_circle(self, a):
        c, r = _pt(a["center"]), float(a["radius"])
        h = self._add_entity(a, Entity(type="circle", points=[c], radius=r))
        return "Circle %s drawn at %s, radius %s." % (h, pt(c), f(r))

    def t_draw_arc(self, a):
        c, r = _pt(a["center"]), float(a["radius"])
        sa, ea = float(a["start_angle"]), float(a["end_angle"])
        if math.fmod(sa - ea, 360) == 0:
            raise ToolError("start_angle and end_angle must differ (use draw_circle for a full circle)")
        h = self._add_entity(a, Entity(type="arc", points=[c], radius=r, start_angle=sa, end_angle=ea))
        return "Arc %s drawn at %s, radius %s, from %s° to %s°." % (h, pt(c), f(r), f(sa), f(ea))

    def t_draw_polyline(self, a):
        pts = [_pt(p) for p in a["points"]]
        for i in range(1, len(pts)):
            if pts[i] == pts[i - 1]:
                raise ToolError("points %d and %d are the same point %s" % (i - 1, i, pt(pts[i])))
        h = self._add_entity(a, Entity(type="polyline", points=pts, closed=bool(a.get("closed", False))))
        return "Polyline %s drawn through %d points." % (h, len(pts))

    def t_draw_rectangle(self, a):
        p, q = _pt(a["corner1"]), _pt(a["corner2"])
        if p[0] == q[0] or p[1] == q[1]:
            raise ToolError("corners %s and %s do not span a rectangle" % (pt(p), pt(q)))
        pts = [p, (q[0], p[1]), q, (p[0], q[1])]
        h = self._add_entity(a, Entity(type="polyline", points=pts, closed=True))
        bb = self.entity_obj(h).Shape.BoundBox
        return "Rectangle %s drawn, %s x %s." % (h, f(bb.XLength), f(bb.YLength))

    def t_add_text(self, a):
        text = a["text"]
        if not text.strip():
            raise ToolError("text must not be empty")
        p = _pt(a["position"])
        h = self._add_entity(a, Entity(type="text", points=[p], text=text,
                                       height=float(a.get("height", 2.5)), rotation=float(a.get("rotation", 0))))
        return "Text %s placed at %s: %s." % (h, pt(p), quote(text))

    def t_add_linear_dimension(self, a):
        p, q = _pt(a["start"]), _pt(a["end"])
        if p == q:
            raise ToolError("start and end are the same point %s" % pt(p))
        d = f(dist(p, q))
        h = self._add_entity(a, Entity(type="dimension", points=[p, q], height=float(a.get("offset", 5)), text=d))
        return "Dimension %s added: %s." % (h, d)

    def t_list_entities(self, a):
        layer, typ, limit = a.get("layer", ""), a.get("type", ""), int(a.get("limit", 100))
        lines, n = [], 0
        for e in self.entities():
            if (layer and e.layer.lower() != layer.lower()) or (typ and e.type != typ):
                continue
            n += 1
            if n <= limit:
                lines.append("\n- %s %s on %s: %s" % (e.handle, e.type, e.layer, e.describe()))
        head = count(n, "entity")
        if n > limit:
            head += " (first %d shown)" % limit
        return head + ":" + "".join(lines)

    def t_get_entity(self, a):
        o = self.entity_obj(a["handle"])
        if o is None:
            raise ToolError("no entity with handle %s" % quote(a["handle"]))
        return json.dumps(Entity(o).as_json(), ensure_ascii=False, separators=(",", ":"))

    def _entity_objs(self, handles):
        """The objects of the entities handles name; a ToolError names the
        first handle with no entity."""
        objs = []
        for h in handles:
            o = self.entity_obj(h)
            if o is None:
                raise ToolError("no entity with handle %s" % quote(h))
            objs.append(o)
        return objs

    def _each(self, a, fn):
        """Applies fn to a copy of every named entity, after checking they
        all exist, and writes the copies back (rebuilding their shapes)."""
        objs = self._entity_objs(a["handles"])
        for o in objs:
            e = Entity(o)
            if fn(e) is not False:
                e.write(o)
        return len(objs)

    def t_move_entities(self, a):
        dx, dy = float(a["dx"]), float(a["dy"])
        n = self._each(a, lambda e: e.transform(lambda p: (p[0] + dx, p[1] + dy)))
        return "Moved %s by (%s, %s)." % (count(n, "entity"), f(dx), f(dy))

    def t_copy_entities(self, a):
        dx, dy = float(a["dx"]), float(a["dy"])
        copies = []

        def copy(e):
            e.transform(lambda p: (p[0] + dx, p[1] + dy))
            copies.append(e)
            return False  # the original stays as it is

        self._each(a, copy)
        hs = [self._add_entity({"layer": e.layer}, e) for e in copies]
        return "Copied %s: %s." % (count(len(hs), "entity"), ", ".join(hs))

    def t_rotate_entities(self, a):
        (bx, by), deg = _pt(a["base"]), float(a["angle"])
        s, c = math.sin(math.radians(deg)), math.cos(math.radians(deg))

        def rotate(e):
            e.transform(lambda p: (bx + (p[0] - bx) * c - (p[1] - by) * s, by + (p[0] - bx) * s + (p[1] - by) * c))
            if e.type == "arc":
                e.start_angle, e.end_angle = e.start_angle + deg, e.end_angle + deg
            elif e.type == "text":
                e.rotation += deg

        n = self._each(a, rotate)
        return "Rotated %s by %s° about %s." % (count(n, "entity"), f(deg), pt((bx, by)))

    def t_scale_entities(self, a):
        (bx, by), k = _pt(a["base"]), float(a["factor"])

        def scale(e):
            e.transform(lambda p: (bx + (p[0] - bx) * k, by + (p[1] - by) * k))
            e.radius *= k
            if e.type == "text":
                e.height *= k
            if e.type == "dimension":
                e.text = f(dist(e.points[0], e.points[1]))

        n = self._each(a, scale)
        return "Scaled %s by %s about %s." % (count(n, "entity"), f(k), pt((bx, by)))

    def t_delete_entities(self, a):
        names = []
        self._each(a, lambda e: names.append(self.entity_obj(e.handle).Name) or False)
        for name in dict.fromkeys(names):
            self.doc.removeObject(name)
        return "Deleted %s." % count(len(names), "entity")

    def t_change_layer(self, a):
        g = self.layer(a["layer"])
        if g is None:
            raise ToolError("no layer named %s" % quote(a["layer"]))
        objs = []
        self._each(a, lambda e: objs.append(self.entity_obj(e.handle)) or False)
        for o in objs:
            old = o.getParentGroup()
            if old is not None and old is not g:
                old.removeObject(o)
            if o.getParentGroup() is None:
                g.addObject(o)
            self._show(o, g)
        return "Moved %s to layer %s." % (count(len(objs), "entity"), g.CadLayer)

    def t_measure_distance(self, a):
        p, q = _pt(a["from"]), _pt(a["to"])
        ang = math.degrees(math.atan2(q[1] - p[1], q[0] - p[0]))
        d = V(p[0], p[1], 0).distanceToPoint(V(q[0], q[1], 0))
        return "Distance %s, angle %s°, dx %s, dy %s." % (f(d), f(ang), f(q[0] - p[0]), f(q[1] - p[1]))

    def t_get_extents(self, a):
        objs = None
        if a.get("handles"):
            objs = self._entity_objs(a["handles"])
        box = self.extents(objs)
        if box is None:
            return "The drawing is empty: no extents."
        return "Extents %s - %s, width %s, height %s." % (
            pt((box.XMin, box.YMin)), pt((box.XMax, box.YMax)), f(box.XLength), f(box.YLength))

    def t_undo(self, a):
        return self._history(a, "undo")

    def t_redo(self, a):
        return self._history(a, "redo")

    def _history(self, a, which):
        steps = int(a.get("steps", 1))
        doc = self.doc
        left = (lambda: doc.UndoCount) if which == "undo" else (lambda: doc.RedoCount)
        if left() == 0:
            raise ToolError("nothing to %s" % which)
        done = 0
        while done < steps and left() > 0:
            doc.undo() if which == "undo" else doc.redo()
            done += 1
        doc.recompute()
        self.modified = True
        verb = "Undid" if which == "undo" else "Redid"
        return "%s %s; %s now." % (verb, count(done, "change"), count(len(self.entity_objs()), "entity"))

    def t_zoom_extents(self, a):
        """Listed by the desktop base only (gui.py)."""
        from . import view
        box = self.extents()
        if box is None:
            return "The drawing is empty: nothing to zoom to."
        if not view.fit(self.doc):
            raise ToolError("the drawing %s has no 3D view open" % quote(self.doc.Label))
        return "The view shows the whole drawing: %s - %s." % (pt((box.XMin, box.YMin)), pt((box.XMax, box.YMax)))

    def t_render_drawing(self, a):
        from . import render
        return render.render(self, int(a.get("size", 800)))


def _pt(m):
    return (float(m["x"]), float(m["y"]))


def _result(text, is_error):
    return {"content": [{"type": "text", "text": text}], "isError": is_error}


ACI = {1: (1, 0, 0), 2: (1, 1, 0), 3: (0, 1, 0), 4: (0, 1, 1), 5: (0, 0, 1), 6: (1, 0, 1), 7: (0, 0, 0),
       8: (0.5, 0.5, 0.5), 9: (0.75, 0.75, 0.75)}


def aci_rgb(n):
    """An AutoCAD color number as RGB (the first nine; others gray)."""
    return ACI.get(n, (0.4, 0.4, 0.4))


RENDER_TOOL = {
    "name": "render_drawing",
    "description": "A PNG picture of the drawing's 2D geometry, each layer in its color, to look at what was drawn.",
    "inputSchema": {
        "type": "object",
        "properties": {"size": {"type": "integer", "description": "Image width in pixels (default 800)",
                                "minimum": 100, "maximum": 4000}},
        "required": [],
        "additionalProperties": False,
    },
}


def load_tools():
    """The tools/list "tools": the simulated base's 26 (tools.json, checked
    against simbase by the Go tests) and render_drawing."""
    with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "tools.json"), encoding="utf-8") as fh:
        tools = json.load(fh)
    return tools + [RENDER_TOOL]


TOOLS = load_tools()
