"""``unolaunch play``: the table-side scorekeeper (and the launcher's referee)."""

from __future__ import annotations

import argparse
import json
from contextlib import ExitStack
from pathlib import Path
from typing import Any

from unolaunch.commands import add_lang_argument, apply_language
from unolaunch.errors import UnolaunchError, UsageError
from unolaunch.i18n import _
from unolaunch.table.journal import DATA_DIR_ENV, Journal
from unolaunch.web.address import WEB_HELP, WEB_LOG_HELP

HELP = "keep score at the table (and drive the launcher)"
DESCRIPTION = f"""\
Keep score of a real game of UNO Attack, UNO Mario Kart or UNO Pocket Pizza Pizza: whose
turn it is, the colour and top card, what each player owes, hand sizes and the scores,
round after round until someone reaches the target.

Type what each player did in short words: r5, 'red 5', skip, 'wild blue',
'attack blue Bob', press ('press 3' without a launcher: 3 cards came out), draw, pass,
uno, 'catch Bob', challenge, undo, help.
Tab completes. Every action is saved at once (SQLite, in your user data folder or
${DATA_DIR_ENV}); after a crash or a closed laptop, 'unolaunch play --resume' continues
exactly where you stopped.

UNO Attack with a launcher (--port): the launcher fires only for the player and the
number of presses the rules demand; its presses update the hands live. '--port sim'
starts a simulated launcher (type 'press' to press its button).

examples:
  unolaunch play --variant attack --players Ann,Bob,Cy --port auto
  unolaunch play --variant mario-kart --players Ann,Bob --target 300
  unolaunch play --resume
  unolaunch play --variant attack --players Ann,Bob,Cy --port sim --web 0.0.0.0:8080
"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of ``unolaunch play``."""
    parser.add_argument(
        "--variant",
        choices=("attack", "mario-kart", "pocket-pizza"),
        help="which UNO (required for a new game)",
    )
    parser.add_argument(
        "--players", metavar="A,B,C", help="player names in seating order, to the left"
    )
    parser.add_argument(
        "--port",
        metavar="PORT",
        help="UNO Attack launcher: a serial port, 'auto' (find it), 'sim' (a simulated one) "
        "or 'none' (type presses with their card count)",
    )
    parser.add_argument(
        "--target", type=int, metavar="POINTS", help="points that win the game (500; 250 PP)"
    )
    parser.add_argument("--dealer", metavar="NAME", help="first dealer (default: drawn at random)")
    parser.add_argument(
        "--option",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="a house-rule option of the variant, e.g. strict_press=true (repeatable)",
    )
    parser.add_argument(
        "--resume",
        nargs="?",
        const=0,
        type=int,
        metavar="GAME",
        help="continue a saved game (default: the latest unfinished one)",
    )
    parser.add_argument("--web", metavar="[HOST:]PORT", help=WEB_HELP)
    parser.add_argument("--web-log", metavar="FILE", help=WEB_LOG_HELP)
    parser.add_argument(
        "--new-links",
        action="store_true",
        help="with --web: make new join links for the players (the old ones stop working; "
        "for a link that got out). Without it a resumed game keeps its links",
    )
    parser.add_argument("--seed", type=int, help=argparse.SUPPRESS)
    add_lang_argument(parser)
    from unolaunch.sim import add_board_arguments

    add_board_arguments(parser)  # for --port sim
    parser.add_argument(
        "--data-dir",
        metavar="DIR",
        help=f"folder of the games file (default: ${DATA_DIR_ENV}, else your user data folder)",
    )


def _options(args: argparse.Namespace) -> dict[str, Any]:
    opts: dict[str, Any] = {}
    for item in args.option:
        key, eq, raw = item.partition("=")
        if not eq or not key:
            raise UsageError(
                _("--option {item}: write KEY=VALUE, e.g. strict_press=true").format(
                    item=repr(item)
                )
            )
        try:
            opts[key.strip()] = json.loads(raw)
        except json.JSONDecodeError:
            opts[key.strip()] = raw
    if args.target is not None:
        if args.target < 1:
            raise UsageError(_("--target must be at least 1 point"))
        opts["target"] = args.target
    return opts


def _players(text: str | None) -> list[str]:
    """The names of --players: visible one-word names, no two the same (names.py)."""
    from unolaunch.table.names import check_names

    if not text:
        raise UsageError(_("name the players in seating order: --players Ann,Bob,Cy"))
    return check_names(text)


def _dealer(name: str | None, players: list[str]) -> str | None:
    """--dealer: one of the players, compared as names are (``ann`` is ``Ann``)."""
    from unolaunch.table.names import name_key, quoted

    if not name:
        return None
    found = [p for p in players if name_key(p) == name_key(name.strip())]
    if not found:
        raise UsageError(
            _("--dealer {name} is not one of {players}").format(
                name=quoted(name), players=", ".join(players)
            )
        )
    return found[0]


