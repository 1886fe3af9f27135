"""The desktop checks of desktop.sh, run with Debian's python3 (Pillow comes
with FreeCAD's matplotlib) while desktop FreeCAD runs the macro under Xvfb:

    desktop.py BRIDGE PORT WORKDIR OUTDIR

Through one bridge session (the bridge binary as an MCP client runs it):
a circle far from the origin in a new drawing is in view (the view fits
the first geometry); the demo's bracket, drawn before by `mcp-bridge demo`,
is wholly in view after zoom_extents, in its layers' colours, and the tree
lists its entities (screenshot kept as OUTDIR/freecad-desktop.png); then
the window is closed while a call waits: the call ends with -32603 "not
run", the saved document does not hold it, and the bridge keeps serving.
Prints "desktop: ok ..." lines; exits 1 with "desktop: FAIL ..." on the
first failure.
"""

import ctypes
import json
import os
import queue
import shutil
import subprocess
import sys
import threading
import time

from PIL import Image

WAIT = 60  # seconds: the bound on every wait for FreeCAD or the bridge

BLACK, RED, BLUE = (0, 0, 0), (255, 0, 0), (0, 0, 255)  # layers 0, holes, annotations (ACI 7, 1, 5)


class Fail(Exception):
    pass


def ok(msg):
    print("desktop: ok   " + msg, flush=True)


class Bridge:
    """One stdio session with the bridge binary, as an MCP client has."""

    def __init__(self, binary, port, log):
        self.p = subprocess.Popen([binary, "--port", str(port), "--log-level", "warn", "--no-cache"],
                                  stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=log)
        self.lines = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()
        self.next_id = 1
        self.request("initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                                    "clientInfo": {"name": "desktop-check", "version": "1"}})
        self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})

    def _read(self):
        for line in self.p.stdout:
            self.lines.put(json.loads(line))
        self.lines.put(None)

    def send(self, msg):
        self.p.stdin.write((json.dumps(msg) + "\n").encode())
        self.p.stdin.flush()

    def start(self, method, params=None):
        """Sends a request; returns its id (answer() waits for it)."""
        i = self.next_id
        self.next_id += 1
        msg = {"jsonrpc": "2.0", "id": i, "method": method}
        if params is not None:
            msg["params"] = params
        self.send(msg)
        return i

    def answer(self, i):
        try:
            m = self.lines.get(timeout=WAIT)
        except queue.Empty:
            raise Fail("the bridge did not answer request %d within %d s" % (i, WAIT))
        if m is None:
            raise Fail("the bridge closed stdout (exit code %s)" % self.p.poll())
        if m.get("id") != i:
            raise Fail("expected the answer to request %d, got %s" % (i, json.dumps(m)[:300]))
        return m

    def request(self, method, params=None):
        return self.answer(self.start(method, params))

    def call(self, tool, args=None):
        """A tools/call that must succeed; returns its text."""
        m = self.request("tools/call", {"name": tool, "arguments": args or {}})
        res = m.get("result")
        if res is None or res.get("isError"):
            raise Fail("%s: %s" % (tool, json.dumps(m)[:400]))
        return res["content"][0]["text"]

    def close(self):
        self.p.stdin.close()
        try:
            self.p.wait(10)
        except subprocess.TimeoutExpired:
            self.p.kill()


class Desktop:
    """FreeCAD's window on the Xvfb screen, seen through guiprobe.py."""

    def __init__(self, work):
        self.work = work

    def probe(self, until=None, what="the probe's report"):
        """guiprobe.py's report; with until, the first report for which
        until(report) holds."""
        out = os.path.join(self.work, "probe.json")
        deadline = time.monotonic() + WAIT
        while True:
            if os.path.exists(out):
                os.remove(out)
            open(os.path.join(self.work, "req"), "w").close()
            while not os.path.exists(out):
                if time.monotonic() > deadline:
                    raise Fail("FreeCAD gave no %s within %d s" % (what, WAIT))
                time.sleep(0.05)
            with open(out) as fh:
                r = json.load(fh)
            if "error" in r:
                raise Fail("guiprobe.py: " + r["error"])
            if until is None or until(r):
                return r
            if time.monotonic() > deadline:
                raise Fail("waited %d s for %s; last report: %s" % (WAIT, what, json.dumps(r)[:400]))
            time.sleep(0.1)

    def view(self):
        """The 3D view's [x, y, w, h] on the screen."""
        r = self.probe(lambda r: r["view"] is not None, "a 3D view")
        xid, x, y, w, h = r["view"]
        ox, oy = window_origin(xid)
        return r, [ox + x, oy + y, w, h]

    def screenshot(self, path):
        """The screen once FreeCAD has finished drawing it: an answer can
        come before the view is repainted (or done animating), so two
        shots in a row must be the same."""
        # The pointer off the view: FreeCAD highlights what is under it.
        subprocess.run(["xdotool", "mousemove", "0", "0"], check=True)
        self.probe()  # the GUI thread is back in its event loop, past the call
        deadline = time.monotonic() + WAIT
        last = None
        while True:
            subprocess.run(["import", "-window", "root", path], check=True)
            img = Image.open(path).convert("RGB")
            if last is not None and img.tobytes() == last.tobytes():
                return img
            if time.monotonic() > deadline:
                raise Fail("FreeCAD's screen did not settle within %d s (see %s)" % (WAIT, path))
            last = img
            time.sleep(0.3)


