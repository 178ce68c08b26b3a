"""Forgiving table input: what a player types -> the scenario format's action dicts.

Pure: no I/O. :func:`parse` turns one line such as ``r5``, ``red 5``, ``skip``,
``wild blue``, ``attack blue Bob``, ``uno``, ``catch Bob`` or ``challenge`` into either a
:class:`Move` (one or more action dicts of shared scenario FORMAT.md, e.g.
``{"by": "Ann", "play": "r5"}``) or a :class:`Command` for the table itself (``undo``,
``help``, ``fix Bob 5``, ``quit``...). Anything it cannot read raises :class:`ParseError`
whose one-line message says what to type instead; the game is never touched here.

The :class:`Context` says who is awaited and what colour is to be matched, so that short
forms work: ``skip`` or ``5`` mean a card of the colour to match, ``red`` answers a colour
choice, ``press 3`` is a press that shot out three cards.

Icelandic is read beside English whatever language the table speaks (issue 25): each
Icelandic word or phrase is mapped to the English words it stands for by the one glossary
(:mod:`.glossary`) before the line is read (``rautt 5`` is ``red 5``, ``ýta`` is ``press``).
The messages (:class:`ParseError`, :func:`help_text`) are in the table's language.
"""

from __future__ import annotations

import difflib
import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from unolaunch import declension
from unolaunch.errors import UnolaunchError
from unolaunch.i18n import N_, _, current, pgettext
from unolaunch.table import glossary
from unolaunch.table.names import name_key

VARIANTS = ("attack", "mario-kart", "pocket-pizza")
VARIANT_NAMES = {
    "attack": "UNO Attack",
    "mario-kart": "UNO Mario Kart",
    "pocket-pizza": "UNO Pocket Pizza Pizza",
}
COLORS = ("red", "yellow", "green", "blue")
_COLOR_WORDS = {
    "r": "red",
    "red": "red",
    "y": "yellow",
    "yel": "yellow",
    "yellow": "yellow",
    "g": "green",
    "gr": "green",
    "grn": "green",
    "green": "green",
    "b": "blue",
    "bl": "blue",
    "blu": "blue",
    "blue": "blue",
}
_LETTER = {"red": "r", "yellow": "y", "green": "g", "blue": "b"}
_COLOUR_OF_LETTER = {v: k for k, v in _LETTER.items()}
_NUMBER_WORDS = {
    "zero": 0,
    "one": 1,
    "two": 2,
    "three": 3,
    "four": 4,
    "five": 5,
    "six": 6,
    "seven": 7,
    "eight": 8,
    "nine": 9,
}

# Card kinds, by variant. A coloured kind is written <colour letter><suffix> ("r5", "gS",
# "bH2"); a wild kind is its whole code ("WH4"). Codes are those of scenario FORMAT.md.
_COLOURED: dict[str, tuple[str, ...]] = {
    "attack": ("S", "R", "H2", "DA", "TH"),  # TH: optional edition (ATK-2, ATK-19)
    "mario-kart": ("S", "R", "+2"),
    "pocket-pizza": ("S", "R", "+1"),
}
_WILDS: dict[str, tuple[str, ...]] = {
    "attack": ("W", "WH4", "WAA", "WC", "WHF", "WAH"),  # WHF/WAH: optional edition (ATK-2)
    "mario-kart": ("W+4", "WIB"),
    "pocket-pizza": ("W", "WDD", "W+2"),
}
_NUMBERS: dict[str, range] = {
    "attack": range(1, 10),  # ATK-1: no 0
    "mario-kart": range(0, 10),  # MK-1
    "pocket-pizza": range(1, 10),  # PP-1: no 0
}
# Cards that need a target player: Wild Attack-Attack (ATK-15), Trade Hands (ATK-19).
_NEEDS_TARGET = {"WAA", "TH"}

# Phrases naming a card kind, longest first within a kind. "{d2}" entries depend on the
# variant (a coloured Draw Two in Mario Kart, the Wild Draw 2 in Pocket Pizza).
_PHRASES: list[tuple[tuple[str, ...], str]] = [
    (("wild", "attack", "attack"), "WAA"),
    (("wild", "attack"), "WAA"),  # what players call it ('villispil árás')
    (("attack", "attack"), "WAA"),
    (("attack",), "WAA"),
    (("waa",), "WAA"),
    (("aa",), "WAA"),
    (("wild", "hit", "4"), "WH4"),
    (("hit", "4"), "WH4"),
    (("hit4",), "WH4"),
    (("wh4",), "WH4"),
    (("h4",), "WH4"),
    (("wild", "hit", "fire"), "WHF"),
    (("hit", "fire"), "WHF"),
    (("hitfire",), "WHF"),
    (("whf",), "WHF"),
    (("fire",), "WHF"),
    (("wild", "all", "hit"), "WAH"),
    (("all", "hit"), "WAH"),
    (("allhit",), "WAH"),
    (("wah",), "WAH"),
    (("wild", "customizable"), "WC"),
    (("wild", "custom"), "WC"),
    (("customizable",), "WC"),
    (("custom",), "WC"),
    (("wc",), "WC"),
    (("wild", "draw", "4"), "W+4"),
    (("wild", "+4"), "W+4"),  # 'villispil +4'
    (("draw", "4"), "W+4"),
    (("w+4",), "W+4"),
    (("wd4",), "W+4"),
    (("+4",), "W+4"),
    (("d4",), "W+4"),
    (("wild", "draw", "2"), "W+2"),
    (("wild", "+2"), "W+2"),
    (("w+2",), "W+2"),
    (("wd2",), "W+2"),
    (("wild", "item", "box"), "WIB"),
    (("item", "box"), "WIB"),
    (("itembox",), "WIB"),
    (("wib",), "WIB"),
    (("box",), "WIB"),
    (("wild", "dip", "into", "the", "deck"), "WDD"),
    (("dip", "into", "the", "deck"), "WDD"),
    (("wild", "dip", "into", "deck"), "WDD"),  # "the" is filler in a play: gone by now
    (("dip", "into", "deck"), "WDD"),
    (("wild", "dip"), "WDD"),
    (("dip",), "WDD"),
    (("wdd",), "WDD"),
    (("wild",), "W"),
    (("w",), "W"),
    (("hit", "2"), "H2"),
    (("hit2",), "H2"),
    (("h2",), "H2"),
    (("discard", "all"), "DA"),
    (("discardall",), "DA"),
    (("discard",), "DA"),
    (("da",), "DA"),
    (("trade", "hands"), "TH"),
    (("trade",), "TH"),
    (("th",), "TH"),
    (("draw", "2"), "{d2}"),
    (("+2",), "{d2}"),
    (("d2",), "{d2}"),
    (("draw", "1"), "+1"),
    (("+1",), "+1"),
    (("d1",), "+1"),
    (("skip",), "S"),
    (("reverse",), "R"),
    (("rev",), "R"),
]
_FILLER = {"play", "plays", "played", "a", "the", "on", "at", "to", "and", "with", "card", "then"}
_COMPACT = re.compile(r"^([rygb])(\d|s|r|h2|da|th|\+1|\+2|d1|d2)$")
_SUFFIX = {"s": "S", "r": "R", "h2": "H2", "da": "DA", "th": "TH", "+1": "+1", "+2": "+2"}
_SUFFIX.update({"d1": "+1", "d2": "+2"})

