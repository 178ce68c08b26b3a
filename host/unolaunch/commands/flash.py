"""``unolaunch flash``: put the launcher firmware on a Pico running MicroPython."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import Any

from rich.console import Console
from rich.progress import (
    BarColumn,
    DownloadColumn,
    Progress,
    TaskID,
    TextColumn,
    TimeRemainingColumn,
    TransferSpeedColumn,
)

from unolaunch.commands import add_port_argument
from unolaunch.commands.uf2 import add_micropython_argument
from unolaunch.errors import UsageError
from unolaunch.flash import flash, flash_uf2

HELP = "put the firmware on a Pico (via mpremote, or --uf2 in BOOTSEL mode)"
DESCRIPTION = """\
Put the launcher firmware on a Raspberry Pi Pico that runs MicroPython, through mpremote;
or, with --uf2, MicroPython and the launcher at once on a Pico in BOOTSEL mode.

The firmware is compiled to .mpy with mpy-cross (faster start, less RAM) unless --no-compile;
only files whose SHA-256 on the board differs are copied, so a re-flash of an unchanged tree
copies nothing. The board's own launcher.json (its pins and settings) is kept unless --config
replaces it. Then the board is soft-reset and must answer `hello` with the version just
flashed.

The Pico needs MicroPython first: hold its BOOTSEL button while plugging it in and copy the
MicroPython .uf2 from https://micropython.org/download/ (RPI_PICO, RPI_PICO2, RPI_PICO_W)
onto the RPI-RP2 drive (or let --uf2, below, put both on a Pico at once). If the launcher
firmware will not let go of the REPL, hold the launcher's button while plugging the Pico
in (safe mode).

--uf2 (a blank Pico in one step): hold the Pico's BOOTSEL button while plugging it in; the
launcher's .uf2 ('unolaunch uf2': MicroPython's .uf2 from --micropython or
UNOLAUNCH_RP2_DIR, the firmware, launcher.json from --config or the defaults) is copied
onto its RPI-RP2 drive, then the command waits for the Pico to restart and its serial port
to appear and checks that hello reports the version written. THIS REPLACES THE PICO'S
WHOLE FILESYSTEM (a launcher.json of its own included). For the Raspberry Pi Pico (RP2040)
only: a Pico 2 is refused; a Pico W cannot be told apart in BOOTSEL mode and would run
without its Wi-Fi and on-board LED: give it MicroPython's RPI_PICO_W .uf2 and flash without
--uf2.

examples:
  unolaunch flash                          # the one Pico plugged in
  unolaunch flash --port /dev/ttyACM0 --dry-run
  unolaunch flash --config my-launcher.json
  unolaunch flash --uf2 --micropython ~/Downloads/RPI_PICO.uf2
"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of ``unolaunch flash``."""
    add_port_argument(parser)
    parser.add_argument(
        "--no-compile",
        dest="compile",
        action="store_false",
        help="copy the .py sources instead of compiling them to .mpy",
    )
    parser.add_argument(
        "--dry-run",
        action="store_true",
        help="show what would be copied and removed; change nothing on the board (the "
        "launcher is interrupted to look, and restarted: the command returns once it runs "
        "again)",
    )
    parser.add_argument(
        "--config",
        metavar="FILE",
        help="replace the board's launcher.json with FILE (JSON; keys it leaves out take "
        "their defaults); checked with the firmware's own validation first",
    )
    uf2 = parser.add_argument_group("a blank Pico in BOOTSEL mode (--uf2)")
    uf2.add_argument(
        "--uf2",
        action="store_true",
        help="copy MicroPython and the launcher as one .uf2 onto the Pico's RPI-RP2 drive "
        "(it replaces the Pico's whole filesystem), then wait for the launcher on --port",
    )
    uf2.add_argument(
        "--drive",
        metavar="FOLDER",
        help="with --uf2: the RPI-RP2 drive's folder (default: the one Pico in BOOTSEL mode "
        "found among the mounted drives)",
    )
    add_micropython_argument(uf2)


