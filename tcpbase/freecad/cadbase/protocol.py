"""The wire side of the FreeCAD base: one JSON-RPC frame per TCP connection.

It behaves like the CAD base of the bridge's PROTOCOL.md and like the
simulated base (tcpbase/simbase): read one frame (up to a newline, or until
the client closes its side), answer it, close. Only tools/list and
tools/call exist; anything else gets -32601, notifications get nothing.

Nothing here touches FreeCAD: tool calls are handed to a run(name, args)
function, which the caller makes run on the thread that owns the document.
"""

import json
import math
import socket
import threading
import time

MAX_FRAME = 16 << 20
READ_TIMEOUT = 30.0

PARSE_ERROR, INVALID_REQUEST, METHOD_NOT_FOUND, INVALID_PARAMS, INTERNAL_ERROR = (
    -32700, -32600, -32601, -32602, -32603)


class NotRun(Exception):
    """A call refused before it ran (the base is stopping): the client is
    told it was not run, so it knows the drawing is as it was."""


class RawNumber(str):
    """A JSON number kept as its text, so an id is echoed byte for byte."""


def _no_constants(name):
    raise ValueError("%s is not JSON" % name)


def decode(frame):
    """Decodes one frame; returns (id_json, method, params, error).

    id_json is the id's JSON text (None when absent or unreadable); error is
    (code, message) when the frame gets an error answer; method is None for
    a frame that gets no answer at all (a notification or a response).
    """
    try:
        text = frame.decode("utf-8")
        msg = json.loads(text, parse_int=RawNumber, parse_float=RawNumber,
                         parse_constant=_no_constants)
    except (UnicodeDecodeError, ValueError, RecursionError):
        return None, None, None, (PARSE_ERROR, "Parse error: not valid JSON")
    if not isinstance(msg, dict):
        return None, None, None, (INVALID_REQUEST, "Invalid Request: a message must be a JSON object")
    raw_id = msg.get("id")
    id_json = None
    if isinstance(raw_id, RawNumber):
        id_json = str(raw_id)
    elif isinstance(raw_id, str):
        id_json = json.dumps(raw_id, ensure_ascii=False)

    def invalid(why):
        return id_json, None, None, (INVALID_REQUEST, "Invalid Request: " + why)

    if msg.get("jsonrpc") != "2.0" or "jsonrpc" not in msg:
        return invalid('"jsonrpc" must be "2.0"')
    if "id" in msg and id_json is None:
        return invalid('"id" must be a string or a number')
    if "method" in msg:
        method = msg["method"]
        if not isinstance(method, str):
            return invalid('"method" must be a string')
        params = msg.get("params")
        if "params" in msg and not isinstance(params, (dict, list)):
            return invalid('"params" must be an object or an array')
        if "id" not in msg:
            return None, None, None, None  # a notification: no answer
        return id_json, method, _numbers(params), None
    if "id" not in msg and "error" not in msg:
        return invalid('a request needs "method"')
    return None, None, None, None  # a response: no answer


def _numbers(v):
    """Turns the RawNumbers of decoded params into ints and floats."""
    if isinstance(v, RawNumber):
        f = float(v)
        if math.isinf(f):
            return f
        return int(v) if v.lstrip("-").isdigit() else f
    if isinstance(v, dict):
        return {k: _numbers(x) for k, x in v.items()}
    if isinstance(v, list):
        return [_numbers(x) for x in v]
    return v


def dumps(v):
    return json.dumps(v, ensure_ascii=False, separators=(",", ":"), allow_nan=False)


def result_frame(id_json, result):
    return '{"jsonrpc":"2.0","id":%s,"result":%s}' % (id_json, dumps(result))


def error_frame(id_json, code, message):
    err = dumps({"code": code, "message": message})
    if id_json is None:
        return '{"jsonrpc":"2.0","error":%s}' % err
    return '{"jsonrpc":"2.0","id":%s,"error":%s}' % (id_json, err)


def text_result(text, is_error=False):
    return {"content": [{"type": "text", "text": text}], "isError": is_error}