#: Card kinds in words (English; translated where shown: ``_(KIND_NAMES[kind])``).
KIND_NAMES = {
    "S": N_("Skip"),
    "R": N_("Reverse"),
    "H2": N_("Hit 2"),
    "DA": N_("Discard All"),
    "TH": N_("Trade Hands"),
    "+2": N_("Draw Two"),
    "+1": N_("Draw One"),
    "W": N_("Wild"),
    "WH4": N_("Wild Hit 4"),
    "WAA": N_("Wild Attack-Attack"),
    "WC": N_("Wild Customizable"),
    "WHF": N_("Wild Hit Fire"),
    "WAH": N_("Wild All Hit"),
    "W+4": N_("Wild Draw Four"),
    "WIB": N_("Wild Item Box"),
    "W+2": N_("Wild Draw 2"),
    "WDD": N_("Wild Dip Into The Deck"),
}


class ParseError(UnolaunchError, ValueError):
    """The input could not be read; the message is one line saying what to type instead."""


@dataclass(frozen=True)
class Context:
    """What the parser needs to know about the position to read short forms.

    ``awaiting_by``/``verbs`` come from the engine's ``awaiting``; ``color`` is the colour
    to match (``None`` before the first card is known); ``launcher`` is true when presses
    come from a connected launcher rather than being typed with their card count.
    """

    variant: str
    players: tuple[str, ...]
    awaiting_by: str | None = None
    verbs: tuple[str, ...] = ()
    color: str | None = None
    top: str | None = None
    launcher: bool = False
    choice: str | None = None  # what the awaited player owes (Session.choice())
    deck: frozenset[str] = frozenset()  # codes of the game's deck (empty: the variant's)


@dataclass(frozen=True)
class Move:
    """One or more actions (scenario-format dicts) to apply in order."""

    actions: tuple[dict[str, Any], ...]
    missed: bool = False  # a press the launcher missed, typed with its cards (ATK-25)


@dataclass(frozen=True)
class Command:
    """Something for the table, not a game action: ``undo``, ``help``, ``fix``, ``quit``,
    ``uno`` (the last player to play says UNO), ``show`` (redraw)."""

    name: str
    args: tuple[Any, ...] = field(default_factory=tuple)


Parsed = Move | Command


class Word(str):
    """A word the parser reads (lower case, English: ``red``), remembering what the player
    typed for it (``typed``: ``Rauð``; a phrase's words share theirs, ``slepptu spil`` for
    ``skip``) and where (``at``, the typed word's index), so that a refusal quotes the
    player's own words (:func:`quoted`), never the parser's."""

    typed: str
    at: int

    def __new__(cls, word: str, typed: str, at: int) -> Word:
        """``word`` read from ``typed``, the ``at``-th word of the line."""
        self = super().__new__(cls, word)
        self.typed = typed
        self.at = at
        return self


def quoted(words: Sequence[str]) -> str:
    """What the player typed for ``words`` (tokens of :func:`tokens_of`), in quotes, as it
    was typed: case, accents and Icelandic words kept (``'Rauð fimmaa'``)."""
    seen: dict[int, str] = {}
    for i, w in enumerate(words):
        if w == ",":
            continue
        if isinstance(w, Word):
            seen.setdefault(w.at, w.typed)
        else:  # not from tokens_of: as it is
            seen.setdefault(100_000 + i, str(w))
    return repr(" ".join(seen[k] for k in sorted(seen)))


def tokens_of(text: str, commas: bool = False) -> list[str]:
    """Lower-case words of ``text``; ``Bob:`` -> ``bob``, number words become digits,
    ``draw two`` -> ``draw 2``. Commas are spaces, or (``commas``) ``","`` tokens that end
    a card in a list of cards (``wild, blue skip``). Each is a :class:`Word` that knows
    what was typed for it."""
    text = unicodedata.normalize("NFC", text)  # a pasted or macOS-typed name (Zoe\u0308)
    raw = text.replace(",", " , " if commas else " ").replace(":", " ").split()
    out: list[str] = []
    for w in _english(raw):
        assert isinstance(w, Word)
        glued = _GLUED.match(w)
        if glued:  # "red7", "blue+2": a colour word glued to its card
            out += [Word(glued.group(1), w.typed, w.at), Word(glued.group(2), w.typed, w.at)]
        elif w in _NUMBER_WORDS:
            out.append(Word(str(_NUMBER_WORDS[w]), w.typed, w.at))
        else:
            out.append(w)
    return out


_GLUED = re.compile(r"^(red|yellow|yel|green|grn|blue|blu)(\d|\+\d|skip|reverse|rev)$")


def _english(raw: list[str]) -> list[Word]:
    """The words typed (``raw``, as typed) in lower case, each Icelandic word or phrase of
    the glossary replaced by the English words it stands for, longest phrase first
    (``slepptu spil`` -> ``skip``)."""
    words = [w.lower() for w in raw]
    out: list[Word] = []
    i = 0
    while i < len(words):
        for n in range(min(_LONGEST, len(words) - i), 0, -1):
            english = _ICELANDIC.get(" ".join(words[i : i + n]))
            if english is not None:
                said = " ".join(raw[i : i + n])
                out += [Word(e, said, i) for e in english.split()]
                i += n
                break
        else:
            out.append(Word(words[i], raw[i], i))
            i += 1
    return out


def _player(word: str, players: Sequence[str]) -> str | None:
    """The player named ``word`` (case-insensitive; in any case of an Icelandic name:
    ``Þóru`` is Þóra, ``Erni`` Örn; a unique prefix of 2+ letters works; without its
    accents too when nobody is named so: ``orn`` is Örn, ``thora`` Þóra)."""
    for key in (name_key, _plain_key):
        typed = key(word)
        exact = [p for p in players if key(p) == typed]
        if exact:
            return exact[0]
        declined = [p for p in players if typed in {key(f) for f in declension.readings(p)}]
        if len(declined) == 1:
            return declined[0]
        if len(typed) >= 2:
            prefixed = [p for p in players if key(p).startswith(typed)]
            if len(prefixed) == 1:
                return prefixed[0]
    return None


def _plain_key(name: str) -> str:
    return glossary.plain(name_key(name))


def _count(word: str) -> int | None:
    return int(word) if word.isdigit() and len(word) <= 3 else None


def _card_kinds(variant: str) -> set[str]:
    return set(_COLOURED[variant]) | set(_WILDS[variant])


def _resolve_kind(kind: str, variant: str) -> str:
    if kind == "{d2}":
        return "W+2" if variant == "pocket-pizza" else "+2"
    return kind


def card_code(text: str, ctx: Context, default_color: bool = True) -> str:
    """Read one card (``r5``, ``red 5``, ``wild``, ``WH4``) as its code; for the cards left
    in a hand at round end and for cards the table must name (a Wild Item Box's turn-up)."""
    return _one_card(tokens_of(text), ctx, default_color)


def _one_card(toks: list[str], ctx: Context, default_color: bool = True) -> str:
    """:func:`card_code` of words already read."""
    codes = _cards_in(toks, ctx, default_color)
    if len(codes) != 1:
        raise ParseError(
            _("{text} is not one card; write it like r5, 'green skip' or WH4").format(
                text=quoted(toks)
            )
        )
    return codes[0]


def _cards_in(
    toks: list[str], ctx: Context, default_color: bool, any_colour: bool = False
) -> list[str]:
    """Every card named in ``toks`` (a list such as ``r5 g7 wild`` or ``r5, wild, b7``:
    a ``","`` token ends a card). ``any_colour``: a card named without its colour (``+2``
    in a hand at round end, whose points do not depend on it) takes one in turn."""
    cards: list[str] = []
    i = 0
    while i < len(toks):
        if toks[i] == ",":
            i += 1
            continue
        if any_colour:
            free = replace(ctx, color=COLORS[len(cards) % 4])
            code, _named, i = _next_card(toks, i, free, True)
            cards.append(code)
            continue
        code, _named, i = _next_card(toks, i, ctx, default_color)
        cards.append(code)
    return cards


