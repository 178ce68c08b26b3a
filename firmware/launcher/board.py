# The ONLY module that imports `machine`: pins, PWM, watchdog, reset and the USB serial
# port. Everything else gets what it needs from here as plain objects.
import io
import os
import select
import sys
import time

import machine
import micropython

# a hard IRQ handler cannot allocate: an exception in one needs this to be reported at all
# (the unix port has no such buffer, and needs none)
if hasattr(micropython, "alloc_emergency_exception_buf"):
    micropython.alloc_emergency_exception_buf(100)

from launcher.protocol import Outbox

PIN_IN = machine.Pin.IN
PULL_UP = machine.Pin.PULL_UP

# USB output (Outbox in launcher/protocol.py): the bytes per write that a POLLOUT on
# sys.stdout promises to take at once, where the port cannot say how much room it has. The
# rp2 port promises one free byte of its TX FIFO (but launcher/usbcdc.py reads the FIFO's own
# indices: a whole line goes at once). The unix port under the simulator (sys.platform
# "linux") writes to a pipe or a pty: Linux reports POLLOUT on a pipe while a 4 KiB pipe
# buffer is free (a write <= PIPE_BUF then completes at once), on a pty while its flip buffers
# are under their memory limit (so a new one of up to TTY_BUFFER_PAGE, 1792 bytes, can still
# be had): 256 never waits on either. The simulated board (`unolaunch sim`) charges each write
# the chip time it costs on rp2 (machine.sim_usb_write).
TX_CHUNK = 256 if sys.platform == "linux" else 1
# The RP2040/RP2350 watchdog block. CTRL through its "atomic clear" alias (+0x3000): the
# MicroPython WDT cannot be stopped, but the REPL handed over to a flasher must not be cut
# short by a reset, so stop_watchdog() clears the ENABLE bit (bit 30) directly. REASON
# (+0x08): bit 0 TIMER (the watchdog ran out), bit 1 FORCE (machine.reset(), which on rp2 is
# a watchdog reboot: machine.reset_cause() reads WDT_RESET after either). SCRATCH0/1 (+0x0C,
# +0x10): kept by a soft reset and by a watchdog reboot, cleared at power-on (the SDK's own
# reboot uses SCRATCH4-7 only).
_WDT_BASE = {"rp2040": 0x40058000, "rp2350": 0x400D8000}
_WDT_ENABLE = 1 << 30
_REPL_MARK = 0x52455031  # in SCRATCH0: the firmware left to the REPL (SCRATCH1: when)


def chip():
    """The chip: rp2040, rp2350, or the one the simulated board models."""
    desc = sys.implementation._machine.lower()  # e.g. "Raspberry Pi Pico with RP2040"
    for name in ("rp2350", "rp2040"):
        if name in desc:
            return name
    return getattr(machine, "SIM_CHIP", "unknown")


def name():
    """The board name for `hello`: the chip, or "unix-sim" under the simulator."""
    if hasattr(machine, "SIM_CHIP"):
        return "unix-sim"
    return chip()


def config_chip():
    """The chip name config.py narrows pins to (None where it cannot tell the package:
    an RP2350 may be the A or the B)."""
    c = chip()
    return c if c == "rp2040" else None


def motor_pins_low(cfg):
    """First thing at boot: both H-bridge inputs low, before anything else can fail."""
    for key in ("motor_a_pin", "motor_b_pin"):
        if cfg[key] is not None:  # None: the motor is disabled, its pins unknown
            machine.Pin(cfg[key], machine.Pin.OUT, value=0)


class NoPWM:
    """A motor output that drives nothing: the motor is disabled (no usable pins)."""

    def duty_u16(self, value=None):
        return 0

    def deinit(self):
        pass


def input_pin(num):
    """An input with the internal pull-up (button and open-collector beam receiver)."""
    return machine.Pin(num, PIN_IN, PULL_UP)


