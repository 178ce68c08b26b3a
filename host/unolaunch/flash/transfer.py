"""Put the launcher firmware on a Pico running MicroPython, through ``mpremote``.

Layers, as in mpremote itself: :class:`Board` wraps mpremote's ``SerialTransport`` (opening
the port, interrupting the firmware, the raw REPL and raw-paste are mpremote's; what runs on
the board is small MicroPython snippets of this module — hash every file in one exchange,
write several file pieces per exchange — because one round trip per file or per 256 bytes, as
``mpremote fs cp`` does, is what makes flashing slow), the pure :func:`plan` compares the
file set (:mod:`unolaunch.flash.firmware`) with the board's, and :func:`flash` runs the
whole job, reporting through a :class:`~unolaunch.flash.firmware.FlashUI` so the CLI can
draw progress bars.

What a flash does:

1. Builds the file set from :func:`unolaunch.firmware_dir` (so it works from a wheel):
   ``main.py`` as source, every other module compiled to ``.mpy`` with ``mpy-cross`` for the
   board's bytecode version (unless ``compile=False``), and ``launcher/version.py`` rewritten
   with the version being flashed (the firmware's ``VERSION`` plus a digest of the tree).
2. Asks the board for the SHA-256 of each file it has, in one round trip, and copies only
   the files that differ — to ``<name>.part`` first, then renames them all at once, so an
   interrupted flash leaves the old firmware working. Stale firmware files (a ``.py`` that
   would shadow a new ``.mpy``, a module that no longer exists) are removed.
3. Keeps the board's ``launcher.json`` unless a new configuration is given (validated
   beforehand by the firmware's own ``launcher/config.py``).
4. Soft-resets the board and checks with ``hello`` that the new version is running.

The board is taken over with the firmware's handshake (docs/protocol.md, "Flashing, safe
mode and the watchdog"): the ``repl`` request first (the firmware stops the motor and the
watchdog, answers, and returns to the REPL), then mpremote's raw REPL. A board without the
launcher firmware, or with an older one, is taken by mpremote's Ctrl-C as before.
"""

from __future__ import annotations

import ast
import contextlib
import io
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from os import PathLike
from pathlib import Path
from typing import Any

from unolaunch import firmware_dir
from unolaunch.errors import UnolaunchError
from unolaunch.flash.bootsel import RPI_VID, bootsel_message, find_bootsel_drives
from unolaunch.flash.firmware import (
    CONFIG_FILE,
    KEEP_SOURCE,
    UF2_URL,
    BoardFile,
    FlashError,
    FlashUI,
    build_files,
    check_running,
    firmware_version,
    hello,
    load_config_file,
)

__all__ = ["Board", "BoardCodeError", "FlashReport", "Plan", "flash", "plan", "resolve_port"]

PART = ".part"
# The `repl` request that asks the launcher firmware for the REPL, and how long its reply
# (then the REPL's prompt) may take.
REPL_REQUEST_ID = 0x7E91
REPL_REPLY_S = 3.0
# How long a soft reset may take to show MicroPython's "soft reboot" line.
SOFT_RESET_S = 3.0
CHUNK_SIZE = 4096  # bytes of file data per exec on the board


class BoardCodeError(FlashError):
    """Code run on the board raised an exception; ``error`` is MicroPython's traceback."""

    def __init__(self, error: str) -> None:
        self.error = error
        last = error.strip().splitlines()[-1] if error.strip() else "an error"
        super().__init__(f"the board reported {last}")


@dataclass
class Plan:
    """What a flash will do, file by file (pure data: no I/O made it)."""

    files: list[BoardFile]
    copy: list[BoardFile]
    same: list[BoardFile]
    remove: list[str]

    @property
    def copy_bytes(self) -> int:
        """Bytes to transfer."""
        return sum(len(f.data) for f in self.copy)


@dataclass
class FlashReport:
    """What a flash did."""

    port: str
    version: str
    plan: Plan
    compiled: bool
    dry_run: bool
    hello: dict[str, Any] = field(default_factory=dict)
    seconds: float = 0.0


# --- what to copy ------------------------------------------------------------------------