def window_origin(xid):
    """Where the top-level X window xid is on the screen."""
    geo = subprocess.run(["xdotool", "getwindowgeometry", "--shell", str(xid)], check=True,
                         capture_output=True, text=True).stdout
    g = dict(line.split("=", 1) for line in geo.split())
    return int(g["X"]), int(g["Y"])


def colour_boxes(img, rect):
    """The count and bounding box of each layer colour's pixels inside
    rect, FreeCAD's own marks (navigation cube, axis cross) left out."""
    x0, y0, w, h = rect
    px = img.load()
    found = {c: [0, None] for c in (BLACK, RED, BLUE)}
    for y in range(y0, y0 + h):
        for x in range(x0, x0 + w):
            if (x > x0 + w - 200 and y < y0 + 170) or (x > x0 + w - 90 and y > y0 + h - 90):
                continue  # the navigation cube (top right), the axis cross (bottom right)
            c = px[x, y]
            if c in found:
                f = found[c]
                f[0] += 1
                b = f[1]
                f[1] = [x, y, x, y] if b is None else [min(b[0], x), min(b[1], y), max(b[2], x), max(b[3], y)]
    return found


def inside(box, rect, margin):
    x0, y0, w, h = rect
    return box[0] >= x0 + margin and box[1] >= y0 + margin and box[2] < x0 + w - margin and box[3] < y0 + h - margin


def check_fits(b, d, out):
    """A new drawing's first geometry is fitted into view, wherever it is;
    later geometry leaves the view alone until zoom_extents."""
    b.call("new_drawing", {"name": "far away"})
    b.call("draw_circle", {"center": {"x": 5000, "y": -3000}, "radius": 20})
    _, view = d.view()
    shot = os.path.join(out, "first-fit.png")
    n, box = colour_boxes(d.screenshot(shot), view)[BLACK]
    if n < 200 or not inside(box, view, 5):
        raise Fail("a circle drawn at (5000, -3000) in an empty drawing is not in view: %d black pixels, box %s, "
                   "view %s (see %s)" % (n, box, view, shot))
    # A second circle 100 to the right is outside that view, and the view
    # stays; after zoom_extents both are in it: 140 x 40 units, 3.5 times
    # wider than high.
    b.call("draw_circle", {"center": {"x": 5100, "y": -3000}, "radius": 20})
    shot = os.path.join(out, "unmoved.png")
    _, moved = colour_boxes(d.screenshot(shot), view)[BLACK]
    if moved != box:
        raise Fail("a second circle moved the view (the first circle's pixels went from %s to %s; see %s)"
                   % (box, moved, shot))
    ok("the first geometry of an empty drawing is fitted into view (%d px of the circle); the next leaves the view"
       " as it is" % n)
    b.call("zoom_extents")
    shot = os.path.join(out, "zoomed.png")
    n, box = colour_boxes(d.screenshot(shot), view)[BLACK]
    ratio = (box[2] - box[0]) / max(box[3] - box[1], 1) if box else 0
    if not box or not inside(box, view, 5) or not 3.2 < ratio < 3.8:
        raise Fail("after zoom_extents, two circles 100 apart are not both in view: box %s (width/height %.2f, "
                   "want 3.5), view %s (see %s)" % (box, ratio, view, shot))
    ok("zoom_extents brings a circle drawn outside the view into it (both circles: %d x %d px)"
       % (box[2] - box[0], box[3] - box[1]))


