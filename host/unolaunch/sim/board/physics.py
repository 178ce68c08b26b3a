# The physical launcher: a button, a DC motor with inertia turning the eject roller, a
# magazine of cards, the IR beam at the mouth and an injectable jam. One model for both
# simulated boards: the unix board (simworld.py, inside MicroPython next to the firmware)
# and the emulated RP2040 (unolaunch.sim.rp2040, in CPython beside the emulator).
#
# Pure logic: no clock, no I/O. Time comes in as monotonic microseconds (`now_us`), the
# model's effects go out through two callbacks: report(dict) for hardware reports
# (docs/architecture.md §3) and level(pin, value) when a line the firmware reads changes.
# Runs unchanged under MicroPython and CPython.

# The launcher's wiring (the firmware's default pin map, docs/architecture.md §4).
WIRING = {"button": 15, "motor_a": 16, "motor_b": 17, "sensor": 14, "buzzer": 18, "led": 25}

MAX_CARDS_PER_S = 12.0  # roller speed at full duty
STALL_DUTY = 0.25  # below this duty the motor does not turn the roller
MOTOR_TAU_MS = 25.0  # the motor's speed time constant (inertia)
BEAM_FROM = 0.55  # a card blocks the beam from 55% of its way out until it leaves
UPDATE_US = 200  # physics resolution
PRESS_MS = 120  # a plain `press`
PRESS_GAP_MS = 80  # queued presses are this far apart
UNREAD_PRESS_MS = 2000  # a press nobody reads at all is released after its time plus this
READ_SLACK_US = 2000  # a beam state counts as seen when read over its time less this
UNREAD_BEAM_MS = 1000  # a beam state nobody reads is let go after its time plus this


