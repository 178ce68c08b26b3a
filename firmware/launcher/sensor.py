# The optional IR break-beam card sensor at the launcher's mouth. A card blocks the beam
# while it leaves; the beam clearing again means one card is out. Motor brush noise on the
# sensor wire makes glitches of microseconds.
#
# Issue 32: the card is counted AT the edge that clears the beam, in the pin's hard IRQ
# (board.on_edge: Sensor.edge runs the moment the edge happens, in the middle of a long
# write or a garbage collection, and allocates nothing), and when that card is the last of a
# burst the IRQ brakes the motor then and there (on_stop, `stop_at`): the brake lands within
# microseconds of the last card, not when the loop next looks. The filter, in ticks_us:
#   - a card is a block held for min_ms (sensor_min_ms): a shorter block (a glitch, brush
#     noise) never counts, however many;
#   - it counts at the first clear edge after that, at once (no clear hold: waiting for the
#     beam to stay clear is what made the brake late);
#   - after a counted card, a new card can begin only once the beam has been clear for
#     min_ms: a flicker of "clear" inside a card's passage counts the card at the flicker
#     (early, never twice: the rest of the card is that card's), and what follows within
#     min_ms of it, blocks and clears, is the same card.
# A board without pin IRQs (or a test) feeds the loop's samples in as edges (poll): then a
# level lasts only as long as two samples prove it.
from launcher.ticks import ticks_diff

# The level's state is an array of C longs (a tick value needs a long on the unix port),
# indexed by number (names would be globals, RAM on a Pico): st[0] 1 while the beam is
# blocked (the last level seen), st[1] when that level began (ticks_us), st[2] the last time
# it was seen to hold (an edge: its time; a sample: the sample's), st[3] 1 once a new card
# may begin (the beam clear for min_us since the last card), st[4] the loop's last look
# (ticks_us, written by the loop only). The IRQ writes only these and
# two attributes made in __init__ (count, stop_at), so it allocates nothing.


class Sensor:
    """Counts cards passing the beam. `pin`: a machine.Pin input; `now_us`: ticks_us now;
    `irq`: True once a
    hard IRQ calls edge() on each of the pin's edges (board.on_edge), else poll(now_us) feeds
    the loop's samples in. `on_stop()`: called (in the IRQ, or in poll) when the count
    reaches `stop_at` - the launcher brakes the motor there."""

    def __init__(self, pin, blocked_value=0, min_ms=2, now_us=0):
        from array import array

        self.pin = pin
        self.blocked_value = blocked_value
        self.min_us = min_ms * 1000
        self.irq = False
        self.on_stop = None
        self.count = 0  # cards seen since boot
        self.stop_at = -1  # the count at which on_stop() is called (-1: none)
        # the level at `now_us` is where counting starts (a card already in the beam at
        # boot counts when it leaves, as any card)
        blocked = 1 if pin.value() == blocked_value else 0
        self.st = array("l", [blocked, now_us, now_us, 1, now_us])

    def edge(self, t, level, until=-1):
        """The beam's pin read `level` at ticks_us `t` (from a hard IRQ: allocates nothing).
        `until`: the last time the old level was seen (a sample's; -1: an edge's, `t`)."""
        blocked = 1 if level == self.blocked_value else 0
        st = self.st
        if blocked == st[0]:
            st[2] = t
            return
        held = ticks_diff(t if until < 0 else until, st[1])  # how long the old level was proven
        st[0] = blocked
        st[1] = t
        st[2] = t
        if blocked:
            if not st[3] and held >= self.min_us:
                st[3] = 1  # clear long enough since the last card: a new one may begin
            return
        if st[3] and held >= self.min_us:
            st[3] = 0
            n = self.count + 1
            self.count = n  # blocked for min_us, now clear: one card out
            if n == self.stop_at:
                self.stop_at = -1
                stop = self.on_stop
                if stop is not None:
                    stop()

    def poll(self, now_us):
        """Every loop iteration, with time.ticks_us(): the pin's sample (without an IRQ, the
        sensor's only input). The pin is read either way: the unix board's mechanics let a
        card move on only once the firmware has looked at the beam."""
        level = self.pin.value()
        st = self.st
        st[4] = now_us
        if not self.irq:
            self.edge(now_us, level, st[2])

    def blocked(self):
        """True while something is in the beam (a card, or a stuck card: a jam): blocked
        for min_ms at least by the loop's last look."""
        st = self.st
        return bool(st[0]) and ticks_diff(st[4], st[1]) >= self.min_us
