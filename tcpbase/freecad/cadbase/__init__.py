"""mcp-bridge's FreeCAD base: the CAD base protocol served by FreeCAD.

protocol.py is the wire (no FreeCAD), schema.py the argument checks,
drawing.py the tools on a FreeCAD document, render.py render_drawing,
base.py the threads: connections on their own threads, every tool call run
on the thread that owns the document (the GUI thread in the desktop
program, the main thread under freecadcmd).
"""