def _starts_coloured(toks: list[str], j: int, variant: str) -> bool:
    """Whether ``toks[j]`` begins a coloured card's name (a number, ``skip``, ``hit 2``...):
    then a colour word just before it is that card's colour, not a wild's."""
    if j >= len(toks):
        return False
    if toks[j].isdigit() and len(toks[j]) == 1:
        return True
    try:
        kind, _used = _match_kind(toks, j, variant)
    except ParseError:
        return False
    return kind is not None and not kind.startswith("W")


def _next_card(
    toks: list[str], i: int, ctx: Context, default_color: bool
) -> tuple[str, str | None, int]:
    """Read the card starting at ``toks[i]``: its code, the colour named with it when it
    is a wild (``wild blue``, ``blue wild``), and the index after it."""
    pending: str | None = None
    m = _COMPACT.match(toks[i])
    if m and not _starts_coloured(toks, i + 1, ctx.variant):
        # "gR" is the green Reverse, not "gr" (green) before a card: 'gR g7', 'gr 5'
        return _coloured_code(_COLOR_WORDS[m.group(1)], m.group(2), ctx), None, i + 1
    if toks[i] in _COLOR_WORDS:
        pending = _COLOR_WORDS[toks[i]]
        i += 1
        if i == len(toks) or toks[i] == ",":
            raise ParseError(
                _("{colour} what? name the card too, e.g. '{colour} 5'").format(
                    colour=_colour(pending)
                )
            )
        if toks[i] in _COLOR_WORDS:
            other = _COLOR_WORDS[toks[i]]
            two = (
                _(
                    "two colours ({first}, {second}): name one card, e.g. '{second} 5' "
                    "or 'wild {second}'"
                )
                if "W" in _WILDS[ctx.variant]
                else _("two colours ({first}, {second}): name one card, e.g. '{second} 5'")
            )
            raise ParseError(two.format(first=_colour(pending), second=_colour(other)))
    tok = toks[i]
    m = _COMPACT.match(tok)
    if m and pending is None:
        return _coloured_code(_COLOR_WORDS[m.group(1)], m.group(2), ctx), None, i + 1
    kind, used = _match_kind(toks, i, ctx.variant)
    if kind is None and tok.isdigit() and len(tok) == 1:
        kind, used = tok, 1
    if kind is None:
        meant = _did_you_mean(tok, ctx)
        raise ParseError(
            _("{word} is not a card here — did you mean '{meant}'? ({examples})").format(
                word=quoted([tok]), meant=meant, examples=_examples(ctx.variant)
            )
            if meant
            else _("{word} is not a card here; {examples}").format(
                word=quoted([tok]), examples=_examples(ctx.variant)
            )
        )
    i += used
    if kind.startswith("W"):
        # "wild blue" names the wild's colour, but in "wild blue skip" (a hand at round end)
        # or "item box red skip" (the card it turned) the colour belongs to the next card.
        if (
            pending is None
            and i < len(toks)
            and toks[i] in _COLOR_WORDS
            and not _starts_coloured(toks, i + 1, ctx.variant)
            and not (kind == "WIB" and _COMPACT.match(toks[i]))  # 'item box gR' (MK-13)
        ):
            pending = _COLOR_WORDS[toks[i]]
            i += 1
        elif (
            pending is None
            and toks[i : i + 1] == [","]
            and len(toks) == i + 2
            and toks[i + 1] in _COLOR_WORDS
        ):
            pending = _COLOR_WORDS[toks[i + 1]]  # "wild, blue": a colour alone is no card
            i += 2
        return kind, pending, i
    colour = pending
    if colour is None and i < len(toks) and toks[i] in _COLOR_WORDS:
        colour = _COLOR_WORDS[toks[i]]
        i += 1
    if colour is None:
        colour = ctx.color if default_color else None
    if colour is None:
        raise ParseError(
            _("which colour is the {card}? e.g. 'red {word}'").format(
                card=_kind_name(kind), word=_say_phrase(" ".join(toks[i - used : i]))
            )
        )
    return _coloured_code(colour, kind, ctx), None, i


def _did_you_mean(word: str, ctx: Context) -> str:
    """The word a misspelt ``word`` most likely is, in the table's language: a colour, a
    card word of this variant, a verb or a player's name (``bleu`` -> ``blue``; in
    Icelandic ``fimmaa`` -> ``fimma``, ``bleu`` -> ``blátt``); empty when nothing is close."""
    words = set(COLORS) | _VERBS | {"pass", "accept", "catch"}
    kinds = _card_kinds(ctx.variant)
    words |= {p[0] for p, k in _PHRASES if _resolve_kind(k, ctx.variant) in kinds}
    players = {p.lower(): p for p in ctx.players}  # typed words are lower-cased
    if current() == "is":
        # Icelandic words only: each English word's Icelandic one and the number cards'
        # nouns first; then a typo of an English word gets the Icelandic word for it.
        said = {e: glossary.SAY[e] for e in sorted(words) if e in glossary.SAY}
        nouns = [n for d, n in glossary.NUMBER_NOUNS.items() if int(d) in _NUMBERS[ctx.variant]]
        icelandic = {w: w for w in [*said.values(), *nouns] if " " not in w}
        tries = [{**icelandic, **players}, said]
    else:
        tries = [{**{w: w for w in words}, **players}]
    for known in tries:
        close = difflib.get_close_matches(word, [w for w in known if w != word], n=1, cutoff=0.6)
        if close:
            return known[close[0]]
    return ""


def _kind_of(code: str) -> str:
    """The kind part of a card code: ``rS`` -> ``S``, ``WH4`` -> ``WH4``."""
    return code if code.startswith("W") else code[1:]


def _kind_name(kind: str) -> str:
    """A card kind in words, in the table's language (``S`` -> ``Skip`` / ``Sleppa``)."""
    name = KIND_NAMES.get(kind)
    return _(name) if name else kind


def _colour(colour: str) -> str:
    """A card's colour in words (``red``; Icelandic: neuter, as of a card: ``rautt``)."""
    return {
        # TRANSLATORS: the colour of a card (Icelandic: neuter, "rautt spil").
        "red": pgettext("card colour", "red"),
        "yellow": pgettext("card colour", "yellow"),
        "green": pgettext("card colour", "green"),
        "blue": pgettext("card colour", "blue"),
    }[colour]


def _colour_name(colour: str) -> str:
    """A colour named alone, as when choosing one (Icelandic: masculine, ``rauður``)."""
    return {
        # TRANSLATORS: a colour named alone (Icelandic: "litur", masculine: rauður).
        "red": pgettext("colour", "red"),
        "yellow": pgettext("colour", "yellow"),
        "green": pgettext("colour", "green"),
        "blue": pgettext("colour", "blue"),
    }[colour]


def _say(word: str) -> str:
    """A word the parser read (its English form) as the table's language writes it in an
    example: ``skip`` -> ``sleppa`` in Icelandic; codes, numbers and names as they are."""
    if current() != "is":
        return word
    return glossary.SAY.get(word, word)


def _say_phrase(text: str) -> str:
    """:func:`_say` for each word of ``text`` (``hit 2`` -> ``högg 2``)."""
    return " ".join(_say(w) for w in text.split())


def _coloured_code(colour: str, kind: str, ctx: Context) -> str:
    kind = _SUFFIX.get(kind, kind)
    if kind.isdigit():
        if int(kind) not in _NUMBERS[ctx.variant]:
            raise ParseError(
                _(
                    "there is no {colour} {number} in {game} (numbers {low}-9); "
                    "type the card you played"
                ).format(
                    colour=_colour(colour),
                    number=kind,
                    game=VARIANT_NAMES[ctx.variant],
                    low=_NUMBERS[ctx.variant].start,
                )
            )
    elif kind not in _COLOURED[ctx.variant]:
        raise ParseError(_not_a_card_of(kind, ctx.variant))
    return _LETTER[colour] + kind