class Server:
    """A TCP server answering one frame per connection.

    tools is the tools/list "tools" array. call(name, arguments) runs a tool
    and returns the tools/call result; it may block while the document's
    owner thread does the work. Connections are served on their own
    threads; call is the only way they reach the document.
    """

    def __init__(self, host, port, tools, call, log=None):
        self.tools = tools
        self.names = {t["name"] for t in tools}
        self.list_result = dumps({"tools": tools})
        self.call = call
        self.log = log or (lambda msg: None)
        self.sock = socket.create_server((host, port))
        self.address = "%s:%d" % self.sock.getsockname()[:2]
        self.closed = threading.Event()
        self.thread = None
        self.busy = set()  # connection threads still being served
        self.busy_lock = threading.Lock()

    def start(self):
        self.thread = threading.Thread(target=self.serve, name="mcp-base-accept", daemon=True)
        self.thread.start()

    def serve(self):
        while not self.closed.is_set():
            try:
                conn, _ = self.sock.accept()
            except OSError:
                if self.closed.is_set():
                    return
                continue
            threading.Thread(target=self.serve_conn, args=(conn,), name="mcp-base-conn", daemon=True).start()

    def close(self):
        self.closed.set()
        try:
            self.sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        self.sock.close()

    def drain(self, timeout):
        """Waits up to timeout seconds for the connections being served to
        send their answers: a program about to exit calls it, or daemon
        threads would die with the answers unsent."""
        deadline = time.monotonic() + timeout
        with self.busy_lock:
            threads = list(self.busy)
        for t in threads:
            t.join(max(0.0, deadline - time.monotonic()))

    def serve_conn(self, conn):
        me = threading.current_thread()
        with self.busy_lock:
            self.busy.add(me)
        try:
            conn.settimeout(READ_TIMEOUT)
            frame = read_frame(conn)
            if frame is None:
                return
            answer = self.answer(frame)
            if answer is not None:
                conn.settimeout(READ_TIMEOUT)
                conn.sendall(answer.encode("utf-8"))
        except OSError as e:
            self.log("connection: %s" % e)
        finally:
            conn.close()
            with self.busy_lock:
                self.busy.discard(me)

    def answer(self, frame):
        """The answer to one frame, or None when it gets none."""
        id_json, method, params, err = decode(frame)
        if err is not None:
            return error_frame(id_json, err[0], err[1])
        if method is None:
            return None
        if method == "tools/list":
            return '{"jsonrpc":"2.0","id":%s,"result":%s}' % (id_json, self.list_result)
        if method != "tools/call":
            return error_frame(id_json, METHOD_NOT_FOUND, "Method not found: " + method)
        name = params.get("name") if isinstance(params, dict) else None
        args = params.get("arguments") if isinstance(params, dict) else None
        if not isinstance(name, str) or not (args is None or isinstance(args, dict)):
            return error_frame(id_json, INVALID_PARAMS,
                               'Invalid params: tools/call needs {"name": string, "arguments": object}')
        if name not in self.names:
            return error_frame(id_json, INVALID_PARAMS, "Unknown tool: " + name)
        try:
            result = self.call(name, args or {})
        except NotRun as e:
            return error_frame(id_json, INTERNAL_ERROR, "%s was not run: %s" % (name, e))
        except Exception as e:  # a bug of ours must not look like a CAD answer
            self.log("tools/call %s failed: %r" % (name, e))
            return error_frame(id_json, INTERNAL_ERROR, "Internal error: %s failed in FreeCAD: %s" % (name, e))
        return result_frame(id_json, result)


def read_frame(conn):
    """Reads up to a newline, or until the peer closes its side; None when
    nothing usable came (an empty frame, a timeout, a reset)."""
    buf = bytearray()
    while len(buf) <= MAX_FRAME:
        try:
            chunk = conn.recv(65536)
        except OSError:
            return None
        if not chunk:
            break
        i = chunk.find(b"\n")
        if i >= 0:
            buf += chunk[:i]
            break
        buf += chunk
    frame = bytes(buf[:MAX_FRAME + 1]).strip()
    return frame or None
