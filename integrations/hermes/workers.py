"""Daemon threads reused from one command to the next.

Every command the plugin runs has a supervisor (process.py: it starts
bwrun, buffers its output, judges its status report). Starting a thread
costs a scheduler round trip (Thread.start waits until the new thread
runs: about 60 µs a command on a loaded machine); a thread that finished
its command waits here for the next one instead. There are as many
threads as commands ever ran at once; each is a daemon (an interpreter
that exits does not wait for a bwrun still running), as the
per-command thread was. Standard library only.
"""

import os
import queue
import threading

_jobs = queue.SimpleQueue()
_lock = threading.Lock()
_idle = 0


def _reset_in_child():
    """In a child os.fork() made (no exec): none of the workers exists
    there (a fork copies only the forking thread), and the lock may have
    been held by one: start afresh, or a command would wait for ever on a
    worker that is not there."""
    global _jobs, _lock, _idle
    _jobs, _lock, _idle = queue.SimpleQueue(), threading.Lock(), 0


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_reset_in_child)


def submit(fn):
    """Run fn() on an idle worker, or on a new one when none is idle. fn
    must not raise (the supervisor catches everything itself); an
    exception that escapes ends only that call."""
    global _idle
    with _lock:
        if _idle > 0:
            _idle -= 1
            _jobs.put(fn)
            return
    threading.Thread(target=_work, args=(fn,), name="bwpolicy-run", daemon=True).start()


def _work(fn):
    global _idle
    while True:
        try:
            fn()
        except BaseException:  # noqa: B902 - a job's failure must not end the worker
            pass
        with _lock:
            _idle += 1
        fn = _jobs.get()
