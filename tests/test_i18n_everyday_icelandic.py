"""Issue 36: a whole game of each variant typed only in everyday Icelandic — the cards by
their nouns with the colour agreeing (*rauð fimma*, *gulur þristur*, *bláa nían*), the
verbs as people type them (*taka spil*, *ég passa*, *ýti á takkann*, *skora á*, *tek
við*), names in their cases (*árás blátt á Þóru*, *Örn grípur Ævari*... as Icelandic
says them) — records exactly what the same game typed in English records.

One typist decides what happens from the table's position (the same decisions in both
languages) and says it in the language asked: each line of :data:`PLANS` is a pair
(English, Icelandic). Both games run through the real :class:`Table` (parser, session,
journal, prompts in the table's language); every line must be accepted (no ✗), and the
journals' actions must be equal.
"""

from __future__ import annotations

import io
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console
from unolaunch import declension
from unolaunch.i18n import use
from unolaunch.table.app import Table
from unolaunch.table.journal import Journal
from unolaunch.table.session import Session

PLAYERS = ("Þóra", "Ævar", "Örn")

#: A colour as said of a card (neuter), alone (masculine), with a feminine noun (fimma),
#: definite masculine (þristurinn), definite feminine (nían), masculine accusative.
FORMS = {
    "red": ("rautt", "rauður", "rauð", "rauði", "rauða", "rauðan"),
    "yellow": ("gult", "gulur", "gul", "guli", "gula", "gulan"),
    "green": ("grænt", "grænn", "græn", "græni", "græna", "grænan"),
    "blue": ("blátt", "blár", "blá", "blái", "bláa", "bláan"),
}
KEYS = ("n", "m", "f", "md", "fd", "ma")

#: What the players do at their turns, in order: (English, Icelandic). {e}: the colour to
#: match in English, {c_n}...: in Icelandic ({c_f} feminine...); {w_...}: another colour
#: for a wild; {t}/{t_þf}...: another player, in a case; {by}: the player. A line starting
#: with '!' leaves one card and no UNO: somebody catches it next (COM-6).
PLANS: dict[str, list[tuple[str, str]]] = {
    "attack": [
        ("{e} 5", "{c_f} fimma"),
        ("{by}: {e} 7", "{by}: {c_f} sjöa"),
        ("pressed 2 cards", "ég ýtti, 2 spil"),
        ("{e} skip", "{c_n} sleppispil"),  # ATK-10, then ATK-8: pass
        ("{e} hit 2", "{c_n} högg 2"),  # ATK-11: two presses owed
        ("help", "hjálp"),
        ("wild {w}", "villispil {w_n}"),  # ATK-13
        ("{e} reverse", "{c_n} öfugt spil"),
        ("{e} discard all", "{c_n} henda öllum"),  # ATK-12: asked which went with it
        ("show", "staðan"),
        ("hit 4 {w}", "villispil högg 4 {w_n}"),  # ATK-14
        ("skip", "sleppa"),
        ("attack {w} {t}", "árás {w_n} á {t_þf}"),  # ATK-15
        ("{e} 3", "{c_m} þristur"),
        ("undo", "afturkalla"),
        ("{e} three", "{c_md} þristurinn"),
        ("custom {w}", "villispil sérsniðið {w_n}"),  # ATK-16
        ("{e} discard all {e} 3 {e} 9", "{c_n} henda öllum {c_m} þristur {c_f} nía"),
        ("press 3", "ýti á takkann 3"),
        ("{e} 8", "{c_fd} áttan"),
        ("reverse", "öfugt"),
        ("fix {by} 2", "{by} er með 2"),
        ("!{e} 4", "!{c_m} fjarki"),
        ("{e} 6", "{c_f} sexa"),
    ],
    "mario-kart": [
        ("{e} 5", "{c_f} fimma"),
        ("{e} 0", "{c_n} núll"),
        ("{e} skip", "{c_n} sleppispil"),
        ("draw a card", "taka spil"),  # MK-9, then pass
        ("{e} +2", "{c_n} draga tvö"),  # MK-10
        ("wild draw four {w}", "villispil +4 {w_n}"),  # MK-12: challenged, lost (MK-20)
        ("{e} 9", "{c_fd} nían"),
        ("item box {e} 7", "hlutakassi {c_f} sjöa"),  # MK-13
        ("{e} reverse", "{c_n} öfugt spil"),
        ("drew one", "ég kaupi"),
        ("wd4 {w}", "villispil plús fjórir {w_m}"),  # accepted
        ("{e} 2", "{c_m} tvistur"),
        ("undo", "til baka"),
        ("{e} two", "{c_md} tvisturinn"),
        ("fix {by} 2", "{by} er með 2"),
        ("!{e} 4", "!{c_m} fjarki"),
        ("{e} 1", "{c_m} ás"),
    ],
    "pocket-pizza": [
        ("{e} 5", "{c_f} fimma"),
        ("{e} +1", "{c_n} draga eitt"),  # PP-9
        ("wild {w}", "villispil {w_n}"),
        ("dip {w} give green 5", "dýfa {w_n} gefa græna fimmu"),  # PP-11
        ("wild draw 2 {w}", "villispil +2 {w_n}"),  # PP-12: challenged, won
        ("took one", "tek eitt"),  # PP-6, then pass
        ("{e} skip", "{c_n} sleppispil"),
        ("{e} 3", "{c_ma} þrist"),
        ("fix {by} 2", "{by} er með 2"),
        ("!{e} 4", "!{c_m} fjarki"),
        ("{e} 6", "{c_f} sexa"),
    ],
}

