# The optional IR break-beam card sensor at the launcher's mouth. A card blocks the beam
# while it leaves; the beam clearing again means one card is out. Motor brush noise on the
# sensor wire makes glitches of microseconds.
#
# Issue 32: the card is counted AT the edge that clears the beam, in the pin's hard IRQ
# (board.watch_beam: Sensor.edge runs the moment the edge happens, in the middle of a long
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

# the level's state, in an array of C longs (a tick value needs a long on the unix port): the
# IRQ writes only these and three attributes made in __init__ (count, stop_at; min_us is
# read), so it allocates nothing
_RAW = 0  # 1 while the beam is blocked (the last level seen)
_SINCE = 1  # when `raw` began (ticks_us)
_SEEN = 2  # the last time `raw` was seen to hold (an edge: its time; a sample: the sample's)
_FREE = 3  # 1 once a new card may begin (the beam clear for min_us since the last card)


class Sensor:
    """Counts cards passing the beam. `pin`: a machine.Pin input; `now_us`: ticks_us now
    (the level then is where counting starts; None: at the first poll); `irq`: True once a
    hard IRQ calls edge() on each of the pin's edges (board.watch), else poll(now_us) feeds
    the loop's samples in. `on_stop()`: called (in the IRQ, or in poll) when the count
    reaches `stop_at` - the launcher brakes the motor there."""

    def __init__(self, pin, blocked_value=0, min_ms=2, now_us=None):
        from array import array

        self.pin = pin
        self.blocked_value = blocked_value
        self.min_us = min_ms * 1000
        self.irq = False
        self.on_stop = None
        self.count = 0  # cards seen since boot
        self.stop_at = -1  # the count at which on_stop() is called (-1: none)
        self.st = array("l", [0, 0, 0, 1])
        self._now = 0  # the loop's last look (ticks_us)
        self._fresh = True
        if now_us is not None:
            self.start(now_us)

    def start(self, now_us):
        """The level now is where counting starts (a card already in the beam at boot
        counts when it leaves, as any card)."""
        st = self.st
        st[_RAW] = 1 if self.pin.value() == self.blocked_value else 0
        st[_SINCE] = st[_SEEN] = now_us
        self._now = now_us
        self._fresh = False

    def edge(self, t, level):
        """The beam's pin read `level` at ticks_us `t` (from a hard IRQ: allocates nothing)."""
        self._level(t, 1 if level == self.blocked_value else 0, t)

    def _level(self, t, blocked, held_until):
        st = self.st
        if blocked == st[_RAW]:
            st[_SEEN] = t
            return
        held = ticks_diff(held_until, st[_SINCE])  # how long the old level was proven
        st[_RAW] = blocked
        st[_SINCE] = t
        st[_SEEN] = t
        if blocked:
            if not st[_FREE] and held >= self.min_us:
                st[_FREE] = 1  # clear long enough since the last card: a new one may begin
            return
        if st[_FREE] and held >= self.min_us:
            st[_FREE] = 0
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
        raw = self.pin.value() == self.blocked_value
        if self._fresh:
            self.start(now_us)
            return
        self._now = now_us
        if not self.irq:
            self._level(now_us, 1 if raw else 0, self.st[_SEEN])

    def blocked(self):
        """True while something is in the beam (a card, or a stuck card: a jam): blocked
        for min_ms at least by the loop's last look."""
        st = self.st
        return bool(st[_RAW]) and ticks_diff(self._now, st[_SINCE]) >= self.min_us
