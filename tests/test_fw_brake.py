"""Issue 14, fault 3: the roller coasted after every burst and could flick out a card that
belonged to no burst. The firmware now brakes (both H-bridge inputs high for ``brake_ms``,
then coast) and reports a card the sensor sees between bursts as a ``stray`` event for the
player of the last burst, so a host can credit it.

CPython tests of the logic (fw_fakes), the whole firmware on the unix board (fw_harness), and
both simulated boards for what the rp2 port itself does with the PWM (board_harness).
"""

from __future__ import annotations

import subprocess
import sys
import time

import pytest
from board_harness import Link, board_params, start_board
from fw_fakes import FakePWM, FakeSensor
from fw_harness import Firmware
from launcher import config
from launcher.motor import Motor
from test_fw_logic import Rig

FULL = 65535


# -- the motor ---------------------------------------------------------------------------


def test_a_stop_brakes_both_inputs_high_for_brake_ms_then_coasts() -> None:
    a, b = FakePWM(), FakePWM()
    m = Motor(a, b)
    m.configure(dict(config.DEFAULTS, brake_ms=40))
    m.start(0)
    for t in range(0, 200):
        m.tick(t)
    m.brake(200)
    assert (a.duty, b.duty) == (FULL, FULL)  # DRV8833/TB6612: IN1 = IN2 = high is a brake
    assert not m.running
    m.tick(239)
    assert (a.duty, b.duty) == (FULL, FULL)
    m.tick(240)
    assert (a.duty, b.duty) == (0, 0)  # then coast: the H-bridge draws nothing at rest
    m.tick(300)
    assert (a.duty, b.duty) == (0, 0)


def test_brake_ms_zero_coasts_at_once_and_a_motor_at_rest_is_not_braked() -> None:
    a, b = FakePWM(), FakePWM()
    m = Motor(a, b)
    m.configure(dict(config.DEFAULTS, brake_ms=0))
    m.start(0)
    m.brake(100)
    assert (a.duty, b.duty) == (0, 0)
    m.configure(dict(config.DEFAULTS, brake_ms=50))
    b.history.clear()
    m.brake(200)  # the motor was not running: nothing to brake
    assert FULL not in b.history


def test_a_new_burst_during_the_brake_drives_forward_again() -> None:
    a, b = FakePWM(), FakePWM()
    m = Motor(a, b)
    m.configure(dict(config.DEFAULTS, brake_ms=50, ramp_ms=0))
    m.start(0)
    m.brake(100)
    m.start(110)
    assert b.duty == 0 and a.duty > 0 and m.running
    m.tick(200)  # the old brake's end must not stop the new burst
    assert a.duty > 0 and m.running


def test_every_way_a_burst_ends_brakes_the_roller() -> None:
    for end in ("cards", "stop", "jam", "burst_max"):
        rig = Rig(brake_ms=30, jam_ms=200, burst_max_ms=400)
        rig.req("fire", mode="exact", cards=3)
        if end == "cards":
            rig.run(300, cards_every=50)
        elif end == "stop":
            rig.run(60)
            rig.req("stop")
        elif end == "jam":
            assert isinstance(rig.sensor, FakeSensor)
            rig.sensor.is_blocked = True
            rig.run(300)
        else:
            rig.run(100, cards_every=60)
            rig.l.cfg["jam_ms"] = 10000
            rig.l.motor.burst_max_ms = 400
            rig.run(400, cards_every=1000)
        assert FULL in rig.pwm_b.history, end  # both inputs went high: a brake
        rig.run(100)
        assert (rig.pwm_a.duty, rig.pwm_b.duty) == (0, 0), end


# -- cards between bursts ----------------------------------------------------------------


def test_a_card_between_bursts_is_a_stray_for_the_last_bursts_player() -> None:
    rig = Rig()
    rig.req("arm", player="Ann", presses=1, mode="exact", cards=2)
    rig.l.on_press(rig.t)
    rig.run(500, cards_every=100)
    assert rig.events("eject")[-1]["cards"] == 2
    assert isinstance(rig.sensor, FakeSensor)
    rig.sensor.count += 1  # the coasting roller (or a hand) brought one more out
    rig.run(5)
    stray = rig.events("stray")
    assert len(stray) == 1
    assert (stray[0]["cards"], stray[0]["player"], stray[0]["n"]) == (1, "Ann", 1)
    assert rig.req("status")["cards_out"] == 3  # every card that left, strays included
    rig.run(100)
    assert len(rig.events("stray")) == 1  # counted once


