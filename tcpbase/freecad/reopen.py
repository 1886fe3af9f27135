# Opens a saved drawing in a fresh FreeCAD and prints what it holds, for
# geometry_test.go: `freecadcmd reopen.py FILE.FCStd` prints
# reopened: {"entities": N, "layers": N, "box": [xmin, ymin, xmax, ymax]}
import json
import sys

import FreeCAD as App

path = [a for a in sys.argv if a.lower().endswith(".fcstd")][-1]
doc = App.openDocument(path)
ents = [o for o in doc.Objects if hasattr(o, "CadHandle")]
layers = [o for o in doc.Objects if hasattr(o, "CadLayer")]
box = None
for o in ents:
    bb = o.Shape.BoundBox
    if bb.isValid():
        box = App.BoundBox(bb) if box is None else (box.add(bb) or box)
r = [round(v, 6) for v in (box.XMin, box.YMin, box.XMax, box.YMax)] if box else [0, 0, 0, 0]
print("reopened: " + json.dumps({"entities": len(ents), "layers": len(layers), "box": r}))
