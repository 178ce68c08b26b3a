# Wiring and the main loop: read the config, build the devices from board.py, run a loop
# that never blocks (it idles at most IDLE_MS waiting for serial input), feed the watchdog.
import gc
import time

# The largest module first, while the heap is emptiest: the unix port compiles .py at import
# (a Pico imports .mpy) and a 192 KB heap could not fit launcher.py's parse behind the rest.
from launcher.launcher import Launcher  # isort: skip

from launcher import board, config, protocol
from launcher.button import DOWN, Button
from launcher.edges import EdgeLog
from launcher.feedback import Feedback
from launcher.motor import Motor
from launcher.pattern import Pattern, Rng
from launcher.sensor import Sensor
from launcher.version import VERSION

IDLE_MS = 1  # longest wait per loop iteration when there is nothing to do
# The inputs are sampled once per iteration, so an iteration must stay short however much the
# host says or asks (issue 20: never more than about 2 ms of chip time unobserved). Output is
# written for at most WRITE_US per iteration, input read for at most READ_US; what is left
# goes in the next iterations (launcher/protocol.py, Outbox).
WRITE_US = 1000
READ_US = 400
RESET_DELAY_MS = 100  # lets the `reset` reply leave the USB buffer before the board resets
REPL_WAIT_MS = 1000  # `repl`: how long the reply may take to leave before the REPL is handed over
MAX_ERRORS = 20  # unhandled exceptions within ERROR_WINDOW_MS before a reset
ERROR_WINDOW_MS = 10000
SAFE_MODE_LINE = (
    '{"event": "safe_mode", "message": "button held at power-up: launcher loop not started, '
    'REPL free; unplug and replug without holding the button to run the launcher"}'
)