#: Answers to the table's questions: (English, Icelandic).
SAY = {
    "discard": ("none", "ekkert"),
    "yes": ("yes", "já"),
    "top": ("red 5", "rauð fimma"),
    "pass": ("pass", "ég passa"),
    "catch": ("{catcher} catch {caught}", "{catcher} grípur {caught_þf}"),
    "keep": ("fix {by} 7", "{by} er með 7"),
    "fix": ("fix {by} 2", "leiðrétta {by_þf} 2"),
    "uno": ("{e} 6 uno", "{c_f} sexa uno"),
    "last": ("{e} 9", "{c_f} nía"),
    "challenge": ("challenge lost", "skora á, tapaði"),
    "accept": ("accept", "tek við"),
    "verdict": ("won", "vann"),
    "ask": ("challenge", "véfengi"),
    "give": ("g5", "græn fimma"),
    "turned": ("g7", "græn sjöa"),
}
#: The cards left in the other hands at the round's end (COM-8): 55 and 37 points.
HANDS = [("wild, red 5", "villispil, rauð fimma"), ("37 points", "37 stig")]
#: Mario Kart has no plain Wild (MK-1).
HANDS_MK = [("wild draw 4, red 5", "villispil +4, rauð fimma"), ("37 points", "37 stig")]
PRESSES = [
    ("press 1", "ýti 1"),
    ("press none", "ýti, ekkert kom út"),
    ("pressed 2", "ýtti, 2 komu"),
]


def colour_fields(prefix: str, colour: str) -> dict[str, str]:
    return {f"{prefix}_{k}": form for k, form in zip(KEYS, FORMS[colour], strict=True)}


