"""Cards of the three UNO variants as small integers, with their text codes.

A card is an ``int`` (a *card id*): ``colour * 32 + kind``. Colours are 0 red, 1 yellow,
2 green, 3 blue and 4 for wild cards (COM-1); kinds are the numbers 0-9 and the action and
wild kinds below. Two physical cards of the same face share one id, so a hand is a list of
ids and a deck is a multiset. Ints keep the engine fast (precomputed tables indexed by id)
while the text codes of the scenario format (``r5``, ``yDA``, ``W+4``...) are the public,
round-tripping form::

    >>> c = parse_card("gS")
    >>> card_code(c), card_color(c), is_wild(c)
    ('gS', 2, False)

``UNKNOWN`` (code ``?``) stands for a card nobody has seen (hidden hands, see
:mod:`unolaunch.rules`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from unolaunch.i18n import pgettext

__all__ = [
    "COLORS",
    "COLOR_LETTERS",
    "COLOR_NAMES",
    "KIND_CODES",
    "N_IDS",
    "UNKNOWN",
    "WILD",
    "CardError",
    "card_code",
    "card_color",
    "card_kind",
    "color_index",
    "color_name",
    "color_word",
    "deck_composition",
    "is_wild",
    "make_card",
    "parse_card",
]

COLOR_LETTERS = "rygb"
COLOR_NAMES = ("red", "yellow", "green", "blue")
COLORS = range(4)
WILD = 4  # the "colour" of a wild card before a colour is named

# Kinds: 0-9 are numbers. Coloured actions next, wild kinds after.
SKIP, REVERSE, DRAW2, DRAW1, HIT2, DISCARD_ALL, TRADE_HANDS = 10, 11, 12, 13, 14, 15, 16
(
    K_WILD,
    K_WILD_DRAW4,
    K_WILD_DRAW2,
    K_ITEM_BOX,
    K_HIT4,
    K_ATTACK_ATTACK,
    K_CUSTOMIZABLE,
    K_HIT_FIRE,
    K_ALL_HIT,
    K_DIP,
) = range(17, 27)
K_UNKNOWN = 31

#: kind -> code suffix (coloured kinds) or full code (wild kinds)
KIND_CODES: dict[int, str] = {
    **{n: str(n) for n in range(10)},
    SKIP: "S",
    REVERSE: "R",
    DRAW2: "+2",
    DRAW1: "+1",
    HIT2: "H2",
    DISCARD_ALL: "DA",
    TRADE_HANDS: "TH",
    K_WILD: "W",
    K_WILD_DRAW4: "W+4",
    K_WILD_DRAW2: "W+2",
    K_ITEM_BOX: "WIB",
    K_HIT4: "WH4",
    K_ATTACK_ATTACK: "WAA",
    K_CUSTOMIZABLE: "WC",
    K_HIT_FIRE: "WHF",
    K_ALL_HIT: "WAH",
    K_DIP: "WDD",
}
WILD_KINDS = frozenset(range(17, 27))
N_IDS = 160
UNKNOWN = WILD * 32 + K_UNKNOWN


class CardError(ValueError):
    """A card code that is not a card (message names the code)."""


def make_card(color: int, kind: int) -> int:
    """Return the card id of a ``color`` (0-3, or 4 for a wild) and ``kind``."""
    return color * 32 + kind


def card_color(card: int) -> int:
    """The printed colour of a card: 0-3, or ``WILD`` (4) for a wild card."""
    return card >> 5


def card_kind(card: int) -> int:
    """The kind of a card: 0-9 for numbers, else one of the action/wild kind constants."""
    return card & 31


def is_wild(card: int) -> bool:
    """True for a wild card (it has no printed colour)."""
    return card >> 5 == WILD


_CODE: list[str] = ["" for _ in range(N_IDS)]
_PARSE: dict[str, int] = {}
for _kind, _suffix in KIND_CODES.items():
    if _kind in WILD_KINDS:
        _CODE[make_card(WILD, _kind)] = _suffix
        _PARSE[_suffix] = make_card(WILD, _kind)
    else:
        for _c, _letter in enumerate(COLOR_LETTERS):
            _CODE[make_card(_c, _kind)] = _letter + _suffix
            _PARSE[_letter + _suffix] = make_card(_c, _kind)
_CODE[UNKNOWN] = "?"
_PARSE["?"] = UNKNOWN
CODES: tuple[str, ...] = tuple(_CODE)


def card_code(card: int) -> str:
    """The text code of a card id (``r5``, ``bDA``, ``W+4``; ``?`` for an unknown card)."""
    return _CODE[card]


def parse_card(code: str) -> int:
    """Parse a card code (case-sensitive, as in the scenario format) into a card id.

    Raises :class:`CardError` naming the code when it is not a card.
    """
    try:
        return _PARSE[code]
    except (KeyError, TypeError):
        raise CardError(f"unknown card code {code!r}") from None


def color_index(name: str) -> int:
    """``"red"`` -> 0 ... ``"blue"`` -> 3 (COM-1); raises ``ValueError`` otherwise."""
    try:
        return COLOR_NAMES.index(name)
    except ValueError:
        raise ValueError(f"unknown colour {name!r} (use red, yellow, green or blue)") from None


def color_name(color: int) -> str | None:
    """0 -> ``"red"`` ... 3 -> ``"blue"``; ``None`` for no colour (4)."""
    return COLOR_NAMES[color] if 0 <= color < 4 else None


def color_word(color: int, form: str = "noun") -> str:
    """Colour ``color`` (0-3) in words, in the current language, in the ``form`` the sentence
    needs: ``"noun"`` the colour itself (``colour is now red``; Icelandic *rauður*) or
    ``"card"`` a card's colour (``red 5``; *rautt 5*)."""
    if form == "card":
        # TRANSLATORS: a card's colour, as in "red 5" (Icelandic: neuter, "rautt 5").
        return (
            pgettext("card colour", "red"),
            pgettext("card colour", "yellow"),
            pgettext("card colour", "green"),
            pgettext("card colour", "blue"),
        )[color]
    # TRANSLATORS: the colour as a noun, as in "colour is now red" (Icelandic: "rauður").
    return (
        pgettext("colour", "red"),
        pgettext("colour", "yellow"),
        pgettext("colour", "green"),
        pgettext("colour", "blue"),
    )[color]


