"""Bots that play the rules engine: a uniformly random one and a heuristic one.

Bots work on the engine's fast interface: :meth:`Game.moves` gives the legal actions as
move ints, a bot returns one of them, :meth:`Game.step` applies it. A bot only looks at
what its player may know: its own hand, the discard pile, hand sizes and scores.

:func:`play_game` plays a whole game (every round to the target score) and stops with
:class:`~unolaunch.rules.TurnCapError` if it runs past a cap instead of looping forever.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from unolaunch import cards as C
from unolaunch.rules import Game, TurnCapError
from unolaunch.rules.engine import (
    CATCH,
    CHALLENGE,
    CHOOSE,
    DRAW,
    GAME_OVER,
    OB_CHALLENGE,
    OB_GIVE,
    PASS,
    PLAY,
    PRESS,
    ROUND_OVER,
    TURN,
    UNO_BIT,
)

__all__ = [
    "BOTS",
    "Bot",
    "GameResult",
    "HeuristicBot",
    "RandomBot",
    "RoundFigures",
    "make_bot",
    "play_game",
]


class Bot(Protocol):
    """A player: picks one of the legal moves for ``seat``."""

    name: str
    catches: bool  # whether it catches a missed UNO at once, even out of turn

    def choose(self, game: Game, seat: int, moves: list[int]) -> int:
        """Return one move of ``moves`` (all legal now) for the player at ``seat``."""
        ...


class RandomBot:
    """Uniformly random among its legal actions (each distinct action equally likely)."""

    name = "random"
    catches = False

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        # 53 random bits modulo the number of moves: one C call per choice, and a bias
        # below 1e-14 for any list of moves a game can have.
        self._bits = rng.getrandbits

    def choose(self, game: Game, seat: int, moves: list[int]) -> int:
        """Pick uniformly among the moves of ``seat``."""
        if game.uno_seat >= 0:  # others' catches are listed too: keep our own moves
            moves = [m for m in moves if m >> 19 == seat]
        return moves[self._bits(53) % len(moves)]


def _color_counts(hand: bytes | bytearray) -> list[int]:
    counts = [0, 0, 0, 0, 0]
    for c in hand:
        counts[c >> 5] += 1
    return counts


class HeuristicBot:
    """Plays to win: dumps high cards, keeps wilds for later, hits the leader, says UNO,
    catches others, names its strongest colour and challenges when likely right."""

    name = "heuristic"
    catches = True

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def choose(self, game: Game, seat: int, moves: list[int]) -> int:
        """Score every own move and return the best (ties broken at random)."""
        own = [m for m in moves if m >> 19 == seat]
        for m in own:
            if m & 7 == CATCH:
                return m
        if len(own) == 1:
            return own[0]
        pend = game.pending
        if pend and pend[0][0] == OB_CHALLENGE:
            return self._challenge(game, own, pend[0][2])
        hand = game.hands[seat]
        best = own[0]
        best_score = -1e9
        for m in own:
            s = self._score(game, seat, hand, m) + self.rng.random() * 0.01
            if s > best_score:
                best, best_score = m, s
        return best

    def _leader(self, game: Game, seat: int) -> int:
        # The most dangerous opponent: fewest cards, then most points.
        others = [s for s in range(game.n) if s != seat]
        return min(others, key=lambda s: (len(game.hands[s]), -game.scores[s]))

    def _challenge(self, game: Game, own: list[int], challenged: int) -> int:
        # MK-20/21: a wrong challenge costs 6 instead of 4 -> worth it if P(right) > 1/3.
        # PP-13/14: 4 instead of 2 -> worth it if P(right) > 1/2. The chance the
        # challenged hand of h cards held a fitting card: about 1 - (1 - q)^h.
        h = len(game.hands[challenged])
        if game.variant == "mario-kart":
            p, needed = 1 - 0.75**h, 1 / 3
        else:
            p, needed = 1 - 0.65**h, 1 / 2
        want = CHALLENGE if p > needed else CHALLENGE + 1
        return next((m for m in own if m & 7 == want), own[0])

    def _score(self, game: Game, seat: int, hand: bytes | bytearray, m: int) -> float:
        verb = m & 7
        pts = game.points
        if verb == PLAY:
            card = m >> 3 & 255
            k = card & 31
            score = 10.0 + pts[card] * 0.5
            if card >> 5 == C.WILD:
                # Keep wilds for when nothing else fits, unless the hand is nearly empty.
                score -= 40 if len(hand) > 3 else 0
                col = m >> 11 & 7
                if col < 4:
                    counts = _color_counts(hand)
                    score += counts[col] * 3  # name the colour we hold most of
            else:
                counts = _color_counts(hand)
                score += counts[card >> 5]  # keep playing our strong colour
            nxt = (game.turn + game.direction) % game.n
            if k in (C.SKIP, C.DRAW2, C.DRAW1, C.HIT2, C.K_HIT4, C.K_WILD_DRAW4, C.K_WILD_DRAW2):
                score += 25 if len(game.hands[nxt]) <= 3 else 5
            if k == C.DISCARD_ALL:
                score += sum(1 for c in hand if c >> 5 == card >> 5) * 8
            tgt = m >> 14 & 15
            if tgt < 15:
                score += 10 if tgt == self._leader(game, seat) else 0
                if k == C.TRADE_HANDS or (card >> 5 == C.WILD and k != C.K_ATTACK_ATTACK):
                    score += (len(hand) - len(game.hands[tgt])) * 4
            if m & UNO_BIT:
                score += 50  # always say UNO
            return score
        if verb == PASS:
            return 0.0
        if verb in (DRAW, PRESS):
            return -5.0
        if verb == CHOOSE:
            col = m >> 11 & 7
            if col < 4:
                return float(_color_counts(hand)[col])
            tgt = m >> 14 & 15
            if tgt < 15:
                return 10.0 if tgt == self._leader(game, seat) else float(-len(game.hands[tgt]))
            if game.pending and game.pending[0][0] == OB_GIVE:
                card = m >> 3 & 255  # give away our most expensive non-wild card
                return pts[card] - (100 if card >> 5 == C.WILD else 0)
        return 0.0


BOTS: dict[str, type[RandomBot] | type[HeuristicBot]] = {
    "random": RandomBot,
    "heuristic": HeuristicBot,
}


def make_bot(name: str, rng: random.Random) -> Bot:
    """Build a bot by name (``random`` or ``heuristic``); ``ValueError`` otherwise."""
    try:
        cls = BOTS[name]
    except KeyError:
        raise ValueError(f"unknown bot {name!r} (one of {', '.join(BOTS)})") from None
    bot: Bot = cls(rng)
    return bot


@dataclass
class GameResult:
    """What one game came to."""

    winner: int
    actions: int
    rounds: int
    scores: list[int]


@dataclass
class RoundFigures:
    """One round as the table lives it (counted by :func:`play_game` when asked).

    ``turns``: actions of the player whose turn it is, at the start of a turn with nothing
    owed — one play, draw or press each (an owed press, the extra play after a Skip or
    Reverse, a colour choice, a challenge or a catch is not a turn). ``reloads``: presses
    that found the launcher's stock too short, so the discard pile was shuffled in (ATK-22).
    ``fires`` and ``cards``: the launcher's own counts, when it keeps them.
    """

    actions: int = 0
    turns: int = 0
    presses: int = 0
    reloads: int = 0
    fires: int = 0
    cards: int = 0


def _play_round_counted(
    game: Game, bots: Sequence[Bot], limit: int, catchers: list[int], fig: RoundFigures
) -> int:
    """Play the round to its end (or ``limit`` actions), counting turns and reloads."""
    actions = 0
    moves = game.moves
    step = game.step
    launcher = game.launcher
    fires0 = getattr(launcher, "fires", 0)
    cards0 = getattr(launcher, "cards", 0)
    presses0 = game.presses
    while game.phase < ROUND_OVER and actions < limit:
        ms = moves()
        u = game.uno_seat
        if u >= 0 and catchers and len(game.hands[u]) == 1:
            by = next((s for s in catchers if s != u), -1)
            if by >= 0:
                step(CATCH | by << 19 | u << 14)
                actions += 1
                continue
        pend = game.pending
        if pend:
            seat = pend[0][1]
        else:
            seat = game.turn
            if game.phase == TURN:
                fig.turns += 1
        m = bots[seat].choose(game, seat, ms)
        if m & 7 == PRESS:
            stock, got = len(game.stock), game.press_cards
            step(m)
            if game.press_cards - got > stock:
                fig.reloads += 1  # ATK-22: the launcher ran dry; the discard pile went in
        else:
            step(m)
        actions += 1
    fig.actions += actions
    fig.presses += game.presses - presses0
    fig.fires += getattr(launcher, "fires", 0) - fires0
    fig.cards += getattr(launcher, "cards", 0) - cards0
    return actions


def play_game(
    game: Game,
    bots: Sequence[Bot],
    max_actions: int = 2_000_000,
    round_figures: list[RoundFigures] | None = None,
) -> GameResult:
    """Play ``game`` to its end with one bot per seat; return the result.

    With a list as ``round_figures``, one :class:`RoundFigures` per round played is appended to it
    (every action then goes through the bots, without the engine's all-random fast path).
    Raises :class:`TurnCapError` if the game has not ended after ``max_actions`` actions.
    The game's undo journal is switched off (simulations never undo).
    """
    if len(bots) != game.n:
        raise ValueError(f"{game.n} players need {game.n} bots, not {len(bots)}")
    game.journal = None
    catchers = [s for s, b in enumerate(bots) if b.catches]
    actions = 0
    rounds = 1
    all_random = all(type(b) is RandomBot for b in bots) and round_figures is None
    bits = bots[0].rng.getrandbits if all_random else None  # type: ignore[attr-defined]
    while True:
        if bits is not None:
            # All seats random: the engine's own loop, as RandomBot.choose (fast path).
            actions += game.play_random(bits, max_actions - actions)
        else:
            fig = RoundFigures()
            if round_figures is not None:
                round_figures.append(fig)
            actions += _play_round_counted(game, bots, max_actions - actions, catchers, fig)
        if actions >= max_actions and game.phase < ROUND_OVER:
            raise TurnCapError(
                f"the game did not end within {max_actions} actions (round {game.round_no},"
                f" scores {game.scores}); raise the cap or report the seed"
            )
        if game.phase == GAME_OVER:
            return GameResult(game.game_winner, actions, rounds, list(game.scores))
        game.next_round()
        rounds += 1