def plan(
    files: Sequence[BoardFile],
    board_hashes: dict[str, str | None],
    board_listing: Iterable[str],
) -> Plan:
    """Compare the wanted ``files`` with the board's; decide what to copy and remove.

    ``board_hashes`` maps each wanted path to the board's SHA-256 (None: absent);
    ``board_listing`` is every file in the board's firmware folders. Removed are the firmware
    files the new set does not have (``.py``/``.mpy`` modules — a stale ``x.py`` would shadow
    a new ``x.mpy`` — and leftover ``.part`` files); anything else is the owner's and stays.
    """
    wanted = {f.path for f in files}
    copy = [f for f in files if board_hashes.get(f.path) != f.sha256]
    same = [f for f in files if board_hashes.get(f.path) == f.sha256]
    remove = sorted(
        p
        for p in board_listing
        if p not in wanted and p.endswith((".py", ".mpy", PART)) and p not in KEEP_SOURCE
    )
    return Plan(list(files), copy, same, remove)


# --- finding the board ----------------------------------------------------------------------


def resolve_port(port: str) -> str:
    """Turn ``--port`` into a device path; ``"auto"`` finds the one Pico running MicroPython.

    The search is the link's (:mod:`unolaunch.link.discovery`); when it finds no launcher,
    this says why if it can: a Pico in BOOTSEL mode (copy the MicroPython ``.uf2`` first) or
    a Pico running something else. Raises a :class:`~unolaunch.errors.UnolaunchError`.
    """
    if port != "auto":
        return port
    from unolaunch.link import discovery

    ports = discovery.list_serial_ports()
    if discovery.find_launchers(ports):
        return discovery.resolve_port(port, lambda: ports)  # one, or "several: choose"
    drives = find_bootsel_drives()
    if drives:
        raise FlashError(bootsel_message(drives))
    other_pico = [p for p in ports if p.vid == RPI_VID]
    if other_pico:
        raise FlashError(
            f"the Pico on {other_pico[0].describe()} is not running MicroPython: hold its "
            "BOOTSEL button while plugging it in, copy the MicroPython .uf2 from "
            f"{UF2_URL} onto the RPI-RP2 drive, then run 'unolaunch flash' again"
        )
    return discovery.resolve_port(port, lambda: ports)  # raises: what it saw, what to do


# --- the board, through mpremote -------------------------------------------------------------

_LIST_AND_HASH = """\
import os, hashlib, binascii
def _h(p):
    try:
        f = open(p, 'rb')
    except OSError:
        return None
    h = hashlib.sha256()
    b = bytearray(512)
    while True:
        n = f.readinto(b)
        if not n:
            break
        h.update(b if n == 512 else b[:n])
    f.close()
    return binascii.hexlify(h.digest()).decode()
def _ls(d):
    try:
        return [(d + '/' + e[0]) if d else e[0] for e in os.ilistdir(d or '.') if e[1] & 0x8000]
    except OSError:
        return []
print(repr(({p: _h(p) for p in %(paths)r}, [p for d in %(dirs)r for p in _ls(d)])))
"""

_RENAME = """\
import os
for _a, _b in %(pairs)r:
    try:
        os.rename(_a, _b)
    except OSError:
        try:
            os.remove(_b)
        except OSError:
            pass
        os.rename(_a, _b)
for _p in %(remove)r:
    try:
        os.remove(_p)
    except OSError:
        pass
"""


