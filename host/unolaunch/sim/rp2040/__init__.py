"""The second simulated board: MicroPython's real rp2 port in an emulated RP2040.

:class:`Rp2040Launcher` has the public API of :class:`unolaunch.sim.SimulatedLauncher` (a
pty that hosts open like ``/dev/ttyACM0``, the same controls and hardware reports) but
behind the pty runs the MicroPython firmware a user flashes onto a Pico, in the
``rp2040js`` emulator (npm, under node; ``runner.js`` beside this file covers what the stock
emulator lacks: a writable flash, USB input past 512 bytes, a CPU that sleeps, pulled-up
inputs, watchdog resets, a USB host that stops reading).

The launcher's mechanics are the one model both boards use (``board/physics.py``), run here
in CPython in lockstep with the chip: the runner stops at every change of an output the
model watches (the H-bridge inputs, buzzer, LED) and at every time the model grants; the
model answers with the levels of the button and beam, so the firmware sees the physics on
the emulated chip's clock however slow the host machine is.

The binaries (MicroPython's ``.uf2`` for the Pico and the RP2040 boot ROM) are not part of
unolaunch: :func:`find_rp2_files` reads them from ``--rp2-dir`` or ``UNOLAUNCH_RP2_DIR``.
"""

from __future__ import annotations

import base64
import contextlib
import fcntl
import importlib
import json
import os
import shutil
import subprocess
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from unolaunch.rp2image import (
    FLASH_SIZE,
    FlashImageError,
    build_image,
    find_micropython_uf2,
    load_image,
    read_files,
    write_files,
)
from unolaunch.sim.base import (
    HwEvent,
    SimBoard,
    SimError,
    close_fd,
    parse_control,
    set_nonblocking,
)
from unolaunch.sim.rp2040.bootrom import copy_uf2

__all__ = [
    "RP2040JS_VERSION",
    "Rp2Files",
    "Rp2040Launcher",
    "ensure_rp2040js",
    "find_node",
    "find_rp2_files",
]

#: The emulator, from the npm registry (pinned; pyproject's [tool.unolaunch] says the same).
RP2040JS_VERSION = "1.4.1"
RUNNER_JS = Path(__file__).resolve().with_name("runner.js")
NODE_MIN = 18
UF2_URL = "https://micropython.org/download/RPI_PICO/"
BOOTROM_URL = "https://github.com/raspberrypi/pico-bootrom-rp2040 (b1 release)"

#: How far the chip may run ahead of the model while nothing moves (the model grants more
#: at once; a control from outside halts the chip at once anyway).
IDLE_GRANT_US = 100_000
#: The model's step while the roller turns.
BUSY_GRANT_US = 1_000
_READY_TIMEOUT_S = 30.0
_SOFT_REBOOT = b"MPY: soft reboot"
_HOST_IN_MAX = 64 * 1024
_NL_KEPT = 4096  # newline times kept for usb_line_times() (the newest)


@dataclass
class EdgeWatch:
    """Input edges the emulated chip took through the firmware's hard pin IRQs (issue 20):
    how many, per pin, and the longest any of them waited, in the chip's microseconds."""

    edges: int = 0
    per_pin: dict[int, int] = field(default_factory=dict)
    waited_us_max: float = 0.0

    def took(self, pin: int, waited_ns: int) -> None:
        """Count one edge on ``pin`` taken ``waited_ns`` after it happened."""
        self.edges += 1
        self.per_pin[pin] = self.per_pin.get(pin, 0) + 1
        self.waited_us_max = max(self.waited_us_max, waited_ns / 1000)


@dataclass(frozen=True)
class Rp2Files:
    """The two binaries the emulated board needs."""

    uf2: Path
    bootrom: Path


