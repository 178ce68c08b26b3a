"""A test-only fault hook: end the process at the k-th durable step (issue 33).

The table's promise is that a crash at *any* instant loses nothing: the journal and the
launcher agree across every window (docs/architecture.md, *Crash safety*). To prove it the
tests need every window, not a random sample, so each durable step calls :func:`step` right
after it took effect: a journal transaction committed (``journal``), a command the launcher
answered (``launcher:CMD``), a launcher event the table applied (``event:NAME``).

With ``UNOLAUNCH_CRASH_AT=k`` in the environment the k-th such step ends the process at once
(``os._exit``: no cleanup, no flush, no atexit — what ``kill -9`` or a power cut leaves);
``UNOLAUNCH_CRASH_LOG=PATH`` appends one line per step (``N WHAT``), so a test counts the
steps of a run that never crashed. Neither is set outside the tests, and then :func:`step`
is a dictionary lookup.
"""

from __future__ import annotations

import os
import threading

#: The environment variables the tests set (never a user).
CRASH_AT_ENV = "UNOLAUNCH_CRASH_AT"
CRASH_LOG_ENV = "UNOLAUNCH_CRASH_LOG"

#: The exit status of a process ended by the hook (a test tells it from a real failure).
CRASH_STATUS = 86

_lock = threading.Lock()
_count = 0


def step(what: str) -> None:
    """One durable step took effect (``what`` names it): count it, log it when asked, and
    end the process here when it is the step the test chose."""
    global _count
    at = os.environ.get(CRASH_AT_ENV)
    log = os.environ.get(CRASH_LOG_ENV)
    if not at and not log:
        return
    with _lock:
        _count += 1
        n = _count
        if log:
            with open(log, "a", encoding="utf-8") as f:
                f.write(f"{n} {what}\n")
        if at and n == int(at):
            os._exit(CRASH_STATUS)
