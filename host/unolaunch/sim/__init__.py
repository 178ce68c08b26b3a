"""The simulated launcher: the real firmware behind a pty, on one of two boards.

``unix`` (the default, fast): the firmware in the MicroPython unix port with the fake
``machine`` of ``board/`` (:class:`SimulatedLauncher`). ``rp2040``: MicroPython's real rp2
port in an emulated RP2040 (:class:`unolaunch.sim.rp2040.Rp2040Launcher`). Both run the
launcher's mechanics from ``board/physics.py`` and offer the same API (:class:`SimBoard`).
"""

from __future__ import annotations

import argparse
import os
from typing import Any

from unolaunch.sim.base import SEED_MAX, SimBoard, SimError, configure_without_sensor
from unolaunch.sim.runner import BOARD_DIR, SimulatedLauncher, find_micropython

__all__ = [
    "BOARDS",
    "BOARD_DIR",
    "SEED_MAX",
    "SimBoard",
    "SimError",
    "SimulatedLauncher",
    "add_board_arguments",
    "configure_without_sensor",
    "find_micropython",
    "make_launcher",
]

#: The simulated boards, the default first.
BOARDS = ("unix", "rp2040")


def make_launcher(
    board: str = "unix", *, rp2_dir: str | os.PathLike[str] | None = None, **kwargs: Any
) -> SimBoard:
    """A simulated launcher on ``board`` (not started); ``kwargs`` are
    :class:`SimulatedLauncher`'s. ``rp2_dir`` is the rp2040 board's binaries folder."""
    if board == "unix":
        return SimulatedLauncher(**kwargs)
    if board == "rp2040":
        from unolaunch.sim.rp2040 import Rp2040Launcher

        return Rp2040Launcher(rp2_dir=rp2_dir, **kwargs)
    raise SimError(f"unknown board {board!r}: choose one of {', '.join(BOARDS)}")


def add_board_arguments(parser: argparse.ArgumentParser) -> None:
    """``--board`` and ``--rp2-dir``, for every command that can start a simulator."""
    parser.add_argument(
        "--board",
        choices=BOARDS,
        default="unix",
        help="the simulated board: 'unix' runs the firmware in MicroPython's unix port with a "
        "simulated Pico (fast; the default); 'rp2040' runs MicroPython's real rp2 port in an "
        "emulated RP2040 chip (needs node 18+, fetches the rp2040js emulator from npm on "
        "first use, and --rp2-dir)",
    )
    parser.add_argument(
        "--rp2-dir",
        metavar="DIR",
        help="for --board rp2040: the folder holding MicroPython's .uf2 for the Raspberry Pi "
        "Pico and the RP2040 boot ROM (rp2040-bootrom-b1.bin) (default: $UNOLAUNCH_RP2_DIR)",
    )
