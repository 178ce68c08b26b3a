"""The rules engine's base: what all three variants share, in :class:`Game`.

One :class:`Game` per game, a subclass per variant in its own module — :mod:`.attack`,
:mod:`.mario_kart`, :mod:`.pocket_pizza` (as python-chess keeps its base board in one
module and its variants in another); :mod:`unolaunch.rules.engine` gathers them.

Pure and deterministic: no I/O, no clock; randomness comes only from the injected
``random.Random`` (shuffles, the first dealer) and from the launcher (UNO Attack presses).

Two interfaces share one implementation of the rules:

* the public one — :meth:`Game.apply` (an :class:`~unolaunch.rules.actions.Action` or its
  dict), :attr:`Game.awaiting`, :meth:`Game.legal_actions`, :meth:`Game.undo`,
  :meth:`Game.snapshot` — validates every action, raises :class:`IllegalMoveError` with the
  state unchanged, journals for undo and returns printable :class:`Effect` records;
* the fast one used by bots and the simulator — :meth:`Game.moves` returns the legal
  actions as small ints, :meth:`Game.step` applies one without validation or journaling.
  :meth:`Game.move_action` / :meth:`Game.action_move` convert between the two;
  :meth:`Game.play_random` is the fused loop of uniformly random moves (random bots).

Internally cards are ints (see :mod:`unolaunch.cards`); the stock is a list whose *last*
element is the top card; the discard pile's last element is the top card.

Hidden hands
------------
``Game.new(..., hidden_hands=True)`` runs a real table where nobody types their hand.
Hands hold :data:`~unolaunch.cards.UNKNOWN` cards (code ``?``) and the stock is a count of
unknown cards. Plays are trusted (a played card replaces one unknown card of the hand, but
must still match the top card), draws and presses add unknown cards. Facts only the table
knows travel with the actions:

* round start: the dealer reports the card turned to start the discard pile,
  ``{"by": DEALER, "choose": {"top": "r5"}}`` (asked again after a Mario Kart Wild Draw
  Four is put back, MK-4);
* UNO Attack press: ``{"press": true, "cards": k}`` (else the launcher is asked);
* Discard All: ``"discarded": [cards]`` on the play, the other cards it took out (ATK-12);
* Wild Item Box: ``"turned": CARD`` on the play, or afterwards
  ``{"choose": {"turned": CARD}}`` (MK-13);
* Wild Dip Into The Deck: the drawn and given cards are unknown; ``give`` may be omitted;
* challenge: ``"won": true|false`` on the challenge, or afterwards
  ``{"choose": {"won": ...}}`` — true when the challenged player's hand, shown to the
  challenger, made the challenge succeed (MK-20/MK-21, PP-13/PP-14);
* round end: the winner (or whoever types for the table) gives each opponent's cards or
  point total, ``{"choose": {"hands": {"Bob": ["r1", "W"]}}}`` or
  ``{"choose": {"points": {"Bob": 51, "Cy": 0}}}``;
* hand-size correction at any time: ``{"by": ANY, "correct": {"Bob": 5}}`` (cards come from
  or go back to the stock; journaled and undoable like any action).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping, Sequence
from typing import Any, ClassVar, NamedTuple

from unolaunch import cards as C
from unolaunch.cards import COLOR_NAMES, UNKNOWN, card_code, color_word, parse_card
from unolaunch.i18n import N_, Nn_, _, ngettext, pgettext
from unolaunch.rules.actions import Action
from unolaunch.rules.errors import IllegalMoveError
from unolaunch.rules.launcher import Launcher, PatternLauncher
from unolaunch.rules.options import resolve_options

__all__ = ["VARIANTS", "Effect", "Game", "TurnCapError"]

VARIANTS = ("attack", "mario-kart", "pocket-pizza")
#: The variants' classes by name: each registers as its module defines it (see
#: :meth:`Game.__init_subclass__`); :mod:`unolaunch.rules` imports all three.
_VARIANT_CLASSES: dict[str, type[Game]] = {}

# Move encoding (fast interface): verb | card << 3 | colour << 11 | target << 14 |
# uno << 18 | by << 19. Colour 7 and target 15 mean "none".
PLAY, DRAW, PRESS, PASS, CHALLENGE, ACCEPT, CHOOSE, CATCH = range(8)
VERB_NAMES = ("play", "draw", "press", "pass", "challenge", "accept", "choose", "catch")
NO_COLOR = 7
NO_SEAT = 15
UNO_BIT = 1 << 18

# Phases of the player whose turn it is.
TURN, AFTER_DRAW, EXTRA, ROUND_OVER, GAME_OVER = range(5)

# Obligations: decisions or duties that come before the turn goes on. A tuple
# (kind, seat, a, b, rule).
OB_PRESS = 0  # a = presses owed
OB_UNTIL = 1  # Wild Hit Fire: press until a card comes out
OB_CHALLENGE = 2  # a = challenged seat, b = 1 guilty / 0 innocent / -1 unknown (hidden)
OB_COLOR = 3  # name the colour
OB_TARGET = 4  # a = purpose (TGT_*)
OB_GIVE = 5  # a = recipient
OB_TOP = 6  # hidden: the dealer reports the start card
OB_REVEAL = 7  # hidden: the winner reports the losers' cards or points
OB_TURNED = 8  # hidden: the Item Box card; a = target given in advance, b = colour
OB_VERDICT = 9  # hidden: challenge outcome; a = challenged seat
TGT_ATTACK, TGT_SHELL, TGT_TRADE = range(3)
_OB_VERBS: dict[int, tuple[str, ...]] = {
    OB_PRESS: ("press",),
    OB_UNTIL: ("press",),
    OB_CHALLENGE: ("challenge", "accept"),
}

Obligation = tuple[int, int, int, int, str]


class Effect(NamedTuple):
    """One printable thing that happened: ``kind`` (a short tag), ``player``, ``text`` (in
    the language current when it happened), and the message as data — ``msg`` its catalog
    id(s) (``(msgid,)``, or ``(singular, plural)`` counted by the field ``n``) and
    ``fields`` its values (names, card codes, counts, rule ids; a ``colour`` as 0-4) — so
    that each screen puts it in words in its own language (:meth:`words`)."""

    kind: str
    player: str | None
    text: str
    msg: tuple[str, ...] = ()
    fields: tuple[tuple[str, Any], ...] = ()

    def __str__(self) -> str:
        return self.text

    def words(self) -> str:
        """The effect in the current language (its ``text`` when it has no message)."""
        return message_words(self.msg, dict(self.fields)) if self.msg else self.text


def message_words(msg: Sequence[str], fields: Mapping[str, Any]) -> str:
    """A message kept as data (``msg``: ``(msgid,)`` or ``(singular, plural)`` counted by
    ``fields["n"]``) in the current language; a ``colour`` field (0-3, 4 for none) is put
    in words, every other field is shown as it is."""
    template = ngettext(msg[0], msg[1], int(fields.get("n", 0))) if len(msg) == 2 else _(msg[0])
    return template.format(
        **{k: colour_field(v).tr if k == "colour" else v for k, v in fields.items()}
    )


class Both(NamedTuple):
    """A field of an engine message in English (the message every log and scenario file
    compares) and in the players' language (what the table shows)."""

    en: str
    tr: str


def both(msg: str, tr: str | None = None, **fields: Any) -> tuple[str, str]:
    """``msg`` (marked with ``N_``) filled in English, and translated (``tr``: an already
    translated template, e.g. from ``ngettext``), each with its form of the :class:`Both`
    fields."""
    en = msg.format(**{k: v.en if isinstance(v, Both) else v for k, v in fields.items()})
    text = (_(msg) if tr is None else tr).format(
        **{k: v.tr if isinstance(v, Both) else v for k, v in fields.items()}
    )
    return en, text


def colour_field(color: int) -> Both:
    """A colour named in a message: ``red`` / the language's noun (``rauður``)."""
    return (
        Both(COLOR_NAMES[color], color_word(color))
        if color < 4
        else Both("none", pgettext("colour", "none"))
    )


class TurnCapError(RuntimeError):
    """A game ran past its action cap without ending (a safety net, never a rule)."""


def _build_match_tables() -> list[bytes]:
    # MATCH[colour * 32 + top kind] -> bytes: 1 where a card id may be played (COM-2).
    # Top kind 31 stands for a wild top card: then only the named colour matches.
    valid = [bool(card_code(c)) and c != UNKNOWN for c in range(C.N_IDS)]
    tables = []
    for col in range(5):
        for tk in range(32):
            row = bytearray(C.N_IDS)
            for c in range(C.N_IDS):
                if not valid[c]:
                    continue
                cc, ck = c >> 5, c & 31
                if cc == C.WILD or (col < 4 and cc == col) or (tk < 27 and ck == tk):
                    row[c] = 1
            tables.append(bytes(row))
    return tables


