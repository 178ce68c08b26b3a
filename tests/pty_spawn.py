"""pexpect sessions that do not fork the test process.

``pexpect.spawn`` starts its child with ``pty.fork()`` (``os.forkpty``): a fork of the whole
test process, which has threads (the simulators' relays, the clients' readers). On Python
3.12+ that warns "This process is multi-threaded, use of forkpty() may lead to deadlocks" —
and it can: a lock held by another thread at the fork stays held in the child. Here the child
is started by ``os.posix_spawn`` (no Python code runs between fork and exec) on a fresh pty,
which util-linux ``setsid --ctty`` makes its controlling terminal (so Ctrl-C typed there is a
SIGINT, as in a real terminal). Everything else is pexpect's own ``spawn``.
"""

from __future__ import annotations

import fcntl
import os
import shutil
import struct
import termios
from typing import Any

import pexpect
import ptyprocess

_SETSID = shutil.which("setsid")


class Spawn(pexpect.spawn):  # type: ignore[misc]
    """``pexpect.spawn`` (same arguments) whose child is posix_spawn'ed, not forked.

    It sends at once: pexpect's ``delaybeforesend`` (50 ms before each send, for programs
    that flush their input after a prompt, which none here does) cost the suite minutes."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.delaybeforesend = None

    def _spawnpty(
        self,
        args: list[bytes | str],
        env: dict[str, str] | None = None,
        cwd: str | None = None,
        echo: bool = True,
        preexec_fn: Any = None,
        dimensions: tuple[int, int] = (24, 80),
        **_: Any,
    ) -> ptyprocess.PtyProcess:
        assert preexec_fn is None, "a preexec_fn needs a fork: not supported here"
        assert cwd is None, "posix_spawn has no portable chdir: not supported here"
        assert _SETSID is not None, "setsid (util-linux) is needed to give the child its tty"
        master, slave = os.openpty()
        try:
            rows, cols = dimensions
            fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))
            if not echo:
                attrs = termios.tcgetattr(slave)
                attrs[3] &= ~termios.ECHO
                termios.tcsetattr(slave, termios.TCSANOW, attrs)
            argv = [os.fsdecode(a) for a in args]
            # not a process-group leader, so setsid(1) does not fork: the pid stays ours
            pid = os.posix_spawn(
                _SETSID,
                [_SETSID, "--ctty", *argv],
                dict(os.environ if env is None else env),
                file_actions=[
                    (os.POSIX_SPAWN_DUP2, slave, 0),
                    (os.POSIX_SPAWN_DUP2, slave, 1),
                    (os.POSIX_SPAWN_DUP2, slave, 2),
                ],  # (master and slave themselves are close-on-exec)
            )
        except BaseException:
            os.close(master)
            raise
        finally:
            os.close(slave)
        return ptyprocess.PtyProcess(pid, master)
