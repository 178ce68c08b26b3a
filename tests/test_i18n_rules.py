"""Issue 25: every word the rules engine and the table screen give players is translated.

Seeded games of each variant are played through the public engine interface by the bots
(as :func:`unolaunch.bots.play_game` does, but action by action with ``Game.apply`` so
every :class:`~unolaunch.rules.Effect` is made), with illegal actions tried along the way.
Every Effect text, every refusal and the screen are collected as the table shows them
(``card_names``, ``error_text``, ``render``) and checked:

* in the pseudo-locale ``qps`` no word but the players' names stands outside ⟦…⟧;
* in Icelandic no line holds a word of the English side (``plays``, ``colour``...).

The rules engine keeps its English messages byte-identical whatever the language
(``str(IllegalMoveError)`` is data for logs and scenario files): checked here too.
"""

from __future__ import annotations

import io
import random
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from pseudo import escaped
from rich.console import Console
from unolaunch.bots import make_bot
from unolaunch.cards import card_code
from unolaunch.i18n import use
from unolaunch.rules import Game, IllegalMoveError
from unolaunch.rules.engine import OB_REVEAL, OB_TOP, OB_TURNED, OB_VERDICT, ROUND_OVER
from unolaunch.table.app import action_text, error_text, instead_text
from unolaunch.table.journal import Journal
from unolaunch.table.screen import View, card_name, card_names, render
from unolaunch.table.session import Session

NAMES = ["Ann", "Bob", "Cy", "Dóra"]
VARIANT_OPTIONS: dict[str, list[dict[str, Any]]] = {
    "attack": [
        {},
        {"extra_cards": True, "customizable": "trade-hands"},
        {"extra_cards": True, "customizable": "attack-attack", "strict_press": True},
    ],
    "mario-kart": [{}],
    "pocket-pizza": [{}],
}
SEEDS = range(6)
#: Words of the catalog's English side that never belong in an Icelandic line.
ENGLISH = {
    "plays", "draws", "draw", "skipped", "colour", "wins", "unchanged", "takes", "card",
    "cards", "round", "launcher", "press", "presses", "challenges", "catches", "passes",
    "must", "turn", "matches", "neither", "player", "game", "over", "swap", "hands",
    "gives", "discarded", "stock", "score", "scores", "points", "nobody", "the", "and",
    "not", "with", "wild", "skip", "reverse", "red", "blue", "green", "yellow", "hit",
    "deals", "start", "top", "choose", "accept", "challenge", "catch", "goes",
    "runs", "left", "right", "wrong", "now", "holds", "item", "box", "mushroom", "banana",
}  # fmt: skip
_WORD = re.compile(r"[^\W\d_]+")


def _screen_lines(g: Game, notice: str | None = None) -> list[str]:
    snap = g.snapshot()
    view = View(
        g.variant,
        g.players,
        snap,
        round_no=g.round_no,
        target=g.target,
        dealer=g.players[g.dealer],
        game_id=3,
        notice=notice,
        uno_said=[p for p, n in snap["hand_sizes"].items() if n == 1],
    )
    out = io.StringIO()
    Console(file=out, width=110, color_system=None).print(render(view))
    return [line.strip("│╭╮╰╯─ ") for line in out.getvalue().splitlines()]


def _tries(g: Game, rng: random.Random) -> Iterator[dict[str, Any]]:
    """A few actions, mostly illegal ones, of anybody at the table."""
    codes = [card_code(c) for c in g._known_sorted]
    for _i in range(3):
        by = rng.choice(g.players)
        other = rng.choice(g.players)
        yield rng.choice(
            [
                {"by": by, "play": rng.choice(codes)},
                {"by": by, "play": rng.choice(codes), "color": "green"},
                {"by": by, "play": rng.choice(codes), "target": by},
                {"by": by, "play": rng.choice(codes), "give": "r1"},
                {"by": by, "draw": True},
                {"by": by, "press": True, "cards": 1},
                {"by": by, "pass": True},
                {"by": by, "challenge": True},
                {"by": by, "accept": True},
                {"by": by, "choose": {"color": "blue"}},
                {"by": by, "choose": {"target": by}},
                {"by": by, "choose": {"give": rng.choice(codes)}},
                {"by": by, "catch": other},
                {"by": by, "correct": {other: 3}},
                {"by": "Zed", "draw": True},
            ]
        )


