# A fake `machine` module for running the launcher firmware under the MicroPython unix port
# (MicroPython code). It offers the subset of the rp2 port's machine API the firmware uses -
# Pin (with irq), PWM, WDT, Timer, reset, mem32 - backed by simworld.WORLD, the physical
# launcher model. Files on MICROPYPATH override the unix port's built-in `machine`.
import time

from simworld import WORLD

SIM_CHIP = "rp2040"  # the chip this fake board models
# The simulator's --seed (UNOLAUNCH_SIM_SEED) or None: board.random_seed() seeds the
# firmware's ejection pattern from it instead of os.urandom, so a seeded run repeats.
SIM_SEED = WORLD.seed

# The unix board's USB as the rp2 port's (issues 20, 32), when the runner says what a write
# costs (`unolaunch sim` does; the firmware tests over pipes do not): every write costs the
# firmware the chip time it costs on rp2 (a call, whatever its length: the firmware writes a
# line, or what of it the FIFO takes, at once), with the mechanics running on
# (simworld.World.charge) - so a firmware that stops watching its inputs while it writes
# loses presses and cards here as it does on a Pico.
if WORLD.usb_write_us:

    def sim_usb_write(put):
        def write(buf):
            took = put(buf)
            WORLD.charge(WORLD.usb_write_us)
            return took

        return write


PWRON_RESET = 1
WDT_RESET = 3
# What the last hard reset was (the runner says; on rp2 machine.reset() goes through the
# watchdog too, so both read WDT_RESET); a soft reset keeps it, as on a Pico.
_RESET_CAUSE = WDT_RESET if WORLD.reset_cause in ("wdt", "reset") else PWRON_RESET


class Pin:
    IN = 0
    OUT = 1
    OPEN_DRAIN = 2
    ALT = 3
    PULL_UP = 1
    PULL_DOWN = 2
    IRQ_FALLING = 4
    IRQ_RISING = 8

    # rp2's Pin takes (id, mode, pull) and the keywords value= and alt= only (TypeError
    # for anything else, like the port's argument parser)
    def __init__(self, id, mode=-1, pull=-1, *, value=None, alt=-1):
        if not (type(id) is int and 0 <= id <= 29) and id != "LED":
            raise ValueError("invalid pin")  # an RP2040 has GPIO0..29 (+ "LED" on a Pico W)
        self.id = id
        self._mode = Pin.IN
        self._pull = None
        self._handler = None
        self._trigger = 0
        self._hard = False
        self._out = 0
        self.init(mode, pull, value=value)

    def init(self, mode=-1, pull=-1, *, value=None, alt=-1):
        if mode != -1:
            self._mode = mode
        if pull != -1:
            self._pull = pull
        if value is not None:
            self._out = 1 if value else 0
        if self._mode == Pin.OUT:
            WORLD.set_drive(self.id, float(self._out))

    def value(self, x=None):
        if x is None:
            WORLD.update()
            if WORLD.glitches:
                WORLD.glitches -= 1
                raise OSError(5, "simulated pin glitch")
            if self._mode == Pin.OUT:
                return self._out
            return WORLD.input_level(self.id, self._pull)
        self._out = 1 if x else 0
        if self._mode == Pin.OUT:
            WORLD.set_drive(self.id, float(self._out))
        return None

    def __call__(self, x=None):
        return self.value(x)

    def on(self):
        self.value(1)

    def off(self):
        self.value(0)

    def high(self):
        self.value(1)

    def low(self):
        self.value(0)

    def toggle(self):
        self.value(0 if self._out else 1)

    def irq(self, handler=None, trigger=12, hard=False):
        self._handler = handler
        self._trigger = trigger
        self._hard = hard
        if handler is None:
            WORLD.irq_pins.pop(self.id, None)
        else:
            WORLD.irq_pins[self.id] = self
        return None

    def _fire(self, level):
        if self._handler is None:
            return
        if (level and self._trigger & Pin.IRQ_RISING) or (
            not level and self._trigger & Pin.IRQ_FALLING
        ):
            # a hard IRQ runs at the edge (the world applies edges as its clock reaches
            # them); a soft one is scheduled, and the scheduler's queue holds 8
            # (MICROPY_SCHEDULER_DEPTH): an edge past that is lost
            if self._hard:
                self._handler(self)
            elif len(WORLD.sched) < SCHED_DEPTH:
                WORLD.sched.append((self._handler, self))
            else:
                WORLD.sched_lost += 1

    def __repr__(self):
        return "Pin(%r)" % (self.id,)


SCHED_DEPTH = 8

# RP2040 PWM: GPIO n is slice (n >> 1) & 7, channel n & 1; GPn and GPn+16 are one output and
# the two channels of a slice share one frequency. State lives per slice/channel, as in the
# chip: a PWM object is only a view of its channel.
_SLICE_FREQ = {}  # slice -> Hz
_CHANNEL_DUTY = {}  # (slice, channel) -> duty_u16
_PWM_PINS = set()  # pins muxed to PWM


