"""Properties over random games of all three variants (hypothesis).

Every card is always in exactly one place and the deck keeps its composition; exactly
one player is awaited; scores only grow; undo restores the previous state exactly; a
game always ends, and a turn cap stops one that would not with a clear error.
"""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from unolaunch.bots import HeuristicBot, RandomBot, play_game
from unolaunch.rules import Game, TurnCapError
from unolaunch.rules.engine import CATCH, ROUND_OVER

SETTINGS = settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow], derandomize=True
)


@st.composite
def games(draw: Any) -> tuple[Game, random.Random]:
    variant = draw(st.sampled_from(["attack", "mario-kart", "pocket-pizza"]))
    n = draw(st.integers(2, 5 if variant == "pocket-pizza" else 10))
    seed = draw(st.integers(0, 2**32))
    options: dict[str, Any] = {}
    if variant == "attack":
        if draw(st.booleans()):
            options["extra_cards"] = True
            options["customizable"] = draw(
                st.sampled_from(
                    ["wild", "hit-4", "attack-attack", "hit-fire", "all-hit", "trade-hands"]
                )
            )
        options["strict_press"] = draw(st.booleans())
    if variant == "pocket-pizza":
        options["challenge_wilds_count"] = draw(st.booleans())
    rng = random.Random(seed)
    return Game.new(variant, [f"P{i}" for i in range(n)], options=options, rng=rng), rng


def _check(g: Game, last_scores: list[int]) -> None:
    where = [c for h in g.hands for c in h] + list(g.stock) + list(g.discard)
    assert Counter(where) == Counter(g.composition)  # every card in exactly one place
    assert len(where) == g.deck_size
    assert all(a >= b for a, b in zip(g.scores, last_scores, strict=True))  # scores only grow
    aw = g.awaiting
    if g.phase < ROUND_OVER:
        assert aw is not None and aw["by"] in g.players  # exactly one player awaited
        moves = g.moves()
        assert moves
        seat = g.players.index(aw["by"])
        assert all(m >> 19 == seat for m in moves if m & 7 != CATCH)
        verbs = {g.move_action(m).verb for m in moves if m >> 19 == seat}
        assert verbs <= set(aw["verbs"])
    else:
        assert aw is None and g.moves() == []


@SETTINGS
@given(games(), st.integers(0, 6))
def test_invariants_hold_and_undo_restores_exactly(
    case: tuple[Game, random.Random], undo_every: int
) -> None:
    g, rng = case
    last = list(g.scores)
    for i in range(400):
        if g.game_over:
            break
        if g.round_over:
            last = list(g.scores)
            g.next_round()
            _check(g, last)
            continue
        moves = g.moves()
        m = rng.choice(moves)
        if undo_every and i % (undo_every + 1) == 0:
            before = g.state_key()
            snap = g.snapshot()
            g.apply(g.move_action(m))
            g.undo()
            assert g.state_key() == before and g.snapshot() == snap
            g.apply(g.move_action(m))
        else:
            g.step(m)
        _check(g, last)
        last = list(g.scores)


@settings(max_examples=6, deadline=None, derandomize=True)
@given(st.sampled_from(["attack", "mario-kart", "pocket-pizza"]), st.integers(0, 2**32))
def test_random_two_player_games_always_end(variant: str, seed: int) -> None:
    rng = random.Random(seed)
    g = Game.new(variant, ["A", "B"], rng=rng)
    result = play_game(g, [RandomBot(rng), RandomBot(rng)], max_actions=1_000_000)
    assert g.game_over and g.scores[result.winner] >= g.target


@settings(max_examples=10, deadline=None, derandomize=True)
@given(
    st.sampled_from(["attack", "mario-kart", "pocket-pizza"]),
    st.integers(2, 5),
    st.integers(0, 2**32),
)
def test_heuristic_games_always_end(variant: str, n: int, seed: int) -> None:
    rng = random.Random(seed)
    g = Game.new(variant, [f"P{i}" for i in range(n)], rng=rng)
    result = play_game(g, [HeuristicBot(rng) for _ in range(n)])
    assert g.game_over and result.rounds >= 1


def test_a_turn_cap_raises_a_clear_error() -> None:
    rng = random.Random(1)
    g = Game.new("mario-kart", ["A", "B"], rng=rng)
    with pytest.raises(TurnCapError, match="did not end within 50 actions"):
        play_game(g, [RandomBot(rng), RandomBot(rng)], max_actions=50)