def _play(variant: str, options: dict[str, Any], seed: int) -> tuple[list[str], list[str]]:
    """Play one game (target lowered to keep it short); return the lines a player reads
    (what happened and the refusals, then the screens) and the English messages of the
    refusals."""
    rng = random.Random(seed)
    opts = {**options, "target": 120 if variant != "pocket-pizza" else 60}
    g = Game.new(variant, NAMES[: 2 + seed % 3], opts, rng=rng)
    bots = [make_bot("heuristic" if s % 2 else "random", rng) for s in range(g.n)]
    lines: list[str] = []
    screens: list[str] = []
    english: list[str] = []
    for step in range(3000):
        if g.game_over:
            break
        if g.phase == ROUND_OVER:
            for e in g.next_round():
                lines.append(card_names(e.text))
            continue
        if step % 4 == 0:
            for action in _tries(g, rng):
                before = g.state_key()
                try:
                    effects = g.apply(action)
                except IllegalMoveError as exc:
                    assert g.state_key() == before
                    lines.append(error_text(exc))
                    english.append(str(exc))
                else:
                    lines += [card_names(e.text) for e in effects]
            if g.phase >= ROUND_OVER:
                continue
        if step % 2 == 0:
            try:
                g.next_round()
            except IllegalMoveError as exc:  # COM-4: the round is not over
                lines.append(error_text(exc))
                english.append(str(exc))
        moves = g.moves()
        seat = g.players.index(g.awaiting["by"]) if g.awaiting else 0
        own = [m for m in moves if m >> 19 == seat] or moves
        move = bots[seat].choose(g, seat, own)
        effects = g.apply(g.move_action(move))
        lines += [card_names(e.text) for e in effects]
        if step % 7 == 0:
            screens += _screen_lines(g, notice=lines[-1] if lines else None)
    assert g.game_over, f"{variant} seed {seed} did not end"
    screens += _screen_lines(g)
    return lines + screens, english


def _games() -> Iterator[tuple[str, dict[str, Any], int]]:
    for variant, options in VARIANT_OPTIONS.items():
        for opts in options:
            for seed in SEEDS:
                yield variant, opts, seed


@pytest.mark.parametrize("variant", list(VARIANT_OPTIONS))
def test_qps_no_engine_or_screen_word_escapes_translation(variant: str) -> None:
    """Every Effect, refusal and screen line of many seeded games is wrapped in ⟦…⟧."""
    seen = 0
    refusals = 0
    for v, opts, seed in _games():
        if v != variant:
            continue
        with use("qps"):
            lines, english = _play(v, opts, seed)
        assert escaped(lines, NAMES) == [], (v, opts, seed)
        seen += len(lines)
        refusals += len(english)
        # The engine's own message stays English (it is data): no brackets in it.
        assert all("⟦" not in m for m in english)
    assert seen > 500 and refusals > 50


@pytest.mark.parametrize("variant", list(VARIANT_OPTIONS))
def test_icelandic_lines_hold_no_english_words(variant: str) -> None:
    """The same games in Icelandic: no line holds a word of the English side."""
    for v, opts, seed in _games():
        if v != variant:
            continue
        with use("is"):
            lines, _english = _play(v, opts, seed)
        bad = [
            line
            for line in lines
            if {w.casefold() for w in _WORD.findall(line)} & ENGLISH - {"uno"}
        ]
        assert bad == [], (v, opts, seed, bad[:5])


def test_english_messages_are_the_same_in_every_language() -> None:
    """``str(IllegalMoveError)`` and the games' course do not depend on the language;
    the Effect texts in English are what they were (the scenario files check them too)."""
    for variant in VARIANT_OPTIONS:
        runs: dict[str, list[str]] = {}
        for lang in ("en", "qps", "is"):
            with use(lang):
                runs[lang] = _play(variant, {}, 1)[1]
        # The refusals' English messages, each with the position: the same game throughout.
        assert runs["en"] == runs["qps"] == runs["is"] and len(runs["en"]) > 10
    g = Game.from_position(
        "attack", ["Ann", "Bob"], hands={"Ann": ["g3", "r1"], "Bob": ["b1"]},
        discard=["r9"], stock=["g2"], turn="Ann",
    )  # fmt: skip
    errors = {}
    for lang in ("en", "is"):
        with use(lang), pytest.raises(IllegalMoveError) as err:
            g.apply({"by": "Ann", "play": "g3"})
        errors[lang] = err.value
        assert str(err.value) == (
            "COM-2: Ann: play g3: g3 matches neither the colour (red), the number nor the symbol"
            " of the top card r9 [Ann to play/press; top r9, colour red; hands Ann 2, Bob 1]"
        )
        assert not err.value.out_of_turn and err.value.rule == "COM-2"
    assert errors["is"].why == (
        "g3 passar hvorki við litinn (rauður), töluna né táknið á efsta spilinu (r9)"
    )
    with use("en"):
        assert error_text(errors["en"]) == (
            "COM-2: Ann: play green 3: green 3 matches neither the colour (red), the number nor"
            " the symbol of the top card red 9 — the game is unchanged"
        )
    with use("is"):
        assert error_text(errors["is"]) == (
            "COM-2: Ann: spila grænt 3: grænt 3 passar hvorki við litinn (rauður), töluna né"
            " táknið á efsta spilinu (rautt 9) — leikurinn er óbreyttur"
        )


