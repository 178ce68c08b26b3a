"""Issue 22, "The table tells the truth, round two": what still let the table record
something that did not happen. "I drew" is not a Draw card (PP-6, MK-9), a winner holds
no cards (COM-7), a press is the presser's (ATK-25, ATK-26), a bare "hit" is asked about
(ATK-11 vs ATK-14), undo says what it undid, and "uno" only where it makes sense (COM-6)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from test_table_parse import MK, PP, P, one
from test_table_reading import _run, _session
from unolaunch.rules import IllegalMoveError
from unolaunch.table.launcher import LinkedLauncher
from unolaunch.table.outcome import Outcome
from unolaunch.table.parse import Command, Context, Move, ParseError, help_text, parse
from unolaunch.table.session import Session

PP3 = Context("pocket-pizza", P, "Ann", ("play", "draw"), "red", "r5")
MK3 = Context("mario-kart", P, "Ann", ("play", "draw"), "red", "r5")
ATK3 = Context("attack", P, "Ann", ("play", "press"), "red", "r5")


def _refused(text: str, ctx: Context) -> str:
    with pytest.raises(ParseError) as err:
        parse(text, ctx)
    msg = str(err.value)
    assert "\n" not in msg
    return msg


# ------------------------------------------------------------ 1. draw words (PP-6, MK-9)
@pytest.mark.parametrize(
    "text",
    [
        "draw",
        "draw 1",
        "draw one",
        "drew",
        "drew 1",
        "draw a card",
        "drew one",
        "draws",
        "took 1",
        "took one",
        "pick up",
        "picked up",
        "drew a card",
        "draw one card",
    ],
)
@pytest.mark.parametrize("ctx", [PP3, MK3])
def test_pp6_mk9_words_for_taking_a_card_never_play_one(text: str, ctx: Context) -> None:
    assert one(text, ctx) == {"by": "Ann", "draw": True}


@pytest.mark.parametrize(
    ("text", "ctx", "card"),
    [
        ("draw 2", MK3, "Draw Two"),
        ("drew 2", MK3, "Draw Two"),
        ("took 2", MK3, "Draw Two"),
        ("draw two", MK3, "Draw Two"),
        ("draw 4", MK3, "Wild Draw Four"),
        ("draw 2", PP3, "Wild Draw 2"),
        ("drew 2", PP3, "Wild Draw 2"),
    ],
)
def test_pp6_mk9_draw_n_could_be_a_card_or_cards_taken_so_it_asks(
    text: str, ctx: Context, card: str
) -> None:
    msg = _refused(text, ctx)
    assert card in msg and "'draw'" in msg  # both readings offered, nothing recorded


@pytest.mark.parametrize(
    ("text", "ctx", "action"),
    [
        ("red draw one", PP3, {"by": "Ann", "play": "r+1"}),
        ("draw one red", PP3, {"by": "Ann", "play": "r+1"}),
        ("r+1", PP3, {"by": "Ann", "play": "r+1"}),
        ("+1", PP3, {"by": "Ann", "play": "r+1"}),
        ("wild draw 2 blue", PP3, {"by": "Ann", "play": "W+2", "color": "blue"}),
        ("wd2 blue", PP3, {"by": "Ann", "play": "W+2", "color": "blue"}),
        ("green draw two", MK3, {"by": "Ann", "play": "g+2"}),
        ("draw two green", MK3, {"by": "Ann", "play": "g+2"}),
        ("wild draw 4 blue", MK3, {"by": "Ann", "play": "W+4", "color": "blue"}),
        ("+2", MK3, {"by": "Ann", "play": "r+2"}),
    ],
)
def test_pp9_mk10_a_draw_card_is_played_by_its_card_words(
    text: str, ctx: Context, action: dict[str, Any]
) -> None:
    assert one(text, ctx) == action


def test_pp6_draw_one_at_the_table_draws_a_card(tmp_path: Path) -> None:
    s = _session(tmp_path, "pocket-pizza", top="r5")
    before = s.snapshot()["hand_sizes"]["Ann"]
    out = _run(s, ["draw one"])
    assert "Draw One" not in out.split("draw one", 1)[1]
    snap = s.snapshot()
    assert snap["top"] == "r5" and snap["hand_sizes"]["Ann"] == before + 1


@pytest.mark.parametrize("ctx", [PP3, MK3])
def test_help_and_refusals_do_not_offer_draw_2_for_cards_taken(ctx: Context) -> None:
    assert "'draw 2' (owed" not in help_text(ctx)
    for text in ("draw a lot", "draw cards please"):
        with pytest.raises(ParseError) as err:
            parse(text, ctx)
        assert "'draw 2'" not in str(err.value)


# ------------------------------------------------------------ 2. a winner holds no cards
def _attack_out(tmp_path: Path) -> Session:
    """UNO Attack, Bob deals, Cy goes out with a red Hit 2: Ann owes two presses."""
    s = _session(tmp_path, top=None)
    s2 = Session.start(s.journal, "attack", list(P), {"target": 50}, seed=1, dealer="Bob")
    s2.apply({"by": "Bob", "choose": {"top": "r5"}})
    s2.correct("Cy", 1)
    s2.apply({"by": "Cy", "play": "rH2"})
    return s2


def test_com7_giving_the_round_winner_cards_takes_the_round_end_back(tmp_path: Path) -> None:
    s = _attack_out(tmp_path)
    assert s.snapshot()["round_winner"] == "Cy"
    s.correct("Cy", 2)
    snap = s.snapshot()
    assert snap["round_winner"] is None and snap["hand_sizes"]["Cy"] == 2
    s.apply({"by": "Ann", "press": True, "cards": 1})
    s.apply({"by": "Ann", "press": True, "cards": 1})
    snap = s.snapshot()
    assert snap["awaiting"]["by"] == "Bob" and s.choice() is None  # ATK-11, play goes on
    assert Session.resume(s.journal, s.id).game.state_key() == s.game.state_key()


def test_com7_the_repro_no_longer_crowns_a_winner_with_cards(tmp_path: Path) -> None:
    s = _attack_out(tmp_path)
    out = _run(s, ["fix Cy 2", "1", "1", "40", "50", "yes"])
    assert "wins the game" not in out
    assert "Cy is not out" in out  # the round end is taken back, and it says so
    assert s.snapshot()["game_winner"] is None and s.snapshot()["hand_sizes"]["Cy"] == 2


def test_com7_a_correction_to_zero_ends_the_round_after_asking(tmp_path: Path) -> None:
    s = _session(tmp_path)  # attack, Cy deals, y5: Ann's turn
    out = _run(s, ["Bob has 0", "no"])
    assert "ends the round" in out
    assert s.snapshot()["hand_sizes"]["Bob"] == 7 and s.snapshot()["round_winner"] is None
    out = _run(s, ["Bob has 0", "yes"])
    assert s.snapshot()["round_winner"] == "Bob" and s.choice() == "reveal"


def test_com7_zero_cards_through_the_api_ends_the_round(tmp_path: Path) -> None:
    s = _session(tmp_path, "mario-kart", top="r5")
    s.correct("Bob", 0)
    assert s.snapshot()["round_winner"] == "Bob" and s.choice() == "reveal"
    with pytest.raises(IllegalMoveError, match="COM-7"):
        s.correct("Cy", 0)  # one winner a round


# ------------------------------------------------------------ 3. a press is the presser's
class _Armed:
    """A working launcher (its button is the way to press); counts virtual presses."""

    def __init__(self) -> None:
        self.pressed = 0

    def status(self, inside: bool = True) -> str:
        return "simulated · armed"

    def sync(self) -> None:
        pass

    def working(self) -> bool:
        return True

    def virtual_press(self) -> str:
        self.pressed += 1
        return "  · (the simulated launcher's button is pressed)"

    def clear(self) -> Outcome:
        return Outcome("cleared")

    def close(self) -> None:
        pass


@pytest.mark.parametrize("with_launcher", [True, False])
def test_atk26_a_press_named_for_the_wrong_player_is_refused_alike(
    tmp_path: Path, with_launcher: bool
) -> None:
    s = _session(tmp_path)
    s.apply({"by": "Ann", "play": "yH2"})  # Bob owes two presses (ATK-11)
    launcher = _Armed() if with_launcher else None
    out = _run(s, ["Cy: press"], launcher=launcher)
    assert "ATK-26" in out and "Bob" in out.split("Cy: press", 1)[1]
    assert launcher is None or launcher.pressed == 0
    assert "How many cards" not in out
    assert s.presses_owed() == 2


def test_atk25_press_n_typed_while_the_launcher_works_is_refused(tmp_path: Path) -> None:
    s = _session(tmp_path)
    launcher = _Armed()
    entries = len(s.journal.entries(s.id))
    out = _run(s, ["press 3"], launcher=launcher)
    after = out.split("press 3", 1)[1]
    assert "ATK-25" in after and "missed" in after
    assert len(s.journal.entries(s.id)) == entries


def test_atk25_a_press_the_launcher_missed_can_be_recorded(tmp_path: Path) -> None:
    s = _session(tmp_path)
    _run(s, ["missed press 3"], launcher=_Armed())
    assert s.snapshot()["hand_sizes"]["Ann"] == 10


def test_atk25_a_count_larger_than_a_burst_asks_typo(tmp_path: Path) -> None:
    s = _session(tmp_path)
    out = _run(s, ["press 95", "2"])
    assert "typo" in out and "?" * 10 not in out
    assert s.snapshot()["hand_sizes"]["Ann"] == 9


# ------------------------------------------------------------ 4. "hit" alone
@pytest.mark.parametrize("text", ["hit", "hit red", "red hit"])
def test_atk11_atk14_a_bare_hit_is_asked_about(text: str) -> None:
    msg = _refused(text, ATK3)
    assert "Hit 2" in msg and "Wild Hit 4" in msg


# ------------------------------------------------------------ 5. undo says what it undid
def test_undo_says_what_it_took_back(tmp_path: Path) -> None:
    s = _session(tmp_path)
    out = _run(s, ["y7", "undo"])
    assert "undid: Ann plays yellow 7" in out


def test_undo_of_a_press_asks_to_put_the_cards_back(tmp_path: Path) -> None:
    s = _session(tmp_path)
    out = _run(s, ["press 7", "undo"])
    assert "put the 7 cards back into the launcher" in out


def test_undo_redraws_the_lines_it_took_back(tmp_path: Path) -> None:
    s = _session(tmp_path)
    s.correct("Ann", 1)
    out = _run(s, ["y7", "undo"])
    last = out.split("undid", 1)[1]
    assert "has no cards left" not in last


def test_com8_undo_at_the_round_end_questions_takes_back_the_last_count(tmp_path: Path) -> None:
    s = _session(tmp_path)
    s.correct("Ann", 1)
    out = _run(s, ["y7", "12", "undo", "10", "8"])
    assert s.snapshot()["scores"]["Ann"] == 18  # Bob 10, Cy 8: the winning card stands
    assert "undid: Bob's count" in out


# ------------------------------------------------------------ 6. "uno" only where it fits
def test_com6_uno_after_a_play_that_leaves_many_cards_is_refused(tmp_path: Path) -> None:
    s = _session(tmp_path)
    out = _run(s, ["y7", "uno"])
    assert "says UNO" not in out and "COM-6" in out.split("uno", 1)[-1]
    assert "Ann" not in s.uno_said


def test_com6_uno_typed_with_a_card_that_leaves_many_is_not_recorded(tmp_path: Path) -> None:
    s = _session(tmp_path)
    _run(s, ["y7 uno"])
    assert "Ann" not in s.uno_said and s.snapshot()["hand_sizes"]["Ann"] == 6


def test_parse_kinds_unchanged() -> None:
    assert isinstance(parse("undo", MK), Command) and isinstance(parse("r5", PP), Move)


# ------------------------------------------------------------ refusals that left people stuck
@pytest.mark.parametrize(
    ("text", "ctx", "want"),
    [
        ("blue red 5", ATK3, "two colours"),
        ("Bob catch Bob", ATK3, "cannot catch themselves"),
        ("red 0", PP3, "UNO Pocket Pizza Pizza"),
    ],
)
def test_refusals_say_what_to_type(text: str, ctx: Context, want: str) -> None:
    msg = _refused(text, ctx)
    assert want in msg
    assert "did you mean 'red'" not in msg and "pocket-pizza" not in msg


def test_a_colour_glued_to_its_number_is_read() -> None:
    assert one("red7", ATK3) == {"by": "Ann", "play": "r7"}
    assert one("blue+2", MK3) == {"by": "Ann", "play": "b+2"}


def test_com1_purple_at_a_colour_question_offers_colours_not_players() -> None:
    ctx = Context("attack", P, "Ann", ("choose",), None, "W", choice="color")
    msg = _refused("purple", ctx)
    assert "red, yellow, green or blue" in msg and "Bob" not in msg


def test_a_decomposed_name_is_the_composed_player() -> None:
    ctx = Context("attack", ("Ann", "Bob", "Zo\u00eb"), "Ann", ("play", "press"), "red", "r3")
    assert one("Zoe\u0308: r5", ctx) == {"by": "Zo\u00eb", "play": "r5"}


def test_mk1_a_draw_two_at_the_count_needs_no_colour() -> None:
    from unolaunch.table.parse import parse_hand

    cards = parse_hand("+2 +2 +2 r5", MK3)
    assert isinstance(cards, list) and [c[1:] for c in cards[:3]] == ["+2"] * 3


def test_fix_to_more_cards_than_exist_is_one_clear_line(tmp_path: Path) -> None:
    s = _session(tmp_path)
    out = _run(s, ["fix Bob 200"])
    line = next(ln for ln in out.splitlines() if "✗" in ln)
    assert "ACTION" not in line and "Bob cannot hold 200" in line and "Ann" not in line


def test_com2_an_illegal_card_says_what_may_be_typed(tmp_path: Path) -> None:
    s = _session(tmp_path)  # top y5
    out = _run(s, ["r7"])
    line = next(ln for ln in out.splitlines() if "✗" in ln)
    assert "a yellow card" in line and "a 5" in line and "a wild" in line and "'press'" in line


def test_mk23_challenge_after_a_last_wild_draw_four_says_the_round_ended(tmp_path: Path) -> None:
    s = _session(tmp_path, "mario-kart", top="r5")
    s.correct("Ann", 1)
    out = _run(s, ["wd4 blue", "challenge"])
    line = next(ln for ln in out.splitlines() if "✗" in ln)
    assert "round has ended" in line and "MK-23" in line


def test_mk4_a_wild_draw_four_start_says_shuffle_it_back(tmp_path: Path) -> None:
    s = _session(tmp_path, "mario-kart", top=None)
    out = _run(s, ["wd4"])
    assert "shuffle it back" in out and "MK-4" in out


def test_atk18_wild_all_hit_says_who_presses_next(tmp_path: Path) -> None:
    s = _session(tmp_path, extra_cards=True)
    out = _run(s, ["all hit red"])
    assert "then Cy presses" in out.split("all hit red", 1)[1]


def test_mk_prompts_use_mario_kart_cards(tmp_path: Path) -> None:
    s = _session(tmp_path, "mario-kart", top="r5")
    out = _run(s, [])
    assert "'wild blue'" not in out and "wd4 blue" in out


def test_undo_of_the_games_end_takes_its_line_off_the_screen(tmp_path: Path) -> None:
    j = s0 = _session(tmp_path, top=None)
    s = Session.start(j.journal, "attack", list(P), {"target": 20}, seed=1, dealer="Cy")
    s.apply({"by": "Cy", "choose": {"top": "r5"}})
    s.correct("Ann", 1)
    del s0
    out = _run(s, ["r7", "20", "20", "undo"])
    last = out.split("undid:", 1)[1]
    assert "wins the game" not in last.split("╰", 1)[0]


def test_sim_commands_without_a_simulated_launcher_say_where_they_go(tmp_path: Path) -> None:
    s = _session(tmp_path)
    out = _run(s, ["sim jam"])
    line = next(ln for ln in out.splitlines() if "✗" in ln)
    assert "--port sim" in line and "unolaunch sim --link" in line


# ------------------------------------------------------------ screen, resume
def _box_width(out: str) -> int:
    return max(len(ln) for ln in out.splitlines() if ln.startswith("╭"))


def test_com6_the_no_uno_note_does_not_move_the_box(tmp_path: Path) -> None:
    s = _session(tmp_path)
    s.correct("Ann", 2)
    out = _run(s, ["y7"])
    rows = out.split("Ann plays yellow 7", 1)[1].splitlines()
    ann = next(ln for ln in rows if re.search(r"Ann +1 +0", ln))
    bob = next(ln for ln in rows if re.search(r"Bob +7 +0", ln))
    assert "no UNO said" in ann
    assert ann.index(" 1 ") == bob.index(" 7 ")  # the cards column did not widen
    assert _box_width(out.split("Ann plays yellow 7", 1)[1]) == _box_width(out)


def test_com8_the_final_scores_line_up_whatever_the_names(tmp_path: Path) -> None:
    j = _session(tmp_path, top=None).journal
    names = ["Ann", "Maximiliana", "\uff21\uff22"]  # a long name, a full-width one
    s = Session.start(j, "attack", names, {"target": 5}, seed=1, dealer="\uff21\uff22")
    s.apply({"by": "\uff21\uff22", "choose": {"top": "r5"}})
    s.correct("Ann", 1)
    out = _run(s, ["r7", "20", "30", "yes"])
    tail = out.split("wins the game!", 2)[-1].splitlines()
    rows = [ln for ln in tail if ln.startswith("   ") and ln.rstrip()[-1:].isdigit()]
    from rich.cells import cell_len

    assert len(rows) == 3 and len({cell_len(r.rstrip()) for r in rows}) == 1
    assert "[bold]" not in out


def test_com8_a_closed_game_asks_before_undo_reopens_it(tmp_path: Path) -> None:
    j = _session(tmp_path, top=None).journal
    s = Session.start(j, "attack", list(P), {"target": 5}, seed=1, dealer="Cy")
    s.apply({"by": "Cy", "choose": {"top": "r5"}})
    s.correct("Ann", 1)
    _run(s, ["r7", "20", "30", "yes"])
    from unolaunch.commands.history import log_texts

    texts = log_texts(j.game(s.id), j.entries(s.id))
    assert texts[-1] == "the game's end is confirmed ('yes'): the game is closed"
    again = Session.resume(j, s.id)
    out = _run(again, ["undo", "no"])
    assert "Reopen it" in out and again.snapshot()["game_winner"] == "Ann"
    out = _run(again, ["undo", "yes"])
    assert again.snapshot()["game_winner"] is None and "undid:" in out


def test_com6_uno_after_a_wild_and_its_colour_is_said_with_the_wild(tmp_path: Path) -> None:
    s = _session(tmp_path)
    s.correct("Ann", 2)
    out = _run(s, ["wild", "green", "uno"])
    assert "Ann" in s.uno_said and "✗" not in out
    snap = s.snapshot()
    assert snap["color"] == "green" and snap["awaiting"]["by"] == "Bob"
    assert Session.resume(s.journal, s.id).game.state_key() == s.game.state_key()


def test_mk1_a_card_at_the_count_the_deck_has_no_more_of_warns(tmp_path: Path) -> None:
    s = _session(tmp_path, "mario-kart", top="r5")  # MK-1: one red 0... two of r5
    s.correct("Ann", 1)
    out = _run(s, ["r5", "r5 r5 r3 r4 r6 r7 r8", "4 5 6 7 8 9 10"])
    warn = next(ln for ln in out.splitlines() if ln.startswith("⚠"))
    assert "red 5" in warn and "typo" in warn and "MK-1" in warn


def test_atk22_com5_a_correction_may_reload_the_launcher_from_the_discard_pile(
    tmp_path: Path,
) -> None:
    """A card pulled out of a jam when the table counts the launcher empty: the discard
    pile was loaded (ATK-22), so the correction reloads it too (found by the family)."""
    s = _session(tmp_path)
    while s.snapshot()["stock_size"] > 0:
        who = s.snapshot()["awaiting"]["by"]
        s.apply({"by": who, "press": True, "cards": min(12, s.snapshot()["stock_size"])})
        who = s.snapshot()["awaiting"]["by"]
        s.apply({"by": who, "play": f"{s.snapshot()['color'][0]}{1 + s.game.round_no % 9}"})
    before = s.snapshot()["hand_sizes"]["Bob"]
    s.correct("Bob", before + 1, reason="stray")
    assert s.snapshot()["hand_sizes"]["Bob"] == before + 1
    assert Session.resume(s.journal, s.id).game.state_key() == s.game.state_key()


def test_atk25_during_a_launcher_fault_the_prompt_says_what_the_box_says(tmp_path: Path) -> None:
    """One instruction: the box says 'fix it, then type clear', and so does the prompt."""
    from test_table_launcher_faults import FakeLink
    from unolaunch.table.app import Table
    from unolaunch.table.launcher import LinkedLauncher

    s = _session(tmp_path)
    s.apply({"by": "Ann", "play": "yH2"})  # Bob owes two presses (ATK-11)
    table = Table(s)
    table.launcher = LinkedLauncher(FakeLink(), s, table.remember)
    table.launcher.sync()
    table.launcher.handle({"event": "fault", "code": "motor_timeout", "message": "", "n": 1})
    hint = table.hint()
    assert "type 'clear'" in hint and "press N" not in hint
    assert "type 'clear'" in table.launcher.status()


def test_mk8_engine_refusals_name_the_game_not_its_id(tmp_path: Path) -> None:
    s = _session(tmp_path, "mario-kart", top="r5")
    out = _run(s, ["press 2"])
    line = next(ln for ln in out.splitlines() if "✗" in ln)
    assert "UNO Mario Kart" in line and "mario-kart" not in line


def test_com5_a_short_draw_of_unseen_cards_prints_no_question_marks() -> None:
    from unolaunch.rules import Effect
    from unolaunch.table.app import effect_text

    text = effect_text(
        Effect("draw", "Ann", "Ann takes 90 cards" + " ?" * 90 + " (5 short: COM-5)")
    )
    assert text == "Ann takes 90 cards (5 short: COM-5)"


class _Board:
    """The simulated launcher's controls, recorded."""

    def __init__(self) -> None:
        self.cards = 80
        self.lines: list[str] = []
        self.plugged = True

    def control(self, line: str) -> None:
        self.lines.append(line)
        if line.startswith("load "):
            self.cards = int(line.split()[1])


