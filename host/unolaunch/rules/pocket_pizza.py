"""UNO Pocket Pizza Pizza (PP-1..PP-19): 52 cards, Wild Dip Into The Deck, Wild Draw 2.

The variant's rules on top of :class:`~unolaunch.rules.game.Game` (what all variants share).
"""

from __future__ import annotations

from typing import Any

from unolaunch import cards as C
from unolaunch.cards import UNKNOWN, card_code, parse_card
from unolaunch.i18n import N_, _
from unolaunch.rules.actions import Action
from unolaunch.rules.errors import IllegalMoveError
from unolaunch.rules.game import (
    MATCH,
    OB_CHALLENGE,
    OB_COLOR,
    OB_GIVE,
    Game,
)

__all__ = ["PocketPizzaGame"]


class PocketPizzaGame(Game):
    """UNO Pocket Pizza Pizza: 52 cards, Wild Dip Into The Deck, Wild Draw 2 (PP-1..19)."""

    variant = "pocket-pizza"
    deal_size = 5
    max_players = 5
    turn_rule = "PP-6"
    pass_rule = "PP-7"
    challenge_rule = "PP-13"
    uno_rule = "PP-15"

    def _install_effects(self) -> None:
        fx = self._fx
        fx[C.SKIP] = self._fx_skip
        fx[C.REVERSE] = self._fx_reverse
        fx[C.DRAW1] = self._fx_draw1
        fx[C.K_WILD] = self._fx_wild
        fx[C.K_DIP] = self._fx_dip
        fx[C.K_WILD_DRAW2] = self._fx_wd2

    def _start_effect(self, card: int) -> None:
        # PP-4 and its Decisions.
        k = card & 31
        first = self.turn
        if k == C.SKIP:
            self.turn = (first + 1) % self.n
        elif k == C.DRAW1:
            self._draw(first, 1)
            self.turn = (first + 1) % self.n
        elif k == C.REVERSE:
            self.direction = -1
            self.turn = self.dealer
        elif k == C.K_WILD_DRAW2:
            self.pending.append((OB_COLOR, first, 0, 0, "PP-4"))
            self._draw(first, 2)
            self.turn = (first + 1) % self.n
        elif card >> 5 == C.WILD:
            self.pending.append((OB_COLOR, first, 0, 0, "PP-4"))

    def _fx_draw1(self, seat: int, card: int, color: int, target: int, extra: Any) -> None:
        self._owe_draw_next(1, "PP-9")

    def _fx_wd2(self, seat: int, card: int, color: int, target: int, extra: Any) -> None:
        prev_color, prev_top = self.color, self.discard[-2]
        self._name_color(seat, color)
        hand = self.hands[seat]
        if not hand:
            self._owe_draw_next(2, "PP-16")  # PP-16: the next player must still draw
            return
        nxt = self._next_seat()
        if self.hidden:
            guilty = -1
        else:
            # PP-13: could they have played any other card on the card beneath?
            m = MATCH[prev_color * 32 + (31 if prev_top >> 5 == C.WILD else prev_top & 31)]
            wilds = self.options["challenge_wilds_count"]
            guilty = int(any(m[c] and (wilds or c >> 5 != C.WILD) for c in hand))
        self.pending.append((OB_CHALLENGE, nxt, seat, guilty, "PP-13"))
        self._end_turn()

    def _resolve_challenge(self, seat: int, challenged: int, challenge: bool, guilty: int) -> None:
        if not challenge:
            self._draw(seat, 2)  # PP-12
            self.turn = (self.turn + self.direction) % self.n
        elif guilty:
            self._draw(challenged, 2)  # PP-13 (Decision: the challenger then plays)
        else:
            self._draw(seat, 4)  # PP-14
            self.turn = (self.turn + self.direction) % self.n
        if self._log is not None and challenge:
            who = self.players[seat]
            text = N_("{who} challenges: right") if guilty else N_("{who} challenges: wrong")
            self._note("challenge", who, text, who=who)

    def _fx_dip(self, seat: int, card: int, color: int, target: int, extra: Any) -> None:
        # PP-11: name the colour, draw one, give one card to the next player (who keeps
        # their turn). Decision: on the last card nothing is drawn or given (COM-7).
        self._name_color(seat, color)
        hand = self.hands[seat]
        nxt = self._next_seat()
        if hand:
            self._draw(seat, 1)
            give = extra.give if extra is not None else None
            if self.hidden:
                self._give(seat, nxt, UNKNOWN)
            elif give is None:
                self.pending.append((OB_GIVE, seat, nxt, 0, "PP-11"))
            else:
                c = parse_card(give)
                if c not in hand:
                    raise IllegalMoveError(
                        "PP-11",
                        f"{extra}: {give} is not in the hand after drawing {self.describe()}",
                        why=_("{card} is not in the hand after drawing").format(card=give),
                        action=extra,
                    )
                self._give(seat, nxt, c)
        self._end_turn()

    def _give(self, seat: int, to: int, card: int) -> None:
        hand = self.hands[seat]
        hand.remove(card)
        self.hands[to].append(card)

        if self._log is not None:
            self._note(
                "give",
                self.players[seat],
                # TRANSLATORS: {card} is "?" for a card nobody saw (hidden hands): the table
                # drops a trailing "?", so keep {card} last, or after "gives".
                N_("{who} gives {card} to {other}"),
                who=self.players[seat],
                card=card_code(card),
                other=self.players[to],
            )

    def _check_play_extras(self, a: Action, by: int, card: int, target: int) -> None:
        if a.give is not None and card & 31 != C.K_DIP:
            raise self._illegal("ACTION", a, N_("{card} gives no card"), card=a.card)
        if a.target is not None:
            raise self._illegal("ACTION", a, N_("{card} takes no target"), card=a.card)
