"""The time model measured at a real table: seconds per play, press and reload from the
journal of finished games (``unolaunch play`` stores when each action happened).

The time an action took is the gap between it and the journal entry just before it (the
previous action): the player's thinking, the card going down, the press and, for a press,
the motor's run, which the time model counts apart and is taken out here. Robustly:

* only the actions still in effect count (an action taken back by ``undo`` and the one
  typed right after an undo are left out), and only a gap between two actions of the game
  (not across a deal, a note such as a foul, a correction or the round-end count);
* gaps longer than ``pause_s`` are pauses (a drink, a phone call), left out and counted;
* each figure is the median of its gaps, with the number of gaps it rests on; a figure
  with fewer than its minimum of gaps is not used (the default stays).

A reload (ATK-22) is the time from the launcher reporting itself empty (the journal's note
of the outcome ``fault`` with the fault ``empty``, :func:`is_empty_note`) to the next
action, less that action's own median time.
"""

from __future__ import annotations

import itertools
import statistics
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from unolaunch.errors import UnolaunchError
from unolaunch.simulation.model import TimeModel
from unolaunch.table.journal import DB_NAME, Entry, Journal, data_dir

__all__ = [
    "EMPTY_NOTICE",
    "MIN_SAMPLES",
    "PAUSE_S",
    "Calibration",
    "Figure",
    "calibrate",
    "calibrate_from_history",
    "is_empty_note",
]

#: A gap longer than this (seconds) is a pause, not the time of an action.
PAUSE_S = 120.0
#: Gaps a figure must rest on to replace the default.
MIN_SAMPLES = {"play": 20, "press": 20, "reload": 3}
#: The journal note's words of an empty launcher (ATK-22) in a journal from before outcomes
#: were kept as data (issue 34).
EMPTY_NOTICE = "launcher fault: empty"


def is_empty_note(data: Mapping[str, Any]) -> bool:
    """Whether a journal note is the launcher reporting itself empty (ATK-22): by its
    outcome's data (an older journal: by its English words)."""
    found = data.get("outcome")
    if isinstance(found, Mapping):
        args = found.get("args")
        return (
            found.get("outcome") == "fault"
            and isinstance(args, Mapping)
            and (args.get("fault") == "empty")
        )
    return data.get("notice") == EMPTY_NOTICE


#: ``choose`` keys of the hidden-hands table that are no action of a simulated game (the
#: start card, the Item Box card turned, a challenge's outcome, the round-end count).
_TABLE_ONLY = frozenset({"top", "turned", "won", "points", "hands"})


@dataclass(frozen=True)
class Figure:
    """One measured figure: the median of ``samples`` gaps (None with none at all)."""

    name: str
    median: float | None
    samples: int
    pauses: int  # gaps left out as longer than the pause limit
    minimum: int

    @property
    def usable(self) -> bool:
        """Whether the figure rests on enough gaps to be used."""
        return self.median is not None and self.samples >= self.minimum

    def to_json(self) -> dict[str, Any]:
        """The figure as stated in ``--json``."""
        return {
            "seconds": None if self.median is None else round(self.median, 2),
            "samples": self.samples,
            "pauses_left_out": self.pauses,
            "min_samples": self.minimum,
            "used": self.usable,
        }


@dataclass(frozen=True)
class Calibration:
    """What the journal says about a table's pace."""

    source: str
    variant: str | None  # None: every variant's games
    games: int
    pause_s: float
    play: Figure
    press: Figure
    reload: Figure

    @property
    def figures(self) -> tuple[Figure, Figure, Figure]:
        """Play, press and reload."""
        return (self.play, self.press, self.reload)

    def seconds(self, defaults: Mapping[str, float]) -> dict[str, float]:
        """``defaults`` (play, press, reload) with every usable figure put in."""
        out = dict(defaults)
        for f in self.figures:
            if f.usable and f.median is not None:
                out[f.name] = round(f.median, 2)
        return out

    def to_json(self) -> dict[str, Any]:
        """The calibration as stated in ``--json``."""
        return {
            "source": self.source,
            "variant": self.variant or "all",
            "games": self.games,
            "pause_limit_s": self.pause_s,
            **{f.name: f.to_json() for f in self.figures},
        }


def _when(text: str) -> float:
    """A journal time stamp (``YYYY-MM-DD HH:MM:SS``, UTC; fractions allowed) in seconds."""
    return datetime.fromisoformat(text).replace(tzinfo=UTC).timestamp()


