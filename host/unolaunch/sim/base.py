"""What both simulated boards share: the serial device a host opens, the hardware reports,
the commands that drive the board from outside, and the relay thread's frame.

A board (:class:`unolaunch.sim.SimulatedLauncher` on the MicroPython unix port,
:class:`unolaunch.sim.rp2040.Rp2040Launcher` on the emulated RP2040) subclasses
:class:`SimBoard` and provides the thread's :meth:`SimBoard._step`, its commands
(:meth:`SimBoard._do_command`) and the board itself.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import json
import os
import queue
import threading
import time
import tty
from collections.abc import Callable
from pathlib import Path
from typing import Any, Self

from unolaunch.errors import UnolaunchError

HwEvent = dict[str, Any]

#: The largest ``seed`` (the protocol's ``seed`` command takes 0..SEED_MAX).
SEED_MAX = 0xFFFFFFFF

#: what a host's serial driver holds for a reader that is not reading (beyond: lost)
_UART_HOST_BUFFER = 64 * 1024
_HOST_BUFFER_MAX = 64 * 1024
#: a full port not read from for this long has no host listening (its oldest bytes go)
_HOST_GONE_S = 2.0
_SAFE_MODE = b'"event": "safe_mode"'  # the firmware's line (docs/protocol.md)
_TESTED = b'"event": "tested"'  # the end of a self-test's `test` (docs/protocol.md)
_HEARD_MAX = 4096  # the longest request line _watch_input keeps while it is incomplete

#: The stdin/control commands every board takes besides the physics' own lines.
BOARD_COMMANDS = ("unplug", "replug", "reset", "stall", "unstall")


class SimError(UnolaunchError):
    """The simulator cannot start or was used wrongly; the message says what to do."""


def parse_control(line: str) -> str:
    """Check one line for the fake board's control channel (docs/architecture.md §3); return it
    normalised. Raises :class:`SimError` naming the accepted forms for anything else."""
    words = line.split()
    n = len(words)
    ok = (n == 1 and words[0] in ("down", "up", "press", "jam", "unjam")) or (
        n == 2
        and (
            (words[0] in ("press", "load") and words[1].isdigit())
            or (words[0] == "beam" and words[1] in ("block", "clear"))
        )
    )
    if not ok:
        raise SimError(
            f"unknown board control {line.strip()!r}: use down, up, press [MS], jam, unjam, "
            "load N, beam block or beam clear"
        )
    return " ".join(words)


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


def set_nonblocking(fd: int) -> None:
    """O_NONBLOCK on ``fd``."""
    flags = fcntl.fcntl(fd, fcntl.F_GETFL)
    fcntl.fcntl(fd, fcntl.F_SETFL, flags | os.O_NONBLOCK)


def close_fd(fd: int | None) -> None:
    """Close ``fd`` if it is one, ignoring errors."""
    if fd is not None:
        with contextlib.suppress(OSError):
            os.close(fd)


#: A wait measured on a board's clock gives up after this many times as long on the host's
#: own clock, whatever the board's clock says (an emulator that stopped: the tests' safety
#: net; the emulated RP2040 ran at 0.02-0.4x real time on 2 busy cores).
WALL_FACTOR = 50


class BoardDeadline:
    """A timeout on a board's own clock (:meth:`SimBoard.board_seconds`): what the board
    does in ``timeout`` seconds of its time, however slowly a busy host runs it."""

    def __init__(self, board: SimBoard, timeout: float) -> None:
        self.board = board
        self.timeout = timeout
        self._board_end = board.board_seconds() + timeout
        self._wall_end = time.monotonic() + timeout * WALL_FACTOR

    def left(self) -> float:
        """Host seconds to wait before looking again (0: the time is up). A board's clock
        never runs ahead of the host's, so its time left is the longest wait that cannot
        overshoot; at most 0.2 s, to look at the board's clock again."""
        board_left = self._board_end - self.board.board_seconds()
        wall_left = self._wall_end - time.monotonic()
        if board_left <= 0 or wall_left <= 0:
            return 0.0
        return min(board_left, wall_left, 0.2)


