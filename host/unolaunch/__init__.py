"""unolaunch: a brain for the UNO Attack card launcher and a table-side UNO scorekeeper."""

from __future__ import annotations

from pathlib import Path

__version__ = "0.1.0"

__all__ = ["__version__", "firmware_dir"]


def firmware_dir() -> Path:
    """Return the folder holding the launcher firmware (MicroPython sources).

    In an installed wheel the firmware ships inside the package (``unolaunch/firmware``);
    in a git checkout it is the repository's top-level ``firmware/`` folder.
    """
    packaged = Path(__file__).resolve().parent / "firmware"
    if packaged.is_dir():
        return packaged
    return Path(__file__).resolve().parents[2] / "firmware"