def test_a_burst_that_overshoots_reports_the_extra_card_as_a_stray() -> None:
    rig = Rig()
    rig.req("fire", mode="exact", cards=2)
    rig.run(150, cards_every=100)
    assert isinstance(rig.sensor, FakeSensor)
    rig.sensor.count += 2  # two cards in one loop iteration: the second is not the burst's
    rig.run(2)
    assert rig.events("eject")[-1]["cards"] == 2
    rig.run(2)
    stray = rig.events("stray")
    assert [(s["cards"], s["player"], s["n"]) for s in stray] == [(1, None, None)]


def test_a_card_pulled_out_of_a_jam_is_the_jammed_players() -> None:
    rig = Rig(jam_ms=200)
    rig.req("arm", player="Dee", presses=1, mode="exact", cards=3)
    rig.l.on_press(rig.t)
    assert isinstance(rig.sensor, FakeSensor)
    rig.sensor.is_blocked = True
    rig.run(400)
    assert rig.events("fault")[-1]["code"] == "jam"
    rig.sensor.is_blocked = False
    rig.sensor.count += 1  # the stuck card leaves the beam as it is pulled out
    rig.run(3)
    assert [(s["cards"], s["player"]) for s in rig.events("stray")] == [(1, "Dee")]


def test_brake_ms_is_a_documented_live_setting() -> None:
    assert config.DEFAULTS["brake_ms"] == 50
    assert config.merged(config.DEFAULTS, {"brake_ms": 0})[0] is not None
    assert config.merged(config.DEFAULTS, {"brake_ms": 501})[0] is None
    assert "brake_ms" not in config.RESTART_KEYS


# -- the whole firmware on the unix board ------------------------------------------------


def test_unix_board_reports_a_card_between_bursts_to_the_last_player() -> None:
    with Firmware(cards=40) as fw:
        fw.wait_event("boot")
        fw.request("arm", player="Ann", presses=1, mode="exact", cards=2)
        fw.control("press")
        assert fw.wait_event("eject")["cards"] == 2
        fw.wait_event("done")
        time.sleep(0.2)
        fw.control("beam block")  # a card that coasted out is pulled through the beam
        time.sleep(0.1)
        fw.control("beam clear")
        stray = fw.wait_event("stray")
        assert (stray["cards"], stray["player"], stray["n"]) == (1, "Ann", 1)
        assert fw.request("status")["cards_out"] == 3


# -- what the rp2 port does with both channels of the motor's PWM slice -------------------

BRAKE_SNIPPET = (
    "from launcher import board\n"
    "from launcher.motor import Motor\n"
    "m = Motor(board.pwm(16, 20000), board.pwm(17, 20000))\n"
    "m.brake_ms = 50\n"
    "m.start(0)\n"
    "m.tick(200)\n"
    "print('run', m.pwm_a.duty_u16() > 0, m.pwm_b.duty_u16())\n"
    "m.brake(200)\n"
    "print('brake', m.pwm_a.duty_u16(), m.pwm_b.duty_u16())\n"
    "m.tick(250)\n"
    "print('coast', m.pwm_a.duty_u16(), m.pwm_b.duty_u16())\n"
)


@pytest.mark.timeout(240)
@pytest.mark.parametrize("board", board_params())
def test_both_motor_inputs_go_high_together_on_the_board(board: str) -> None:
    """GP16 and GP17 are the two channels of PWM slice 0: full duty on both is a brake."""
    sim = start_board(board)
    try:
        link = Link(sim)
        try:
            link.hello(timeout=60)  # the launcher runs; mpremote takes the board over
        finally:
            link.close()
        out = _mpremote(sim.port, BRAKE_SNIPPET)
        assert out.returncode == 0, out.stderr
        lines = out.stdout.replace("\r\n", "\n").strip().splitlines()
        assert lines == ["run True 0", f"brake {FULL} {FULL}", "coast 0 0"], out.stdout
    finally:
        sim.close()


def _mpremote(port: str, code: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "mpremote", "connect", port, "exec", code],
        capture_output=True,
        text=True,
        timeout=120,
    )