class _Link:
    """A launcher's link that takes every request."""

    def arm(self, player: str, presses: int, mode: str = "random") -> None:
        """Armed."""

    def disarm(self) -> None:
        """Disarmed."""


def test_undo_of_a_press_puts_the_cards_back_into_the_simulated_launcher(tmp_path: Path) -> None:
    """ATK-25: a press taken back puts its cards back: the simulated magazine holds the
    game's stock again (the launcher keeps it so after every change: one count)."""
    s = _session(tmp_path)
    board = _Board()
    launcher = LinkedLauncher(_Link(), s, lambda notice, warning: None, sim=board)
    launcher.sync()
    assert board.lines == ["load 90"] and board.cards == 90  # the deal loaded (ATK-3)
    s.apply({"by": "Ann", "press": True, "cards": 7})  # as the launcher's event applies it
    board.cards -= 7  # the 7 cards the magazine shot
    out = _run(s, ["undo"], launcher=launcher)
    assert "put the 7 cards back into the launcher (done" in out
    assert board.lines == ["load 90", "load 90"]


# ------------------------------------------------------------ this week's Decisions
@pytest.mark.parametrize(
    ("turned", "others_draw"),
    [("r3", 0), ("b7", 2), ("W+4", 0), ("WIB", 0), ("y2", 2), ("g4", 1)],
)  # Mushroom, Lightning (each other player draws one), Bob-omb (any wild turned), Banana
# (the previous player draws two), Green Shell (its target draws one)
def test_mk23_a_last_item_box_fires_on_others_never_on_who_went_out(
    tmp_path: Path, turned: str, others_draw: int
) -> None:
    s = _session(tmp_path, "mario-kart", top="r5")
    s.correct("Ann", 1)
    before = s.snapshot()["hand_sizes"]
    target = " Bob" if turned == "g4" else ""
    _run(s, [f"item box {turned}{target}"])
    snap = s.snapshot()
    assert snap["round_winner"] == "Ann" and snap["hand_sizes"]["Ann"] == 0  # no Bob-omb cards
    assert s.choice() == "reveal"  # no Mushroom's or Lightning's extra turn: the round is over
    drawn = sum(snap["hand_sizes"][p] - before[p] for p in ("Bob", "Cy"))
    assert drawn == others_draw


