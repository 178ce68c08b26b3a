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


def beam(pin: FakePin, s: Sensor, t: int, level: int) -> None:
    """The beam changes at ``t``: the pin's level, and the sensor's edge() its IRQ calls
    (issue 32: the beam's IRQ runs the filter itself, no ring between)."""
    pin.level = level
    s.edge(t, level)


@pytest.mark.parametrize("seed", range(20))
@pytest.mark.parametrize("base", [0, BIG], ids=["small-ticks", "big-ticks"])
def test_sensor_counts_every_card_and_no_glitch_however_late_the_loop_polls(
    seed: int, base: int
) -> None:
    """Each card counted at the edge that clears the beam, with that edge's time (the IRQ's
    on_stop then, never the loop's poll), glitches never; the loop's polls change nothing."""
    rng = random.Random(seed)
    pin = FakePin(1)
    s = Sensor(pin, blocked_value=0, min_ms=2, now_us=base)
    s.irq = True
    t, cards = base, 0
    polls = []
    stops: list[int] = []
    s.on_stop = lambda: stops.append(t)
    for _ in range(30):
        t += rng.randrange(3_000, 40_000)
        if rng.random() < 0.5:  # a card: blocked for tens of ms
            beam(pin, s, t, 0)
            t += rng.randrange(20_000, 60_000)
            s.stop_at = cards + 1
            beam(pin, s, t, 1)
            cards += 1
            assert s.count == cards and stops[-1] == t  # at the edge, not at a poll
        else:  # a glitch of microseconds (motor noise)
            beam(pin, s, t, 0)
            t += rng.randrange(1, 1_500)
            beam(pin, s, t, 1)
        if rng.random() < 0.3:  # the loop looks now and then, at most 200 ms late
            polls.append(t + rng.randrange(0, 200_000))
            s.poll(polls[-1])
            t = max(t, polls[-1])
    s.poll(t + 10_000)
    assert s.count == cards == len(stops) and not s.blocked()


@pytest.mark.parametrize("base", [0, BIG], ids=["small-ticks", "big-ticks"])
def test_a_flicker_inside_a_card_counts_it_at_the_flicker_and_never_twice(base: int) -> None:
    """Issue 32's filter: no hold on the clear (it made the brake 2-3 ms late), so a clear
    flicker inside a card's passage counts the card then; what follows within min_ms of the
    counted clear, blocks and flickers, is the same card. A gap of min_ms or more before the
    next block is a new card's."""
    pin = FakePin(1)
    s = Sensor(pin, blocked_value=0, min_ms=2, now_us=base)
    s.irq = True
    for t, level in [(1_000, 0), (9_000, 1), (9_050, 0), (12_000, 1), (12_100, 0), (30_000, 1)]:
        beam(pin, s, base + t, level)
    assert s.count == 1  # counted at 9 ms: the rest (to 30 ms) was the same card
    beam(pin, s, base + 31_999, 0)  # 1.999 ms after a clear that counted nothing: still it
    beam(pin, s, base + 40_000, 1)
    assert s.count == 1
    beam(pin, s, base + 43_000, 0)  # clear 3 ms: a new card
    beam(pin, s, base + 44_999, 1)  # blocked 1.999 ms: a glitch, not a card
    beam(pin, s, base + 45_000, 0)  # (the glitch does not use up the gap before it)
    beam(pin, s, base + 50_000, 1)
    assert s.count == 2


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
def test_a_card_clearing_the_beam_while_the_loop_reads_it_is_counted(base: int) -> None:
    """The beam's IRQ fires in the middle of the loop's poll: counted by the IRQ, once."""
    pin = FakePin(1)
    s = Sensor(pin, blocked_value=0, min_ms=2, now_us=base)
    s.irq = True
    beam(pin, s, base + 1_000, 0)  # a card enters the beam
    s.poll(base + 1_500)
    assert not s.blocked()  # (blocked, not yet for min_ms)
    s.poll(base + 20_000)
    assert s.blocked()
    real = pin.value

    def read(v: int | None = None) -> int | None:
        beam(pin, s, base + 30_000, 1)  # the card leaves while poll(29_900) reads the pin
        pin.value = real  # type: ignore[method-assign]
        return real(v)

    pin.value = read  # type: ignore[method-assign]
    s.poll(base + 29_900)
    for t in range(40_000, 60_000, 1_000):
        s.poll(base + t)
    assert s.count == 1 and not s.blocked()


class FakeOneShot:
    """A machine.Timer as the button's IRQ arms it (board.one_shot): one pending one-shot
    callback, armed again at each edge."""

    def __init__(self) -> None:
        self.due: tuple[int, object] | None = None
        self.now = 0

    def init(self, mode: int, period: int, callback: object, hard: bool) -> None:
        assert mode == 7 and hard  # the mode handed in (board: Timer.ONE_SHOT), in the IRQ
        self.due = (self.now + period, callback)

    def run_until(self, t: int) -> None:
        if self.due is not None and self.due[0] <= t:
            fn, self.due = self.due[1], None
            self.now = t
            fn(self)  # type: ignore[operator]


def test_the_debounce_timer_starts_the_motor_only_for_a_settled_press_the_loop_allowed() -> None:
    """Issue 32: at each edge the button's IRQ arms a one-shot timer for debounce_ms; when it
    fires with the contact still closed, the button still up for the loop and `go` set (a
    press now runs a burst), it calls on_down (the motor starts) once; bounces re-arm it, a
    release or a loop that said no start nothing."""
    pin, timer = FakePin(1), FakeOneShot()
    b = Button(pin, debounce_ms=20, edges=EdgeLog())
    b.poll(0)
    b.timer, b.one_shot = timer, 7  # type: ignore[assignment]
    started: list[int] = []
    b.on_down = lambda: started.append(timer.now)  # type: ignore[assignment]

    def contact(t: int, level: int) -> None:
        timer.run_until(t)
        timer.now = t
        pin.level = level
        b.edge(t, level)

    b.go = True
    for t, level in [(100, 0), (103, 1), (105, 0)]:  # a press with bounce
        contact(t, level)
    timer.run_until(124)
    assert started == []  # 19 ms after the last bounce: not yet
    timer.run_until(125)
    assert started == [125] and not b.go  # once: `go` is used up
    assert b.poll(130) == DOWN
    contact(200, 1)
    timer.run_until(300)
    assert started == [125]  # a release starts nothing
    assert b.poll(300) == UP
    b.go = True
    contact(400, 0)
    contact(410, 1)  # 10 ms: contact noise
    timer.run_until(500)
    assert started == [125]
    b.go = False  # the loop: a press now would run nothing (a foul, a blank)
    contact(600, 0)
    timer.run_until(700)
    assert started == [125]