def on_edge(pin, fn, clock):
    """fn(clock(), level) at every edge of `pin` (clock: time.ticks_ms or ticks_us), from a
    hard IRQ: it runs the moment the edge happens, even in the middle of a long write or a
    garbage collection. `fn` must allocate nothing (on rp2 an allocation there raises
    MemoryError): the button's logs the edge (launcher/edges.py, EdgeLog), the beam's runs
    the card filter (launcher/sensor.py). Returns False where the pin takes no IRQ (the loop
    then samples it)."""

    def edge(p):
        fn(clock(), p.value())

    try:
        pin.irq(edge, machine.Pin.IRQ_FALLING | machine.Pin.IRQ_RISING, hard=True)
    except Exception:
        return False
    return True


def one_shot():
    """(machine.Timer, its ONE_SHOT mode) for Button.edge to arm from the button's hard IRQ:
    `init()` cancels the last alarm and starts a new one (rp2: `Timer(-1)` is a pico-sdk
    alarm, armed without allocating), whose callback runs in interrupt context (hard=True).
    None where the board has no timer."""
    try:
        return machine.Timer(-1), machine.Timer.ONE_SHOT
    except Exception:
        return None


def unwatch(pin):
    """No more IRQ on `pin` (the firmware hands the REPL over)."""
    try:
        pin.irq(None)
    except Exception:
        pass


def pwm(num, freq_hz):
    p = machine.PWM(machine.Pin(num), freq=freq_hz, duty_u16=0)
    return p


def led(num):
    return machine.Pin(num, machine.Pin.OUT, value=0)


def button_held(cfg):
    """True if the button is held right now (safe mode check at power-up)."""
    return input_pin(cfg["button_pin"]).value() == 0


class Watchdog:
    def __init__(self, timeout_ms):
        self._wdt = machine.WDT(timeout=timeout_ms)

    def feed(self):
        self._wdt.feed()


def stop_watchdog():
    base = _WDT_BASE.get(chip())
    if base is not None:
        machine.mem32[base + 0x3000] = _WDT_ENABLE


def reset_cause():
    """What started this boot, for boot/hello: "power_on", "watchdog", "reset"
    (machine.reset(), the `reset` command) or "soft" (a soft reset at the REPL the firmware
    handed over, e.g. mpremote's Ctrl-D). Call once, first thing at boot.

    A soft reset leaves machine.reset_cause() as the last hard reset left it; it is told by
    the mark mark_repl() put in SCRATCH0, which only power-on clears - and a watchdog reboot
    while at the REPL (machine.reset() typed there, a WDT started there) keeps the mark, but
    restarts the timer behind ticks_ms, which a soft reset leaves running: soft only if the
    clock is past the moment the firmware left.
    """
    wdt = machine.reset_cause() == machine.WDT_RESET
    base = _WDT_BASE.get(chip())
    if base is None:
        return "watchdog" if wdt else "power_on"
    mem = machine.mem32
    mark = mem[base + 0x0C]
    left = mem[base + 0x10]
    mem[base + 0x0C] = 0  # read once: a later hard reset is not a soft one
    if mark == _REPL_MARK and time.ticks_diff(time.ticks_ms(), left) >= 0:
        return "soft"
    if wdt:
        return "reset" if mem[base + 0x08] & 2 else "watchdog"
    return "power_on"


def mark_repl():
    """The firmware leaves to the REPL: a soft reset from there reads as "soft"."""
    base = _WDT_BASE.get(chip())
    if base is not None:
        machine.mem32[base + 0x10] = time.ticks_ms()
        machine.mem32[base + 0x0C] = _REPL_MARK


def reset():
    machine.reset()


def ctrl_c_as_byte():
    """Ctrl-C (0x03) on USB arrives as a byte the loop reads (protocol.Takeover), not as a
    KeyboardInterrupt that lands wherever the loop happens to be. main.py did it first of
    all; this keeps it so for whoever calls main() (a test, the REPL). On the unix port
    kbd_intr(-1) leaves SIGINT to its default action (it would kill the process): the
    simulator's relay sends none then, it writes the 0x03 as a byte, as a Pico's USB does.
    MicroPython sets Ctrl-C back by itself when main.py ends and at every REPL statement."""
    micropython.kbd_intr(-1)