class Board:
    """A MicroPython board in its raw REPL, through mpremote's ``SerialTransport``."""

    def __init__(self, port: str, *, timeout: float = 5.0) -> None:
        """Open ``port`` and take the REPL (interrupting the running firmware).

        Raises :class:`FlashError` for a missing or busy port, a device that is not a
        MicroPython REPL, and firmware that does not let go of the REPL.
        """
        from mpremote.transport import TransportError
        from mpremote.transport_serial import SerialTransport

        self.port = port
        #: True when the launcher firmware handed the REPL over on the ``repl`` request.
        self.handed_over = False
        try:
            # A read timeout: on a pty mpremote reads byte by byte with the port's own
            # timeout, so without one a silent device would block it forever.
            self.transport = SerialTransport(port, baudrate=115200, timeout=2.0)
        except TransportError:
            raise _open_error(port) from None
        captured = io.StringIO()
        try:
            # The launcher firmware hands the REPL over on request (a single Ctrl-C is line
            # noise to it); then mpremote's own raw-REPL entry does the rest.
            self.handed_over = self._ask_for_repl(min(timeout, REPL_REPLY_S))
            # mpremote prints what it received when the raw REPL does not answer: keep it.
            with contextlib.redirect_stdout(captured), _deadline(self.transport, timeout + 1):
                self.transport.enter_raw_repl(soft_reset=True, timeout_overall=timeout)
        except (TransportError, OSError) as exc:
            self.close()
            raise _repl_error(port, captured.getvalue() + str(exc)) from None

    def _ask_for_repl(self, timeout: float) -> bool:
        """Send the protocol's ``repl`` request (docs/protocol.md, "Flashing, safe mode and
        the watchdog") and wait for its reply, then for the REPL's prompt. True when the
        launcher firmware handed the REPL over; False when nothing answered it in
        ``timeout`` s (no launcher firmware, or one that is not reading), a REPL is already
        there (the line was just Python to it) or an older firmware refused it: mpremote's
        Ctrl-C then takes the board as before."""
        from unolaunch.link.protocol import Event, LineParser, Reply

        ser = self.transport.serial

        def ask() -> None:
            # a newline first ends any half line the board holds; a JSON encoder never
            # sends 0x03, so this line is no interrupt to anyone
            ser.write(b'\n{"id": %d, "cmd": "repl"}\n' % REPL_REQUEST_ID)
            ser.flush()

        # what the board printed before this port was opened (the banner a previous
        # command's soft reset left behind) says nothing about the board now
        ser.reset_input_buffer()
        ask()
        parser = LineParser()
        seen = b""
        replied = False
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            waiting = ser.in_waiting
            if not waiting:
                time.sleep(0.01)
                continue
            data = ser.read(waiting)
            seen = (seen + data)[-200:]
            if replied:
                if b">>> " in seen:  # the REPL is there: mpremote's turn
                    return True
                continue
            if b"soft reboot" in seen:  # a REPL prompt seen so far was the last one
                seen = seen[seen.rindex(b"soft reboot") + len(b"soft reboot") :]
            if any(marker in seen for marker in (b">>> ", b"raw REPL", b"\r\n>")):
                return False  # already at a REPL
            for msg in parser.feed(data):
                if isinstance(msg, Event) and msg.name == "boot":
                    # the board was (re)starting, e.g. just soft-reset by a previous
                    # command: the request may have gone to the boot, not to the loop
                    ask()
                    deadline = time.monotonic() + timeout
                if isinstance(msg, Reply) and msg.id == REPL_REQUEST_ID:
                    if not msg.ok:
                        return False  # an older firmware: it yields to Ctrl-C
                    replied = True
                    deadline = time.monotonic() + timeout
                    seen = b""
        return replied

    def close(self) -> None:
        """Leave the raw REPL (if in it) and close the port."""
        with contextlib.suppress(Exception):
            if self.transport.in_raw_repl:
                self.transport.exit_raw_repl()
        with contextlib.suppress(Exception):
            self.transport.close()

    def __enter__(self) -> Board:
        return self

    def __exit__(self, *exc: object) -> None:
        # On an error half-way, restart whatever firmware is complete on the board (the
        # copied files are still .part, so that is the old one) rather than leave it idle.
        if exc[0] is not None:
            with contextlib.suppress(Exception):
                self.soft_reset()
        self.close()

    def exec(self, code: str, timeout: float = 10.0) -> bytes:
        """Run MicroPython ``code`` on the board (raw REPL); return what it printed.

        ``timeout`` is the longest silence allowed while it runs. A MicroPython exception
        raises :class:`BoardCodeError` (holding the board's traceback text).
        """
        from mpremote.transport import TransportError

        try:
            out, err = self.transport.exec_raw(code, timeout=timeout)
        except TransportError as exc:
            raise FlashError(
                f"the board on {self.port} stopped answering ({exc}); if it reset by itself, "
                "hold the launcher's button while plugging it in (safe mode) and flash again"
            ) from exc
        except OSError as exc:
            raise FlashError(
                f"lost the board on {self.port} ({exc}): check the cable and flash again; "
                "the old firmware is still intact unless the copy had finished"
            ) from exc
        if err:
            raise BoardCodeError(err.decode(errors="replace"))
        return bytes(out)

    def info(self) -> dict[str, Any]:
        """MicroPython's version, machine and major ``.mpy`` version (6; None: no .mpy)."""
        out = self.exec(
            "import sys\n"
            "_i = sys.implementation\n"
            "print(repr((sys.platform, '.'.join(str(x) for x in _i.version[:3]), "
            "getattr(_i, '_machine', ''), getattr(_i, '_mpy', None))))"
        )
        platform, version, machine, mpy = ast.literal_eval(out.decode().strip())
        # sys.implementation._mpy: the .mpy version in bits 0-7 (absent before 1.12: no .mpy).
        major = mpy & 0xFF if isinstance(mpy, int) and mpy & 0xFF >= 5 else None
        return {"platform": platform, "version": version, "machine": machine, "mpy": major}

    def survey(self, paths: Sequence[str]) -> tuple[dict[str, str | None], list[str]]:
        """SHA-256 of each of ``paths`` on the board (None: absent), and every file in the
        folders those paths live in — one round trip, however many files."""
        dirs = sorted({p.rsplit("/", 1)[0] if "/" in p else "" for p in paths} - {""})
        out = self.exec(_LIST_AND_HASH % {"paths": list(paths), "dirs": dirs})
        hashes, listing = ast.literal_eval(out.decode().strip())
        return dict(hashes), list(listing)

    def write(self, files: Sequence[BoardFile], progress: Callable[[int, str], None]) -> None:
        """Copy ``files`` next to their targets as ``.part``; :meth:`commit` renames them.

        Pieces of up to ``CHUNK_SIZE`` bytes go several to one ``exec`` (small modules share
        one round trip; a big file takes several), each piece a self-contained statement.
        """
        folders = sorted({f.path.rsplit("/", 1)[0] for f in files if "/" in f.path})
        if folders:
            self.exec(
                f"import os\nfor _d in {folders!r}:\n try:\n  os.mkdir(_d)\n except OSError:\n"
                "  pass\n"
            )
        done = 0
        batch: list[str] = []
        size = 0
        for f in files:
            for offset in range(0, max(len(f.data), 1), CHUNK_SIZE):
                piece = f.data[offset : offset + CHUNK_SIZE]
                mode = "ab" if offset else "wb"
                batch.append(
                    f"_f = open({(f.path + PART)!r}, {mode!r})\n_f.write({piece!r})\n_f.close()"
                )
                size += len(piece)
                done += len(piece)
                if size >= CHUNK_SIZE:
                    self._send(batch, f.path)
                    progress(done, f.path)
                    batch, size = [], 0
        if batch:
            self._send(batch, files[-1].path)
            progress(done, files[-1].path)

    def _send(self, statements: list[str], path: str) -> None:
        try:
            self.exec("\n".join(statements) + "\n")
        except BoardCodeError as exc:
            raise FlashError(
                f"writing {path} on the board failed ({exc}): is its flash full? The old "
                "firmware is intact"
            ) from exc

    def commit(self, files: Sequence[BoardFile], remove: Sequence[str]) -> None:
        """Rename every ``.part`` over its target and delete ``remove``, in one go."""
        pairs = [(f.path + PART, f.path) for f in files]
        self.exec(_RENAME % {"pairs": pairs, "remove": list(remove)})

    def soft_reset(self, timeout: float = SOFT_RESET_S) -> bool:
        """Leave the raw REPL and soft-reset (Ctrl-D at the REPL): ``main.py`` runs.

        Waits up to ``timeout`` s for MicroPython's ``soft reboot`` line, so that the reset
        has happened (and its banner is read) before the port is closed: a command run
        right after finds the board booting, not a stale REPL prompt. True when seen.
        """
        if not self.transport.in_raw_repl:
            return False
        self.transport.exit_raw_repl()
        ser = self.transport.serial
        ser.write(b"\x04")
        ser.flush()
        seen = b""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            waiting = ser.in_waiting
            if not waiting:
                time.sleep(0.01)
                continue
            seen = (seen + ser.read(waiting))[-200:]
            if b"soft reboot" in seen:
                return True
        return False


