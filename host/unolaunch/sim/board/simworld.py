# The unix board's world: the physical launcher (physics.py, shared with the emulated
# RP2040 board) behind the fake `machine` module (MicroPython code, runs inside the unix port
# next to the firmware), plus what the unix board needs on top: the control and report
# channels, the watchdog, timers and the UART's wires.
#
# Control lines come in on UNOLAUNCH_SIM_CTL_FD, reports go out on UNOLAUNCH_SIM_HW_FD
# (docs/architecture.md §3). Time is real time (time.ticks_us): the firmware and the physics
# share one clock, as on a real board. The world advances whenever the firmware touches the
# fake hardware (reads a pin, feeds the watchdog, sets a PWM duty), which the firmware's main
# loop does every iteration.
import json
import os
import select
import sys
import time

from physics import UPDATE_US, WIRING, Launcher


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


CHARGE_GAP_US = 500  # a busy wait's turn longer than this: the process was descheduled


class World:
    def __init__(self):
        self.seed = _env_seed()  # machine.SIM_SEED: the firmware's pattern seed
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
        # the UART's wires (a firmware-test extension, not in docs/architecture.md §3):
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
        self.pwm_freq = {}  # pin -> Hz of an active PWM
        self.sched = []  # scheduled soft-IRQ handlers (machine.SCHED_DEPTH at most)
        self.sched_lost = 0
        self.in_sched = False
        # the last hard reset: "power_on", "reset" or "wdt" (the runner says)
        self.reset_cause = os.getenv("UNOLAUNCH_SIM_RESET_CAUSE") or "power_on"
        # the watchdog's REASON, SCRATCH0, SCRATCH1 (+ SCRATCH1 as uptime, and whether it
        # was written) as the runner kept them; a hard boot restarted the chip's clock
        regs = os.getenv("UNOLAUNCH_SIM_WDT_REGS") or "0,0,0,0,0"
        self.wdt_regs = [int(v) for v in regs.split(",")]
        self.hard_boot = os.getenv("UNOLAUNCH_SIM_BOOT") != "soft"
        self.irq_pins = {}  # pin number -> the fake Pin with an irq handler
        self.wdt_timeout = None
        self.wdt_fed = 0
        self.timers = []
        self.glitches = 0  # pin reads that will raise (control `glitch [N]`, firmware tests)
        # chip time a USB write costs on the rp2 port (machine.sim_usb_write), 0: none
        self.usb_write_us = _env_int("UNOLAUNCH_SIM_USB_WRITE_US", 0)
        self.last_us = time.ticks_us()
        # Interrupts as a chip takes them: an edge the mechanics make inside an update (or
        # while a handler runs, or with interrupts disabled) is latched, and its handler
        # runs once the update is over - never in the middle of one, where a handler's pin
        # read would start another update that takes the next queued control while the last
        # is half applied (two queued presses merged into one: the never-deaf flake)
        self.updating = False
        self.in_irq = False
        self.irq_off = 0  # machine.disable_irq() depth
        self.latched = []  # (pin, level) edges waiting for their handler
        self.now_us = 0  # monotonic microseconds since start (ticks_us wraps)
        self.last_ctl_ms = 0
        self.launcher = Launcher(
            _env_int("UNOLAUNCH_SIM_CARDS", 112),
            (os.getenv("UNOLAUNCH_SIM_SENSOR") or "1") != "0",
            self.report,
            self._edge,
            track_reads=True,
        )

    # -- reports ---------------------------------------------------------------
    def report(self, msg):
        if self.hw is not None and not self.dead:
            self.hw.write((json.dumps(msg) + "\n").encode())

    # -- levels the firmware reads ---------------------------------------------
    def input_level(self, pin, pull):
        level = self.launcher.read(pin)
        if level is not None:
            return level
        return 1 if pull == 1 else 0

    def _edge(self, pin, level):
        if pin in self.irq_pins:
            self.latched.append((pin, level))
            if not self.updating:
                self.deliver()

    def deliver(self):
        """Run what the chip latched: pin edges' handlers in order, then due timers and
        scheduled soft handlers. Not from inside an update, a handler or a section with
        interrupts off: edges raised there wait, as the chip keeps them pending."""
        if self.updating or self.in_irq or self.irq_off:
            return
        self.in_irq = True
        try:
            while self.latched:
                pin, level = self.latched.pop(0)
                p = self.irq_pins.get(pin)
                if p is not None:
                    p._fire(level)
            if self.timers:
                now = time.ticks_ms()
                for t in self.timers:
                    t._due(now)
        finally:
            self.in_irq = False
        self.run_scheduled()

    # -- outputs the firmware drives -------------------------------------------
    def set_drive(self, pin, value):
        if pin == WIRING["motor_a"] or pin == WIRING["motor_b"]:
            self.update()  # the roller turned at the old drive until now
        self.launcher.set_drive(pin, value, self.pwm_freq.get(pin, 0))

    # -- time ------------------------------------------------------------------
    def update(self):
        if self.updating:
            return  # (the world's own steps touch no pin; kept safe anyway)
        now_us = time.ticks_us()
        dt_us = time.ticks_diff(now_us, self.last_us)
        if dt_us >= UPDATE_US:
            self.updating = True
            try:
                self._update(now_us, dt_us)
            finally:
                self.updating = False
        self.deliver()

    def _update(self, now_us, dt_us):
        self.last_us = now_us
        # a descheduled process still advances by the whole gap: the firmware's clock shows
        # it too, and the model holds each beam state until the firmware has read it
        self.now_us += dt_us
        now = time.ticks_ms()
        self.launcher.advance(self.now_us)
        if self.ctl_poll is not None and now != self.last_ctl_ms:
            self.last_ctl_ms = now
            self._read_ctl()
        if self.wdt_timeout is not None and time.ticks_diff(now, self.wdt_fed) > self.wdt_timeout:
            self.reset("wdt")

    def charge(self, us):
        """The firmware spends `us` of its clock (real time here) on something it does not
        watch its inputs during: the mechanics run on meanwhile, pin IRQs fire at their
        edges, and the time counts as the firmware's own (physics.Launcher.present)."""
        # a busy wait, as the chip's: a sleep would wake up late on a loaded machine. A turn
        # that took longer than CHARGE_GAP_US was the machine taking the process away, not
        # the firmware's time: it is not counted as presence (the model makes it up)
        last = time.ticks_us()
        end = time.ticks_add(last, us)
        while True:
            now = time.ticks_us()
            if time.ticks_diff(end, now) <= 0:
                break
            away = time.ticks_diff(now, last) > CHARGE_GAP_US
            last = now
            self.update()
            if away:
                self.launcher.away()
            else:
                self.launcher.present()

    def run_scheduled(self):
        """Run the soft-IRQ handlers the pins scheduled (rp2 runs them between bytecodes;
        here, whenever the firmware touches the hardware), one at a time: one scheduled
        while another runs waits for it, as MicroPython's scheduler does."""
        if self.in_sched:
            return
        self.in_sched = True
        try:
            while self.sched:
                handler, pin = self.sched.pop(0)
                handler(pin)
        finally:
            self.in_sched = False

    def level(self, pin):
        """The drive a pin has now (0..1)."""
        return self.launcher.drive.get(pin, 0.0)

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

    def command(self, line):
        """Apply one control line (docs/architecture.md §3). Unknown lines are ignored."""
        if self.launcher.command(line):
            return
        words = line.split()
        if words[0] == "glitch":
            # not in docs/architecture.md §3: a firmware-test extension that makes the next
            # N pin reads raise OSError, to exercise the loop's handling of the unexpected
            try:
                self.glitches = int(words[1]) if len(words) > 1 else 1
            except ValueError:
                return

    # -- reset -----------------------------------------------------------------
    def reset(self, cause):
        """The board resets: report it and end the process (the runner restarts it)."""
        self.report({"hw": "reset", "cause": cause})
        self.dead = True
        self.wdt_timeout = None
        sys.exit(0)


WORLD = World()
