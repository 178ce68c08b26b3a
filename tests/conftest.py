"""Shared fixtures: the repository layout and a way to run the real CLI in a subprocess."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import pytest

REPO = Path(__file__).resolve().parents[1]
HOST = REPO / "host"


def cli_env(extra: dict[str, str] | None = None) -> dict[str, str]:
    """Environment for a subprocess running this checkout's ``unolaunch`` (not another)."""
    env = dict(os.environ)
    env["PYTHONPATH"] = str(HOST) + os.pathsep + env.get("PYTHONPATH", "")
    env.pop("UNOLAUNCH_DEBUG", None)
    # The table speaks the locale's language (issue 25): tests expect English unless they
    # ask for another with --lang or their own LANG.
    env.pop("LC_ALL", None)
    env.pop("LC_MESSAGES", None)
    env["LANG"] = "C.UTF-8"
    if extra:
        env.update(extra)
    return env


RunCli = Callable[..., "subprocess.CompletedProcess[str]"]


@pytest.fixture
def run_cli() -> RunCli:
    """Run ``python -m unolaunch ARGS`` from this checkout; returns the completed process."""

    def run(
        *args: str | os.PathLike[str],
        input: str | None = None,
        timeout: float = 120,
        env: dict[str, str] | None = None,
        cwd: str | os.PathLike[str] | None = None,
    ) -> subprocess.CompletedProcess[str]:
        argv: Sequence[str] = [sys.executable, "-m", "unolaunch", *map(str, args)]
        return subprocess.run(
            argv,
            input=input,
            capture_output=True,
            text=True,
            timeout=timeout,
            env=cli_env(env),
            cwd=cwd,
        )

    return run


# The longest tests (a `--durations` run: 20-75 s each, most of the suite's 10 s+ tests are
# far shorter). pytest-xdist hands tests out in collection order, so these go first: left
# to the end, one of them alone keeps a worker busy while the other has nothing to do.
_LONG_FIRST = (
    "tests/test_fw_fuzz.py::",
    "tests/test_demo.py::test_demo_plays_a_whole_game",
    "tests/test_play_crash.py::",
    "tests/test_play_every_crash_point.py::",  # a chunk of k: 1-2 min each
    "tests/test_boards.py::test_protocol_examples_answered_as_documented",
    "tests/test_flash.py::test_reflash_replaces",
    "tests/test_flash.py::test_dry_run_then_flash",
    "tests/test_uf2.py::test_a_blank_pico_given_only_the_uf2",  # one emulated boot, 25-70 s
    "tests/test_web_browser.py::",
    "tests/test_rp2040_micropython.py::",  # MicroPython's own suite: basics alone 70-90 s
)


