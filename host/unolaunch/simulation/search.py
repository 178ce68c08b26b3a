"""``tune``'s search: the launcher settings that meet one target at a table, found by
fixed-seed simulations (common random numbers: every trial plays the same games).

:class:`Search` is handed the function that simulates one setting, so the same search runs
on one core, on every core or on a Dask cluster (see :mod:`unolaunch.simulation.runners`).
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from unolaunch.simulation.stats import Stats

__all__ = ["MAX_ACTIONS", "Search", "Trial", "measure", "shifted"]


def shifted(weights: list[int], shift: int) -> list[int]:
    """``burst_weights`` with every burst ``shift`` cards longer (or shorter), same shape."""
    if shift >= 0:
        return [0] * shift + list(weights)
    return list(weights)[-shift:]


@dataclass
class Trial:
    """One simulated setting and what it measured."""

    fire_chance_pct: int
    max_blanks: int
    shift: int
    value: float
    stats: Stats

    def to_json(self) -> dict[str, Any]:
        """The trial as listed in ``--json``."""
        return {
            "fire_chance_pct": self.fire_chance_pct,
            "max_blanks": self.max_blanks,
            "burst_shift": self.shift,
            "value": round(self.value, 4),
        }


#: A trial's game that has not ended after this many actions makes the setting "too much":
#: rounds that never end (hands that only grow) are no game for a table.
MAX_ACTIONS = 20_000


def _median(hist: Counter[int]) -> float:
    """The median of an integer histogram (the lower middle value for an even count)."""
    n = sum(hist.values())
    seen = 0
    for k in sorted(hist):
        seen += hist[k]
        if 2 * seen >= n:
            return float(k)
    return 0.0


def measure(stats: Stats, target: str, median: bool = False) -> float:
    """The figure ``target`` names, from a simulation's statistics (infinite when a game
    did not end within :data:`MAX_ACTIONS`); with ``median``, the median round's turns or
    minutes instead of the mean."""
    if stats.capped or not stats.games:
        return math.inf
    if median and target == "turns_per_round":
        return _median(stats.turns_hist)
    if median and target == "minutes_per_round":
        return _median(stats.round_seconds_hist) / 60
    if target == "turns_per_round":
        return stats.turns / max(stats.rounds, 1)
    if target == "minutes_per_round":
        return stats.minutes_per_round
    if target == "cards_per_press":
        return stats.cards / max(stats.presses, 1)
    return stats.fire_rate


class Search:
    """The search: trials cached by setting, each one a fixed-seed simulation."""

    def __init__(
        self,
        run: Callable[[dict[str, Any]], Stats],
        base: dict[str, Any],
        target: str,
        goal: float,
        tolerance: float,
        on_trial: Callable[[Trial], None] | None = None,
        median: bool = False,
    ) -> None:
        self.run = run
        self.base = base
        self.target = target
        self.goal = goal
        self.tolerance = tolerance
        self.trials: list[Trial] = []
        self._seen: dict[tuple[int, int, int], Trial] = {}
        self.on_trial = on_trial
        self.median = median

    def settings(self, chance: int, blanks: int, shift: int) -> dict[str, Any]:
        """The pattern keys of a trial."""
        return {
            "fire_chance_pct": chance,
            "max_blanks": blanks,
            "burst_weights": shifted(self.base["burst_weights"], shift),
        }

    def trial(self, chance: int, blanks: int, shift: int) -> Trial:
        """Simulate one setting (once: trials are cached)."""
        key = (chance, blanks, shift)
        if key not in self._seen:
            stats = self.run(self.settings(chance, blanks, shift))
            t = Trial(chance, blanks, shift, measure(stats, self.target, self.median), stats)
            self._seen[key] = t
            self.trials.append(t)
            if self.on_trial is not None:
                self.on_trial(t)
        return self._seen[key]

    def ok(self, t: Trial) -> bool:
        """Whether a trial meets the target within the tolerance."""
        return abs(t.value - self.goal) <= self.tolerance

    def bisect(self, blanks: int, shift: int) -> Trial | None:
        """Bisect fire_chance_pct (1..100; every figure grows with it) at ``blanks`` and
        ``shift``; the trial that meets the target, None when it is out of reach here."""
        start = max(1, min(100, int(self.base["fire_chance_pct"])))
        t = self.trial(start, blanks, shift)
        if self.ok(t):
            return t
        # Gallop away from the configured chance (8, 16, 32, ... points) until the target
        # is crossed: extreme settings (rounds that never end) are tried last, if at all.
        lo = hi = start
        step = 8
        if t.value < self.goal:
            while True:
                if hi == 100:
                    return None
                lo, hi = hi, min(100, hi + step)
                t = self.trial(hi, blanks, shift)
                if self.ok(t):
                    return t
                if t.value > self.goal:
                    break
                step *= 2
        else:
            while True:
                if lo == 1:
                    return None
                lo, hi = max(1, lo - step), lo
                t = self.trial(lo, blanks, shift)
                if self.ok(t):
                    return t
                if t.value < self.goal:
                    break
                step *= 2
        while hi - lo > 1:
            mid = (lo + hi) // 2
            t = self.trial(mid, blanks, shift)
            if self.ok(t):
                return t
            if t.value < self.goal:
                lo = mid
            else:
                hi = mid
        return None

    def best(self) -> Trial:
        """The trial closest to the target so far."""
        return min(self.trials, key=lambda t: abs(t.value - self.goal))

    def expected(self, chance: int, blanks: int, shift: int) -> float | None:
        """The launcher-only targets' expectation from the pattern itself (the firmware's
        ``fire_rate``); None for the table's figures, which only a simulation gives."""
        if self.target not in ("fire_rate", "cards_per_press"):
            return None
        from unolaunch.fwconfig import load_pattern_module

        rate: float = load_pattern_module().fire_rate(chance, blanks)
        if self.target == "fire_rate":
            return rate
        weights = shifted(self.base["burst_weights"], shift)
        mean = sum((i + 1) * w for i, w in enumerate(weights)) / sum(weights)
        return rate * mean

    def reachable(self, blanks: int, shift: int) -> bool:
        """Whether some fire_chance_pct may meet the target here (always, when unknown)."""
        low, high = self.expected(1, blanks, shift), self.expected(100, blanks, shift)
        if low is None or high is None:
            return True
        return low - self.tolerance <= self.goal <= high + self.tolerance

    def solve(self) -> Trial | None:
        """Search; the first trial within the tolerance, or None."""
        blanks = int(self.base["max_blanks"])
        if self.expected(1, blanks, 0) is not None:
            return self._solve_launcher(blanks)
        found = self.bisect(blanks, 0)
        if found is not None:
            return found
        more = self.best().value < self.goal
        length = len(self.base["burst_weights"])
        steps = range(1, 41 - length) if more else range(-1, -length, -1)
        for shift in steps:
            if not sum(shifted(self.base["burst_weights"], shift)):
                break
            found = self.bisect(blanks, shift)
            if found is not None:
                return found
            # no crossing at this shift: try the next one only if it still points our way
            if (self.best().value < self.goal) != more:
                return None
        return None

    def _solve_launcher(self, blanks: int) -> Trial | None:
        """Fire rate and cards per press are the pattern's own: the firmware's ``fire_rate``
        picks the setting (held keys first), one simulation confirms it at this table."""
        if self.target == "fire_rate":
            # Only max_blanks moves the fire rate beyond what fire_chance_pct can.
            order = sorted(range(21), key=lambda b: (abs(b - blanks), b))
            keys = [(b, 0) for b in order]
        else:
            length = len(self.base["burst_weights"])
            shifts = [s for s in range(-length + 1, 41 - length) if s]
            shifts.sort(key=lambda s: (abs(s), s))
            keys = [(blanks, s) for s in [0, *shifts]]
        for b, shift in keys:
            if not sum(shifted(self.base["burst_weights"], shift)):
                continue
            chance = min(
                range(1, 101), key=lambda c: abs((self.expected(c, b, shift) or 0) - self.goal)
            )
            if abs((self.expected(chance, b, shift) or 0) - self.goal) <= self.tolerance / 2:
                t = self.trial(chance, b, shift)
                return t if self.ok(t) else None
        return None
