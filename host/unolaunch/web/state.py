"""The game as JSON for the browser: ``/api/state`` and every server-sent event.

Pure: :func:`build_state` takes a rules :class:`~unolaunch.rules.Game` (the table's
hidden-hands game, or the demo's full-knowledge one) and what only the front end knows
(the launcher, the last thing that happened, who said UNO) and returns plain JSON data.
Hands are never in it: the table view is public, so it shows what everybody at the table
sees anyway (hand sizes, scores, the top card, what is owed).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from unolaunch.cards import card_code
from unolaunch.i18n import N_, _
from unolaunch.rules import Game
from unolaunch.rules import engine as E
from unolaunch.table.app import _DOING
from unolaunch.table.names import shown
from unolaunch.table.screen import TARGETS, awaiting_text, card_name, variant_title
from unolaunch.table.session import _CHOICE

#: What the awaited player owes, by the engine's pending obligation (as Session.choice).
CHOICES = _CHOICE

#: What the awaited player does, in the terminal screen's words (plus the presses);
#: translated where shown.
DOING = {
    **_DOING,
    "press": N_("press the launcher"),
    "until": N_("press until a card comes out"),
}


@dataclass
class Extras:
    """What the front end adds to the engine's state."""

    game_id: int | None = None
    launcher: dict[str, Any] | None = None  # see launcher_state()
    notice: str | None = None
    reminder: str | None = None  # what the terminal's screen asks the table now (ATK-3)
    warning: str | None = None
    log: Sequence[str] = ()
    uno_said: Sequence[str] = ()
    fire: dict[str, Any] | None = None  # the last press: {"seq", "player", "cards"}
    hidden_hands: bool = True
    players_can_act: bool = True  # False in the demo (the bots play)
    extra: dict[str, Any] = field(default_factory=dict)


def deck_codes(game: Game) -> list[str]:
    """Every card code of the game's deck once, coloured cards by colour then wilds."""
    return [card_code(c) for c in sorted(game.composition)]


def owed_presses(game: Game) -> dict[str, int]:
    """Presses each player owes now (ATK-11, ATK-14...); Wild Hit Fire's 'until a card
    comes out' counts as one (ATK-17)."""
    out = {p: 0 for p in game.players}
    for kind, seat, a, _b, _rule in game.pending:
        if kind == E.OB_PRESS:
            out[game.players[seat]] += int(a)
        elif kind == E.OB_UNTIL:
            out[game.players[seat]] += 1
    return out


def choice_of(game: Game) -> str | None:
    """What the awaited player owes (``press``, ``color``, ``reveal``...), None on a turn."""
    pending = game.pending
    return CHOICES.get(pending[0][0]) if pending else None


def build_state(game: Game, extras: Extras) -> dict[str, Any]:
    """The JSON state of ``game`` (see the module docstring and README's web section), its
    words in the current language (:func:`unolaunch.i18n.use`)."""
    snap = game.snapshot()
    owed_text: dict[str, list[str]] = {}
    for who, what in game.owed_texts():
        owed_text.setdefault(who, []).append(what)
    presses = owed_presses(game)
    aw: Mapping[str, Any] | None = snap.get("awaiting")
    choice = choice_of(game)
    sizes = snap["hand_sizes"]
    players = []
    for p in game.players:
        players.append(
            {
                "name": p,
                "hand_size": sizes[p],
                "score": snap["scores"][p],
                "owes": presses[p],
                "owes_text": "; ".join(owed_text.get(p, [])),
                "uno": p in extras.uno_said,
                "one_card": sizes[p] == 1,
                "dealer": p == snap.get("dealer"),
                "turn": p == snap["turn"],
                "awaited": bool(aw) and aw is not None and aw.get("by") == p,
            }
        )
    awaiting = None
    if aw:
        awaiting = {
            "by": aw["by"],
            "verbs": list(aw["verbs"]),
            "choice": choice,
            "doing": _doing(choice, aw),
        }
    top = snap.get("top")
    deck = deck_codes(game)
    return {
        "game": extras.game_id,
        "variant": game.variant,
        "title": variant_title(game.variant),
        "round": int(snap.get("round", 1)),
        "target": int(game.target or TARGETS.get(game.variant, 500)),
        "dealer": snap.get("dealer"),
        "turn": snap["turn"],
        "direction": int(snap["direction"]),
        "top": top,
        "top_name": card_name(top) if top else None,
        # before the start card is turned up there is no colour to match (not the last
        # round's)
        "color": snap.get("color") if top else None,
        "stock_size": snap.get("stock_size"),
        "players": players,
        "scores": dict(snap["scores"]),
        "awaiting": awaiting,
        "uno_catchable": snap.get("uno_catchable") if _catchable(game, snap) else None,
        "round_winner": snap.get("round_winner"),
        "round_points": snap.get("round_points"),
        "game_winner": snap.get("game_winner"),
        "round_over": aw is None and not snap.get("game_winner"),
        "launcher": extras.launcher,
        "fire": extras.fire,
        "notice": extras.notice,
        "reminder": extras.reminder,
        "warning": extras.warning,
        "log": list(extras.log)[-8:],
        "deck": deck,
        # each card of the deck (and the top card) in words, for the pages' card pictures
        "card_names": {code: card_name(code) for code in {*deck, *([top] if top else [])}},
        "players_can_act": extras.players_can_act,
        **extras.extra,
    }


def _doing(choice: str | None, aw: Mapping[str, Any]) -> str:
    """What the awaited player is to do, in words (the screen's, without the name)."""
    if choice in DOING:
        return _(DOING[choice])
    # the screen's "Bob: press the launcher or draw": its words after the name
    said = awaiting_text(aw)
    name = shown(aw.get("by"))
    if said.startswith(name):  # else (a language that puts the name later) all of it
        said = said[len(name) :].lstrip(": ")
    return said


def _catchable(game: Game, snap: Mapping[str, Any]) -> bool:
    """Someone holds one card without having said UNO and may be caught (COM-6)."""
    who = snap.get("uno_catchable")
    return bool(who) and snap["hand_sizes"].get(who) == 1 and snap.get("awaiting") is not None


def launcher_state(launcher: Any, inside: bool = True) -> dict[str, Any] | None:
    """The launcher as JSON (None without one): the terminal's status line plus its parts:
    ``kind`` (``sim`` or ``serial``), ``connected``, ``fault``, ``armed`` ({player,
    presses, mode} or None), ``cards_inside`` (the simulated magazine; None, and not in
    the line, when ``inside`` is false: before a round's start card, as on the terminal),
    ``presses``, ``cards_out``, ``fouls``."""
    if launcher is None:
        return None
    armed = getattr(launcher, "armed", None)
    sim = getattr(launcher, "sim", None)
    cards_inside: int | None = None
    if sim is not None and inside:
        try:
            cards_inside = int(sim.cards)
        except (AttributeError, TypeError, ValueError):
            cards_inside = None
    return {
        "status": launcher.status(inside=inside),
        "kind": "sim" if sim is not None else "serial",
        "connected": bool(getattr(launcher, "connected", True)),
        "working": bool(launcher.working()),
        "fault": getattr(launcher, "fault", None),
        "armed": (
            None
            if armed is None
            else {"player": armed.player, "presses": armed.presses, "mode": armed.mode}
        ),
        "cards_inside": cards_inside,
        "presses": int(getattr(launcher, "presses", 0)),
        "cards_out": int(getattr(launcher, "cards_out", 0)),
        "fouls": int(getattr(launcher, "fouls", 0)),
    }