def test_out_of_turn_is_a_field_not_english() -> None:
    """The table learns from the error's fields that a play came out of turn (COM-2)."""
    g = Game.from_position(
        "mario-kart", ["Ann", "Bob"], hands={"Ann": ["g3", "r1"], "Bob": ["b1", "r2"]},
        discard=["r9"], stock=["g2"], turn="Ann",
    )  # fmt: skip
    with use("is"), pytest.raises(IllegalMoveError) as err:
        g.apply({"by": "Bob", "play": "r2"})
    assert err.value.out_of_turn and err.value.rule == "MK-8"
    assert err.value.why == "Ann á leik, ekki Bob"
    assert err.value.action is not None and err.value.action.by == "Bob"
    g.apply({"by": "Ann", "play": "r1"})
    g.apply({"by": "Bob", "play": "r2"})  # a number: Ann's turn again
    with use("is"), pytest.raises(IllegalMoveError) as err:
        g.apply({"by": "Bob", "draw": True})
    assert err.value.out_of_turn
    h = Game.from_position(
        "attack", ["Ann", "Bob"], hands={"Ann": ["rH2", "r1"], "Bob": ["b1", "r2"]},
        discard=["r9"], stock=["g2"], turn="Ann",
    )  # fmt: skip
    h.apply({"by": "Ann", "play": "rH2"})  # ATK-11: Bob owes two presses
    with use("is"), pytest.raises(IllegalMoveError) as err:
        h.apply({"by": "Ann", "play": "r1"})
    assert not err.value.out_of_turn and not err.value.press_first
    assert err.value.why == "nú á Bob leik: Bob ýtir 2 sinnum á skotvélina (ATK-11)"
    with use("is"), pytest.raises(IllegalMoveError) as err:
        h.apply({"by": "Bob", "play": "r2"})
    assert err.value.press_first and err.value.why == "Bob verður fyrst að ýta á skotvélina"


def test_card_names_in_icelandic() -> None:
    """A card's colour is neuter, the colour itself masculine; card words in lower case
    (issue 36), named so that the nominative is the accusative ('leggur út blátt
    sleppispil')."""
    with use("is"):
        assert card_name("r5") == "rautt 5"
        assert card_name("bS") == "blátt sleppispil"
        assert card_name("W+4") == "villispil draga fjögur"
        assert card_name("gH2") == "grænt högg 2"
        assert card_names("Ann leggur út yDA") == "Ann leggur út gult henda öllum"
        g = Game.from_position(
            "attack", ["Ann", "Bob"], hands={"Ann": ["W", "r1"], "Bob": ["b1"]},
            discard=["r9"], stock=["g2"], turn="Ann",
        )  # fmt: skip
        texts = [e.text for e in g.apply({"by": "Ann", "play": "W", "color": "yellow"})]
    assert "litur er nú gulur" in texts


def test_table_helpers_of_a_session_are_translated(tmp_path: Path) -> None:
    """What may be typed instead (COM-2) and what undo took back, in qps and Icelandic."""
    s = Session.start(Journal.open(tmp_path), "attack", NAMES[:3], {}, seed=1, dealer="Cy")
    s.apply({"by": "Cy", "choose": {"top": "y5"}})
    actions: list[dict[str, Any] | None] = [
        None,
        {"by": "Ann", "play": "W", "color": "red", "uno": True},
        {"by": "Ann", "play": "r5"},
        {"by": "Bob", "press": True, "cards": 1},
        {"by": "Bob", "press": True},
        {"by": "Bob", "draw": True},
        {"by": "Bob", "pass": True},
        {"by": "Bob", "challenge": True},
        {"by": "Bob", "accept": True},
        {"by": "Bob", "catch": "Ann"},
        {"by": "Bob", "correct": {"Ann": 3}},
        {"by": "Bob", "correct": {"Ann": 3}, "reason": "stray"},
        {"by": "Cy", "choose": {"top": "r5"}},
        {"by": "Cy", "choose": {"points": {"Ann": 3}}},
        {"by": "Cy", "choose": {"color": "blue"}},
        {"by": "Cy", "choose": {"target": "Ann"}},
        {"by": "Cy", "choose": {"turned": "g2"}},
        {"by": "Cy", "choose": {"give": "g2"}},
        {"by": "Cy", "choose": {"won": True}},
        {"by": "Cy"},
    ]
    with use("qps"):
        lines = [instead_text(s)] + [action_text(a) for a in actions]
    assert escaped(lines, NAMES) == []
    with use("is"):
        lines = [instead_text(s)] + [action_text(a) for a in actions]
    bad = [line for line in lines if {w.casefold() for w in _WORD.findall(line)} & ENGLISH]
    assert bad == []


