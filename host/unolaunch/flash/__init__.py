"""Putting the launcher firmware on a Pico, three ways, one module each:

- :mod:`~unolaunch.flash.transfer`: ``unolaunch flash``, through ``mpremote`` onto a Pico
  that runs MicroPython (only the files that differ are copied);
- :mod:`~unolaunch.flash.uf2`: ``unolaunch uf2``, one ``.uf2`` holding MicroPython and a
  filesystem with the firmware, for a blank Pico (the layout is :mod:`unolaunch.rp2image`'s);
- :mod:`~unolaunch.flash.bootsel`: Picos in BOOTSEL mode, and ``unolaunch flash --uf2``,
  which copies that ``.uf2`` onto the RPI-RP2 drive and waits for the launcher.

What all three put on the board (the file set, the version, the configuration) and the
check that the new firmware runs are :mod:`~unolaunch.flash.firmware`'s.
"""

from __future__ import annotations

from unolaunch.flash.bootsel import (
    BootselDrive,
    Uf2FlashReport,
    bootsel_message,
    choose_drive,
    copy_to_drive,
    find_bootsel_drives,
    flash_uf2,
)
from unolaunch.flash.firmware import (
    CONFIG_FILE,
    BoardFile,
    FlashError,
    FlashUI,
    build_files,
    firmware_version,
    hello,
    load_config_file,
)
from unolaunch.flash.transfer import (
    Board,
    BoardCodeError,
    FlashReport,
    Plan,
    flash,
    plan,
    resolve_port,
)
from unolaunch.flash.uf2 import LauncherUf2, build_uf2, find_micropython, write_uf2

__all__ = [
    "CONFIG_FILE",
    "Board",
    "BoardCodeError",
    "BoardFile",
    "BootselDrive",
    "FlashError",
    "FlashReport",
    "FlashUI",
    "LauncherUf2",
    "Plan",
    "Uf2FlashReport",
    "bootsel_message",
    "build_files",
    "build_uf2",
    "choose_drive",
    "copy_to_drive",
    "find_bootsel_drives",
    "find_micropython",
    "firmware_version",
    "flash",
    "flash_uf2",
    "hello",
    "load_config_file",
    "plan",
    "resolve_port",
    "write_uf2",
]
