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
