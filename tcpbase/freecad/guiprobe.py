# A test helper run inside desktop FreeCAD after the macro (desktop.sh
# starts `freecad MCPBridgeBase.FCMacro guiprobe.py`): it reports what the
# window shows, for desktop.py to check against the screenshot. It changes
# nothing. When the file $CAD_MCP_PROBE/req appears, it writes
# $CAD_MCP_PROBE/probe.json:
#   window: the main window's X id; view: the 3D view's [xid, x, y, w, h];
#   tree: the texts of the tree items a user can see (every parent open);
#   modal: the open modal dialog's title and buttons ([text, xid, x, y] of
#   their centres); held: tool calls the base holds. Positions are within
#   the top-level X window xid: Qt's idea of where a window is on a screen
#   without a window manager is off by its guess of a frame.
import json
import os
import sys

import FreeCADGui as Gui
from PySide import QtCore, QtGui

_dir = os.environ["CAD_MCP_PROBE"]


def _visible_items(tree):
    out = []

    def walk(item):
        out.append(item.text(0))
        if item.isExpanded():
            for i in range(item.childCount()):
                walk(item.child(i))

    for i in range(tree.topLevelItemCount()):
        walk(tree.topLevelItem(i))
    return out


def _rect(w):
    top = w.window()
    p = w.mapTo(top, QtCore.QPoint(0, 0))
    return [int(top.winId()), p.x(), p.y(), w.width(), w.height()]


def report():
    win = Gui.getMainWindow()
    out = {"window": int(win.winId()), "view": None, "tree": [], "modal": None, "held": None}
    sub = win.findChild(QtGui.QMdiArea).activeSubWindow()
    if sub is not None and sub.widget() is not None:
        out["view"] = _rect(sub.widget())
    for tree in win.findChildren(QtGui.QTreeWidget):
        if tree.isVisible() and tree.topLevelItemCount():
            out["tree"] += _visible_items(tree)
    modal = QtGui.QApplication.activeModalWidget()
    if modal is not None:
        buttons = []
        for b in modal.findChildren(QtGui.QAbstractButton):
            if b.isVisible():
                xid, x, y, w, h = _rect(b)
                buttons.append([b.text().replace("&", ""), xid, x + w // 2, y + h // 2])
        out["modal"] = {"title": modal.windowTitle(), "buttons": buttons}
    gui = sys.modules.get("cadbase.gui")
    if gui is not None and gui._running is not None:
        out["held"] = gui._running[0].jobs.qsize()
    return out


def poll():
    req = os.path.join(_dir, "req")
    if not os.path.exists(req):
        return
    os.remove(req)
    try:
        out = report()
    except Exception as e:  # say so, rather than leave the test waiting
        out = {"error": repr(e)}
    tmp = os.path.join(_dir, "probe.json.tmp")
    with open(tmp, "w") as fh:
        json.dump(out, fh)
    os.replace(tmp, os.path.join(_dir, "probe.json"))


_timer = QtCore.QTimer()
_timer.timeout.connect(poll)
_timer.start(100)
