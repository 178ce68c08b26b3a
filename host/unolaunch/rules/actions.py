"""Actions: the scenario format's action dicts as a small immutable value.

An :class:`Action` round-trips to and from the dict of the scenario format
(shared FORMAT.md) and a short text form::

    >>> a = Action.from_dict({"by": "Ann", "play": "W+4", "color": "blue"})
    >>> str(a)
    'Ann: play W+4 color=blue'
    >>> Action.parse(str(a)) == a, a.to_dict() == {"by": "Ann", "play": "W+4", "color": "blue"}
    (True, True)

Verbs and their keys (``by`` is always the acting player):

``play`` CARD
    extra keys: ``color`` (a wild's named colour; on a Wild Item Box it is the colour named
    if a Bob-omb fires), ``target`` (Wild Attack-Attack, Trade Hands; on a Wild Item Box the
    Green Shell's target, given in advance), ``give`` (Wild Dip Into The Deck), ``uno``
    (said UNO with the second-to-last card); hidden hands: ``turned`` (the card a Wild Item
    Box turned up), ``discarded`` (the other cards a Discard All took out of the hand).
``draw`` / ``pass`` / ``accept``
    no extra keys.
``press``
    optional ``cards``: how many cards the launcher shot out (the engine asks its launcher
    when absent).
``challenge``
    hidden hands: ``won`` (true when the challenged player did hold a card that makes the
    challenge succeed, as the table saw when they showed their hand).
``choose`` {...}
    one decision the engine waits for: ``color``, ``target``, ``give``; hidden hands:
    ``top`` (the card turned to start the discard pile), ``turned`` (Item Box card),
    ``won`` (challenge outcome), ``points`` ({player: total}) or ``hands``
    ({player: [cards]}) at the end of a round.
``catch`` PLAYER
    catch PLAYER not having said UNO (COM-6).
``correct`` {player: size}
    hidden hands: set hand sizes (a journaled, undoable correction).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from unolaunch.cards import COLOR_NAMES, parse_card

__all__ = ["VERBS", "Action", "ActionFormatError"]

#: Verbs in the order the engine lists them (FORMAT.md's table order).
VERBS = ("play", "draw", "press", "pass", "challenge", "accept", "choose", "catch", "correct")
_FLAG_VERBS = ("draw", "press", "pass", "challenge", "accept")
_CHOOSE_KEYS = ("color", "target", "give", "top", "turned", "won", "points", "hands")

Reveal = tuple[tuple[str, "int | tuple[str, ...]"], ...]


class ActionFormatError(ValueError):
    """An action dict or text that is not an action; ``field`` names the offending key."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(f"{field}: {message}")
        self.field = field


def _card(field: str, value: Any) -> str:
    if not isinstance(value, str):
        raise ActionFormatError(field, f"a card code is a string, not {value!r}")
    try:
        parse_card(value)
    except ValueError:
        raise ActionFormatError(field, f"unknown card code {value!r}") from None
    return value


def _color(field: str, value: Any) -> str:
    if value not in COLOR_NAMES:
        raise ActionFormatError(field, f"colour must be red, yellow, green or blue, not {value!r}")
    return str(value)


def _name(field: str, value: Any) -> str:
    if not isinstance(value, str) or not value:
        raise ActionFormatError(field, f"a player name is a non-empty string, not {value!r}")
    return value


def _bool(field: str, value: Any) -> bool:
    if not isinstance(value, bool):
        raise ActionFormatError(field, f"must be true or false, not {value!r}")
    return value