def _idle_cores(seconds: float = 0.5) -> float:
    """How many cores' worth of CPU time went unused over ``seconds`` (Linux's
    /proc/stat: idle and iowait over all of the time, times the CPUs it counts)."""

    def sample() -> tuple[int, int, int]:
        with open("/proc/stat") as f:
            lines = f.read().splitlines()
        ticks = [int(v) for v in lines[0].split()[1:]]
        cpus = sum(1 for line in lines[1:] if line.startswith("cpu"))
        return ticks[3] + ticks[4], sum(ticks), cpus

    idle0, total0, _ = sample()
    time.sleep(seconds)
    idle1, total1, cpus = sample()
    return cpus * (idle1 - idle0) / max(1, total1 - total0)


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_auto_num_workers(config: pytest.Config) -> int:
    """``-n auto``: one worker per core, and one more per core that is idle as the run
    starts. Most of a test's time is spent waiting on a board (the unix board's mechanics
    run in real time, an emulated chip is its own process, a browser or a `play` another),
    so on an idle machine one worker per core leaves the cores a third idle: on 2 cores,
    ``-n 4 --dist worksteal`` ran the suite in 9 min 09 s where ``-n 2`` took 15 min 28 s.
    On a machine already busy (a shared CI box, a CPU hog per core) the extra workers only
    crowd the boards' processes, and the tests that count what load changes failed there
    at ``-n 4`` (the port-lock fairness count, a crash point's steps, a descheduled board's
    card) where ``-n 2`` had kept them green (docs/firmware-tests.md, *Where the suite's
    time goes*)."""
    cores = len(os.sched_getaffinity(0))
    try:
        idle = _idle_cores()
    except (OSError, ValueError, IndexError):
        idle = 0.0
    return cores + min(cores, round(idle))


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Start the longest tests first (scheduling only: every test still runs)."""

    def rank(item: pytest.Item) -> int:
        return 0 if any(item.nodeid.startswith(p) for p in _LONG_FIRST) else 1

    items.sort(key=rank)  # stable: the order within each group is kept


def deschedule(pid: int, stop_ms: float, run_ms: float, until: Callable[[], bool]) -> None:
    """Stop process ``pid`` for 0..2*stop_ms (at random) after every run_ms it runs, as a
    loaded machine deschedules it, until ``until()`` or the process is gone; it is left
    running."""
    while not until():
        try:
            os.kill(pid, signal.SIGSTOP)
            time.sleep(stop_ms * 2 * random.random() / 1000)
            os.kill(pid, signal.SIGCONT)
        except ProcessLookupError:
            return
        time.sleep(run_ms / 1000)


def _deschedule_every_board(stop_ms: float, run_ms: float) -> None:
    """Run :func:`deschedule` on each unix-board process this pytest starts: a stress mode
    for the races CI meets only now and then (``UNOLAUNCH_TEST_DESCHEDULE=STOP_MS,RUN_MS``)."""
    from unolaunch.sim.unixport import UnixPortProcess

    spawn = UnixPortProcess.spawn.__func__  # type: ignore[attr-defined]

    def descheduled_spawn(cls: type[UnixPortProcess], *args: Any, **kwargs: Any) -> Any:
        child = spawn(cls, *args, **kwargs)

        def ended() -> bool:
            return child.proc.poll() is not None

        jitter = (child.pid, stop_ms, run_ms, ended)
        threading.Thread(target=deschedule, args=jitter, daemon=True).start()
        return child

    UnixPortProcess.spawn = classmethod(descheduled_spawn)  # type: ignore[method-assign,assignment]


def pytest_configure(config: pytest.Config) -> None:
    """``UNOLAUNCH_TEST_DESCHEDULE=STOP_MS,RUN_MS``: run the unix board descheduled. And
    Ctrl-C as the tests need it: a pytest started in the background by a non-interactive
    shell (``cmd &``, ``nohup``) has SIGINT ignored, and its children inherit that, so the
    tests that press Ctrl-C on a `simulate` or a pty child waited out their timeouts (4
    tests of each CI-like run started so); SIGINT is handled again here, and so the
    children start with it at its default."""
    if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)
    spec = os.environ.get("UNOLAUNCH_TEST_DESCHEDULE")
    if spec:
        try:
            stop_ms, run_ms = (float(v) for v in spec.split(","))
        except ValueError:
            raise pytest.UsageError(
                f"UNOLAUNCH_TEST_DESCHEDULE={spec!r}: give STOP_MS,RUN_MS, e.g. 15,8"
            ) from None
        _deschedule_every_board(stop_ms, run_ms)


def built_wheel(out: Path) -> Path:
    """Build this checkout's wheel into ``out`` with hatchling's PEP 517 hook (as pip would,
    build hooks included); the wheel's path."""
    out.mkdir(parents=True, exist_ok=True)
    proc = subprocess.run(
        [
            sys.executable,
            "-c",
            "import sys; from hatchling.build import build_wheel; print(build_wheel(sys.argv[1]))",
            str(out),
        ],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    return out / proc.stdout.strip().splitlines()[-1]
