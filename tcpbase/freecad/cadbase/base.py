"""The FreeCAD base: the TCP server plus the queue that hands each tool call
to the thread that owns the document.

FreeCAD's documents are not thread-safe. Connections are read and answered
on their own threads; a tool call is put on a queue and its connection
thread waits for the result. The document's owner drains the queue: the
main thread under freecadcmd (serve_forever), a Qt timer on the GUI thread
in the desktop program (gui.py).
"""

import queue
import threading

import FreeCAD as App

from . import drawing, protocol


class Job:
    def __init__(self, name, args):
        self.name, self.args = name, args
        self.result, self.error = None, None
        self.done = threading.Event()


class Base:
    def __init__(self, host="127.0.0.1", port=8080):
        self.drawing = drawing.Drawing()
        self.jobs = queue.Queue()
        self.server = protocol.Server(host, port, self.drawing.tools, self.call, log=self.log)
        self.address = self.server.address
        self.stopped = False
        self.stop_reason = "the FreeCAD base was stopped"

    def log(self, msg):
        App.Console.PrintWarning("MCP base: %s\n" % msg)

    def start(self):
        self.server.start()

    def call(self, name, args):
        """On a connection thread: runs the call on the document's thread
        and waits for its result."""
        job = Job(name, args)
        self.jobs.put(job)
        job.done.wait()
        if job.error is not None:
            raise job.error
        return job.result

    def run_pending(self):
        """On the document's thread: runs every queued call."""
        while True:
            try:
                job = self.jobs.get_nowait()
            except queue.Empty:
                return
            self.run(job)

    def run(self, job):
        if self.stopped:
            job.error = protocol.NotRun(self.stop_reason)
        else:
            try:
                job.result = self.drawing.call(job.name, job.args)
            except Exception as e:
                job.error = e
        job.done.set()

    def serve_forever(self):
        """Runs queued calls on this thread until stop (headless use)."""
        while not self.stopped:
            try:
                job = self.jobs.get(timeout=0.5)
            except queue.Empty:
                continue
            self.run(job)

    def stop(self, reason=None):
        if reason:
            self.stop_reason = reason
        self.stopped = True
        self.server.close()
        self.run_pending()  # callers waiting get an error, not a hang
        self.server.drain(2.0)
