"""A Pico in BOOTSEL mode for ``unolaunch flash --uf2``, as the host sees one: a mounted
RPI-RP2 drive (a folder with the boot ROM's ``INFO_UF2.TXT`` and ``INDEX.HTM``) whose Pico
is the emulated RP2040.

A ``.uf2`` copied onto the drive is taken as the ROM takes it
(:func:`unolaunch.sim.rp2040.bootrom.copy_uf2`, block by block as the file grows); once
every block has arrived the ROM restarts the chip: the drive goes away and, a moment later
(the USB enumeration), the Pico starts from a blank flash with only what was copied on it:
an :class:`~unolaunch.sim.rp2040.Rp2040Launcher` whose port is linked at ``port``.
"""

from __future__ import annotations

import contextlib
import shutil
import threading
import time
from pathlib import Path

from board_harness import require_board
from unolaunch.rp2image import FLASH_SIZE
from unolaunch.sim.rp2040 import Rp2040Launcher
from unolaunch.sim.rp2040.bootrom import copy_uf2

# pico-bootrom-rp2040's bootrom/info_uf2.txt, the drive's INFO_UF2.TXT
INFO_UF2 = "UF2 Bootloader v3.0\nModel: Raspberry Pi RP2\nBoard-ID: RPI-RP2\n"
# The ROM restarts the chip 1 s after the last block; USB enumeration takes about as long.
RESTART_S = 1.0
ENUMERATE_S = 1.5


def make_drive(folder: Path, info: str = INFO_UF2) -> Path:
    """A folder that looks like a mounted BOOTSEL drive."""
    folder.mkdir(parents=True)
    (folder / "INFO_UF2.TXT").write_text(info)
    (folder / "INDEX.HTM").write_text(
        '<html><head><meta http-equiv="refresh" content="0;URL=\'https://raspberrypi.com/'
        "device/RP2?version=E0C9125B0D9B'\"/></head><body>Redirecting to raspberrypi.com"
        "</body></html>\n"
    )
    return folder


class BootselPico:
    """The drive at ``drive`` and, once a whole ``.uf2`` is on it, the emulated Pico."""

    def __init__(self, drive: Path, port: Path, flash_dir: Path) -> None:
        require_board("rp2040")
        self.drive = make_drive(drive)
        self.port = port
        self.flash_dir = flash_dir
        self.copied: bytes | None = None  # the .uf2 the ROM took whole
        self.name = ""  # its file name
        self.restarted_at = 0.0  # monotonic time the drive went away
        self.launcher: Rp2040Launcher | None = None
        self.error: BaseException | None = None
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="bootsel-pico", daemon=True)
        self._thread.start()

    def _complete(self) -> tuple[str, bytes] | None:
        for path in sorted(self.drive.glob("*.uf2")):
            with contextlib.suppress(OSError):
                data = path.read_bytes()
                if copy_uf2(bytearray(b"\xff" * FLASH_SIZE), data):
                    return path.name, data
        return None

    def _run(self) -> None:
        try:
            while not self._stop.wait(0.05):
                if not self.drive.is_dir():
                    return  # the drive was taken away (a test of that)
                done = self._complete()
                if done is None:
                    continue
                self.name, self.copied = done
                time.sleep(RESTART_S)
                shutil.rmtree(self.drive)
                self.restarted_at = time.monotonic()
                if self._stop.wait(ENUMERATE_S):
                    return
                launcher = Rp2040Launcher(flash_dir=self.flash_dir, uf2=self.copied, link=self.port)
                self.launcher = launcher.start()
                return
        except BaseException as exc:  # reported by close(): the test fails with it
            self.error = exc

    def close(self) -> None:
        """Stop watching; power the Pico off."""
        self._stop.set()
        self._thread.join(timeout=60)
        if self.launcher is not None:
            self.launcher.close()
        if self.error is not None:
            raise AssertionError(f"the emulated Pico failed: {self.error!r}") from self.error
