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
# The inputs are watched by hard pin IRQs that timestamp every edge (launcher/edges.py), and
# sampled once per iteration. A request is answered in the iteration that read its newline
# (issue 32): parsed, run, its reply encoded in one json.dumps (launcher/protocol.py, encode)
# and written, as much as the USB port takes at once (a line or the FIFO's free space per
# write: board.Serial). Further requests and queued events are taken up only until SLICE_US
# after the iteration's start (one request at least per iteration, so work always moves on),
# and output is written until then or for WRITE_MIN_US, whichever ends later (output keeps
# its pace when the rest took the slice: a flood of requests on the UART). What is left goes
# on in the next iterations.
SLICE_US = 1400
WRITE_MIN_US = 1000
# Garbage collection (about 12 ms of rp2 chip time, all of it in one go: MicroPython's
# collector marks the whole live heap, ~60 KB of it the firmware's own code) is done by the
# loop when it has nothing else to do and no burst runs, once the garbage it has made since
# the last one is estimated at GC_LITTER bytes: a line sent leaves about LINE_LITTER times
# its length (its request, the reply's dict, the pieces), an idle wait IDLE_LITTER (the
# list select.poll returns); nothing else in the loop allocates. So a collection never
# falls in the middle of a reply, a burst or a backlog, the heap (180+ KB free on rp2)
# never fills up to force one somewhere else, and `status perf` says how many there were
# and how long the longest took (gcs, gc_us_max).
GC_LITTER = 96 * 1024
LINE_LITTER = 12
IDLE_LITTER = 32
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
        self.button = button = Button(pin, cfg["debounce_ms"], edges=EdgeLog())
        self.irq_start = -1  # ticks_ms when a press's timer IRQ started the motor (-1: none)
        if board.on_edge(pin, button.edge, time.ticks_ms):
            self.watched.append(pin)
            # the debounce's end starts the motor from a timer IRQ (issue 32)
            button.timer, button.one_shot = board.one_shot() or (None, 0)
            button.on_down = self._press_now
        else:
            button.edges = None  # no IRQ on this pin: sampled by the loop only
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
            # the beam's edges go straight to the sensor, in its pin's hard IRQ: a card is
            # counted at the edge that clears the beam, and the last card of a burst brakes
            # the motor there (issue 32: not when the loop next looks)
            pin = board.input_pin(cfg["sensor_pin"])
            sensor = Sensor(
                pin, cfg["sensor_blocked_value"], cfg["sensor_min_ms"], now_us=time.ticks_us()
            )
            sensor.on_stop = self._brake_now
            if board.on_edge(pin, sensor.edge, time.ticks_us):
                sensor.irq = True
                self.watched.append(pin)
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
        self.ports = tuple([port for port, _ in self.links])  # every port hears an event
        self.encoder = protocol.Encoder(time.ticks_us)  # replies and events, in order
        self.pending: list = [[] for _ in self.links]  # lines read, not yet parsed, per port
        self.waiting = 0  # lines in self.pending
        self.gc_made = 0  # encoder.made at the last collection
        self.idle_litter = 0  # garbage of the idle waits since the last collection
        self.gcs = 0  # collections the loop made
        self.gc_us_max = 0  # the longest of them
        self.wdt = board.Watchdog(cfg["wdt_ms"])
        self.takeover = protocol.Takeover()  # Ctrl-C: noise, or a REPL tool taking over
        self.hold_usb = False  # after a KeyboardInterrupt: USB input waits for what follows
        self.woke = False  # the last idle wait ended on USB input
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

    def _press_now(self):
        """A debounced press that starts a burst (the button's timer IRQ, Button.go): the
        motor starts now; the loop does the rest when it sees the press (on_press)."""
        if not self.motor.running:
            t = time.ticks_ms()
            self.motor.start(t)
            self.irq_start = t  # type: ignore[assignment]

    def _brake_now(self):
        """The burst's last card is out (the sensor's IRQ): brake the motor now."""
        self.motor.brake(time.ticks_ms())

    def unwatch(self):
        for pin in self.watched:
            board.unwatch(pin)
        self.watched = []
        self.button.go = False
        if self.button.timer is not None:
            self.button.timer.deinit()

    def emit(self, msg):
        """An event: every port hears it (encoded by the loop, in turn with the replies). A
        heartbeat only goes to a port with nothing waiting: behind other lines it says
        nothing, and it would push them out."""
        if msg["event"] == "heartbeat":
            jobs = self.encoder.jobs
            idle = [p for p in self.ports if not (p.waiting() or [j for j in jobs if p in j[1]])]
            if idle:
                self.encoder.jobs.append((msg, idle))
            return
        self.encoder.jobs.append((msg, self.ports))

    def apply(self, cfg):
        self.cfg = cfg
        self.motor.configure(cfg)
        self.feedback.configure(cfg)
        self.pattern.configure(cfg)
        self.button.debounce_ms = cfg["debounce_ms"]
        if self.sensor is not None:
            self.sensor.min_us = cfg["sensor_min_ms"] * 1000

    def answer(self, req, reply, now, port):
        """Run a parsed request (or take the parse's error reply) and queue its reply."""
        if req is not None:
            try:
                reply = self.launcher.handle(req, now)
            except Exception as e:  # every request gets exactly one reply, even then
                self.motor.off()
                reply = protocol.error(req["id"], "internal", "firmware error: %r" % (e,))
        self.encoder.jobs.append((reply, (port,)))

    def perf(self):
        gap = self.gap_us_max
        self.gap_us_max = 0
        self.gap_skip = True
        gc.collect()
        self.gc_made = self.encoder.made
        self.idle_litter = 0
        n = self.iterations or 1
        lost = 0
        if self.button.edges is not None:
            lost += self.button.edges.lost()
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
            "gcs": self.gcs,
            "gc_us_max": self.gc_us_max,
        }

    def step(self):
        """One loop iteration; returns True if it did any work."""
        now = time.ticks_ms()
        self.wdt.feed()
        t = time.ticks_us()
        # the time slice: no request or message (0.2-1.5 ms on rp2) is begun after `until`
        # but the first, no byte read after it
        until = time.ticks_add(t, SLICE_US)
        ports = self.ports
        for port in ports:
            port.until = until
        busy = False
        if self.woke:
            self.woke = False
            if self.irq_start < 0:
                # the idle wait ended on input: its requests are answered before the inputs
                # are sampled (0.3-0.5 ms of rp2 chip time sooner: issue 32's `status`). The
                # pin IRQs timestamp every edge meanwhile, and a press's start and a burst's
                # brake are theirs (Button.go, Sensor.edge). Not when the button's timer has
                # started a press the loop has not taken yet (irq_start): the press came
                # first, so a `stop` read now must stop its burst, not be undone by it
                busy = self._take(now, until)
                now = time.ticks_ms()
                t = time.ticks_us()
        early = busy  # a request may have been begun in this slice already
        gap = time.ticks_diff(t, self.sampled_us)
        self.sampled_us = t
        if self.gap_skip:
            self.gap_skip = False
        elif gap > self.gap_us_max:
            self.gap_us_max = gap
        was_raw = self.button._raw
        if self.button.poll(now) == DOWN:
            # the motor starts now (or started at the debounce's end, in the button's timer
            # IRQ: irq_start), before the press is announced; the burst's deadlines run from
            # then; the rest of this step runs on the clock now
            now = start = time.ticks_ms()
            irq = self.irq_start
            self.irq_start = -1
            if irq >= 0:
                start = irq  # type: ignore[assignment]
            self.launcher.on_press(self.button.changed_at, start)
            if irq >= 0 and self.launcher.burst is None:
                # the arming changed between the loop's plan and the press (a request in the
                # same iteration): the press runs nothing, the motor stops
                self.motor.off()
            if self.motor.running:
                self.press_iters = self.iterations - self.raw_down_at
                self.press_ms = time.ticks_diff(start, self.button.changed_at)
            busy = True
        elif self.irq_start >= 0 and time.ticks_diff(now, self.irq_start) >= 200:
            # the timer started the motor for a press the debounce then never counted, 200 ms
            # ago (it cannot happen: both judge the same edges): never a motor left alone
            self.irq_start = -1
            if self.launcher.burst is None:
                self.motor.off()
        elif self.button._raw and not was_raw:
            self.raw_down_at = self.iterations
        if self.sensor is not None:
            self.sensor.poll(time.ticks_us())
        self.launcher.tick(now)
        if self._take(now, until, early):
            busy = True
        enc = self.encoder
        if enc.jobs:  # events (and what a used-up slice left)
            busy = True
            enc.run(until)
        # output the port could not take at once (or a slice had no time for), as far as it
        # can now, and for WRITE_MIN_US at least (so that output keeps a pace when the rest
        # of the iteration took the slice: a flood of requests on a busy chip); a cut slice
        # goes on next iteration, without the idle wait
        least = time.ticks_add(time.ticks_us(), WRITE_MIN_US)
        if time.ticks_diff(least, until) > 0:
            until = least
        for port in ports:
            port.until = until
            if port._q and (port.flush() or port.cut):
                busy = True
        # what a press would do now, for the button's timer IRQ (Button.go): the loop
        # draws a random press's outcome ahead (Pattern.ahead), the IRQ may not allocate
        button = self.button
        if button.timer is not None:
            button.go = (
                self.leave is None
                and self.launcher.burst is None
                and self.launcher.press_plan() > 0
            )
        if self.leave is not None:
            self._answer_all()
        repl_at = self.launcher.repl_at
        if repl_at is not None and (
            not (self.serial.waiting() or enc.jobs) or time.ticks_diff(now, repl_at) >= REPL_WAIT_MS
        ):
            self.leave = "repl"  # the reply is out (or the host does not read): hand over
        reset_at = self.launcher.reset_at
        if reset_at is not None and time.ticks_diff(now, reset_at) >= RESET_DELAY_MS:
            board.reset()
        # a burst needs no spinning: the sensor is sampled and the burst deadlines are
        # checked every iteration, at most IDLE_MS apart (a card blocks the beam for tens
        # of milliseconds)
        return busy

    def _take(self, now, until, begun=False):
        """Read the ports (until `until`, a byte at least) and answer the requests read
        (`begun`: one may have been answered in this slice already, so none is begun after
        `until`); returns True if anything was read or answered."""
        busy = False
        ports = self.ports
        links = self.links
        for i in range(len(links)):
            port = ports[i]
            usb = port is self.serial
            if usb and (
                self.leave
                or self.launcher.repl_at is not None
                or (self.hold_usb and self._holding(now))
            ):
                continue  # what comes now is the REPL's
            if usb and ((port.cut and port.behind()) or self.pending[i]):
                # the host reads, the launcher is slow: replies first, then requests; and
                # no more lines than the loop has handled (a UART is read always: its 1 KB
                # RX buffer must not fill)
                continue
            data = port.read(until=until)  # a byte at least: input always moves on
            if data:
                busy = True
                if usb and (self.takeover.at is not None or b"\x03" in data):
                    data = self.takeover.feed(data, now)
                    self.launcher.interrupts = self.takeover.interrupts
                lines = links[i][1].feed(data)
                self.pending[i].extend(lines)
                self.waiting += len(lines)
                if usb and self.takeover.replay is not None:
                    self.leave = "ctrl_c"
        if self.waiting and self.leave is None and self._requests(until, begun):
            busy = True
        return busy

    def _requests(self, until, done=False):
        """Answer the lines read, each whole (parsed, run, its reply encoded and written),
        until `until` (one at least, unless `done`: one was begun in this slice already);
        USB's first. Returns True if it answered one."""
        pending = self.pending
        ports = self.ports
        enc = self.encoder
        answered = False
        while self.waiting:
            if done and time.ticks_diff(time.ticks_us(), until) >= 0:
                break
            if enc.jobs:
                # what came before is encoded first: its lines then say what they said, and
                # the request can change what they read (a long run of them, an `events`
                # replay's, goes on next iteration, and this request after it)
                enc.run(until)
                if enc.jobs:
                    break
            for i in range(len(pending)):
                port = ports[i]
                # replies first: no new request while the last slice ran out of time with
                # lines for that port still waiting (or it is behind)
                if pending[i] and not (port.cut or (port._q and port.behind())):
                    break
            else:
                break
            self.waiting -= 1
            req, reply = protocol.parse(pending[i].pop(0))
            # the clock as the request runs: a `fire` starts its burst then
            self.answer(req, reply, time.ticks_ms(), port)
            enc.run(until)
            done = answered = True
        return answered

    def _answer_all(self):
        """The loop is about to end (a takeover): every request read so far is answered."""
        for i in range(len(self.pending)):
            todo = self.pending[i]
            while todo:
                self.waiting -= 1
                req, reply = protocol.parse(todo.pop(0))
                self.encoder.run()
                self.answer(req, reply, time.ticks_ms(), self.ports[i])
        self.encoder.run()
        for port in self.ports:
            port.flush()

    def _collect(self):
        """A garbage collection while nothing else is going on (see GC_LITTER)."""
        t = time.ticks_us()
        gc.collect()
        dt = time.ticks_diff(time.ticks_us(), t)
        self.gc_made = self.encoder.made
        self.idle_litter = 0
        self.gcs += 1
        if dt > self.gc_us_max:
            self.gc_us_max = dt

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
                    litter = LINE_LITTER * (self.encoder.made - self.gc_made)
                    if litter + self.idle_litter >= GC_LITTER and self.launcher.burst is None:
                        self._collect()  # nothing else to do: see GC_LITTER
                    elif self.hold_usb:
                        time.sleep_ms(IDLE_MS)  # input waits: a poll would not idle
                    else:
                        self.woke = self.serial.wait(IDLE_MS)
                        self.idle_litter += IDLE_LITTER
            except KeyboardInterrupt:
                self._ctrl_c()
            except Exception as e:
                self._unhandled(e)
        if self.serial.closed:  # the unix port's stdin ended: what is queued still goes out
            self.serial.until = None
            self.encoder.run()
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
            try:
                self.encoder.run()
            except Exception:
                pass
            self.serial.flush()
            board.reset()  # something is badly wrong: start afresh
        try:
            self.launcher.internal_error(exc)
        except Exception:
            pass
        # the iteration ended early, before its output slice: this is it
        until = time.ticks_add(time.ticks_us(), SLICE_US)
        for port in self.ports:
            port.until = until
        try:
            self.encoder.run(until)
        except Exception:
            pass  # that message is dropped (Encoder.run); the rest goes on next iteration
        self.serial.flush()
        self._collect()


def _unusable(exc):
    # this board refused the pins: drive none of them (the motor disabled), say why
    return config.no_outputs(), "defaults:unusable", [("config", repr(exc)[:100])]


def main(ctrl_c=False, cause=None):
    """Boot: motor off, config, safe-mode check, then the launcher loop. `ctrl_c`: main.py
    caught a Ctrl-C that came while MicroPython started (the takeover's first half);
    `cause`: board.reset_cause(), which main.py reads before the imports."""
    if cause is None:
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