def _channel(pin):
    return ((pin >> 1) & 7, pin & 1)


def _drive_channel(ch):
    slice_ = ch[0]
    duty = _CHANNEL_DUTY.get(ch, 0)
    for pin in _PWM_PINS:
        if _channel(pin) == ch:
            WORLD.pwm_freq[pin] = _SLICE_FREQ.get(slice_, 0)
            WORLD.set_drive(pin, duty / 65535)


class PWM:
    def __init__(self, dest, freq=None, duty_u16=None, duty_ns=None, invert=False):
        self.pin = dest.id if isinstance(dest, Pin) else dest
        self._ch = _channel(self.pin)
        _PWM_PINS.add(self.pin)
        if self._ch[0] not in _SLICE_FREQ:
            _SLICE_FREQ[self._ch[0]] = 1000
        self.init(freq=freq, duty_u16=duty_u16)

    def init(self, freq=None, duty_u16=None, duty_ns=None, invert=False):
        if freq is not None:
            self.freq(freq)
        if duty_u16 is not None:
            self.duty_u16(duty_u16)

    def freq(self, value=None):
        if value is None:
            return _SLICE_FREQ.get(self._ch[0], 0)
        if value < 8:
            raise ValueError("freq too small")
        if value > 62500000:
            raise ValueError("freq too large")
        slice_ = self._ch[0]
        _SLICE_FREQ[slice_] = value
        _drive_channel((slice_, 0))  # both channels of the slice change frequency
        _drive_channel((slice_, 1))
        return None

    def duty_u16(self, value=None):
        if value is None:
            return _CHANNEL_DUTY.get(self._ch, 0)
        if not 0 <= value <= 65535:
            raise ValueError("duty_u16 must be 0..65535")
        _CHANNEL_DUTY[self._ch] = value
        _drive_channel(self._ch)
        return None

    def duty_ns(self, value=None):
        period_ns = 1000000000 // self.freq()
        if value is None:
            return self.duty_u16() * period_ns // 65535
        self.duty_u16(min(65535, value * 65535 // period_ns))
        return None

    def deinit(self):
        # rp2 stops the slice: the output freezes at whatever level it had (it does not
        # go low). Modelled as high when the duty was at least half.
        level = 1.0 if _CHANNEL_DUTY.get(self._ch, 0) >= 32768 else 0.0
        for pin in _PWM_PINS:
            if _channel(pin)[0] == self._ch[0]:
                WORLD.pwm_freq[pin] = 0
                WORLD.set_drive(pin, level if _channel(pin) == self._ch else WORLD.level(pin))


class WDT:
    def __init__(self, id=0, timeout=5000):
        if not 1 <= timeout <= 8388:
            raise ValueError("timeout out of range")  # the RP2040's limit
        WORLD.wdt_timeout = timeout
        WORLD.wdt_fed = time.ticks_ms()

    def feed(self):
        WORLD.update()  # a feed that comes too late finds the board already reset
        WORLD.wdt_fed = time.ticks_ms()


class Timer:
    ONE_SHOT = 0
    PERIODIC = 1

    def __init__(self, id=-1, **kwargs):
        self._callback = None
        self._period = 0
        self._next = 0
        self._mode = Timer.PERIODIC
        if kwargs:
            self.init(**kwargs)

    def init(self, mode=PERIODIC, freq=-1, period=-1, callback=None, tick_hz=1000, hard=True):
        if freq > 0:
            period = max(1, 1000 // freq)
        self._mode = mode
        self._period = max(1, period)
        self._callback = callback
        self._next = time.ticks_add(time.ticks_ms(), self._period)
        if self not in WORLD.timers:
            WORLD.timers.append(self)

    def deinit(self):
        if self in WORLD.timers:
            WORLD.timers.remove(self)

    def _due(self, now):
        if self._callback is None or time.ticks_diff(now, self._next) < 0:
            return
        if self._mode == Timer.PERIODIC:
            self._next = time.ticks_add(self._next, self._period)
        else:
            self.deinit()
        self._callback(self)


_UART_TX = {0: (0, 12, 16, 28), 1: (4, 8, 20, 24)}
_UART_RX = {0: (1, 13, 17, 29), 1: (5, 9, 21, 25)}


class UART:
    # RP2040 has UART0 and UART1; bytes travel over simworld's UART fds (if any)
    def __init__(self, id, baudrate=9600, bits=8, parity=None, stop=1, **kwargs):
        if id not in (0, 1):
            raise ValueError("UART(%r) doesn't exist" % (id,))
        for key, table, what in (("tx", _UART_TX, "TX"), ("rx", _UART_RX, "RX")):
            pin = kwargs.get(key)
            if pin is not None:
                num = pin.id if isinstance(pin, Pin) else pin
                if num not in table[id]:
                    raise ValueError("bad %s pin" % what)
        self.id = id
        self.baudrate = baudrate
        self._buf = b""

    def _fill(self):
        poll = WORLD.uart_rx_poll
        while poll is not None and len(self._buf) < 1024 and poll.poll(0):
            c = WORLD.uart_rx.read(1)
            if not c:
                poll.unregister(WORLD.uart_rx)
                WORLD.uart_rx_poll = None
                break
            self._buf += c

    def any(self):
        WORLD.update()
        self._fill()
        return len(self._buf)

    def read(self, nbytes=None):
        self._fill()
        if not self._buf:
            return None
        n = len(self._buf) if nbytes is None else nbytes
        data, self._buf = self._buf[:n], self._buf[n:]
        return data

    def write(self, buf):
        data = buf.encode() if isinstance(buf, str) else bytes(buf)
        if WORLD.uart_tx is not None and not WORLD.dead:
            WORLD.uart_tx.write(data)
        return len(data)


# Addresses that exist on an RP2040 (ROM, flash XIP, SRAM, APB/AHB peripherals, SIO, the
# Cortex-M0+ registers); anything else is a bus fault on the chip.
_MEM = (
    (0x00000000, 0x00004000),
    (0x10000000, 0x10200000),
    (0x20000000, 0x20042000),
    (0x40000000, 0x40070000),
    (0x50000000, 0x50400000),
    (0xD0000000, 0xD0000200),
    (0xE0000000, 0xE0010000),
)


def _check_addr(addr):
    if addr & 3:
        raise ValueError("address must be aligned")
    for lo, hi in _MEM:
        if lo <= addr & 0xFFFFCFFF < hi:  # with the atomic set/clear/xor aliases
            return
    raise ValueError("no RP2040 memory at 0x%08x (a bus fault on the chip)" % addr)


_WDT = 0x40058000  # the RP2040 watchdog block
_WDT_REASON = _WDT + 0x08
_WDT_SCRATCH0 = _WDT + 0x0C
_WDT_SCRATCH1 = _WDT + 0x10
_BOOT_MS = time.ticks_ms()  # this process's start: the chip's clock starts here on a hard boot


class _Mem:
    # The watchdog block as far as the firmware reads it: CTRL (a write of the ENABLE bit,
    # bit 30, to its atomic-clear alias stops the watchdog), REASON (bit 0 TIMER after a
    # timeout, bit 1 FORCE after machine.reset(); a soft reset keeps it) and SCRATCH0/1
    # (kept by a soft reset and a watchdog reboot, cleared at power-on). The runner keeps
    # them across processes (WORLD.wdt_regs). The unix port's ticks_ms never restarts, the
    # chip's restarts at every hard reset: a SCRATCH value read after a hard boot is shifted
    # by this process's start, so it reads as that chip would.
    def __getitem__(self, addr):
        _check_addr(addr)
        if addr == _WDT:
            return (1 << 30) if WORLD.wdt_timeout is not None else 0
        if addr == _WDT_REASON:
            return WORLD.wdt_regs[0]
        if addr == _WDT_SCRATCH0 or addr == _WDT_SCRATCH1:
            i = 1 if addr == _WDT_SCRATCH0 else 2
            value = WORLD.wdt_regs[i]
            if i == 2 and WORLD.hard_boot and WORLD.wdt_regs[4]:
                value = time.ticks_add(_BOOT_MS, WORLD.wdt_regs[3])  # the uptime it held
            return value
        return 0

    def __setitem__(self, addr, value):
        _check_addr(addr)
        if addr == _WDT + 0x3000 and value & (1 << 30):
            WORLD.wdt_timeout = None
        elif addr == _WDT_SCRATCH0 or addr == _WDT_SCRATCH1:
            regs = WORLD.wdt_regs
            if addr == _WDT_SCRATCH0:
                regs[1] = value & 0xFFFFFFFF
            else:
                regs[2] = value & 0xFFFFFFFF
                regs[3] = time.ticks_diff(value, _BOOT_MS)  # as the chip's uptime
                regs[4] = 1
                WORLD.hard_boot = False  # written in this boot: this process's clock
            WORLD.report({"hw": "wdt_regs", "regs": regs})


mem32 = _Mem()


def sim_replay(data):
    """The unix board's stand-in for os.dupterm (which the unix port lacks): bytes the
    firmware read but that belong to the REPL it hands over to (mpremote's Ctrl-A after its
    Ctrl-C) go back through the simulator, which gives them to the REPL once it waits."""
    WORLD.report({"hw": "replay", "data": bytes(data).hex()})


def reset():
    WORLD.reset("reset")


def soft_reset():
    WORLD.reset("reset")


def reset_cause():
    return _RESET_CAUSE


def idle():
    WORLD.update()


def freq(hz=None):
    return 125000000 if hz is None else None


def unique_id():
    return b"unolnch1"


def disable_irq():
    # as rp2's (PRIMASK): pin edges and timers wait, latched, until interrupts are on again
    state = WORLD.irq_off
    WORLD.irq_off = 1
    return state


def enable_irq(state=0):
    WORLD.irq_off = 1 if state else 0
    if not state:
        WORLD.deliver()


def time_pulse_us(pin, pulse_level, timeout_us=1000000):
    return -1
