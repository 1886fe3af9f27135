"""Runs the FreeCAD base without a screen: `freecadcmd headless.py`.

Environment: CAD_MCP_FREECAD_PORT (default 8080; 0 picks a free port),
CAD_MCP_FREECAD_HOST (default 127.0.0.1). Once it serves, it writes a line
"listening on HOST:PORT" to stdout (after FreeCAD's banner). SIGTERM or
Ctrl-C stops it.
"""

import os
import signal
import sys

here = os.environ.get("CAD_MCP_FREECAD_DIR") or os.path.dirname(os.path.abspath(globals().get("__file__", "")))
sys.path.insert(0, here)

from cadbase.base import Base  # noqa: E402


def main():
    port = int(os.environ.get("CAD_MCP_FREECAD_PORT") or "8080")
    host = os.environ.get("CAD_MCP_FREECAD_HOST") or "127.0.0.1"
    base = Base(host, port)
    base.start()
    signal.signal(signal.SIGTERM, lambda *_: base.stop())
    signal.signal(signal.SIGINT, lambda *_: base.stop())
    # FreeCAD's own progress output may precede it without a newline.
    sys.stdout.write("\nlistening on %s\n" % base.address)
    sys.stdout.flush()
    sys.stderr.write("FreeCAD base: %d tools on %s; SIGTERM stops it\n" % (len(base.server.tools), base.address))
    sys.stderr.flush()
    base.serve_forever()


main()