def deck_composition(variant: str, options: Mapping[str, Any] | None = None) -> dict[int, int]:
    """The deck of a variant as ``{card id: count}`` (ATK-1/ATK-2, MK-1, PP-1/PP-2).

    ``options`` are the variant's deck options (see :mod:`unolaunch.rules.options`);
    they must already be validated.
    """
    opts = dict(options or {})
    deck: dict[int, int] = {}

    def add(card: int, n: int) -> None:
        if n > 0:
            deck[card] = deck.get(card, 0) + n

    if variant == "attack":  # ATK-1
        for c in COLORS:
            for n in range(1, 10):
                add(make_card(c, n), 2)
            add(make_card(c, REVERSE), 1)
            add(make_card(c, SKIP), 2)
            add(make_card(c, HIT2), 2)
            add(make_card(c, DISCARD_ALL), 2)
        add(make_card(WILD, K_WILD), 4)
        add(make_card(WILD, K_ATTACK_ATTACK), 4)
        add(make_card(WILD, K_CUSTOMIZABLE), 3)
        add(make_card(WILD, K_HIT4), 1)
        if opts.get("extra_cards"):  # ATK-2 optional edition
            add(make_card(WILD, K_HIT_FIRE), int(opts.get("wild_hit_fire", 1)))
            add(make_card(WILD, K_ALL_HIT), int(opts.get("wild_all_hit", 1)))
            for c in COLORS:
                add(make_card(c, TRADE_HANDS), int(opts.get("trade_hands", 1)))
    elif variant == "mario-kart":  # MK-1
        for c in COLORS:
            add(make_card(c, 0), 1)
            for n in range(1, 10):
                add(make_card(c, n), 2)
            add(make_card(c, DRAW2), 2)
            add(make_card(c, REVERSE), 2)
            add(make_card(c, SKIP), 2)
        add(make_card(WILD, K_WILD_DRAW4), 4)
        add(make_card(WILD, K_ITEM_BOX), 8)
    elif variant == "pocket-pizza":  # PP-1, PP-2
        for c in COLORS:
            for n in range(1, 10):
                add(make_card(c, n), 1)
            add(make_card(c, DRAW1), 1)
            add(make_card(c, SKIP), 1)
            add(make_card(c, REVERSE), 1)
        add(make_card(WILD, K_WILD), int(opts.get("wild", 2)))
        add(make_card(WILD, K_DIP), int(opts.get("wild_dip", 1)))
        add(make_card(WILD, K_WILD_DRAW2), int(opts.get("wild_draw2", 1)))
    else:
        raise ValueError(f"unknown variant {variant!r}")
    return deck
