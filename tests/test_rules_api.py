"""The rules engine facade (docs/architecture.md §1): Game.new, apply, awaiting, undo..."""

from __future__ import annotations

import collections
import random

import pytest
from unolaunch.rules import VARIANTS, Action, Game, IllegalMoveError, ListLauncher
from unolaunch.rules.scenario import STATE_KEYS


def _conserved(g: Game) -> bool:
    cards = [c for h in g.hands for c in h] + g.stock + g.discard
    return collections.Counter(cards) == collections.Counter(g.composition)


@pytest.mark.parametrize("variant", VARIANTS)
def test_new_game_deals_and_awaits_one_player(variant: str) -> None:
    g = Game.new(variant, ["Ann", "Bob", "Cy"], rng=random.Random(1))
    size = 5 if variant == "pocket-pizza" else 7
    assert all(len(h) == size for h in g.hands) or g.pending  # a start card may add cards
    assert _conserved(g)
    snap = g.snapshot()
    assert set(STATE_KEYS) <= set(snap)
    assert snap["awaiting"]["by"] in g.players
    assert g.round_over is False and g.game_over is False


def test_com4_first_dealer_is_random_but_seeded() -> None:
    dealers = {
        Game.new("mario-kart", ["A", "B", "C", "D"], rng=random.Random(s)).dealer for s in range(30)
    }
    assert dealers == {0, 1, 2, 3}
    a = Game.new("mario-kart", ["A", "B", "C"], rng=random.Random(5)).snapshot()
    b = Game.new("mario-kart", ["A", "B", "C"], rng=random.Random(5)).snapshot()
    assert a == b


def test_com2_illegal_play_names_rule_action_position_and_changes_nothing() -> None:
    g = Game.from_position(
        "attack",
        ["Ann", "Bob"],
        hands={"Ann": ["g3", "r1"], "Bob": ["b1"]},
        discard=["r9"],
        stock=["g2"],
        turn="Ann",
    )
    before = g.state_key()
    with pytest.raises(IllegalMoveError) as err:
        g.apply({"by": "Ann", "play": "g3"})
    assert err.value.rule == "COM-2"
    msg = str(err.value)
    assert msg.startswith("COM-2:") and "Ann: play g3" in msg and "top r9" in msg
    assert isinstance(err.value, ValueError)
    assert g.state_key() == before
    assert g.undo_depth == 0


def test_apply_returns_printable_effects_and_undo_restores() -> None:
    g = Game.from_position(
        "attack",
        ["Ann", "Bob", "Cy"],
        hands={"Ann": ["rH2", "y3"], "Bob": ["r4"], "Cy": ["b7"]},
        discard=["r9"],
        stock=["g2", "g3", "g4", "b5"],
        turn="Ann",
        launcher=ListLauncher([1, 2]),
    )
    s0 = g.state_key()
    effects = g.apply(Action.parse("Ann: play rH2 uno"))
    assert any("Bob must press the launcher 2 times" in str(e) for e in effects)
    assert g.awaiting == {"by": "Bob", "verbs": ["press"]}
    s1 = g.state_key()
    g.apply({"by": "Bob", "press": True})
    g.apply({"by": "Bob", "press": True, "cards": 0})
    assert g.snapshot()["hands"]["Bob"] == ["r4", "g2"]
    g.undo(2)
    assert g.state_key() == s1
    g.undo()
    assert g.state_key() == s0
    with pytest.raises(ValueError, match="cannot undo"):
        g.undo()


def test_legal_actions_are_all_accepted() -> None:
    rng = random.Random(3)
    for variant in VARIANTS:
        g = Game.new(variant, ["Ann", "Bob", "Cy"], rng=rng)
        for _ in range(60):
            if g.round_over:
                break
            acts = g.legal_actions()
            assert acts
            for a in acts:
                g.apply(a)
                g.undo()
            g.apply(rng.choice(acts))


def test_action_round_trips_dict_and_text() -> None:
    dicts = [
        {"by": "Ann", "play": "r5"},
        {"by": "Ann", "play": "WAA", "color": "red", "target": "Bob", "uno": True},
        {"by": "Ann", "play": "WDD", "color": "green", "give": "y4"},
        {"by": "Bob", "press": True},
        {"by": "Bob", "press": True, "cards": 3},
        {"by": "Bob", "draw": True},
        {"by": "Bob", "pass": True},
        {"by": "Bob", "challenge": True},
        {"by": "Bob", "challenge": True, "won": False},
        {"by": "Bob", "accept": True},
        {"by": "Ann", "choose": {"color": "red"}},
        {"by": "Ann", "choose": {"target": "Cy"}},
        {"by": "Ann", "choose": {"give": "y4"}},
        {"by": "Ann", "choose": {"top": "r5"}},
        {"by": "Ann", "choose": {"points": {"Bob": 12, "Cy": 0}}},
        {"by": "Ann", "choose": {"hands": {"Bob": ["r1", "W"], "Cy": []}}},
        {"by": "Cy", "catch": "Bob"},
        {"by": "Cy", "correct": {"Bob": 5}},
        {"by": "Ann", "play": "yDA", "discarded": ["y1", "y7"]},
    ]
    for d in dicts:
        a = Action.from_dict(d)
        assert a.to_dict() == d
        assert Action.parse(str(a)) == a


@pytest.mark.parametrize(
    "bad",
    [
        {"play": "r5"},
        {"by": "Ann"},
        {"by": "Ann", "play": "r5", "draw": True},
        {"by": "Ann", "play": "x5"},
        {"by": "Ann", "play": "W", "color": "purple"},
        {"by": "Ann", "press": True, "cards": -1},
        {"by": "Ann", "draw": True, "card": "r5"},
        {"by": "Ann", "choose": {"colour": "red"}},
    ],
)
def test_malformed_action_is_refused_without_change(bad: dict) -> None:
    g = Game.new("attack", ["Ann", "Bob"], rng=random.Random(2))
    before = g.state_key()
    with pytest.raises(IllegalMoveError) as err:
        g.apply(bad)
    assert err.value.rule == "ACTION"
    assert g.state_key() == before
