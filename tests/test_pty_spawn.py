"""The tests' pexpect sessions start their child without forking the (threaded) test
process (issue 12: on Python 3.12+ forkpty() there warns and can deadlock)."""

from __future__ import annotations

import os
import pty
import sys
import threading
from collections.abc import Iterator

import pexpect
import pytest
from pty_spawn import Spawn

CHILD = (
    "import os, sys\n"
    "print('tty', os.isatty(0), os.get_terminal_size(0), os.getsid(0) == os.getpid())\n"
    "try:\n"
    "    print('got', input('> '))\n"
    "    input('> ')\n"
    "except KeyboardInterrupt:\n"
    "    print('interrupted')\n"
    "    sys.exit(3)\n"
)


@pytest.fixture
def no_fork(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """A multi-threaded process in which forking fails loudly."""

    def refuse(*_: object) -> None:
        raise AssertionError("the test process was forked")

    for module, name in ((os, "fork"), (os, "forkpty"), (pty, "fork")):
        monkeypatch.setattr(module, name, refuse)
    stop = threading.Event()
    helper = threading.Thread(target=stop.wait, daemon=True)
    helper.start()
    yield
    stop.set()


def test_plain_pexpect_forks_the_test_process(no_fork: None) -> None:
    # the check below can fail: this is what it catches
    with pytest.raises(AssertionError, match="forked"):
        pexpect.spawn(sys.executable, ["-c", "pass"])


def test_spawn_runs_the_child_on_its_own_controlling_terminal(no_fork: None) -> None:
    child = Spawn(sys.executable, ["-c", CHILD], encoding="utf-8", dimensions=(30, 100), timeout=30)
    child.expect_exact("tty True os.terminal_size(columns=100, lines=30) True")
    child.expect_exact("> ")
    child.sendline("hello")
    child.expect_exact("got hello")
    child.expect_exact("> ")
    child.sendintr()  # Ctrl-C typed at its terminal: a SIGINT, as in a real one
    child.expect_exact("interrupted")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 3
