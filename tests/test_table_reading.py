"""Issue 10, "Reading what players type": short forms the table reads (or answers with
what was meant), messages in card names, completion from the game's own deck, a warning
for a card played more often than the deck holds, the ATK-3 reminder, a screen that does
not contradict itself, and ``help`` listing every form the parser accepts."""

from __future__ import annotations

import io
from collections.abc import Iterable
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console
from test_table_parse import ATK, PP, P, one  # the contexts and helper the parse tests use
from unolaunch.cards import card_code, deck_composition
from unolaunch.table.app import Table
from unolaunch.table.journal import Journal
from unolaunch.table.outcome import Outcome
from unolaunch.table.parse import Context, ParseError, complete, help_text, parse
from unolaunch.table.screen import View, card_names, render
from unolaunch.table.session import Session


def refused(text: str, ctx: Context = ATK) -> str:
    with pytest.raises(ParseError) as err:
        parse(text, ctx)
    message = str(err.value)
    assert "\n" not in message
    return message


def _session(
    tmp_path: Path, variant: str = "attack", top: str | None = "y5", **opts: Any
) -> Session:
    s = Session.start(Journal.open(tmp_path), variant, list(P), dict(opts), seed=1, dealer="Cy")
    if top is not None:
        s.apply({"by": "Cy", "choose": {"top": top}})
    return s


def _run(session: Session, lines: Iterable[str], launcher: Any = None) -> str:
    """Drive the real Table in-process with ``lines``; everything it printed."""
    out = io.StringIO()
    todo = iter(lines)

    def read(prompt: str) -> str:
        out.write(prompt)
        try:
            return next(todo)
        except StopIteration:
            raise EOFError from None

    table = Table(session, Console(file=out, width=120, highlight=False), read_line=read)
    table.launcher = launcher
    table.run()
    return out.getvalue()


# ---------------------------------------------------------------------- short forms
def test_com1_a_wild_alone_is_played_and_its_colour_asked_for(tmp_path: Path) -> None:
    assert one("wild") == {"by": "Ann", "play": "W"}
    assert one("hit 4") == {"by": "Ann", "play": "WH4"}
    s = _session(tmp_path)
    out = _run(s, ["wild", "blue"])
    assert "Ann: name the colour" in out
    assert s.snapshot()["color"] == "blue" and s.snapshot()["awaiting"]["by"] == "Bob"


@pytest.mark.parametrize("text", ["draw 2", "+2", "d2", "green draw 2"])
def test_atk1_no_draw_two_in_uno_attack_suggests_hit_2(text: str) -> None:
    message = refused(text)
    assert "did you mean 'hit 2'" in message


def test_atk5_draw_in_uno_attack_says_press() -> None:
    assert "press" in refused("draw")


@pytest.mark.parametrize(
    ("text", "meant"),
    [("bleu 7", "blue"), ("yelow skip", "yellow"), ("green skp", "skip"), ("revrse", "reverse")],
)
def test_a_misspelt_word_gets_did_you_mean(text: str, meant: str) -> None:
    assert f"did you mean '{meant}'" in refused(text)


@pytest.mark.parametrize("text", ["press none", "press no cards", "p none"])
def test_none_is_a_press_count_of_zero(text: str) -> None:
    assert one(text) == {"by": "Ann", "press": True, "cards": 0}
    owed = Context("attack", P, "Bob", ("press",), "red", "rH2")
    assert one("none", owed) == {"by": "Bob", "press": True, "cards": 0}


def test_none_answers_how_many_cards_came_out(tmp_path: Path) -> None:
    s = _session(tmp_path)
    _run(s, ["press", "none"])
    assert s.snapshot()["hand_sizes"]["Ann"] == 7
    assert s.snapshot()["awaiting"]["by"] == "Bob"


@pytest.mark.parametrize("text", ["challenge", "challenge won", "Bob: challenge"])
def test_atk14_there_is_no_challenge_in_uno_attack(text: str) -> None:
    owed = Context("attack", P, "Bob", ("press",), "red", "WH4")
    message = refused(text, owed)
    assert "no challenge in UNO Attack (ATK-14)" in message
    assert "must press first" not in message


# ---------------------------------------------------------------------- card names
def test_messages_name_cards_not_codes(tmp_path: Path) -> None:
    s = _session(tmp_path, extra_cards=True)
    out = _run(s, ["hit fire red", "Cy: r3"])
    assert "Ann plays Wild Hit Fire" in out and "WHF" not in out
    assert "Cy: play red 3" in out and " r3 " not in out.split("Cy: r3", 1)[1]
    # Quoted examples stay as they are typed.
    assert card_names("'yellow discard all y3 y9' then y3") == (
        "'yellow discard all y3 y9' then yellow 3"
    )
    assert card_names("W+4 and rS, bH2; WAA.") == (
        "Wild Draw Four and red Skip, blue Hit 2; Wild Attack-Attack."
    )


