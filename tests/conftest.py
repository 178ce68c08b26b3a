"""Shared fixtures: the repository layout and a way to run the real CLI in a subprocess."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
HOST = REPO / "host"


def cli_env(extra: dict[str, str] | None = None) -> dict[str, str]:
    """Environment for a subprocess running this checkout's ``unolaunch`` (not another)."""
    env = dict(os.environ)
    env["PYTHONPATH"] = str(HOST) + os.pathsep + env.get("PYTHONPATH", "")
    env.pop("UNOLAUNCH_DEBUG", None)
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
    "tests/test_boards.py::test_protocol_examples_answered_as_documented",
    "tests/test_flash.py::test_reflash_replaces",
    "tests/test_flash.py::test_dry_run_then_flash",
    "tests/test_web_browser.py::",
)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Start the longest tests first (scheduling only: every test still runs)."""

    def rank(item: pytest.Item) -> int:
        return 0 if any(item.nodeid.startswith(p) for p in _LONG_FIRST) else 1

    items.sort(key=rank)  # stable: the order within each group is kept
