"""A seeded "table of players" that types into `unolaunch play`, for scripted games.

:func:`script_game` plays a whole game in-process through the real :class:`Table` (parser,
session, journal), typing what players at a table would — mostly legal moves, some bad
input, some undos — and records every line typed together with the journal's entry count
and the engine state after each journal entry. The lines can then be fed to the real CLI
(in a subprocess or a pseudo-terminal) and the states compared.
"""

from __future__ import annotations

import contextlib
import io
import random
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rich.console import Console
from unolaunch.table.app import Table
from unolaunch.table.journal import Journal
from unolaunch.table.session import Session

COLORS = ("red", "yellow", "green", "blue")
LETTERS = "rygb"
BAD = ["blah", "red", "catch Zed", "press lots", "undo x", "fix", "r5 g7", "attack", "bleu 7"]


def _kinds(variant: str) -> list[str]:
    if variant == "attack":
        return ["skip", "reverse", "hit 2", "discard all"]
    if variant == "mario-kart":
        return ["skip", "reverse", "+2"]
    return ["skip", "reverse", "+1"]


def _wild(variant: str, rng: random.Random, by: str, players: tuple[str, ...]) -> str:
    col = rng.choice(COLORS)
    other = rng.choice([p for p in players if p != by])
    if variant == "attack":
        return rng.choice([f"wild {col}", f"wh4 {col}", f"attack {col} {other}"])
    if variant == "mario-kart":
        turned = rng.choice(["g7", "r3", "y1", "b2", "W+4"])
        return rng.choice([f"wd4 {col}", f"item box {turned} {other} {col}"])
    return rng.choice([f"wild {col}", f"wd2 {col}", f"dip {col}"])


@dataclass
class Typist:
    """Chooses the next line to type from the position (seeded)."""

    rng: random.Random
    bad_rate: float = 0.04
    undo_rate: float = 0.03
    play_rate: float = 0.72

    def line(self, table: Table, prompt: str) -> str:
        """What the table types at ``prompt``."""
        rng = self.rng
        s = table.session
        if prompt.startswith("Cards left"):
            return self.hand_left(table, prompt)
        if prompt.startswith("Which other"):  # ATK-12: what went with a Discard All
            return rng.choice(["none", "none", "1", "y3 y9"])
        if "wins the game. Is that right?" in prompt:  # COM-8: the game's end is confirmed
            return "yes"
        if prompt.startswith("deal round"):
            return ""
        if prompt.startswith("How many"):
            return str(rng.choice([0, 0, 1, 2, 3]))
        if rng.random() < self.bad_rate:
            return rng.choice(BAD)
        if rng.random() < self.undo_rate and s.game.undo_depth > 1:
            return "undo"
        snap = s.snapshot()
        aw = snap["awaiting"]
        by, verbs = aw["by"], aw["verbs"]
        choice = s.choice()
        v = s.variant
        low = 0 if v == "mario-kart" else 1
        number = f"{rng.choice(LETTERS)}{rng.randrange(low, 10)}"
        if choice == "top":
            return number
        if choice in ("press", "until"):
            return f"press {rng.choice([0, 0, 1, 2])}"
        if choice == "challenge":
            return rng.choice(["challenge", "accept"])
        if choice == "won":
            return rng.choice(["won", "lost"])
        if choice == "color":
            return rng.choice(COLORS)
        if choice == "target":
            return rng.choice([p for p in s.players if p != by])
        if choice == "turned":
            return rng.choice(["g7", "r3", "y1", "b2"])
        if choice == "give":
            return number
        if "catch" in verbs and snap.get("uno_catchable") and rng.random() < 0.5:
            return f"catch {snap['uno_catchable']}"
        size = snap["hand_sizes"][by]
        if "pass" in verbs and rng.random() < 0.5:
            return "pass"
        if rng.random() < self.play_rate or "pass" in verbs:
            col = LETTERS[COLORS.index(snap["color"])] if snap["color"] else "r"
            r = rng.random()
            if r < 0.55:
                card = f"{col}{rng.randrange(low, 10)}"
            elif r < 0.8:
                card = f"{COLORS[LETTERS.index(col)]} {rng.choice(_kinds(v))}"
            else:
                card = _wild(v, rng, by, s.players)
            if size == 2 and rng.random() < 0.6:
                card += " uno"
            return card
        return "press 1" if v == "attack" else "draw"

    def hand_left(self, table: Table, prompt: str) -> str:
        """A round end's answer for one hand: mostly what fits its size (COM-8), the cards
        or a total in range; sometimes a wrong one (refused, then asked again)."""
        rng = self.rng
        n = int(prompt.split("(")[1].split(" ")[0])
        if rng.random() < self.bad_rate:
            return rng.choice(["r5 g7", "none", "9999"])
        if n <= 6 and rng.random() < 0.5:
            low = 0 if table.session.variant == "mario-kart" else 1
            return " ".join(f"{rng.choice(LETTERS)}{rng.randrange(low, 4)}" for _ in range(n))
        lo, hi = table.session.hand_value_range(n)  # low totals: games of several rounds
        return str(rng.randrange(lo, min(hi, lo + 15) + 1))


@dataclass
class Script:
    """A recorded game: the command line, the lines typed, and states by journal entry."""

    args: list[str]
    lines: list[str] = field(default_factory=list)
    entries_after: list[int] = field(default_factory=list)  # journal entries after line i
    states: dict[int, Any] = field(default_factory=dict)  # entries -> snapshot
    keys: dict[int, Any] = field(default_factory=dict)  # entries -> engine state_key
    game_id: int = 0


class _Stop(Exception):
    pass


def script_game(
    data_dir: Path,
    variant: str,
    players: list[str],
    seed: int,
    target: int,
    max_lines: int = 2000,
) -> Script:
    """Play one whole game in-process with a :class:`Typist`; return its script."""
    rng = random.Random(seed)
    typist = Typist(rng)
    args = [
        "play",
        "--variant",
        variant,
        "--players",
        ",".join(players),
        "--target",
        str(target),
        "--seed",
        str(seed),
        "--dealer",
        players[0],
    ]
    script = Script(args)
    journal = Journal.open(data_dir)
    session = Session.start(
        journal, variant, players, {"target": target}, seed=seed, dealer=players[0]
    )
    script.game_id = session.id
    count = [0]
    original = journal.append_many

    def recording(*a: Any, **k: Any) -> int:
        seq = original(*a, **k)
        count[0] = seq
        script.states[seq] = session.game.snapshot()
        script.keys[seq] = session.game.state_key()
        return seq

    journal.append_many = recording  # type: ignore[method-assign]
    script.states[0] = session.game.snapshot()
    script.keys[0] = session.game.state_key()

    def read_line(prompt: str) -> str:
        if script.lines:
            script.entries_after.append(count[0])
        if len(script.lines) >= max_lines:
            raise _Stop
        line = typist.line(table, prompt)
        script.lines.append(line)
        return line

    table = Table(session, Console(file=io.StringIO(), width=100), read_line=read_line)
    with contextlib.suppress(_Stop):
        table.run()
    script.entries_after.append(count[0])
    journal.close()
    return script