# ---------------------------------------------------------------------- completion
def test_tab_offers_only_cards_of_the_games_deck(tmp_path: Path) -> None:
    plain = replace(ATK, deck=_deck("attack"))
    words = complete("", plain)
    assert "hitfire" not in words and "allhit" not in words and "trade" not in words
    assert {"hit2", "hit4", "attack", "custom", "wild", "discard"} <= set(words)
    extra = replace(ATK, deck=_deck("attack", extra_cards=True))
    assert {"hitfire", "allhit", "trade"} <= set(complete("", extra))
    assert complete("hi", plain) == ["hit2", "hit4"]
    pizza = replace(PP, deck=_deck("pocket-pizza", wild_dip=0))
    assert "dip" not in complete("", pizza) and "+1" in complete("", pizza)
    s = _session(tmp_path)
    table = Table(s, Console(file=io.StringIO()), read_line=lambda _p: "")
    assert "hitfire" not in complete("", table.context())


def _deck(variant: str, **opts: Any) -> frozenset[str]:
    return frozenset(card_code(c) for c in deck_composition(variant, opts))


# ---------------------------------------------------------------------- played too often
@pytest.mark.parametrize(
    ("variant", "top", "plays", "says"),
    [
        (
            "attack",
            "r5",
            ["r5", "r5"],
            "red 5 was played 3 times since the last reshuffle, "
            "but the UNO Attack deck has 2 (ATK-1)",
        ),
        (
            "mario-kart",
            "r0",
            ["r0"],
            "red 0 was played 2 times since the last reshuffle, "
            "but the UNO Mario Kart deck has 1 (MK-1)",
        ),
        (
            "pocket-pizza",
            "y3",
            ["wild red", "wild red", "wild red"],
            "Wild was played 3 times "
            "since the last reshuffle, but the UNO Pocket Pizza Pizza deck has 2 (PP-2)",
        ),
    ],
)
def test_a_card_played_more_often_than_the_deck_holds_is_warned_not_refused(
    tmp_path: Path, variant: str, top: str, plays: list[str], says: str
) -> None:
    s = _session(tmp_path, variant, top=top)
    before = len(s.journal.entries(s.id))
    out = _run(s, plays)
    assert len(s.journal.entries(s.id)) == before + len(plays)  # taken: a warning only
    assert says in out
    assert "'undo'" in out.split(says, 1)[1].splitlines()[0]


# ---------------------------------------------------------------------- one screen, one truth
def _screen(view: View) -> str:
    out = io.StringIO()
    Console(file=out, width=120).print(render(view))
    return out.getvalue()


def test_round_over_screen_shows_no_ones_turn() -> None:
    state = {
        "hand_sizes": {"Ann": 0, "Bob": 3, "Cy": 2},
        "turn": "Cy",
        "direction": 1,
        "top": "r5",
        "color": "red",
        "scores": {"Ann": 30, "Bob": 0, "Cy": 0},
        "awaiting": None,
        "round_winner": "Ann",
        "round_points": 30,
    }
    text = _screen(View("attack", list(P), state, round_no=1))
    assert "▶ Cy" not in text and "their turn" not in text
    assert "round 1 is over: press Enter to deal round 2" in text


def test_before_the_start_card_the_screen_says_so(tmp_path: Path) -> None:
    s = _session(tmp_path, top=None)
    out = _run(s, [])
    assert "top ?" not in out and "top  ? " not in out
    assert "start card: not turned up yet (Cy turns it up)" in out


def test_atk3_round_start_reminds_to_load_the_launcher(tmp_path: Path) -> None:
    s = _session(tmp_path, top=None)
    out = _run(
        s, [], launcher=_Launcher("simulated · disarmed (a press now is a foul) · 40 cards inside")
    )
    # 112 cards, 7 dealt to each of 3 players, 1 turned up: 90 go into the launcher.
    assert "load the other 90 cards into the launcher (ATK-3)" in out
    assert "40 cards inside" not in out  # the count of the last round is stale now
    assert "simulated · disarmed" in out


def test_atk3_after_the_start_card_the_launchers_own_count_is_shown(tmp_path: Path) -> None:
    s = _session(tmp_path)
    out = _run(s, [], launcher=_Launcher("simulated · armed for Ann, 1 press · 90 cards inside"))
    assert "90 cards inside" in out and "ATK-3" not in out