def _play_hidden(variant: str, seed: int) -> list[str]:
    """A table without hands (the scorekeeper's mode): the table's facts (start card, Item
    Box card, challenge outcome, round-end points), presses with their counts and hand-size
    corrections as the table types them; every Effect and refusal as shown."""
    rng = random.Random(seed)
    opts: dict[str, Any] = {"target": 150}
    if variant == "attack":
        opts |= {"extra_cards": True, "customizable": rng.choice(["trade-hands", "hit-fire"])}
    g = Game.new(variant, NAMES[: 2 + seed % 3], opts, rng=rng, hidden_hands=True)
    codes = [card_code(c) for c in g._known_sorted]
    lines: list[str] = []
    for _step in range(1500):
        if g.game_over:
            break
        action: dict[str, Any]
        if g.phase == ROUND_OVER:
            lines += [card_names(e.text) for e in g.next_round()]
            continue
        kind, seat = (g.pending[0][0], g.pending[0][1]) if g.pending else (-1, g.turn)
        by = g.players[seat]
        if kind == OB_TOP:
            action = {"by": by, "choose": {"top": rng.choice(codes)}}
        elif kind == OB_TURNED:
            action = {"by": by, "choose": {"turned": rng.choice(codes)}}
        elif kind == OB_VERDICT:
            action = {"by": by, "choose": {"won": rng.random() < 0.5}}
        elif kind == OB_REVEAL:
            pts = {p: rng.randrange(40) for p in g.players if p != by}
            action = {"by": by, "choose": {"points": pts}}
        elif rng.random() < 0.03:
            action = {
                "by": rng.choice(g.players),
                "correct": {rng.choice(g.players): rng.randrange(4)},
            }
        else:
            own = [m for m in g.moves() if m >> 19 == seat]
            action = g.move_action(rng.choice(own)).to_dict()
            if "press" in action:
                action["cards"] = rng.randrange(3)
        try:
            lines += [card_names(e.text) for e in g.apply(action)]
        except IllegalMoveError as exc:
            lines.append(error_text(exc))
    lines += _screen_lines(g)
    return lines


@pytest.mark.parametrize("variant", list(VARIANT_OPTIONS))
def test_a_table_without_hands_is_translated_too(variant: str) -> None:
    """Hidden hands: corrections, verdicts, the Item Box's card, unseen cards ("?")."""
    seen = 0
    for seed in range(8):
        with use("qps"):
            lines = _play_hidden(variant, seed)
        assert escaped(lines, NAMES) == [], (variant, seed)
        seen += len(lines)
        with use("is"):
            lines = _play_hidden(variant, seed)
        bad = [line for line in lines if {w.casefold() for w in _WORD.findall(line)} & ENGLISH]
        assert bad == [], (variant, seed, bad[:5])
    assert seen > 400


@pytest.mark.parametrize(
    ("variant", "players", "options"),
    [
        ("pocket-pizza", [*NAMES, "Eva", "Finn"], {}),
        ("attack", ["Ann", "Ann"], {}),
        ("attack", ["Ann", " "], {}),
        ("attack", ["Ann", "Bob"], {"colours": 5}),
        ("attack", ["Ann", "Bob"], {"strict_press": "yes"}),
        ("attack", ["Ann", "Bob"], {"target": -1}),
        ("attack", ["Ann", "Bob"], {"target": 0}),
        ("attack", ["Ann", "Bob"], {"customizable": "nothing"}),
    ],
)
def test_a_game_that_cannot_start_says_why_in_the_language(
    variant: str, players: list[str], options: dict[str, Any]
) -> None:
    """The players or options a variant does not take: the table prints this reason."""
    with use("qps"), pytest.raises(ValueError) as err:
        Game.new(variant, players, options)
    assert escaped([str(err.value)], ["Ann", variant, *options]) == []
    with use("en"), pytest.raises(ValueError) as err:
        Game.new(variant, players, options)
    assert "⟦" not in str(err.value)
