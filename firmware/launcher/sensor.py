# The optional IR break-beam card sensor at the launcher's mouth. A card blocks the beam
# while it leaves; the beam clearing again means one card is out. Motor brush noise on the
# sensor wire makes glitches of microseconds, so the pin is sampled every loop iteration
# (about every millisecond; no interrupt, so no interrupt queue to overflow) and a level
# counts only once two samples at least min_ms apart have both read it: a card is counted
# when the beam has been blocked for min_ms and then clear for min_ms. A card blocks the
# beam for tens of milliseconds; a glitch shorter than min_ms never counts, and a flicker
# inside a card's passage never counts it twice.
from launcher.ticks import ticks_diff


class Sensor:
    """Counts cards passing the beam. `pin`: a machine.Pin input; poll(now_us) every loop
    iteration with time.ticks_us()."""

    def __init__(self, pin, blocked_value=0, min_ms=2):
        self.pin = pin
        self.blocked_value = blocked_value
        self.min_us = min_ms * 1000
        self.count = 0  # cards seen since boot
        self.state = False  # the beam's settled state: True while blocked
        self._raw = False  # the last sample
        self._since = 0  # when the last sample's level was first seen (ticks_us)

    def poll(self, now_us):
        raw = self.pin.value() == self.blocked_value
        if raw != self._raw:
            self._raw = raw
            self._since = now_us
        elif raw != self.state and ticks_diff(now_us, self._since) >= self.min_us:
            self.state = raw
            if not raw:
                self.count += 1

    def blocked(self):
        """True while something is in the beam (a card, or a stuck card: a jam)."""
        return self.state