class Launcher:
    """The launcher's mechanics. `track_reads` (the unix board, whose process a loaded
    machine deschedules while the firmware's clock, real time, runs on): a timed press lasts
    until the firmware has read the button down for its whole duration, and a card neither
    enters nor leaves the beam until the firmware has read the beam's state over the time
    the roller took to move the card through it, so the mechanics keep pace with the
    firmware's clock without shooting cards past a beam it was not there to sample. Without
    it (the emulated chip, whose clock stops with its host) both last their time."""

    def __init__(self, cards, sensor_fitted, report, level, track_reads=False):
        self.cards = cards
        self.sensor_fitted = sensor_fitted
        self.report = report
        self.level = level
        self.track_reads = track_reads
        self.now_us = 0
        self.button_down = False
        self.release_at = None  # us at which a `press` releases the button
        self.hold_us = 0
        self.seen_from = None  # us of the first read of the pressed button
        self.seen_last = None  # us of the latest read of the pressed button
        self.seen_us = 0  # watched before the last time the process was taken away
        self.presses = []  # queued `press` durations (ms): a press during a press waits
        self.next_press_at = None
        self.released_at = None  # us of the last release of a timed press
        self.jammed = False
        self.beam_forced = False
        self.progress = 0.0  # how far the bottom card is out (0..1)
        self.speed = 0.0  # cards per second now
        self.drive = {}  # pin -> 0..1 (output level or PWM duty)
        self.freq = {}  # pin -> Hz of an active PWM (0: a plain level)
        self.motor = (0.0, 0)  # last reported (duty, dir)
        self.braking = False  # both inputs high (reported with "brake": true)
        self.buzzer = 0
        self.led = None
        self.beam = self._beam()
        self.beam_since = 0  # us of the beam's last change
        self.beam_moved_us = 0.0  # roller time the cards moved since then
        self.beam_seen_from = None  # us of the first read of the beam's present state
        self.beam_seen_last = None
        self.beam_seen_us = 0  # watched of the beam's state before the process was away
        self.sensor_read = False  # the firmware reads the sensor at all

    # -- levels the firmware reads ---------------------------------------------
    def _beam(self):
        """True while the beam is blocked."""
        if self.beam_forced or self.jammed:
            return True
        return self.cards > 0 and self.progress >= BEAM_FROM

    def button_level(self):
        return 0 if self.button_down else 1

    def sensor_level(self):
        """The receiver's output (active low), or None if no sensor is fitted."""
        if not self.sensor_fitted:
            return None
        return 0 if self.beam else 1

    def read(self, pin):
        """The level of `pin` as the model drives it, or None if it drives nothing there.
        A read of the pressed button counts as the firmware having seen it."""
        if pin == WIRING["button"]:
            self._button_seen()
            return self.button_level()
        if pin == WIRING["sensor"]:
            if self.sensor_fitted:
                self.sensor_read = True
                self._beam_seen_now()
            return self.sensor_level()
        return None

    def present(self):
        """The firmware ran until now without reading its inputs (busy writing to USB, whose
        chip time the unix board charges it): for `track_reads` that time counts as if it
        had looked. A press or a card it was there for and did not watch is lost, as on a
        chip - only time the machine took the process away is made up for."""
        self._button_seen()
        if self.sensor_read:
            self._beam_seen_now()

    def away(self):
        """The process was descheduled in the middle of such time: the time it was away
        does not count as watched (a press or the beam's state lasts that much longer);
        what it watched before still counts (else a machine that takes the process away
        more often than a press lasts would hold the press for ever)."""
        if self.seen_from is not None:
            self.seen_us += self.seen_last - self.seen_from
            self.seen_from = self.seen_last = self.now_us
        if self.beam_seen_from is not None:
            self.beam_seen_us += self.beam_seen_last - self.beam_seen_from
            self.beam_seen_from = self.beam_seen_last = self.now_us

    def _button_seen(self):
        if self.button_down and self.release_at is not None:
            if self.seen_from is None:
                self.seen_from = self.now_us
            self.seen_last = self.now_us

    def _beam_seen_now(self):
        if self.beam_seen_from is None:
            self.beam_seen_from = self.now_us
        self.beam_seen_last = self.now_us

    def _set_beam(self, blocked):
        if blocked == self.beam:
            return
        self.beam = blocked
        self.beam_since = self.now_us
        self.beam_moved_us = 0.0
        self.beam_seen_from = self.beam_seen_last = None
        self.beam_seen_us = 0
        if self.sensor_fitted:
            self.level(WIRING["sensor"], 0 if blocked else 1)

    def _set_button(self, down):
        if down == self.button_down:
            return
        self.button_down = down
        self.level(WIRING["button"], 0 if down else 1)
        # a test knows from this when a queued press is over (the unix board may hold it
        # long past its time on a loaded machine: track_reads)
        self.report({"hw": "button", "down": down})

    # -- outputs the firmware drives -------------------------------------------
    def set_drive(self, pin, value, freq=0):
        """Output `pin` now drives `value` (0..1: a level or a PWM duty) at `freq` Hz."""
        self.drive[pin] = value
        self.freq[pin] = freq
        if pin == WIRING["motor_a"] or pin == WIRING["motor_b"]:
            a = self.drive.get(WIRING["motor_a"], 0.0)
            b = self.drive.get(WIRING["motor_b"], 0.0)
            d = a - b
            state = (round(abs(d), 3), 1 if d > 0 else (-1 if d < 0 else 0))
            brake = a > 0 and a == b  # both H-bridge inputs high: the motor is shorted
            if state != self.motor or brake != self.braking:
                self.motor = state
                self.braking = brake
                ev = {"hw": "motor", "duty": state[0], "dir": state[1]}
                if brake:
                    ev["brake"] = True
                self.report(ev)
        elif pin == WIRING["buzzer"]:
            hz = freq if value > 0 else 0
            if hz != self.buzzer:
                self.buzzer = hz
                self.report({"hw": "buzzer", "freq": hz})
        elif pin == WIRING["led"] or pin == "LED":
            on = value > 0
            if on != self.led:
                self.led = on
                self.report({"hw": "led", "on": on})

    # -- time ------------------------------------------------------------------
    def busy(self):
        """True while something moves: the caller should advance in small steps."""
        return self.speed > 0 or (self.motor[1] == 1 and self.motor[0] > STALL_DUTY)

    def next_event_us(self):
        """When the button changes next on its own (None: not before a command)."""
        t = None
        if self.release_at is not None:
            t = self.release_at
        if self.next_press_at is not None and (t is None or self.next_press_at < t):
            t = self.next_press_at
        return t

    def advance(self, now_us):
        """Run the mechanics up to `now_us` (monotonic microseconds)."""
        while now_us - self.now_us >= UPDATE_US:
            # step to the next button event at most, so a press lasts its time exactly
            step_to = now_us
            ev = self.next_event_us()
            if ev is not None and self.now_us < ev < step_to:
                step_to = ev
            dt_us = step_to - self.now_us
            self.now_us = step_to
            self._physics(dt_us / 1000.0)
            self._buttons()
        if now_us > self.now_us:
            self._buttons_at(now_us)

    def _buttons_at(self, now_us):
        # a button event due before the next physics step still happens on time
        ev = self.next_event_us()
        if ev is not None and ev <= now_us:
            self._physics((ev - self.now_us) / 1000.0)
            self.now_us = ev
            self._buttons()

    def _buttons(self):
        now = self.now_us
        if self.release_at is not None and self._press_done(now):
            self.release_at = None
            self.released_at = now
            self._set_button(False)
            if self.presses:
                self.next_press_at = now + PRESS_GAP_MS * 1000
        if self.next_press_at is not None and now >= self.next_press_at:
            self.next_press_at = None
            self._press(self.presses.pop(0), now)

    def _physics(self, dt_ms):
        duty, direction = self.motor
        target = 0.0
        if direction == 1 and duty > STALL_DUTY:
            target = MAX_CARDS_PER_S * (duty - STALL_DUTY) / (1 - STALL_DUTY)
        k = dt_ms / MOTOR_TAU_MS
        self.speed += (target - self.speed) * (k if k < 1 else 1)
        if self.speed < 0.01 and target == 0:
            self.speed = 0.0
        if self.jammed or self.cards <= 0 or self.speed <= 0:
            return
        move = self.speed * dt_ms / 1000.0
        while move > 0:
            step = move if move < 0.2 else 0.2  # at most one beam edge per step
            move -= step
            edge = (self.progress < BEAM_FROM) != (self.progress + step < BEAM_FROM) or (
                self.progress + step >= 1.0
            )
            if edge and not self._beam_seen():
                # the card waits at the edge until the firmware has sampled the beam
                self.progress = (BEAM_FROM if self.progress < BEAM_FROM else 1.0) - 1e-9
                break
            self.beam_moved_us += step / self.speed * 1e6
            self.progress += step
            if self.progress >= 1.0:
                self.progress -= 1.0
                self.cards -= 1
                self.report({"hw": "card", "left": self.cards})
                self._set_beam(self._beam())  # the card left: beam clears
                if self.cards <= 0:
                    self.progress = 0.0
                    break
            self._set_beam(self._beam())

    def _beam_seen(self):
        """May the beam change now: has the firmware read its present state over the time
        the cards took to move since it last changed? (Always, without `track_reads`, with
        the beam held by a jam or `beam block`, or when nobody reads the sensor.)"""
        if not self.track_reads or not self.sensor_read or self.beam_forced or self.jammed:
            return True
        if self.now_us - self.beam_since >= self.beam_moved_us + UNREAD_BEAM_MS * 1000:
            return True  # nobody is reading it now (a REPL, a stopped loop)
        if self.beam_seen_from is None:
            return False
        watched = self.beam_seen_us + self.beam_seen_last - self.beam_seen_from
        return watched >= self.beam_moved_us - READ_SLACK_US

    def _press(self, ms, now):
        self._set_button(True)
        self.release_at = now + ms * 1000
        self.hold_us = ms * 1000
        self.seen_from = self.seen_last = None
        self.seen_us = 0

    def _press_done(self, now):
        if not self.track_reads:
            return now >= self.release_at
        if self.seen_from is None:  # nobody reads the button: release on time (with grace)
            return now - self.release_at >= UNREAD_PRESS_MS * 1000
        return self.seen_us + self.seen_last - self.seen_from >= self.hold_us

    # -- the control channel ---------------------------------------------------
    def command(self, line):
        """Apply one control line (docs/architecture.md §3) at `now_us`. Returns False for a
        line the model does not know (the caller may know it)."""
        words = line.split()
        if not words:
            return True
        cmd = words[0]
        arg = words[1] if len(words) > 1 else None
        if cmd == "down" or cmd == "up":
            self.release_at = None
            self.presses = []
            self.next_press_at = None
            self._set_button(cmd == "down")
        elif cmd == "press":
            ms = PRESS_MS
            if arg is not None:
                try:
                    ms = int(arg)
                except ValueError:
                    pass
            gap_us = PRESS_GAP_MS * 1000
            if self.release_at is not None or self.next_press_at is not None:
                self.presses.append(ms)  # still pressing: this press follows the last one
            elif self.released_at is not None and self.now_us - self.released_at < gap_us:
                # just released: the button stays up for the gap first, or the firmware
                # (and the emulated chip, which gets levels at its stops) sees one press
                self.presses.append(ms)
                self.next_press_at = self.released_at + gap_us
            else:
                self._press(ms, self.now_us)
        elif cmd == "jam":
            if not self.jammed:
                self.jammed = True
                self.report({"hw": "jammed"})
                self._set_beam(True)
        elif cmd == "unjam":
            # the card path is cleared by hand: a stuck card, or one the roller left
            # sticking out of the mouth (in the beam), is pulled out
            stuck = self.jammed or (self.cards > 0 and self.progress >= BEAM_FROM)
            self.jammed = False
            if stuck and self.cards > 0:
                self.cards -= 1
                self.progress = 0.0
                self.report({"hw": "card", "left": self.cards})
            self._set_beam(self._beam())
        elif cmd == "load" and arg is not None:
            try:
                self.cards = max(0, int(arg))
            except ValueError:
                return True
            self.progress = 0.0
            self._set_beam(self._beam())
        elif cmd == "beam" and arg in ("block", "clear"):
            self.beam_forced = arg == "block"
            self._set_beam(self._beam())
        else:
            return False
        return True