class RichFlashUI:
    """Reports a flash on the terminal: one line per file, a progress bar for the copy."""

    def __init__(self, console: Console) -> None:
        self.console = console
        self._progress: Progress | None = None

    def info(self, message: str) -> None:
        """Print a line of narration."""
        self.console.print(message, highlight=False)

    def file(self, action: str, path: str, size: int | None = None, note: str = "") -> None:
        """Print one file's fate."""
        extra = f"  {size:,} bytes" if size is not None else ""
        extra += f"  ({note})" if note else ""
        self.console.print(f"  {action:<12} {path}{extra}", highlight=False)

    def transfer(self, total_bytes: int) -> Callable[[int, str], None]:
        """Show a progress bar for ``total_bytes``; return the function that advances it."""
        progress = Progress(
            TextColumn("  copying {task.description}"),
            BarColumn(),
            DownloadColumn(),
            TransferSpeedColumn(),
            TimeRemainingColumn(),
            console=self.console,
            transient=True,
        )
        progress.start()
        task: TaskID = progress.add_task("", total=total_bytes)
        self._progress = progress

        def advance(done: int, path: str) -> None:
            progress.update(task, completed=done, description=path)

        return advance

    def done(self) -> None:
        """Close the progress bar."""
        if self._progress is not None:
            self._progress.stop()
            self._progress = None


def run(args: argparse.Namespace) -> int:
    """Flash, print what was done; exit 0 when the new firmware answered hello."""
    console = Console(highlight=False, soft_wrap=True)
    ui = RichFlashUI(console)
    if args.uf2:
        return _run_uf2(args, console, ui)
    for option, given in (("--drive", args.drive), ("--micropython", args.micropython)):
        if given is not None:
            raise UsageError(f"{option} goes with --uf2 (a Pico in BOOTSEL mode)")
    try:
        report = flash(
            args.port,
            ui,
            compile=args.compile,
            dry_run=args.dry_run,
            config_file=args.config,
        )
    finally:
        ui.done()
    plan = report.plan
    if report.dry_run:
        console.print(
            f"dry run: would copy {len(plan.copy)} of {len(plan.files)} files "
            f"({plan.copy_bytes:,} bytes) and remove {len(plan.remove)}; nothing was changed"
        )
        return 0
    console.print(
        f"flashed {report.version} to {report.port}: copied {len(plan.copy)} of "
        f"{len(plan.files)} files ({plan.copy_bytes:,} bytes), removed {len(plan.remove)}, "
        f"in {report.seconds:.1f} s"
    )
    _print_hello(console, report.hello)
    return 0


def _run_uf2(args: argparse.Namespace, console: Console, ui: RichFlashUI) -> int:
    if not args.compile:
        raise UsageError("--no-compile does not go with --uf2 (its firmware is .mpy)")
    try:
        report = flash_uf2(
            ui,
            drive=args.drive,
            port=args.port,
            micropython=args.micropython,
            config_file=args.config,
            dry_run=args.dry_run,
        )
    finally:
        ui.done()
    uf2 = report.uf2
    if report.dry_run:
        console.print(
            f"dry run: would copy {report.name} ({len(uf2.data):,} bytes) onto {report.drive}, "
            "replacing the Pico's whole filesystem; nothing was changed"
        )
        return 0
    console.print(
        f"flashed {uf2.version} with MicroPython {uf2.micropython} through {report.drive}: "
        f"{len(uf2.data):,} bytes; the launcher is on {report.port}, in {report.seconds:.1f} s"
    )
    _print_hello(console, report.hello)
    return 0


def _print_hello(console: Console, hello: dict[str, Any]) -> None:
    if hello:
        status = hello.get("config_status")
        console.print(
            f"hello: firmware {hello.get('firmware')}, protocol {hello.get('protocol')}, "
            f"board {hello.get('board')}, config {status}"
        )
        if status not in ("ok", "defaults:missing"):
            reasons = "; ".join(
                f"{e.get('key')}: {e.get('reason')}"
                for e in hello.get("config_errors") or []
                if isinstance(e, dict)
            )
            console.print(
                f"warning: the board's launcher.json was not used ({status}"
                + (f": {reasons}" if reasons else "")
                + "); the launcher runs on its defaults. Fix it with "
                "'unolaunch flash --config FILE'."
            )