class SimBoard:
    """The frame of a simulated launcher: a pty whose slave side (:attr:`port`) a host opens
    like a Pico's ``/dev/ttyACM0``, a relay thread, hardware reports and outside commands.
    See :class:`unolaunch.sim.SimulatedLauncher` for the arguments."""

    #: the board's name for ``--board``
    board = "unix"

    def __init__(
        self,
        flash_dir: str | os.PathLike[str] | None = None,
        cards: int = 112,
        sensor: bool = True,
        seed: int | None = None,
        firmware_dir: str | os.PathLike[str] | None = None,
        *,
        link: str | os.PathLike[str] | None = None,
        on_hw: Callable[[HwEvent], None] | None = None,
        uart: int | None = None,
        blank: bool = False,
    ) -> None:
        if cards < 0:
            raise SimError(f"cards must be 0 or more, not {cards}")
        if seed is not None and not 0 <= seed <= SEED_MAX:
            raise SimError(f"seed must be 0..{SEED_MAX} (the firmware's seed range), not {seed}")
        if uart not in (None, 0, 1):
            raise SimError(f"uart must be 0 or 1 (the RP2040 has UART0 and UART1), not {uart}")
        self._flash_arg = Path(flash_dir) if flash_dir is not None else None
        self._firmware_dir = Path(firmware_dir) if firmware_dir is not None else None
        self._blank = blank  # MicroPython only, no firmware on the flash (sim --blank)
        self._sensor = sensor
        self._seed = seed
        self._link_arg = Path(link) if link is not None else None
        self._on_hw = on_hw

        self._lock = threading.Condition()
        self._cards = cards
        self._plugged = True
        self._stalled = False
        self._events: list[HwEvent] = []
        self._boots = 0
        self._error: str | None = None

        self._tmp: Any = None  # tempfile.TemporaryDirectory while running
        self._flash: Path | None = None
        self._link: Path | None = None
        self._device: str | None = None
        self._master_a: int | None = None
        self._slave_a: int | None = None
        self._wake_r = self._wake_w = -1
        self._cmds: queue.SimpleQueue[tuple[str, threading.Event | None]] = queue.SimpleQueue()
        self._thread: threading.Thread | None = None
        self._stopping = False
        self._to_host = bytearray()
        self._host_full_since: float | None = None  # when the port last filled up
        # the host on the wires of UART `uart` (TX, RX pins): a second pty, see uart_port
        self._uart_id = uart
        self._uart_master: int | None = None
        self._uart_slave: int | None = None
        self._uart_device: str | None = None
        self._to_uart = bytearray()
        self._said_tail = b""  # the end of the firmware's output so far (_watch_output)
        self._heard = b""  # the host's incomplete last line so far (_watch_input)

    # ------------------------------------------------------------------ public API
    @property
    def port(self) -> str:
        """Path of the pty slave the host opens (changes only after :meth:`replug`)."""
        if self._device is None:
            raise SimError("the simulated launcher is not running (use it in a 'with' block)")
        return self._device

    @property
    def uart_port(self) -> str:
        """Path of the pty wired to the board's UART ``uart`` (its TX to the host, the host's
        bytes to its RX), as a USB-serial adapter on the Pico's pins would be."""
        if self._uart_device is None:
            raise SimError("no UART is wired to a host: start the launcher with uart=0 or 1")
        return self._uart_device

    @property
    def link(self) -> str:
        """A symlink that always points at the current device, across unplug/replug."""
        if self._link is None:
            raise SimError("the simulated launcher is not running (use it in a 'with' block)")
        return str(self._link)

    @property
    def flash_dir(self) -> Path:
        """The simulated flash: the folder the firmware runs in (its cwd)."""
        if self._flash is None:
            raise SimError("the simulated launcher is not running (use it in a 'with' block)")
        return self._flash

    @property
    def cards(self) -> int:
        """Cards in the magazine, as tracked from the board's reports and ``load``."""
        with self._lock:
            return self._cards

    @property
    def plugged(self) -> bool:
        """False between :meth:`unplug` and :meth:`replug`."""
        with self._lock:
            return self._plugged

    @property
    def boots(self) -> int:
        """How many times the board has started (power-on, soft reset, reset)."""
        with self._lock:
            return self._boots

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.close()

    def hw_events(self) -> list[HwEvent]:
        """Every hardware report seen so far (board reports and the simulator's own
        ``boot``/``usb`` reports), oldest first."""
        with self._lock:
            return list(self._events)

    def board_seconds(self) -> float:
        """The board's own clock, in seconds from an arbitrary start: the host's on the unix
        board (its firmware runs on real time); the emulated chip's on the rp2040 board,
        which runs below real time on a busy host."""
        return time.monotonic()

    def deadline(self, timeout: float) -> BoardDeadline:
        """A timeout of ``timeout`` seconds of the board's own time."""
        return BoardDeadline(self, timeout)

    def sleep(self, seconds: float) -> None:
        """Let ``seconds`` of the board's own time pass (a burst's brake, a card that may
        still come out): on the rp2040 board, as long as the chip takes to get there."""
        deadline = self.deadline(seconds)
        while (left := deadline.left()) > 0:
            time.sleep(left)

    def wait_hw(
        self, predicate: Callable[[HwEvent], bool], timeout: float = 5.0, start: int = 0
    ) -> HwEvent:
        """Wait for a hardware report (at index ``start`` or later) matching ``predicate``,
        for up to ``timeout`` seconds of the board's own time."""
        deadline = self.deadline(timeout)
        with self._lock:
            while True:
                for ev in self._events[start:]:
                    if predicate(ev):
                        return ev
                left = deadline.left()
                if left <= 0:
                    raise SimError(
                        f"no matching hardware report within {timeout} s of the board's time"
                    )
                self._lock.wait(left)

    def unplug(self) -> None:
        """Pull the USB cable: the board loses power, the device disappears (the host
        sees an I/O error), the link is removed."""
        self._command("unplug", wait=True)

    def replug(self) -> None:
        """Plug the cable back: a new device appears (the link points at it) and the
        board boots from its flash."""
        self._command("replug", wait=True)

    def reset(self) -> None:
        """Press the board's reset: the firmware restarts from ``main.py``; the device
        stays (the physical magazine and jam are kept)."""
        self._command("boot:reset", wait=True)

    # ------------------------------------------------------------------ setup

    def _open_usb(self) -> None:
        master, slave = os.openpty()
        tty.setraw(slave)  # what a host tty would look like to us: no echo, no translation
        set_nonblocking(master)
        self._master_a, self._slave_a = master, slave
        self._device = os.ttyname(slave)
        assert self._link is not None
        tmp_link = self._link.with_name(self._link.name + ".new")
        with contextlib.suppress(FileNotFoundError):
            tmp_link.unlink()
        tmp_link.symlink_to(self._device)
        tmp_link.replace(self._link)  # atomic: a host never sees a half-made link
        self._to_host.clear()

    def _open_uart(self) -> None:
        if self._uart_id is None:
            return
        master, slave = os.openpty()
        tty.setraw(slave)
        set_nonblocking(master)
        self._uart_master, self._uart_slave = master, slave
        self._uart_device = os.ttyname(slave)

    def _close_uart(self) -> None:
        close_fd(self._uart_master)
        close_fd(self._uart_slave)
        self._uart_master = self._uart_slave = None
        self._to_uart.clear()

    def _read_uart(self) -> bytes:
        """Bytes the host on the UART sent (b"" if none)."""
        if self._uart_master is None:
            return b""
        try:
            return os.read(self._uart_master, 65536)
        except OSError:  # nothing yet (or no host has it open)
            return b""

    def _flush_uart(self) -> None:
        """Bytes the board's UART sent, to its host. A UART has no back-pressure: a host
        that does not read keeps at most a serial driver's buffer of them (the oldest are
        lost beyond that); the board never waits for it."""
        master = self._uart_master
        if master is None:
            self._to_uart.clear()
            return
        while self._to_uart:
            try:
                n = os.write(master, self._to_uart)
            except BlockingIOError:
                if len(self._to_uart) > _UART_HOST_BUFFER:
                    del self._to_uart[: len(self._to_uart) - _UART_HOST_BUFFER]
                return
            except OSError:
                self._to_uart.clear()
                return
            del self._to_uart[:n]

    def _close_usb(self) -> None:
        if self._link is not None:
            with contextlib.suppress(FileNotFoundError):
                if self._link.is_symlink():
                    self._link.unlink()
        close_fd(self._master_a)
        close_fd(self._slave_a)
        self._master_a = self._slave_a = None
        self._to_host.clear()
        self._usb_closed()

    def _command(self, cmd: str, wait: bool = False) -> None:
        if self._thread is None:
            raise SimError("the simulated launcher is not running (use it in a 'with' block)")
        done = threading.Event() if wait else None
        self._cmds.put((cmd, done))
        self._wake()
        if done is not None and not done.wait(10):
            raise SimError(f"the simulator did not carry out {cmd!r}")

    def _wake(self) -> None:
        with contextlib.suppress(OSError):
            os.write(self._wake_w, b"x")

    def _report(self, ev: HwEvent) -> None:
        with self._lock:
            self._events.append(ev)
            self._lock.notify_all()
        if self._on_hw is not None:
            self._on_hw(ev)

    def _watch_output(self, data: bytes) -> None:
        """Bytes the firmware printed, on their way to the host: a start in safe mode (the
        button held through the boot) is reported as ``{"hw": "safe_mode"}``, since the
        launcher then silently does nothing."""
        seen = self._said_tail + data
        if _SAFE_MODE in seen and _SAFE_MODE not in self._said_tail:
            self._report({"hw": "safe_mode"})
        if _TESTED in seen and _TESTED not in self._said_tail:
            self._report({"hw": "selftest", "part": None})
        self._said_tail = seen[-max(len(_SAFE_MODE), len(_TESTED)) :]

    def _watch_input(self, data: bytes) -> None:
        """Bytes the host wrote, on their way to the board: a self-test's ``test`` request
        is reported as ``{"hw": "selftest", "part": PART}`` (and its ``tested`` event, by
        :meth:`_watch_output`, as ``part`` None), so that a reporter can show the buzzer
        and the LED while the person is asked whether they beeped and blinked."""
        lines = (self._heard + data).split(b"\n")
        self._heard = lines.pop()[-_HEARD_MAX:]
        for line in lines:
            if b'"test"' not in line:
                continue
            try:
                req = json.loads(line)
            except ValueError:
                continue
            if isinstance(req, dict) and req.get("cmd") == "test":
                part = req.get("part")
                if isinstance(part, str):
                    self._report({"hw": "selftest", "part": part})

    # --- bytes from the host

    def _flush_host(self) -> None:
        if self._master_a is None:
            self._to_host.clear()
            return
        if len(self._to_host) > _HOST_BUFFER_MAX:
            del self._to_host[: len(self._to_host) - _HOST_BUFFER_MAX]
        while self._to_host:
            try:
                n = os.write(self._master_a, self._to_host)
            except BlockingIOError:
                # The port is full. A host that reads, however slowly (a loaded machine),
                # gets everything; one that has not read for a while is taken for nobody
                # listening: drop the oldest unread output, as a Pico with no host listening
                # drops what it prints.
                now = time.monotonic()
                if self._host_full_since is None:
                    self._host_full_since = now
                if now - self._host_full_since < _HOST_GONE_S:
                    return
                assert self._slave_a is not None
                try:
                    dropped = os.read(self._slave_a, len(self._to_host))
                except OSError:
                    dropped = b""
                if not dropped:
                    return
                continue
            except OSError as exc:
                if exc.errno == errno.EIO:
                    self._to_host.clear()
                return
            del self._to_host[:n]
            self._host_full_since = None

    # ------------------------------------------------------------------ helpers

    def _plugged_now(self) -> bool:
        with self._lock:
            return self._plugged

    def __repr__(self) -> str:
        state = "running" if self._thread else "stopped"
        return f"<{type(self).__name__} {state} port={self._device!r} flash={self._flash}>"

    @property
    def stalled(self) -> bool:
        """True between :meth:`stall` and :meth:`unstall`."""
        with self._lock:
            return self._stalled

    def stall(self) -> None:
        """The USB host stops reading the board's output while the port stays open (a
        paused terminal, a host blocked in ``input()``); :meth:`unstall` resumes."""
        self._command("stall", wait=True)

    def unstall(self) -> None:
        """The USB host reads the board's output again (after :meth:`stall`)."""
        self._command("unstall", wait=True)

    def _check_flash_dir(self) -> None:
        flash = self._flash_arg
        if flash is not None and flash.exists() and not flash.is_dir():
            raise SimError(f"--flash-dir {flash} is a file, not a folder: choose a folder")
        if self._blank and flash is not None and flash.is_dir() and any(flash.iterdir()):
            # a blank board is a fresh Pico: never made by wiping what a flash already holds
            raise SimError(
                f"--blank: {flash} already holds a board's flash; give --blank a new or empty "
                "folder (or leave out --flash-dir)"
            )

    def _check_link(self, tmp: Path) -> None:
        if self._link_arg is not None and self._link_arg.exists():
            raise SimError(
                f"{self._link_arg} already exists (another simulator's link?): "
                "choose another link path"
            )
        self._link = self._link_arg or tmp / "ttyACM0"

    def _start_thread(self) -> None:
        self._thread = threading.Thread(target=self._run, name="unolaunch-sim", daemon=True)
        self._thread.start()
        try:
            self._command("boot:power_on", wait=True)
        except BaseException:
            self.close()
            raise
        if self._error is not None:
            error = self._error
            self.close()
            raise SimError(error)

    def close(self) -> None:
        """Stop the board and remove the device, the link and any temporary flash."""
        if self._thread is not None:
            self._stopping = True
            self._wake()
            self._thread.join(timeout=30)
            if self._thread.is_alive():
                # Never close fds under a live relay thread: the numbers would be reused by
                # the next pty and the thread would read someone else's port.
                self._emergency_stop()
                raise SimError("the simulator's relay thread did not stop; its fds are left open")
            self._thread = None
        self._cleanup()

    def _run(self) -> None:
        try:
            while not self._stopping:
                self._step()
        except Exception as exc:  # keep the reason for whoever looks; never a traceback
            with self._lock:
                if isinstance(exc, SimError):
                    self._error = str(exc)
                else:
                    self._error = f"the simulator failed: {type(exc).__name__}: {exc}"
                self._lock.notify_all()
        finally:
            self._board_off()

    def _do_queued(self) -> None:
        """Carry out the commands queued by the public methods (on the relay thread)."""
        while True:
            try:
                cmd, done = self._cmds.get_nowait()
            except queue.Empty:
                break
            try:
                self._do_command(cmd)
            finally:
                if done is not None:
                    done.set()

    # --- what a board provides
    def start(self) -> Self:
        """Prepare the flash, open the device and boot the board; returns ``self``."""
        raise NotImplementedError

    def _step(self) -> None:
        raise NotImplementedError

    def control(self, line: str) -> None:
        """Send one control line to the launcher's mechanics (docs/architecture.md §3), e.g.
        ``press``, ``press 800``, ``jam``, ``load 40``."""
        raise NotImplementedError

    def _do_command(self, cmd: str) -> None:
        raise NotImplementedError

    def _board_off(self) -> None:
        """The board stops for good (the relay thread ends)."""

    def _emergency_stop(self) -> None:
        """Kill whatever runs the board when its thread does not stop."""

    def _usb_closed(self) -> None:
        """The device went away: drop the host's bytes in flight to the board."""

    def _cleanup(self) -> None:
        self._close_usb()
        self._close_uart()
        for fd in (self._wake_r, self._wake_w):
            if fd >= 0:
                close_fd(fd)
        self._wake_r = self._wake_w = -1
        if self._tmp is not None:
            self._tmp.cleanup()
            self._tmp = None
