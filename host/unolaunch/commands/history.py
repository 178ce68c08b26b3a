"""``unolaunch history``: past games with winner and scores, or one game's action log."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

from rich.console import Console
from rich.table import Table
from rich.text import Text

from unolaunch.cards import parse_card
from unolaunch.commands import add_lang_argument, apply_language, count
from unolaunch.errors import UnolaunchError
from unolaunch.i18n import N_, _, ngettext
from unolaunch.rules import Effect, Game, IllegalMoveError
from unolaunch.table.app import effect_text
from unolaunch.table.journal import DATA_DIR_ENV, DB_NAME, Entry, GameRecord, Journal, data_dir
from unolaunch.table.names import shown
from unolaunch.table.outcome import note_outcome, words
from unolaunch.table.screen import card_name, card_names, variant_title
from unolaunch.table.session import _new_game, engine_action

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
    add_lang_argument(parser)
    parser.add_argument("--limit", type=count, default=20, metavar="N", help="newest N games (20)")
    parser.add_argument(
        "--recover",
        action="store_true",
        help="a damaged games file: copy every game it can still read into a fresh one "
        "(the damaged file is kept as games.sqlite3.bad)",
    )
    parser.add_argument(
        "--abandon",
        type=int,
        metavar="GAME",
        help="close an unfinished game that will not be played on (it stays in the history; "
        "'play --resume GAME' still continues it)",
    )
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


def local_time(stamp: str, seconds: bool = False) -> str:
    """A stored UTC time (``2026-12-01 15:04:05``) in this computer's local time."""
    try:
        when = datetime.fromisoformat(stamp.replace("Z", "")).replace(tzinfo=UTC)
    except ValueError:
        return stamp
    return when.astimezone().strftime("%Y-%m-%d %H:%M" + (":%S" if seconds else ""))


#: A game's status (stored in English) as the listing shows it.
_STATUS = {"playing": N_("playing"), "finished": N_("finished"), "abandoned": N_("abandoned")}


def _status(status: str) -> str:
    return _(_STATUS[status]) if status in _STATUS else status


def _scores_line(g: GameRecord) -> str:
    return ", ".join(f"{shown(p)} {g.scores.get(p, 0)}" for p in g.players)


def _line(text: str, style: str = "") -> Text:
    """A line of the log as plain text: names and typed words are never rich markup, and
    their control or invisible characters are shown escaped."""
    return Text(shown(text), style=style)


def run(args: argparse.Namespace) -> int:
    """List games, or print one game's log (reading only: a listing creates nothing)."""
    apply_language(args)
    path = data_dir(args.data_dir) / DB_NAME
    if args.abandon is not None:
        return abandon(args.data_dir, args.abandon)
    if args.recover:
        saved, lost, bad = Journal.recover(args.data_dir)
        if lost:
            text = ngettext(
                "recovered {n} game into a fresh {path}; {lost} could not be read whole (kept "
                "up to the damage); the damaged file is kept as {bad}",
                "recovered {n} games into a fresh {path}; {lost} could not be read whole (kept "
                "up to the damage); the damaged file is kept as {bad}",
                saved,
            )
        else:
            text = ngettext(
                "recovered {n} game into a fresh {path}; the damaged file is kept as {bad}",
                "recovered {n} games into a fresh {path}; the damaged file is kept as {bad}",
                saved,
            )
        print(text.format(n=saved, path=path, lost=lost, bad=bad))
        return 0
    if not path.exists():
        if args.game is not None:
            raise UnolaunchError(
                _("no game {game}: no games yet (looked in {path})").format(
                    game=args.game, path=path
                )
            )
        if args.json:
            print("[]")
        else:
            print(
                _("No games yet (looked in {path}). Start one with 'unolaunch play'.").format(
                    path=path
                )
            )
        return 0
    with Journal.open(args.data_dir, read_only=True) as journal:
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
            fields = {
                "game": g.id,
                "title": variant_title(g.variant),
                "players": ", ".join(g.players),
                "started": local_time(g.created),
                "status": _status(g.status),
                "winner": g.winner,
            }
            if g.winner:
                line = _(
                    "game {game}: {title}, {players} — started {started}, {status}, won by {winner}"
                )
            else:
                line = _("game {game}: {title}, {players} — started {started}, {status}")
            head = _line(line.format(**fields))
            head.stylize("bold", 0, len(shown(_("game {game}").format(game=g.id))))
            console.print(head)
            console.print(
                _line(
                    _("scores: {scores} (round {round})").format(
                        scores=_scores_line(g), round=g.round
                    )
                )
            )
            for e, what in zip(entries, log_texts(g, entries), strict=True):
                # One line an entry, never wrapped (a log is read with grep and less too).
                console.print(
                    _line(f"{e.seq:>4}  {local_time(e.at, seconds=True)[11:]}  {what}"),
                    highlight=False,
                    soft_wrap=True,
                )
            return 0
        every = journal.games()
        games = every[: args.limit]
        if args.json:
            print(json.dumps([_record_json(g) for g in games], indent=2))
            return 0
        if not games:
            print(
                _("No games yet (looked in {path}). Start one with 'unolaunch play'.").format(
                    path=journal.path
                )
            )
            return 0
        table = Table(
            title=_line(_("games in {path}").format(path=journal.path)), title_justify="left"
        )
        for col in _COLUMNS:
            table.add_column(_(col))
        for g in games:
            table.add_row(
                *(
                    _line(cell)
                    for cell in (
                        str(g.id),
                        local_time(g.created),
                        variant_title(g.variant),
                        str(g.round),
                        _status(g.status),
                        g.winner or "—",
                        _scores_line(g),
                    )
                )
            )
        Console(width=None if sys.stdout.isatty() else 200).print(table)
        if len(every) > len(games):
            more = len(every) - len(games)
            print(
                ngettext(
                    "{n} older game not shown: 'unolaunch history --limit {all}' lists all {all}",
                    "{n} older games not shown: 'unolaunch history --limit {all}' lists all {all}",
                    more,
                ).format(n=more, all=len(every))
            )
    return 0


