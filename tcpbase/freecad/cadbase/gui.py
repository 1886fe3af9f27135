"""The FreeCAD base inside the desktop program, started and stopped by the
macro MCPBridgeBase.FCMacro.

Tool calls run on the GUI thread: a Qt timer drains the base's queue every
20 ms, so the document is only ever touched where FreeCAD expects it. The
port is the integer preference Port under
BaseApp/Preferences/Mod/MCPBridge (Tools > Edit parameters), 8080 when unset.

Closing FreeCAD's window holds the calls that arrive meanwhile: while
FreeCAD asks whether to save, the document must stay what the user sees.
If the window does close, the held calls are answered "not run" (the
bridge passes on -32603) before FreeCAD exits; if the user cancels, they
run.
"""

import FreeCAD as App
from PySide import QtCore

from .base import Base

PREFS = "User parameter:BaseApp/Preferences/Mod/MCPBridge"

_running = None  # (base, timer, closing) while the base serves

CLOSED = "FreeCAD was closed before the call ran; the drawing was not changed"


def port():
    return App.ParamGet(PREFS).GetInt("Port", 8080) or 8080


def start(listen_port=None):
    """Starts the base on listen_port (default: the preference); returns it."""
    global _running
    if _running is not None:
        return _running[0]
    base = Base("127.0.0.1", port() if listen_port is None else listen_port)
    closing = _CloseWatch() if App.GuiUp else None
    timer = QtCore.QTimer()

    def drain():
        if closing is None or not closing.holding():
            base.run_pending()

    timer.timeout.connect(drain)
    timer.start(20)
    base.start()
    _running = (base, timer, closing)
    App.Console.PrintMessage("MCP base: listening on %s (%d tools); run the macro again to stop it\n"
                             % (base.address, len(base.server.tools)))
    return base


def stop(reason=None):
    global _running
    if _running is None:
        return
    base, timer, closing = _running
    _running = None
    timer.stop()
    if closing is not None:
        closing.remove()
    base.stop(reason)
    App.Console.PrintMessage("MCP base: stopped (was on %s)\n" % base.address)


def toggle():
    """Starts the base, or stops it when it is running."""
    if _running is None:
        start()
    else:
        stop()


class _CloseWatch(QtCore.QObject):
    """Watches FreeCAD's main window for its close: from the Close event
    until the window either stays open (the user cancelled) or FreeCAD
    quits, holding() is True. On quit the base stops with CLOSED."""

    def __init__(self):
        import FreeCADGui
        from PySide import QtGui
        win = FreeCADGui.getMainWindow()
        super().__init__(win)
        self.win, self.app = win, QtGui.QApplication.instance()
        self.closing = False
        self.win.installEventFilter(self)
        self.app.aboutToQuit.connect(self.quitting)

    def eventFilter(self, obj, event):
        if obj is self.win and event.type() == QtCore.QEvent.Close:
            self.closing = True  # FreeCAD's closeEvent runs next: it may ask to save
        return False

    def holding(self):
        """On the GUI thread (the timer): True while calls must wait."""
        if self.closing and self.win.isVisible() and self.app.activeModalWidget() is None:
            self.closing = False  # closeEvent returned and the window stayed: cancelled
        return self.closing

    def quitting(self):
        stop(CLOSED)

    def remove(self):
        self.win.removeEventFilter(self)
        try:
            self.app.aboutToQuit.disconnect(self.quitting)
        except (RuntimeError, TypeError):
            pass
