# The launcher's DC motor behind an H-bridge (DRV8833/TB6612-style IN1/IN2): PWM on IN1
# with IN2 low drives the roller forward, both high brakes it (the bridge shorts the motor),
# both low lets it coast. PWM runs above hearing (>= 20 kHz). A burst ends with a brake of
# brake_ms, then coast: a coasting roller would flick out a card after the burst. The duty
# ceiling and the burst-length limit are enforced here, in tick(), whatever the host or the
# launcher logic asks: a burst that runs too long stops itself.
from launcher.ticks import ticks_diff

ABS_MAX_BURST_MS = 10000  # no configuration lifts this
_STEPS = 8  # soft start in 8 duty steps (fewer PWM writes than one per millisecond)
_FULL = 65535  # duty_u16 of an input held high


class Motor:
    """`pwm_a`/`pwm_b` are machine.PWM objects (anything with duty_u16(int))."""

    def __init__(self, pwm_a, pwm_b, duty_pct=80, max_duty_pct=100, ramp_ms=80, burst_max_ms=5000):
        self.pwm_a = pwm_a
        self.pwm_b = pwm_b
        self.duty_pct = duty_pct
        self.max_duty_pct = max_duty_pct
        self.ramp_ms = ramp_ms
        self.burst_max_ms = burst_max_ms
        self.brake_ms = 50
        self.running = False
        self.braking = False
        self.started_at = 0
        self._brake_at = 0
        self._u16 = -1
        self._drive = pwm_a  # the input the PWM goes to: IN1 forward, IN2 reverse (self-test)
        self.off()

    def configure(self, cfg):
        self.duty_pct = cfg["motor_duty_pct"]
        self.max_duty_pct = cfg["motor_max_duty_pct"]
        self.ramp_ms = cfg["ramp_ms"]
        self.burst_max_ms = cfg["burst_max_ms"]
        self.brake_ms = cfg["brake_ms"]

    def _target_u16(self):
        pct = min(self.duty_pct, self.max_duty_pct, 100)
        return pct * 65535 // 100

    def _set(self, u16):
        if u16 != self._u16:
            self._u16 = u16
            self._drive.duty_u16(u16)
            if self.braking:
                # the sensor's IRQ braked the motor (the last card) while this step ran:
                # the brake holds, whatever the ramp wrote
                self.pwm_b.duty_u16(_FULL)
                self.pwm_a.duty_u16(_FULL)

    def off(self):
        """Motor off now (coast). Safe to call at any time, any number of times."""
        self.running = False
        self.braking = False
        self._u16 = 0
        # IN1 first: from a brake (both high) the bridge passes through (low, high) - a
        # reverse pulse of microseconds - never through forward drive
        self.pwm_a.duty_u16(0)
        self.pwm_b.duty_u16(0)

    def brake(self, now):
        """End a burst: both inputs high for brake_ms (tick() then lets it coast). A motor
        at rest, or brake_ms 0, just coasts; a brake already under way goes on."""
        if not self.running:
            if not self.braking:
                self.off()
            return
        if self.brake_ms <= 0:
            self.off()
            return
        self.running = False
        self.braking = True
        self._brake_at = now
        self._u16 = _FULL
        # IN2 first: between the two writes the bridge sees (duty, high), a weak reverse for
        # microseconds, never more forward drive than the running duty (IN1 first would be
        # full forward). On rp2 both land in the slice's double-buffered CC register, most
        # often in the same PWM period.
        self.pwm_b.duty_u16(_FULL)
        self.pwm_a.duty_u16(_FULL)

    def start(self, now, reverse=False):
        """Begin a burst: the duty ramps up over ramp_ms (soft start). `reverse` (the
        self-test only) drives IN2 with IN1 held low."""
        self._drive = self.pwm_b if reverse else self.pwm_a
        (self.pwm_a if reverse else self.pwm_b).duty_u16(0)
        self.braking = False
        self._u16 = -1
        self.running = True
        self.started_at = now
        self.tick(now)

    def elapsed(self, now):
        return ticks_diff(now, self.started_at) if self.running else 0

    def tick(self, now):
        """Advance the ramp, or end the brake. Returns False (and brakes the motor) once the
        burst has run longer than burst_max_ms (never more than ABS_MAX_BURST_MS)."""
        if not self.running:
            if self.braking and ticks_diff(now, self._brake_at) >= self.brake_ms:
                self.off()
            return True
        t = ticks_diff(now, self.started_at)
        if t >= min(self.burst_max_ms, ABS_MAX_BURST_MS):
            self.brake(now)
            return False
        target = self._target_u16()
        if self.ramp_ms and t < self.ramp_ms:
            step = t * _STEPS // self.ramp_ms + 1
            self._set(target * step // (_STEPS + 1))
        else:
            self._set(target)
        return True

    def duty(self):
        """The duty now, 0..1."""
        return self._u16 / 65535 if self.running else 0.0
