"""The table session: the engine in hidden-hands mode, journaled; launcher arming rules."""

from __future__ import annotations

from pathlib import Path

import pytest
from table_typist import script_game
from unolaunch.errors import UnolaunchError
from unolaunch.rules import IllegalMoveError
from unolaunch.table.journal import Journal
from unolaunch.table.session import Arming, Session, TableError

P = ["Ann", "Bob", "Cy"]


def _attack(tmp_path: Path, **options: object) -> Session:
    j = Journal.open(tmp_path)
    s = Session.start(j, "attack", P, dict(options), seed=1, dealer="Cy")
    s.apply({"by": "Cy", "choose": {"top": "r5"}})  # COM-4: the dealer reports the start card
    return s


def test_com4_start_card_then_first_player_left_of_dealer(tmp_path: Path) -> None:
    s = _attack(tmp_path)
    snap = s.snapshot()
    assert snap["top"] == "r5" and snap["color"] == "red"
    assert snap["awaiting"] == {"by": "Ann", "verbs": ["play", "press"]}
    assert snap["hand_sizes"] == {"Ann": 7, "Bob": 7, "Cy": 7}  # ATK-3: 7 each, unseen


def test_atk25_arming_is_exactly_what_the_rules_demand(tmp_path: Path) -> None:
    s = _attack(tmp_path)
    assert s.arming() == Arming("Ann", 1)  # ATK-5: a normal turn's press
    s.apply({"by": "Ann", "play": "rH2"})
    assert s.arming() == Arming("Bob", 2)  # ATK-11: Hit 2 = two presses
    s.apply({"by": "Bob", "press": True, "cards": 0})
    assert s.arming() == Arming("Bob", 1)
    s.apply({"by": "Bob", "press": True, "cards": 3})
    assert s.snapshot()["hand_sizes"]["Bob"] == 10
    assert s.arming() == Arming("Cy", 1)
    s.apply({"by": "Cy", "play": "WH4", "color": "blue"})
    assert s.arming() == Arming("Ann", 4)  # ATK-14
    for _ in range(4):
        s.apply({"by": "Ann", "press": True, "cards": 0})
    s.apply({"by": "Bob", "play": "WAA", "color": "green", "target": "Ann"})
    assert s.arming() == Arming("Ann", 2)  # ATK-15: the target presses twice
    s.apply({"by": "Ann", "press": True, "cards": 1})
    s.apply({"by": "Ann", "press": True, "cards": 1})
    assert s.arming() == Arming("Cy", 1)
    s.apply({"by": "Cy", "play": "gS"})
    assert s.arming() is None  # ATK-8: extra play or pass; a press now is a foul (ATK-26)


def test_atk20_uno_penalty_and_atk17_hit_fire_arming(tmp_path: Path) -> None:
    s = _attack(tmp_path, extra_cards=True)
    s.apply({"by": "Ann", "correct": {"Ann": 2}})
    s.apply({"by": "Ann", "play": "r7"})  # second-to-last card, no UNO said
    s.apply({"by": "Cy", "catch": "Ann"})
    assert s.arming() == Arming("Ann", 2)  # ATK-20: caught, two presses
    s.apply({"by": "Ann", "press": True, "cards": 2})
    s.apply({"by": "Ann", "press": True, "cards": 0})
    s.apply({"by": "Bob", "play": "WHF", "color": "red"})
    assert s.arming() == Arming("Cy", 1, "until_card")  # ATK-17


def test_com6_say_uno_after_the_play_amends_it(tmp_path: Path) -> None:
    s = _attack(tmp_path)
    s.apply({"by": "Ann", "correct": {"Ann": 2}})
    s.apply({"by": "Ann", "play": "r7"})
    s.say_uno()
    assert "Ann" in s.uno_said
    with pytest.raises(IllegalMoveError):
        s.apply({"by": "Bob", "catch": "Ann"})  # COM-6: she said it
    again = Session.resume(s.journal, s.id)
    assert again.game.state_key() == s.game.state_key()


def test_say_uno_needs_a_play(tmp_path: Path) -> None:
    s = _attack(tmp_path)
    with pytest.raises(TableError, match="together with the card"):
        s.say_uno()


def test_undo_and_resume_agree(tmp_path: Path) -> None:
    s = _attack(tmp_path)
    before = s.game.state_key()
    s.apply({"by": "Ann", "play": "r9"})
    s.apply({"by": "Bob", "press": True, "cards": 2})
    s.undo(2)
    assert s.game.state_key() == before
    assert Session.resume(s.journal, s.id).game.state_key() == before
    with pytest.raises(TableError, match="can be taken back"):
        s.undo(50)


def test_com2_illegal_action_is_not_journaled(tmp_path: Path) -> None:
    s = _attack(tmp_path)
    n = len(s.journal.entries(s.id))
    with pytest.raises(IllegalMoveError) as err:
        s.apply({"by": "Ann", "play": "g3"})  # COM-2: matches neither red nor 5
    assert err.value.rule == "COM-2"
    assert len(s.journal.entries(s.id)) == n


def test_com8_round_end_reveal_cards_or_points(tmp_path: Path) -> None:
    j = Journal.open(tmp_path)
    s = Session.start(j, "pocket-pizza", ["Ann", "Bob", "Cy"], {}, seed=3, dealer="Cy")
    s.apply({"by": "Cy", "choose": {"top": "r5"}})
    s.apply({"by": "Ann", "correct": {"Ann": 1}})
    s.apply({"by": "Ann", "play": "r2"})
    assert s.choice() == "reveal"
    s.correct("Bob", 2)  # COM-8: a list of cards must match the hand size (issue 10)
    s.reveal({"Bob": ["r5", "W"], "Cy": 20})  # PP-1: 5 + 50, plus a total of 20
    snap = s.snapshot()
    assert snap["round_points"] == 75 and snap["scores"]["Ann"] == 75  # PP-18
    assert snap["awaiting"] is None
    s.next_round()
    assert s.snapshot()["awaiting"]["by"] == "Ann"  # COM-4: the deal passes left
    assert Session.resume(j, s.id).game.state_key() == s.game.state_key()


def test_resume_needs_a_game(tmp_path: Path) -> None:
    with pytest.raises(UnolaunchError, match="no unfinished game"):
        Session.resume(Journal.open(tmp_path))


@pytest.mark.parametrize("variant", ["attack", "mario-kart", "pocket-pizza"])
def test_scripted_game_replays_exactly(tmp_path: Path, variant: str) -> None:
    script = script_game(tmp_path, variant, P, seed=2, target=40, max_lines=400)
    assert len(script.lines) > 50
    last = max(script.keys)
    with Journal.open(tmp_path) as j:
        again = Session.resume(j, script.game_id)
        assert again.game.state_key() == script.keys[last]
