"""The subcommands of ``unolaunch``: one module each (see :mod:`unolaunch.cli`)."""

from __future__ import annotations

import argparse
import math
import sys


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


def count(text: str) -> int:
    """An argparse ``type`` for a count (``--limit``, ``--players``): a whole number, 1 or more.
    A bad value is a usage error (exit 2) naming the option."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"{value} is too small: give 1 or more")
    return value


def seconds(text: str) -> float:
    """An argparse ``type`` for every ``--timeout``: seconds, more than 0 (decimals allowed).
    One rule for all the commands; a bad value is a usage error (exit 2)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds") from None
    if not value > 0 or math.isinf(value):
        raise argparse.ArgumentTypeError(f"{text} is not a time to wait: give seconds above 0")
    return value


def seed(text: str) -> int:
    """An argparse ``type`` for the simulated firmware's ``--seed``: 0 to 4294967295."""
    from unolaunch.sim.base import SEED_MAX

    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if not 0 <= value <= SEED_MAX:
        raise argparse.ArgumentTypeError(f"{value} is not between 0 and {SEED_MAX}")
    return value


def add_lang_argument(parser: argparse.ArgumentParser) -> None:
    """Add ``--lang`` (the table's language) to a command that talks to players."""
    from unolaunch.i18n import LANGUAGES, PSEUDO

    parser.add_argument(
        "--lang",
        choices=(*LANGUAGES, PSEUDO),
        metavar="LANG",
        help=f"the table's language: {', '.join(LANGUAGES)} (default: from LC_ALL, "
        "LC_MESSAGES or LANG, else en); card and command words of every language are "
        "understood whatever this says",
    )


def apply_language(args: argparse.Namespace) -> str:
    """Set the process's language from ``--lang`` or the locale; return it."""
    from unolaunch.i18n import choose_language, set_language

    lang = choose_language(getattr(args, "lang", None))
    set_language(lang)
    language_hint(lang)
    return lang


def language_hint(lang: str) -> None:
    """One line on stderr when ``lang`` would read better with an extra not installed:
    Icelandic declines players' names with ``islenska`` (``unolaunch[is]``); without it
    every sentence keeps the names in the nominative."""
    from unolaunch import declension
    from unolaunch.i18n import _

    if lang == "is" and not declension.available():
        print(
            _(
                "hint: to decline the players' names (Þóra -> Þóru) install the islenska "
                "package: pip install 'unolaunch[is]'; meanwhile the names stay in the nominative"
            ),
            file=sys.stderr,
        )
