# The launcher's push button: pull-up wiring (pressed reads 0), debounced by sampling.
# The main loop calls poll() every iteration (about once a millisecond); a press must stay
# stable for debounce_ms before it counts, so contact bounce never makes two presses.
from launcher.ticks import ticks_diff

DOWN = 1
UP = 2


class Button:
    """A debounced button. `pin` is anything with value() -> 0/1 (a machine.Pin)."""

    def __init__(self, pin, debounce_ms=20, pressed_value=0):
        self.pin = pin
        self.debounce_ms = debounce_ms
        self.pressed_value = pressed_value
        self.down = False  # the debounced state
        self.changed_at = 0  # when the debounced state last changed (ticks_ms)
        self._raw = False
        self._raw_since = 0
        self._primed = False

    def raw(self):
        """The undebounced level: True while the contact is closed."""
        return self.pin.value() == self.pressed_value

    def poll(self, now):
        """Sample the pin; return DOWN or UP when the debounced state changes, else 0.

        The event's time (changed_at) is when the new level was first seen, not when the
        debounce time ran out, so press timestamps are accurate to a loop iteration.
        """
        raw = self.raw()
        if not self._primed:
            # the level at start-up is the state, not an event (a held button is safe mode)
            self._primed = True
            self.down = self._raw = raw
            self._raw_since = self.changed_at = now
            return 0
        if raw != self._raw:
            self._raw = raw
            self._raw_since = now
            return 0
        if raw != self.down and ticks_diff(now, self._raw_since) >= self.debounce_ms:
            self.down = raw
            self.changed_at = self._raw_since
            return DOWN if raw else UP
        return 0
