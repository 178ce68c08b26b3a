"""Issue 25: a whole game of UNO Attack typed in Icelandic words, ``unolaunch play --lang is
--port sim`` (the real firmware in the simulated launcher presses when ``ýta`` is typed).

The command runs as the CLI runs it (``unolaunch.cli.main``); only ``input()`` is a
typist, which is called exactly when the table waits for a line and gets the prompt, so it
needs no prompt text (it reads the position from the table's session, whatever language
the prompts are in). Every line typed is Icelandic (start cards, plays of every kind of the
default deck, presses, pass, UNO, a catch, a Discard All's cards, undo, help, show, hand
sizes fixed, the cards left at a round's end, Enter for the next round, ``já`` at the game's
end) and must be accepted: no ✗ line. The screens — every line printed and every prompt —
must hold no English word of the catalog's English side (a word of the msgids that no
Icelandic msgstr uses; player names, product names and what was typed are allowed).
"""

from __future__ import annotations

import builtins
import contextlib
import io
import re
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from unolaunch.cli import main
from unolaunch.i18n import LOCALE_DIR, set_language
from unolaunch.table import app as app_module

PLAYERS = ("Þóra", "Ævar", "Örn")
#: A card's colour as a player says it (neuter, as of a card) and as a chosen colour.
CARD_COLOUR = {"red": "rautt", "yellow": "gult", "green": "grænt", "blue": "blátt"}
NAMED_COLOUR = {"red": "rauður", "yellow": "gulur", "green": "grænn", "blue": "blár"}
LETTER = {"red": "r", "yellow": "y", "green": "g", "blue": "b"}
PRODUCTS = ("UNO Attack", "UNO Mario Kart", "UNO Pocket Pizza Pizza")

#: What the players do at their normal turns, in order ({c}: the colour to match as said
#: of a card, {n}: another colour chosen for a wild, {t}: another player, {who}: the
#: player, {l}: the colour's letter). Commands come in between, as at a real table.
PLAN = [
    "{c} fimm",
    "{who}: {c} 7",
    "ýta",
    "{c} sleppa",  # ATK-10, then ATK-8: pass
    "{c} högg 2",  # ATK-11: the next player presses twice
    "hjálp",
    "villispil {n}",  # ATK-13
    "{c} öfugt",  # ATK-9, then pass
    "{c} henda öllum",  # ATK-12: asked which other cards went with it
    "sýna",
    "högg4 {n}",  # ATK-14: four presses
    "slepptu spil",
    "árás {n} {t}",  # ATK-15: the target presses twice
    "{c} þrír",
    "afturkalla",  # the 3 is taken back...
    "{c} 3",  # ...and played again
    "sérsniðið {n}",  # ATK-16
    "{c} henda öllum {l}3 {l}9",
    "ýta á hnappinn",
    "{c} átta",
    "öfugt spil",
    "leiðrétta {who} 2",
    "!{c} fjórir",  # one card left and no UNO said: caught next (COM-6, ATK-20)
    "{c} 6",
]
#: Plan items that are table commands (the same player is asked again).
COMMANDS = ("hjálp", "sýna", "afturkalla", "leiðrétta")

#: What each other player holds at a round's end: (hand size, Icelandic answer), by round.
ROUND_ENDS = [
    [(2, "gult 4, villispil"), (1, "blátt níu")],  # 54 + 9 = 63 < 100
    [(3, "villispil högg4 árás"), (2, "37 stig")],  # 140 + 37: the game is won
]


class _Refused(EOFError):
    """A typed line was refused: stop the game there (it stays saved)."""