#: The card of another variant a player most likely means by this variant's card.
_MEANT = {
    "attack": {"+2": "hit 2", "W+4": "hit 4", "W+2": "hit 2", "+1": "hit 2"},
    "mario-kart": {"H2": "+2", "WH4": "wd4", "W+2": "+2", "+1": "+2"},
    "pocket-pizza": {"H2": "+1", "WH4": "wd2", "W+4": "wd2", "+2": "wd2"},
}


_HIT_NEXT = (["2"], ["4"], ["fire"])


def _match_kind(toks: list[str], i: int, variant: str) -> tuple[str | None, int]:
    """The card kind named by the phrase starting at ``toks[i]``, and how many words it used."""
    if variant == "attack" and toks[i] == "hit" and toks[i + 1 : i + 2] not in _HIT_NEXT:
        # ATK-11 or ATK-14: both are "a hit"; guessing would record the wrong presses.
        raise ParseError(
            _(
                "which hit? a Hit 2 ('hit 2', 'red hit 2', ATK-11) or a Wild Hit 4 "
                "('hit 4 red', ATK-14)"
            )
        )
    for phrase, kind in _PHRASES:
        n = len(phrase)
        if tuple(toks[i : i + n]) == phrase:
            resolved = _resolve_kind(kind, variant)
            if resolved in _card_kinds(variant):
                return resolved, n
            meant = _MEANT[variant].get(resolved)
            if meant is not None:
                raise ParseError(
                    _("there is no {card} in {game}: did you mean '{meant}'? ({examples})").format(
                        card=_kind_name(resolved),
                        game=VARIANT_NAMES[variant],
                        meant=_say_phrase(meant),
                        examples=_examples(variant),
                    )
                )
            if n == 1 and resolved in KIND_NAMES:
                # A real card of another variant: say so rather than "not a card".
                raise ParseError(_not_a_card_of(resolved, variant))
    return None, 0


def _not_in_deck(code: str, variant: str) -> str:
    """A card of the variant that this game's deck (its options) leaves out."""
    name = _kind_name(_kind_of(code))
    if variant == "attack":  # the optional edition's cards
        why = _("ATK-2: the optional edition's cards come with the game option extra_cards")
    elif variant == "pocket-pizza":  # the number of each wild is a deck option
        why = _("PP-2: how many of each wild is a game option")
    else:
        why = "MK-1"
    return _("there is no {card} in this game's deck ({why}); type the card you played").format(
        card=name, why=why
    )


def _not_a_card_of(kind: str, variant: str) -> str:
    """A card of another variant: "Hit 2 is not a UNO Mario Kart card; try ..."."""
    if variant == "attack":
        text = _("{card} is not an UNO Attack card; {examples}")
    elif variant == "mario-kart":
        text = _("{card} is not a UNO Mario Kart card; {examples}")
    else:
        text = _("{card} is not a UNO Pocket Pizza Pizza card; {examples}")
    return text.format(card=_kind_name(kind), examples=_examples(variant))


def _examples(variant: str) -> str:
    if variant == "attack":
        return _("try 'r5', 'green skip', 'hit 2', 'wild blue', 'attack blue Bob', or 'help'")
    if variant == "mario-kart":
        return _("try 'r5', 'green skip', '+2', 'wild draw 4 red', 'item box g7', or 'help'")
    return _("try 'r5', 'green skip', '+1', 'wild blue', 'dip blue', or 'help'")


def parse(text: str, ctx: Context) -> Parsed:
    """Read one line of table input in the position described by ``ctx``.

    Returns a :class:`Move` or a :class:`Command`; raises :class:`ParseError` with a
    one-line explanation when the line cannot be read.
    """
    listed = tokens_of(text, commas=True)  # the play's cards, a "," ending each
    toks = [t for t in listed if t != ","]
    if not toks:
        return Command("show")
    by = ctx.awaiting_by
    named: str | None = None
    # "Bob: r5", "bob r5": an explicit actor.
    colon = _ACTOR.match(text) is not None  # "Bob: 5" is Bob's move, never a fix
    if len(toks) > 1:
        named = _player(toks[0], ctx.players) if not _is_word(toks[0]) else None
        if named is not None and _is_fix(toks) and not colon and ctx.choice != "reveal":
            n = toks[1]
            raise ParseError(
                _(
                    "did {who} play a {n} (type '{who}: {n}') or does {who} hold {n} "
                    "cards (type 'fix {who} {n}')?"
                ).format(who=named, n=n)
            )
        if named is not None and toks[1] not in ("has", "=") and (colon or not _is_fix(toks)):
            by = named
            listed = listed[listed.index(toks[0]) + 1 :]
            toks = toks[1:]
    command = _command(toks, ctx)
    if command is not None:
        return command
    head = toks[0]
    rest = toks[1:]
    if by is None:
        raise ParseError(_("nobody is awaited right now; type 'help' to see what you can do"))
    if ctx.choice in ("top", "turned", "give", "won"):
        return _table_fact(by, toks, ctx)

    if head in ("press", "p", "pressed"):
        return _press(by, rest, ctx)
    if head in ("missed", "miss") and rest[:1] in (["press"], ["p"], ["pressed"]):
        # ATK-25: a press the launcher did not see (its cards came out, or it was off).
        move = _press(by, rest[1:], ctx)
        if "cards" not in move.actions[0]:
            raise ParseError(_("a missed press is typed with its cards, e.g. 'missed press 3'"))
        return Move(move.actions, missed=True)
    if (
        (head.isdigit() or toks in _NO_CARDS)
        and "press" in ctx.verbs
        and not ctx.launcher
        and "play" not in ctx.verbs
    ):
        return _press(by, toks, ctx)  # "3": the press shot out three cards; "none": 0
    taken = _taking(head, rest)
    if ctx.variant == "attack":
        _not_in_attack(head, rest, taken is not None, ctx.launcher)
    if taken is not None:
        return _draw(by, taken, ctx)
    if head in ("pass", "done", "keep", "end", "ok") and not rest:
        return Move(({"by": by, "pass": True},))
    if head in ("challenge", "ch", "chal", "challenged"):
        return _challenge(by, rest, ctx)
    if (head in ("accept", "take", "no") and not rest) or toks == ["no", "challenge"]:
        return Move(({"by": by, "accept": True},))
    if head in ("catch", "caught", "c"):
        return _catch(by, rest, ctx, named is not None)
    if head in ("choose", "pick", "name", "target"):
        return _choose(by, rest, ctx)
    if "choose" in ctx.verbs and "play" not in ctx.verbs and len(toks) == 1:
        return _choose(by, toks, ctx)
    return _play(by, listed, ctx)


_ACTOR = re.compile(r"^\s*[^\s:,]+\s*:")

_YES = {"yes", "y", "won", "win", "true", "guilty", "held", "right", "succeeded"}
_NO = {"no", "n", "lost", "lose", "false", "innocent", "clean", "wrong", "failed"}