@contextlib.contextmanager
def _deadline(transport: Any, seconds: float) -> Iterator[None]:
    """Make mpremote give up waiting after ``seconds`` even if the device never pauses.

    On a pty mpremote reads one byte at a time and checks its overall timeout only when a
    read comes back empty, so a device that chatters without a break would hold it forever.
    After the deadline this cancels the pending read (pyserial's ``cancel_read``) until
    mpremote notices the time.
    """
    done = threading.Event()

    def nudge() -> None:
        if done.wait(seconds):
            return
        while not done.wait(0.05):
            with contextlib.suppress(Exception):
                transport.serial.cancel_read()

    thread = threading.Thread(target=nudge, name="unolaunch-flash-deadline", daemon=True)
    thread.start()
    try:
        yield
    finally:
        done.set()
        thread.join()


def _open_error(port: str) -> UnolaunchError:
    """Why mpremote could not open ``port`` (missing, busy, not allowed), in the words of the
    link's own port opener, which tells these apart."""
    from unolaunch.link import LinkError, open_serial

    try:
        open_serial(port).close()
    except LinkError as exc:
        return exc
    return FlashError(f"cannot open {port}: another program may have grabbed it; try again")


def _repl_error(port: str, received: str) -> FlashError:
    """Why the raw REPL could not be entered, judged by what the board said meanwhile."""
    if '"event": "boot"' in received or "soft reboot" in received:
        return FlashError(
            f"the launcher on {port} was restarting while flash tried to take it over: wait "
            "until it has started (a second or two), then run 'unolaunch flash' again"
        )
    if '"event"' in received or '"firmware"' in received or '"id"' in received:
        return FlashError(
            f"the launcher firmware on {port} is running but does not let go of the REPL: "
            "unplug the Pico, hold the launcher's button while plugging it back in "
            "(safe mode: the firmware stays idle), then run 'unolaunch flash' again"
        )
    return FlashError(
        f"no MicroPython REPL answers on {port}. If this is a new Pico, it needs MicroPython "
        "first: hold its BOOTSEL button while plugging it in, copy the MicroPython .uf2 from "
        f"{UF2_URL} (board RPI_PICO, RPI_PICO2 or RPI_PICO_W) onto the RPI-RP2 drive, then "
        "run 'unolaunch flash' again. If it runs other code, hold the launcher's button while "
        "plugging it in (safe mode)"
    )