@pytest.mark.parametrize(
    ("variant", "card", "draws"), [("mario-kart", "wd4 blue", 4), ("pocket-pizza", "wd2 blue", 2)]
)
def test_mk23_pp16_a_last_wild_draw_card_cannot_be_challenged(
    tmp_path: Path, variant: str, card: str, draws: int
) -> None:
    s = _session(tmp_path, variant, top="r5")
    s.correct("Ann", 1)
    out = _run(s, [card, "challenge"])
    assert s.snapshot()["hand_sizes"]["Bob"] == (7 if variant == "mario-kart" else 5) + draws
    assert "round has ended" in out and s.choice() == "reveal"


def test_pp16_a_last_wild_dip_does_nothing_more(tmp_path: Path) -> None:
    s = _session(tmp_path, "pocket-pizza", top="r5")
    s.correct("Ann", 1)
    _run(s, ["dip blue"])
    snap = s.snapshot()
    assert snap["hand_sizes"] == {"Ann": 0, "Bob": 5, "Cy": 5} and s.choice() == "reveal"


class _ConfiguredLink:
    """A launcher link whose configuration allows bursts of at most five cards."""

    def __init__(self) -> None:
        self.stopped = False

    def config_get(self) -> dict[str, Any]:
        return {"burst_weights": [1, 1, 1, 1, 1]}

    def events(self, timeout: float = 0.2) -> list[dict[str, Any]]:
        import time

        time.sleep(timeout)
        return []

    def arm(self, player: str, presses: int, mode: str = "random") -> None:
        pass

    def disarm(self) -> None:
        pass

    def close(self) -> None:
        pass


def test_atk25_the_largest_burst_is_the_connected_launchers_own(tmp_path: Path) -> None:
    from unolaunch.table.launcher import LinkedLauncher

    s = _session(tmp_path)
    launcher = LinkedLauncher(_ConfiguredLink(), s, lambda note, warning: None).start()
    try:
        assert launcher.largest_burst == 5
        launcher.connected = False  # unplugged: presses are typed with their cards
        out = _run(s, ["press 7", "2"], launcher=launcher)
        assert "one press shoots at most 5" in out
        assert s.snapshot()["hand_sizes"]["Ann"] == 9
    finally:
        launcher.close()