class _Launcher:
    """A launcher that reports ``line`` (its count of cards inside after " · ", left out
    when asked without it) and is out of order (presses are typed)."""

    def __init__(self, line: str) -> None:
        self.line = line

    def status(self, inside: bool = True) -> str:
        return self.line if inside else self.line.rsplit(" · ", 1)[0]

    def sync(self) -> None:
        pass

    def working(self) -> bool:
        return False

    def virtual_press(self) -> str:
        return ""

    def clear(self) -> Outcome:
        return Outcome("cleared")

    def close(self) -> None:
        pass


def test_atk11_a_press_that_ends_the_turn_is_not_called_press_first(tmp_path: Path) -> None:
    s = _session(tmp_path)
    out = _run(s, ["hit 2", "Bob: r3"])
    assert "Bob must press 2 more times, then Bob's turn is over (ATK-11)" in out
    after = out.split("Bob: r3", 1)[1]
    assert "must press the launcher first" not in after
    assert "Bob must press the launcher 2 more times and then Bob's turn is over (ATK-11)" in after


def test_atk15_a_target_who_plays_after_pressing_is_told_so(tmp_path: Path) -> None:
    s = _session(tmp_path)
    out = _run(s, ["attack blue Bob"])
    assert "Bob must press 2 more times, then Bob plays (ATK-15)" in out


def test_com6_uno_said_stays_shown_after_an_undo(tmp_path: Path) -> None:
    s = _session(tmp_path)
    out = _run(s, ["fix Ann 2", "y7 uno", "Bob: y8", "undo"])
    last = out.split("· undid: Bob plays yellow 8", 1)[1]
    line = next(ln for ln in last.splitlines() if " Ann " in ln and "│" in ln)
    assert "1 UNO" in line and "(1)" not in line


def test_com6_one_card_without_uno_says_who_can_be_caught(tmp_path: Path) -> None:
    s = _session(tmp_path)
    out = _run(s, ["fix Ann 2", "y7"])
    last = out.split("· Ann plays yellow 7", 1)[1]
    line = next(ln for ln in last.splitlines() if " Ann " in ln and "│" in ln)
    assert "(1)" not in line and "no UNO said: 'catch Ann'" in line


# ---------------------------------------------------------------------- help
_TURN = ("play", "press")
_OWED = ("press",)
_MK_TURN = ("play", "draw")
_FORMS: dict[str, list[tuple[tuple[str, ...], str | None, str]]] = {
    # (verbs, choice, form): each form the parser reads, as 'help' must show it.
    "common": [
        (_TURN, None, "r5"),
        (_TURN, None, "red 5"),
        (_TURN, None, "5 red"),
        (_TURN, None, "red five"),
        (_TURN, None, "5"),
        (_TURN, None, "green skip"),
        (_TURN, None, "skip"),
        (_TURN, None, "gS"),
        (_TURN, None, "reverse"),
        (_TURN, None, "r5 uno"),
        (_TURN, None, "uno"),
        (_TURN, None, "Bob: r5"),
        (_TURN, None, "catch Bob"),
        (_TURN, None, "Cy catch Bob"),
        (("choose",), "color", "red"),
        (("choose",), "target", "Cy"),
        (("choose",), "color", "choose green"),
        (("choose",), "top", "r5"),
        (_TURN, None, "fix Bob 5"),
        (_TURN, None, "Bob has 5"),
        (_TURN, None, "undo"),
        (_TURN, None, "undo 3"),
        (_TURN, None, "help"),
        (_TURN, None, "show"),
        (_TURN, None, "quit"),
        (_TURN, None, "clear"),
    ],
    "attack": [
        (_TURN, None, "wild blue"),
        (_TURN, None, "blue wild"),
        (_TURN, None, "wild"),
        (_TURN, None, "hit 2"),
        (_TURN, None, "red hit 2"),
        (_TURN, None, "discard all"),
        (_TURN, None, "yellow discard all y3 y9"),
        (_TURN, None, "hit4 red"),
        (_TURN, None, "attack blue Bob"),
        (_TURN, None, "custom red"),
        (_TURN, None, "hit fire green"),
        (_TURN, None, "all hit red"),
        (_TURN, None, "red trade Cy"),
        (_TURN, None, "press"),
        (_TURN, None, "press 3"),
        (_TURN, None, "press none"),
        (_OWED, None, "2"),
        (_OWED, None, "none"),
        (_TURN, None, "pass"),
    ],
    "mario-kart": [
        (_MK_TURN, None, "+2"),
        (_MK_TURN, None, "green draw two"),
        (_MK_TURN, None, "wd4 red"),
        (_MK_TURN, None, "item box g7"),
        (_MK_TURN, None, "item box g7 Cy blue"),
        (_MK_TURN, None, "draw"),
        (_MK_TURN, None, "drew"),  # issue 22: a card taken, never a Draw Two
        (_MK_TURN, None, "pass"),
        (("challenge", "accept"), None, "challenge"),
        (("challenge", "accept"), None, "challenge won"),
        (("challenge", "accept"), None, "accept"),
        (("choose",), "turned", "g7"),
        (("choose",), "won", "won"),
        (("choose",), "won", "lost"),
    ],
    "pocket-pizza": [
        (_MK_TURN, None, "wild blue"),
        (_MK_TURN, None, "wild"),
        (_MK_TURN, None, "+1"),
        (_MK_TURN, None, "wd2 red"),
        (_MK_TURN, None, "dip blue"),
        (_MK_TURN, None, "dip blue give g5"),
        (("choose",), "give", "g5"),
        (_MK_TURN, None, "draw"),
        (_MK_TURN, None, "pass"),
        (("challenge", "accept"), None, "challenge"),
    ],
}
_ALIASES = ["u", "oops", "back", "?", "exit", "q", "bye", "unjam", "redraw", "scores", "set"]