@dataclass(frozen=True, slots=True)
class Action:
    """One action by one player (see the module docstring for the verbs and keys)."""

    by: str
    verb: str
    card: str | None = None
    color: str | None = None
    target: str | None = None
    give: str | None = None
    uno: bool = False
    cards: int | None = None
    turned: str | None = None
    won: bool | None = None
    reveal: Reveal | None = None
    reveal_kind: str | None = None  # "points" or "hands"
    sizes: tuple[tuple[str, int], ...] | None = None
    discarded: tuple[str, ...] | None = None

    # -- dict form ---------------------------------------------------------------------
    @classmethod
    def from_dict(cls, data: Mapping[str, Any] | Action) -> Action:
        """Build an action from its scenario-format dict; ``ActionFormatError`` names the key."""
        if isinstance(data, Action):
            return data
        if not isinstance(data, Mapping):
            raise ActionFormatError("action", f"an action is a JSON object, not {data!r}")
        if "by" not in data:
            raise ActionFormatError("by", "missing key 'by' (the acting player)")
        by = _name("by", data["by"])
        verbs = [v for v in VERBS if v in data]
        if len(verbs) != 1:
            what = "no verb" if not verbs else "several verbs (" + ", ".join(verbs) + ")"
            raise ActionFormatError(
                "verb", f"{what}: an action needs exactly one of {', '.join(VERBS)}"
            )
        verb = verbs[0]
        allowed = {"by", verb}
        kw: dict[str, Any] = {}
        if verb == "play":
            allowed |= {"color", "target", "give", "uno", "turned", "discarded"}
            kw["card"] = _card("play", data["play"])
            if "color" in data:
                kw["color"] = _color("color", data["color"])
            if "target" in data:
                kw["target"] = _name("target", data["target"])
            if "give" in data:
                kw["give"] = _card("give", data["give"])
            if "uno" in data:
                kw["uno"] = _bool("uno", data["uno"])
            if "turned" in data:
                kw["turned"] = _card("turned", data["turned"])
            if "discarded" in data:
                cards = data["discarded"]
                if not isinstance(cards, list):
                    raise ActionFormatError("discarded", "must be a list of card codes")
                kw["discarded"] = tuple(_card("discarded", c) for c in cards)
        elif verb in _FLAG_VERBS:
            if data[verb] is not True:
                raise ActionFormatError(verb, f"must be true, not {data[verb]!r}")
            if verb == "press":
                allowed.add("cards")
                if "cards" in data:
                    n = data["cards"]
                    if isinstance(n, bool) or not isinstance(n, int) or n < 0:
                        raise ActionFormatError("cards", f"must be a whole number >= 0, not {n!r}")
                    kw["cards"] = n
            if verb == "challenge":
                allowed.add("won")
                if "won" in data:
                    kw["won"] = _bool("won", data["won"])
        elif verb == "catch":
            kw["target"] = _name("catch", data["catch"])
        elif verb == "correct":
            sizes = data["correct"]
            if not isinstance(sizes, Mapping) or not sizes:
                raise ActionFormatError("correct", "must be an object {player: hand size}")
            items = []
            for name, n in sizes.items():
                if isinstance(n, bool) or not isinstance(n, int) or n < 0:
                    raise ActionFormatError(
                        f"correct.{name}", f"must be a whole number >= 0, not {n!r}"
                    )
                items.append((_name("correct", name), n))
            kw["sizes"] = tuple(items)
        else:  # choose
            choice = data["choose"]
            if not isinstance(choice, Mapping) or len(choice) != 1:
                raise ActionFormatError(
                    "choose",
                    "must be an object with one key: " + ", ".join(_CHOOSE_KEYS),
                )
            ((key, value),) = choice.items()
            field = f"choose.{key}"
            if key == "color":
                kw["color"] = _color(field, value)
            elif key == "target":
                kw["target"] = _name(field, value)
            elif key == "give":
                kw["give"] = _card(field, value)
            elif key == "top":
                kw["card"] = _card(field, value)
            elif key == "turned":
                kw["turned"] = _card(field, value)
            elif key == "won":
                kw["won"] = _bool(field, value)
            elif key in ("points", "hands"):
                if not isinstance(value, Mapping):
                    raise ActionFormatError(field, "must be an object {player: ...}")
                rev: list[tuple[str, int | tuple[str, ...]]] = []
                for name, v in value.items():
                    f = f"{field}.{name}"
                    if key == "points":
                        if isinstance(v, bool) or not isinstance(v, int) or v < 0:
                            raise ActionFormatError(f, f"must be a whole number >= 0, not {v!r}")
                        rev.append((_name(f, name), v))
                    else:
                        if not isinstance(v, list):
                            raise ActionFormatError(f, "must be a list of card codes")
                        rev.append((_name(f, name), tuple(_card(f, c) for c in v)))
                kw["reveal"] = tuple(rev)
                kw["reveal_kind"] = key
            else:
                raise ActionFormatError(
                    field, f"unknown choice {key!r} (one of {', '.join(_CHOOSE_KEYS)})"
                )
        extra = sorted(set(data) - allowed)
        if extra:
            raise ActionFormatError(extra[0], f"unexpected key {extra[0]!r} for a {verb} action")
        return cls(by=by, verb=verb, **kw)

    def to_dict(self) -> dict[str, Any]:
        """The scenario-format dict of this action (inverse of :meth:`from_dict`)."""
        d: dict[str, Any] = {"by": self.by}
        v = self.verb
        if v == "play":
            d["play"] = self.card
            for key in ("color", "target", "give", "turned"):
                val = getattr(self, key)
                if val is not None:
                    d[key] = val
            if self.uno:
                d["uno"] = True
            if self.discarded is not None:
                d["discarded"] = list(self.discarded)
        elif v in _FLAG_VERBS:
            d[v] = True
            if self.cards is not None:
                d["cards"] = self.cards
            if self.won is not None:
                d["won"] = self.won
        elif v == "catch":
            d["catch"] = self.target
        elif v == "correct":
            d["correct"] = dict(self.sizes or ())
        else:
            d["choose"] = self._choice()
        return d

    def _choice(self) -> dict[str, Any]:
        if self.reveal is not None:
            kind = self.reveal_kind or "points"
            return {kind: {n: (list(x) if isinstance(x, tuple) else x) for n, x in self.reveal}}
        for key, val in (
            ("color", self.color),
            ("target", self.target),
            ("give", self.give),
            ("top", self.card),
            ("turned", self.turned),
            ("won", self.won),
        ):
            if val is not None:
                return {key: val}
        return {}

    # -- text form ---------------------------------------------------------------------
    def __str__(self) -> str:
        parts = [f"{self.by}:", self.verb]
        v = self.verb
        if v == "play":
            parts.append(str(self.card))
            for key in ("color", "target", "give", "turned"):
                val = getattr(self, key)
                if val is not None:
                    parts.append(f"{key}={val}")
            if self.uno:
                parts.append("uno")
            if self.discarded is not None:
                parts.append("discarded=" + "+".join(self.discarded))
        elif v == "catch":
            parts.append(str(self.target))
        elif v == "correct":
            parts.append(",".join(f"{n}={k}" for n, k in self.sizes or ()))
        elif v == "choose":
            ((key, val),) = self._choice().items()
            if key in ("points", "hands"):
                items = []
                for n, x in val.items():
                    items.append(f"{n}={'+'.join(x) if isinstance(x, list) else x}")
                parts.append(f"{key}=" + ",".join(items))
            elif key == "won":
                parts.append(f"won={'yes' if val else 'no'}")
            else:
                parts.append(f"{key}={val}")
        else:
            if self.cards is not None:
                parts.append(f"cards={self.cards}")
            if self.won is not None:
                parts.append(f"won={'yes' if self.won else 'no'}")
        return " ".join(parts)

    @classmethod
    def parse(cls, text: str) -> Action:
        """Parse the text form written by ``str(action)``; ``ActionFormatError`` if malformed."""
        by, sep, rest = text.partition(": ")
        words = rest.split()
        if not sep or not words:
            raise ActionFormatError("text", f"not an action: {text!r} (e.g. 'Ann: play r5')")
        verb, args = words[0], words[1:]
        d: dict[str, Any] = {"by": by}
        kv = {}
        flags = []
        for a in args:
            k, eq, val = a.partition("=")
            if eq:
                kv[k] = val
            else:
                flags.append(a)
        if verb == "play":
            if not flags:
                raise ActionFormatError("play", f"which card? {text!r}")
            d["play"] = flags[0]
            if "uno" in flags[1:]:
                d["uno"] = True
            if "discarded" in kv:
                d["discarded"] = [c for c in kv["discarded"].split("+") if c]
            for k in ("color", "target", "give", "turned"):
                if k in kv:
                    d[k] = kv[k]
        elif verb in _FLAG_VERBS:
            d[verb] = True
            if "cards" in kv:
                if not kv["cards"].isdigit():
                    raise ActionFormatError("cards", f"not a number: {kv['cards']!r}")
                d["cards"] = int(kv["cards"])
            if "won" in kv:
                d["won"] = kv["won"] == "yes"
        elif verb == "catch":
            d["catch"] = flags[0] if flags else ""
        elif verb == "correct":
            sizes: dict[str, int] = {}
            for item in "".join(args).split(","):
                n, _, k = item.partition("=")
                if not k.isdigit():
                    raise ActionFormatError("correct", f"expected NAME=SIZE, got {item!r}")
                sizes[n] = int(k)
            d["correct"] = sizes
        elif verb == "choose":
            if len(kv) != 1:
                raise ActionFormatError("choose", f"expected one KEY=VALUE in {text!r}")
            ((k, val),) = kv.items()
            value: Any = val
            if k == "won":
                value = val == "yes"
            elif k in ("points", "hands"):
                m: dict[str, Any] = {}
                for item in val.split(","):
                    n, _, x = item.partition("=")
                    if k == "points":
                        if not x.isdigit():
                            raise ActionFormatError("points", f"expected NAME=POINTS: {item!r}")
                        m[n] = int(x)
                    else:
                        m[n] = [c for c in x.split("+") if c]
                value = m
            d["choose"] = {k: value}
        else:
            d[verb] = True  # from_dict names the unknown verb
        return cls.from_dict(d)
