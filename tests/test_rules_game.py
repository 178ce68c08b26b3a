"""Whole games: rounds, dealing rotation, scoring to the target, options, undo across deals."""

from __future__ import annotations

import random

import pytest
from unolaunch import cards as C
from unolaunch.bots import HeuristicBot, play_game
from unolaunch.rules import Game, IllegalMoveError, resolve_options
from unolaunch.rules.engine import ROUND_OVER


def _play_round(g: Game, rng: random.Random) -> None:
    bot = HeuristicBot(rng)
    while g.phase < ROUND_OVER:
        seat = g.pending[0][1] if g.pending else g.turn
        g.step(bot.choose(g, seat, g.moves()))


@pytest.mark.parametrize("variant", ["attack", "mario-kart", "pocket-pizza"])
def test_com4_mk7_deal_passes_left_and_scores_accumulate(variant: str) -> None:
    rng = random.Random(11)
    g = Game.new(variant, ["Ann", "Bob", "Cy"], rng=rng)
    dealers = [g.dealer]
    totals = [0, 0, 0]
    for _ in range(3):
        _play_round(g, rng)
        assert g.round_over
        w = g.round_winner
        assert g.round_points is not None
        totals[w] += g.round_points
        assert g.scores == totals  # COM-8: only the winner scores, scores accumulate
        if g.game_over:
            break
        g.next_round()
        dealers.append(g.dealer)
        started_on_reverse = C.card_kind(g.discard[0]) == C.REVERSE
        assert g.direction == (-1 if started_on_reverse else 1)  # COM-3: left at the start
        assert g.round_winner == -1 and g.round_points is None
        size = 5 if variant == "pocket-pizza" else 7
        assert sum(len(h) for h in g.hands) >= 3 * size
    assert dealers == [(dealers[0] + i) % 3 for i in range(len(dealers))]


def test_next_round_only_when_the_round_is_over() -> None:
    g = Game.new("mario-kart", ["Ann", "Bob"], rng=random.Random(1))
    with pytest.raises(IllegalMoveError) as err:
        g.next_round()
    assert err.value.rule == "COM-4"


def test_actions_after_the_round_are_refused_com7() -> None:
    g = Game.from_position(
        "mario-kart", ["Ann", "Bob"], hands={"Ann": ["r5"], "Bob": ["b1"]},
        discard=["r9"], stock=["g1"], turn="Ann",
    )  # fmt: skip
    g.apply({"by": "Ann", "play": "r5"})
    assert g.round_over and not g.game_over
    with pytest.raises(IllegalMoveError) as err:
        g.apply({"by": "Bob", "draw": True})
    assert err.value.rule == "COM-7"


@pytest.mark.parametrize(
    ("variant", "target"), [("attack", 500), ("mario-kart", 500), ("pocket-pizza", 250)]
)
def test_atk24_mk25_pp19_games_end_at_the_target(variant: str, target: int) -> None:
    rng = random.Random(3)
    g = Game.new(variant, ["A", "B", "C"], rng=rng)
    result = play_game(g, [HeuristicBot(rng) for _ in range(3)])
    assert g.game_over and g.target == target
    assert result.winner == g.game_winner
    assert g.scores[result.winner] >= target
    assert sorted(g.scores)[-2] < target  # only one player can cross it (COM-8)
    with pytest.raises(IllegalMoveError) as err:
        g.apply({"by": "A", "draw": True})
    assert err.value.rule == "COM-8"


def test_target_option_shortens_the_game() -> None:
    rng = random.Random(5)
    g = Game.new("pocket-pizza", ["A", "B"], options={"target": 30}, rng=rng)
    play_game(g, [HeuristicBot(rng), HeuristicBot(rng)])
    assert g.game_over and max(g.scores) >= 30


def test_undo_across_a_deal_restores_the_finished_round() -> None:
    rng = random.Random(8)
    g = Game.new("attack", ["Ann", "Bob"], rng=rng)
    _play_round(g, rng)
    assert not g.game_over, "one round cannot reach 500 (ATK-24)"
    before = g.state_key()
    g.next_round()
    assert not g.round_over
    g.undo()
    assert g.state_key() == before and g.round_over


@pytest.mark.parametrize(
    ("variant", "options", "message"),
    [
        ("attack", {"strict": True}, "unknown option 'strict'"),
        ("attack", {"strict_press": "yes"}, "true or false"),
        ("attack", {"customizable": "skip"}, "customizable"),
        ("mario-kart", {"target": 0}, "at least 1"),
        ("pocket-pizza", {"wild": -1}, "whole number"),
    ],
)
def test_bad_options_are_refused_naming_the_key(variant: str, options: dict, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        resolve_options(variant, options)
    with pytest.raises(ValueError, match=message):
        Game.new(variant, ["A", "B"], options=options)


@pytest.mark.parametrize(
    ("variant", "players", "message"),
    [
        ("pocket-pizza", ["A", "B", "C", "D", "E", "F"], "2 to 5 players"),
        ("attack", ["A"], "2 to 10 players"),
        ("attack", ["A", "A"], "different"),
        ("attack", ["A", ""], "non-empty"),
        ("uno", ["A", "B"], "unknown variant"),
    ],
)
def test_bad_players_or_variant(variant: str, players: list[str], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        Game.new(variant, players)


def test_pp3_mk3_atk3_deal_sizes_and_start() -> None:
    for variant, size in (("attack", 7), ("mario-kart", 7), ("pocket-pizza", 5)):
        g = Game.new(variant, ["A", "B", "C", "D", "E"], rng=random.Random(2))
        drawn_at_start = sum(len(h) for h in g.hands) - 5 * size
        assert drawn_at_start in (0, 1, 2)  # a start Draw One/Two/Wild Draw 2 only
        assert len(g.discard) == 1
        assert len(g.stock) + sum(len(h) for h in g.hands) + 1 == g.deck_size
