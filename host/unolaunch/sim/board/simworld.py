# The physical launcher behind the fake `machine` module (MicroPython code, runs inside the
# unix port next to the firmware). It models the board's wiring (default pin map), a button,
# a DC motor with inertia turning the eject roller, a magazine of cards, the IR beam at the
# mouth, an injectable jam, a buzzer, an LED and the watchdog.
#
# Control lines come in on UNOLAUNCH_SIM_CTL_FD, reports go out on UNOLAUNCH_SIM_HW_FD
# (CONTRACTS.md section 3). Time is real time (time.ticks_us): the firmware and the physics
# share one clock, as on a real board. The world advances whenever the firmware touches the
# fake hardware (reads a pin, feeds the watchdog, sets a PWM duty), which the firmware's main
# loop does every iteration.
import json
import os
import select
import sys
import time

# The launcher's wiring (the firmware's default pin map, CONTRACTS.md section 4).
WIRING = {"button": 15, "motor_a": 16, "motor_b": 17, "sensor": 14, "buzzer": 18, "led": 25}

MAX_CARDS_PER_S = 12.0  # roller speed at full duty
STALL_DUTY = 0.25  # below this duty the motor does not turn the roller
MOTOR_TAU_MS = 25.0  # the motor's speed time constant (inertia)
BEAM_FROM = 0.55  # a card blocks the beam from 55% of its way out until it leaves
UPDATE_US = 200  # physics resolution
PRESS_GAP_MS = 80  # queued presses are this far apart
UNREAD_PRESS_MS = 2000  # a press nobody reads at all is released after its time plus this


def _env_int(name, default):
    try:
        return int(os.getenv(name) or default)
    except ValueError:
        return default


def _env_seed():
    # the same range as the protocol's `seed` command: a seed S here and `seed S` agree
    try:
        return int(os.getenv("UNOLAUNCH_SIM_SEED") or "") & 0xFFFFFFFF
    except ValueError:
        return None  # unset (or not a number): the board's entropy, as on a real Pico


