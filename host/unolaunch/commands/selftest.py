"""``unolaunch selftest``: a guided check of a freshly wired launcher."""

from __future__ import annotations

import argparse
import sys

from rich.console import Console

from unolaunch.commands import add_port_argument, seconds
from unolaunch.errors import UsageError
from unolaunch.selftest import FAIL, PASS, Check, run_selftest

HELP = "guided check of a freshly wired launcher"
DESCRIPTION = """\
A guided hardware check for a launcher you have just wired up. Item by item:

  firmware   the version running and whether its launcher.json is valid (hello)
  motor      a short pulse forward, then reverse (unless --forward-only); you confirm
             the roller turned
  sensor     the IR beam must read clear, then blocked while you push a card through
  button     press the launcher's button when asked
  buzzer     three beeps (if a buzzer is configured); you confirm you heard them
  LED        three blinks (if an LED is configured); you confirm you saw them

The launcher's own firmware drives every part (protocol 2: the launcher keeps running, its
watchdog and motor limits stay on; a firmware older than this needs 'unolaunch flash'
first). It is put in hosted mode meanwhile, so the button press asked for fires nothing,
and is given back in the mode it was in.

Each item prints PASS, FAIL (with what to check) or SKIP (not fitted), then a summary. The
exit status is 0 only if nothing failed. Put the batteries in and the power switch on before
you start; take the cards out (a card may fly out during the motor pulse) but keep one in
your hand for the sensor test. --yes answers yes to every confirmation: the button press and
the card through the beam still need a person.
"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of ``unolaunch selftest``."""
    add_port_argument(parser)
    parser.add_argument(
        "--yes",
        action="store_true",
        help="do not ask for confirmations (motor turned, beeps heard, LED seen)",
    )
    parser.add_argument(
        "--forward-only",
        action="store_true",
        help="the motor runs one way only (a MOSFET instead of an H-bridge): skip the reverse "
        "pulse",
    )
    parser.add_argument(
        "--timeout",
        type=seconds,
        default=20.0,
        metavar="SECONDS",
        help="how long to wait for you to press the button or push a card (default 20)",
    )


class TerminalPerson:
    """The person at the terminal: instructions printed, y/n answers read from stdin."""

    def __init__(self, console: Console) -> None:
        self.console = console

    def tell(self, message: str) -> None:
        """Print an instruction."""
        self.console.print(f"[bold]>>[/bold] {message}")

    def ask(self, question: str) -> bool:
        """Ask until the answer is y or n."""
        while True:
            self.console.print(f"[bold]??[/bold] {question} [y/n] ", end="")
            line = sys.stdin.readline()
            if not line:
                raise UsageError(
                    "the self-test needs your answers and standard input has ended: run it in "
                    "a terminal, or pass --yes to skip the confirmations"
                )
            answer = line.strip().lower()
            if answer in ("y", "yes"):
                return True
            if answer in ("n", "no"):
                return False
            self.console.print("please answer y or n")

    def result(self, check: Check) -> None:
        """Print one item's outcome."""
        style = {PASS: "green", FAIL: "bold red"}.get(check.status, "yellow")
        self.console.print(
            f"  [{style}]{check.status}[/{style}]  {check.name:<14} {check.detail}",
        )


def run(args: argparse.Namespace) -> int:
    """Run the checks; exit 0 if none failed, 1 otherwise."""
    if args.timeout <= 0:
        raise UsageError("--timeout must be a positive number of seconds")
    console = Console(highlight=False, soft_wrap=True)
    console.print(
        "unolaunch selftest: batteries in, power on, cards out (keep one card in your hand)."
    )
    checks = run_selftest(
        args.port,
        TerminalPerson(console),
        assume_yes=args.yes,
        timeout_s=args.timeout,
        forward_only=args.forward_only,
    )
    passed = sum(c.status == PASS for c in checks)
    failed = [c for c in checks if c.status == FAIL]
    skipped = sum(c.status not in (PASS, FAIL) for c in checks)
    console.print(
        f"summary: {passed} passed, {len(failed)} failed, {skipped} skipped"
        + (f" (failed: {', '.join(c.name for c in failed)})" if failed else " - all good")
    )
    return 1 if failed else 0