@dataclass
class IcelandicTypist:
    """Types what the players do, in Icelandic, from the position the table is in."""

    plan: list[str] = field(default_factory=lambda: list(PLAN))
    table: Any = None
    out: io.StringIO = field(default_factory=io.StringIO)
    typed: list[tuple[str, str]] = field(default_factory=list)  # (prompt, line)
    refused: list[str] = field(default_factory=list)
    rounds_ended: int = 0
    finisher: str | None = None
    caught: bool = False
    undo_next: bool = False
    _mark: int = 0
    _press_from: int | None = None
    _asked_discard: bool = False

    # ------------------------------------------------------------------ helpers
    def entries(self) -> int:
        s = self.table.session
        with s.lock:
            return len(s.journal.entries(s.id))

    def wait_for_press(self) -> None:
        """A press typed with the launcher connected: wait until the launcher's event
        (the cards it shot out) is in the journal (the launcher's thread applies it) and on
        the screen (the prompt drawn again for the game as it is now), as a person would
        before typing on: a line typed for a state the screen did not show yet is
        refused (issue 34)."""
        if self._press_from is None:
            return
        deadline = time.monotonic() + 60
        s = self.table.session
        while self.entries() <= self._press_from or self.table.shown_version != s.version:
            fault = getattr(self.table.launcher, "fault", None)
            if fault:
                raise AssertionError(f"the simulated launcher stopped: {fault}")
            if time.monotonic() > deadline:
                raise AssertionError("the simulated launcher never answered a press")
            time.sleep(0.02)
        self._press_from = None

    def check_accepted(self) -> None:
        """The output since the last line typed has no ✗ (a refusal)."""
        text = self.out.getvalue()
        new, self._mark = text[self._mark :], len(text)
        if self.typed and "✗" in new:
            why = next(line for line in new.splitlines() if "✗" in line)
            self.refused.append(f"{self.typed[-1][1]!r} -> {why.strip()}")
            raise _Refused

    # ------------------------------------------------------------------ input()
    def __call__(self, prompt: str = "") -> str:
        self.check_accepted()
        self.wait_for_press()
        self.out.write(prompt + "\n")  # the prompt is on the screen too
        line = self.line(prompt)
        self.typed.append((prompt, line))
        if len(self.typed) > 400:
            raise AssertionError("the game did not end")
        self._mark = len(self.out.getvalue())
        return line

    def line(self, prompt: str) -> str:
        s = self.table.session
        snap = s.snapshot()
        choice = s.choice()
        if self._asked_discard:  # ATK-12: which other cards went with the Discard All
            self._asked_discard = False
            return "ekkert"
        if snap.get("game_winner"):
            return "já"  # COM-8: the game's end confirmed
        if snap.get("awaiting") is None:
            return ""  # deal the next round (Enter)
        if choice == "reveal":
            return self.round_end(prompt, snap)
        by = snap["awaiting"]["by"]
        verbs = snap["awaiting"]["verbs"]
        if choice == "top":  # COM-4: the dealer says the start card
            return "rautt 5" if self.rounds_ended == 0 else "grænt þrír"
        if choice in ("press", "until"):
            return self.press()
        if choice == "color":
            return NAMED_COLOUR["blue"]
        if choice == "target":
            return next(p for p in PLAYERS if p != by)
        catchable = snap.get("uno_catchable")
        if catchable and not self.caught and catchable != self.finisher:
            self.caught = True
            catcher = next(p for p in PLAYERS if p != catchable)
            return f"{catcher} grípa {catchable}"  # COM-6, ATK-20
        if "pass" in verbs:
            return "pass"  # ATK-8: no extra card
        return self.turn(by, snap)

    def press(self) -> str:
        self._press_from = self.entries()
        return "ýta"

    def turn(self, by: str, snap: dict[str, Any]) -> str:
        colour = snap["color"] or "red"
        size = snap["hand_sizes"][by]
        if self.plan:
            item = self.plan.pop(0)
            if item.startswith("!"):
                item = item[1:]
            elif size <= 3 and not item.startswith(COMMANDS):
                self.plan.insert(0, item)
                return f"leiðrétta {by} 7"  # keep the round going until the plan is done
            if item.startswith("ýta"):
                self._press_from = self.entries()
                return item
            if "henda öllum" in item and "{l}" not in item:
                self._asked_discard = True
            others = [p for p in PLAYERS if p != by]
            chosen = next(c for c in ("blue", "green", "yellow", "red") if c != colour)
            return item.format(
                c=CARD_COLOUR[colour],
                n=CARD_COLOUR[chosen],
                t=others[0],
                who=by,
                l=LETTER[colour],
            )
        # The plan is done: this player goes out (COM-7), saying UNO with the last but one.
        if self.finisher is None:
            self.finisher = by
            if size != 2:
                return f"{by} er með 2"  # a hand size corrected (as 'Ann has 2')
        if by == self.finisher:
            if size == 2:
                return f"{CARD_COLOUR[colour]} sex uno"  # COM-6
            return f"{CARD_COLOUR[colour]} níu"  # the last card: the round ends
        if size <= 2:
            return f"leiðrétta {by} 5"
        return f"{CARD_COLOUR[colour]} tveir"

    def round_end(self, prompt: str, snap: dict[str, Any]) -> str:
        asked = [p for p in PLAYERS if p in prompt]
        if not asked:
            return ""  # the round ended while a prompt waited: Enter
        who = asked[0]
        ends = ROUND_ENDS[min(self.rounds_ended, len(ROUND_ENDS) - 1)]
        others = [p for p in PLAYERS if p != self.finisher]
        size, answer = ends[others.index(who)] if who in others else ends[0]
        if snap["hand_sizes"][who] != size:
            return f"leiðrétta {who} {size}"
        if who == others[-1]:  # the last question of this round
            self.rounds_ended += 1
            self.finisher = None
            self.caught = False
            if self.rounds_ended < len(ROUND_ENDS):
                self.plan = list(PLAN[:8])  # a shorter second round
        return answer


