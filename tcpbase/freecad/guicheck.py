# Checks the desktop macro's machinery without a screen, for
# run-tests.sh: `freecadcmd guicheck.py` starts the base the way the macro
# does (cadbase.gui: a Qt timer on the main thread drains the calls), makes
# calls from another thread while a Qt event loop runs, and checks every
# call ran on the main (GUI) thread and that stop ends it. The last line is
# "guicheck: ok ..." or "guicheck: FAIL ...".
import json
import os
import socket
import sys
import threading

sys.path.insert(0, os.path.dirname(os.path.abspath(globals().get("__file__", ""))))

from PySide import QtCore  # noqa: E402

from cadbase import gui  # noqa: E402

app = QtCore.QCoreApplication.instance() or QtCore.QCoreApplication([])
base = gui.start(0)
host, port = base.address.rsplit(":", 1)
threads = []
run = base.drawing.call


def recording(name, args):
    threads.append(threading.current_thread() is threading.main_thread())
    return run(name, args)


base.drawing.call = recording
answers, problems = [], []


def ask(frame):
    with socket.create_connection((host, int(port)), timeout=10) as s:
        s.sendall(frame.encode() + b"\n")
        data = b""
        while True:
            chunk = s.recv(65536)
            if not chunk:
                return json.loads(data)
            data += chunk


def client():
    try:
        call = '{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"%s","arguments":%s}}'
        answers.append(ask(call % (1, "draw_line", '{"start":{"x":0,"y":0},"end":{"x":30,"y":40}}')))
        answers.append(ask(call % (2, "undo", "{}")))
    except Exception as e:
        problems.append(repr(e))
    finally:
        # A Qt timer needs a QThread; a queued call is the way to ask the
        # main thread's event loop from a plain Python thread.
        QtCore.QMetaObject.invokeMethod(app, "quit", QtCore.Qt.QueuedConnection)


threading.Thread(target=client, name="client").start()
QtCore.QTimer.singleShot(30000, app.quit)  # in case the client thread itself hangs
app.exec_()
gui.toggle()  # stops it
texts = [a.get("result", {}).get("content", [{}])[0].get("text") for a in answers]
want = ["Line 101 drawn from (0, 0) to (30, 40), length 50.", "Undid 1 change; 0 entities now."]
if problems or texts != want:
    print("\nguicheck: FAIL answers %s %s" % (texts, problems))
elif threads != [True, True]:
    print("\nguicheck: FAIL calls ran off the main thread: %s" % threads)
elif gui._running is not None:
    print("\nguicheck: FAIL the macro did not stop the base")
else:
    try:
        ask('{"jsonrpc":"2.0","id":3,"method":"tools/list"}')
        print("\nguicheck: FAIL the base still answers after stop")
    except OSError:
        print("\nguicheck: ok   the desktop macro's base ran %d calls on the GUI thread, and stopped" % len(threads))