def run(args: argparse.Namespace) -> int:
    """Start or resume a game and play it at the terminal. Its language: ``--lang``, else
    (a resumed game) the one it was played in, else the locale's."""
    lang = apply_language(args)
    from unolaunch.table.app import Table
    from unolaunch.table.session import Session

    bind = None
    if args.new_links and args.web is None:
        raise UsageError(_("--new-links makes new join links for the web pages: use it with --web"))
    if args.web is not None:
        from unolaunch.web.address import web_address

        bind = web_address(args.web)
    with Journal.open(args.data_dir) as journal, ExitStack() as held:
        if args.resume is not None:
            if args.variant or args.players:
                raise UsageError(
                    _("--resume continues a saved game: leave out --variant/--players")
                )
            given = [
                flag
                for flag, value in (
                    ("--target", args.target),
                    ("--option", args.option),
                    ("--dealer", args.dealer),
                )
                if value
            ]
            if given:  # never ignored: the game goes on as it was set up (its journal)
                raise UsageError(
                    _(
                        "--resume continues a saved game as it was set up: leave out "
                        "{options} ('unolaunch history GAME' shows its target and options)"
                    ).format(options="/".join(given))
                )
            game_id: int | None = args.resume or None
            if game_id is None:
                latest = journal.latest_unfinished()
                game_id = latest.id if latest is not None else None
            if game_id is not None:  # one game, one process: held before it is read
                held.enter_context(journal.claim(game_id))
            session = Session.resume(journal, game_id)
            port = args.port if args.port is not None else session.record.port
            keep_language(journal, session, lang, asked=args.lang)
        else:
            if not args.variant:
                raise UsageError(
                    _(
                        "which game? --variant attack, mario-kart or pocket-pizza "
                        "(or --resume to continue a saved one)"
                    )
                )
            players = _players(args.players)
            dealer = _dealer(args.dealer, players)
            if args.port and args.port != "none" and args.variant != "attack":
                raise UsageError(
                    _("{variant} needs no launcher: leave out --port").format(variant=args.variant)
                )
            session = Session.start(
                journal,
                args.variant,
                players,
                _options(args),
                seed=args.seed,
                dealer=dealer,
                port=args.port,
                lang=lang,
            )
            held.enter_context(journal.claim(session.id))
            port = args.port
        table = Table(session)
        table.holding = True  # until its first screen: it shows what the launcher said
        notify = table.redraw_from_event
        front = None
        if bind is not None:  # the browser pages: a second front end of this session
            from unolaunch.web.server import serve_table

            log = Path(args.web_log).expanduser() if args.web_log else None
            front = held.enter_context(
                serve_table(table, *bind, log_path=log, new_links=args.new_links)
            )
            notify = front.notify
        if port and port != "none" and session.variant == "attack":
            from unolaunch.link import LinkError
            from unolaunch.table.launcher import connect

            try:
                launcher = connect(
                    port,
                    session,
                    notify,
                    board=args.board,
                    rp2_dir=args.rp2_dir,
                    say=lambda text: table.say(f"⏳ {text}"),
                )
                table.launcher = launcher
                if front is not None:
                    front.follow(launcher)
                board = launcher.sim
                if board is not None:  # 'sim jam', 'sim load 40' ... typed at the table
                    from unolaunch.commands.sim import handle

                    def sim_commands(line: str) -> None:
                        handle(board, line, lambda text: table.say(f"  · {text}"))  # sim's own
                        launcher.on_change()  # the pages show the cards inside

                    table.sim_commands = sim_commands
            except LinkError as exc:
                if args.resume is None and journal.discard_unplayed(session.id):
                    raise UnolaunchError(  # a game that never started: not in the history
                        _(
                            "{error} — nothing was saved: fix the launcher and run the same "
                            "command again, or play without it: --port none (type presses with "
                            "their card count)"
                        ).format(error=exc)
                    ) from None
                raise UnolaunchError(
                    _(
                        "{error} — game {game} is saved: fix the launcher and run "
                        "'unolaunch play --resume {game}', or play on without it: "
                        "'unolaunch play --resume {game} --port none'"
                    ).format(error=exc, game=session.id)
                ) from None
        try:
            return table.run()
        finally:
            if table.launcher is not None:
                table.launcher.close()


def keep_language(journal: Journal, session: Any, lang: str, asked: str | None) -> None:
    """A resumed game speaks the language it was played in unless ``--lang`` (``asked``)
    says otherwise; then the new language is kept with the game for the next ``--resume``.
    A game from before languages were kept (none stored) goes on in ``lang``, and keeps it."""
    from unolaunch.commands import language_hint
    from unolaunch.i18n import LANGUAGES, PSEUDO, set_language

    stored = session.record.lang
    if asked is None and stored in (*LANGUAGES, PSEUDO):
        if stored != lang:
            set_language(stored)
            language_hint(stored)
        return
    if stored != lang:
        journal.set_lang(session.id, lang)
