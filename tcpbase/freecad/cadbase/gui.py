"""The FreeCAD base inside the desktop program, started and stopped by the
macro MCPBridgeBase.FCMacro.

Tool calls run on the GUI thread: a Qt timer drains the base's queue every
20 ms, so the document is only ever touched where FreeCAD expects it. The
port is the integer preference Port under
BaseApp/Preferences/Mod/MCPBridge (Tools > Edit parameters), 8080 when unset.
"""

import FreeCAD as App
from PySide import QtCore

from .base import Base

PREFS = "User parameter:BaseApp/Preferences/Mod/MCPBridge"

_running = None  # (base, timer) while the base serves


def port():
    return App.ParamGet(PREFS).GetInt("Port", 8080) or 8080


def start(listen_port=None):
    """Starts the base on listen_port (default: the preference); returns it."""
    global _running
    if _running is not None:
        return _running[0]
    base = Base("127.0.0.1", port() if listen_port is None else listen_port)
    timer = QtCore.QTimer()
    timer.timeout.connect(base.run_pending)
    timer.start(20)
    base.start()
    _running = (base, timer)
    App.Console.PrintMessage("MCP base: listening on %s (%d tools); run the macro again to stop it\n"
                             % (base.address, len(base.server.tools)))
    return base


def stop():
    global _running
    if _running is None:
        return
    base, timer = _running
    _running = None
    timer.stop()
    base.stop()
    App.Console.PrintMessage("MCP base: stopped (was on %s)\n" % base.address)


def toggle():
    """Starts the base, or stops it when it is running."""
    if _running is None:
        start()
    else:
        stop()