# --- the whole job ------------------------------------------------------------------------------


@contextlib.contextmanager
def _timer() -> Iterator[Callable[[], float]]:
    start = time.monotonic()
    yield lambda: time.monotonic() - start


def flash(
    port: str,
    ui: FlashUI,
    *,
    compile: bool = True,
    dry_run: bool = False,
    config_file: str | PathLike[str] | None = None,
    root: Path | None = None,
    verify: bool = True,
) -> FlashReport:
    """Flash the firmware onto the board on ``port`` (``"auto"``: find it). See the module
    docstring for the steps. Raises :class:`FlashError` /
    :class:`~unolaunch.errors.UsageError`."""
    root = firmware_dir() if root is None else Path(root)
    with _timer() as elapsed:
        config = load_config_file(config_file, root) if config_file is not None else None
        version = firmware_version(root)
        device = resolve_port(port)
        with Board(device) as board:
            info = board.info()
            where = info["machine"] or info["platform"]
            ui.info(f"board on {device}: MicroPython {info['version']} ({where})")
            mpy = info["mpy"]
            compiled = compile and mpy is not None
            if compile and mpy is None:
                ui.info("this MicroPython is too old for .mpy files: copying sources instead")
            files = build_files(
                root, compile=compiled, mpy_version=mpy, version=version, config=config
            )
            ui.info(
                f"firmware {version} from {root}: {len(files)} files"
                + (f", compiled to .mpy v{mpy} with mpy-cross" if compiled else ", as source")
            )
            hashes, listing = board.survey([f.path for f in files] + [CONFIG_FILE])
            todo = plan(files, hashes, listing)
            verb = "would copy" if dry_run else "copied"
            if todo.copy and not dry_run:
                advance = ui.transfer(todo.copy_bytes)
                board.write(todo.copy, advance)
                board.commit(todo.copy, todo.remove)
                ui.done()
            elif todo.remove and not dry_run:
                board.commit([], todo.remove)
            for f in todo.files:
                ui.file(verb if f in todo.copy else "unchanged", f.path, len(f.data))
            for path in todo.remove:
                ui.file("would remove" if dry_run else "removed", path)
            if config is None:
                has_config = hashes.get(CONFIG_FILE) is not None
                if has_config:
                    ui.file("kept", CONFIG_FILE, note="the board's own settings")
                else:
                    ui.file("absent", CONFIG_FILE, note="the firmware uses its defaults")
            report = FlashReport(device, version, todo, compiled, dry_run)
            board.soft_reset()  # also after a dry run: the launcher runs again
        ours = any(f.path == "main.py" and hashes.get(f.path) == f.sha256 for f in files)
        if dry_run and (board.handed_over or ours):
            # leave the board as it was found: the launcher answering again, so that a
            # command right after (`flash --dry-run && flash`) finds it running, not booting
            # (a board running other code is not waited for)
            try:
                report.hello = hello(device)
            except FlashError as exc:  # e.g. an old firmware: what a flash is for
                ui.info(f"after the soft reset {exc}")
            else:
                ui.info("the launcher is running again")
        if verify and not dry_run:
            report.hello = check_running(
                device, version, "the firmware was copied and the board soft-reset"
            )
        report.seconds = elapsed()
    return report
