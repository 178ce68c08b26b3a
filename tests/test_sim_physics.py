"""The launcher's mechanics model (``unolaunch.sim.board.physics``), in CPython: the one
model both simulated boards run, so a fault here shows on both."""

from __future__ import annotations

from typing import Any

from unolaunch.sim.board import physics
from unolaunch.sim.rp2040 import Rp2040Launcher

BUTTON = physics.WIRING["button"]


def _launcher() -> tuple[Any, list[tuple[int, int, int]]]:
    """A model and the (time, pin, level) changes it makes."""
    changes: list[tuple[int, int, int]] = []
    model: Any = None

    def level(pin: int, value: int) -> None:
        changes.append((model.now_us, pin, value))

    model = physics.Launcher(40, True, lambda ev: None, level)
    return model, changes


def test_a_press_ordered_as_the_last_one_is_released_waits_the_gap() -> None:
    # A press that came at the very moment the previous one was released went down in the
    # same instant: the button was never seen up, and the two presses were one long press
    # (CI failed test_protocol_examples_answered_as_documented[rp2040] on it).
    model, changes = _launcher()
    model.command("press")
    release = model.release_at
    model.advance(release)
    assert not model.button_down
    model.command("press")
    assert not model.button_down, "the button must stay up between two presses"
    model.advance(release + physics.PRESS_GAP_MS * 1000)
    assert model.button_down
    downs = [t for t, pin, v in changes if pin == BUTTON and v == 0]
    ups = [t for t, pin, v in changes if pin == BUTTON and v == 1]
    assert downs == [0, release + physics.PRESS_GAP_MS * 1000] and ups == [release]


def test_a_press_soon_after_a_release_waits_out_the_rest_of_the_gap() -> None:
    model, _ = _launcher()
    model.command("press")
    release = model.release_at
    model.advance(release + 30_000)
    model.command("press")
    assert not model.button_down
    assert model.next_event_us() == release + physics.PRESS_GAP_MS * 1000
    model.advance(release + physics.PRESS_GAP_MS * 1000)
    assert model.button_down


def test_a_press_long_after_a_release_goes_down_at_once() -> None:
    model, _ = _launcher()
    model.command("press")
    release = model.release_at
    model.advance(release + physics.PRESS_GAP_MS * 1000)
    model.command("press")
    assert model.button_down


def test_the_emulated_chip_sees_the_release_between_two_presses() -> None:
    # The relay to the emulated RP2040 sends the levels that changed at a stop of the chip;
    # a release and a press at one stop reached the chip as one level: no release.
    sim = Rp2040Launcher(cards=40)
    sent: list[dict[str, Any]] = []
    sim._send = sent.append  # type: ignore[method-assign,assignment]
    sim._world = sim._make_world()
    sim._pending.append("press")
    sim._at(1000)
    sim._grant()
    release = sim._world.release_at
    sim._at(release - 500)
    sim._grant()
    sim._pending.append("press")  # ordered just as the chip stops at the release
    sim._at(release)
    sim._grant()
    while sim._world.next_event_us() is not None:
        sim._at(sim._world.next_event_us())
        sim._grant()
    levels = [m["pins"][str(BUTTON)] for m in sent if m["op"] == "in" and str(BUTTON) in m["pins"]]
    assert levels == [0, 1, 0, 1]


SENSOR = physics.WIRING["sensor"]


def _turning(track_reads: bool) -> tuple[Any, list[tuple[int, int, int]], list[dict[str, Any]]]:
    """A model with the roller at full duty: its pin changes and its reports."""
    changes: list[tuple[int, int, int]] = []
    reports: list[dict[str, Any]] = []
    model: Any = None

    def level(pin: int, value: int) -> None:
        changes.append((model.now_us, pin, value))

    model = physics.Launcher(40, True, reports.append, level, track_reads=track_reads)
    model.set_drive(physics.WIRING["motor_a"], 1.0)
    return model, changes, reports


def test_a_card_waits_at_the_beam_until_the_firmware_has_read_it() -> None:
    # The unix board's process descheduled for 300 ms with the roller turning: the model
    # keeps pace with the firmware's clock, but the card must not pass the beam unseen.
    model, changes, reports = _turning(track_reads=True)
    assert model.read(SENSOR) == 1  # the firmware polls the sensor
    model.advance(300_000)
    assert model.cards == 40 and not model.beam, "the card went into the beam unread"
    assert physics.BEAM_FROM - 0.01 < model.progress < physics.BEAM_FROM
    t = 300_000
    blocked_reads = []
    while model.cards == 40 and t < 1_000_000:
        t += 1000  # the firmware's loop, back: a sample a millisecond
        model.advance(t)
        if model.read(SENSOR) == 0:
            blocked_reads.append(t)
    assert model.cards == 39 and [v for _, pin, v in changes if pin == SENSOR] == [0, 1]
    # the firmware saw the card for the time the roller took to move it through the beam
    full_speed_us = (1 - physics.BEAM_FROM) / physics.MAX_CARDS_PER_S * 1e6
    assert blocked_reads[-1] - blocked_reads[0] >= full_speed_us - physics.READ_SLACK_US
    assert reports[-1] == {"hw": "card", "left": 39}


def test_without_a_reader_or_tracking_the_cards_keep_their_time() -> None:
    # Nobody reads the sensor (an open-loop configuration), or the emulated chip (its clock
    # stops with its host): 300 ms of roller at 12 cards/s is three cards either way.
    for track in (True, False):
        model, _, _ = _turning(track_reads=track)
        model.advance(300_000)
        assert model.cards == 37, track
    model, _, _ = _turning(track_reads=False)
    model.read(SENSOR)
    model.advance(300_000)
    assert model.cards == 37


def test_unjam_pulls_out_a_card_left_sticking_out_of_the_mouth() -> None:
    # The roller stopped with a card part way out, in the beam (a short motor pulse): the
    # person pulls it out, as they pull out a jammed card.
    model, _, reports = _turning(track_reads=False)
    t = 0
    while not model.beam:
        t += 1000
        model.advance(t)
    model.set_drive(physics.WIRING["motor_a"], 0.0)
    model.advance(t + 200_000)
    assert model.beam and model.cards == 40
    model.command("unjam")
    assert not model.beam and model.cards == 39 and model.progress == 0.0
    assert reports[-1] == {"hw": "card", "left": 39}
    model.command("unjam")  # nothing sticks out now: nothing changes
    assert model.cards == 39