def _table_fact(by: str, toks: list[str], ctx: Context) -> Move:
    """A fact only the table knows: the start card, an Item Box's card, a card given,
    a challenge's outcome (hidden hands, docs/architecture.md §1)."""
    if ctx.choice == "won":
        words = [w for w in toks if w not in ("challenge", "the", "it")]
        if len(words) == 1 and words[0] in _YES | _NO:
            return Move(({"by": by, "choose": {"won": words[0] in _YES}},))
        raise ParseError(
            _(
                "did the challenge succeed? type 'won' (the hand held a card that makes it "
                "succeed) or 'lost'"
            )
        )
    key = {"top": "top", "turned": "turned", "give": "give"}[str(ctx.choice)]
    words = [w for w in toks if w not in _FILLER and w not in ("turned", "is", "was", "top")]
    try:
        code = _one_card(words, ctx, default_color=False)
    except ParseError:
        what = {
            "top": _(
                "{text} is not one card; type the card turned up to start the pile, "
                "e.g. r5, 'green skip' or W"
            ),
            "turned": _(
                "{text} is not one card; type the card the Item Box turned up, "
                "e.g. r5, 'green skip' or W"
            ),
            "give": _("{text} is not one card; type the card given, e.g. r5, 'green skip' or W"),
        }[key]
        raise ParseError(what.format(text=quoted(toks))) from None
    return Move(({"by": by, "choose": {key: code}},))


def _is_fix(toks: list[str]) -> bool:
    return len(toks) == 2 and _count(toks[1]) is not None


#: The simulated launcher's controls after ``sim`` (what 'unolaunch sim' reads).
_SIM_WORDS = {"jam", "unjam", "load", "unplug", "replug", "reset", "stall", "unstall", "hold"}
_SIM_WORDS |= {"press", "down", "up"}


def _command(toks: list[str], ctx: Context) -> Command | None:
    head, rest = toks[0], toks[1:]
    if head == "sim":
        # --port sim: a control of the simulated launcher ('sim jam', 'sim load 40').
        if not rest:
            raise ParseError(
                _(
                    "'sim' and a simulator command: sim jam, sim unjam, sim load N, sim unplug, "
                    "sim replug, sim reset, sim stall, sim unstall, sim hold MS, sim press"
                )
            )
        return Command("sim", (" ".join(rest),))
    if head in ("undo", "u", "oops", "back"):
        if not rest:
            return Command("undo", (1,))
        n = _count(rest[0])
        if n is None or n < 1 or len(rest) > 1:
            raise ParseError(_("undo how many actions? e.g. 'undo' or 'undo 3'"))
        return Command("undo", (n,))
    if head in ("help", "?", "h", "commands"):
        return Command("help", tuple(rest[:1]))
    if head in ("quit", "exit", "q", "bye"):
        return Command("quit")
    if head in ("clear", "stop", "unjam", "reset") and not rest:
        return Command("clear")
    if head in ("show", "redraw", "screen", "status", "scores", "score"):
        return Command("show")
    if head == "save" and not rest:  # a full disk freed: store what waits (issue 33)
        return Command("save")
    if head == "uno" and not rest:
        return Command("uno")
    if head in ("fix", "set", "hand", "cards"):
        return _fix(rest, ctx)
    # "Bob has 5", "Bob 5", "bob = 5": correct a hand size.
    named = _player(head, ctx.players)
    if named is not None and (_is_fix(toks) or (len(toks) == 3 and toks[1] in ("has", "="))):
        return _fix(toks, ctx)
    return None


def _fix(rest: list[str], ctx: Context) -> Command:
    words = [w for w in rest if w not in ("has", "=", "to", "cards", "card")]
    if len(words) == 2:
        who = _player(words[0], ctx.players)
        n = _count(words[1])
        if who is not None and n is not None:
            return Command("fix", (who, n))
    names = "/".join(ctx.players)
    raise ParseError(
        _("to correct a hand size type 'fix PLAYER N', e.g. 'fix {player} 5' ({players})").format(
            player=ctx.players[0], players=names
        )
    )


#: Words for taking cards from the stock (PP-6, MK-9): never a Draw card's name.
_DRAW_WORDS = {"draw", "d", "drew", "draws", "took", "takes", "taken", "drawn"}
_PICK_WORDS = {"pick", "picked", "picks"}
_DRAW_FILLER = {"a", "an", "card", "cards", "up", "from", "the", "deck", "stock", "pile", "new"}


def _taking(head: str, rest: list[str]) -> list[str] | None:
    """The words after a verb for taking cards (``draw``, ``drew a card``, ``took 2``,
    ``pick up``) without filler, or ``None`` when the line is no such verb — a colour or
    wild named with it makes it a card (``red draw one``, ``draw two green``, PP-9/MK-10)."""
    if head in _PICK_WORDS:
        if rest[:1] != ["up"]:
            return None
    elif head not in _DRAW_WORDS:
        return None
    words = [w for w in rest if w not in _DRAW_FILLER]
    if any(w in _COLOR_WORDS or w in ("wild", "w") for w in words):
        return None
    return words


#: The Draw card a player may mean by "draw N", by variant and N.
_DRAW_CARD = {
    "mario-kart": {
        2: N_(
            "did {who} play a Draw Two (MK-10: type '+2' or 'red draw two') or take cards "
            "from the stock ('draw': one card a turn)?"
        ),
        4: N_(
            "did {who} play a Wild Draw Four (MK-12: type 'wd4 blue' or 'wild draw 4 blue') "
            "or take cards from the stock ('draw': one card a turn)?"
        ),
    },
    "pocket-pizza": {
        2: N_(
            "did {who} play a Wild Draw 2 (PP-12: type 'wd2 blue' or 'wild draw 2 blue') or "
            "take cards from the stock ('draw': one card a turn)?"
        )
    },
}


def _draw(by: str, words: list[str], ctx: Context) -> Move:
    """Taking cards: one a turn (PP-6, MK-9). ``draw 2`` where a Draw card could be
    meant asks which; the cards a Draw card makes a player take are counted already."""
    n = 1 if not words else (_count(words[0]) if len(words) == 1 else None)
    if n is None or n < 1:
        raise ParseError(
            _("to take a card from the stock type 'draw' (one card a turn); {examples}").format(
                examples=_examples(ctx.variant)
            )
        )
    if n == 1:
        return Move(({"by": by, "draw": True},))
    if "play" not in ctx.verbs and "draw" in ctx.verbs and n <= 20:
        return Move(tuple({"by": by, "draw": True} for _ in range(n)))  # owed draws
    card = _DRAW_CARD.get(ctx.variant, {}).get(n)
    if card is not None:
        raise ParseError(_(card).format(who=by))
    raise ParseError(
        _(
            "a turn takes one card from the stock: type 'draw' (the cards a Draw card makes "
            "a player take are counted by the table); {examples}"
        ).format(examples=_examples(ctx.variant))
    )


#: A press that brought out no card: ``none``, ``no cards``, ``nothing``, ``0``.
_NO_CARDS = (["none"], ["nothing"], ["no"], ["no", "cards"], ["no", "card"])


def _not_in_attack(
    head: str, rest: list[str], taking: bool = False, launcher: bool = False
) -> None:
    """Words of the other variants that UNO Attack has no use for, answered with what the
    player meant: there is no challenge (ATK-14) and no drawing — the launcher is the
    stock (ATK-3, ATK-5) — and no Draw Two (ATK-1: the Hit 2). ``launcher``: a working
    launcher counts a press's cards itself, so a press with its count is not suggested
    (it would be refused, ATK-25)."""
    if head in ("challenge", "ch", "chal", "challenged", "accept"):
        raise ParseError(
            _(
                "there is no challenge in UNO Attack (ATK-14): a Wild Hit 4 is 4 presses for "
                "the next player; type 'press'"
            )
        )
    if head in ("draw", "d", "drew", "draws") or taking:
        if rest[:1] == ["2"] and len(rest) == 1 and head in ("draw", "d"):
            if launcher:
                raise ParseError(
                    _("there is no Draw Two in UNO Attack: did you mean 'hit 2' (ATK-11)?")
                )
            raise ParseError(
                _(
                    "there is no Draw Two in UNO Attack: did you mean 'hit 2' (ATK-11)? "
                    "(cards that came out of a press: 'press 2')"
                )
            )
        if launcher:
            raise ParseError(
                _(
                    "there is no drawing in UNO Attack: the launcher is the stock (ATK-3); "
                    "type 'press' and press its button"
                )
            )
        raise ParseError(
            _(
                "there is no drawing in UNO Attack: the launcher is the stock (ATK-3); "
                "type 'press' (or 'press N' with the cards that came out)"
            )
        )


