"""Hidden hands: the engine runs a real table where nobody types their hand
(docs/architecture.md §1)."""

from __future__ import annotations

import random

import pytest
from unolaunch.rules import Game, IllegalMoveError


def _mk() -> Game:
    g = Game.new(
        "mario-kart", ["Ann", "Bob", "Cy"], rng=random.Random(1), hidden_hands=True, dealer="Cy"
    )
    assert g.awaiting == {"by": "Cy", "verbs": ["choose"]}  # the dealer reports the start card
    g.apply({"by": "Cy", "choose": {"top": "r5"}})
    return g


def test_hidden_start_card_and_counts() -> None:
    g = _mk()
    s = g.snapshot()
    assert s["hands"]["Ann"] == ["?"] * 7
    assert s["hand_sizes"] == {"Ann": 7, "Bob": 7, "Cy": 7}
    assert s["top"] == "r5" and s["color"] == "red" and s["stock_size"] == 112 - 21 - 1
    assert g.awaiting == {"by": "Ann", "verbs": ["play", "draw"]}


def test_hidden_mk4_a_wild_draw_four_start_card_is_turned_again() -> None:
    g = Game.new("mario-kart", ["A", "B"], rng=random.Random(1), hidden_hands=True, dealer="B")
    g.apply({"by": "B", "choose": {"top": "W+4"}})
    assert g.awaiting == {"by": "B", "verbs": ["choose"]}
    assert g.snapshot()["stock_size"] == 112 - 14
    g.apply({"by": "B", "choose": {"top": "g3"}})
    assert g.snapshot()["top"] == "g3" and g.snapshot()["stock_size"] == 112 - 15


def test_hidden_plays_are_trusted_but_must_match() -> None:
    g = _mk()
    g.apply({"by": "Ann", "play": "r7"})
    assert g.snapshot()["hand_sizes"]["Ann"] == 6
    with pytest.raises(IllegalMoveError) as err:
        g.apply({"by": "Bob", "play": "g2"})
    assert err.value.rule == "COM-2"


def test_hidden_draw_adds_an_unknown_card_then_play_or_pass() -> None:
    g = _mk()
    g.apply({"by": "Ann", "draw": True})
    assert g.snapshot()["hand_sizes"]["Ann"] == 8
    assert g.awaiting == {"by": "Ann", "verbs": ["play", "pass"]}  # the drawn card may fit
    g.apply({"by": "Ann", "pass": True})
    assert g.awaiting["by"] == "Bob"


def test_hidden_item_box_card_given_with_the_play_or_asked() -> None:
    g = _mk()
    g.apply({"by": "Ann", "play": "WIB", "turned": "y4"})  # Banana: Cy (before Ann) draws 2
    s = g.snapshot()
    assert s["top"] == "y4" and s["color"] == "yellow" and s["hand_sizes"]["Cy"] == 9
    g.undo()
    g.apply({"by": "Ann", "play": "WIB"})
    assert g.awaiting == {"by": "Ann", "verbs": ["choose"]}
    # MK-13: the screen shows what is owed while the table has not said the card yet.
    assert g.snapshot()["owed"] == ["Ann reports the card the Item Box turned (MK-13)"]
    g.apply({"by": "Ann", "choose": {"turned": "b2"}})  # Lightning: the others draw one
    s = g.snapshot()
    assert s["hand_sizes"] == {"Ann": 6, "Bob": 8, "Cy": 8}
    assert g.awaiting == {"by": "Ann", "verbs": ["play", "draw"]}


@pytest.mark.parametrize(
    ("won", "ann", "bob", "turn"), [(True, 10, 7, "Bob"), (False, 6, 13, "Cy")]
)
def test_hidden_challenge_outcome_comes_from_the_table(
    won: bool, ann: int, bob: int, turn: str
) -> None:
    g = _mk()
    g.apply({"by": "Ann", "play": "W+4", "color": "blue"})
    g.apply({"by": "Bob", "challenge": True, "won": won})
    s = g.snapshot()
    assert (s["hand_sizes"]["Ann"], s["hand_sizes"]["Bob"], s["turn"]) == (ann, bob, turn)
    g.undo()
    g.apply({"by": "Bob", "challenge": True})
    assert g.awaiting == {"by": "Bob", "verbs": ["choose"]}
    g.apply({"by": "Bob", "choose": {"won": won}})
    assert g.snapshot()["hand_sizes"]["Bob"] == bob


