"""UNO Attack (ATK-1..ATK-26): the launcher is the stock; presses instead of draws.

The variant's rules on top of :class:`~unolaunch.rules.game.Game` (what all variants share).
"""

from __future__ import annotations

from typing import Any

from unolaunch import cards as C
from unolaunch.cards import COLOR_NAMES, UNKNOWN, card_code, color_word, parse_card
from unolaunch.i18n import N_, Nn_, _, pgettext
from unolaunch.rules.actions import Action
from unolaunch.rules.errors import IllegalMoveError
from unolaunch.rules.game import (
    EXTRA,
    MATCH,
    NO_COLOR,
    NO_SEAT,
    OB_COLOR,
    OB_PRESS,
    OB_TARGET,
    OB_UNTIL,
    PRESS,
    TGT_ATTACK,
    TGT_TRADE,
    TURN,
    UNO_BIT,
    Both,
    Game,
)

__all__ = ["AttackGame"]


class AttackGame(Game):
    """UNO Attack: the launcher is the stock; presses instead of draws (ATK-1..ATK-26)."""

    variant = "attack"
    turn_verbs = ("play", "press")
    turn_rule = "ATK-5"
    extra_play = True
    pass_rule = "ATK-8"
    pass_why = N_("passing is only for declining the extra play after a Skip or Reverse")
    challenge_rule = "ATK-14"

    def _install_effects(self) -> None:
        fx = self._fx
        fx[C.SKIP] = self._fx_skip
        fx[C.REVERSE] = self._fx_reverse
        fx[C.HIT2] = self._fx_hit2
        fx[C.DISCARD_ALL] = self._fx_discard_all
        fx[C.TRADE_HANDS] = self._fx_trade
        fx[C.K_WILD] = self._fx_wild
        fx[C.K_HIT4] = self._fx_hit4
        fx[C.K_ATTACK_ATTACK] = self._fx_attack_attack
        fx[C.K_HIT_FIRE] = self._fx_hit_fire
        fx[C.K_ALL_HIT] = self._fx_all_hit
        fx[C.K_CUSTOMIZABLE] = {
            "wild": self._fx_wild,
            "hit-4": self._fx_hit4,
            "attack-attack": self._fx_attack_attack,
            "hit-fire": self._fx_hit_fire,
            "all-hit": self._fx_all_hit,
            "trade-hands": self._fx_trade_wild,
        }[self.options["customizable"]]  # ATK-16
        self._custom = self.options["customizable"]
        self._turn_move = 0 if self.options["strict_press"] else PRESS

    def _special_moves(
        self, out: list[int], c: int, by: int, seat: int, hand: bytearray, uno: bool
    ) -> None:
        mv = c << 3 | NO_COLOR << 11 | NO_SEAT << 14 | by
        if c & 31 == C.DISCARD_ALL:
            out.append(mv)
            col = c >> 5
            if self.hidden or sum(1 for x in hand if x >> 5 != col) == 1:
                out.append(mv | UNO_BIT)  # ATK-12: what is left may be one card
            return
        for t in range(self.n):  # Trade Hands (ATK-19): one move per opponent
            if t != seat:
                tm = c << 3 | NO_COLOR << 11 | t << 14 | by
                out.append(tm)
                if uno:
                    out.append(tm | UNO_BIT)

    def _start_effect(self, card: int) -> None:
        # ATK-4 and its Decisions.
        k = card & 31
        first = self.turn
        if k == C.HIT2:
            self.pending.append((OB_PRESS, first, 2, 0, "ATK-4"))
            self.turn = (first + 1) % self.n
        elif k == C.SKIP:
            self.turn = (first + 1) % self.n
        elif k == C.REVERSE:
            self.direction = -1
            self.turn = self.dealer
        elif card >> 5 == C.WILD:
            self.pending.append((OB_COLOR, first, 0, 0, "ATK-4"))

    def _turn_verb_list(self, seat: int) -> tuple[str, ...]:
        if self.options["strict_press"] and self._can_match(seat):
            return ("play",)
        return self.turn_verbs

    def _can_match(self, seat: int) -> bool:
        m = MATCH[self._key]
        return any(m[c] for c in self.hands[seat])

    # -- ATK-8: the extra play after a Skip or Reverse ----------------------------------
    def _after_skip(self, seat: int) -> None:
        if not self.hands[seat]:
            self._end_turn()
            return
        self.phase = EXTRA  # ATK-8: one more play, optional
        if self.n == 2:
            # ATK-8 Decision (two players): the opponent is the one skipped and the extra
            # play *is* the "play again" (COM-3). The skip is spent on it: after the extra
            # card (or a pass) the turn passes as that card says — to the opponent after a
            # number, back to the same player after a Hit 2 / Wild Hit 4 / Skip.
            self._skips = 0

    def _skip_next(self) -> int:
        # ATK-8 Decision: a card that targets "the next player" never targets its own
        # player (when every other player is skipped already, the next one round the table).
        s = self._next_opponent()
        self._skips |= 1 << s
        return s

    def _next_opponent(self) -> int:
        """The next player (COM-9), but never the player whose turn it is (ATK-8 Decision)."""
        s = self._next_seat()
        return s if s != self.turn else (self.turn + self.direction) % self.n

    def _turn_extra_moves(self, out: list[int], by: int) -> None:
        if not (self.options["strict_press"] and self._can_match(by >> 19)):
            out.append(PRESS | by)

    def _wild_moves(self, out: list[int], c: int, by: int, seat: int, uno_size: int) -> None:
        k = c & 31
        needs_target = k == C.K_ATTACK_ATTACK or (
            k == C.K_CUSTOMIZABLE and self._custom in ("attack-attack", "trade-hands")
        )
        if not needs_target:
            super()._wild_moves(out, c, by, seat, uno_size)
            return
        for t in range(self.n):
            if t == seat:
                continue
            for col in range(4):
                mv = c << 3 | col << 11 | t << 14 | by
                out.append(mv)
                if uno_size == 2:
                    out.append(mv | UNO_BIT)

    def _check_play_extras(self, a: Action, by: int, card: int, target: int) -> None:
        k = card & 31
        targeted = k in (C.K_ATTACK_ATTACK, C.TRADE_HANDS) or (
            k == C.K_CUSTOMIZABLE and self._custom in ("attack-attack", "trade-hands")
        )
        if a.target is not None:
            if not targeted:
                raise self._illegal("ACTION", a, N_("{card} takes no target"), card=a.card)
            if target == by:
                rule = "ATK-19" if k == C.TRADE_HANDS or self._custom == "trade-hands" else "ATK-15"
                raise self._illegal(rule, a, N_("the target must be another player"))
        if a.give is not None:
            raise self._illegal("ACTION", a, N_("{card} gives no card"), card=a.card)
        if a.discarded is not None:
            if k != C.DISCARD_ALL:
                raise self._illegal("ACTION", a, N_("only a Discard All discards other cards"))
            col = card >> 5
            for code in a.discarded:
                c = parse_card(code)
                if c == UNKNOWN and self.hidden:
                    continue  # ATK-12, hidden hands: one more card of its colour, unseen
                if c >> 5 != col:
                    raise self._illegal(
                        "ATK-12",
                        a,
                        N_("{card} is not {colour}"),
                        card=code,
                        colour=Both(COLOR_NAMES[col], color_word(col, "card")),
                    )
            if self.hidden and len(a.discarded) > len(self.hands[by]) - 1:
                raise self._illegal(
                    "ATK-12", a, N_("{who} does not hold that many cards"), who=a.by
                )
            if not self.hidden:
                held = sorted(c for c in self.hands[by] if c >> 5 == col)
                held.remove(card)
                if sorted(parse_card(x) for x in a.discarded) != held:
                    raise self._illegal(
                        "ATK-12",
                        a,
                        N_("Discard All takes every other card of its colour: {cards}"),
                        cards=Both(
                            " ".join(card_code(c) for c in held) or "none",
                            " ".join(card_code(c) for c in held) or pgettext("cards", "none"),
                        ),
                    )

    # -- presses --------------------------------------------------------------------
    def _make_draw(self, seat: int, k: int, rule: str) -> None:
        self.pending.append((OB_PRESS, seat, k, 0, rule))  # ATK-25: presses, not draws
        if self._log is not None:
            who = self.players[seat]
            text = Nn_(
                "{who} must press the launcher {n} time ({rule})",
                "{who} must press the launcher {n} times ({rule})",
            )
            self._note("owe", who, text, who=who, n=k, rule=rule)

    def _uno_penalty(self, seat: int) -> None:
        self.pending.insert(0, (OB_PRESS, seat, 2, 0, "ATK-20"))

    def _check_draw_or_press(self, a: Action, by: int) -> None:
        if a.verb == "draw":
            raise self._illegal("ATK-5", a, N_("nobody draws in UNO Attack: press the launcher"))
        if self.phase != TURN:
            raise self._illegal(
                "ATK-26",
                a,
                N_("no press is owed: after a Skip or Reverse play one more card or pass"),
            )
        if self.options["strict_press"] and self._can_match(by):
            raise self._illegal("ATK-6", a, N_("strict pressing: a player who can match must play"))
        self._do_press(by, a.cards)
        self._pressed = by

    def _do_press(self, seat: int, cards: int | None) -> None:
        if cards is None:
            if self.launcher is None:
                who = self.players[seat]
                raise IllegalMoveError(
                    "ATK-25",
                    f"{who}: press: no launcher is connected: say how many cards"
                    ' came out, e.g. {"press": true, "cards": 2}',
                    why=_("no launcher is connected: say how many cards came out"),
                )
            cards = self.launcher.press(self.players[seat])
        got = self._draw(seat, cards)
        self.presses += 1
        self.press_cards += got
        pend = self.pending
        if pend and pend[0][1] == seat and pend[0][0] <= OB_UNTIL:
            kind, s, left, b, rule = pend[0]
            if kind == OB_PRESS:
                if left > 1:
                    pend[0] = (kind, s, left - 1, b, rule)
                else:
                    pend.pop(0)
            elif got or (not self.stock and len(self.discard) <= 1):
                pend.pop(0)  # ATK-17 done (or nothing left anywhere to come out)
        else:
            self._end_turn()  # ATK-7: the press ends the turn

    # -- card effects ---------------------------------------------------------------
    def _fx_hit2(self, seat: int, card: int, color: int, target: int, extra: Any) -> None:
        self._owe_draw_next(2, "ATK-11")

    def _fx_hit4(self, seat: int, card: int, color: int, target: int, extra: Any) -> None:
        self._name_color(seat, color)
        self._owe_draw_next(4, "ATK-14")

    def _fx_discard_all(self, seat: int, card: int, color: int, target: int, extra: Any) -> None:
        # ATK-12: every other card of its colour goes under it.
        hand = self.hands[seat]
        col = card >> 5
        if self.hidden:
            shed = [parse_card(x) for x in extra.discarded] if extra and extra.discarded else []
            for _card in shed:
                hand.remove(UNKNOWN)
        else:
            shed = [c for c in hand if c >> 5 == col]
            if shed:
                hand[:] = [c for c in hand if c >> 5 != col]
        if shed:
            d = self.discard
            d[len(d) - 1 : len(d) - 1] = shed
            if self._log is not None:
                named = [card_code(c) for c in shed if c != UNKNOWN]
                unseen = len(shed) - len(named)
                cards = " ".join(named)
                who = self.players[seat]
                if unseen and named:  # hidden hands: the table gave only how many (ATK-12)
                    text = Nn_(
                        "also discarded: {cards} {n} more {colour} card",
                        "also discarded: {cards} {n} more {colour} cards",
                    )
                    self._note("discard", who, text, cards=cards, n=unseen, colour=col)
                elif unseen:
                    text = Nn_(
                        "also discarded: {n} more {colour} card",
                        "also discarded: {n} more {colour} cards",
                    )
                    self._note("discard", who, text, n=unseen, colour=col)
                else:
                    self._note("discard", who, N_("also discarded: {cards}"), cards=cards)
        self._end_turn()

    def _fx_trade(self, seat: int, card: int, color: int, target: int, extra: Any) -> None:
        self._trade(seat, target)
        self._end_turn()

    def _fx_trade_wild(self, seat: int, card: int, color: int, target: int, extra: Any) -> None:
        self._name_color(seat, color)
        self._fx_trade(seat, card, color, target, extra)

    def _trade(self, seat: int, target: int) -> None:
        # ATK-19; Decision: a Trade Hands that empties the hand ends the round, no swap.
        if not self.hands[seat]:
            return
        if target == NO_SEAT:
            self.pending.append((OB_TARGET, seat, TGT_TRADE, 0, "ATK-19"))
            return
        h = self.hands
        h[seat], h[target] = h[target], h[seat]
        if self._log is not None:
            self._note(
                "trade",
                self.players[seat],
                N_("{who} and {other} swap hands"),
                who=self.players[seat],
                other=self.players[target],
            )

    def _fx_attack_attack(self, seat: int, card: int, color: int, target: int, extra: Any) -> None:
        # ATK-15: colour, then any one other player presses twice; no turn lost.
        self._name_color(seat, color)
        if target != NO_SEAT:
            self._make_draw(target, 2, "ATK-15")
        else:
            self.pending.append((OB_TARGET, seat, TGT_ATTACK, 0, "ATK-15"))
        self._end_turn()

    def _fx_hit_fire(self, seat: int, card: int, color: int, target: int, extra: Any) -> None:
        # ATK-17: the next player presses until at least one card comes out.
        self._name_color(seat, color)
        nxt = self._skip_next()
        self.pending.append((OB_UNTIL, nxt, 0, 0, "ATK-17"))
        self._end_turn()

    def _fx_all_hit(self, seat: int, card: int, color: int, target: int, extra: Any) -> None:
        # ATK-18: everyone presses once, in turn order from the next player.
        self._name_color(seat, color)
        nxt = self._next_opponent()  # ATK-8 Decision: the next player is an opponent
        for i in range(self.n):
            s = (nxt + self.direction * i) % self.n
            if s != seat or len(self.hands[seat]) > 0:
                self.pending.append((OB_PRESS, s, 1, 0, "ATK-18"))
        self._end_turn()

    def _target_chosen(self, seat: int, purpose: int, target: int) -> None:
        if purpose == TGT_ATTACK:
            self.pending.insert(0, (OB_PRESS, target, 2, 0, "ATK-15"))
        else:
            h = self.hands
            h[seat], h[target] = h[target], h[seat]
