"""What `unolaunch sim` tells its user (issue 20): a burst's brake reported as a brake (it
said "motor on (reverse)" / "motor off" after every burst), every stdin command in its
help, and the buzzer and the LED while a self-test drives them (without -v)."""

from __future__ import annotations

import io
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from board_harness import board_link, board_params
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


def test_the_buzzer_and_led_show_without_v_only_while_a_self_test_drives_them() -> None:
    """Issue 20 item 5: `unolaunch selftest` asks whether the buzzer beeped and the LED
    blinked; on the simulator the person sees that only in its reports, which left them out
    without -v."""
    beep = [{"hw": "buzzer", "freq": 2700}, {"hw": "buzzer", "freq": 0}]
    blink = [{"hw": "led", "on": True}, {"hw": "led", "on": False}]
    said = _said(
        [
            *beep,  # a press's beep at the table: not shown without -v
            {"hw": "selftest", "part": "buzzer"},
            *beep,
            *blink,  # (not the part under test)
            {"hw": "selftest", "part": None},
            {"hw": "selftest", "part": "led"},
            *blink,
            {"hw": "selftest", "part": None},
            *beep,
            *blink,
        ]
    )
    assert said == [
        "self-test: the firmware drives the buzzer",
        "buzzer 2700 Hz",
        "buzzer off",
        "self-test: the firmware drives the LED",
        "LED on",
        "LED off",
    ]


def test_a_self_test_that_silences_an_unseen_chime_says_no_lone_off() -> None:
    """Seen in CI: the boot's ready chime still sounded (not shown without -v) when a
    self-test began; the firmware silenced it first, and the person read "buzzer off" before
    any beep."""
    said = _said(
        [
            {"hw": "buzzer", "freq": 3400},  # the ready chime, not shown
            {"hw": "selftest", "part": "buzzer"},
            {"hw": "buzzer", "freq": 0},  # the self-test silences it
            {"hw": "buzzer", "freq": 2700},
            {"hw": "buzzer", "freq": 0},
            {"hw": "selftest", "part": None},
        ]
    )
    assert said == ["self-test: the firmware drives the buzzer", "buzzer 2700 Hz", "buzzer off"]


@pytest.mark.timeout(300)
@pytest.mark.parametrize("board", board_params())
def test_the_board_reports_a_self_test_part_from_request_to_tested_event(board: str) -> None:
    with board_link(board) as fw:
        fw.hello(timeout=60)
        # the boot's ready chime (2700 Hz, then 3400 Hz: feedback.READY) may still play
        # after hello on a loaded machine: its notes are not the self-test's
        last_note = {"hw": "buzzer", "freq": 3400}
        fw.sim.wait_hw(lambda ev: ev == last_note, timeout=30)
        after = fw.sim.hw_events().index(last_note) + 1
        fw.sim.wait_hw(lambda ev: ev == {"hw": "buzzer", "freq": 0}, timeout=30, start=after)
        start = len(fw.sim.hw_events())
        assert fw.request("test", part="buzzer", ms=60, count=2, timeout=30)["ok"]
        fw.wait_event("tested", timeout=60)
        fw.sim.wait_hw(lambda ev: ev == {"hw": "selftest", "part": None}, timeout=20)
        seen = [
            ev
            for ev in fw.sim.hw_events()[start:]
            if ev["hw"] == "selftest" or (ev["hw"] == "buzzer" and ev["freq"])
        ]
        assert seen == [
            {"hw": "selftest", "part": "buzzer"},
            *[{"hw": "buzzer", "freq": seen[1]["freq"]}] * 2,
            {"hw": "selftest", "part": None},
        ], seen


def test_sim_shows_a_self_tests_beeps_without_v(tmp_path: Path) -> None:
    """The whole path: `unolaunch sim` (no -v) on stderr while the firmware beeps for the
    self-test's `test`."""
    from conftest import cli_env
    from unolaunch.link import open_launcher

    proc = subprocess.Popen(
        [sys.executable, "-m", "unolaunch", "sim", "--flash-dir", str(tmp_path / "flash")],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=cli_env(),
    )
    assert proc.stdin is not None and proc.stdout is not None and proc.stderr is not None
    try:
        device = proc.stdout.readline().strip()
        with open_launcher(device, timeout=10) as client:
            # the boot's ready chime (feedback.READY, 210 ms from boot: its first note is
            # the self-test's 2700 Hz) is over first, or a beep that follows it straight on
            # is one long note (since issue 32 `hello` is answered well inside the chime)
            while client.request("status")["uptime_ms"] < 300:
                pass
            client.request("test", part="buzzer", ms=60, count=3)
            client.wait_for(lambda e: e.get("event") == "tested", timeout=20)
            client.request("test", part="led", ms=60, count=3)
            client.wait_for(lambda e: e.get("event") == "tested", timeout=20)
        proc.stdin.write("quit\n")
        proc.stdin.flush()
        assert proc.wait(timeout=20) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    err = proc.stderr.read()
    assert err.count("Hz") == 3 and err.count("buzzer off") == 3, err
    assert err.count("LED on") == 3 and err.count("LED off") == 3, err


def test_sim_help_says_which_flash_you_get(run_cli: Any) -> None:
    """Issue 20 item 5: the flash holds the firmware already unless --blank (a Pico fresh
    from MicroPython's .uf2), and `sim --help` says so."""
    out = run_cli("sim", "--help")
    assert out.returncode == 0, out.stderr
    text = " ".join(out.stdout.split())
    assert "Its flash holds the launcher firmware already" in text
    assert "--blank" in text and "fresh from MicroPython's .uf2" in text
