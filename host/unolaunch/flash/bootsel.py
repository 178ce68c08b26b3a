"""Picos in BOOTSEL mode, and ``unolaunch flash --uf2``: the launcher's ``.uf2`` copied onto
the RPI-RP2 drive, as a maker would drag it.

A Pico held in BOOTSEL while plugged in shows its boot ROM's USB drive (``INFO_UF2.TXT``
names the chip). The ROM writes each block of a ``.uf2`` copied there into flash and
restarts the chip once every block has arrived: the drive goes away and, with MicroPython
and the launcher on the flash, its serial port appears. :func:`flash_uf2` does exactly
that and checks with ``hello`` that the version it wrote is the one running.
"""

from __future__ import annotations

import contextlib
import errno
import os
import sys
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from unolaunch.flash.firmware import UF2_URL, FlashError, FlashUI, check_running
from unolaunch.flash.uf2 import LauncherUf2, build_uf2

__all__ = [
    "BootselDrive",
    "Uf2FlashReport",
    "bootsel_message",
    "choose_drive",
    "copy_to_drive",
    "find_bootsel_drives",
    "flash_uf2",
    "is_bootsel_drive",
]

#: USB vendor id of Raspberry Pi (the Pico's own USB, MicroPython's CDC serial port).
RPI_VID = 0x2E8A
BOOTSEL_PIDS = {0x0003: "RP2040", 0x000F: "RP2350"}
UF2_BOARDS = {
    "RP2040": "RPI_PICO (Pico W: RPI_PICO_W)",
    "RP2350": "RPI_PICO2 (Pico 2 W: RPI_PICO2_W)",
}
INFO_FILE = "INFO_UF2.TXT"
COPY_CHUNK = 64 * 1024
# The ROM restarts the chip 1 s after the last block; the OS may still be flushing.
DRIVE_GONE_S = 30.0
# From the restart to the launcher's serial port: a Pico enumerates in about a second.
PORT_APPEARS_S = 30.0
POLL_S = 0.1


@dataclass(frozen=True)
class BootselDrive:
    """A Pico in BOOTSEL mode: its drive's folder (or, not mounted, the USB device) and chip."""

    where: str
    chip: str  # "RP2040" or "RP2350"
    mounted: bool = True


@dataclass
class Uf2FlashReport:
    """What ``flash --uf2`` did."""

    drive: str
    port: str
    uf2: LauncherUf2
    name: str  # the file's name on the drive
    dry_run: bool
    hello: dict[str, Any] = field(default_factory=dict)
    seconds: float = 0.0


# --- finding the drive --------------------------------------------------------------------------


def _mount_roots() -> list[Path]:
    roots: list[Path] = []
    if sys.platform == "darwin":
        roots.append(Path("/Volumes"))
    elif os.name == "nt":
        roots.extend(Path(f"{letter}:\\") for letter in "DEFGHIJKLMNOPQRSTUVWXYZ")
        return roots
    user = os.environ.get("USER") or os.environ.get("LOGNAME") or ""
    for base in ("/media", "/run/media", "/mnt"):
        roots.append(Path(base))
        if user:
            roots.append(Path(base) / user)
    return roots


def _subdirs(path: Path) -> list[Path]:
    try:
        return [p for p in path.iterdir() if p.is_dir()]
    except OSError:
        return []


def _drive_chip(folder: Path) -> str:
    """The chip a BOOTSEL drive's ``INFO_UF2.TXT`` names ("" when it is not one)."""
    try:
        text = (folder / INFO_FILE).read_text(errors="replace")
    except OSError:
        return ""
    # RP2040: "Model: Raspberry Pi RP2" / "Board-ID: RPI-RP2"; RP2350: "Board-ID: RP2350"
    return "RP2350" if "RP2350" in text else "RP2040" if "RP2" in text else ""


def is_bootsel_drive(folder: Path) -> bool:
    """True for the folder of a mounted BOOTSEL drive (its ``INFO_UF2.TXT`` names a chip)."""
    return bool(_drive_chip(folder))


def find_bootsel_drives(
    roots: Iterable[Path] | None = None, sysfs: Path | None = Path("/sys/bus/usb/devices")
) -> list[BootselDrive]:
    """Picos in BOOTSEL mode: each mounted ``RPI-RP2``/``RP2350`` drive (recognised by its
    ``INFO_UF2.TXT``) and, on Linux when none is mounted, each such USB device."""
    found: list[BootselDrive] = []
    for root in _mount_roots() if roots is None else roots:
        for drive in [root, *_subdirs(root)]:
            chip = _drive_chip(drive)
            if chip and all(str(drive) != d.where for d in found):
                found.append(BootselDrive(str(drive), chip))
    if sysfs is not None and sysfs.is_dir() and not found:
        for dev in sorted(_subdirs(sysfs)):
            with contextlib.suppress(OSError, ValueError):
                vid = int((dev / "idVendor").read_text().strip(), 16)
                pid = int((dev / "idProduct").read_text().strip(), 16)
                if vid == RPI_VID and pid in BOOTSEL_PIDS:
                    where = f"USB device {dev.name} (drive not mounted)"
                    found.append(BootselDrive(where, BOOTSEL_PIDS[pid], mounted=False))
    return found