def abandon(directory: str | None, game_id: int) -> int:
    """``--abandon GAME``: an unfinished game nobody will play on is closed (it stays in
    the history; ``play --resume GAME`` still continues it)."""
    with Journal.open(directory) as journal:
        g = journal.game(game_id)
        if g.status != "playing":
            raise UnolaunchError(
                _("game {game} is {status} already; nothing to abandon").format(
                    game=game_id, status=_status(g.status)
                )
            )
        with journal.claim(game_id):  # not while it is being played somewhere
            journal.set_status(game_id, "abandoned")
    print(
        _(
            "game {game} is abandoned: 'play --resume' no longer picks it "
            "('unolaunch play --resume {game}' still continues it)"
        ).format(game=game_id)
    )
    return 0


def log_texts(record: GameRecord, entries: Sequence[Entry]) -> list[str]:
    """Each journal entry of a game in the words of the game screen: the entries are
    replayed on a fresh engine (as ``--resume`` does) and each one told by what it did —
    ``Ann plays red 5``, ``Ann presses the launcher: 2 cards came out``, ``fix: Bob now
    holds 5 cards``, ``round 2 dealt: Ann deals``, ``undo: took back 'Bob plays green 4'``.
    From an entry that does not replay (a damaged journal) on, entries are told from their
    own data."""
    game: Game | None = _new_game(
        record.variant, record.players, record.options, record.seed, record.dealer
    )
    in_effect: list[str] = []  # what the entries still in effect did (undo names them)
    out: list[str] = []
    for e in entries:
        text = None
        if game is not None:
            try:
                text = _replayed(game, e.kind, e.data, in_effect)
            except (IllegalMoveError, ValueError, KeyError, TypeError):
                game = None
        if text is None:
            text = _describe(e.kind, e.data)
        out.append(text)
    return out


def _replayed(game: Game, kind: str, data: dict[str, Any], in_effect: list[str]) -> str:
    """Apply one entry to ``game``; what it did, in words."""
    if kind == "note":
        return _note_text(data)
    if kind == "undo":
        n = int(data.get("n", 1))
        game.undo(n)
        taken = in_effect[len(in_effect) - n :] if n else []
        del in_effect[len(in_effect) - n :]
        if data.get("uno"):  # COM-6: UNO said just after the play; the play follows with it
            return _("{who} says UNO just after the card (COM-6): the play is kept with it").format(
                who=data["uno"]
            )
        what = ", ".join(f"'{t}'" for t in taken) or ngettext(
            "{n} action", "{n} actions", n
        ).format(n=n)
        return _("undo: took back {what}").format(what=what)
    if kind == "deal":
        game.next_round()
        snap = game.snapshot()
        text = _("round {n} dealt: {who} deals").format(n=snap["round"], who=snap["dealer"])
    elif kind == "action":
        text = _action_text(data, game.apply(engine_action(data)))
    else:
        raise ValueError(kind)
    in_effect.append(text)
    return text