def check_bracket(b, d, work, out):
    """The bracket (drawn by `mcp-bridge demo`) in full after zoom_extents."""
    tools = [t["name"] for t in b.request("tools/list")["result"]["tools"]]
    if "zoom_extents" not in tools:
        raise Fail("the desktop base does not list zoom_extents: %s" % tools)
    text = b.call("zoom_extents")
    if text != "The view shows the whole drawing: (0, -6) - (50, 24).":
        raise Fail("zoom_extents answered %r" % text)
    r, view = d.view()
    shot = os.path.join(out, "freecad-desktop.png")
    img = d.screenshot(shot)
    found = colour_boxes(img, view)
    (nk, k), (nr, red), (nb, blue) = found[BLACK], found[RED], found[BLUE]
    if nk < 300 or nr < 150 or nb < 100:
        raise Fail("the bracket's layers are not all drawn: %d black (layer 0), %d red (holes), %d blue "
                   "(annotations) pixels in the 3D view %s; see %s" % (nk, nr, nb, view, shot))
    # The part spans (0, -6) - (50, 24): 50 x 30 units. Layer 0's outline is
    # (0, 0) - (50, 20), the holes (3, 5) - (37, 15), the dimension's line
    # below them, the text's point above. All inside the view, not cut off.
    if not all(inside(bx, view, 3) for bx in (k, red, blue)):
        raise Fail("the bracket is cut off by the view's edge: black %s red %s blue %s, view %s; see %s"
                   % (k, red, blue, view, shot))
    kw, kh = k[2] - k[0], k[3] - k[1]
    if not (2.3 < kw / max(kh, 1) < 2.7):
        raise Fail("layer 0's outline is %d x %d px, not the 50 x 20 of the bracket; see %s" % (kw, kh, shot))
    if not (k[0] < red[0] and red[2] < k[2] and k[1] < red[1] and red[3] < k[3]):
        raise Fail("the holes %s are not inside the outline %s; see %s" % (red, k, shot))
    if not (blue[1] < k[1] and blue[3] > k[3]):
        raise Fail("the annotations %s do not reach above and below the outline %s; see %s" % (blue, k, shot))
    _, _, vw, vh = view
    if kw < vw * 0.5 and kh < vh * 0.5:
        raise Fail("the bracket fills only %d x %d px of the %d x %d view: not zoomed to it; see %s"
                   % (kw, kh, vw, vh, shot))
    want = ["bracket", "Layers", "0", "Polyline101", "Arc105", "holes", "Circle102", "Circle103", "Circle104",
            "annotations", "Dimension106", "Text107"]
    missing = [w for w in want if w not in r["tree"]]
    if missing:
        raise Fail("the tree does not show %s; it shows %s" % (missing, r["tree"]))
    ok("the bracket in full after zoom_extents (%d x %d px; %d black, %d red, %d blue pixels) and its %d entities "
       "in the tree: %s" % (kw, kh, nk, nr, nb, 7, shot))
    return shot


def close_window(window):
    """Clicks the window's close box, as a window manager does: sends it
    WM_DELETE_WINDOW (Xvfb has no window manager to do it)."""
    x = ctypes.CDLL("libX11.so.6")
    x.XOpenDisplay.restype = ctypes.c_void_p
    x.XInternAtom.restype = ctypes.c_ulong
    x.XInternAtom.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_int]
    x.XSendEvent.argtypes = [ctypes.c_void_p, ctypes.c_ulong, ctypes.c_int, ctypes.c_long, ctypes.c_void_p]
    x.XFlush.argtypes = [ctypes.c_void_p]
    x.XCloseDisplay.argtypes = [ctypes.c_void_p]

    class ClientMessage(ctypes.Structure):
        _fields_ = [("type", ctypes.c_int), ("serial", ctypes.c_ulong), ("send_event", ctypes.c_int),
                    ("display", ctypes.c_void_p), ("window", ctypes.c_ulong), ("message_type", ctypes.c_ulong),
                    ("format", ctypes.c_int), ("data", ctypes.c_long * 5), ("pad", ctypes.c_long * 12)]

    dpy = x.XOpenDisplay(None)
    if not dpy:
        raise Fail("cannot open the X display %s" % os.environ.get("DISPLAY"))
    ev = ClientMessage()
    ev.type = 33  # ClientMessage
    ev.window = window
    ev.message_type = x.XInternAtom(dpy, b"WM_PROTOCOLS", 0)
    ev.format = 32
    ev.data[0] = x.XInternAtom(dpy, b"WM_DELETE_WINDOW", 0)
    ev.data[1] = 0  # CurrentTime
    x.XSendEvent(dpy, window, 0, 0, ctypes.byref(ev))
    x.XFlush(dpy)
    x.XCloseDisplay(dpy)