def bootsel_message(drives: list[BootselDrive]) -> str:
    """Why ``unolaunch flash`` (through the serial port) cannot flash a Pico in BOOTSEL
    mode, and the two ways on."""
    drive = drives[0]
    uf2 = (
        "; or let 'unolaunch flash --uf2' put MicroPython and the launcher on it in one go"
        if drive.chip == "RP2040"
        else ""
    )
    return (
        f"the Pico is in BOOTSEL mode ({drive.chip}, {drive.where}): it has no MicroPython "
        f"yet. Download the MicroPython .uf2 for your board from {UF2_URL} "
        f"(board {UF2_BOARDS[drive.chip]}), copy it onto the RPI-RP2 drive, wait until the "
        f"drive disappears (the Pico restarts with MicroPython), then run 'unolaunch flash' "
        f"again{uf2}"
    )


def _not_a_pico_2(drive: BootselDrive) -> None:
    if drive.chip != "RP2040":
        raise FlashError(
            f"the Pico in BOOTSEL mode at {drive.where} is an {drive.chip} (a Pico 2 or Pico "
            "2 W), whose flash is laid out otherwise: 'flash --uf2' writes the Raspberry Pi "
            f"Pico's (RP2040) only. Copy MicroPython's RPI_PICO2 .uf2 from {UF2_URL} onto "
            "the drive, then run 'unolaunch flash'"
        )


def choose_drive(drive: str | os.PathLike[str] | None = None) -> Path:
    """The RPI-RP2 drive to copy to: ``drive`` (``--drive``), checked, else the one found.

    Refuses (:class:`FlashError`) no drive, a drive not mounted, two Picos, and a Pico 2.
    """
    if drive is not None:
        folder = Path(drive)
        chip = _drive_chip(folder)
        if not chip:
            raise FlashError(
                f"--drive {folder} is not a Pico's BOOTSEL drive (it has no {INFO_FILE}): "
                "hold the Pico's BOOTSEL button while plugging it in and give the folder of "
                "the RPI-RP2 drive that appears"
            )
        _not_a_pico_2(BootselDrive(str(folder), chip))
        return folder
    drives = find_bootsel_drives()
    if not drives:
        raise FlashError(
            "no Pico in BOOTSEL mode found: hold the Pico's BOOTSEL button while plugging it "
            "in by USB (a drive called RPI-RP2 appears), then run this again; if the drive "
            "is mounted somewhere unusual, give its folder with --drive"
        )
    if len(drives) > 1:
        where = "; ".join(d.where for d in drives)
        raise FlashError(
            f"{len(drives)} Picos are in BOOTSEL mode ({where}): unplug all but the one to "
            "flash, or name its drive with --drive"
        )
    (found,) = drives
    if not found.mounted:
        raise FlashError(
            f"a Pico is in BOOTSEL mode ({found.where}) but its RPI-RP2 drive is not "
            "mounted: open it in your file manager (or mount it), then run this again, "
            "or give its folder with --drive"
        )
    _not_a_pico_2(found)
    return Path(found.where)


# --- the copy -----------------------------------------------------------------------------------


def _there(drive: Path) -> bool:
    return (drive / INFO_FILE).exists()


def copy_to_drive(
    data: bytes, drive: Path, name: str, progress: Callable[[int, str], None]
) -> None:
    """Copy ``data`` onto the BOOTSEL ``drive`` as ``name``, flushed to the device piece by
    piece (``progress`` gets the bytes done). A copy that fails or sees the drive go away
    half-way removes what it wrote, if the drive still lets it, and raises
    :class:`FlashError`; the ROM starts a ``.uf2`` only once every block has arrived, so a
    Pico that got part of one stays in BOOTSEL mode."""
    target = drive / name
    done = 0
    again = "hold BOOTSEL while plugging the Pico in again, then run 'unolaunch flash --uf2' again"
    try:
        with open(target, "wb") as f:
            for start in range(0, len(data), COPY_CHUNK):
                if not _there(drive):
                    raise FileNotFoundError(2, "the drive is gone")
                f.write(data[start : start + COPY_CHUNK])
                f.flush()
                os.fsync(f.fileno())
                done = min(len(data), start + COPY_CHUNK)
                progress(done, name)
    except OSError as exc:
        if done == len(data):
            return  # the Pico took the last block and restarted before the file was closed
        with contextlib.suppress(OSError):
            target.unlink()
        if not _there(drive):
            raise FlashError(
                f"the RPI-RP2 drive {drive} went away during the copy ({done:,} of "
                f"{len(data):,} bytes): the Pico keeps an incomplete .uf2 to itself and stays "
                f"in BOOTSEL mode, or was unplugged; {again}"
            ) from None
        if done == 0 and getattr(exc, "errno", None) in (errno.EACCES, errno.EROFS):
            raise FlashError(
                f"the drive {drive} is read-only ({exc.strerror}): mount the RPI-RP2 drive "
                "for writing (your file manager does), or copy the file made by "
                "'unolaunch uf2' onto it yourself"
            ) from None
        raise FlashError(
            f"writing {name} onto the drive {drive} failed after {done:,} of {len(data):,} "
            f"bytes ({exc.strerror or exc}); {again}"
        ) from None


