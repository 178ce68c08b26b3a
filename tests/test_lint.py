"""Static checks run as tests so CI enforces them: ruff (lint + format) and mypy --strict."""

from __future__ import annotations

import subprocess
import sys

from conftest import REPO


def _run(*argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", *argv], cwd=REPO, capture_output=True, text=True, timeout=600
    )


def test_ruff_lint_is_clean() -> None:
    proc = _run("ruff", "check", ".")
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_ruff_format_is_clean() -> None:
    proc = _run("ruff", "format", "--check", ".")
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_mypy_strict_on_host_code() -> None:
    proc = _run("mypy")
    assert proc.returncode == 0, proc.stdout + proc.stderr
