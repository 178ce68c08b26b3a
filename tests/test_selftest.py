"""``unolaunch selftest`` against the simulated launcher: a person is played with pexpect
(answering the questions on a real terminal) and the simulator's control input (pressing the
button, pushing a card through the beam); the simulator's hardware reports show what the
self-test really drove (motor each way, buzzer, LED)."""

from __future__ import annotations

import io
import json
import re
import shutil
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pexpect
import pytest
from conftest import RunCli, cli_env
from unolaunch import firmware_dir
from unolaunch.sim import SimulatedLauncher


@pytest.fixture
def flashed(tmp_path: Path) -> Path:
    """A simulated board's flash holding the firmware (and, per test, a launcher.json)."""
    flash = tmp_path / "flash"
    shutil.copytree(firmware_dir(), flash, ignore=shutil.ignore_patterns("__pycache__"))
    return flash


@pytest.fixture
def sim(flashed: Path) -> Iterator[SimulatedLauncher]:
    with SimulatedLauncher(flash_dir=flashed) as launcher:
        yield launcher


def spawn(port: str, *args: str) -> pexpect.spawn:
    """The self-test on a real terminal (a pty), its whole output kept in ``logfile_read``."""
    child = pexpect.spawn(
        sys.executable,
        ["-m", "unolaunch", "selftest", "--port", port, *args],
        env=cli_env({"NO_COLOR": "1"}),
        encoding="utf-8",
        timeout=60,
        dimensions=(50, 250),
    )
    child.logfile_read = io.StringIO()
    return child


def finish(child: pexpect.spawn) -> tuple[str, int]:
    child.expect(pexpect.EOF)
    child.close()
    log = child.logfile_read
    assert isinstance(log, io.StringIO)
    return re.sub(r"\x1b\[[0-9;]*m", "", log.getvalue()), int(child.exitstatus or 0)


def push_card(sim: SimulatedLauncher) -> None:
    time.sleep(0.4)
    sim.control("beam block")
    time.sleep(0.3)
    sim.control("beam clear")


def press(sim: SimulatedLauncher) -> None:
    time.sleep(0.4)
    sim.control("press")


def test_every_item_passes_on_a_good_launcher(sim: SimulatedLauncher) -> None:
    start = len(sim.hw_events())
    child = spawn(sim.port)
    child.expect("Did the roller turn forward")
    events = sim.hw_events()[start:]
    reverse_at = len(sim.hw_events())
    child.sendline("y")
    child.expect("Did the roller turn reverse")
    child.sendline("y")
    child.expect("push a card")
    push_card(sim)
    child.expect("press the launcher's button now")
    button_at = len(sim.hw_events())
    press(sim)
    child.expect(r"Did you hear three beeps\?")
    beeps = [e for e in sim.hw_events()[button_at:] if e["hw"] == "buzzer" and e["freq"]]
    child.sendline("y")
    child.expect(r"Did the LED blink three times\?")
    child.sendline("y")
    out, status = finish(child)
    assert status == 0, out
    assert "summary: 9 passed, 0 failed, 0 skipped - all good" in out
    for item in ("motor reverse", "card sensor", "button", "buzzer", "LED", "restart"):
        assert re.search(rf"PASS\s+{item}", out), item

    # The forward pulse drove IN1 only (dir 1), the reverse one IN2 only (dir -1).
    motor = [e for e in events if e["hw"] == "motor"]
    assert any(e["dir"] == 1 and e["duty"] > 0 for e in motor)
    assert all(e["dir"] in (0, 1) for e in motor)
    assert motor[-1]["duty"] == 0  # and stopped again
    reverse = [e for e in sim.hw_events()[reverse_at:] if e["hw"] == "motor"]
    assert any(e["dir"] == -1 and e["duty"] > 0 for e in reverse)
    assert [e["freq"] for e in beeps] == [2700, 2700, 2700]  # three beeps at beep_hz


def test_failures_and_missing_parts_are_reported_with_what_to_check(
    flashed: Path,
) -> None:
    # A launcher without sensor and buzzer (config), whose roller does not reverse (the
    # person says so), and nobody presses the button.
    (flashed / "launcher.json").write_text(json.dumps({"sensor_pin": None, "buzzer_pin": None}))
    with SimulatedLauncher(flash_dir=flashed) as sim:
        child = spawn(sim.port, "--timeout", "2")
        child.expect("Did the roller turn forward")
        child.sendline("y")
        child.expect("Did the roller turn reverse")
        child.sendline("n")
        child.expect(r"Did the LED blink three times\?")
        child.sendline("y")
        out, status = finish(child)
    assert status == 1
    assert re.search(r"FAIL\s+motor reverse\s+the roller did not turn \(GP17 drives", out)
    assert "a one-direction MOSFET build cannot reverse" in out
    assert re.search(r"SKIP\s+card sensor\s+no sensor configured", out)
    assert re.search(r"SKIP\s+buzzer\s+no buzzer configured", out)
    assert re.search(r"FAIL\s+button\s+no press seen on GP15", out)
    assert "summary: 5 passed, 2 failed, 2 skipped (failed: motor reverse, button)" in out


def test_yes_skips_the_questions_but_not_the_actions(sim: SimulatedLauncher) -> None:
    child = spawn(sim.port, "--yes", "--timeout", "3", "--forward-only")
    child.expect("Motor forward")
    sim.control("beam block")  # a card stuck in the beam: caught before the sensor test
    child.expect("Button: press")
    press(sim)
    out, status = finish(child)
    assert status == 1
    assert "??" not in out  # no question asked
    assert re.search(r"PASS\s+motor forward\s+pulse sent \(not confirmed: --yes\)", out)
    assert re.search(r"SKIP\s+motor reverse\s+a one-direction build", out)
    assert re.search(r"FAIL\s+card sensor\s+the beam reads blocked with nothing in it", out)
    assert re.search(r"PASS\s+button", out)
    assert re.search(r"PASS\s+LED\s+signal sent", out)


def test_a_board_without_the_firmware_is_told_to_flash(run_cli: RunCli, tmp_path: Path) -> None:
    flash = tmp_path / "flash"
    flash.mkdir()
    (flash / "notes.txt").write_text("MicroPython only\n")
    with SimulatedLauncher(flash_dir=flash) as sim:
        proc = run_cli("selftest", "--port", sim.port, "--yes", timeout=90)
    assert proc.returncode == 1
    assert re.search(r"FAIL\s+firmware\s+no answer to hello", proc.stdout)
    assert "unplug and replug the launcher" in proc.stdout
    assert re.search(
        r"FAIL\s+firmware files\s+the launcher firmware is not on this board", proc.stdout
    )
    assert "run 'unolaunch flash'" in proc.stdout
    assert "Traceback" not in proc.stderr


def test_without_a_terminal_and_without_yes_it_says_how_to_run(
    run_cli: RunCli, sim: SimulatedLauncher
) -> None:
    proc = run_cli("selftest", "--port", sim.port, input="")
    assert proc.returncode == 2
    assert "needs your answers" in proc.stderr and "--yes" in proc.stderr
    # The board was handed back: the launcher answers again.
    from unolaunch.flash import hello

    assert hello(sim.port)["protocol"] == 1


def test_no_board(run_cli: RunCli, tmp_path: Path) -> None:
    proc = run_cli("selftest", "--port", str(tmp_path / "ttyACM7"))
    assert proc.returncode == 1
    assert proc.stderr.startswith("unolaunch: no serial device ")