class _Replay(io.IOBase):
    """The bytes the loop read after a takeover's trigger, for the REPL to read next (an
    os.dupterm stream that detaches itself once empty); what the REPL writes goes nowhere."""

    def __init__(self, data):
        self._data = data

    def readinto(self, buf):
        data = self._data
        if not data:
            return None  # nothing now (not EOF: that would print a message)
        buf[0] = data[0]
        self._data = data[1:]
        if not self._data:
            os.dupterm(None)
        return 1

    def write(self, buf):
        return len(buf)

    def ioctl(self, req, arg):
        if req == 3:  # MP_STREAM_POLL: readable while bytes are left
            return arg & 1 if self._data else 0
        return 0


def replay(data):
    """Give `data` (mpremote's Ctrl-A) back to the REPL, first thing it reads. False where
    the port has no os.dupterm and the board no stand-in (the simulated unix board hands
    them to its simulator): the bytes are lost."""
    if not data:
        return True
    if not hasattr(os, "dupterm"):
        hand_back = getattr(machine, "sim_replay", None)  # never on a real Pico
        if hand_back is None:
            return False
        hand_back(data)
        return True
    os.dupterm(_Replay(data))
    return True


def boot_id():
    """A random number for this boot (1..2^30-1), never the simulator's fixed seed: a host
    must never take a reset for the same boot going on (protocol 3, `boot`)."""
    return (int.from_bytes(os.urandom(4), "little") & 0x3FFFFFFF) or 1


def random_seed():
    """The pattern's seed: the simulated board's (`unolaunch sim --seed`) if it has one, so
    that a seeded simulator repeats its presses; else 32 bits of hardware entropy."""
    seed = getattr(machine, "SIM_SEED", None)  # never set on a real Pico
    if seed is not None:
        return seed
    return int.from_bytes(os.urandom(4), "little")


class _Always:
    """A poll that always says "ready": a port whose write never waits (the unix board's
    UART, which select.poll cannot register)."""

    def ipoll(self, timeout=0):
        return ((None, select.POLLOUT),)


class Uart(Outbox):
    """The protocol on a hardware UART (config uart_id), read without blocking and written
    through an Outbox as USB is (issue 26): machine.UART.write (timeout 0) takes only what
    fits the 1 KB TX buffer, so a long reply written at once lost its tail; now what does not
    fit waits in the Outbox, a byte per POLLOUT (one free byte: never a wait)."""

    chunk = 1
    drains = True  # the wire empties the TX buffer at the baud rate, whoever listens

    def __init__(self, uart_id, tx, rx, baud):
        self._uart = machine.UART(
            uart_id, baudrate=baud, tx=machine.Pin(tx), rx=machine.Pin(rx), txbuf=1024, rxbuf=1024
        )
        self.closed = False
        room: object = select.poll()
        try:
            room.register(self._uart, select.POLLOUT)  # type: ignore[attr-defined]
        except (TypeError, OSError, AttributeError):
            room = _Always()
        Outbox.__init__(self, room, self._uart.write, time.ticks_us)

    def behind(self):
        """Half the queue waits for the wire: handle no more requests until it has gone
        out (they wait read, so the 1 KB RX buffer never overflows); a reply is never
        dropped to make room for the next one's."""
        return self._size > self.max_bytes // 2

    def read(self, limit=512, until=None):
        n = self._uart.any()  # one call for all of it: no time limit needed
        if not n:
            return b""
        return self._uart.read(min(n, limit)) or b""