class World:
    def __init__(self):
        self.cards = _env_int("UNOLAUNCH_SIM_CARDS", 112)
        self.seed = _env_seed()  # machine.SIM_SEED: the firmware's pattern seed
        self.sensor_fitted = (os.getenv("UNOLAUNCH_SIM_SENSOR") or "1") != "0"
        self.ctl = None
        self.ctl_poll = None
        self.ctl_buf = b""
        fd = os.getenv("UNOLAUNCH_SIM_CTL_FD")
        if fd:
            self.ctl = open(int(fd), "rb")
            self.ctl_poll = select.poll()
            self.ctl_poll.register(self.ctl, select.POLLIN)
        self.hw = None
        fd = os.getenv("UNOLAUNCH_SIM_HW_FD")
        if fd:
            self.hw = open(int(fd), "wb")
        self.dead = False
        # the UART's wires (a firmware-test extension, not in CONTRACTS.md section 3):
        # bytes to the board's RX come in on one fd, its TX goes out on another
        self.uart_rx = None
        self.uart_rx_poll = None
        fd = os.getenv("UNOLAUNCH_SIM_UART_RX_FD")
        if fd:
            self.uart_rx = open(int(fd), "rb")
            self.uart_rx_poll = select.poll()
            self.uart_rx_poll.register(self.uart_rx, select.POLLIN)
        fd = os.getenv("UNOLAUNCH_SIM_UART_TX_FD")
        self.uart_tx = open(int(fd), "wb") if fd else None
        # hardware state
        self.drive = {}  # pin -> 0..1 (output level or PWM duty)
        self.pwm_freq = {}  # pin -> Hz of an active PWM
        self.irq_pins = {}  # pin number -> the fake Pin with an irq handler
        self.button_down = False
        self.release_at = None  # ticks_ms at which a `press` releases the button
        # A timed press is held until the firmware itself has read it down for its whole
        # duration: a unix process can be descheduled for longer than a press lasts, which
        # a Pico's loop never is, and a press it never saw would be lost.
        self.hold_ms = 0
        self.seen_from = None  # ticks_ms of the first read of the pressed button
        self.seen_last = None  # ticks_ms of the latest read of the pressed button
        self.presses = []  # queued `press` durations: a press during a press waits its turn
        self.next_press_at = None
        self.jammed = False
        self.beam_forced = False
        self.progress = 0.0  # how far the bottom card is out (0..1)
        self.speed = 0.0  # cards per second now
        self.motor = (0.0, 0)  # last reported (duty, dir)
        self.buzzer = 0
        self.led = None
        self.wdt_timeout = None
        self.wdt_fed = 0
        self.timers = []
        self.glitches = 0  # pin reads that will raise (control `glitch [N]`, firmware tests)
        self.last_us = time.ticks_us()
        self.last_ctl_ms = 0
        self.beam = self._beam()

    # -- reports ---------------------------------------------------------------
    def report(self, msg):
        if self.hw is not None and not self.dead:
            self.hw.write((json.dumps(msg) + "\n").encode())

    # -- levels the firmware reads ---------------------------------------------
    def _beam(self):
        """True while the beam is blocked."""
        if self.beam_forced or self.jammed:
            return True
        return self.cards > 0 and self.progress >= BEAM_FROM

    def input_level(self, pin, pull):
        if pin == WIRING["button"]:
            if self.button_down and self.release_at is not None:
                now = time.ticks_ms()
                if self.seen_from is None:
                    self.seen_from = now
                self.seen_last = now
            return 0 if self.button_down else 1
        if pin == WIRING["sensor"] and self.sensor_fitted:
            return 0 if self.beam else 1
        return 1 if pull == 1 else 0

    def _set_beam(self, blocked):
        if blocked == self.beam:
            return
        self.beam = blocked
        if self.sensor_fitted:
            self._edge(WIRING["sensor"], 0 if blocked else 1)

    def _set_button(self, down):
        if down == self.button_down:
            return
        self.button_down = down
        self._edge(WIRING["button"], 0 if down else 1)

    def _edge(self, pin, level):
        p = self.irq_pins.get(pin)
        if p is not None:
            p._fire(level)

    # -- outputs the firmware drives -------------------------------------------
    def set_drive(self, pin, value):
        self.drive[pin] = value
        if pin == WIRING["motor_a"] or pin == WIRING["motor_b"]:
            self.update()
            a = self.drive.get(WIRING["motor_a"], 0.0)
            b = self.drive.get(WIRING["motor_b"], 0.0)
            d = a - b
            state = (round(abs(d), 3), 1 if d > 0 else (-1 if d < 0 else 0))
            if state != self.motor:
                self.motor = state
                self.report({"hw": "motor", "duty": state[0], "dir": state[1]})
        elif pin == WIRING["buzzer"]:
            hz = self.pwm_freq.get(pin, 0) if value > 0 else 0
            if hz != self.buzzer:
                self.buzzer = hz
                self.report({"hw": "buzzer", "freq": hz})
        elif pin == WIRING["led"] or pin == "LED":
            on = value > 0
            if on != self.led:
                self.led = on
                self.report({"hw": "led", "on": on})

    # -- time ------------------------------------------------------------------
    def update(self):
        now_us = time.ticks_us()
        dt_us = time.ticks_diff(now_us, self.last_us)
        if dt_us < UPDATE_US:
            return
        self.last_us = now_us
        now = time.ticks_ms()
        if self.ctl_poll is not None and now != self.last_ctl_ms:
            self.last_ctl_ms = now
            self._read_ctl()
        if self.release_at is not None and self._press_done(now):
            self.release_at = None
            self._set_button(False)
            if self.presses:
                self.next_press_at = time.ticks_add(now, PRESS_GAP_MS)
        if self.next_press_at is not None and time.ticks_diff(now, self.next_press_at) >= 0:
            self.next_press_at = None
            self._press(self.presses.pop(0), now)
        self._physics(dt_us / 1000.0)
        if self.wdt_timeout is not None and time.ticks_diff(now, self.wdt_fed) > self.wdt_timeout:
            self.reset("wdt")
        for t in self.timers:
            t._due(now)

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

    # -- the control channel ---------------------------------------------------
    def _read_ctl(self):
        # one byte per poll: a pipe's read(n) waits for all n bytes
        while self.ctl_poll.poll(0):
            c = self.ctl.read(1)
            if not c:
                self.ctl_poll.unregister(self.ctl)
                self.ctl_poll = None
                break
            self.ctl_buf += c
        while b"\n" in self.ctl_buf:
            line, self.ctl_buf = self.ctl_buf.split(b"\n", 1)
            self.command(line.decode().strip())

    def _press(self, ms, now):
        self._set_button(True)
        self.release_at = time.ticks_add(now, ms)
        self.hold_ms = ms
        self.seen_from = self.seen_last = None

    def _press_done(self, now):
        if self.seen_from is None:  # nobody reads the button: release on time (with grace)
            return time.ticks_diff(now, self.release_at) >= UNREAD_PRESS_MS
        return time.ticks_diff(self.seen_last, self.seen_from) >= self.hold_ms

    def command(self, line):
        """Apply one control line (CONTRACTS.md section 3). Unknown lines are ignored."""
        words = line.split()
        if not words:
            return
        cmd = words[0]
        arg = words[1] if len(words) > 1 else None
        if cmd == "down":
            self.release_at = None
            self.presses = []
            self.next_press_at = None
            self._set_button(True)
        elif cmd == "up":
            self.release_at = None
            self.presses = []
            self.next_press_at = None
            self._set_button(False)
        elif cmd == "press":
            ms = 120
            if arg is not None:
                try:
                    ms = int(arg)
                except ValueError:
                    pass
            if self.release_at is not None or self.next_press_at is not None:
                self.presses.append(ms)  # still pressing: this press follows the last one
            else:
                self._press(ms, time.ticks_ms())
        elif cmd == "jam":
            if not self.jammed:
                self.jammed = True
                self.report({"hw": "jammed"})
                self._set_beam(True)
        elif cmd == "unjam":
            if self.jammed:
                self.jammed = False
                if self.cards > 0:
                    # the stuck card is pulled out by hand
                    self.cards -= 1
                    self.progress = 0.0
                    self.report({"hw": "card", "left": self.cards})
                self._set_beam(self._beam())
        elif cmd == "load" and arg is not None:
            try:
                self.cards = max(0, int(arg))
            except ValueError:
                return
            self.progress = 0.0
            self._set_beam(self._beam())
        elif cmd == "glitch":
            # not in CONTRACTS.md section 3: a firmware-test extension that makes the next
            # N pin reads raise OSError, to exercise the loop's handling of the unexpected
            try:
                self.glitches = int(arg) if arg is not None else 1
            except ValueError:
                return
        elif cmd == "beam" and arg in ("block", "clear"):
            self.beam_forced = arg == "block"
            self._set_beam(self._beam())

    # -- reset -----------------------------------------------------------------
    def reset(self, cause):
        """The board resets: report it and end the process (the runner restarts it)."""
        self.report({"hw": "reset", "cause": cause})
        self.dead = True
        self.wdt_timeout = None
        sys.exit(0)


WORLD = World()