def _press(by: str, rest: list[str], ctx: Context) -> Move:
    words = [w for w in rest if w not in ("cards", "card", "came", "out")]
    if not words:
        return Move(({"by": by, "press": True},))
    if words in (["none"], ["nothing"], ["no"]):
        words = ["0"]  # no card came out
    n = _count(words[0])
    if n is None or len(words) > 1 or n > 112:
        if ctx.launcher:  # it counts the cards itself (ATK-25): a count is not asked for
            raise ParseError(_("type 'press': the launcher counts the cards that come out"))
        raise ParseError(
            _("type 'press' or 'press N' where N is how many cards came out, e.g. 'press 3'")
        )
    return Move(({"by": by, "press": True, "cards": n},))


def _challenge(by: str, rest: list[str], ctx: Context) -> Move:
    action: dict[str, Any] = {"by": by, "challenge": True}
    words = [w for w in rest if w not in _FILLER]
    if words:
        # The table tells the outcome (hidden hands): "challenge won" / "challenge lost".
        if words[0] in ("won", "win", "wins", "yes", "guilty", "held"):
            action["won"] = True
        elif words[0] in ("lost", "lose", "loses", "no", "innocent", "clean"):
            action["won"] = False
        else:
            raise ParseError(
                _("type 'challenge', or 'challenge won' / 'challenge lost' if you know")
            )
    return Move((action,))


def _catch(by: str, rest: list[str], ctx: Context, named: bool = False) -> Move:
    words = [w for w in rest if w not in _FILLER and w not in ("uno", "not", "saying")]
    if len(words) != 1 or _player(words[0], ctx.players) is None:
        meant = _did_you_mean(words[0], ctx) if words else ""
        if meant in ctx.players:
            raise ParseError(_("catch whom? did you mean 'catch {player}'?").format(player=meant))
        raise ParseError(
            _("catch whom? e.g. 'catch {player}'; players: {players}").format(
                player=ctx.players[-1], players=", ".join(ctx.players)
            )
        )
    caught = _player(words[0], ctx.players)
    assert caught is not None
    catcher = by
    if catcher == caught and named:
        others = [p for p in ctx.players if p != caught]
        raise ParseError(
            _(
                "{caught} cannot catch themselves (COM-6): who caught {caught}? "
                "e.g. '{other} catch {caught}'"
            ).format(caught=caught, other=others[0])
        )
    if catcher == caught:
        # "catch Bob" typed while Bob is awaited: the catcher is someone else at the table.
        i = ctx.players.index(caught)
        catcher = ctx.players[(i + 1) % len(ctx.players)]
    return Move(({"by": catcher, "catch": caught},))


def _choose(by: str, rest: list[str], ctx: Context) -> Move:
    words = [w for w in rest if w not in _FILLER]
    if len(words) == 1:
        if words[0] in _COLOR_WORDS:
            return Move(({"by": by, "choose": {"color": _COLOR_WORDS[words[0]]}},))
        who = _player(words[0], ctx.players)
        if who is not None and ctx.choice != "color":
            return Move(({"by": by, "choose": {"target": who}},))
    if ctx.choice == "color":
        typed = words[0] if words else ""
        names = {c: _colour_name(c) for c in COLORS}
        meant = (
            difflib.get_close_matches(typed, list(COLORS), n=1)
            or [c for c, name in names.items() if difflib.get_close_matches(typed, [name], n=1)][:1]
        )
        text = quoted(words)
        if meant:
            raise ParseError(
                _(
                    "{text} is not a colour: type red, yellow, green or blue — "
                    "did you mean '{meant}'?"
                ).format(text=text, meant=names[meant[0]])
            )
        raise ParseError(
            _("{text} is not a colour: type red, yellow, green or blue").format(text=text)
        )
    if ctx.choice == "target":
        others = [p for p in ctx.players if p != by]
        raise ParseError(
            _("choose a player: {players}, e.g. '{player}'").format(
                players=", ".join(others), player=others[0]
            )
        )
    raise ParseError(
        _("choose a colour ({colours}) or a player ({players}), e.g. 'red'").format(
            colours=", ".join(_colour_name(c) for c in COLORS), players=", ".join(ctx.players)
        )
    )


def _play(by: str, toks: list[str], ctx: Context) -> Move:
    """A play; ``toks`` may hold ``","`` tokens, each ending a card of the line."""
    uno = "uno" in toks
    words = [w for w in toks if w != "uno" and w not in _FILLER]
    give: str | None = None
    if "give" in words or "gives" in words:
        k = words.index("give") if "give" in words else words.index("gives")
        give_words = words[k + 1 :]
        words = words[:k]
        if give_words:
            give = _one_card([w for w in give_words if w != ","], ctx)
    target: str | None = None
    kept: list[str] = []
    for w in words:
        who = _player(w, ctx.players) if len(w) > 1 and not _is_word(w) else None
        if who is not None and _COMPACT.match(w) is None:
            if target is not None:
                raise ParseError(
                    _("two players named ({first}, {second}); name one target").format(
                        first=target, second=who
                    )
                )
            target = who
        else:
            kept.append(w)
    while kept and kept[0] == ",":
        del kept[0]
    if not kept:
        raise ParseError(
            _("what did {who} play? {examples}").format(who=by, examples=_examples(ctx.variant))
        )
    first, colour, i = _next_card(kept, 0, ctx, default_color=True)
    kind = _kind_of(first)
    if ctx.deck and first not in ctx.deck:
        raise ParseError(_not_in_deck(first, ctx.variant))
    if first == "WIB" and colour is None and len(kept) - i >= 2 and kept[-1] in _COLOR_WORDS:
        # MK-18: the Bob-omb's colour may also come last: 'item box g7 Bob blue'.
        colour = _COLOR_WORDS[kept.pop()]
    # More cards after the first: an Item Box's turn-up (MK-13) or the cards a Discard
    # All took out (ATK-12) — facts only the table knows (hidden hands).
    more_ctx = ctx if kind != "DA" else replace(ctx, color=_COLOUR_OF_LETTER[first[0]])
    more = _cards_in(kept[i:], more_ctx, default_color=kind == "DA") if i < len(kept) else []
    action: dict[str, Any] = {"by": by, "play": first}
    if first == "WIB":
        if len(more) != 1:
            # MK-13: the card is turned at once, in everyone's sight: it comes with the play.
            raise ParseError(
                _(
                    "name the one card the Item Box turned up, e.g. 'item box g7' "
                    "(add a player for a Green Shell, a colour for a Bob-omb)"
                )
            )
        action["turned"] = more[0]
        if colour is not None:
            action["color"] = colour  # the colour named if a Bob-omb fires (MK-18)
        if target is not None:
            action["target"] = target  # the Green Shell's target, given in advance (MK-16)
            target = None
    elif kind == "DA":
        if more:
            action["discarded"] = more
    elif more:
        raise ParseError(_("one card at a time, please: type the first card you played"))
    if first.startswith("W") and first != "WIB" and colour is not None:
        action["color"] = colour  # none named: the game asks for it next (COM-1)
    if kind in _NEEDS_TARGET:
        if target is None:
            others = [p for p in ctx.players if p != by]
            example = " ".join(
                [_say(_wild_word(first))] + [_colour("blue")] * (first == "WAA") + [others[0]]
            )
            raise ParseError(
                _("name the target of the {card}, e.g. '{example}'").format(
                    card=_kind_name(kind), example=example
                )
            )
        if target == by:
            raise ParseError(
                _("{who} cannot target themselves; name another player").format(who=by)
            )
        action["target"] = target
    elif target is not None and kind == "WC":
        # ATK-16: a Wild Customizable may be house-ruled into Attack-Attack or Trade
        # Hands; the engine checks whether this game's option takes a target.
        action["target"] = target
    elif target is not None:
        raise ParseError(_("the {card} takes no target player").format(card=_kind_name(kind)))
    if give is not None:
        if first != "WDD":
            raise ParseError(_("only Wild Dip Into The Deck gives a card"))
        action["give"] = give
    if uno:
        action["uno"] = True
    return Move((action,))