def close_and_hold(b, d, radius):
    """Closes the window; once FreeCAD asks whether to save, sends a call
    and waits until the base holds it. Returns its id and the question."""
    close_window(d.probe()["window"])
    d.probe(lambda r: r["modal"] is not None, "a save question after the window was closed")
    held = b.start("tools/call", {"name": "draw_circle",
                                  "arguments": {"center": {"x": 0, "y": 0}, "radius": radius}})
    r = d.probe(lambda r: r["held"] == 1, "the call held while FreeCAD asks whether to save")
    return held, r["modal"]


def click(modal, text):
    """Clicks the button labelled text in the dialog modal."""
    found = [bt for bt in modal["buttons"] if bt[0].lower() == text.lower()]
    if not found:
        raise Fail("the question %r has no %s button: %s" % (modal["title"], text, modal["buttons"]))
    _, xid, x, y = found[0]
    ox, oy = window_origin(xid)
    subprocess.run(["xdotool", "mousemove", str(ox + x), str(oy + y), "click", "1"], check=True)


def answer_after(b, d, held, button, out):
    try:
        return b.answer(held)
    except Fail:
        shot = os.path.join(out, "closing.png")
        d.screenshot(shot)
        raise Fail("after %s, the held call got no answer; FreeCAD's screen: %s" % (button, shot))


def check_close(b, d, work, out, fc_pid):
    """Closing FreeCAD's window while a call waits: FreeCAD asks whether to
    save and a call sent meanwhile is held. Cancel: it runs. Close again,
    Save: FreeCAD exits, the call ends with -32603 and was not run (the
    saved document does not hold it: desktop.sh reads it back), and the
    bridge keeps serving."""
    b.call("draw_line", {"start": {"x": 0, "y": 30}, "end": {"x": 50, "y": 30}})  # unsaved now
    held, modal = close_and_hold(b, d, 99)
    click(modal, "Cancel")
    m = answer_after(b, d, held, "Cancel", out)
    text = ((m.get("result") or {}).get("content") or [{}])[0].get("text", "")
    if not text.startswith("Circle ") or m["result"].get("isError"):
        raise Fail("the call held while FreeCAD asked, then cancelled, ended with %s" % json.dumps(m))
    ok("closing the window, then Cancel: the call held meanwhile ran (%r)" % text)

    saved = os.path.join(work, "closing.FCStd")
    b.call("save_drawing", {"path": saved})
    b.call("draw_line", {"start": {"x": 0, "y": 35}, "end": {"x": 50, "y": 35}})
    info = b.call("get_drawing_info")
    n = int(info.split(" entities")[0].rsplit(" ", 1)[1])
    held, modal = close_and_hold(b, d, 98)
    click(modal, "Save")
    m = answer_after(b, d, held, "Save", out)
    err = m.get("error") or {}
    if err.get("code") != -32603 or "was not run" not in err.get("message", ""):
        raise Fail("the call held while FreeCAD closed ended with %s, not -32603 \"... was not run\"" % json.dumps(m))
    ok("closing the window, then Save: the call held meanwhile ended with -32603 %r" % err["message"])
    deadline = time.monotonic() + WAIT
    while os.path.exists("/proc/%d" % fc_pid) and not _zombie(fc_pid):
        if time.monotonic() > deadline:
            raise Fail("FreeCAD did not exit within %d s of its window closing" % WAIT)
        time.sleep(0.1)
    ping = b.request("ping")
    if ping.get("result") != {}:
        raise Fail("after FreeCAD closed, ping answered %s" % json.dumps(ping))
    m = b.request("tools/call", {"name": "get_drawing_info", "arguments": {}})
    if (m.get("error") or {}).get("code") != -32603:
        raise Fail("a call after FreeCAD closed answered %s" % json.dumps(m))
    ok("then FreeCAD exited and the bridge kept serving (ping answered; a call: -32603 %r)" % m["error"]["message"])
    return saved, n


def _zombie(pid):
    try:
        with open("/proc/%d/stat" % pid) as fh:
            return fh.read().split(") ", 1)[1].startswith("Z")
    except OSError:
        return True


def main():
    binary, port, work, out = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
    fc_pid = int(sys.argv[5])
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(work, "bridge.err"), "wb") as log:
        b = Bridge(binary, port, log)
        try:
            d = Desktop(work)
            check_bracket(b, d, work, out)
            check_fits(b, d, out)
            saved, n = check_close(b, d, work, out, fc_pid)
            print("desktop: saved %s %d" % (saved, n), flush=True)
        except Fail as e:
            print("desktop: FAIL %s" % e, flush=True)
            sys.exit(1)
        finally:
            b.close()


main()
