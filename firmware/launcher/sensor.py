# The optional IR break-beam card sensor at the launcher's mouth. A card blocks the beam
# while it leaves; the beam clearing again means one card is out. Motor brush noise on the
# sensor wire makes glitches of microseconds, so a level counts only once it has held for
# min_ms (edges.Settled): a card is counted when the beam has been blocked for min_ms and
# then clear for min_ms. A card blocks the beam for tens of milliseconds; a glitch shorter
# than min_ms never counts, and a flicker inside a card's passage never counts it twice.
# The beam's edges come timestamped from a hard pin IRQ into a ring allocated once
# (launcher/edges.py), so a card passing while the loop is busy is still counted; the pin is
# also read at every poll (a board without the IRQ; a resync if noise ever filled the ring).
from launcher.edges import Settled, follow


class Sensor:
    """Counts cards passing the beam. `pin`: a machine.Pin input; poll(now_us) every loop
    iteration with time.ticks_us(); `edges`: the EdgeLog its IRQ fills with ticks_us times
    (board.watch), or None."""

    def __init__(self, pin, blocked_value=0, min_ms=2, edges=None):
        self.pin = pin
        self.blocked_value = blocked_value
        self.min_us = min_ms * 1000
        self.edges = edges
        self.count = 0  # cards seen since boot
        self._f = Settled(self.min_us)  # the beam's settled state: True while blocked
        self._on_change = self._changed  # bound once: a bound method per poll is garbage

    def poll(self, now_us):
        f = self._f
        f.hold = self.min_us
        raw = self.pin.value() == self.blocked_value
        log = self.edges
        if raw == f.raw and raw == f.state and (log is None or log.idx[0] == log.idx[1]):
            return  # the usual case, made cheap: no new edge, no level waiting to settle
        if log is not None:
            follow(log, f, now_us, self._on_change, self.blocked_value)
            if log.next() >= 0:
                return  # the pin was read after the clock: a later edge tells the rest
        f.edge(now_us, raw)
        if f.settle(now_us):
            self._changed()

    def _changed(self):
        if not self._f.state:
            self.count += 1  # blocked, then clear: one card out
        return False  # every change in the log counts now

    def blocked(self):
        """True while something is in the beam (a card, or a stuck card: a jam)."""
        return self._f.state