class App:
    def __init__(self, cfg, status, errors, cause="power_on"):
        now = time.ticks_ms()
        self.cfg = cfg
        self.serial = board.Serial()
        # (port, its line reader): USB always, a UART when configured
        self.links: list = [(self.serial, protocol.LineReader())]
        if cfg["uart_id"] is not None:
            uart = board.Uart(
                cfg["uart_id"], cfg["uart_tx_pin"], cfg["uart_rx_pin"], cfg["uart_baud"]
            )
            self.links.append((uart, protocol.LineReader()))
        # the button and the beam are watched by hard pin IRQs that timestamp their edges
        # (launcher/edges.py): a busy loop iteration delays a press or a card, never loses it
        self.watched = []
        pin = board.input_pin(cfg["button_pin"])
        self.button = Button(pin, cfg["debounce_ms"], edges=self._watch(pin, time.ticks_ms))
        if config.motor_enabled(cfg):
            self.motor = Motor(
                board.pwm(cfg["motor_a_pin"], cfg["motor_pwm_hz"]),
                board.pwm(cfg["motor_b_pin"], cfg["motor_pwm_hz"]),
            )
        else:  # no usable motor pins: run the protocol, drive nothing (hello says so)
            self.motor = Motor(board.NoPWM(), board.NoPWM())
        self.motor.configure(cfg)
        sensor = None
        if cfg["sensor_pin"] is not None:
            pin = board.input_pin(cfg["sensor_pin"])
            sensor = Sensor(
                pin,
                cfg["sensor_blocked_value"],
                cfg["sensor_min_ms"],
                edges=self._watch(pin, time.ticks_us),
            )
        self.sensor = sensor
        buzzer = None if cfg["buzzer_pin"] is None else board.pwm(cfg["buzzer_pin"], cfg["beep_hz"])
        led = None if cfg["led_pin"] is None else board.led(cfg["led_pin"])
        self.feedback = Feedback(buzzer, led)
        self.feedback.configure(cfg)
        self.pattern = Pattern(Rng(board.random_seed()))
        self.pattern.configure(cfg)
        caps = []
        if sensor is not None:
            caps.append("sensor")
        if buzzer is not None:
            caps.append("buzzer")
        if led is not None:
            caps.append("led")
        if len(self.links) > 1:
            caps.append("uart")
        info = {
            "firmware": VERSION,
            "board": board.name(),
            "capabilities": caps,
            "config_status": status,
            "config_errors": [{"key": k, "reason": r} for k, r in errors],
            "max_line": protocol.MAX_LINE,
            "motor": "ok" if config.motor_enabled(cfg) else "disabled",
            "reset_cause": cause,
            "boot": board.boot_id(),  # protocol 3: tells one boot's event numbers from the next
        }
        self.launcher = Launcher(
            cfg,
            self.motor,
            sensor,
            self.feedback,
            self.pattern,
            self.emit,
            info,
            now,
            save=config.save,
            apply=self.apply,
        )
        self.pending: list = [[] for _ in self.links]  # lines read, not yet handled, per port
        self.launcher.config_text()  # encoded now, not in the loop's first config_get
        self.wdt = board.Watchdog(cfg["wdt_ms"])
        self.takeover = protocol.Takeover()  # Ctrl-C: noise, or a REPL tool taking over
        self.hold_usb = False  # after a KeyboardInterrupt: USB input waits for what follows
        self.leave = None  # "repl" or "ctrl_c": the loop ends and hands the REPL over
        self.errors = 0
        self.error_window_at = now
        # performance figures for `status` (and bench/bench_firmware.py)
        self.iterations = 0
        self.step_us_total = 0
        self.step_us_max = 0
        self.raw_down_at = -1  # the iteration in which the button contact first closed
        self.press_iters = -1  # loop iterations from contact to motor on, last press
        self.press_ms = -1  # the same in milliseconds
        # the longest time between two samples of the inputs, since the last `status perf`
        self.sampled_us = time.ticks_us()
        self.gap_us_max = 0
        self.gap_skip = False  # the gap that holds a `status perf` (its gc) is not counted
        self.launcher.perf = self.perf
        self.launcher.button = self.button  # `inputs` reads it
        self.mem_free_boot = 0

    def _watch(self, pin, clock):
        log = EdgeLog()
        if not board.watch(pin, log, clock):
            return None  # no IRQ on this pin: sampled by the loop only
        self.watched.append(pin)
        return log

    def unwatch(self):
        for pin in self.watched:
            board.unwatch(pin)
        self.watched = []

    def emit(self, msg):
        """An event: every port hears it. A heartbeat only goes to a port with nothing
        waiting: behind other lines it says nothing, and it would push them out."""
        line = protocol.encode(msg)
        beat = msg["event"] == "heartbeat"
        for port, _ in self.links:
            if not (beat and port.waiting()):
                port.write(line)

    def apply(self, cfg):
        self.cfg = cfg
        self.motor.configure(cfg)
        self.feedback.configure(cfg)
        self.pattern.configure(cfg)
        self.button.debounce_ms = cfg["debounce_ms"]
        if self.sensor is not None:
            self.sensor.min_us = cfg["sensor_min_ms"] * 1000

    def handle_line(self, line, now, port=None):
        """Answer one line; the reply goes back to the port it came from."""
        req, reply = protocol.parse(line)
        if req is not None:
            try:
                reply = self.launcher.handle(req, now)
            except Exception as e:  # every request gets exactly one reply, even then
                self.motor.off()
                reply = protocol.error(req["id"], "internal", "firmware error: %r" % (e,))
        (port or self.serial).write(protocol.encode(reply))

    def perf(self):
        gap = self.gap_us_max
        self.gap_us_max = 0
        self.gap_skip = True
        gc.collect()
        n = self.iterations or 1
        lost = 0
        for dev in (self.button, self.sensor):
            if dev is not None and dev.edges is not None:
                lost += dev.edges.lost()
        return {
            "inputs_gap_us_max": gap,
            "inputs_irq": len(self.watched),
            "edges_lost": lost,
            "mem_free": gc.mem_free(),
            "mem_free_boot": self.mem_free_boot,
            "mem_alloc": gc.mem_alloc(),
            "iterations": self.iterations,
            "step_us_avg": self.step_us_total // n,
            "step_us_max": self.step_us_max,
            "press_to_motor_iters": self.press_iters,
            "press_to_motor_ms": self.press_ms,
        }

    def step(self):
        """One loop iteration; returns True if it did any work."""
        now = time.ticks_ms()
        self.wdt.feed()
        busy = False
        t = time.ticks_us()
        gap = time.ticks_diff(t, self.sampled_us)
        self.sampled_us = t
        if self.gap_skip:
            self.gap_skip = False
        elif gap > self.gap_us_max:
            self.gap_us_max = gap
        was_raw = self.button._raw
        if self.button.poll(now) == DOWN:
            # the motor starts now, before the press is announced; the burst's deadlines run
            # from here, and so does the rest of this step (tick() must not see an earlier time)
            now = start = time.ticks_ms()
            self.launcher.on_press(self.button.changed_at, start)
            if self.motor.running:
                self.press_iters = self.iterations - self.raw_down_at
                self.press_ms = time.ticks_diff(start, self.button.changed_at)
            busy = True
        elif self.button._raw and not was_raw:
            self.raw_down_at = self.iterations
        if self.sensor is not None:
            self.sensor.poll(time.ticks_us())
        self.launcher.tick(now)
        # this iteration's output slice (what tick() emitted is written at its end)
        self.serial.until = time.ticks_add(time.ticks_us(), WRITE_US)
        for port, _ in self.links[1:]:
            port.until = self.serial.until  # the UART shares the slice
        for i, (port, reader) in enumerate(self.links):
            usb = port is self.serial
            if usb and (self.leave or self.launcher.repl_at is not None or self._holding(now)):
                continue  # what comes now is the REPL's
            if usb and self.serial.behind():
                continue  # the host reads, the launcher is slow: replies first, then requests
            todo = self.pending[i]
            if not todo or not usb:  # a UART is read always: its 1 KB RX buffer must not fill
                data = port.read(budget_us=READ_US)
                if data:
                    busy = True
                    if usb:
                        data = self.takeover.feed(data, now)
                        self.launcher.interrupts = self.takeover.interrupts
                    todo.extend(reader.feed(data))
                    if usb and self.takeover.replay is not None:
                        self.leave = "ctrl_c"
            if todo and not usb and port.behind():
                continue  # the UART's wire is slower than its requests: replies first
            if todo:
                # one request per iteration (each is parsed, run and its reply encoded in one
                # go: several would add up); all of them when the loop is about to end
                busy = True
                for _ in range(len(todo) if self.leave else 1):
                    # the clock as each line is handled: a `fire` starts its burst then
                    self.handle_line(todo.pop(0), time.ticks_ms(), port)
        # output the port could not take at once (or this slice had no time for), as far as
        # it can now; a cut slice goes on next iteration, without the idle wait
        if self.serial.flush() or self.serial.cut:
            busy = True
        for port, _ in self.links[1:]:
            if port.flush() or port.cut:
                busy = True
        repl_at = self.launcher.repl_at
        if repl_at is not None and (
            not self.serial.waiting() or time.ticks_diff(now, repl_at) >= REPL_WAIT_MS
        ):
            self.leave = "repl"  # the reply is out (or the host does not read): hand over
        reset_at = self.launcher.reset_at
        if reset_at is not None and time.ticks_diff(now, reset_at) >= RESET_DELAY_MS:
            board.reset()
        # a burst needs no spinning: the sensor is sampled and the burst deadlines are
        # checked every iteration, at most IDLE_MS apart (a card blocks the beam for tens
        # of milliseconds)
        return busy

    def _holding(self, now):
        """After a KeyboardInterrupt the port has eaten the Ctrl-C and what came before it;
        what follows stays unread for TAKEOVER_MS, for the REPL if a second Ctrl-C comes.
        Then it is read and judged as if it had just followed the Ctrl-C."""
        if self.hold_usb and time.ticks_diff(now, self.takeover.at) >= protocol.TAKEOVER_MS:
            self.hold_usb = False
            self.takeover.at = now
        return self.hold_usb

    def run(self):
        """The launcher loop. Returns how it ended: "repl" (the `repl` request), "ctrl_c"
        (a REPL tool's Ctrl-C sequence) or None (the unix port's stdin closed)."""
        try:
            self.launcher.boot(time.ticks_ms())
            gc.collect()
            self.mem_free_boot = gc.mem_free()  # "RAM after boot" (bench/bench_firmware.py)
        except KeyboardInterrupt:
            self._ctrl_c()
        while not self.serial.closed and self.leave is None:
            try:
                t0 = time.ticks_us()
                busy = self.step()
                dt = time.ticks_diff(time.ticks_us(), t0)
                self.step_us_total += dt
                if dt > self.step_us_max:
                    self.step_us_max = dt
                self.iterations += 1
                if not busy and self.leave is None:
                    if self.hold_usb:
                        time.sleep_ms(IDLE_MS)  # input waits: a poll would not idle
                    else:
                        self.serial.wait(IDLE_MS)
            except KeyboardInterrupt:
                self._ctrl_c()
            except Exception as e:
                self._unhandled(e)
        if self.serial.closed:  # the unix port's stdin ended: what is queued still goes out
            self.serial.until = None
            self.serial.flush()
        return self.leave

    def _ctrl_c(self):
        # a Ctrl-C the port turned into an exception (the unix port): the same handshake as
        # a 0x03 byte
        if self.takeover.ctrl_c(time.ticks_ms()):
            self.leave = "ctrl_c"
        else:
            self.hold_usb = True
        self.launcher.interrupts = self.takeover.interrupts

    def _unhandled(self, exc):
        self.motor.off()
        now = time.ticks_ms()
        if time.ticks_diff(now, self.error_window_at) > ERROR_WINDOW_MS:
            self.errors = 0
            self.error_window_at = now
        self.errors += 1
        if self.errors > MAX_ERRORS:
            self.serial.until = None  # what the host was told so far goes out first
            self.serial.flush()
            board.reset()  # something is badly wrong: start afresh
        try:
            self.launcher.internal_error(exc)
        except Exception:
            pass
        # the iteration ended early, before its output slice: this is it
        self.serial.until = time.ticks_add(time.ticks_us(), WRITE_US)
        self.serial.flush()
        gc.collect()


