# The launcher's push button: pull-up wiring (pressed reads 0), debounced. A press must stay
# stable for debounce_ms before it counts, so contact bounce never makes two presses. Its
# edges come timestamped from a hard pin IRQ (launcher/edges.py) where the board gives one,
# so a press is told by when its edges happened however late the loop looks; the pin is also
# read at every poll (a board without the IRQ, and a resync if the edge ring ever filled).
from launcher.edges import Settled, follow

DOWN = 1
UP = 2


class Button:
    """A debounced button. `pin` is anything with value() -> 0/1 (a machine.Pin); `edges`:
    the EdgeLog its IRQ fills with ticks_ms times (board.on_edge calls edge()), or None."""

    def __init__(self, pin, debounce_ms=20, pressed_value=0, edges=None):
        self.pin = pin
        self.debounce_ms = debounce_ms
        self.pressed_value = pressed_value
        self.edges = edges
        self.down = False  # the debounced state
        self.changed_at = 0  # when the debounced state last changed (ticks_ms)
        self._raw = False  # the undebounced level last seen
        self._f = None  # the debounce (edges.Settled), from the first poll on
        self._event = 0
        self._on_change = self._changed  # bound once: a bound method per poll is garbage
        # issue 32: the motor started at the end of the debounce, from a timer's hard IRQ
        # (not when the loop next looks): `timer` (a machine.Timer, `one_shot` its ONE_SHOT
        # mode: board.one_shot) is armed for debounce_ms at each edge; when it fires with
        # the contact still closed and `go` set by the loop (a press now starts a burst:
        # Launcher.press_plan), it calls on_down()
        self.timer = None
        self.one_shot = 0
        self.go = False
        self.on_down = None
        self._fired = self._timer_fired  # bound once: the IRQ may not allocate

    def edge(self, t, level):
        """An edge of the contact at `t` (ticks_ms), from its hard IRQ: logged for the
        loop's debounce, and the debounce's timer started again (allocates nothing)."""
        self.edges.record(t, level)
        timer = self.timer
        if timer is not None:
            timer.init(mode=self.one_shot, period=self.debounce_ms, callback=self._fired, hard=True)

    def _timer_fired(self, _t):
        if (
            self.go
            and not self.down
            and self.pin.value() == self.pressed_value
            and self.on_down is not None
        ):
            self.go = False
            self.on_down()

    def raw(self):
        """The undebounced level: True while the contact is closed."""
        return self.pin.value() == self.pressed_value

    def poll(self, now):
        """Return DOWN or UP when the debounced state changes, else 0 (one change per call:
        a later one stays for the next call).

        The event's time (changed_at) is when the new level began (its edge, or the sample
        that first saw it), not when the debounce time ran out."""
        raw = self.pin.value() == self.pressed_value  # (self.raw(): a call more, 50 us on rp2)
        f = self._f
        if f is None:
            # the level at start-up is the state, not an event (a held button is safe mode)
            self._f = Settled(self.debounce_ms, raw, now)
            self.down = self._raw = raw
            self.changed_at = now
            log = self.edges
            while log is not None and log.next() >= 0:
                log.pop()
            return 0
        log = self.edges
        if raw == f.raw and raw == f.state and (log is None or log.idx[0] == log.idx[1]):
            return 0  # the usual case, made cheap: no new edge, no level waiting to settle
        f.hold = self.debounce_ms
        self._event = 0
        if log is not None and (
            not follow(log, f, now, self._on_change, self.pressed_value) or log.next() >= 0
        ):
            # an edge logged after `now` may be what the sample read (it was read after
            # the clock): the edges tell it with their own times, next poll
            self._raw = f.raw
            return self._event
        f.edge(now, raw)
        self._raw = f.raw
        if f.settle(now):
            self._changed()
        return self._event

    def _changed(self):
        f = self._f
        assert f is not None  # set by the first poll, before any change
        self.down = f.state
        self.changed_at = f.since
        self._event = DOWN if f.state else UP
        return True  # one event per poll
