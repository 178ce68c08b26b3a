"""The command-line shell: help, usage errors, no tracebacks."""

from __future__ import annotations

import re

from conftest import RunCli


def test_help_lists_every_command(run_cli: RunCli) -> None:
    from unolaunch.cli import COMMANDS

    proc = run_cli("--help")
    assert proc.returncode == 0
    listed = set(re.findall(r"(?m)^ {4}(\w+) ", proc.stdout))
    assert listed == set(COMMANDS)


def test_no_command_prints_usage_and_exit_2(run_cli: RunCli) -> None:
    proc = run_cli()
    assert proc.returncode == 2
    assert "usage: unolaunch" in proc.stdout


def test_unknown_option_is_usage_error_without_traceback(run_cli: RunCli) -> None:
    proc = run_cli("--no-such-option")
    assert proc.returncode == 2
    assert "Traceback" not in proc.stderr
