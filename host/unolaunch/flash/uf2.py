"""One ``.uf2`` that turns a blank Pico into a launcher: MicroPython's image and a littlefs
filesystem holding the firmware (``.mpy`` files exactly as ``unolaunch flash`` writes them)
and ``launcher.json``. The layout is :mod:`unolaunch.rp2image`'s.

The same inputs give the same bytes: littlefs stores no time (MicroPython's optional
modification-time attribute is not written, so ``os.stat`` on the board reads 0 for these
files), mpy-cross's output depends on the sources alone, and nothing else varies.
"""

from __future__ import annotations

import contextlib
import os
from dataclasses import dataclass
from pathlib import Path

from unolaunch import firmware_dir
from unolaunch.flash.firmware import (
    CONFIG_FILE,
    NEWEST_MPY,
    BoardFile,
    FlashError,
    build_files,
    firmware_version,
    load_config_file,
)
from unolaunch.rp2image import (
    MICROPYTHON_DOWNLOAD,
    FlashImageError,
    Layout,
    build_image,
    find_micropython_uf2,
    image_uf2,
    read_micropython,
    uf2_sectors,
)

__all__ = ["LauncherUf2", "build_uf2", "find_micropython", "write_uf2"]

RP2_DIR_ENV = "UNOLAUNCH_RP2_DIR"


@dataclass(frozen=True)
class LauncherUf2:
    """A launcher's ``.uf2``, built (:func:`build_uf2`)."""

    data: bytes
    version: str  # the launcher firmware's, as hello reports it
    micropython: str  # MicroPython's version ("v1.28.0")
    micropython_file: Path
    layout: Layout
    files: list[BoardFile]  # what the filesystem holds, launcher.json last
    config_file: Path | None  # where launcher.json came from (None: the defaults)

    @property
    def default_name(self) -> str:
        """``unolaunch-VERSION-rpi_pico.uf2``."""
        return f"unolaunch-{self.version}-{self.layout.name}.uf2"


def find_micropython(path: str | os.PathLike[str] | None = None) -> Path:
    """MicroPython's ``.uf2`` for the Pico: ``path`` (``--micropython``), else the one in the
    folder named by ``UNOLAUNCH_RP2_DIR``. Raises :class:`FlashError` that says where to
    download which file."""
    if path is not None:
        given = Path(path)
        if not given.is_file():
            raise FlashError(
                f"--micropython {given}: no such file; download MicroPython's .uf2 for the "
                f"Raspberry Pi Pico from {MICROPYTHON_DOWNLOAD} and give its path"
            )
        return given
    folder = os.environ.get(RP2_DIR_ENV)
    if not folder:
        raise FlashError(
            "the launcher's .uf2 is built on MicroPython's: download the .uf2 for the "
            f"Raspberry Pi Pico (RPI_PICO) from {MICROPYTHON_DOWNLOAD} and give it with "
            f"--micropython FILE (or put it in a folder named by {RP2_DIR_ENV})"
        )
    try:
        return find_micropython_uf2(folder, need=f"named by {RP2_DIR_ENV}; or use --micropython")
    except FlashImageError as exc:
        raise FlashError(str(exc)) from None


def build_uf2(
    micropython: str | os.PathLike[str] | None = None,
    *,
    config_file: str | os.PathLike[str] | None = None,
    root: Path | None = None,
) -> LauncherUf2:
    """Build the launcher's ``.uf2`` (nothing is written: see :func:`write_uf2`).

    ``micropython`` is MicroPython's ``.uf2`` (default: :func:`find_micropython`), checked
    to be for a board whose layout is known; ``config_file`` a ``launcher.json`` checked by
    the firmware's own validation for that board's chip (None: the defaults). Raises
    :class:`FlashError` or :class:`~unolaunch.errors.UsageError` (a refused config).
    """
    root = firmware_dir() if root is None else Path(root)
    source = find_micropython(micropython)
    try:
        raw = source.read_bytes()
    except OSError as exc:
        raise FlashError(f"cannot read {source}: {exc.strerror or exc}") from None
    try:
        mp = read_micropython(raw, str(source))
    except FlashImageError as exc:
        raise FlashError(str(exc)) from None
    config = load_config_file(config_file, root, chip=mp.layout.chip.lower())
    version = firmware_version(root)
    files = build_files(root, compile=True, mpy_version=NEWEST_MPY, version=version)
    files.append(BoardFile(CONFIG_FILE, config, str(config_file) if config_file else "defaults"))
    image = build_image(raw, {f.path: f.data for f in files}, str(source), mp.layout)
    data = image_uf2(image, uf2_sectors(image, mp.end, mp.layout), mp.layout)
    given = Path(config_file) if config_file is not None else None
    return LauncherUf2(data, version, mp.version, source, mp.layout, files, given)


def write_uf2(uf2: LauncherUf2, output: str | os.PathLike[str] | None = None) -> Path:
    """Write ``uf2`` to ``output`` (a file, or a folder for its default name; default: the
    current folder), whole or not at all: a failure leaves no file under that name.
    Returns the path written. Raises :class:`FlashError`."""
    path = Path(output) if output is not None else Path(uf2.default_name)
    if path.is_dir():
        path = path / uf2.default_name
    part = path.with_name(f".{path.name}.part")
    try:
        with open(part, "wb") as f:
            f.write(uf2.data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(part, path)
    except OSError as exc:
        with contextlib.suppress(OSError):
            part.unlink()
        raise FlashError(
            f"cannot write {path}: {exc.strerror or exc}; choose another place with --output"
        ) from None
    return path