MATCH = _build_match_tables()
#: The complement of MATCH as bytes.translate() delete tables: filtering a hand
#: (a bytearray) to its playable cards then runs in C.
NONMATCH = [bytes(c for c in range(256) if c >= C.N_IDS or not t[c]) for t in MATCH]
#: 1 for coloured cards whose moves need more than the card (Discard All, Trade Hands).
SPECIAL = bytes(
    1 if c < 128 and c & 31 in (C.DISCARD_ALL, C.TRADE_HANDS) else 0 for c in range(C.N_IDS)
)
#: Delete tables keeping only the playable *plain* cards (not wild, not special) ...
NONMATCH_PLAIN = [
    bytes(c for c in range(256) if c >= C.N_IDS or not t[c] or c >= 128 or SPECIAL[c])
    for t in MATCH
]
#: The move int of playing a plain card, per seat and card id (without and with UNO).
PLAIN = [[c << 3 | NO_COLOR << 11 | NO_SEAT << 14 | s << 19 for c in range(256)] for s in range(16)]
PLAIN_UNO = [[m | UNO_BIT for m in row] for row in PLAIN]
#: Delete tables keeping only the cards of one colour (index: colour 0-3).
NOT_OF_COLOR = [bytes(c for c in range(256) if c >> 5 != col) for col in range(4)]
#: Delete table keeping only the wild and special cards (whatever the top card).
NOT_EXOTIC = bytes(
    c for c in range(256) if not (C.WILD * 32 <= c < UNKNOWN or (c < C.N_IDS and SPECIAL[c]))
)


def _points_table(variant: str, options: Mapping[str, Any]) -> list[int]:
    pts = [0] * C.N_IDS
    for c in range(C.N_IDS):
        k = c & 31
        if c == UNKNOWN or not card_code(c):
            continue
        if k < 10:
            pts[c] = k
        elif k == C.DISCARD_ALL:
            pts[c] = 30  # ATK-1
        elif k == C.TRADE_HANDS:
            pts[c] = int(options.get("trade_hands_points", 20))  # ATK-2
        elif k < 17:
            pts[c] = 20
        elif k == C.K_HIT4:
            pts[c] = 40  # ATK-1
        else:
            pts[c] = 50
    return pts


def _value_for_dealer(card: int) -> int:
    # COM-4: action and wild cards count 0 when choosing the first dealer.
    k = card & 31
    return k if k < 10 else 0