def _wait(until: Callable[[], bool], seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while not until():
        if time.monotonic() > deadline:
            return False
        time.sleep(POLL_S)
    return True


def _launcher_ports() -> set[str]:
    from unolaunch.link import discovery

    return {p.device for p in discovery.find_launchers()}


def _wait_for_port(port: str, before: set[str]) -> str:
    """The launcher's serial port once it appears: ``port`` itself, or with ``auto`` the one
    new Pico running MicroPython (``before``: those there before the copy)."""
    if port != "auto":
        if "://" not in port and not _wait(lambda: os.path.exists(port), PORT_APPEARS_S):
            raise FlashError(
                f"the Pico restarted, but {port} did not appear within {PORT_APPEARS_S:.0f} s: "
                "check the port's name (unolaunch flash --uf2 without --port finds it), then "
                "run 'unolaunch flash --port PORT' to check it"
            )
        return port
    found: list[str] = []

    def appeared() -> bool:
        found[:] = sorted(_launcher_ports() - before)
        return bool(found)

    if not _wait(appeared, PORT_APPEARS_S):
        raise FlashError(
            f"the Pico restarted, but no Pico with MicroPython appeared within "
            f"{PORT_APPEARS_S:.0f} s: unplug it and plug it in again (without BOOTSEL), "
            "then run 'unolaunch flash' to check it"
        )
    if len(found) > 1:
        raise FlashError(
            f"{len(found)} new Picos appeared ({', '.join(found)}): check the launcher with "
            "'unolaunch flash --port PORT'"
        )
    return found[0]


def flash_uf2(
    ui: FlashUI,
    *,
    drive: str | os.PathLike[str] | None = None,
    port: str = "auto",
    micropython: str | os.PathLike[str] | None = None,
    config_file: str | os.PathLike[str] | None = None,
    root: Path | None = None,
    dry_run: bool = False,
) -> Uf2FlashReport:
    """``unolaunch flash --uf2``: build the launcher's ``.uf2`` (:func:`build_uf2`), copy it
    onto the one Pico in BOOTSEL mode (or ``drive``), wait for the drive to go and the
    launcher's serial port (``port``; ``auto``: the new Pico with MicroPython) to appear,
    and check that ``hello`` reports the version written. Raises :class:`FlashError` (or
    :class:`~unolaunch.errors.UsageError` for a refused config) before anything is copied
    when it can."""
    start = time.monotonic()
    uf2 = build_uf2(micropython, config_file=config_file, root=root)
    folder = choose_drive(drive)
    ui.info(
        f"{uf2.micropython_file.name}: MicroPython {uf2.micropython} for the "
        f"{uf2.layout.board}; launcher firmware {uf2.version}, {len(uf2.files)} files, "
        f"launcher.json from {uf2.config_file or 'the defaults'}"
    )
    ui.info(f"Pico in BOOTSEL mode: {folder}")
    report = Uf2FlashReport(str(folder), port, uf2, uf2.default_name, dry_run)
    if dry_run:
        report.seconds = time.monotonic() - start
        return report
    before = _launcher_ports() if port == "auto" else set()
    advance = ui.transfer(len(uf2.data))
    try:
        copy_to_drive(uf2.data, folder, uf2.default_name, advance)
    finally:
        ui.done()
    ui.info("copied; waiting for the Pico to restart")
    if not _wait(lambda: not _there(folder), DRIVE_GONE_S):
        raise FlashError(
            f"the Pico did not restart within {DRIVE_GONE_S:.0f} s of the copy (its drive "
            f"{folder} is still there): the copy may not have reached it; unplug it, hold "
            "BOOTSEL while plugging it in again, then run 'unolaunch flash --uf2' again"
        )
    report.port = _wait_for_port(port, before)
    ui.info(f"launcher on {report.port}; asking it for hello")
    report.hello = check_running(
        report.port, uf2.version, f"the .uf2 was copied and the Pico restarted on {report.port}"
    )
    report.seconds = time.monotonic() - start
    return report