def test_hidden_round_end_points_or_cards_and_undo() -> None:
    g = _mk()
    g.apply({"by": "Cy", "correct": {"Ann": 1}})
    g.apply({"by": "Ann", "play": "r9"})
    assert not g.round_over and g.awaiting == {"by": "Ann", "verbs": ["choose"]}
    with pytest.raises(IllegalMoveError) as err:
        g.apply({"by": "Ann", "choose": {"points": {"Bob": 10}}})
    assert err.value.rule == "COM-8" and "Cy" in str(err.value)
    g.apply({"by": "Ann", "choose": {"points": {"Bob": 10, "Cy": 33}}})
    assert g.round_over and g.snapshot()["scores"]["Ann"] == 43
    g.undo()
    g.apply({"by": "Ann", "choose": {"hands": {"Bob": ["r1", "W+4"], "Cy": ["g2", "bS"]}}})
    assert g.snapshot()["round_points"] == 1 + 50 + 2 + 20
    g.next_round()
    assert g.awaiting == {"by": "Ann", "verbs": ["choose"]}  # the new dealer (left of Cy)


def test_hidden_hand_size_correction_is_journaled() -> None:
    g = _mk()
    stock = g.snapshot()["stock_size"]
    g.apply({"by": "Ann", "correct": {"Bob": 9, "Cy": 5}})
    s = g.snapshot()
    assert s["hand_sizes"] == {"Ann": 7, "Bob": 9, "Cy": 5}
    assert s["stock_size"] == stock  # +2 -2: the cards came from and went to the stock
    g.undo()
    assert g.snapshot()["hand_sizes"] == {"Ann": 7, "Bob": 7, "Cy": 7}
    with pytest.raises(IllegalMoveError, match="only"):
        g.apply({"by": "Ann", "correct": {"Bob": 500}})


def test_corrections_are_for_hidden_hands_only() -> None:
    g = Game.new("mario-kart", ["Ann", "Bob"], rng=random.Random(1))
    with pytest.raises(IllegalMoveError, match="hidden hands"):
        g.apply({"by": "Ann", "correct": {"Bob": 3}})


def test_hidden_attack_presses_carry_the_observed_count() -> None:
    g = Game.new("attack", ["Ann", "Bob"], rng=random.Random(1), hidden_hands=True, dealer="Bob")
    g.apply({"by": "Bob", "choose": {"top": "r5"}})
    g.apply({"by": "Ann", "press": True, "cards": 3})
    assert g.snapshot()["hand_sizes"] == {"Ann": 10, "Bob": 7}
    with pytest.raises(IllegalMoveError) as err:
        g.apply({"by": "Bob", "press": True})  # no launcher connected, no count given
    assert err.value.rule == "ATK-25"
    g.apply({"by": "Bob", "play": "rDA", "discarded": ["r1", "r2"]})  # ATK-12
    s = g.snapshot()
    assert s["hand_sizes"]["Bob"] == 4 and s["top"] == "rDA"
    assert g.discard[-3:] != [] and len(g.discard) == 4


def test_hidden_dip_moves_an_unknown_card() -> None:
    g = Game.new(
        "pocket-pizza", ["A", "B", "C"], rng=random.Random(1), hidden_hands=True, dealer="C"
    )
    g.apply({"by": "C", "choose": {"top": "r5"}})
    g.apply({"by": "A", "play": "WDD", "color": "green"})
    assert g.snapshot()["hand_sizes"] == {"A": 4, "B": 6, "C": 5}
    assert g.awaiting == {"by": "B", "verbs": ["play", "draw"]}
