"""The subcommands of ``unolaunch``: one module each (see :mod:`unolaunch.cli`)."""

from __future__ import annotations

import argparse


def add_port_argument(parser: argparse.ArgumentParser) -> None:
    """Add the ``--port`` option shared by the commands that talk to one launcher."""
    parser.add_argument(
        "--port",
        default="auto",
        metavar="PORT",
        help="serial device or pyserial URL of the launcher (/dev/ttyACM0, COM3, a "
        "simulator's pty, loop://); 'auto' (default) finds the one Pico running "
        "MicroPython by its USB id 2E8A:0005",
    )
