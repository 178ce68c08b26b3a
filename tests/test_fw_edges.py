"""Issue 20: the button and the beam told by their IRQ-timestamped edges (launcher/edges.py),
under CPython with fake pins: whatever the loop was doing between two polls, a press or a card
is judged by when its edges happened."""

from __future__ import annotations

import random

import pytest
from fw_fakes import FakePin
from launcher.button import DOWN, UP, Button
from launcher.edges import EdgeLog
from launcher.sensor import Sensor

BIG = 3 << 31  # tick values past 32 bits: the unix port's 64-bit ticks (a bug found this way)


def pressed(pin: FakePin, log: EdgeLog, t: int, level: int) -> None:
    """The contact changes at ``t``: the pin's level, and the edge its IRQ logs."""
    pin.level = level
    log.record(t, level)


@pytest.mark.parametrize("base", [0, BIG], ids=["small-ticks", "big-ticks"])
def test_a_press_made_while_the_loop_was_busy_is_counted_with_its_own_time(base: int) -> None:
    pin, log = FakePin(1), EdgeLog()
    b = Button(pin, debounce_ms=20, edges=log)
    b.poll(base)
    # a 30 ms press with contact bounce, all of it during a 200 ms busy stretch
    for t, level in [(10, 0), (11, 1), (12, 0), (42, 1), (43, 0), (44, 1)]:
        pressed(pin, log, base + t, level)
    events = [(b.poll(base + 200), b.changed_at - base), (b.poll(base + 201), b.changed_at - base)]
    assert events == [(DOWN, 12), (UP, 44)]
    assert [b.poll(base + t) for t in range(202, 260)] == [0] * 58


def test_a_bounce_shorter_than_debounce_in_the_log_is_no_press() -> None:
    pin, log = FakePin(1), EdgeLog()
    b = Button(pin, debounce_ms=20, edges=log)
    b.poll(0)
    pressed(pin, log, 5, 0)
    pressed(pin, log, 19, 1)  # 14 ms: contact noise, not a press
    assert [b.poll(t) for t in range(100, 140)] == [0] * 40


def test_a_full_ring_loses_edges_but_the_sample_resyncs() -> None:
    pin, log = FakePin(1), EdgeLog(size=4)
    b = Button(pin, debounce_ms=20, edges=log)
    b.poll(0)
    for i in range(20):  # noise far faster than the loop reads: the ring fills
        pressed(pin, log, 1 + i, i % 2)
    assert log.lost() > 0
    pressed(pin, log, 30, 0)  # then held: the press is still seen, from the pin's sample
    got = [b.poll(t) for t in range(40, 120)]
    assert got.count(DOWN) == 1 and got.count(UP) == 0


@pytest.mark.parametrize("seed", range(20))
@pytest.mark.parametrize("base", [0, BIG], ids=["small-ticks", "big-ticks"])
def test_sensor_counts_every_card_and_no_glitch_however_late_the_loop_polls(
    seed: int, base: int
) -> None:
    rng = random.Random(seed)
    pin, log = FakePin(1), EdgeLog(size=64)
    s = Sensor(pin, blocked_value=0, min_ms=2, edges=log)
    t, cards = base, 0
    polls = []
    for _ in range(30):
        t += rng.randrange(3_000, 40_000)
        if rng.random() < 0.5:  # a card: blocked for tens of ms
            pressed(pin, log, t, 0)
            t += rng.randrange(20_000, 60_000)
            pressed(pin, log, t, 1)
            cards += 1
        else:  # a glitch of microseconds (motor noise)
            pressed(pin, log, t, 0)
            t += rng.randrange(1, 1_500)
            pressed(pin, log, t, 1)
        if rng.random() < 0.3:  # the loop looks now and then, at most 200 ms late
            polls.append(t + rng.randrange(0, 200_000))
            s.poll(polls[-1])
            t = max(t, polls[-1])
    s.poll(t + 10_000)
    assert s.count == cards and not s.blocked()


class _EdgeDuringRead(FakePin):
    """A pin whose contact changes while the loop reads it, after the loop read its clock:
    the edge's IRQ logs it with a time later than the poll's ``now`` (on the unix board the
    mechanics step at the read; on a chip the IRQ can fire between the two reads)."""

    def __init__(self, log: EdgeLog, level: int) -> None:
        super().__init__(level)
        self.log = log
        self.pending: tuple[int, int] | None = None

    def value(self, v: int | None = None) -> int | None:
        if v is None and self.pending is not None:
            t, level = self.pending
            self.pending = None
            pressed(self, self.log, t, level)
        return super().value(v)


@pytest.mark.parametrize("base", [0, BIG], ids=["small-ticks", "big-ticks"])
@pytest.mark.parametrize("release_ms", [1, 5, 20, 60])
def test_a_release_between_the_loops_clock_and_its_read_of_the_pin_keeps_the_press(
    base: int, release_ms: int
) -> None:
    """The sample is read after the poll's ``now``: a release logged later than ``now``
    must not cut the press short at ``now`` (it lost a 30 ms press on a loaded machine)."""
    log = EdgeLog()
    pin = _EdgeDuringRead(log, 1)
    b = Button(pin, debounce_ms=20, edges=log)
    b.poll(base)
    pressed(pin, log, base + 10, 0)  # down at 10
    pin.pending = (base + 25 + release_ms + 15, 1)  # up while poll(25) reads the pin
    got = [b.poll(base + 25)] + [b.poll(base + t) for t in range(100, 200)]
    assert got.count(DOWN) == 1 and got.count(UP) == 1, got


@pytest.mark.parametrize("base", [0, BIG], ids=["small-ticks", "big-ticks"])
def test_a_card_clearing_the_beam_between_the_loops_clock_and_its_read_is_counted(
    base: int,
) -> None:
    log = EdgeLog(size=64)
    pin = _EdgeDuringRead(log, 1)
    s = Sensor(pin, blocked_value=0, min_ms=2, edges=log)
    s.poll(base)
    pressed(pin, log, base + 1_000, 0)  # a card enters the beam
    pin.pending = (base + 30_000, 1)  # and leaves it while poll(1500) reads the pin
    s.poll(base + 1_500)
    for t in range(40_000, 60_000, 1_000):
        s.poll(base + t)
    assert s.count == 1 and not s.blocked()