@dataclass
class Typist:
    """Says what the players do, in ``lang`` (0: English, 1: Icelandic)."""

    variant: str
    lang: int
    table: Any = None
    plan: list[tuple[str, str]] = field(default_factory=list)
    typed: list[str] = field(default_factory=list)
    out: io.StringIO = field(default_factory=io.StringIO)
    refused: list[str] = field(default_factory=list)
    mark: int = 0
    finisher: str | None = None
    caught: bool = False
    asked_discard: bool = False
    challenges: int = 0
    presses: int = 0
    hands: int = 0

    def __post_init__(self) -> None:
        self.plan = list(PLANS[self.variant])

    def say(self, pair: tuple[str, str], **fields: str) -> str:
        return pair[self.lang].format(**fields)

    def __call__(self, prompt: str) -> str:
        text = self.out.getvalue()
        new, self.mark = text[self.mark :], len(text)
        if self.typed and "✗" in new:
            why = next(line for line in new.splitlines() if "✗" in line)
            self.refused.append(f"{self.typed[-1]!r} -> {why.strip()}")
            raise EOFError  # the game stays saved; the test fails on the refusal
        line = self.line(prompt)
        self.typed.append(line)
        assert len(self.typed) < 300, "the game did not end"
        return line

    def fields(self, by: str, colour: str | None) -> dict[str, str]:
        colour = colour or "red"
        chosen = next(c for c in ("blue", "green", "yellow", "red") if c != colour)
        target = next(p for p in PLAYERS if p != by)
        return {
            "by": by,
            "e": colour,
            "w": chosen,
            "t": target,
            "t_þf": declension.decline(target, "þf") or target,
            **colour_fields("c", colour),
            **colour_fields("w", chosen),
        }

    def line(self, prompt: str) -> str:
        s = self.table.session
        snap = s.snapshot()
        choice = s.choice()
        if self.asked_discard:  # ATK-12: which other cards went with the Discard All
            self.asked_discard = False
            return self.say(SAY["discard"])
        if snap.get("game_winner"):
            return self.say(SAY["yes"])  # COM-8: the game's end confirmed
        if snap.get("awaiting") is None:
            return ""
        if choice == "reveal":
            asked = next(p for p in PLAYERS if p in prompt)  # 'Cards left in Ævar's hand'
            if self.hands % 2 == 0 and snap["hand_sizes"][asked] != 2:
                low = declension.decline(asked, "þf") or asked
                return self.say(SAY["fix"], by=asked, by_þf=low)  # 2 cards, as typed next
            self.hands += 1
            hands = HANDS_MK if self.variant == "mario-kart" else HANDS
            return self.say(hands[(self.hands - 1) % 2])
        by = snap["awaiting"]["by"]
        verbs = snap["awaiting"]["verbs"]
        f = self.fields(by, snap["color"])
        if choice == "top":
            return self.say(SAY["top"])
        if choice in ("press", "until"):
            self.presses += 1
            return self.say(PRESSES[self.presses % 3])
        if choice == "color":
            return self.say(("blue", "blár"))
        if choice == "target":
            return self.say(("choose {t}", "veldu {t_þf}"), **f)
        if choice == "challenge":
            self.challenges += 1
            if self.variant == "pocket-pizza":
                return self.say(SAY["ask"])
            return self.say(SAY["challenge" if self.challenges == 1 else "accept"])
        if choice == "won":
            return self.say(SAY["verdict"])
        if choice in ("give", "turned"):
            return self.say(SAY[choice])
        caught = snap.get("uno_catchable")
        if caught and not self.caught and caught != self.finisher:
            self.caught = True
            catcher = next(p for p in PLAYERS if p != caught)
            low = declension.decline(caught, "þf") or caught
            return self.say(SAY["catch"], catcher=catcher, caught=caught, caught_þf=low)
        if "pass" in verbs:
            return self.say(SAY["pass"])
        return self.turn(by, snap, f)

    def turn(self, by: str, snap: dict[str, Any], f: dict[str, str]) -> str:
        size = snap["hand_sizes"][by]
        if self.plan:
            item = self.plan.pop(0)
            english = item[0]
            if english.startswith("!"):
                item = (english[1:], item[1][1:])
            elif size <= 3 and not english.startswith(("help", "show", "undo", "fix")):
                self.plan.insert(0, item)
                return self.say(SAY["keep"], **f)  # keep the round going
            if "discard all" in english and "3" not in english:
                self.asked_discard = True
            return self.say(item, **f)
        # The plan is done: this player goes out (COM-7), saying UNO with the last but one.
        if self.finisher is None:
            self.finisher = by
            if size != 2:
                return self.say(("{by} has 2", "{by} er með 2"), **f)
        if by == self.finisher:
            return self.say(SAY["uno" if size == 2 else "last"], **f)
        if size <= 2:
            return self.say(SAY["keep"], **f)
        return self.say(("{e} 2", "{c_m} tvistur"), **f)


def play(variant: str, lang: int, data: Path) -> tuple[Typist, list[tuple[str, Any]]]:
    """One game typed by the typist in ``lang``; what its journal records (no notes: they
    are kept in the game's language)."""
    journal = Journal.open(data / f"{variant}-{lang}")
    session = Session.start(journal, variant, PLAYERS, {"target": 50}, seed=36, dealer="Örn")
    typist = Typist(variant, lang)
    console = Console(file=typist.out, width=120, highlight=False)
    typist.table = Table(session, console, read_line=typist)
    with use(("en", "is")[lang]):
        typist.table.run()
    entries = journal.entries(session.id)
    journal.close()
    return typist, [(e.kind, e.data) for e in entries if e.kind != "note"]


@pytest.mark.parametrize("variant", ["attack", "mario-kart", "pocket-pizza"])
def test_a_game_typed_in_everyday_icelandic_records_what_the_english_one_does(
    variant: str, tmp_path: Path
) -> None:
    english, recorded_en = play(variant, 0, tmp_path)
    icelandic, recorded_is = play(variant, 1, tmp_path)
    for typist in (english, icelandic):
        assert typist.refused == [], typist.refused
        assert not typist.plan, "the game ended before everything was typed"
        assert typist.typed[-1] in ("yes", "já"), typist.typed[-8:]  # the game's end
    assert recorded_is == recorded_en
    done = {key for kind, data in recorded_en if kind == "action" for key in data}
    assert done >= DONE[variant], done
    assert len(recorded_en) > 20


#: What each game must have done (the actions' keys), so that the words for them were typed.
DONE = {
    "attack": {"play", "press", "pass", "catch", "uno", "discarded", "target", "choose"},
    "mario-kart": {"play", "draw", "pass", "challenge", "accept", "catch", "uno", "turned"},
    "pocket-pizza": {"play", "draw", "pass", "challenge", "catch", "uno", "give"},
}