@dataclass
class Played:
    status: int
    typist: IcelandicTypist
    screens: str
    errors: str


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Played]:
    data = tmp_path_factory.mktemp("icelandic-game")
    typist = IcelandicTypist()
    original_run = app_module.Table.run

    def run(table: Any) -> int:
        typist.table = table
        return original_run(table)

    err = io.StringIO()
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(builtins, "input", typist)
        mp.setattr(app_module.Table, "run", run)
        try:
            with contextlib.redirect_stdout(typist.out), contextlib.redirect_stderr(err):
                status = main(
                    [
                        *("play", "--lang", "is", "--variant", "attack"),
                        *("--players", ",".join(PLAYERS), "--dealer", "Örn", "--target", "100"),
                        *("--port", "sim", "--data-dir", str(data)),
                    ]
                )
        finally:
            set_language("en")  # the process's language, for the tests after this one
    assert threading.active_count() < 50
    yield Played(status, typist, typist.out.getvalue(), err.getvalue())


def test_every_icelandic_line_typed_is_accepted_to_the_games_end(played: Played) -> None:
    t = played.typist
    assert played.status == 0, played.errors
    assert t.refused == [], f"refused: {t.refused}"
    lines = [line for _prompt, line in t.typed]
    assert not t.plan, "the game ended before everything was typed"
    assert lines[-1] == "já"  # COM-8: the game's end confirmed in Icelandic
    assert t.rounds_ended == 2
    assert {"ýta", "pass", "afturkalla", "hjálp", "sýna", "ekkert"} <= set(lines)
    assert any(line.endswith(" uno") for line in lines)
    assert any(" grípa " in line for line in lines), "nobody was caught"
    assert "Þóra" in played.screens and "Örn" in played.screens


def _catalog_words() -> tuple[set[str], set[str]]:
    """The words of the catalog's English side (msgids) and of its Icelandic side."""
    from babel.messages.pofile import read_po

    def words(text: str) -> set[str]:
        text = re.sub(r"\{[^}]*\}", " ", text)  # {fields} are not words
        for product in PRODUCTS:
            text = text.replace(product, " ")
        return {w.lower() for w in re.findall(r"[^\W\d_]{2,}", text)}

    english: set[str] = set()
    icelandic: set[str] = set()
    with (LOCALE_DIR / "is" / "LC_MESSAGES" / "unolaunch.po").open("rb") as f:
        for msg in read_po(f):
            if not msg.id:
                continue
            for text in msg.id if isinstance(msg.id, tuple) else (msg.id,):
                english |= words(text)
            for text in msg.string if isinstance(msg.string, tuple) else (msg.string,):
                # what the Icelandic quotes for typing must not make an English word allowed
                # ("sláðu inn 'clear'" would let 'clear' through)
                icelandic |= words(re.sub(r"'[^']*'", " ", text))
    return english, icelandic


def _is_code(word: str) -> bool:
    """A card code ('gS', 'DA') is data in every language."""
    from unolaunch.cards import CardError, parse_card

    if word.isupper() and len(word) <= 3:
        return True  # a kind's code after its colour letter: DA, TH
    try:
        parse_card(word)
    except CardError:
        return False
    return True


def english_lines(screens: str, typed: list[str]) -> list[tuple[str, list[str]]]:
    """The lines of ``screens`` holding a word of the catalog's English side that its
    Icelandic side never uses (player names, products and the lines typed excepted)."""
    english, icelandic = _catalog_words()
    only_english = english - icelandic - {p.lower() for p in PLAYERS}
    echoed = {line.strip() for line in typed if line.strip()}
    found = []
    for line in screens.splitlines():
        if line.strip() in echoed:
            continue  # what was typed, echoed back
        # a command to run is a command: quoted, or the line's end ("... með: unolaunch
        # play --resume 1 --data-dir /tmp/...")
        text = re.sub(r"'unolaunch [^']*'|\bunolaunch play --resume .*$", " ", line)
        for product in PRODUCTS:
            text = text.replace(product, " ")
        bad = [
            w
            for w in re.findall(r"[^\W\d_]{2,}", text)
            if w.lower() in only_english and not _is_code(w)
        ]
        if bad:
            found.append((line, bad))
    return found


def test_the_screens_hold_no_english_word_of_the_catalog(played: Played) -> None:
    typed = [line for _prompt, line in played.typist.typed]
    found = english_lines(played.screens, typed)
    shown = "\n".join(f"{words}: {line}" for line, words in found[:40])
    assert found == [], f"{len(found)} lines with English words:\n{shown}"


def test_the_english_check_finds_english() -> None:
    """The check above could fail: English lines are found, Icelandic ones are not."""
    found = english_lines(
        "✗ one card at a time, please: type the first card you played\n"
        "✗ eitt spil í einu: skráðu fyrsta spilið sem var lagt út\n"
        "Þóra: rautt 5\n",
        [],
    )
    assert [line for line, _words in found] == [
        "✗ one card at a time, please: type the first card you played"
    ]


def test_the_catalog_has_an_english_and_an_icelandic_side() -> None:
    english, icelandic = _catalog_words()
    assert {"card", "press", "draw"} <= english
    assert {"spil", "ýta", "draga"} <= icelandic
    assert Path(LOCALE_DIR / "is" / "LC_MESSAGES" / "unolaunch.po").is_file()
