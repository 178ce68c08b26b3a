"""``unolaunch demo``: bots play UNO Attack through the simulated launcher (no hardware)."""

from __future__ import annotations

import argparse
import contextlib
import functools
import random
import shlex
import sys
from contextlib import ExitStack
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.text import Text

from unolaunch.commands import add_lang_argument, apply_language, seed
from unolaunch.web.address import WEB_LOG_HELP

HELP = "bots play UNO Attack against the simulated launcher"
DESCRIPTION = """\
Try unolaunch without hardware: a simulated launcher starts (the real firmware running in
MicroPython behind a serial device), and bots play one complete game of UNO Attack through
the real serial link. Every draw is a press of the simulated button, armed by the host for
exactly the player and presses the rules demand; the cards come out of the simulated
launcher's magazine. Prints a running log and the final scores.

The launcher is tuned for the demo with config_set (motor at full duty, no soft-start
ramp, 300 ms jam timeout), so a game to 500 points takes about a minute.

examples:
  unolaunch demo
  unolaunch demo --seed 7 --players 4
  unolaunch demo --target 100 --quiet
  unolaunch demo --web 8080          (then open http://127.0.0.1:8080/)
"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of ``unolaunch demo``."""
    parser.add_argument(
        "--seed", type=seed, metavar="S", help="replay a particular game (default: random)"
    )
    parser.add_argument(
        "--players", type=int, default=3, metavar="N", help="number of bots, 2-10 (3)"
    )
    parser.add_argument(
        "--target", type=int, metavar="POINTS", help="points that win the game (500, ATK-24)"
    )
    parser.add_argument(
        "--bot", choices=("heuristic", "random"), default="heuristic", help="bot strategy"
    )
    parser.add_argument(
        "--magazine",
        type=int,
        metavar="CARDS",
        help="most cards the simulated launcher takes at a time (default: the whole stock); "
        "the rest wait beside it and go in when it runs dry — a small magazine makes reloads "
        "and bursts that run dry happen often",
    )
    parser.add_argument("--quiet", action="store_true", help="show only rounds and scores")
    add_lang_argument(parser)
    parser.add_argument(
        "--web",
        metavar="[HOST:]PORT",
        help="also show the game live in a browser (the table view; read-only, slowed to "
        f"{WEB_PACE_S} s a step so that people can follow; 127.0.0.1 unless HOST is given). "
        "Needs: pip install 'unolaunch[web]'",
    )
    parser.add_argument("--web-log", metavar="FILE", help=WEB_LOG_HELP)
    from unolaunch.sim import add_board_arguments

    add_board_arguments(parser)


#: Seconds a step of the demo waits with --web (the bots are faster than the eye).
WEB_PACE_S = 0.4


def run(args: argparse.Namespace) -> int:
    """Run the demo game and print its log."""
    apply_language(args)
    from unolaunch.errors import UnolaunchError, UsageError
    from unolaunch.i18n import _, ngettext
    from unolaunch.table.demo import NAMES, DemoError, run_demo

    if args.target is not None and args.target < 1:
        raise UsageError(_("--target must be at least 1 point"))
    if not 2 <= args.players <= 10:
        raise UsageError(
            _("--players must be 2 to 10 (UNO Attack), not {n}").format(n=args.players)
        )
    if args.magazine is not None and args.magazine < 1:
        raise UsageError(_("--magazine must be at least 1 card, not {n}").format(n=args.magazine))
    bind = None
    if args.web is not None:
        from unolaunch.web.address import web_address

        bind = web_address(args.web)
    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(10_000)
    again = replay_command(args, seed)
    console = Console(highlight=False)
    front: Any = None

    def log(line: str) -> None:
        if front is not None:
            front.note(line)
        if args.quiet and line.startswith("  "):
            return
        console.print(line, soft_wrap=True, markup=False)
        sys.stdout.flush()

    with ExitStack() as stack:
        if bind is not None:
            from unolaunch.table.journal import data_dir
            from unolaunch.web.server import LOG_NAME, serve_demo

            say = functools.partial(console.print, soft_wrap=True, markup=False)
            web_log = Path(args.web_log).expanduser() if args.web_log else data_dir() / LOG_NAME
            front = stack.enter_context(
                serve_demo(NAMES[: args.players], *bind, say=say, pace=WEB_PACE_S, log_path=web_log)
            )
        try:
            result = run_demo(
                seed,
                args.players,
                args.target,
                log,
                bot=args.bot,
                board=args.board,
                rp2_dir=args.rp2_dir,
                watch=front.watch if front is not None else None,
                magazine=args.magazine,
            )
        except DemoError as exc:
            raise UnolaunchError(
                _(
                    "{error}. Nothing is lost but this demo game: run it again with '{command}', "
                    "and if it stops at the same place, please report that command"
                ).format(error=exc, command=again)
            ) from None
        console.print()
        done = ngettext(
            "{who} wins the game after {rounds} round: {presses} presses of the launcher, "
            "{cards} cards launched, {seconds} s.",
            "{who} wins the game after {rounds} rounds: {presses} presses of the launcher, "
            "{cards} cards launched, {seconds} s.",
            result.rounds,
        ).format(
            who=result.winner,
            rounds=result.rounds,
            presses=result.presses,
            cards=result.cards_launched,
            seconds=f"{result.seconds:.1f}",
        )
        console.print(Text(done, style="bold magenta"), soft_wrap=True)
        if result.missed:
            console.print(
                ngettext(
                    "({n} button press was not seen by the simulated board and was pressed again)",
                    "({n} button presses were not seen by the simulated board and were "
                    "pressed again)",
                    result.missed,
                ).format(n=result.missed),
                soft_wrap=True,
                markup=False,
            )
        console.print(_("Final scores:"), markup=False)
        for name, pts in sorted(result.scores.items(), key=lambda kv: -kv[1]):
            console.print(f"  {name:<6} {pts:>4}")
        console.print(
            _("(replay this game with: {command})").format(command=again),
            soft_wrap=True,
            markup=False,
        )
        if front is not None and sys.stdin.isatty():
            console.print(_("The table view stays up until you press Enter."), markup=False)
            with contextlib.suppress(EOFError, KeyboardInterrupt):
                input()
    return 0


def replay_command(args: argparse.Namespace, seed: int) -> str:
    """The command line that plays the same game again: every option that shapes it
    (``--web`` and ``--quiet`` only change how it is shown)."""
    words = ["unolaunch", "demo", "--seed", str(seed), "--players", str(args.players)]
    if args.target is not None:
        words += ["--target", str(args.target)]
    if args.magazine is not None:
        words += ["--magazine", str(args.magazine)]
    if args.bot != "heuristic":
        words += ["--bot", args.bot]
    if args.board != "unix":
        words += ["--board", args.board]
        if args.rp2_dir:
            words += ["--rp2-dir", shlex.quote(args.rp2_dir)]
    return " ".join(words)
