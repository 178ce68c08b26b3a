"""The command-line shell: help, usage errors, no tracebacks."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

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


# Issue 12: a usage error exits 2 in every command (argparse's convention), before anything
# starts (no simulator booted, no game saved), with one line naming the option.
USAGE_ERRORS = [
    (["play", "--variant", "attack", "--players", "Ann", "--port", "none"], "players"),
    (["play", "--variant", "attack", "--players", "Ann,Bob", "--option", "foo=bar"], "foo"),
    (["play", "--variant", "attack", "--players", "Ann,Bob", "--target", "0"], "--target"),
    (["demo", "--seed", "-1"], "--seed"),
    (["demo", "--seed", "4294967296"], "--seed"),
    (["demo", "--players", "1"], "--players"),
    (["sim", "--seed", "-1"], "--seed"),
    (["history", "--limit", "0"], "--limit"),
    # one rule for every --timeout: seconds above 0
    (["monitor", "--timeout", "0"], "--timeout"),
    (["monitor", "--timeout", "-5"], "--timeout"),
    (["monitor", "--timeout", "nan"], "--timeout"),
    (["selftest", "--timeout", "0"], "--timeout"),
    (["selftest", "--timeout", "-5"], "--timeout"),
]


def test_usage_errors_exit_2_everywhere(run_cli: RunCli, tmp_path: Path) -> None:
    for args, names in USAGE_ERRORS:
        proc = (
            run_cli(*args, "--data-dir", tmp_path)
            if args[0] in ("play", "history")
            else (run_cli(*args, timeout=60))
        )
        assert proc.returncode == 2, (args, proc.stderr)
        assert "Traceback" not in proc.stderr
        assert names in proc.stderr, (args, proc.stderr)
        assert "board boots" not in proc.stderr + proc.stdout, args  # nothing was started
    listed = run_cli("history", "--json", "--data-dir", tmp_path)
    assert listed.stdout.strip() == "[]"  # and no game was saved


def test_timeouts_follow_one_rule(run_cli: RunCli) -> None:
    """The same value is accepted or refused by every command with a --timeout. (Each run
    waits PORT_WAIT_S for the device to appear, as for a Pico that is resetting: the four
    wait side by side.)"""
    from concurrent.futures import ThreadPoolExecutor

    runs = [(cmd, value) for value in ("0.5", "3") for cmd in ("monitor", "selftest")]

    def run(cmd: str, value: str) -> subprocess.CompletedProcess[str]:
        return run_cli(cmd, "--timeout", value, "--port", "/dev/nonexistent", timeout=60)

    with ThreadPoolExecutor(len(runs)) as pool:
        procs = list(pool.map(lambda r: run(*r), runs))
    for (cmd, value), proc in zip(runs, procs, strict=True):
        assert proc.returncode == 1, (cmd, value, proc.stderr)  # past parsing: no device
        assert "/dev/nonexistent" in proc.stderr, proc.stderr


def test_monitor_describes_every_event_in_words() -> None:
    """Issue 19: `stray` was printed raw (`stray: cards=1, n=None, player=None`), and a
    reboot of a protocol-2 firmware as `protocol 1` (the bare hello's answer)."""
    from unolaunch.commands.monitor import describe_event

    boot = {"event": "boot", "firmware": "0.1.0", "protocol": 1, "protocol_max": 2}
    boot |= {"board": "unix-sim", "config_status": "ok", "mode": "standalone"}
    assert "protocol 2," in describe_event(boot | {"reset_cause": "reset"})
    assert describe_event(boot | {"reset_cause": "reset"}).endswith("after reset")
    stray = describe_event({"event": "stray", "cards": 1, "n": 4, "player": "Ann"})
    assert stray == "stray: 1 card came out between bursts (Ann's, from press #4)"
    nobody = describe_event({"event": "stray", "cards": 2, "n": None, "player": None})
    assert nobody == "stray: 2 cards came out between bursts (no press yet)"
    for ev in (
        {"event": "tested", "part": "led", "ms": 300, "completed": True},
        {"event": "heartbeat", "state": "armed", "player": "Bob", "owed": 2},
    ):
        text = describe_event(ev)
        assert "=" not in text and text.startswith(ev["event"] + ": "), text
