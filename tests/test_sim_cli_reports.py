"""What `unolaunch sim` tells its user (issue 20): a burst's brake reported as a brake (it
said "motor on (reverse)" / "motor off" after every burst), and every stdin command in its
help."""

from __future__ import annotations

import io
from typing import Any

from unolaunch.commands.sim import _Reporter
from unolaunch.sim.board.physics import WIRING, Launcher


def _burst_then_brake(reverse_after: bool = False) -> list[dict[str, Any]]:
    """The hardware reports of a burst as the firmware drives the pins (motor.py): a ramp
    up, the brake (IN2 high, then IN1 high), then coast (IN1 low first, then IN2)."""
    reports: list[dict[str, Any]] = []
    model = Launcher(10, True, reports.append, lambda pin, level: None)
    a, b = WIRING["motor_a"], WIRING["motor_b"]
    for duty in (0.2, 0.5, 0.8):
        model.set_drive(a, duty, 20000)
    model.set_drive(b, 1.0, 20000)
    model.set_drive(a, 1.0, 20000)
    model.set_drive(a, 0.0, 20000)
    if reverse_after:  # the self-test's reverse pulse straight after: it is reported
        model.set_drive(b, 0.3, 20000)
    model.set_drive(b, 0.0, 20000)
    return reports


def _said(reports: list[dict[str, Any]]) -> list[str]:
    out = io.StringIO()
    reporter = _Reporter(out)
    for ev in reports:
        reporter(ev)
    return [line.split("] ", 1)[1] for line in out.getvalue().splitlines()]


def test_a_burst_ends_with_a_brake_not_a_reverse_run() -> None:
    reports = _burst_then_brake()
    assert any(ev.get("brake") for ev in reports)
    assert _said(reports) == ["motor on (forward)", "motor brake", "motor off"]


def test_a_real_reverse_run_after_the_brake_is_still_reported() -> None:
    said = _said(_burst_then_brake(reverse_after=True))
    assert said[:2] == ["motor on (forward)", "motor brake"]
    assert "motor on (reverse)" in said


def test_sim_help_lists_every_stdin_command() -> None:
    """Issue 20: `sim --help` lists every command standard input takes."""
    import re

    from unolaunch.commands.sim import COMMANDS_HELP, DESCRIPTION

    block = DESCRIPTION.split("Standard input takes", 1)[1].split("At the end of input", 1)[0]
    listed = COMMANDS_HELP.split(":", 1)[1].replace("(also:", ",").replace(")", "")
    commands = [c.strip() for c in listed.split(",") if c.strip()]
    assert len(commands) >= 15
    for cmd in commands:
        phrase = " ".join(w for w in cmd.split() if w.islower())
        assert re.search(r"(^|\s)" + re.escape(phrase) + r"\b", block, re.M), cmd