def _kind(entry: Entry) -> str | None:
    """``press``, ``play`` (any other action of a simulated game) or None (no such action)."""
    if entry.kind != "action":
        return None
    data = entry.data
    if "press" in data:
        return "press"
    if "correct" in data:
        return None
    choose = data.get("choose")
    if isinstance(choose, Mapping) and _TABLE_ONLY & set(choose):
        return None
    return "play"


def _undone(entries: Sequence[Entry]) -> set[int]:
    """The seqs of the actions and deals that an undo took back, and of every action typed
    right after an undo (its gap runs from the undo, not from an action)."""
    stack: list[int] = []
    out: set[int] = set()
    after_undo = False
    for e in entries:
        if e.kind in ("action", "deal"):
            stack.append(e.seq)
            if after_undo:
                out.add(e.seq)
            after_undo = False
        elif e.kind == "undo":
            keep = max(0, len(stack) - int(e.data.get("n", 1)))
            out.update(stack[keep:])
            del stack[keep:]
            after_undo = True
    return out


def _motor_s(model: TimeModel, cards: Any) -> float:
    """The launcher's run for a press that shot ``cards`` cards (the time model's)."""
    if not isinstance(cards, int) or cards <= 0:
        return 0.0
    return (model.ramp_ms / 2 + model.brake_ms) / 1000 + cards * model.ms_per_card / 1000


def calibrate(
    games: Iterable[Sequence[Entry]],
    motor: TimeModel | None = None,
    *,
    pause_s: float = PAUSE_S,
    source: str = "",
    variant: str | None = None,
    min_samples: Mapping[str, int] | None = None,
) -> Calibration:
    """Measure seconds per play, press and reload from the entries of finished games (each
    game's entries in order). ``motor``: the launcher's figures to take out of a press
    (default: the firmware's defaults, :class:`TimeModel`'s)."""
    model = motor if motor is not None else TimeModel()
    minimum = {**MIN_SAMPLES, **(min_samples or {})}
    gaps: dict[str, list[float]] = {"play": [], "press": [], "reload": []}
    pauses = dict.fromkeys(gaps, 0)
    reload_gaps: list[tuple[float, str]] = []  # (gap, kind of the action after it)
    count = 0
    for entries in games:
        count += 1
        undone = _undone(entries)
        for prev, cur in itertools.pairwise(entries):
            kind = _kind(cur)
            if kind is None or cur.seq in undone:
                continue
            gap = _when(cur.at) - _when(prev.at)
            if prev.kind == "note" and is_empty_note(prev.data):
                if gap > pause_s:
                    pauses["reload"] += 1
                elif gap >= 0:  # the next action's own time is taken out below
                    run_s = _motor_s(model, cur.data.get("cards")) if kind == "press" else 0.0
                    reload_gaps.append((gap - run_s, kind))
                continue
            if _kind(prev) is None or prev.seq in undone or gap < 0:
                continue
            if gap > pause_s:
                pauses[kind] += 1
                continue
            if kind == "press":
                gap = max(0.0, gap - _motor_s(model, cur.data.get("cards")))
            gaps[kind].append(gap)
    medians = {k: statistics.median(v) if v else None for k, v in gaps.items()}
    for gap, kind in reload_gaps:
        own = medians[kind]
        gaps["reload"].append(max(0.0, gap - (own if own is not None else 0.0)))
    medians["reload"] = statistics.median(gaps["reload"]) if gaps["reload"] else None
    figures = [Figure(k, medians[k], len(gaps[k]), pauses[k], minimum[k]) for k in gaps]
    return Calibration(source, variant, count, pause_s, *figures)


def calibrate_from_history(
    directory: str | Path | None,
    variant: str | None,
    motor: TimeModel | None = None,
    *,
    pause_s: float = PAUSE_S,
) -> Calibration:
    """:func:`calibrate` on the finished games of ``variant`` (None: of every variant) in
    the journal of data folder ``directory`` (see :func:`~unolaunch.table.journal.data_dir`);
    no journal there is no games (every figure then keeps its default)."""
    path = data_dir(directory) / DB_NAME
    if not path.exists():
        return calibrate([], motor, pause_s=pause_s, source=str(path), variant=variant)
    with Journal(path, read_only=True) as journal:
        records = [
            g
            for g in journal.games()
            if g.status == "finished" and (variant is None or g.variant == variant)
        ]
        games = [journal.entries(g.id) for g in reversed(records)]
    try:
        return calibrate(games, motor, pause_s=pause_s, source=str(path), variant=variant)
    except ValueError as exc:  # a time stamp that is not one
        raise UnolaunchError(f"the games file {path} has an unreadable entry ({exc})") from None