class Serial(Outbox):
    """The USB serial port (sys.stdin/sys.stdout), read and written without ever blocking.
    write(text)/flush(): see launcher/protocol.py, Outbox."""

    chunk = TX_CHUNK

    def __init__(self):
        self._poll = select.poll()
        self._poll.register(sys.stdin, select.POLLIN)
        self._in = sys.stdin.buffer
        self._buf = bytearray()
        self._rx1 = bytearray(1)  # the byte a read takes
        self.fifo = self.ring = None  # launcher/usbcdc.py: the rp2 port's CDC FIFO and ring
        if sys.platform == "rp2":
            from launcher import usbcdc

            self.fifo, self.ring = usbcdc.find(machine.mem32, machine.mem16)
        self.closed = False
        # output: its own poll object (with stdout in self._poll, wait() would never idle);
        # sys.stdout.buffer writes raw bytes (sys.stdout.write turns "\n" into a second
        # write of "\r\n") and returns what the port took
        tx = select.poll()
        tx.register(sys.stdout, select.POLLOUT)
        self._write = sys.stdout.buffer.write
        put = self._write
        sim = getattr(machine, "sim_usb_write", None)  # never on a real Pico
        if sim is not None:
            put = sim(put)
        room = None
        if self.fifo is not None and self.fifo.at:
            room = self.fifo.free
            put = self._checked
        Outbox.__init__(self, tx, put, time.ticks_us, room)

    def _checked(self, buf):
        """A write sized by UsbTxFifo.free(), checked against the FIFO's write index for the
        first writes (UsbTxFifo.wrote); then the port's own write is used as it is."""
        fifo = self.fifo
        assert fifo is not None  # (only put in place where it was found)
        if len(buf) < 2:  # (a one-byte write may be POLLOUT's, the FIFO full: DTR clear)
            return self._write(buf)
        before = fifo.index()
        took = self._write(buf)
        fifo.wrote(before, len(buf))
        if not fifo.at:
            self._room = None  # not the FIFO it seemed: POLLOUT's byte, as before issue 32
            self._put = self._write
        elif fifo.checks <= 0:
            self._put = self._write
        return took

    def wait(self, timeout_ms):
        """Sleep until input arrives or timeout_ms passes (the loop's idle); True if input
        is there."""
        # poll, not ipoll: on the rp2 port (v1.28) an ipoll with a timeout here left the
        # USB output stalled until the next input came (found by tests/test_boards.py)
        return bool(self._poll.poll(timeout_ms))

    def read(self, limit=512, until=None):
        """Bytes waiting on the port (b"" if none), at most `limit` per call, and none read
        after `until` but the first (ticks_us: the loop's time slice; the inputs wait
        meanwhile, the rest stays in the port for the next call).

        One byte per poll: stdin's read(n)/readinto() wait for all n bytes, and a loop
        that waits for a line to finish could miss a press or starve the watchdog. The byte
        goes through a buffer allocated once: no garbage per byte.
        """
        buf = self._buf
        one = self._rx1
        ring = self.ring
        while len(buf) < limit:
            ready = False
            for _ in self._poll.ipoll(0):  # a method called, not kept: no bound method made
                ready = True
            if not ready:
                break
            if buf and until is not None and time.ticks_diff(time.ticks_us(), until) >= 0:
                break  # a byte at least per call, whatever the time
            n = ring.waiting() if ring is not None else 0
            if n > 1:  # all the ring holds in one call (it never waits: they are there)
                n = min(n, limit - len(buf))
                got = self._in.read(n)
                if len(got) != n:  # (never seen: the stream ended, the unix port only)
                    buf.extend(got)
                    self.closed = True
                    break
                if not buf:
                    # the usual case: what came is all in the ring, read in one call and
                    # handed on as it is (a later byte waits for the next call, at most an
                    # iteration): no copy, no new buffer
                    return got
                buf.extend(got)
                continue
            was = ring.before() if ring is not None and ring.maybe else None
            if not self._in.readinto(one):
                self.closed = True  # only on the unix port: the host closed our stdin
                break
            if was is not None and ring is not None:
                ring.after(was)
            buf.append(one[0])
        if not buf:
            return b""
        data = bytes(buf)
        self._buf = bytearray()
        return data