@pytest.mark.parametrize("variant", ["attack", "mario-kart", "pocket-pizza"])
def test_help_lists_every_form_the_parser_accepts(variant: str) -> None:
    help_ = help_text(Context(variant, P, "Ann", _TURN, "green", "g3"))
    for verbs, choice, form in _FORMS["common"] + _FORMS[variant]:
        ctx = Context(variant, P, "Ann", verbs, "green", "g3", choice=choice)
        parse(form, ctx)  # it is read...
        assert f"'{form}'" in help_, form  # ...and shown
    for word in _ALIASES:
        assert f"'{word}'" in help_, word
    assert "none" in help_ and "37" in help_  # the round end's answers (COM-8)
    assert "commas" in help_


def test_atk15_a_target_who_is_not_next_is_not_told_their_turn_ends(tmp_path: Path) -> None:
    s = _session(tmp_path)
    out = _run(s, ["attack blue Cy"])
    assert "Cy must press 2 more times, then Bob plays (ATK-15)" in out
    assert "Cy's turn is over" not in out


def test_atk2_a_card_not_in_this_games_deck_is_refused_by_name() -> None:
    plain = replace(ATK, deck=_deck("attack"))
    message = refused("hit fire red", plain)
    assert "there is no Wild Hit Fire in this game's deck (ATK-2" in message
    assert "extra_cards" in message
    assert (
        one("hit fire red", replace(ATK, deck=_deck("attack", extra_cards=True)))["play"] == "WHF"
    )
    pizza = replace(PP, deck=_deck("pocket-pizza", wild_dip=0))
    assert "no Wild Dip Into The Deck in this game's deck (PP-2" in refused("dip blue", pizza)


def test_refusals_read_as_sentences(tmp_path: Path) -> None:
    message = refused("bleu 7")
    assert "did you mean 'blue'? (try 'r5'," in message  # examples stay as typed
    s = _session(tmp_path)
    out = _run(s, ["Bob: press 0"])
    refusal = next(ln for ln in out.splitlines() if ln.startswith("✗"))
    assert "=" not in refusal and "press (0 cards)" in refusal, refusal
    # A refused line changes nothing: the screen is not drawn again before the ✗.
    assert out.count("╭─") == 1


def test_before_the_start_card_the_first_player_is_named_as_such(tmp_path: Path) -> None:
    out = _run(_session(tmp_path, top=None), [])
    line = next(ln for ln in out.splitlines() if " Ann " in ln and "│" in ln)
    assert "(plays first)" in line and "(turn)" not in line


def test_a_warning_and_a_turn_mark_do_not_outlive_their_moment(tmp_path: Path) -> None:
    s = _session(tmp_path, "mario-kart", top="r0")
    out = _run(s, ["fix Ann 1", "r0", "12", "3", ""])
    warned = "red 0 was played 2 times"
    assert warned in out
    after_reveal = out.split("Ann wins the round and scores", 1)[1]
    assert warned not in after_reveal  # the round's end is the next thing that happened
    reveal = out.split("Ann has no cards left", 1)[0].rsplit("╭─", 1)[1]
    assert "(turn)" not in reveal  # Ann counts the cards: nobody's turn is next


def test_a_misspelt_player_name_gets_did_you_mean() -> None:
    assert "did you mean 'catch Bob'" in refused("catch Bbo")
    assert "did you mean 'Bob'" in refused("Bbo: r5")
