"""Issue 14, fault 4: sensor noise counted as cards. Every edge of the beam counted (motor
brush noise on the sensor wire is a known problem of such builds), a glitch ended a burst
early, and edges beyond the rp2 port's soft-IRQ queue (8) were dropped. The sensor now
counts a card only once the beam has been blocked for ``sensor_min_ms`` (default 2 ms); since
issue 32 it counts it at the edge that clears the beam (in the pin's hard IRQ on a board),
and a new card begins only after the beam was clear for ``sensor_min_ms``.

CPython tests of the sensor and of a burst around it, the whole firmware on the unix board,
and a burst with glitches on both simulated boards.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import pytest
from board_harness import board_link, board_params
from fw_fakes import FakePin, FakePWM
from fw_harness import Firmware
from launcher import config
from launcher.feedback import Feedback
from launcher.launcher import Launcher
from launcher.motor import Motor
from launcher.pattern import Pattern, Rng
from launcher.sensor import Sensor

CLEAR, BLOCKED = 1, 0  # the receiver's output (active low), sensor_blocked_value 0


def run(
    sensor: Sensor,
    pin: FakePin,
    level_at: Callable[[int], int],
    until_us: int,
    step_us: int,
    start_us: int = 0,
) -> None:
    """Sample the pin every ``step_us`` as the loop does, the beam following ``level_at``."""
    for t in range(start_us, until_us, step_us):
        pin.level = level_at(t)
        sensor.poll(t)


def test_a_block_shorter_than_sensor_min_ms_never_counts() -> None:
    pin = FakePin(CLEAR)
    s = Sensor(pin, blocked_value=0, min_ms=2)
    # blocked for 1.5 ms every 10 ms, sampled every 250 us: seen blocked, never long enough
    run(s, pin, lambda t: BLOCKED if t % 10_000 < 1_500 else CLEAR, 200_000, 250)
    assert s.count == 0 and not s.blocked()


def test_a_card_counts_once_at_the_first_clear_edge_a_flicker_included() -> None:
    """Issue 32: a card counts at the edge that clears the beam (no clear hold: the brake of
    a burst's last card comes then). A flicker of "clear" inside the card counts it at the
    flicker; the rest of its passage (within sensor_min_ms of that clear) is the same card."""
    pin = FakePin(CLEAR)
    s = Sensor(pin, blocked_value=0, min_ms=2)

    # a card blocks 30 ms, with a 1 ms flicker of "clear" (noise) in the middle
    def beam(t: int) -> int:
        if 10_000 <= t < 40_000 and not 20_000 <= t < 21_000:
            return BLOCKED
        return CLEAR

    run(s, pin, beam, 20_000, 500)
    assert s.blocked() and s.count == 0
    run(s, pin, beam, 20_500, 500, start_us=20_000)
    assert s.count == 1  # at the flicker
    run(s, pin, beam, 39_000, 500, start_us=20_500)
    assert s.blocked() and s.count == 1
    run(s, pin, beam, 100_000, 500, start_us=39_000)
    assert s.count == 1 and not s.blocked()


def test_a_storm_of_edges_counts_nothing_however_many() -> None:
    pin = FakePin(CLEAR)
    s = Sensor(pin, blocked_value=0, min_ms=2)
    # 2000 edges: far past any interrupt queue
    run(s, pin, lambda t: BLOCKED if (t // 100) % 2 else CLEAR, 200_000, 70)
    assert s.count == 0


def test_one_blocked_sample_between_slow_samples_is_not_a_card() -> None:
    # the loop was slow: it saw the beam blocked once, 5 ms after and before clear samples;
    # a block is only as long as two samples prove it
    pin = FakePin(CLEAR)
    s = Sensor(pin, blocked_value=0, min_ms=2)
    for t, level in ((0, CLEAR), (5_000, BLOCKED), (10_000, CLEAR), (15_000, CLEAR)):
        pin.level = level
        s.poll(t)
    assert s.count == 0


def test_inverted_receiver_and_ticks_that_wrap() -> None:
    pin = FakePin(0)
    s = Sensor(pin, blocked_value=1, min_ms=2)
    start = (1 << 30) - 3_000  # ticks_us wraps at 2**30
    for i, level in enumerate([0, 1, 1, 1, 1, 0, 0, 0, 0]):
        pin.level = level
        s.poll((start + i * 1_000) % (1 << 30))
    assert s.count == 1


def test_sensor_min_ms_is_a_documented_live_setting() -> None:
    assert config.DEFAULTS["sensor_min_ms"] == 2
    assert config.merged(config.DEFAULTS, {"sensor_min_ms": 0})[0] is not None
    assert config.merged(config.DEFAULTS, {"sensor_min_ms": 51})[0] is None
    assert "sensor_min_ms" not in config.RESTART_KEYS


def test_glitches_during_a_burst_neither_count_nor_end_it_early() -> None:
    cfg = dict(config.DEFAULTS)
    pin = FakePin(CLEAR)
    sensor = Sensor(pin, blocked_value=0, min_ms=cfg["sensor_min_ms"])
    out: list[dict[str, Any]] = []
    launcher = Launcher(
        cfg,
        Motor(FakePWM(), FakePWM()),
        sensor,
        Feedback(None, None),
        Pattern(Rng(1)),
        out.append,
        {},
        0,
    )
    launcher.handle({"id": 1, "cmd": "fire", "mode": "exact", "cards": 3}, 0)

    def beam(t_us: int) -> int:
        ms = t_us // 1000
        if ms % 7 == 3 and t_us % 1000 < 300:  # brush noise: a 0.3 ms spike every 7 ms
            return BLOCKED
        if ms >= 100 and (ms - 100) % 100 < 40:  # real cards from 100 ms: 40 ms in the beam
            return BLOCKED
        return CLEAR

    t_us = 0
    while launcher.burst is not None and t_us < 2_000_000:
        t_us += 250
        pin.level = beam(t_us)
        sensor.poll(t_us)
        launcher.tick(t_us // 1000)
    eject = [e for e in out if e.get("event") == "eject"][-1]
    assert eject["cards"] == 3
    # the third card cleared the beam at 100 + 2*100 + 40 ms = 340 ms: counted then
    assert 340 <= eject["t"] <= 341, eject


# -- the whole firmware on the unix board ------------------------------------------------

GLITCHES = "\n".join(["beam block", "beam clear"] * 12)  # 24 edges in one instant


def card_reports(fw: Firmware) -> int:
    return len([h for h in fw.hw_events(0.05) if h["hw"] == "card"])


def test_unix_board_glitches_during_a_burst_do_not_end_it_early() -> None:
    with Firmware(cards=40) as fw:
        fw.wait_event("boot")
        fw.request("arm", player="Ann", presses=1, mode="exact", cards=4)
        fw.control("press")
        fw.wait_event("press")
        fw.control(GLITCHES)
        eject = fw.wait_event("eject")
        time.sleep(0.3)  # the roller stops
        assert eject["cards"] == 4
        assert card_reports(fw) == 4  # the magazine agrees: four cards really left


def test_unix_board_glitches_between_bursts_are_not_cards() -> None:
    with Firmware(cards=40) as fw:
        fw.wait_event("boot")
        fw.request("fire", mode="exact", cards=1)
        fw.wait_event("eject")
        time.sleep(0.2)
        fw.control(GLITCHES)
        time.sleep(0.3)
        assert [e for e in fw.drain(0.2) if e.get("event") == "stray"] == []
        assert fw.request("status")["cards_out"] == 1


# -- both boards: the rp2 port's own pin and timing ---------------------------------------


@pytest.mark.timeout(240)
@pytest.mark.parametrize("board", board_params())
def test_glitches_during_a_burst_on_the_board(board: str) -> None:
    """Glitches of a few ms (the control channel cannot make them shorter on the emulated
    chip) against sensor_min_ms 50: real cards at half duty block the beam for ~110 ms."""
    with board_link(board, cards=40) as fw:
        fw.hello(timeout=60)
        fw.request("config_set", config={"motor_duty_pct": 50, "sensor_min_ms": 50})
        fw.request("arm", player="Ann", presses=1, mode="exact", cards=3)
        fw.control("press")
        fw.wait_event("press", timeout=30)
        for _ in range(12):
            fw.control("beam block")
            time.sleep(0.003)
            fw.control("beam clear")
            time.sleep(0.01)
        eject = fw.wait_event("eject", timeout=60)
        assert eject["cards"] == 3
        time.sleep(0.5)
        assert fw.sim.cards == 37, eject  # three cards really left, no glitch among them
        assert not [e for e in fw.events if e["event"] == "stray"]
