"""``unolaunch history``: past games with winner and scores, or one game's action log."""

from __future__ import annotations

import argparse
import json
import sys

from rich.console import Console
from rich.table import Table
from rich.text import Text

from unolaunch.table.journal import DATA_DIR_ENV, GameRecord, Journal
from unolaunch.table.names import shown
from unolaunch.table.screen import VARIANT_TITLES

HELP = "list past games with winner and scores"
DESCRIPTION = f"""\
List the games kept by 'unolaunch play' (newest first) with their winner and scores, or,
with a game number, every action of that game in order.

Games live in an SQLite file in your user data folder; set {DATA_DIR_ENV} or --data-dir to
use another folder. Continue an unfinished game with 'unolaunch play --resume GAME'.
"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of ``unolaunch history``."""
    parser.add_argument("game", nargs="?", type=int, metavar="GAME", help="show this game's log")
    parser.add_argument("--json", action="store_true", help="print JSON instead of a table")
    parser.add_argument("--limit", type=int, default=20, metavar="N", help="newest N games (20)")
    parser.add_argument(
        "--data-dir",
        metavar="DIR",
        help=f"folder of the games file (default: ${DATA_DIR_ENV} or your user data folder)",
    )


def _record_json(g: GameRecord) -> dict[str, object]:
    return {
        "game": g.id,
        "variant": g.variant,
        "players": list(g.players),
        "created": g.created,
        "updated": g.updated,
        "status": g.status,
        "round": g.round,
        "scores": g.scores,
        "winner": g.winner,
        "entries": g.actions,
        "port": g.port,
    }


def _scores_line(g: GameRecord) -> str:
    return ", ".join(f"{shown(p)} {g.scores.get(p, 0)}" for p in g.players)


def _line(text: str, style: str = "") -> Text:
    """A line of the log as plain text: names and typed words are never rich markup, and
    their control or invisible characters are shown escaped."""
    return Text(shown(text), style=style)


def run(args: argparse.Namespace) -> int:
    """List games, or print one game's log."""
    with Journal.open(args.data_dir) as journal:
        if args.game is not None:
            g = journal.game(args.game)
            entries = journal.entries(g.id)
            if args.json:
                out = _record_json(g)
                out["log"] = [
                    {"seq": e.seq, "kind": e.kind, "data": e.data, "at": e.at} for e in entries
                ]
                print(json.dumps(out, indent=2))
                return 0
            console = Console()
            head = Text(f"game {g.id}", style="bold")
            head.append_text(
                _line(
                    f": {VARIANT_TITLES.get(g.variant, g.variant)}, "
                    f"{', '.join(g.players)} — started {g.created} UTC, {g.status}"
                    + (f", won by {g.winner}" if g.winner else "")
                )
            )
            console.print(head)
            console.print(Text(f"scores: {_scores_line(g)} (round {g.round})"))
            for e in entries:
                what = _describe(e.kind, e.data)
                console.print(_line(f"{e.seq:>4}  {e.at[11:]}  {what}"), highlight=False)
            return 0
        games = journal.games()[: max(args.limit, 0)]
        if args.json:
            print(json.dumps([_record_json(g) for g in games], indent=2))
            return 0
        if not games:
            print(f"No games yet (looked in {journal.path}). Start one with 'unolaunch play'.")
            return 0
        table = Table(title=_line(f"games in {journal.path}"), title_justify="left")
        for col in ("game", "started (UTC)", "variant", "round", "status", "winner", "scores"):
            table.add_column(col)
        for g in games:
            table.add_row(
                *(
                    _line(cell)
                    for cell in (
                        str(g.id),
                        g.created[:16],
                        VARIANT_TITLES.get(g.variant, g.variant),
                        str(g.round),
                        g.status,
                        g.winner or "—",
                        _scores_line(g),
                    )
                )
            )
        Console(width=None if sys.stdout.isatty() else 200).print(table)
    return 0


def _describe(kind: str, data: dict[str, object]) -> str:
    """One journal entry in words."""
    if kind == "undo":
        return f"undo {data.get('n', 1)}"
    by = data.get("by")
    verbs = ("play", "press", "draw", "pass", "challenge", "accept", "choose", "catch")
    rest = {k: data[k] for k in verbs if k in data}
    rest.update({k: v for k, v in data.items() if k != "by" and k not in rest})
    return f"{by}: " + " ".join(
        k if v is True else f"{k}={json.dumps(v) if not isinstance(v, str) else v}"
        for k, v in rest.items()
    )