def _unusable(exc):
    # this board refused the pins: drive none of them (the motor disabled), say why
    return config.no_outputs(), "defaults:unusable", [("config", repr(exc)[:100])]


def main(ctrl_c=False):
    """Boot: motor off, config, safe-mode check, then the launcher loop. `ctrl_c`: main.py
    caught a Ctrl-C that came while MicroPython started (the takeover's first half)."""
    cause = board.reset_cause()
    board.ctrl_c_as_byte()  # rp2: 0x03 is read by the loop (the takeover handshake)
    try:
        config.CHIP = board.config_chip()
        cfg, status, errors = config.load()
    except Exception as e:  # never expected; but a bad file must not stop the launcher
        cfg, status, errors = config.no_outputs(), "defaults:corrupt", [("file", repr(e)[:100])]
    try:
        board.motor_pins_low(cfg)
        held = board.button_held(cfg)
    except Exception as e:
        # a configuration this board cannot honour (say, a pin it does not have): run with
        # no outputs (the motor disabled) and say why in hello
        cfg, status, errors = _unusable(e)
        board.motor_pins_low(cfg)
        held = board.button_held(cfg)
    if held:
        time.sleep_ms(50)  # still held after a bounce's worth of time: a deliberate hold
        if board.button_held(cfg):
            print(SAFE_MODE_LINE)
            board.mark_repl()
            return
    app = None
    leave = None
    try:
        try:
            app = App(cfg, status, errors, cause)
        except Exception as e:
            cfg, status, errors = _unusable(e)
            board.motor_pins_low(cfg)
            app = App(cfg, status, errors, cause)
        if ctrl_c:
            app._ctrl_c()  # judged as if it came now: a REPL key next is a takeover
        leave = app.run()
    except KeyboardInterrupt:
        leave = "ctrl_c"  # before the loop ran (the unix port at boot): hand over
        raise
    finally:
        if leave is not None:
            # hand the REPL over: a flasher must not be cut short by a watchdog reset
            board.stop_watchdog()
        if app is not None:
            app.unwatch()  # the REPL's: no IRQ left running into the launcher's rings
            app.motor.off()
            app.feedback.off()  # no tone left sounding at the REPL
        board.motor_pins_low(cfg)
        board.mark_repl()  # a soft reset from the REPL reads as reset_cause "soft"
    if leave == "ctrl_c":
        # what followed the Ctrl-C (mpremote's Ctrl-A) is the REPL's: give it back, and
        # show the interrupt at the REPL as MicroPython does
        board.replay(app.takeover.replay)
        raise KeyboardInterrupt
