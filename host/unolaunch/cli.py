"""The ``unolaunch`` command line: a table of subcommands, and the one place that turns
exceptions into ``unolaunch: message`` on standard error with an exit status.

Each subcommand lives in its own module under :mod:`unolaunch.commands` and provides::

    HELP: str                                   # one line for the command list
    DESCRIPTION: str                            # the --help text (optional)
    def add_arguments(parser: argparse.ArgumentParser) -> None: ...
    def run(args: argparse.Namespace) -> int: ...   # the exit status

Modules are imported only when their command runs, so ``unolaunch --help`` stays fast.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
import traceback
from collections.abc import Sequence
from types import ModuleType

from unolaunch import __version__
from unolaunch.errors import UnolaunchError

# name -> (module, one-line help). Order is the order shown in --help.
COMMANDS: dict[str, tuple[str, str]] = {
    "demo": ("unolaunch.commands.demo", "bots play UNO Attack against the simulated launcher"),
    "play": ("unolaunch.commands.play", "keep score at the table (and drive the launcher)"),
    "history": ("unolaunch.commands.history", "list past games with winner and scores"),
    "replay": ("unolaunch.commands.replay", "run a rule scenario file through the engine"),
    "simulate": ("unolaunch.commands.simulate", "bots play many games; report speed and stats"),
    "tune": ("unolaunch.commands.tune", "find launcher settings for a round length or feel"),
    "sim": ("unolaunch.commands.sim", "start a simulated launcher on a serial device"),
    "monitor": ("unolaunch.commands.monitor", "show everything a launcher reports, live"),
    "flash": (
        "unolaunch.commands.flash",
        "put the firmware on a Pico (via mpremote, or --uf2 in BOOTSEL mode)",
    ),
    "uf2": ("unolaunch.commands.uf2", "write one .uf2 that makes a blank Pico a launcher"),
    "selftest": ("unolaunch.commands.selftest", "guided check of a freshly wired launcher"),
}

EPILOG = """\
Try it without hardware:  unolaunch demo
Run 'unolaunch COMMAND --help' for a command's options."""


def _load(name: str) -> ModuleType:
    module_name, _ = COMMANDS[name]
    return importlib.import_module(module_name)


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """Build the argument parser; with ``command`` given, only that subcommand is loaded."""
    parser = argparse.ArgumentParser(
        prog="unolaunch",
        description="A brain for the UNO Attack card launcher, and a scorekeeper for "
        "UNO Attack, UNO Mario Kart and UNO Pocket Pizza Pizza.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"unolaunch {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name, (_, help_text) in COMMANDS.items():
        if name != command:
            sub.add_parser(name, help=help_text, add_help=False)
            continue
        module = _load(name)
        p = sub.add_parser(
            name,
            help=help_text,
            description=getattr(module, "DESCRIPTION", help_text),
            formatter_class=argparse.RawDescriptionHelpFormatter,
        )
        module.add_arguments(p)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; return the exit status (0 ok, 1 failure, 2 usage)."""
    args_list = list(sys.argv[1:] if argv is None else argv)
    command = next((a for a in args_list if a in COMMANDS), None)
    try:
        parser = build_parser(command)
        args = parser.parse_args(args_list)
        if args.command is None:
            parser.print_help()
            return 2
        status: int = _load(args.command).run(args)
        return status
    except UnolaunchError as exc:
        print(f"unolaunch: {_plain(exc)}", file=sys.stderr)
        return exc.exit_status
    except KeyboardInterrupt:
        print("unolaunch: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 1
    except ImportError as exc:
        # A command whose module is missing: a broken install, not the user's fault.
        print(
            f"unolaunch: this command is not available ({exc}); reinstall unolaunch",
            file=sys.stderr,
        )
        return 1
    except Exception as exc:  # a bug of ours: still no traceback for users
        if os.environ.get("UNOLAUNCH_DEBUG"):
            traceback.print_exc()
        print(
            f"unolaunch: internal error: {type(exc).__name__}: {_plain(exc)} "
            "(please report it; set UNOLAUNCH_DEBUG=1 to see the details)",
            file=sys.stderr,
        )
        return 1


def _plain(exc: BaseException) -> str:
    """A message as one safe line: a name or a typed word quoted in it cannot act on the
    terminal (its control and invisible characters are shown escaped)."""
    from unolaunch.table.names import shown

    return shown(exc)


if __name__ == "__main__":
    raise SystemExit(main())