def _is_word(w: str) -> bool:
    """A word of the table's own vocabulary (never read as a player's name prefix)."""
    return w in _COLOR_WORDS or _is_card_word(w) or w in _VERBS


_VERBS = {"press", "draw", "pass", "challenge", "accept", "catch", "choose", "undo", "help"}
_VERBS |= {"fix", "quit", "uno", "give", "take", "done", "keep", "clear", "stop", "save"}


def _is_card_word(w: str) -> bool:
    return any(w in phrase for phrase, _ in _PHRASES) or w.isdigit()


def _wild_word(code: str) -> str:
    return {
        "WAA": "attack",
        "WH4": "hit4",
        "W+4": "wd4",
        "W+2": "wd2",
        "WDD": "dip",
        "WC": "custom",
        "WHF": "hitfire",
        "WAH": "allhit",
    }.get(code, "wild" if code.startswith("W") else "trade")


def parse_hand(text: str, ctx: Context) -> list[str] | int:
    """Read the cards left in a hand at round end: a list of cards (``r5 g7 wild``,
    ``r5, wild, blue skip``) or a point total (``37`` or ``37 points``). ``none`` is an
    empty list of cards (the table then checks it against the hand size, COM-8)."""
    toks = [t for t in tokens_of(text, commas=True) if t not in ("points", "point", "pts", "pt")]
    if not [t for t in toks if t != ","]:
        raise ParseError(
            _("type the cards left (e.g. 'r5 g7 wild') or their point total (e.g. 37)")
        )
    if toks in (["none"], ["nothing"], ["empty"], ["no", "cards"]):
        return []
    if len(toks) == 1 and toks[0].isdigit() and len(toks[0]) <= 4:
        if int(toks[0]) > 2000:
            raise ParseError(_("that is more points than a hand can hold; type the total again"))
        return int(toks[0])
    blind = Context(ctx.variant, ctx.players)  # no colour to match: every card names its own
    try:
        # Points do not depend on a card's colour (ATK-1, MK-1, PP-1): '+2' is enough.
        return _cards_in(toks, blind, default_color=False, any_colour=True)
    except ParseError as exc:
        raise ParseError(
            _("{reason} (or type the hand's point total, e.g. 37)").format(reason=exc)
        ) from None


def parse_discarded(text: str, ctx: Context) -> list[str] | int:
    """ATK-12: what went with a Discard All of the colour ``ctx.color``: its cards
    (``y3 y9``, ``3 9``, ``y3, y9``), how many (a bare number: ``2``) or ``none`` (``[]``)."""
    colour = ctx.color or "red"
    toks = [t for t in tokens_of(text, commas=True) if t not in ("cards", "card", "more")]
    words = [t for t in toks if t != ","]
    if not words:
        raise ParseError(
            _(
                "type the other {colour} cards (e.g. {letter}3 {letter}9), how many (e.g. 2), "
                "or none"
            ).format(colour=_colour_name(colour), letter=_LETTER[colour])
        )
    if words in (["none"], ["nothing"], ["no"], ["0"]):
        return []
    if len(words) == 1 and words[0].isdigit():
        n = int(words[0])
        if n > 30:
            raise ParseError(
                _("{n} is more {colour} cards than the deck has; type how many").format(
                    n=n, colour=_colour_name(colour)
                )
            )
        return n
    cards = _cards_in(toks, replace(ctx, color=colour), default_color=True)
    for code in cards:
        if code.startswith("W") or code[0] != _LETTER[colour]:
            raise ParseError(
                _(
                    "{card} is not {colour}: a Discard All takes only the cards of its own "
                    "colour (ATK-12); type the cards again"
                ).format(card=code, colour=_colour(colour))
            )
    return cards


def answer(text: str) -> str:
    """A short answer to one of the table's questions, in the English words the table
    compares it with, whatever language it was typed in: ``já`` -> ``yes``, ``nei`` ->
    ``no``, ``ekkert`` -> ``none``, ``hætta`` -> ``quit``, ``afturkalla`` -> ``undo``,
    ``tvö`` -> ``2``; lower case, one space between words, ``""`` for Enter."""
    words = unicodedata.normalize("NFC", text).lower().split()
    return " ".join(_english(words))


def table_command(text: str, ctx: Context) -> Command | None:
    """A table command (``undo [N]``, ``fix NAME N``, ``help``, ``quit``, ``show``...) typed
    where the table asks for something else (the cards left at round end, the game's end);
    ``None`` when ``text`` is not one."""
    toks = tokens_of(text)
    return _command(toks, ctx) if toks else None


def vocabulary(ctx: Context) -> list[str]:
    """Words worth completing with Tab in this position: in Icelandic the glossary's words
    first, then the English ones (both are read)."""
    english = _vocabulary(ctx)
    if current() != "is":
        return english
    verbs = set(ctx.verbs)
    words = list(glossary.COMPLETE_COMMANDS)
    for verb, said in glossary.COMPLETE_VERBS.items():
        if verb in verbs:
            words += said
    words += list(glossary.COMPLETE_COLOURS) + list(ctx.players)
    if "play" in verbs or not verbs:
        held = {c if c.startswith("W") else c[1:] for c in ctx.deck}
        kinds = [*_COLOURED[ctx.variant], *_WILDS[ctx.variant]]
        words += [glossary.COMPLETE_KINDS[k] for k in kinds if not ctx.deck or k in held]
    return list(dict.fromkeys(words + english))


def _vocabulary(ctx: Context) -> list[str]:
    words = ["help", "undo", "fix", "quit", "uno", "catch"]
    verbs = set(ctx.verbs)
    if "press" in verbs:
        words.append("press")
    if "draw" in verbs:
        words.append("draw")
    if "pass" in verbs:
        words.append("pass")
    if "challenge" in verbs:
        words += ["challenge", "accept"]
    words += list(COLORS) + list(ctx.players)
    if "play" in verbs or not verbs:
        v = ctx.variant
        # Only the cards of this game's deck (ATK-2 optional cards, PP-2 wild counts).
        held = {c if c.startswith("W") else c[1:] for c in ctx.deck}
        coloured = [k for k in _COLOURED[v] if not ctx.deck or k in held]
        wilds = [k for k in _WILDS[v] if not ctx.deck or k in held]
        words += [
            {
                "S": "skip",
                "R": "reverse",
                "H2": "hit2",
                "DA": "discard",
                "TH": "trade",
                "+2": "+2",
                "+1": "+1",
            }[k]
            for k in coloured
        ]
        words += [_wild_word(k) for k in wilds if k != "W"] + ["wild"] * ("W" in wilds)
        if "WIB" in wilds:
            words.append("itembox")
    return list(dict.fromkeys(words))


