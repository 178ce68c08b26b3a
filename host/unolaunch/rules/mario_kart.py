"""UNO Mario Kart (MK-1..MK-25): items fired by the Wild Item Box, the Wild Draw Four
challenge.

The variant's rules on top of :class:`~unolaunch.rules.game.Game` (what all variants share).
"""

from __future__ import annotations

from typing import Any

from unolaunch import cards as C
from unolaunch.cards import UNKNOWN, card_code, parse_card
from unolaunch.i18n import N_
from unolaunch.rules.actions import Action
from unolaunch.rules.game import (
    NO_COLOR,
    NO_SEAT,
    NOT_OF_COLOR,
    OB_CHALLENGE,
    OB_COLOR,
    OB_TARGET,
    OB_TOP,
    OB_TURNED,
    TGT_SHELL,
    UNO_BIT,
    Game,
)

__all__ = ["MarioKartGame"]


class MarioKartGame(Game):
    """UNO Mario Kart: items fired by the Wild Item Box, Wild Draw Four challenge (MK-1..25)."""

    variant = "mario-kart"
    turn_rule = "MK-8"
    uno_rule = "MK-22"

    def _install_effects(self) -> None:
        fx = self._fx
        fx[C.SKIP] = self._fx_skip
        fx[C.REVERSE] = self._fx_reverse
        fx[C.DRAW2] = self._fx_draw2
        fx[C.K_WILD_DRAW4] = self._fx_wd4
        fx[C.K_ITEM_BOX] = self._fx_item_box

    def _turn_start_card(self) -> None:
        while True:
            if not self.stock:
                raise ValueError("no card left to start the discard pile")
            card = self.stock.pop()
            if card & 31 != C.K_WILD_DRAW4:
                break
            # MK-4: never start on a Wild Draw Four: back into the stock, turn again.
            self.stock.append(card)
            self._shuffle(self.stock)
            self._note("start", None, N_("a Wild Draw Four is turned: shuffled back (MK-4)"))
        self._begin_round(card)

    def _start_effect(self, card: int) -> None:
        # MK-4..MK-6
        k = card & 31
        first = self.turn
        if k == C.K_WILD_DRAW4:  # hidden hands: the table turned it; turn again
            self.discard.pop()
            self.stock.append(UNKNOWN)
            self.pending.append((OB_TOP, self.dealer, 0, 0, "MK-4"))
            self._note(
                "start",
                self.players[self.dealer],
                N_(
                    "a Wild Draw Four never starts the pile: shuffle it back into the stock and "
                    "turn another (MK-4)"
                ),
            )
        elif k == C.K_ITEM_BOX:
            self.pending.append((OB_COLOR, self.dealer, 0, 0, "MK-5"))
        elif k == C.REVERSE:
            self.direction = -1
            self.turn = self.dealer
        elif k == C.DRAW2:
            self._draw(first, 2)
            self.turn = (first + 1) % self.n
        elif k == C.SKIP:
            self.turn = (first + 1) % self.n

    def _fx_draw2(self, seat: int, card: int, color: int, target: int, extra: Any) -> None:
        self._owe_draw_next(2, "MK-10")

    def _fx_wd4(self, seat: int, card: int, color: int, target: int, extra: Any) -> None:
        # MK-12; MK-23: on the last card there is nothing to challenge, the draw happens.
        prev_color = self.color  # a wild leaves the colour alone until it is named
        self._name_color(seat, color)
        hand = self.hands[seat]
        if not hand:
            self._owe_draw_next(4, "MK-23")
            return
        nxt = self._next_seat()
        # MK-20: did they hold a card of the colour to match before it?
        guilty = -1 if self.hidden else int(bool(hand.translate(None, NOT_OF_COLOR[prev_color])))
        self.pending.append((OB_CHALLENGE, nxt, seat, guilty, "MK-20"))
        self._end_turn()

    def _resolve_challenge(self, seat: int, challenged: int, challenge: bool, guilty: int) -> None:
        if not challenge:
            self._draw(seat, 4)  # MK-12: accept: draw four, lose the turn
            self.turn = (self.turn + self.direction) % self.n
        elif guilty:
            self._draw(challenged, 4)  # MK-20: the challenger then plays normally
        else:
            self._draw(seat, 6)  # MK-21
            self.turn = (self.turn + self.direction) % self.n
        if self._log is not None:
            who = self.players[seat]
            if challenge:
                text = N_("{who} challenges: right") if guilty else N_("{who} challenges: wrong")
                self._note("challenge", who, text, who=who)

    def _fx_item_box(self, seat: int, card: int, color: int, target: int, extra: Any) -> None:
        # MK-13: turn the top card of the stock; its item fires.
        if self.hidden:
            turned = extra.turned if extra is not None else None
            if turned is None:
                # asked next; until then there is no colour to match (MK-13: the turned
                # card's colour will be), not the one before the Item Box
                self._set_top(self.discard[-1], C.WILD)
                self.pending.append((OB_TURNED, seat, target, color, "MK-13"))
                return
            self._item_reported(seat, turned, color, target)
            return
        if not self.stock and not self._refill():
            # Decision: nothing to turn: the Item Box is a plain Wild.
            self._note(
                "item", self.players[seat], N_("nothing to turn: the Item Box acts as a Wild")
            )
            self._name_color(seat, color)
            self._end_turn()
            return
        self._item_turned(seat, self.stock.pop(), color, target)

    def _item_reported(self, seat: int, turned: str, color: int, target: int) -> None:
        # Hidden hands: the table reports the card the Item Box turned (with the play, or
        # when asked). Either way it is the top card of the stock that was turned (MK-13):
        # one path, so the stock loses it both ways (issue 34, item 2).
        if self.stock or self._refill():
            self.stock.pop()
        self._item_turned(seat, parse_card(turned), color, target)

    def _item_turned(self, seat: int, t: int, color: int, target: int) -> None:
        self.discard.append(t)
        hand = self.hands[seat]
        tc = t >> 5
        log = self._log is not None
        if tc == C.WILD:
            # MK-18 Bob-omb: the Item Box player draws two and names the colour.
            self._set_top(t, C.WILD)
            if log:
                self._note(
                    "item",
                    self.players[seat],
                    N_("the Item Box turns {card}: Bob-omb"),
                    card=card_code(t),
                )
            if hand:
                self._draw(seat, 2)
                self._name_color(seat, color)
            self._end_turn()
            return
        self._set_top(t, tc)  # MK-13: its colour is the colour to match; MK-19 no action
        if log:
            text = (
                N_("the Item Box turns {card}: Mushroom"),
                N_("the Item Box turns {card}: Banana"),
                N_("the Item Box turns {card}: Green Shell"),
                N_("the Item Box turns {card}: Lightning"),
            )[tc]
            self._note("item", self.players[seat], text, card=card_code(t))
        if tc == 0:  # MK-14 Mushroom: another turn at once
            self._turn_again()
            return
        elif tc == 1:  # MK-15 Banana: the previous player draws two
            self._draw((seat - self.direction) % self.n, 2)
        elif tc == 2:  # MK-16 Green Shell: one opponent of the player's choice draws one
            if target != NO_SEAT and target != seat:
                self._draw(target, 1)
            else:
                self.pending.append((OB_TARGET, seat, TGT_SHELL, 0, "MK-16"))
        else:  # MK-17 Lightning: every other player draws one; another turn
            for s in range(self.n):
                if s != seat:
                    self._draw(s, 1)
            self._turn_again()
            return
        self._end_turn()

    def _target_chosen(self, seat: int, purpose: int, target: int) -> None:
        self._draw(target, 1)  # MK-16

    def _check_play_extras(self, a: Action, by: int, card: int, target: int) -> None:
        if card & 31 == C.K_ITEM_BOX:
            if target == by:
                raise self._illegal("MK-16", a, N_("the Green Shell's target is an opponent"))
            return
        if a.turned is not None:
            raise self._illegal("ACTION", a, N_("only a Wild Item Box turns a card"))
        super()._check_play_extras(a, by, card, target)

    def _wild_moves(self, out: list[int], c: int, by: int, seat: int, uno_size: int) -> None:
        if c & 31 == C.K_ITEM_BOX:  # colour and target are asked for only if needed
            mv = c << 3 | NO_COLOR << 11 | NO_SEAT << 14 | by
            out.append(mv)
            if uno_size == 2:
                out.append(mv | UNO_BIT)
        else:
            super()._wild_moves(out, c, by, seat, uno_size)