def find_rp2_files(rp2_dir: str | os.PathLike[str] | None = None) -> Rp2Files:
    """The MicroPython ``.uf2`` and boot ROM in ``rp2_dir`` (default: ``UNOLAUNCH_RP2_DIR``).

    Raises :class:`SimError` that says exactly which file is missing and where it comes from.
    """
    where = rp2_dir if rp2_dir is not None else os.environ.get("UNOLAUNCH_RP2_DIR")
    need = (
        f"a folder holding MicroPython's .uf2 for the Raspberry Pi Pico ({UF2_URL}) and the "
        f"RP2040 boot ROM image rp2040-bootrom-b1.bin ({BOOTROM_URL})"
    )
    if not where:
        raise SimError(f"the rp2040 board needs --rp2-dir DIR or UNOLAUNCH_RP2_DIR: {need}")
    folder = Path(where)
    if not folder.is_dir():
        raise SimError(f"--rp2-dir {folder} is not a folder: it must be {need}")
    try:
        uf2 = find_micropython_uf2(folder, need="the rp2040 board runs it")
    except FlashImageError as exc:
        raise SimError(str(exc)) from None
    roms = sorted(p for p in folder.glob("*bootrom*.bin") if p.is_file())
    if not roms:
        raise SimError(
            f"no RP2040 boot ROM in {folder}: put rp2040-bootrom-b1.bin there (16384 bytes, "
            f"built from {BOOTROM_URL}); MicroPython calls the ROM's flash and float routines"
        )
    rom = roms[0]
    if rom.stat().st_size != 16384:
        raise SimError(
            f"{rom} is {rom.stat().st_size} bytes, not a 16384-byte RP2040 boot ROM image: "
            f"get rp2040-bootrom-b1.bin from {BOOTROM_URL}"
        )
    return Rp2Files(uf2, rom)


def find_node() -> str:
    """The ``node`` command (18 or later) that runs the emulator."""
    node = shutil.which("node") or shutil.which("nodejs")
    if node is None:
        raise SimError(
            f"the rp2040 board runs in node, which is not installed: install Node.js "
            f"{NODE_MIN} or later (Debian: apt-get install nodejs npm)"
        )
    try:
        out = subprocess.run(
            [node, "--version"], capture_output=True, text=True, timeout=30
        ).stdout.strip()
        major = int(out.lstrip("v").split(".")[0])
    except (OSError, ValueError, subprocess.TimeoutExpired):
        raise SimError(f"{node} --version did not answer: reinstall Node.js") from None
    if major < NODE_MIN:
        raise SimError(
            f"{node} is Node.js {out}; the rp2040 board needs {NODE_MIN} or later: upgrade it"
        )
    return node


def cache_dir() -> Path:
    """Where unolaunch keeps what it installs on first use (``UNOLAUNCH_CACHE_DIR``, or the
    user's cache folder)."""
    given = os.environ.get("UNOLAUNCH_CACHE_DIR")
    if given:
        return Path(given)
    from platformdirs import user_cache_dir

    return Path(user_cache_dir("unolaunch"))