class Game:
    """A game of one variant: rounds, scores, and the state of the current round.

    Create one with :meth:`Game.new` (a fresh game: first dealer, deal) or, for rule
    scenarios, :meth:`Game.from_position` / :meth:`Game.from_deal`.
    """

    variant: ClassVar[str] = ""
    deal_size: ClassVar[int] = 7
    max_players: ClassVar[int] = 10
    turn_verbs: ClassVar[tuple[str, ...]] = ("play", "draw")
    turn_rule: ClassVar[str] = "COM-2"
    extra_play: ClassVar[bool] = False  # ATK-8
    uno_rule: ClassVar[str] = "COM-6"

    def __init_subclass__(cls, **kwargs: Any) -> None:
        """A variant registers by subclassing with its name (``variant = "attack"``): this
        module never imports the variants' modules, which import it (python-chess keeps its
        variants apart from its base board the same way)."""
        super().__init_subclass__(**kwargs)
        name = cls.__dict__.get("variant")
        if name:
            if name not in VARIANTS:
                raise ValueError(f"variant {name!r} is not one of {', '.join(VARIANTS)}")
            _VARIANT_CLASSES[name] = cls

    def __init__(
        self,
        players: Sequence[str],
        options: Mapping[str, Any] | None = None,
        rng: random.Random | None = None,
        launcher: Launcher | None = None,
        hidden_hands: bool = False,
    ) -> None:
        names = list(players)
        if not 2 <= len(names) <= self.max_players:
            raise ValueError(
                _("{variant} is for 2 to {most} players, not {n}").format(
                    variant=self.variant, most=self.max_players, n=len(names)
                )
            )
        for name in names:
            if not isinstance(name, str) or not name.strip():
                raise ValueError(
                    _("a player name must be a non-empty string, not {name}").format(
                        name=repr(name)
                    )
                )
        if len(set(names)) != len(names):
            raise ValueError(_("player names must be different from each other"))
        self.players: tuple[str, ...] = tuple(names)
        self.n = len(names)
        self._seat = {name: i for i, name in enumerate(names)}
        self.options = resolve_options(self.variant, options)
        self.target: int = self.options["target"]
        self.rng = rng if rng is not None else random.Random()
        self.launcher: Launcher | None = launcher
        self.hidden = bool(hidden_hands)
        self.composition = C.deck_composition(self.variant, self.options)
        self.deck_size = sum(self.composition.values())
        self._deck = sorted(c for c, k in self.composition.items() for _ in range(k))
        self._known = frozenset(self.composition)
        self._known_sorted = sorted(self._known)
        # Smallest card id that needs more than a plain move (see moves()).
        self._exotic_min = min([128] + [c for c in self._known if c < 128 and SPECIAL[c]])
        self._plain_get = [PLAIN[s].__getitem__ for s in range(self.n)]
        self._plain_uno_get = [PLAIN_UNO[s].__getitem__ for s in range(self.n)]
        # The non-play move of a normal turn (0: ask _turn_extra_moves).
        self._turn_move = DRAW if "draw" in self.turn_verbs else PRESS
        self.points = _points_table(self.variant, self.options)
        # Round state.
        # Hands are bytearrays of card ids: C-speed remove/append and translate() filters.
        self.hands: list[bytearray] = [bytearray() for _ in names]
        self.stock: list[int] = []
        self.discard: list[int] = []
        self.color = C.WILD
        self._key = C.WILD * 32 + 31  # colour * 32 + top kind: indexes MATCH & co
        self.turn = 0
        self.direction = 1
        self._skips = 0  # bit mask of the players skipped so far this turn (COM-9)
        self.phase = TURN
        self._drawn = -1
        self.pending: list[Obligation] = []
        self._pressed = -1  # who just ended their turn with a press (ATK-7 errors)
        self._was_pressed = -1
        self.uno_seat = -1
        self.dealer = 0
        self.scores = [0] * self.n
        self.round_winner = -1
        self.round_points: int | None = None
        self.game_winner = -1
        self.round_no = 0
        self.presses = 0
        self.press_cards = 0
        self.journal: list[tuple[Any, ...]] | None = []
        self._log: list[Effect] | None = None
        self._fx: list[Callable[..., None]] = [self._fx_number] * 32
        self._install_effects()
        # Keep plain functions (called with self): bound methods would make every game a
        # reference cycle, freed only by the cycle collector.
        self._fx = [getattr(f, "__func__", f) for f in self._fx]
        # Per seat: the move of a normal turn's draw/press (0: ask _turn_extra_moves).
        self._turn_mv = [self._turn_move | s << 19 if self._turn_move else 0 for s in range(self.n)]
        # Per seat: wild card -> its moves (without, with UNO), made by _wild_moves once.
        self._wild_tpl: list[dict[int, tuple[list[int], list[int]]]] = []
        for seat in range(self.n):
            tpl = {}
            for c in self._known:
                if c >= 128:
                    plain: list[int] = []
                    both: list[int] = []
                    self._wild_moves(plain, c, seat << 19, seat, -1)
                    self._wild_moves(both, c, seat << 19, seat, 2)
                    tpl[c] = (plain, both)
            self._wild_tpl.append(tpl)

    # ------------------------------------------------------------------ construction
    @staticmethod
    def new(
        variant: str,
        players: Sequence[str],
        options: Mapping[str, Any] | None = None,
        rng: random.Random | None = None,
        launcher: Launcher | None = None,
        hidden_hands: bool = False,
        dealer: str | None = None,
    ) -> Game:
        """Start a game: choose the first dealer (COM-4, or ``dealer`` if given) and deal.

        ``launcher`` (UNO Attack) defaults to a :class:`PatternLauncher` (the firmware's pattern
        and default configuration) seeded from ``rng``.
        With ``hidden_hands`` the dealer is then asked for the start card (module docs).
        """
        cls = _variant_class(variant)
        g = cls(players, options, rng, launcher, hidden_hands)
        if g.launcher is None and cls.variant == "attack" and not hidden_hands:
            g.launcher = PatternLauncher(g.rng.getrandbits(32))
        if dealer is not None:
            g.dealer = g._seat_of(dealer, "dealer")
        else:
            g.dealer = g._choose_first_dealer()
        g._deal()
        g.journal = []
        return g

    @staticmethod
    def from_position(
        variant: str,
        players: Sequence[str],
        *,
        hands: Mapping[str, Sequence[str]],
        discard: Sequence[str],
        stock: Sequence[str],
        turn: str,
        direction: int = 1,
        color: str | None = None,
        scores: Mapping[str, int] | None = None,
        dealer: str | None = None,
        options: Mapping[str, Any] | None = None,
        rng: random.Random | None = None,
        launcher: Launcher | None = None,
    ) -> Game:
        """Set up a position in the middle of a round (the scenario format's ``start``).

        ``stock`` is top first. Raises ``ValueError`` naming the field for a bad position.
        """
        cls = _variant_class(variant)
        g = cls(players, options, rng, launcher)
        for name in hands:
            g._seat_of(name, "start.hands")
        g.hands = [bytearray(g._cards(hands.get(p, ()), f"start.hands.{p}")) for p in g.players]
        g.discard = g._cards(discard, "start.discard")
        if not g.discard:
            raise ValueError("start.discard: the discard pile needs at least its top card")
        g.stock = g._cards(stock, "start.stock")[::-1]
        top = g.discard[-1]
        if color is not None:
            try:
                col = C.color_index(color)
            except ValueError as exc:
                raise ValueError(f"start.color: {exc}") from None
        elif top >> 5 == C.WILD:
            raise ValueError(
                f"start.color: required when the top card is a wild ({card_code(top)})"
            )
        else:
            col = top >> 5
        g._set_top(top, col)
        g.turn = g._seat_of(turn, "start.turn")
        if direction not in (1, -1):
            raise ValueError(f"start.direction: must be 1 or -1, not {direction!r}")
        g.direction = direction
        for name, pts in (scores or {}).items():
            seat = g._seat_of(name, "start.scores")
            if isinstance(pts, bool) or not isinstance(pts, int) or pts < 0:
                raise ValueError(f"start.scores.{name}: must be a whole number >= 0")
            g.scores[seat] = pts
        g.dealer = (
            g._seat_of(dealer, "start.dealer")
            if dealer is not None
            else (g.turn - g.direction) % g.n
        )
        g.round_no = 1
        if g.launcher is None and cls.variant == "attack":
            g.launcher = PatternLauncher(g.rng.getrandbits(32))
        return g

    @staticmethod
    def from_deal(
        variant: str,
        players: Sequence[str],
        *,
        dealer: str,
        deck: Sequence[str],
        scores: Mapping[str, int] | None = None,
        options: Mapping[str, Any] | None = None,
        rng: random.Random | None = None,
        launcher: Launcher | None = None,
    ) -> Game:
        """Deal a round from a given deck order (top first; the scenario format's ``deal``)."""
        cls = _variant_class(variant)
        g = cls(players, options, rng, launcher)
        g.dealer = g._seat_of(dealer, "deal.dealer")
        cards = g._cards(deck, "deal.deck")
        if len(cards) < g.n * g.deal_size + 1:
            raise ValueError(
                f"deal.deck: {len(cards)} cards cannot deal {g.deal_size} to {g.n} players"
                " and start the discard pile"
            )
        for name, pts in (scores or {}).items():
            g.scores[g._seat_of(name, "scores")] = int(pts)
        if g.launcher is None and cls.variant == "attack":
            g.launcher = PatternLauncher(g.rng.getrandbits(32))
        g._deal(cards[::-1])
        return g

    def _cards(self, codes: Sequence[str], field: str) -> list[int]:
        if isinstance(codes, str) or not isinstance(codes, Sequence):
            raise ValueError(f"{field}: must be a list of card codes")
        out = []
        for code in codes:
            try:
                c = parse_card(code)
            except ValueError:
                raise ValueError(f"{field}: unknown card code {code!r}") from None
            if c not in self._known:
                raise ValueError(
                    f"{field}: {code} is not a card of {self.variant}"
                    + (" (with these options)" if self.variant == "attack" else "")
                )
            out.append(c)
        return out

    def _seat_of(self, name: str, field: str = "player") -> int:
        try:
            return self._seat[name]
        except (KeyError, TypeError):
            raise ValueError(
                f"{field}: unknown player {name!r} (players: {', '.join(self.players)})"
            ) from None

    def _install_effects(self) -> None:
        """Variant hook: fill ``self._fx`` (card kind -> effect method)."""

    # ------------------------------------------------------------------ randomness
    def _shuffle(self, cards: list[int]) -> None:
        # A Fisher-Yates shuffle in Python costs ~0.4 us per card; sorting by 64 random
        # bits from one randbytes() call does the same job in C (ties: ~1e-16).
        n = len(cards)
        if n > 1:
            keys = memoryview(self.rng.randbytes(8 * n)).cast("Q")
            order = sorted(range(n), key=keys.__getitem__)
            cards[:] = [cards[i] for i in order]

    def _choose_first_dealer(self) -> int:
        # COM-4: everyone turns a card; highest deals (actions and wilds count 0); ties
        # turn again.
        pile = list(self._deck)
        self._shuffle(pile)
        contenders = list(range(self.n))
        while True:
            if len(pile) < len(contenders):
                pile = list(self._deck)
                self._shuffle(pile)
            turned = {s: pile.pop() for s in contenders}
            if self._log is not None:
                shown = ", ".join(f"{self.players[s]} {card_code(c)}" for s, c in turned.items())
                self._note("dealer", None, N_("choosing the dealer: {cards}"), cards=shown)
            best = max(_value_for_dealer(c) for c in turned.values())
            contenders = [s for s, c in turned.items() if _value_for_dealer(c) == best]
            if len(contenders) == 1:
                return contenders[0]

    # ------------------------------------------------------------------ dealing
    def _deal(self, stock: list[int] | None = None) -> None:
        """Deal a round: ``stock`` (top = last) or a fresh shuffle; then the start card."""
        n, size = self.n, self.deal_size
        self.round_no += 1
        self.direction = 1
        self._skips = 0
        self.phase = TURN
        self._drawn = -1
        self.pending = []
        self.uno_seat = -1
        self.round_winner = -1
        self.round_points = None
        self.discard = []
        if self.hidden:
            self.hands = [bytearray([UNKNOWN] * size) for _ in range(n)]
            self.stock = [UNKNOWN] * (self.deck_size - n * size)
            self.turn = (self.dealer + 1) % n
            self.pending.append((OB_TOP, self.dealer, 0, 0, "COM-4"))
            return
        if stock is None:
            stock = list(self._deck)
            self._shuffle(stock)
        top_first = stock[::-1]
        hands: list[bytearray] = [bytearray() for _ in range(n)]
        for i in range(n):  # one at a time, starting left of the dealer
            hands[(self.dealer + 1 + i) % n] = bytearray(top_first[i : n * size : n])
        self.hands = hands
        del stock[len(stock) - n * size :]
        self.stock = stock
        if self._log is not None:
            who = self.players[self.dealer]
            self._note("deal", who, N_("{who} deals"), who=who)
        self._turn_start_card()

    def _turn_start_card(self) -> None:
        stock = self.stock
        if not stock:
            raise ValueError("no card left to start the discard pile")
        card = stock.pop()
        self._begin_round(card)

    def _begin_round(self, card: int) -> None:
        self.discard.append(card)
        self._set_top(card, card >> 5)
        self.turn = (self.dealer + 1) % self.n
        if self._log is not None:
            self._note("start", None, N_("start card {card}"), card=card_code(card))
        self._start_effect(card)

    def _start_effect(self, card: int) -> None:
        """Variant hook: the effect of the card turned to start the discard pile."""

    # ------------------------------------------------------------------ small helpers
    def _note(
        self, kind: str, player: str | None, msg: str | tuple[str, str], **fields: Any
    ) -> None:
        # What happened, as data (Effect.msg/fields) and in words now (Effect.text).
        if self._log is not None:
            ids = (msg,) if isinstance(msg, str) else msg
            text = message_words(ids, fields)
            self._log.append(Effect(kind, player, text, ids, tuple(fields.items())))

    def _set_top(self, card: int, color: int) -> None:
        self.color = color
        key = color * 32 + (31 if card >> 5 == C.WILD else card & 31)
        self._key = key

    def _end_turn(self) -> None:
        # (_drawn is meaningful only in AFTER_DRAW, which sets it: no reset needed.)
        self.turn = self._next_seat() if self._skips else (self.turn + self.direction) % self.n
        self._skips = 0
        self.phase = TURN

    def _turn_again(self) -> None:
        # MK-14 / MK-17: the same player takes another turn at once.
        self._skips = 0
        self.phase = TURN
        self._drawn = -1

    def _next_seat(self) -> int:
        # COM-9: the player who would take the next turn, skips applied so far.
        # A skipped player is passed over whatever the direction is by now; if everyone
        # else is skipped, the current player goes again.
        turn, d, n, mask = self.turn, self.direction, self.n, self._skips
        s = (turn + d) % n
        while mask >> s & 1 and s != turn:
            s = (s + d) % n
        return s

    def _skip_next(self) -> int:
        """The next player loses their turn (ATK-10, MK-11, PP-8); return who that is."""
        s = self._next_seat()
        self._skips |= 1 << s
        return s

    def _refill(self) -> bool:
        # COM-5 / ATK-22 / PP-17: the discard pile but its top becomes the new stock.
        d = self.discard
        if len(d) <= 1:
            return False
        under = d[:-1]
        del d[:-1]
        if self.hidden:
            under = [UNKNOWN] * len(under)
        else:
            self._shuffle(under)
        under.extend(self.stock)  # keep any cards still in the stock on top
        self.stock = under
        if self._log is not None:
            self._note(
                "reshuffle",
                None,
                Nn_(
                    "the discard pile is shuffled into a new stock ({n} card)",
                    "the discard pile is shuffled into a new stock ({n} cards)",
                ),
                n=len(under),
            )
        return True

    def _draw(self, seat: int, k: int) -> int:
        """Move up to ``k`` cards from the stock to a hand (COM-5 refill); return how many."""
        stock = self.stock
        hand = self.hands[seat]
        if k == 1 and stock and self._log is None:
            hand.append(stock.pop())
            return 1
        got = 0
        while got < k:
            if not stock:
                if not self._refill():
                    break
                stock = self.stock
            hand.append(stock.pop())
            got += 1
        if self._log is not None:
            who = self.players[seat]
            shown = " ".join(card_code(c) for c in hand[len(hand) - got :])
            if got < k:
                text = Nn_(
                    "{who} takes {n} card {cards} ({short} short: no cards left, COM-5)",
                    "{who} takes {n} cards {cards} ({short} short: no cards left, COM-5)",
                )
                self._note("draw", who, text, who=who, n=got, cards=shown, short=k - got)
            else:
                # TRANSLATORS: {cards} are card codes, or "?" for cards nobody saw (a table
                # without hands drops the trailing "?"s): keep {cards} last.
                text = Nn_("{who} takes {n} card {cards}", "{who} takes {n} cards {cards}")
                self._note("draw", who, text, who=who, n=got, cards=shown)
        return got

    def _name_color(self, seat: int, color: int) -> None:
        # COM-1/ATK-13: the player names the colour; not given yet -> asked for.
        if color < 4:
            self._set_top(self.discard[-1], color)
            if self._log is not None:
                self._note("color", self.players[seat], N_("colour is now {colour}"), colour=color)
        else:
            self._set_top(self.discard[-1], C.WILD)  # no colour until it is named
            if self.hands[seat]:
                self.pending.append((OB_COLOR, seat, 0, 0, "COM-1"))

    def _went_out(self, seat: int) -> None:
        # COM-7: the round ends the moment a hand is empty; what the last card makes
        # *others* do still happens, the winner's own follow-ups (colour, give) do not.
        self.round_winner = seat
        self.uno_seat = -1
        self.pending = [
            ob
            for ob in self.pending
            if ob[1] != seat or ob[0] not in (OB_COLOR, OB_PRESS, OB_UNTIL, OB_GIVE)
        ]
        if self._log is not None:
            who = self.players[seat]
            self._note("out", who, N_("{who} has no cards left"), who=who)
        if not self.pending:
            self._finish_round()

    def _finish_round(self) -> None:
        w = self.round_winner
        if self.hidden:
            self.pending.append((OB_REVEAL, w, 0, 0, "COM-8"))
            return
        pts = self.points
        total = 0
        for s in range(self.n):
            if s != w:
                for c in self.hands[s]:
                    total += pts[c]
        self._score(total)

    def _score(self, total: int) -> None:
        # COM-8: the winner scores the opponents' cards; the game ends at the target.
        w = self.round_winner
        self.round_points = total
        self.scores[w] += total
        if self.scores[w] >= self.target:
            self.game_winner = w
            self.phase = GAME_OVER
        else:
            self.phase = ROUND_OVER
        if self._log is not None:
            who = self.players[w]
            self._note(
                "score",
                who,
                N_("{who} wins the round and scores {points} (total {total})"),
                who=who,
                points=total,
                total=self.scores[w],
            )
            if self.game_winner >= 0:
                self._note(
                    "game",
                    who,
                    Nn_(
                        "{who} wins the game with {n} point", "{who} wins the game with {n} points"
                    ),
                    who=who,
                    n=self.scores[w],
                )

    # ------------------------------------------------------------------ card effects
    def _fx_number(self, seat: int, card: int, color: int, target: int, extra: Any) -> None:
        self._end_turn()

    def _fx_skip(self, seat: int, card: int, color: int, target: int, extra: Any) -> None:
        # ATK-10 / MK-11 / PP-8: the next player loses their turn.
        skipped = self._skip_next()
        if self._log is not None:
            who = self.players[skipped]
            self._note("skip", who, N_("{who} is skipped"), who=who)
        self._after_skip(seat)

    def _fx_reverse(self, seat: int, card: int, color: int, target: int, extra: Any) -> None:
        # COM-3 / ATK-9 / MK-11 / PP-8: direction flips; with two players, a Skip.
        self.direction = -self.direction
        if self.n == 2:
            self._skip_next()
        if self._log is not None:
            self._note(
                "reverse",
                None,
                N_("play now runs left") if self.direction == 1 else N_("play now runs right"),
            )
        self._after_skip(seat)

    def _after_skip(self, seat: int) -> None:
        if self.extra_play and self.hands[seat]:
            self.phase = EXTRA  # ATK-8: one more play, optional
        else:
            self._end_turn()

    def _fx_wild(self, seat: int, card: int, color: int, target: int, extra: Any) -> None:
        self._name_color(seat, color)
        self._end_turn()

    def _owe_draw_next(self, k: int, rule: str) -> None:
        """The next player draws ``k`` (or presses ``k`` times in UNO Attack) and loses the turn."""
        nxt = self._skip_next()
        self._make_draw(nxt, k, rule)
        self._end_turn()

    def _make_draw(self, seat: int, k: int, rule: str) -> None:
        self._draw(seat, k)

    # ------------------------------------------------------------------ the fast interface
    def moves(self) -> list[int]:
        """All legal actions now, as move ints (the fast interface; see :meth:`move_action`)."""
        if self.pending:
            out = self._pending_moves()
        elif self.phase >= ROUND_OVER:
            return []
        else:
            # A turn: the hot path of every simulation, kept flat.
            seat = self.turn
            by = seat << 19
            hand = self.hands[seat]
            phase = self.phase
            if self.hidden:
                out = []
                self._other_turn_moves(out, seat, by, hand)
                if phase != TURN:
                    out.append(PASS | by)
                elif self._turn_move:
                    out.append(self._turn_move | by)
                else:
                    self._turn_extra_moves(out, by)
            elif phase == TURN:
                # The distinct playable plain cards in C: translate() keeps the playable
                # plain cards, a set drops the repeats (cheaper than intersecting a set of
                # the hand); wild and special cards come from per-seat templates.
                cands = {*hand.translate(None, NONMATCH_PLAIN[self._key])}
                out = [*map(self._plain_get[seat], cands)]
                uno = len(hand) == 2
                if uno:
                    out += map(self._plain_uno_get[seat], cands)
                exotic = hand.translate(None, NOT_EXOTIC)
                if exotic:
                    tpl = self._wild_tpl[seat]
                    for c in {*exotic}:
                        if c >= 128:
                            out += tpl[c][uno]  # a wild is always playable (COM-2)
                        elif MATCH[self._key][c]:
                            self._special_moves(out, c, by, seat, hand, uno)
                turn_move = self._turn_mv[seat]
                if turn_move:
                    out.append(turn_move)
                else:
                    self._turn_extra_moves(out, by)
            elif phase == AFTER_DRAW and self._drawn < self._exotic_min:
                # MK-9 / PP-7: only the drawn (playable) card, or pass.
                c = self._drawn
                out = [PLAIN[seat][c], PASS | by]
                if len(hand) == 2:
                    out.append(PLAIN_UNO[seat][c])
            else:
                out = []
                self._other_turn_moves(out, seat, by, hand)
                out.append(PASS | by)
        u = self.uno_seat
        if u >= 0 and len(self.hands[u]) == 1:
            out.extend([CATCH | s << 19 | u << 14 for s in range(self.n) if s != u])
        return out

    def _other_turn_moves(self, out: list[int], seat: int, by: int, hand: bytearray) -> None:
        # After a draw (MK-9, PP-7), the extra play (ATK-8), or hidden hands.
        m = MATCH[self._key]
        cands: Any
        if self.hidden:
            cands = [c for c in self._known_sorted if m[c]]
        elif self.phase == AFTER_DRAW:
            cands = (self._drawn,)  # only the drawn card, and it is playable
        else:
            cands = set(hand.translate(None, NONMATCH[self._key]))
        uno = len(hand) == 2 or self.hidden
        base = NO_COLOR << 11 | NO_SEAT << 14 | by
        for c in cands:
            if c < 128 and not SPECIAL[c]:
                mv = c << 3 | base
                out.append(mv)
                if uno:
                    out.append(mv | UNO_BIT)
            elif c >= 128:
                self._wild_moves(out, c, by, seat, 2 if uno else -1)
            else:
                self._special_moves(out, c, by, seat, hand, uno)

    def _pending_moves(self) -> list[int]:
        kind, seat, _a, _b, _rule = self.pending[0]
        by = seat << 19
        if kind in (OB_PRESS, OB_UNTIL):
            return [PRESS | by]
        if kind == OB_CHALLENGE:
            return [CHALLENGE | by, ACCEPT | by]
        if kind == OB_COLOR:
            return [CHOOSE | col << 11 | NO_SEAT << 14 | by for col in range(4)]
        if kind == OB_TARGET:
            return [CHOOSE | NO_COLOR << 11 | t << 14 | by for t in range(self.n) if t != seat]
        if kind == OB_GIVE:
            return [
                CHOOSE | c << 3 | NO_COLOR << 11 | NO_SEAT << 14 | by
                for c in sorted(set(self.hands[seat]))
            ]
        return []  # OB_TOP / OB_REVEAL / OB_TURNED / OB_VERDICT carry table facts

    def _special_moves(
        self, out: list[int], c: int, by: int, seat: int, hand: bytearray, uno: bool
    ) -> None:
        """Variant hook: moves of a coloured card that needs more than its code."""

    def _wild_moves(self, out: list[int], c: int, by: int, seat: int, uno_size: int) -> None:
        base = c << 3 | by
        for col in range(4):
            mv = base | col << 11 | NO_SEAT << 14
            out.append(mv)
            if uno_size == 2:
                out.append(mv | UNO_BIT)

    def _turn_extra_moves(self, out: list[int], by: int) -> None:
        """Variant hook: the non-play moves of a turn when ``_turn_move`` is 0."""

    def step(self, move: int) -> None:
        """Apply a move int from :meth:`moves` without checks or journaling (fast path)."""
        verb = move & 7
        by = move >> 19
        if self.uno_seat >= 0 and by != self.uno_seat and verb != CATCH:
            self.uno_seat = -1  # COM-6: the next player began; the window is closed
        if verb == PLAY:
            self._do_play(by, move >> 3 & 255, move, None)
            return  # a play that ends the round scores it itself (_went_out)
        if verb == DRAW:
            self._do_draw(by)
            return
        if verb == PRESS:
            self._do_press(by, None)
        elif verb == PASS:
            self._end_turn()
        elif verb == CHOOSE:
            self._do_choose(by, move >> 11 & 7, move >> 14 & 15, move >> 3 & 255, None)
        elif verb == CATCH:
            self._do_catch(by, move >> 14 & 15)
        else:
            self._do_answer(by, verb == CHALLENGE, None)
        if self.round_winner >= 0 and not self.pending and self.phase < ROUND_OVER:
            self._finish_round()

    def play_random(self, bits: Callable[[int], int], limit: int) -> int:
        """Play up to ``limit`` actions until the round is over; return how many were played.

        Each action is ``moves()[bits(53) % len(moves())]`` of the awaited player (as
        :class:`~unolaunch.bots.RandomBot` picks: uniformly random among its own legal
        actions), applied as :meth:`step` would. This is the hot loop of simulations with
        random bots only. In the commonest positions (a normal turn, the choice after a
        draw) it counts the moves :meth:`moves` would list, in the same order, and builds
        only the one drawn; plays, draws and passes are applied inline (the same code as
        :meth:`_do_play`, :meth:`_do_draw` and :meth:`_end_turn`, without the calls).
        Every other position goes through :meth:`moves` and :meth:`step`.
        """
        turn_mv = self._turn_mv
        if limit <= 0:
            return 0
        if self.hidden or self._log is not None or not all(turn_mv):
            return self._play_random_slow(bits, limit)
        hands = self.hands
        discard = self.discard
        wild_tpl = self._wild_tpl
        exotic_min = self._exotic_min
        fx = self._fx
        n = self.n
        turn_draws = self._turn_move == DRAW
        for done in range(limit):
            phase = self.phase
            if phase >= ROUND_OVER:
                return done
            pend = self.pending
            if pend or self.uno_seat >= 0:
                if self.uno_seat < 0:
                    # The commonest obligations, listed as _pending_moves() lists them.
                    kind, who = pend[0][0], pend[0][1] << 19
                    if kind == OB_CHALLENGE:  # [challenge, accept]
                        self.step(ACCEPT | who if bits(53) % 2 else CHALLENGE | who)
                        continue
                    if kind == OB_COLOR:  # choose red, yellow, green, blue
                        self.step(CHOOSE | (bits(53) % 4) << 11 | NO_SEAT << 14 | who)
                        continue
                    if kind in (OB_PRESS, OB_UNTIL):  # [press]
                        bits(53)
                        self.step(PRESS | who)
                        continue
                self._step_random(bits)
                continue
            seat = self.turn
            hand = hands[seat]
            key = self._key
            if phase == TURN:
                # moves() lists: the plain playable cards, again with UNO when two are
                # held, then the wild and special cards' moves, then the draw (or press).
                cands = {*hand.translate(None, NONMATCH_PLAIN[key])}
                nc = len(cands)
                uno = len(hand) == 2
                n_plain = nc + nc if uno else nc
                exotic = hand.translate(None, NOT_EXOTIC)
                if exotic:
                    ex: list[int] = []
                    tpl = wild_tpl[seat]
                    for c in {*exotic}:
                        if c >= 128:
                            ex += tpl[c][uno]  # a wild is always playable (COM-2)
                        elif MATCH[key][c]:
                            self._special_moves(ex, c, seat << 19, seat, hand, uno)
                    n_plays = n_plain + len(ex)
                else:
                    n_plays = n_plain
                r = bits(53) % (n_plays + 1)
                if r < nc:
                    card = [*cands][r]
                    move = PLAIN[seat][card]
                elif r < n_plain:
                    card = [*cands][r - nc]
                    move = PLAIN_UNO[seat][card]
                elif r < n_plays:
                    move = ex[r - n_plain]
                    card = move >> 3 & 255
                elif turn_draws:
                    stock = self.stock
                    if not stock:
                        self._do_draw(seat)
                        continue
                    card = stock.pop()  # as _do_draw
                    hand.append(card)
                    if MATCH[key][card]:
                        self.phase = AFTER_DRAW
                        self._drawn = card
                    elif self._skips:
                        self._end_turn()
                    else:
                        self.turn = (seat + self.direction) % n
                    continue
                else:
                    self.step(turn_mv[seat])
                    continue
            elif phase == AFTER_DRAW and not exotic_min <= self._drawn < 128:
                # MK-9 / PP-7: play the drawn card or pass. moves() lists a plain card as
                # [play, pass] (+ the play with UNO), a wild as [its plays..., pass].
                card = self._drawn
                if card < 128:
                    r = bits(53) % 3 if len(hand) == 2 else bits(53) % 2
                    passes = r == 1
                    move = PLAIN_UNO[seat][card] if r else PLAIN[seat][card]
                else:
                    ex = wild_tpl[seat][card][len(hand) == 2]
                    r = bits(53) % (len(ex) + 1)
                    passes = r == len(ex)
                    move = 0 if passes else ex[r]
                if passes:  # as _end_turn
                    self.turn = self._next_seat() if self._skips else (seat + self.direction) % n
                    self._skips = 0
                    self.phase = TURN
                    continue
            else:
                self._step_random(bits)
                continue
            # A play: as step() (no UNO window is open) and _do_play.
            hand.remove(card)
            discard.append(card)
            if card < 128:
                self.color = card >> 5
                self._key = card
                k = card & 31
                if k < 10:
                    if self._skips:
                        self.turn = self._next_seat()
                        self._skips = 0
                    else:
                        self.turn = (seat + self.direction) % n
                    self.phase = TURN
                else:
                    fx[k](self, seat, card, move >> 11 & 7, move >> 14 & 15, None)
            else:
                fx[card & 31](self, seat, card, move >> 11 & 7, move >> 14 & 15, None)
                pend = self.pending
                if move & UNO_BIT and pend and pend[-1][0] == OB_GIVE:
                    ob = pend[-1]
                    pend[-1] = (ob[0], ob[1], ob[2], 1, ob[4])
            if not hand:
                self._went_out(seat)
            elif len(hand) == 1 and not move & UNO_BIT:
                self.uno_seat = seat
        return limit

    def _play_random_slow(self, bits: Callable[[int], int], limit: int) -> int:
        done = 0
        while done < limit and self.phase < ROUND_OVER:
            self._step_random(bits)
            done += 1
        return done

    def _step_random(self, bits: Callable[[int], int]) -> None:
        # One uniformly random action of the awaited player (others' catches left out).
        ms = self.moves()
        if self.uno_seat >= 0:
            seat = self.pending[0][1] if self.pending else self.turn
            ms = [m for m in ms if m >> 19 == seat]
        self.step(ms[bits(53) % len(ms)])

    # ------------------------------------------------------------------ rule actions
    def _do_play(self, seat: int, card: int, move: int, extra: Any) -> None:
        # ``move`` carries the colour, target and UNO bits (see the move encoding).
        hand = self.hands[seat]
        if self.hidden:
            hand.remove(UNKNOWN)
        else:
            hand.remove(card)
        self.discard.append(card)
        if self._log is not None:
            who = self.players[seat]
            code = card_code(card)
            if move & UNO_BIT:
                self._note("play", who, N_("{who} plays {card} and says UNO"), who=who, card=code)
            else:
                self._note("play", who, N_("{who} plays {card}"), who=who, card=code)
        if card < 128:
            self.color = card >> 5
            self._key = card  # colour * 32 + kind: a coloured card is its own MATCH key
            k = card & 31
            if k < 10:
                # A number: the turn simply ends (inlined _end_turn, the commonest case).
                if self._skips:
                    self.turn = self._next_seat()
                    self._skips = 0
                else:
                    self.turn = (self.turn + self.direction) % self.n
                if self.phase:
                    self.phase = TURN
            else:
                self._fx[k](self, seat, card, move >> 11 & 7, move >> 14 & 15, extra)
        else:
            self._fx[card & 31](self, seat, card, move >> 11 & 7, move >> 14 & 15, extra)
            pend = self.pending
            if move & UNO_BIT and pend and pend[-1][0] == OB_GIVE:  # Dip: UNO once given
                ob = pend[-1]
                pend[-1] = (ob[0], ob[1], ob[2], 1, ob[4])
        if not hand:
            self._went_out(seat)
        elif len(hand) == 1 and not move & UNO_BIT:
            self.uno_seat = seat  # COM-6: may be caught until the next player begins

    def _do_draw(self, seat: int) -> None:
        # MK-9 / PP-6 / PP-7: draw one; a playable card may be played at once.
        stock = self.stock
        if stock and self._log is None:  # the common case, inlined
            card = stock.pop()
            self.hands[seat].append(card)
            if MATCH[self._key][card] or self.hidden:
                self.phase = AFTER_DRAW
                self._drawn = card
            elif self._skips:
                self._end_turn()
            else:  # the turn ends (inlined _end_turn: the phase is still TURN)
                self.turn = (self.turn + self.direction) % self.n
            return
        elif self._draw(seat, 1):
            card = self.hands[seat][-1]
            if self.hidden or MATCH[self._key][card]:
                self.phase = AFTER_DRAW
                self._drawn = card
                return
        self._end_turn()

    def _do_press(self, seat: int, cards: int | None) -> None:
        raise NotImplementedError  # UNO Attack only

    def _do_catch(self, by: int, caught: int) -> None:
        self.uno_seat = -1
        if self._log is not None:
            self._note(
                "catch",
                self.players[by],
                N_("{who} catches {caught} not saying UNO"),
                who=self.players[by],
                caught=self.players[caught],
            )
        self._uno_penalty(caught)

    def _uno_penalty(self, seat: int) -> None:
        self._draw(seat, 2)  # MK-22 / PP-15

    def _do_answer(self, seat: int, challenge: bool, won: bool | None) -> None:
        kind, _s, challenged, guilty, rule = self.pending[0]
        if kind == OB_CHALLENGE and challenge and guilty < 0:
            if won is None:
                self.pending[0] = (OB_VERDICT, seat, challenged, 0, rule)
                return
            guilty = int(won)
        self.pending.pop(0)
        self._resolve_challenge(seat, challenged, challenge, guilty)

    def _resolve_challenge(self, seat: int, challenged: int, challenge: bool, guilty: int) -> None:
        raise NotImplementedError  # variants with a challenge

    def _do_choose(self, seat: int, color: int, target: int, card: int, action: Any) -> None:
        kind, _s, a, b, _rule = self.pending.pop(0)
        if kind == OB_COLOR:
            self._set_top(self.discard[-1], color)
            if self._log is not None:
                self._note("color", self.players[seat], N_("colour is now {colour}"), colour=color)
        elif kind == OB_TARGET:
            self._target_chosen(seat, a, target)
        elif kind == OB_GIVE:
            self._give(seat, a, card)
            if len(self.hands[seat]) == 1 and not b:
                self.uno_seat = seat  # COM-6 once the Dip is done (b: UNO was said)
        else:
            self._table_fact(kind, seat, a, b, action)

    def _target_chosen(self, seat: int, purpose: int, target: int) -> None:
        raise NotImplementedError

    def _give(self, seat: int, to: int, card: int) -> None:
        raise NotImplementedError

    def _table_fact(self, kind: int, seat: int, a: int, b: int, action: Any) -> None:
        # Hidden hands: OB_TOP, OB_REVEAL, OB_TURNED, OB_VERDICT.
        if kind == OB_TOP:
            card = parse_card(action.card)
            if self.stock:
                self.stock.pop()
            self._begin_round(card)
        elif kind == OB_REVEAL:
            total = 0
            for name, value in action.reveal:
                s = self._seat[name]
                if isinstance(value, tuple):
                    hand = bytearray(parse_card(c) for c in value)
                    self.hands[s] = hand
                    total += sum(self.points[c] for c in hand)
                else:
                    total += value
            self._score(total)
        elif kind == OB_TURNED:
            self._item_reported(seat, str(action.turned), b, a)
        elif kind == OB_VERDICT:
            self._resolve_challenge(seat, a, True, int(action.won))

    def _item_reported(self, seat: int, turned: str, color: int, target: int) -> None:
        raise NotImplementedError  # UNO Mario Kart's Wild Item Box

    # ------------------------------------------------------------------ public API
    @property
    def round_over(self) -> bool:
        """True once the round is scored (and before :meth:`next_round`)."""
        return self.phase >= ROUND_OVER

    @property
    def game_over(self) -> bool:
        """True once a player has reached the target score (COM-8)."""
        return self.phase == GAME_OVER

    def next_round(self) -> list[Effect]:
        """Deal the next round; the deal passes to the left (COM-4, MK-7). Undoable."""
        if self.phase != ROUND_OVER:
            if self.game_over:
                en, why = both(N_("cannot deal the next round: the game is over"))
            else:
                en, why = both(N_("cannot deal the next round: the round is not over yet"))
            raise IllegalMoveError("COM-4", f"{en} {self.describe()}", why=why)
        saved = self._save()
        self._log = []
        try:
            self.dealer = (self.dealer + 1) % self.n
            self._deal()
            log = self._log
        except BaseException:
            self._restore(saved)
            raise
        finally:
            self._log = None
        if self.journal is not None:
            self.journal.append(saved)
        return log

    def apply(self, action: Action | Mapping[str, Any]) -> list[Effect]:
        """Apply one action (an :class:`Action` or its dict); return what happened.

        Raises :class:`IllegalMoveError` (with ``.rule``) when the rules forbid it; the
        state is then exactly as before. Every applied action can be undone.
        """
        try:
            a = Action.from_dict(action)
        except ValueError as exc:
            en, why = both(N_("not an action: {error}"), error=str(exc))
            raise IllegalMoveError("ACTION", en, why=why) from None
        saved = self._save()
        self._log = []
        try:
            self._apply(a)
            log = self._log
        except BaseException:
            self._restore(saved)
            raise
        finally:
            self._log = None
        if self.journal is not None:
            self.journal.append(saved)
        return log

    def undo(self, n: int = 1) -> None:
        """Take back the last ``n`` actions (or deals): the state is restored exactly."""
        journal = self.journal
        if journal is None or n < 1 or len(journal) < n:
            have = 0 if journal is None else len(journal)
            raise ValueError(f"cannot undo {n} action(s): {have} can be undone")
        for _i in range(n - 1):
            journal.pop()
        self._restore(journal.pop())

    @property
    def undo_depth(self) -> int:
        """How many actions :meth:`undo` can take back."""
        return len(self.journal) if self.journal is not None else 0

    def _save(self) -> tuple[Any, ...]:
        return (
            [bytes(h) for h in self.hands],
            list(self.stock),
            list(self.discard),
            self.color,
            self.turn,
            self.direction,
            self._skips,
            self.phase,
            self._drawn,
            list(self.pending),
            self.uno_seat,
            self.dealer,
            list(self.scores),
            self.round_winner,
            self.round_points,
            self.game_winner,
            self.round_no,
            self.presses,
            self.press_cards,
            self._pressed,
            self.rng.getstate(),
        )

    def _restore(self, s: tuple[Any, ...]) -> None:
        (
            hands,
            stock,
            discard,
            color,
            self.turn,
            self.direction,
            self._skips,
            self.phase,
            self._drawn,
            pending,
            self.uno_seat,
            self.dealer,
            scores,
            self.round_winner,
            self.round_points,
            self.game_winner,
            self.round_no,
            self.presses,
            self.press_cards,
            self._pressed,
            rng_state,
        ) = s
        self.hands = [bytearray(h) for h in hands]
        self.stock = list(stock)
        self.discard = list(discard)
        self.pending = list(pending)
        self.scores = list(scores)
        self.rng.setstate(rng_state)
        if discard:
            self._set_top(discard[-1], color)
        else:
            self.color = color

    def state_key(self) -> tuple[Any, ...]:
        """Everything that makes up the state, as a comparable value (tests, undo checks)."""
        return self._save()

    @property
    def awaiting(self) -> dict[str, Any] | None:
        """Who the engine waits for and the verbs they may use: ``{"by": .., "verbs": [..]}``.

        Exactly one player is awaited until the round is over (then ``None``). ``catch``
        is listed when the awaited player may catch someone not saying UNO (others may
        too: see :meth:`legal_actions`).
        """
        seat, verbs = self._awaited()
        if seat < 0:
            return None
        return {"by": self.players[seat], "verbs": list(verbs)}

    def _awaited(self) -> tuple[int, tuple[str, ...]]:
        if self.pending:
            kind, seat = self.pending[0][0], self.pending[0][1]
            verbs = _OB_VERBS.get(kind, ("choose",))
        elif self.phase == TURN:
            seat = self.turn
            verbs = self._turn_verb_list(seat)
        elif self.phase < ROUND_OVER:
            seat, verbs = self.turn, ("play", "pass")
        else:
            return -1, ()
        u = self.uno_seat
        if u >= 0 and seat != u and len(self.hands[u]) == 1:
            verbs = (*verbs, "catch")
        return seat, verbs

    def _turn_verb_list(self, seat: int) -> tuple[str, ...]:
        return self.turn_verbs

    def legal_actions(self) -> list[Action]:
        """Every legal action now (including catches by any player), as :class:`Action`.

        Wild cards are listed once per colour; plays that leave one card are listed with
        and without ``uno``. Table facts of hidden hands (start card, Item Box card,
        challenge outcome, round-end cards) are not enumerable and not listed.
        """
        return [self.move_action(m) for m in self.moves()]

    def move_action(self, move: int) -> Action:
        """The :class:`Action` of a move int."""
        verb = move & 7
        by = self.players[move >> 19]
        col = move >> 11 & 7
        tgt = move >> 14 & 15
        if verb == PLAY:
            return Action(
                by,
                "play",
                card=card_code(move >> 3 & 255),
                color=COLOR_NAMES[col] if col < 4 else None,
                target=self.players[tgt] if tgt != NO_SEAT else None,
                uno=bool(move & UNO_BIT),
            )
        if verb == CHOOSE:
            if col < 4:
                return Action(by, "choose", color=COLOR_NAMES[col])
            if tgt != NO_SEAT:
                return Action(by, "choose", target=self.players[tgt])
            return Action(by, "choose", give=card_code(move >> 3 & 255))
        if verb == CATCH:
            return Action(by, "catch", target=self.players[tgt])
        return Action(by, VERB_NAMES[verb])

    def action_move(self, action: Action | Mapping[str, Any]) -> int | None:
        """The move int of an action, if it is one of :meth:`moves` (else ``None``)."""
        a = Action.from_dict(action)
        for m in self.moves():
            if self.move_action(m) == a:
                return m
        return None

    def snapshot(self) -> dict[str, Any]:
        """The state as the replay format shows it (FORMAT.md ``state`` keys) plus
        ``dealer``, ``round``, ``uno_catchable`` and ``owed`` (pending obligations)."""
        names = self.players
        top = self.discard[-1] if self.discard else None
        return {
            "hands": {p: [card_code(c) for c in h] for p, h in zip(names, self.hands, strict=True)},
            "hand_sizes": {p: len(h) for p, h in zip(names, self.hands, strict=True)},
            "turn": names[self.turn],
            "direction": self.direction,
            "top": card_code(top) if top is not None else None,
            "color": COLOR_NAMES[self.color] if self.color < 4 else None,
            "stock_size": len(self.stock),
            "scores": dict(zip(names, self.scores, strict=True)),
            "round_winner": names[self.round_winner] if self.round_winner >= 0 else None,
            "round_points": self.round_points,
            "game_winner": names[self.game_winner] if self.game_winner >= 0 else None,
            "awaiting": self.awaiting,
            "dealer": names[self.dealer],
            "round": self.round_no,
            "uno_catchable": names[self.uno_seat] if self.uno_seat >= 0 else None,
            "owed": [self._describe_ob(ob) for ob in self.pending],
        }

    def owed_texts(self) -> list[tuple[str, str]]:
        """What each player owes now, in the players' language: ``(player, text)`` pairs,
        the text without the player's name where the sentence begins with it (a screen
        shows it in the player's row); the snapshot's ``owed`` is the English data."""
        out = []
        for ob in self.pending:
            who = self.players[ob[1]]
            text = self._describe_ob(ob, translate=True)
            if text.startswith(who + " "):
                text = text[len(who) + 1 :]
            out.append((who, text))
        return out

    def _describe_ob(self, ob: Obligation, translate: bool = False) -> str:
        """An obligation in words: English (the snapshot's ``owed``, error messages), or in
        the players' language with ``translate``."""
        kind, seat, a, _b, rule = ob
        fields: dict[str, Any] = {"who": self.players[seat], "rule": rule}
        tr = None
        if kind == OB_PRESS:
            msg = N_("{who} presses the launcher {n}x ({rule})")
            tr = ngettext(
                "{who} presses the launcher once ({rule})",
                "{who} presses the launcher {n} times ({rule})",
                a,
            )
            fields["n"] = a
        elif kind == OB_UNTIL:
            msg = N_("{who} presses until a card comes out ({rule})")
        elif kind == OB_CHALLENGE:
            msg = N_("{who} challenges or accepts {other}'s card ({rule})")
            fields["other"] = self.players[a]
        elif kind == OB_GIVE:  # only here is `a` a seat; elsewhere it may be anything
            msg = N_("{who} gives a card to {other} ({rule})")
            fields["other"] = self.players[a]
        else:
            msg = {
                OB_COLOR: N_("{who} names the colour ({rule})"),
                OB_TARGET: N_("{who} chooses a player ({rule})"),
                OB_TOP: N_("{who} reports the start card ({rule})"),
                OB_REVEAL: N_("{who} reports the cards left in the other hands ({rule})"),
                OB_TURNED: N_("{who} reports the card the Item Box turned ({rule})"),
                OB_VERDICT: N_("{who} reports the challenge outcome ({rule})"),
            }[kind]
        en, text = both(msg, tr, **fields) if translate else (msg.format(**fields), "")
        return text if translate else en

    def _ob_field(self, ob: Obligation) -> Both:
        """An obligation as a message field, in English and translated."""
        return Both(self._describe_ob(ob), self._describe_ob(ob, translate=True))

    def describe(self) -> str:
        """A one-line account of the position (used in error messages)."""
        seat, verbs = self._awaited()
        if seat >= 0:
            who = f"{self.players[seat]} to {'/'.join(verbs)}"
        else:
            who = "game over" if self.game_over else "round over"
        top = card_code(self.discard[-1]) if self.discard else "-"
        col = COLOR_NAMES[self.color] if self.color < 4 else "none"
        sizes = ", ".join(f"{p} {len(h)}" for p, h in zip(self.players, self.hands, strict=True))
        return f"[{who}; top {top}, colour {col}; hands {sizes}]"

    # ------------------------------------------------------------------ validation
    def _illegal(
        self,
        rule: str,
        a: Action,
        msg: str,
        tr: str | None = None,
        *,
        out_of_turn: bool = False,
        press_first: bool = False,
        **fields: Any,
    ) -> IllegalMoveError:
        """The error for action ``a``: ``msg`` (marked with ``N_``) with its ``fields``;
        ``tr`` is a translated template when ``_(msg)`` is not the one (plurals, or a
        message whose English holds JSON for developers). The English message carries the
        action and the position; ``why`` is the reason in the players' language."""
        en, why = both(msg, tr, **fields)
        return IllegalMoveError(
            rule,
            f"{a}: {en} {self.describe()}",
            why=why,
            action=a,
            out_of_turn=out_of_turn,
            press_first=press_first,
        )

    def _apply(self, a: Action) -> None:
        if a.by not in self._seat:
            raise self._illegal("ACTION", a, N_("unknown player {name}"), name=repr(a.by))
        by = self._seat[a.by]
        verb = a.verb
        self._was_pressed, self._pressed = self._pressed, -1
        if verb == "correct":
            self._do_correct(a)
            return
        if self.phase == GAME_OVER:
            raise self._illegal("COM-8", a, N_("the game is over"))
        if self.phase == ROUND_OVER:
            raise self._illegal("COM-7", a, N_("the round is over; deal the next round first"))
        if verb == "catch":
            caught = self._check_catch(a, by)
            self._do_catch(by, caught)
            return
        if self.uno_seat >= 0 and by != self.uno_seat:
            self.uno_seat = -1
        if self.pending:
            self._apply_obligation(a, by)
        else:
            self._apply_turn(a, by)
        if self.round_winner >= 0 and not self.pending and self.phase < ROUND_OVER:
            self._finish_round()

    def _check_catch(self, a: Action, by: int) -> int:
        target = a.target
        if target not in self._seat:
            raise self._illegal("ACTION", a, N_("unknown player {name}"), name=repr(target))
        caught = self._seat[target]
        if caught == by:
            raise self._illegal("COM-6", a, N_("a player cannot catch themselves"))
        if self.uno_seat != caught or len(self.hands[caught]) != 1:
            raise self._illegal(
                "COM-6",
                a,
                N_(
                    "{name} cannot be caught now (only a player who just played their"
                    " second-to-last card without saying UNO, before the next player begins)"
                ),
                name=target,
            )
        return caught

    def _apply_obligation(self, a: Action, by: int) -> None:
        kind, seat, _x, _y, rule = self.pending[0]
        verb = a.verb
        owner = self.players[seat]
        if by != seat:
            raise self._illegal(
                "ATK-26" if verb == "press" else rule,
                a,
                N_("the game is waiting for {who}: {owed}"),
                who=owner,
                owed=self._ob_field(self.pending[0]),
            )
        if kind in (OB_PRESS, OB_UNTIL):
            if verb != "press":
                raise self._illegal(
                    rule, a, N_("{who} must press the launcher first"), press_first=True, who=owner
                )
            self._do_press(by, a.cards)
        elif kind == OB_CHALLENGE:
            if verb not in ("challenge", "accept"):
                raise self._illegal(rule, a, N_("{who} must challenge or accept first"), who=owner)
            if self.hidden and verb == "challenge" and a.won is None:
                self.pending[0] = (OB_VERDICT, seat, self.pending[0][2], 0, rule)
                text = N_("{who} challenges: the table says who was right")
                self._note("challenge", a.by, text, who=a.by)
                return
            self._do_answer(by, verb == "challenge", a.won)
        else:
            if verb != "choose":
                raise self._illegal(
                    rule,
                    a,
                    N_("{who} must choose first: {owed}"),
                    who=owner,
                    owed=self._ob_field(self.pending[0]),
                )
            self._apply_choose(a, by, kind, rule)

    def _apply_choose(self, a: Action, by: int, kind: int, rule: str) -> None:
        color, target, card = NO_COLOR, NO_SEAT, -1
        if kind == OB_COLOR:
            if a.color is None:
                raise self._illegal(
                    rule, a, 'choose a colour: {{"color": "red"}}', _("choose a colour")
                )
            color = COLOR_NAMES.index(a.color)
        elif kind == OB_TARGET:
            purpose = self.pending[0][2]
            rule = {TGT_ATTACK: "ATK-15", TGT_SHELL: "MK-16", TGT_TRADE: "ATK-19"}[purpose]
            if a.target is None:
                raise self._illegal(
                    rule, a, 'choose a player: {{"target": NAME}}', _("choose a player")
                )
            if a.target not in self._seat:
                raise self._illegal("ACTION", a, N_("unknown player {name}"), name=repr(a.target))
            target = self._seat[a.target]
            if target == by:
                raise self._illegal(rule, a, N_("choose another player, not yourself"))
        elif kind == OB_GIVE:
            if a.give is None:
                raise self._illegal(
                    rule,
                    a,
                    'choose the card to give: {{"give": CARD}}',
                    _("choose the card to give"),
                )
            card = parse_card(a.give)
            if card not in self.hands[by]:
                raise self._illegal(
                    rule, a, N_("{card} is not in {who}'s hand"), card=a.give, who=a.by
                )
        elif kind == OB_TOP:
            if a.card is None:
                raise self._illegal(
                    rule, a, 'report the start card: {{"top": CARD}}', _("report the start card")
                )
            self._check_known(a, a.card)
        elif kind == OB_TURNED:
            if a.turned is None:
                raise self._illegal(
                    rule,
                    a,
                    'report the card turned: {{"turned": CARD}}',
                    _("report the card turned"),
                )
            self._check_known(a, a.turned)
        elif kind == OB_VERDICT:
            if a.won is None:
                raise self._illegal(
                    rule, a, 'report the outcome: {{"won": true|false}}', _("report the outcome")
                )
        elif kind == OB_REVEAL:
            self._check_reveal(a, by)
        self._do_choose(by, color, target, card, a)

    def _check_known(self, a: Action, code: str) -> int:
        c = parse_card(code)
        if c not in self._known:
            raise self._illegal(
                "ACTION",
                a,
                N_("{card} is not a card of {variant}"),
                card=code,
                variant=self.variant,
            )
        return c

    def _check_reveal(self, a: Action, by: int) -> None:
        if a.reveal is None:
            raise self._illegal(
                "COM-8",
                a,
                'report each opponent\'s cards or points: {{"points": {{NAME: N}}}}',
                _("report each opponent's cards or points"),
            )
        named = set()
        for name, value in a.reveal:
            if name not in self._seat or self._seat[name] == by:
                raise self._illegal(
                    "COM-8", a, N_("{name} is not an opponent of {who}"), name=repr(name), who=a.by
                )
            named.add(name)
            if isinstance(value, tuple):
                for code in value:
                    self._check_known(a, code)
        missing = [p for i, p in enumerate(self.players) if i != by and p not in named]
        if missing:
            raise self._illegal("COM-8", a, N_("missing: {names}"), names=", ".join(missing))

    def _apply_turn(self, a: Action, by: int) -> None:
        verb = a.verb
        if by != self.turn:
            rule = self.turn_rule
            if verb == "press":
                rule = "ATK-26"
            elif verb == "play" and by == self._was_pressed:
                rule = "ATK-7"  # the cards a press brought are not played this turn
            raise self._illegal(
                rule,
                a,
                N_("it is {turn}'s turn, not {who}'s"),
                out_of_turn=True,
                turn=self.players[self.turn],
                who=a.by,
            )
        if verb == "play":
            self._check_and_play(a, by)
        elif verb == "pass":
            if self.phase == TURN:
                raise self._illegal(self.pass_rule, a, self.pass_why)
            self._note("pass", a.by, N_("{who} passes"), who=a.by)
            self._end_turn()
        elif verb in ("draw", "press"):
            self._check_draw_or_press(a, by)
        elif verb in ("challenge", "accept"):
            raise self._illegal(self.challenge_rule, a, N_("there is no Wild Draw card to answer"))
        else:  # choose
            raise self._illegal("ACTION", a, N_("there is no decision to make now"))

    pass_rule: ClassVar[str] = "MK-9"
    #: Why a pass is refused (marked with ``N_``: ``_illegal`` translates it).
    pass_why: ClassVar[str] = N_("a player who does not play must draw first")
    challenge_rule: ClassVar[str] = "MK-20"

    def _check_draw_or_press(self, a: Action, by: int) -> None:
        if a.verb == "press":
            raise self._illegal(
                self.turn_rule, a, N_("{variant} has no launcher: draw"), variant=self.variant
            )
        if self.phase != TURN:
            raise self._illegal(
                self.pass_rule, a, N_("one draw a turn: play the drawn card or pass")
            )
        self._do_draw(by)

    def _check_and_play(self, a: Action, by: int) -> None:
        assert a.card is not None
        card = parse_card(a.card)
        if card not in self._known:
            raise self._illegal(
                "ACTION",
                a,
                N_("{card} is not a card of {variant}"),
                card=a.card,
                variant=self.variant,
            )
        hand = self.hands[by]
        if self.hidden:
            if not hand:
                raise self._illegal(self.turn_rule, a, N_("{who} has no cards"), who=a.by)
        elif card not in hand:
            held = " ".join(card_code(c) for c in hand)
            raise self._illegal(
                self.turn_rule,
                a,
                N_("{who} does not hold {card} (holds {held})"),
                who=a.by,
                card=a.card,
                held=held,
            )
        if self.phase == AFTER_DRAW and not self.hidden and card != self._drawn:
            raise self._illegal(
                self.pass_rule,
                a,
                N_("after drawing only the drawn card ({card}) may be played"),
                card=card_code(self._drawn),
            )
        if not MATCH[self._key][card]:
            top = card_code(self.discard[-1])
            raise self._illegal(
                "COM-2",
                a,
                N_(
                    "{card} matches neither the colour ({colour}), the number nor the symbol"
                    " of the top card {top}"
                ),
                card=a.card,
                colour=colour_field(self.color),
                top=top,
            )
        color = COLOR_NAMES.index(a.color) if a.color is not None else C.WILD
        if card < 128 and a.color is not None and color != card >> 5:
            raise self._illegal(
                "COM-1", a, N_("{card} is not a wild card: its colour is its own"), card=a.card
            )
        target = NO_SEAT
        if a.target is not None:
            if a.target not in self._seat:
                raise self._illegal("ACTION", a, N_("unknown player {name}"), name=repr(a.target))
            target = self._seat[a.target]
        self._check_play_extras(a, by, card, target)
        col_bits = color if color < 4 else NO_COLOR
        self._do_play(by, card, col_bits << 11 | target << 14 | (UNO_BIT if a.uno else 0), a)

    def _check_play_extras(self, a: Action, by: int, card: int, target: int) -> None:
        """Variant hook: check the extra keys of a play (target, give...)."""
        if a.target is not None:
            raise self._illegal("ACTION", a, N_("{card} takes no target"), card=a.card)
        if a.give is not None:
            raise self._illegal("ACTION", a, N_("{card} gives no card"), card=a.card)

    def _do_correct(self, a: Action) -> None:
        if not self.hidden:
            raise self._illegal(
                "ACTION",
                a,
                N_(
                    "hand sizes can only be corrected with hidden hands (the engine"
                    " knows every card here)"
                ),
            )
        assert a.sizes is not None
        for name, size in a.sizes:
            if name not in self._seat:
                raise self._illegal("ACTION", a, N_("unknown player {name}"), name=repr(name))
            seat = self._seat[name]
            w = self.round_winner
            if self.phase >= ROUND_OVER and (size > 0) == (seat == w):
                raise self._illegal(
                    "COM-7",
                    a,
                    N_(
                        "the round is scored already ({who} went out): 'undo' takes "
                        "the score back first"
                    ),
                    who=self.players[w],
                )
            if size == 0 and w >= 0 and w != seat:
                raise self._illegal(
                    "COM-7",
                    a,
                    N_("{who} went out already: one player goes out a round"),
                    who=self.players[w],
                )
            hand = self.hands[seat]
            diff = size - len(hand)
            if diff > 0:
                if len(self.stock) < diff:
                    self._refill()  # COM-5 / ATK-22: the discard pile makes a new stock
                if len(self.stock) < diff:
                    raise self._illegal(
                        "ACTION",
                        a,
                        N_("only {n} cards are left in the stock"),
                        ngettext(
                            "only {n} card is left in the stock",
                            "only {n} cards are left in the stock",
                            len(self.stock),
                        ),
                        n=len(self.stock),
                    )
                del self.stock[len(self.stock) - diff :]
                hand.extend([UNKNOWN] * diff)
            elif diff < 0:
                for _i in range(-diff):
                    hand.remove(UNKNOWN if UNKNOWN in hand else hand[-1])
                self.stock.extend([UNKNOWN] * -diff)
            text = Nn_("{who} now holds {n} card", "{who} now holds {n} cards")
            self._note("correct", name, text, who=name, n=size)
            if seat == w and size > 0:
                self._not_out(seat)
            elif size == 0 and w < 0 and self.phase < ROUND_OVER:
                self._went_out(seat)  # COM-7: a hand of no cards ends the round

    def _not_out(self, seat: int) -> None:
        """COM-7: a hand size correction gives the round's winner cards: they did not go
        out, the round goes on (a wild's colour, dropped when they went out, is asked)."""
        self.round_winner = -1
        self.pending = [ob for ob in self.pending if ob[0] != OB_REVEAL]
        if self.color >= 4 and self.discard and self.discard[-1] >> 5 == C.WILD:
            self.pending.insert(0, (OB_COLOR, seat, 0, 0, "COM-1"))
        if self._log is not None:
            who = self.players[seat]
            self._note("out", who, N_("{who} is not out: the round goes on (COM-7)"), who=who)


def _variant_class(variant: str) -> type[Game]:
    """The subclass of :class:`Game` for ``variant``, from the variants' registry."""
    try:
        return _VARIANT_CLASSES[variant]
    except KeyError:
        raise ValueError(f"unknown variant {variant!r} (one of {', '.join(VARIANTS)})") from None
