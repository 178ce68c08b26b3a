# Buzzer and LED feedback, both optional. A tiny non-blocking sequencer: each sound is a
# list of (buzzer_hz, led_on, ms) steps that tick() plays without ever sleeping.
from launcher.ticks import ticks_add, ticks_diff

READY = ((2700, 1, 60), (0, 0, 60), (3400, 1, 90), (0, 1, 0))
FAULT = ((400, 1, 250), (0, 0, 120), (400, 1, 250), (0, 0, 120), (300, 1, 500), (0, 0, 0))
SUSPENSE_STEP_MS = 150  # each blank press shortens the tick period by this much
SUSPENSE_MIN_MS = 120
SUSPENSE_FOR_MS = 4000  # suspense ticking lasts this long after a blank press


class Feedback:
    """`buzzer` is a machine.PWM (or None), `led` a machine.Pin (or None)."""

    def __init__(self, buzzer=None, led=None, beep_hz=2700, quiet=False):
        self.buzzer = buzzer
        self.led = led
        self.beep_hz = beep_hz
        self.quiet = quiet
        self._steps: tuple = ()
        self._i = 0
        self._step_at = 0
        self._hz = -1
        self._led = -1
        self._suspense_period = 0
        self._suspense_until = 0
        self._next_tick = 0
        self.fault_blink = False
        self.loud = False  # a self-test beep sounds even with `quiet`
        self._out(0, 0)

    def configure(self, cfg):
        self.beep_hz = cfg["beep_hz"]
        self.quiet = cfg["quiet"]

    def _out(self, hz, led):
        if self.quiet and not self.loud:
            hz = 0
        if self.buzzer is not None and hz != self._hz:
            if hz:
                self.buzzer.freq(hz)
                self.buzzer.duty_u16(32768)
            else:
                self.buzzer.duty_u16(0)
        self._hz = hz
        if self.led is not None and led != self._led:
            self.led.value(led)
        self._led = led

    def play(self, steps, now, loud=False):
        """Start a sound (replacing the one playing). A step of 0 ms ends the sound and
        leaves its buzzer/LED state in place. `loud`: sound even with `quiet` set."""
        self.loud = loud
        self._steps = steps
        self._i = 0
        self._step_at = now
        self._enter()

    def _enter(self):
        hz, led, ms = self._steps[self._i]
        self._out(hz, led)
        if not ms:
            self._steps = ()

    def ready(self, now):
        self.play(READY, now)

    def ding(self, now):
        self._suspense_until = now
        self._suspense_period = 0
        self.play(((self.beep_hz * 3 // 2, 1, 70), (0, 0, 0)), now)

    def suspense(self, blanks, now):
        """After a blank press: ticks that come faster with every blank in a row."""
        self._suspense_period = max(SUSPENSE_MIN_MS, 700 - SUSPENSE_STEP_MS * blanks)
        self._suspense_until = ticks_add(now, SUSPENSE_FOR_MS)
        self._next_tick = now

    def fault(self, now):
        self._suspense_period = 0
        self.fault_blink = True
        self.play(FAULT, now)

    def clear(self, now):
        self.fault_blink = False
        self._suspense_period = 0
        self.play(((0, 0, 0),), now)

    def pulses(self, buzzer, count, ms, now):
        """The self-test: `count` beeps (buzzer) or blinks (LED) of `ms` on, `ms` off."""
        on = (self.beep_hz, 0, ms) if buzzer else (0, 1, ms)
        self._suspense_period = 0
        self.fault_blink = False
        self.play((on, (0, 0, ms)) * count + ((0, 0, 0),), now, loud=buzzer)

    def off(self):
        """Silence and darken everything now (leaving the launcher loop)."""
        self._steps = ()
        self._suspense_period = 0
        self.fault_blink = False
        self._out(0, 0)

    def firing(self, on, now):
        """LED on while the motor runs (unless a sound is using it)."""
        if not self._steps:
            self._out(0, 1 if on else 0)

    def tick(self, now):
        steps = self._steps
        if steps:
            if ticks_diff(now, self._step_at) >= steps[self._i][2]:
                self._i += 1
                self._step_at = now
                if self._i >= len(steps):
                    self._steps = ()
                    self.loud = False
                else:
                    self._enter()
            return
        if self.fault_blink:
            # a slow blink while the fault lasts
            self._out(0, 1 if (now // 250) % 2 else 0)
            return
        if self._suspense_period and ticks_diff(self._suspense_until, now) > 0:
            if ticks_diff(now, self._next_tick) >= 0:
                self._next_tick = ticks_add(now, self._suspense_period)
                self.play(((self.beep_hz, 1, 25), (0, 0, 0)), now)