def ensure_rp2040js(say: Callable[[str], None] | None = None) -> Path:
    """The ``rp2040js`` package folder, installed with npm into the cache on first use
    (the exact pinned version, never globally). Safe against parallel first uses."""
    prefix = cache_dir() / "npm" / f"rp2040js-{RP2040JS_VERSION}"
    package = prefix / "node_modules" / "rp2040js"
    marker = package / "package.json"

    def installed() -> bool:
        try:
            return bool(json.loads(marker.read_text()).get("version") == RP2040JS_VERSION)
        except (OSError, ValueError):
            return False

    if installed():
        return package
    npm = shutil.which("npm")
    if npm is None:
        raise SimError(
            "the rp2040 board needs the rp2040js emulator from npm, and npm is not installed: "
            "install it (Debian: apt-get install npm)"
        )
    prefix.mkdir(parents=True, exist_ok=True)
    with open(prefix / ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # another process may be installing it right now
        if installed():
            return package
        if say is not None:
            say(f"installing the RP2040 emulator (rp2040js {RP2040JS_VERSION}) into {prefix}")
        proc = subprocess.run(
            [
                npm,
                "install",
                "--prefix",
                str(prefix),
                "--no-audit",
                "--no-fund",
                "--no-save",
                "--loglevel=error",
                f"rp2040js@{RP2040JS_VERSION}",
            ],
            capture_output=True,
            text=True,
            timeout=600,
        )
        if proc.returncode != 0 or not installed():
            detail = (proc.stderr or proc.stdout).strip().splitlines()
            raise SimError(
                f"npm could not install rp2040js {RP2040JS_VERSION} into {prefix} "
                f"({detail[-1] if detail else 'no output'}): check the network to the npm "
                "registry, then try again"
            )
    return package


def sensorless(image: bytearray, firmware: Path) -> bool:
    """:func:`unolaunch.sim.configure_without_sensor` for a flash image: the same rule, the
    same code, applied to the ``launcher.json`` in the image's filesystem."""
    from unolaunch.sim.base import configure_without_sensor

    current = read_files(image).get("launcher.json")
    with tempfile.TemporaryDirectory(prefix="unolaunch-cfg-") as tmp:
        folder = Path(tmp)
        (folder / "launcher").symlink_to(firmware / "launcher", target_is_directory=True)
        if current is not None:
            (folder / "launcher.json").write_bytes(current)
        if not configure_without_sensor(folder):
            return False
        write_files(image, {"launcher.json": (folder / "launcher.json").read_bytes()})
    return True


class Rp2040Launcher(SimBoard):
    """A simulated launcher on the emulated RP2040 (see the module's text).

    The arguments are :class:`unolaunch.sim.SimulatedLauncher`'s, except that the flash is
    one image file: ``flash_dir/flash.bin`` when ``flash_dir`` is given (kept between runs,
    built on first use), otherwise a temporary one. A new image holds MicroPython from the
    ``.uf2`` and the firmware exactly as ``unolaunch flash`` would copy it (``.mpy`` files
    from mpy-cross), or with ``blank=True`` MicroPython alone (an empty filesystem).
    ``rp2_dir`` is where the ``.uf2`` and boot ROM are (:func:`find_rp2_files`).

    ``uf2`` (a ``.uf2`` file's bytes) is copied onto the board in BOOTSEL mode before it
    starts, as its boot ROM writes it (:mod:`~unolaunch.sim.rp2040.bootrom`): over the kept
    image, or over a blank (erased) flash, with nothing else written to it.
    """

    board = "rp2040"

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
        rp2_dir: str | os.PathLike[str] | None = None,
        blank: bool = False,
        uf2: bytes | None = None,
    ) -> None:
        if seed is not None:
            # The rp2 port seeds the pattern from the chip's entropy (os.urandom), which the
            # simulator cannot reach into without changing the firmware a Pico runs.
            raise SimError(
                "--seed works on the unix board only: on the rp2040 board send the protocol's "
                "seed command (the pattern restarts from it), as 'unolaunch demo' does"
            )
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
        self._rp2_dir = rp2_dir
        self._uf2 = uf2
        self._node: subprocess.Popen[bytes] | None = None
        self._to_node = -1
        self._from_node = -1
        self._node_buf = b""
        self._node_out = bytearray()
        self._usb_up = False  # the chip's USB CDC is enumerated and connected
        self._host_in = bytearray()  # host bytes held until it is
        self._image: Path | None = None
        self._world: Any = None
        self._t_us = 0  # the chip's clock at its last stop
        self._waiting = False  # the chip is stopped, waiting for a grant
        self._pending: list[str] = []  # controls for the model at the chip's next stop
        self._levels: dict[int, int] = {}  # input levels to send before the next grant
        self._tail = b""
        self._stderr: Any = None
        self._edges = EdgeWatch()
        self._nl_in: list[int] = []  # chip us of each host newline the device took
        self._nl_out: list[int] = []  # chip us of each device newline the host took

    # ------------------------------------------------------------------ public API
    def board_seconds(self) -> float:
        """The emulated chip's clock (its time where it last stopped), in seconds."""
        return self._t_us / 1e6

    def inputs_watch(self) -> EdgeWatch:
        """How the chip took the input edges the world made since the last call (and starts
        a new count): each edge waits from its instant until the firmware's hard pin IRQ
        has taken it, in the chip's own time (issue 20: ``waited_us_max`` is how long the
        button or the beam went unobserved)."""
        with self._lock:
            watch, self._edges = self._edges, EdgeWatch()
        return watch

    def usb_line_times(self) -> tuple[list[int], list[int]]:
        """The chip's clock (µs) at each newline that crossed USB since the last call (and
        starts anew): (the host's, as the device took them; the device's, as the host took
        them). A request's round trip in chip time is its reply's newline minus its own
        (issue 32; runner.js, 15.)."""
        with self._lock:
            got = (self._nl_in, self._nl_out)
            self._nl_in, self._nl_out = [], []
        return got

    @property
    def pid(self) -> int | None:
        """Process id of the node running the emulated chip."""
        node = self._node
        return node.pid if node is not None else None

    @property
    def flash_image(self) -> Path:
        """The flash image file (2 MiB) the emulated chip reads and writes."""
        if self._image is None:
            raise SimError("the simulated launcher is not running (use it in a 'with' block)")
        return self._image

    def flash_files(self) -> dict[str, bytes]:
        """The files on the board's filesystem now (path -> bytes)."""
        return read_files(load_image(self.flash_image))

    def start(self) -> Rp2040Launcher:
        """Prepare the flash, open the device and boot the board; returns ``self``."""
        if self._thread is not None:
            raise SimError("this simulated launcher is already running")
        self._check_flash_dir()
        files = find_rp2_files(self._rp2_dir)
        node = find_node()
        package = ensure_rp2040js()
        self._tmp = tempfile.TemporaryDirectory(prefix="unolaunch-rp2040-")
        tmp = Path(self._tmp.name)
        try:
            self._flash = self._flash_arg if self._flash_arg is not None else tmp / "flash"
            self._image = self._prepare_image(files)
            self._check_link(tmp)
            self._wake_r, self._wake_w = os.pipe()
            for fd in (self._wake_r, self._wake_w):
                set_nonblocking(fd)
            self._world = self._make_world()
            self._spawn_node(node, package, files)
            self._open_usb()
            self._open_uart()
        except BaseException:
            self._cleanup()
            raise
        self._start_thread()
        return self

    def control(self, line: str) -> None:
        """A control line for the launcher's mechanics (``press``, ``jam``, ``load 40``...),
        carried out at the emulated chip's next stop, which it makes at once."""
        line = parse_control(line)
        verb, *rest = line.split()
        if verb == "load":
            with self._lock:
                self._cards = int(rest[0])
        self._command("ctl:" + line, wait=True)

    # ------------------------------------------------------------------ setup
    def _prepare_image(self, files: Rp2Files) -> Path:
        flash = self._flash
        assert flash is not None
        flash.mkdir(parents=True, exist_ok=True)
        path = flash / "flash.bin"
        if path.exists():
            try:
                image = load_image(path)
            except FlashImageError as exc:
                raise SimError(str(exc)) from None
            changed = False
        elif self._uf2 is not None:
            image = bytearray(b"\xff" * FLASH_SIZE)  # a chip fresh from the factory
            changed = True
        else:
            image = self._fresh_image(files)
            changed = True
        if self._uf2 is not None:
            # what is on the flash now is the UF2's doing alone, as on a Pico
            if not copy_uf2(image, self._uf2):
                raise SimError(
                    "the .uf2 copied onto the board is incomplete or not for an RP2040: a "
                    "Pico would stay in BOOTSEL mode, waiting for the rest"
                )
            changed = True
        elif not self._sensor and not (self._blank and changed):
            # (a blank flash has no firmware to configure, as on the unix board)
            changed = sensorless(image, self._source()) or changed
        if changed:
            tmp_path = path.with_name(path.name + ".new")
            tmp_path.write_bytes(image)
            tmp_path.replace(path)
        return path

    def _source(self) -> Path:
        if self._firmware_dir is not None:
            return self._firmware_dir
        from unolaunch import firmware_dir

        return firmware_dir()

    def _fresh_image(self, files: Rp2Files) -> bytearray:
        from unolaunch.flash import FlashError, build_files

        try:
            if self._blank:  # MicroPython's .uf2 and an empty filesystem, as a fresh Pico
                return build_image(files.uf2.read_bytes(), {}, str(files.uf2))
            board_files = build_files(self._source(), compile=True, mpy_version=6)
            return build_image(
                files.uf2.read_bytes(), {f.path: f.data for f in board_files}, str(files.uf2)
            )
        except (FlashError, FlashImageError) as exc:
            raise SimError(str(exc)) from None

    def _make_world(self) -> Any:
        # MicroPython code shared with the unix board (not type-checked here)
        physics = importlib.import_module("unolaunch.sim.board.physics")
        with self._lock:
            cards = self._cards
        return physics.Launcher(cards, self._sensor, self._report_physics, self._level)

    def _spawn_node(self, node: str, package: Path, files: Rp2Files) -> None:
        assert self._image is not None and self._tmp is not None
        to_r, to_w = os.pipe()
        from_r, from_w = os.pipe()
        self._stderr = open(Path(self._tmp.name) / "runner.log", "w+b")  # noqa: SIM115
        argv = [
            node,
            str(RUNNER_JS),
            "--rp2040js",
            str(package),
            "--bootrom",
            str(files.bootrom),
            "--flash",
            str(self._image),
            "--in-fd",
            str(to_r),
            "--out-fd",
            str(from_w),
        ]
        try:
            self._node = subprocess.Popen(
                argv,
                stdin=subprocess.DEVNULL,
                stdout=self._stderr,
                stderr=self._stderr,
                pass_fds=(to_r, from_w),
                start_new_session=True,
            )
        except OSError as exc:
            for fd in (to_r, to_w, from_r, from_w):
                close_fd(fd)
            raise SimError(f"cannot start {node}: {exc}") from exc
        finally:
            close_fd(to_r)
            close_fd(from_w)
        self._to_node, self._from_node = to_w, from_r
        set_nonblocking(from_r)
        set_nonblocking(to_w)
        deadline = time.monotonic() + _READY_TIMEOUT_S
        while True:
            msgs = self._read_node(timeout=max(0.0, deadline - time.monotonic()))
            if any(m.get("ev") == "ready" for m in msgs):
                break
            if self._node.poll() is not None or time.monotonic() > deadline:
                raise SimError(f"the RP2040 emulator did not start: {self._node_log()}")

    def _node_log(self) -> str:
        if self._stderr is None:
            return "no output"
        with contextlib.suppress(OSError):
            self._stderr.flush()
            self._stderr.seek(0)
            text: str = self._stderr.read().decode("utf-8", "replace")
            lines = text.strip().splitlines()
            if lines:
                return lines[-1]
        return "no output"

    # ------------------------------------------------------------------ the node link
    def _send(self, msg: dict[str, Any]) -> None:
        # Never block on the emulator: it blocks writing its own events while we do not
        # read them, so a blocking write here could deadlock the two. Queue and flush.
        self._node_out += (json.dumps(msg) + "\n").encode()
        self._flush_node()

    def _flush_node(self) -> None:
        while self._node_out and self._to_node >= 0:
            try:
                n = os.write(self._to_node, self._node_out)
            except BlockingIOError:
                return
            except OSError:
                self._node_out.clear()  # the emulator died; the thread notices
                return
            del self._node_out[:n]

    def _read_node(self, timeout: float = 0.0) -> list[dict[str, Any]]:
        import select

        r, _, _ = select.select([self._from_node], [], [], timeout)
        if not r:
            return []
        try:
            data = os.read(self._from_node, 1 << 20)
        except BlockingIOError:
            return []
        if not data:
            return [{"ev": "eof"}]
        self._node_buf += data
        *lines, self._node_buf = self._node_buf.split(b"\n")
        out = []
        for line in lines:
            with contextlib.suppress(ValueError):
                msg = json.loads(line)
                if isinstance(msg, dict):
                    out.append(msg)
        return out

    # ------------------------------------------------------------------ the model
    def _report_physics(self, ev: HwEvent) -> None:
        if ev.get("hw") == "card" and isinstance(ev.get("left"), int):
            with self._lock:
                self._cards = ev["left"]
        # the chip's clock when it happened (issue 32: last card -> brake, press -> motor in
        # chip time): a card leaves (a timed press ends) inside the model's step (its own
        # clock), an output changes when the chip stopped to say so
        if ev.get("hw") in ("card", "button"):  # (a press: when the contact closed)
            ev["t_us"] = int(self._world.now_us)
        elif ev.get("hw") == "motor":
            ev["t_us"] = self._t_us
        self._report(ev)

    def _level(self, pin: int, value: int) -> None:
        self._levels[pin] = value

    def _inputs(self) -> dict[int, int]:
        world = self._world
        levels = {15: world.button_level()}
        sensor = world.sensor_level()
        if sensor is not None:
            levels[14] = sensor
        return levels

    def _at(self, t_us: int) -> None:
        """The chip stopped at ``t_us``: bring the model there and apply pending controls."""
        self._t_us = max(self._t_us, int(t_us))
        self._world.advance(self._t_us)
        for line in self._pending:
            self._world.command(line)
        self._pending.clear()

    def _grant(self) -> None:
        if self._levels:
            self._send({"op": "in", "pins": {str(k): v for k, v in self._levels.items()}})
            self._levels.clear()
        world = self._world
        until = self._t_us + (BUSY_GRANT_US if world.busy() else IDLE_GRANT_US)
        nxt = world.next_event_us()
        if nxt is not None:
            until = min(until, max(nxt, self._t_us + 1))
        self._waiting = False
        self._send({"op": "run", "until": until})

    def _power_off_outputs(self) -> None:
        for pin in list(self._world.drive):
            self._world.set_drive(pin, 0.0, 0)

    # ------------------------------------------------------------------ the relay thread
    def _step(self) -> None:
        import select

        self._do_queued()
        node = self._node
        if node is None:
            raise SimError("the RP2040 emulator is not running")
        rlist = [self._wake_r, self._from_node]
        wlist = [self._to_node] if self._node_out else []
        if self._master_a is not None:
            rlist.append(self._master_a)
            if self._to_host:
                wlist.append(self._master_a)
        if self._uart_master is not None:
            rlist.append(self._uart_master)
            if self._to_uart:
                wlist.append(self._uart_master)
        r, w, _ = select.select(rlist, wlist, [], 0.05)
        if self._wake_r in r:
            with contextlib.suppress(BlockingIOError):
                os.read(self._wake_r, 4096)
        if self._from_node in r:
            for msg in self._read_node():
                self._on_node(msg)
        if self._master_a is not None and self._master_a in r:
            self._read_host()
        if self._master_a is not None and self._master_a in w:
            self._flush_host()
        if self._uart_master is not None and self._uart_master in r:
            data = self._read_uart()
            if data:
                msg = {"op": "uart", "id": self._uart_id, "data": base64.b64encode(data).decode()}
                self._send(msg)
        if self._uart_master is not None and self._uart_master in w:
            self._flush_uart()
        if self._to_node in w:
            self._flush_node()

    def _on_node(self, msg: dict[str, Any]) -> None:
        ev = msg.get("ev")
        if ev == "sync":
            self._at(msg.get("t", self._t_us))
            self._grant()
        elif ev == "out":
            self._at(msg.get("t", self._t_us))
            for pin, drive in (msg.get("pins") or {}).items():
                duty = drive.get("duty") if isinstance(drive, dict) else None
                freq = drive.get("freq", 0) if isinstance(drive, dict) else 0
                self._world.set_drive(int(pin), float(duty or 0.0), round(freq or 0))
            self._grant()
        elif ev == "usb":
            data = base64.b64decode(msg.get("data", ""))
            with self._lock:
                self._nl_in = self._nl_in[-_NL_KEPT:] + (msg.get("nl_in") or [])
                self._nl_out = self._nl_out[-_NL_KEPT:] + (msg.get("nl") or [])
            if data:
                self._from_board(data)
        elif ev == "uart":
            if msg.get("id") == self._uart_id:  # the other UART's pins go nowhere
                self._to_uart += base64.b64decode(msg.get("data", ""))
                self._flush_uart()
        elif ev in ("connected", "disconnected"):
            self._usb_up = ev == "connected"
            if self._usb_up and self._host_in:
                self._send({"op": "usb", "data": base64.b64encode(self._host_in).decode()})
                self._host_in.clear()
        elif ev == "reset":
            cause = "wdt" if msg.get("cause") == "wdt" else "reset"
            self._power_off_outputs()
            self._report({"hw": "reset", "cause": cause})
            self._booted(cause)
        elif ev == "edge":
            with self._lock:
                self._edges.took(int(msg.get("pin", -1)), int(msg.get("waited_ns", 0)))
        elif ev == "eof":
            raise SimError(f"the RP2040 emulator stopped: {self._node_log()}")

    def _booted(self, cause: str) -> None:
        with self._lock:
            self._boots += 1
        self._tail = b""
        self._report({"hw": "boot", "cause": cause, "raw_repl": False})

    def _from_board(self, data: bytes) -> None:
        seen = self._tail + data
        if _SOFT_REBOOT in seen and _SOFT_REBOOT not in self._tail:
            self._booted("soft_reset")
        self._tail = seen[-len(_SOFT_REBOOT) :]
        self._watch_output(data)
        if self._master_a is not None:
            self._to_host += data
            self._flush_host()

    def _read_host(self) -> None:
        assert self._master_a is not None
        try:
            data = os.read(self._master_a, 65536)
        except (BlockingIOError, OSError):
            return
        if not data:
            return
        self._watch_input(data)
        if self._usb_up:
            self._send({"op": "usb", "data": base64.b64encode(data).decode()})
        else:
            # The pty exists before the chip's USB has enumerated (a real host could not
            # open the port yet): keep the bytes until it has, rather than lose them.
            self._host_in += data[: max(0, _HOST_IN_MAX - len(self._host_in))]

    def _do_command(self, cmd: str) -> None:
        if cmd.startswith("ctl:"):
            # the mechanics have no need of power: a button held while unplugged is down
            # when the board powers up (safe mode)
            self._pending.append(cmd[4:])
            self._send({"op": "halt"})
        elif cmd == "boot:power_on":
            with self._lock:
                self._boots += 1
            self._report({"hw": "boot", "cause": "power_on", "raw_repl": False})
            self._levels.update(self._inputs())
            self._grant()
        elif cmd == "boot:reset":
            if not self._plugged_now():
                return
            self._send({"op": "reset"})
            self._usb_up = False  # the chip's USB goes down with it, until it enumerates again
            self._power_off_outputs()
            self._booted("reset")
        elif cmd in ("stall", "unstall"):
            with self._lock:
                self._stalled = cmd == "stall"
            self._send({"op": cmd})
        elif cmd == "unplug":
            if not self._plugged_now():
                return
            with self._lock:
                self._plugged = False
            self._send({"op": "unplug"})
            self._power_off_outputs()
            self._close_usb()
            self._report({"hw": "usb", "connected": False})
        elif cmd == "replug":
            if self._plugged_now():
                return
            self._open_usb()
            with self._lock:
                self._plugged = True
            self._report({"hw": "usb", "connected": True, "port": self._device})
            self._send({"op": "plug"})
            self._booted("power_on")

    def _usb_closed(self) -> None:
        self._host_in.clear()

    def _board_off(self) -> None:
        node, self._node = self._node, None
        if node is None:
            return
        with contextlib.suppress(OSError):
            self._send({"op": "quit"})
            set_nonblocking(self._to_node)
        close_fd(self._to_node)
        self._to_node = -1
        try:
            node.wait(timeout=5)
        except subprocess.TimeoutExpired:
            node.kill()
            node.wait(timeout=5)

    def _emergency_stop(self) -> None:
        node = self._node
        if node is not None:
            with contextlib.suppress(ProcessLookupError):
                node.kill()

    def _cleanup(self) -> None:
        self._board_off()
        for fd in (self._to_node, self._from_node):
            if fd >= 0:
                close_fd(fd)
        self._to_node = self._from_node = -1
        if self._stderr is not None:
            with contextlib.suppress(OSError):
                self._stderr.close()
            self._stderr = None
        super()._cleanup()
