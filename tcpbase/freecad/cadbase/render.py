"""render_drawing: a PNG of the drawing's 2D geometry, made with matplotlib.

The edges come from FreeCAD's shapes (discretized by FreeCAD), so the
picture shows what FreeCAD holds, not what the tools were told. matplotlib
is used through its object API with the Agg canvas: no pyplot, no global
backend switch that could disturb the desktop program.
"""

import base64
import io

from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from . import drawing

LINESTYLES = {"Continuous": "-", "Dashed": "--", "Hidden": (0, (3, 2)), "Center": "-.", "Dot": ":"}


def render(d, size):
    ents = d.entity_objs()
    box = d.extents()
    layers = {g.CadLayer: g for g in d.layer_objs()}
    if box is None:
        w = h = 1.0
    else:
        w, h = max(box.XLength, 1e-9), max(box.YLength, 1e-9)
    ratio = min(max(h / w, 0.2), 5.0)
    dpi = 100
    fig = Figure(figsize=(size / dpi, size * ratio / dpi), dpi=dpi)
    FigureCanvasAgg(fig)
    ax = fig.add_axes((0.02, 0.02, 0.96, 0.96))
    ax.set_aspect("equal", adjustable="datalim")
    ax.axis("off")
    if box is None:
        ax.text(0.5, 0.5, "empty drawing", ha="center", va="center", color="gray")
        ax.set_xlim(0, 1)
        ax.set_ylim(0, 1)
    for o in ents:
        e = drawing.Entity(o)
        g = layers.get(e.layer)
        color = drawing.aci_rgb(g.CadColor) if g is not None else (0, 0, 0)
        style = LINESTYLES.get(g.CadLinetype if g is not None else "", "-")
        for edge in o.Shape.Edges:
            pts = edge.discretize(Number=200) if edge.Curve.TypeId != "Part::GeomLine" else \
                [edge.Vertexes[0].Point, edge.Vertexes[-1].Point]
            ax.plot([p.x for p in pts], [p.y for p in pts], color=color, linestyle=style, linewidth=1.2)
        if e.type == "text":
            x, y = e.points[0]
            ax.text(x, y, e.text, color=color, rotation=e.rotation, ha="left", va="baseline", fontsize=9,
                    rotation_mode="anchor")
        elif e.type == "dimension":
            edge = o.Shape.Edges[2]
            mid = edge.valueAt((edge.FirstParameter + edge.LastParameter) / 2)
            ax.text(mid.x, mid.y, e.text, color=color, ha="center", va="bottom", fontsize=8)
    if box is not None:
        pad = max(w, h) * 0.05
        ax.set_xlim(box.XMin - pad, box.XMax + pad)
        ax.set_ylim(box.YMin - pad, box.YMax + pad)
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=dpi, facecolor="white")
    png = buf.getvalue()
    px = "%d x %d px" % (round(fig.get_figwidth() * dpi), round(fig.get_figheight() * dpi))
    if box is None:
        text = "Rendered the empty drawing, %s." % px
    else:
        text = "Rendered %s, extents %s - %s, %s." % (
            drawing.count(len(ents), "entity"), drawing.pt((box.XMin, box.YMin)), drawing.pt((box.XMax, box.YMax)), px)
    return {"content": [{"type": "text", "text": text},
                        {"type": "image", "data": base64.b64encode(png).decode("ascii"), "mimeType": "image/png"}],
            "isError": False}
