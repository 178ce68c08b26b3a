"""``unolaunch uf2``: one file that turns a blank Pico into a launcher."""

from __future__ import annotations

import argparse
from pathlib import Path

from rich.console import Console

from unolaunch.errors import UsageError
from unolaunch.flash.uf2 import build_uf2, write_uf2

HELP = "write one .uf2 that makes a blank Pico a launcher"
DESCRIPTION = """\
Write one .uf2 file for a Raspberry Pi Pico that holds MicroPython and a filesystem with
the launcher firmware (compiled to .mpy with mpy-cross, exactly as 'unolaunch flash' puts
it on a board) and its launcher.json (the defaults, or --config FILE, checked by the
firmware's own validation first).

Hold the Pico's BOOTSEL button while plugging it in, and drag the file onto the RPI-RP2
drive that appears: the Pico restarts as a launcher. 'unolaunch flash --uf2' does the drag
for you and checks the result.

THIS REPLACES THE PICO'S WHOLE FILESYSTEM: whatever files the Pico held (a launcher.json
of your own included) are gone. To keep them, update an existing launcher with
'unolaunch flash' instead.

The file is made for the Raspberry Pi Pico (RP2040, MicroPython's RPI_PICO); a Pico 2 or a
Pico W lays out its flash otherwise: give it MicroPython's own .uf2 for that board, then
run 'unolaunch flash'. The same inputs always give the same bytes.

MicroPython's .uf2 comes from --micropython FILE, else from the folder named by
UNOLAUNCH_RP2_DIR (download it from https://micropython.org/download/RPI_PICO/).

examples:
  unolaunch uf2 --micropython ~/Downloads/RPI_PICO.uf2
  unolaunch uf2 --micropython mp.uf2 --config family.json --output ~/launchers/
"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of ``unolaunch uf2``."""
    add_micropython_argument(parser)
    parser.add_argument(
        "--config",
        metavar="FILE",
        help="the launcher.json to put in (JSON; keys it leaves out take their defaults), "
        "checked with the firmware's own validation first (default: the defaults)",
    )
    parser.add_argument(
        "--output",
        metavar="FILE",
        help="where to write it (a file, or a folder for the default name; default: "
        "unolaunch-VERSION-rpi_pico.uf2 in the current folder)",
    )


def add_micropython_argument(parser: argparse.ArgumentParser | argparse._ArgumentGroup) -> None:
    """``--micropython``, shared with ``flash --uf2``."""
    parser.add_argument(
        "--micropython",
        metavar="FILE",
        help="MicroPython's .uf2 for the Raspberry Pi Pico (RPI_PICO, 1.19 or later; "
        "default: the one .uf2 in the folder named by UNOLAUNCH_RP2_DIR)",
    )


def _not_a_drive(output: Path) -> None:
    """Refuse to write onto a Pico's BOOTSEL drive: its boot ROM restarts the Pico once the
    last block arrives, before a file written whole-then-renamed could be renamed."""
    from unolaunch.flash.bootsel import is_bootsel_drive

    folder = output if output.is_dir() else output.parent
    if is_bootsel_drive(folder):
        raise UsageError(
            f"--output {output} is on a Pico's BOOTSEL drive: 'unolaunch flash --uf2 --drive "
            f"{folder}' copies the .uf2 there and checks that the launcher starts"
        )


def run(args: argparse.Namespace) -> int:
    """Build and write the ``.uf2``; print what is in it."""
    console = Console(highlight=False, soft_wrap=True)
    if args.output is not None:
        _not_a_drive(Path(args.output))
    uf2 = build_uf2(args.micropython, config_file=args.config)
    path = write_uf2(uf2, args.output)
    console.print(
        f"wrote {path} ({len(uf2.data):,} bytes): MicroPython {uf2.micropython} for the "
        f"{uf2.layout.board} ({uf2.micropython_file.name}), launcher firmware {uf2.version} "
        f"({len(uf2.files) - 1} files, .mpy from mpy-cross), launcher.json from "
        f"{uf2.config_file or 'the defaults'}"
    )
    console.print(
        "Hold the Pico's BOOTSEL button while plugging it in and copy this file onto the "
        "RPI-RP2 drive: it replaces everything on the Pico's flash, and the Pico restarts as "
        "a launcher ('unolaunch flash --uf2' does it for you)."
    )
    return 0
