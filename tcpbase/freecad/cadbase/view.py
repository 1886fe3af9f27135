"""What the desktop user sees of the base's drawing: the 3D view and the
document tree. Only in the desktop program (FreeCAD.GuiUp); freecadcmd has
neither, and the headless base does not list zoom_extents.

A user watching an assistant draw expects to see the drawing, not an empty
corner of the view: the view is fitted when a call puts the first geometry
into an empty drawing, and zoom_extents fits it on request (later calls do
not move a view the user may have zoomed on purpose). A layer's group opens
in the tree when it receives its first entity, so the tree lists what was
drawn.
"""

import FreeCADGui as Gui

ZOOM_TOOL = {
    "name": "zoom_extents",
    "description": "Fit FreeCAD's 3D view to the whole drawing, seen from the top, so the user sees everything drawn "
                   "so far. Changes only the view, not the drawing.",
    "inputSchema": {"type": "object", "properties": {}, "required": [], "additionalProperties": False},
    "annotations": {"readOnlyHint": True, "idempotentHint": True},
}


def _view(doc):
    gdoc = Gui.getDocument(doc.Name)
    return gdoc.activeView() if gdoc is not None else None


def look_from_top(doc):
    """A new drawing is 2D: look at it from the top."""
    v = _view(doc)
    if v is not None and hasattr(v, "viewTop"):
        v.viewTop()


def fit(doc):
    """Fits the drawing's view to its geometry, from the top; False when
    the drawing has no 3D view (the user closed it)."""
    v = _view(doc)
    if v is None or not hasattr(v, "fitAll"):
        return False
    v.viewTop()
    v.fitAll()
    return True


def open_in_tree(doc, *objs):
    """Expands objs (groups) in the document tree."""
    gdoc = Gui.getDocument(doc.Name)
    for o in objs:
        try:
            gdoc.toggleTreeItem(o, 2)  # 2: expand
        except Exception:
            pass  # not in the tree (yet): nothing to open