def complete(line: str, ctx: Context) -> list[str]:
    """Completions for the last word of ``line`` (what readline's Tab offers)."""
    parts = line.split(" ")
    last = unicodedata.normalize("NFC", parts[-1]).lower()
    bare = glossary.plain(last)
    return [
        w
        for w in vocabulary(ctx)
        if w.lower().startswith(last) or (bare and _plain_key(w).startswith(bare))
    ]


def help_text(ctx: Context) -> str:
    """The table's help, for the variant in play: every form :func:`parse` reads (and
    :func:`parse_hand` / :func:`parse_discarded` at their questions), with examples, in the
    table's language (Icelandic examples in Icelandic: both are read).

    One catalog entry per line, so that a translation keeps the layout and the pseudo-locale
    test sees every line wrapped."""
    v = ctx.variant
    p = ctx.players
    names = {"other": p[1] if len(p) > 1 else p[0], "third": p[2] if len(p) > 2 else p[0]}
    codes = {"attack": ", H2, DA, TH", "mario-kart": ", +2", "pocket-pizza": ", +1"}[v]
    lines = [
        # TRANSLATORS: the table's help, one entry per line (a line starting with two spaces
        # goes on with the item above). What is in quotes is typed by players: write the
        # words of your language that host/unolaunch/table/glossary.py reads, and check that
        # they parse (tests/test_table_parse_is.py does for Icelandic).
        _("Type what the awaited player did; 'NAME: ...' or 'NAME ...' for someone else"),
        _("  (e.g. '{other}: r5', '{third} catch {other}'); any case; number words work."),
        _("Cards: 'r5', 'red 5', '5 red', 'red five', '5' (the colour to match), 'green skip',"),
        _("  'skip' (colour to match), 'gS' (codes: r/y/g/b + 0-9, S, R{codes}), 'reverse'"),
        _("  'wild blue', 'blue wild'; 'wild' alone: the colour is asked for next")
        if "W" in _WILDS[v]
        else _("  a wild without its colour: the colour is asked for next"),
        _("  'r5 uno' says UNO with the card (COM-6); 'uno' just after it"),
        _("  commas separate cards: 'r5, g7' (a hand, or cards that went with a play)"),
    ]
    if v == "attack":
        lines += [
            _("UNO Attack: 'hit 2', 'red hit 2' (ATK-11), 'discard all',"),
            _("  'yellow discard all y3 y9' (ATK-12: the other yellow cards it took; left out,"),
            _("  they are asked for: the cards, how many, or none),"),
            _("  'hit4 red' (ATK-14), 'attack blue {other}' (ATK-15),"),
            _(
                "  'custom red' (ATK-16); optional edition: 'hit fire green', 'all hit red',"
                " 'red trade {third}'"
            ),
            _(
                "  'press' (the launcher's button); no launcher: 'press 3' = 3 cards came out,"
                " 'press none' = none"
            ),
            _(
                "  when presses are owed and there is no launcher: '2' or 'none'"
                " (cards that came out)"
            ),
            _("  a press the working launcher missed: 'missed press 3' (ATK-25)"),
            _(
                "  'pass' ends the turn after a Skip or Reverse (ATK-8). No drawing, no challenge"
                " (ATK-14): 'press'."
            ),
        ]
    elif v == "mario-kart":
        lines += [
            _("UNO Mario Kart: '+2', 'green draw two' (MK-10), 'wd4 red' (MK-12),"),
            _("  'item box g7' (MK-13: name the card it turned up;"),
            _("  'item box g7 {third} blue': a Green Shell's target, a Bob-omb's colour), 'pass'"),
            _(
                "  'draw' ('drew', 'draw a card', 'pick up': one card from the stock, MK-9; never a"
                " Draw card)"
            ),
            _(
                "  a Wild Draw Four: 'challenge', 'challenge won' / 'challenge lost', 'accept'"
                " (MK-20);"
            ),
            _("  asked the challenge's outcome: 'won' / 'lost'"),
            _("  asked the Item Box's card: 'g7'"),
        ]
    else:
        lines += [
            _(
                "UNO Pocket Pizza Pizza: '+1' (PP-9), 'wd2 red' (PP-12), 'dip blue',"
                " 'dip blue give g5' (PP-11), 'pass'"
            ),
            _(
                "  'draw' ('drew', 'draw one', 'pick up': one card from the stock, PP-6; the Draw"
                " One is '+1' or 'red draw one')"
            ),
            _("  a Wild Draw 2: 'challenge' / 'accept'; asked the card given: 'g5'"),
        ]
    lines += [
        _("'{other}: 5' is {other}'s play; '{other} 5' asks: a play, or a hand size?"),
        _("Catch a player who did not say UNO: 'catch {other}' (COM-6)."),
        _(
            "Answer a question: a colour ('red', 'choose green'), a player ('{third}'),"
            " the start card ('r5')."
        ),
        _("Table: 'fix {other} 5' or '{other} has 5' corrects a hand size ('set' = 'fix');"),
        _("  'undo' / 'undo 3' takes back actions ('u', 'oops', 'back'); 'help' ('?');"),
        _(
            "  'show' ('redraw', 'scores', Enter) redraws; 'quit' ('exit', 'q', 'bye') stops here"
            " (--resume later);"
        ),
        _("  'clear' ('unjam') after clearing a jam or reloading the launcher."),
        _("  'save' after a full disk was freed: the game went on in memory"),
        _(
            "  --port sim: 'sim jam', 'sim unjam', 'sim load 40', 'sim unplug', 'sim replug',"
            " 'sim reset', 'sim stall' ... (what 'unolaunch sim' reads)"
        ),
        _("At a round's end, the cards left in each hand ('{hand}') or their"),
        _("  points (37), 'none' for no cards; they must fit the hand size shown — 'fix NAME N'"),
        _("  first if it is wrong (COM-8). 'undo' goes back across a round's or the game's end."),
    ]
    # A hand at a round's end, of this variant's cards (Mario Kart has no plain Wild).
    wild = _say_phrase("wild +4" if v == "mario-kart" else "wild")
    hand = f"r5 g7 {wild} {_colour('blue')} {_say('skip')}"
    return "\n".join(line.format(codes=codes, hand=hand, **names) for line in lines)


#: Every word the English side of the parser reads: an Icelandic term written without its
#: accents is not read as Icelandic when it is one of these (see glossary.terms).
_ENGLISH = frozenset(
    set(_COLOR_WORDS)
    | set(_NUMBER_WORDS)
    | {w for phrase, _kind in _PHRASES for w in phrase}
    | _FILLER
    | _VERBS
    | _DRAW_WORDS
    | _PICK_WORDS
    | _DRAW_FILLER
    | _YES
    | _NO
    | {"missed", "miss", "pressed", "p", "ch", "chal", "challenged", "caught", "c", "pick"}
    | {"name", "target", "u", "oops", "back", "h", "commands", "exit", "q", "bye", "unjam"}
    | {"reset", "redraw", "screen", "status", "scores", "score", "set", "hand", "cards"}
    | {"has", "none", "nothing", "empty", "points", "point", "pts", "pt", "more", "sim"}
    | {"win", "wins", "lose", "loses", "given", "gives", "came", "out", "up", "show", "is"}
    | {"cancel", "next", "end", "reopen"}  # answers to the table's questions (app.py)
    | _SIM_WORDS
)
#: Icelandic word or phrase -> the English words it stands for (glossary.py).
_ICELANDIC = glossary.terms(_ENGLISH)
_LONGEST = max(len(term.split()) for term in _ICELANDIC)