def _action_text(data: dict[str, Any], effects: list[Effect]) -> str:
    """An applied action in words, from the engine's effects (as the game screen shows
    them), with what only the journal knows said first: who pressed and what came out, a
    hand size fixed (whoever was awaited when it was typed), the start card turned up."""
    by = str(data.get("by"))
    choose = data.get("choose")
    texts = [effect_text(e) for e in effects]
    if "correct" in data and data.get("reason") == "stray":
        return _(
            "launcher: card(s) left the launcher after {who}'s press (pulled out of a jam, or "
            "carried out by the roller), given to them: {what}"
        ).format(who=by, what="; ".join(texts))
    if "correct" in data:
        return _("fix: {what}").format(what="; ".join(texts))
    if data.get("press"):
        n = data.get("cards")
        if data.get("reason") == "cut":  # a burst cut short by a pulled cable (issue 33)
            came = _(
                "{who} presses the launcher: the cable was pulled during the burst (its cards "
                "were given by hand)"
            ).format(who=by)
        elif n == 0:
            came = _("{who} presses the launcher: no card came out").format(who=by)
        else:
            came = ngettext(
                "{who} presses the launcher: {n} card came out",
                "{who} presses the launcher: {n} cards came out",
                n if isinstance(n, int) else 2,
            ).format(who=by, n=n)
        # the cards the press brought are said first: not again as the engine's draw
        rest = [effect_text(e) for e in effects if not (e.kind == "draw" and e.player == by)]
        return "; ".join([came, *rest])
    if isinstance(choose, dict) and "top" in choose:
        rest = [effect_text(e) for e in effects if e.kind != "start"]
        top = card_name(str(choose["top"]))
        turned = _("{who} turns up the start card: {card}").format(who=by, card=top)
        return "; ".join([turned, *rest])
    if isinstance(choose, dict) and ("hands" in choose or "points" in choose):
        left = {**choose.get("points", {}), **choose.get("hands", {})}
        told = ", ".join(
            ngettext("{who} {n} point", "{who} {n} points", v).format(who=p, n=v)
            if isinstance(v, int)
            else f"{p} {_plain(v)}"
            for p, v in left.items()
        )
        texts = [_("cards left: {hands}").format(hands=told), *texts]  # COM-8
    said = "; ".join(texts) or _("nothing happened")
    return said if said.startswith(by) else f"{by}: {said}"


def _describe(kind: str, data: dict[str, Any]) -> str:
    """One journal entry in words, from its data alone (an entry that does not replay)."""
    if kind == "undo":
        return _("undo {n}").format(n=data.get("n", 1))
    if kind == "deal":
        return _("next round dealt")
    if kind == "note":
        return _note_text(data)
    by = str(data.get("by"))
    if isinstance(data.get("correct"), dict):
        held = ", ".join(
            _("{who} now holds {n}").format(who=p, n=n) for p, n in data["correct"].items()
        )
        return _("fix: {what}").format(what=held)
    choose = data.get("choose")
    if data.get("press") or (isinstance(choose, dict) and "top" in choose):
        return _action_text(data, [])
    words: list[str] = []
    verbs = [k for k in _VERBS if k in data]
    for key, value in sorted(data.items(), key=lambda kv: kv[0] not in verbs):
        if key == "by":
            continue
        if value is True:
            words.append(key)
        elif isinstance(value, str):
            words.append(f"{key} {card_name(value) if key in _CARD_KEYS else value}")
        elif isinstance(value, dict):
            words += [f"{key} {k} {_plain(v)}" for k, v in value.items()]
        else:
            words.append(f"{key} {_plain(value)}")
    return f"{by}: {' '.join(words)}"


def _note_text(data: dict[str, Any]) -> str:
    """What the launcher reported at the table (a foul, a fault, a press that did not fit),
    as the game screen said it: ``launcher: foul: a press nobody owes``."""
    mark = data.get("launcher_event")
    said_too = "outcome" in data or "warning" in data  # a foul's, a fault's note (issue 33)
    if isinstance(mark, dict) and not said_too:
        # the launcher event the entry before it applied (or the table's position in the
        # launcher's log when it connected): issue 21
        if mark.get("event") == "connected":
            text = _("launcher: connected at event #{seq} ({event})")
        else:
            text = _("launcher: took in event #{seq} ({event})")
        text = text.format(seq=mark.get("seq"), event=mark.get("event"))
        if mark.get("caught_up"):
            text = _("{what} — caught up: it happened while unolaunch was away").format(what=text)
        return text
    if data.get("closed"):  # the table said 'yes' at the game's end (issue 22)
        return _("the game's end is confirmed ('yes'): the game is closed")
    found = note_outcome(data) or note_outcome(data, "warning")
    said = card_names(words(found)) if found is not None else ""
    # TRANSLATORS: a note of the journal: what the launcher reported, as the table said it.
    text = _("launcher: {what}").format(what=said.removeprefix("launcher ").strip())
    if isinstance(mark, dict) and mark.get("caught_up"):
        text = _("{what} — caught up: it happened while unolaunch was away").format(what=text)
    return text


#: The listing's columns (translated where shown).
_COLUMNS = (
    N_("game"),
    N_("started"),
    N_("variant"),
    N_("round"),
    N_("status"),
    N_("winner"),
    N_("scores"),
)

_CARD_KEYS = ("play", "turned", "give", "top")
_VERBS = ("play", "press", "draw", "pass", "challenge", "accept", "choose", "catch")


def _plain(value: object) -> str:
    """A value of an entry without JSON punctuation: lists as words, cards by name."""
    if isinstance(value, list):
        return " ".join(_plain(v) for v in value) or _("none")
    if isinstance(value, dict):
        return ", ".join(f"{k} {_plain(v)}" for k, v in value.items())
    if isinstance(value, str):
        try:
            parse_card(value)
        except ValueError:
            return value
        return card_name(value)
    return str(value)
