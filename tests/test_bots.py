"""Bots: the random bot is uniform over legal actions; the heuristic bot plays to win."""

from __future__ import annotations

import random
from collections import Counter

import pytest
from unolaunch.bots import HeuristicBot, RandomBot, make_bot, play_game
from unolaunch.rules import Game
from unolaunch.rules.engine import CATCH, CHALLENGE, PLAY, UNO_BIT


def test_random_bot_is_uniform_over_the_legal_actions() -> None:
    g = Game.from_position(
        "mario-kart", ["Ann", "Bob"], hands={"Ann": ["r1", "r2", "g9", "W+4"], "Bob": ["b1"]},
        discard=["r9"], stock=["g1"], turn="Ann",
    )  # fmt: skip
    moves = g.moves()
    assert len(moves) == 3 + 4 + 1  # r1, r2, g9 (the 9); W+4 in 4 colours; draw
    bot = RandomBot(random.Random(4))
    counts = Counter(bot.choose(g, 0, moves) for _ in range(8000))
    assert set(counts) == set(moves)
    assert all(abs(c - 1000) < 150 for c in counts.values())


def test_random_bot_never_acts_for_another_player() -> None:
    g = Game.from_position(
        "mario-kart", ["Ann", "Bob", "Cy"],
        hands={"Ann": ["r1", "g2"], "Bob": ["b1", "r3"], "Cy": ["y1"]},
        discard=["r9"], stock=["g1", "g2"], turn="Ann",
    )  # fmt: skip
    g.apply({"by": "Ann", "play": "r1"})  # no UNO: Bob and Cy may catch
    moves = g.moves()
    assert sum(1 for m in moves if m & 7 == CATCH) == 2
    bot = RandomBot(random.Random(1))
    assert all(bot.choose(g, 1, moves) >> 19 == 1 for _ in range(200))


def test_heuristic_bot_says_uno_catches_and_keeps_wilds() -> None:
    rng = random.Random(2)
    bot = HeuristicBot(rng)
    g = Game.from_position(
        "mario-kart", ["Ann", "Bob", "Cy"],
        hands={"Ann": ["r1", "W+4", "g2", "g3", "b4"], "Bob": ["b1"] * 6, "Cy": ["y1"] * 6},
        discard=["r9"], stock=["g1"], turn="Ann",
    )  # fmt: skip
    m = bot.choose(g, 0, g.moves())
    assert m & 7 == PLAY and g.move_action(m).card == "r1"  # keeps the wild for later
    g2 = Game.from_position(
        "mario-kart", ["Ann", "Bob"], hands={"Ann": ["r1", "g2"], "Bob": ["b1", "y3", "y4"]},
        discard=["r9"], stock=["g1"], turn="Ann",
    )  # fmt: skip
    m = bot.choose(g2, 0, g2.moves())
    assert m & UNO_BIT  # says UNO with the second-to-last card
    g2.step(m & ~UNO_BIT)  # ... but suppose it forgot: Bob's bot catches
    assert bot.choose(g2, 1, g2.moves()) & 7 == CATCH


def test_heuristic_bot_challenges_a_big_hand_and_accepts_a_small_one() -> None:
    bot = HeuristicBot(random.Random(0))
    for hand, expect in ((["W+4", "b1", "b2", "g3", "y4", "y5"], True), (["W+4", "b2"], False)):
        g = Game.from_position(
            "mario-kart", ["Ann", "Bob"], hands={"Ann": hand, "Bob": ["b1", "b3"]},
            discard=["r9"], stock=["g1", "g2", "g3", "g4", "g5", "g6"], turn="Ann",
        )  # fmt: skip
        g.apply({"by": "Ann", "play": "W+4", "color": "blue", "uno": True})
        m = bot.choose(g, 1, g.moves())
        assert (m & 7 == CHALLENGE) is expect


@pytest.mark.parametrize("variant", ["attack", "mario-kart", "pocket-pizza"])
def test_heuristic_beats_random(variant: str) -> None:
    rng = random.Random(7)
    wins: Counter[int] = Counter()
    for _ in range(20):
        g = Game.new(variant, ["H", "R"], rng=rng)
        wins[play_game(g, [HeuristicBot(rng), RandomBot(rng)]).winner] += 1
    assert wins[0] >= 15, wins


def test_make_bot() -> None:
    assert make_bot("random", random.Random()).name == "random"
    with pytest.raises(ValueError, match="unknown bot"):
        make_bot("clever", random.Random())
    with pytest.raises(ValueError, match="need 3 bots"):
        play_game(Game.new("attack", ["A", "B", "C"]), [RandomBot(random.Random())])


@pytest.mark.parametrize(
    ("variant", "players", "options"),
    [
        ("mario-kart", 2, None),
        ("mario-kart", 5, None),
        ("attack", 2, None),
        ("attack", 4, {"extra_cards": True, "customizable": "trade-hands"}),
        ("pocket-pizza", 2, None),
        ("pocket-pizza", 4, None),
    ],
)
def test_play_random_plays_exactly_what_moves_and_step_play(
    variant: str, players: int, options: dict[str, object] | None
) -> None:
    # Game.play_random (the fused loop of all-random simulations) must pick, with the same
    # random bits, the very move RandomBot picks from moves(), and apply it as step() does.
    names = [f"P{i}" for i in range(players)]
    for seed in range(3):
        fast = Game.new(variant, names, options=options, rng=random.Random(seed))
        slow = Game.new(variant, names, options=options, rng=random.Random(seed))
        fast.journal = slow.journal = None
        for _ in range(4):  # rounds
            while not slow.round_over:
                ms = slow.moves()
                if slow.uno_seat >= 0:
                    seat = slow.pending[0][1] if slow.pending else slow.turn
                    ms = [m for m in ms if m >> 19 == seat]
                slow.step(ms[slow.rng.getrandbits(53) % len(ms)])
                assert fast.play_random(fast.rng.getrandbits, 1) == 1
                assert fast.state_key() == slow.state_key()
                assert fast._key == slow._key
            assert fast.play_random(fast.rng.getrandbits, 5) == 0  # the round is over
            if slow.game_over:
                break
            slow.next_round()
            fast.next_round()
