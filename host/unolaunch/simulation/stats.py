"""What a simulation run measured: :class:`Stats`, integer sums and histograms that merge
exactly in any order (so the figures do not depend on how the games were spread)."""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from unolaunch.simulation.model import TimeModel

__all__ = ["PATTERN_KEYS", "Stats"]

#: The launcher configuration's keys of the ejection pattern (what ``tune`` searches).
PATTERN_KEYS = ("fire_chance_pct", "max_blanks", "burst_weights")


def _spread(hist: Counter[int], scale: float = 1.0, digits: int = 2) -> dict[str, float]:
    """Mean, standard deviation and the 10th/50th/90th percentiles of an integer histogram."""
    n = sum(hist.values())
    if not n:
        return {"mean": 0.0, "sd": 0.0, "p10": 0.0, "p50": 0.0, "p90": 0.0}
    mean = sum(k * c for k, c in hist.items()) / n
    var = sum(c * (k - mean) ** 2 for k, c in hist.items()) / n
    cuts: dict[str, float] = {}
    seen = 0
    wanted = [("p10", 0.1), ("p50", 0.5), ("p90", 0.9)]
    for k in sorted(hist):
        seen += hist[k]
        while wanted and seen >= wanted[0][1] * n:
            cuts[wanted.pop(0)[0]] = round(k * scale, digits)
    return {
        "mean": round(mean * scale, digits),
        "sd": round(math.sqrt(var) * scale, digits),
        **cuts,
    }


@dataclass
class Stats:
    """What a simulation run measured (integer sums and histograms: merged exactly)."""

    variant: str
    players: int
    bots: list[str]
    seed: int
    games: int = 0
    actions: int = 0
    rounds: int = 0
    seconds: float = 0.0
    cpu_seconds: float = 0.0
    workers: int = 1
    wins_by_seat: Counter[int] = field(default_factory=Counter)
    wins_by_bot: Counter[str] = field(default_factory=Counter)
    presses: int = 0
    press_cards: int = 0
    # UNO Attack: the launcher (its own counts) and the rounds.
    fires: int = 0
    cards: int = 0
    cards_hist: Counter[int] = field(default_factory=Counter)  # cards per press -> presses
    max_blank_streak: int = 0
    reloads: int = 0
    capped: int = 0  # games given up at the action cap (only with count_capped)
    turns: int = 0
    turns_hist: Counter[int] = field(default_factory=Counter)  # per round
    presses_hist: Counter[int] = field(default_factory=Counter)  # per round
    round_seconds_hist: Counter[int] = field(default_factory=Counter)  # per round, whole s
    launcher_config: dict[str, Any] | None = None
    launcher_source: str = ""
    time_model: TimeModel | None = None

    def merge(self, other: Stats) -> None:
        """Add another part of the same run (the order does not matter)."""
        self.games += other.games
        self.actions += other.actions
        self.rounds += other.rounds
        self.cpu_seconds += other.cpu_seconds
        self.wins_by_seat.update(other.wins_by_seat)
        self.wins_by_bot.update(other.wins_by_bot)
        self.presses += other.presses
        self.press_cards += other.press_cards
        self.fires += other.fires
        self.cards += other.cards
        self.cards_hist.update(other.cards_hist)
        self.max_blank_streak = max(self.max_blank_streak, other.max_blank_streak)
        self.reloads += other.reloads
        self.capped += other.capped
        self.turns += other.turns
        self.turns_hist.update(other.turns_hist)
        self.presses_hist.update(other.presses_hist)
        self.round_seconds_hist.update(other.round_seconds_hist)

    @property
    def fire_rate(self) -> float:
        """Fraction of presses that shot at least one card."""
        return self.fires / self.presses if self.presses else 0.0

    @property
    def minutes_per_round(self) -> float:
        """The time model's estimate of a round's length, in minutes (mean)."""
        if self.time_model is None or not self.rounds:
            return 0.0
        total = self.time_model.seconds(
            self.actions, self.presses, self.fires, self.cards, self.reloads
        )
        return total / self.rounds / 60

    def launcher_json(self) -> dict[str, Any]:
        """The ``launcher`` object of ``--json``."""
        fires = max(self.fires, 1)
        return {
            "presses": self.presses,
            "fires": self.fires,
            "fire_rate": round(self.fire_rate, 4),
            "cards": self.cards,
            "cards_per_press": round(self.cards / max(self.presses, 1), 3),
            "cards_per_fire": {
                str(k): round(self.cards_hist[k] / fires, 4) for k in sorted(self.cards_hist) if k
            },
            "max_blank_streak": self.max_blank_streak,
            "reloads": self.reloads,
        }

    def to_json(self) -> dict[str, Any]:
        """The --json object."""
        g = max(self.games, 1)
        secs = self.seconds or 1e-9
        seat_names = [f"P{i + 1}" for i in range(self.players)]
        bot_seats = Counter(self.bots)
        out: dict[str, Any] = {
            "variant": self.variant,
            "players": self.players,
            "bots": dict(zip(seat_names, self.bots, strict=True)),
            "seed": self.seed,
            "games": self.games,
            "actions": self.actions,
            "rounds": self.rounds,
            "seconds": round(self.seconds, 4),
            # CPU time of the processes that played: steadier than wall time on a busy machine.
            "cpu_seconds": round(self.cpu_seconds, 4),
            "workers": self.workers,
            "games_per_second": round(self.games / secs, 2),
            "actions_per_second": round(self.actions / secs, 1),
            "actions_per_cpu_second": round(self.actions / (self.cpu_seconds or 1e-9), 1),
            "avg_rounds_per_game": round(self.rounds / g, 3),
            "avg_actions_per_round": round(self.actions / max(self.rounds, 1), 2),
            "avg_actions_per_game": round(self.actions / g, 2),
            "win_rate_by_seat": {
                name: round(self.wins_by_seat[i] / g, 4) for i, name in enumerate(seat_names)
            },
            # Per bot kind: the share of games won by seats of that kind, divided by the
            # number of such seats (so a fair table gives every bot 1/players).
            "win_rate_by_bot": {
                b: round(self.wins_by_bot[b] / g / n, 4) for b, n in sorted(bot_seats.items())
            },
        }
        if self.variant == "attack":
            out["presses"] = self.presses
            out["cards_per_press"] = round(self.press_cards / max(self.presses, 1), 3)
            out["presses_per_game"] = round(self.presses / g, 2)
            out["launcher"] = self.launcher_json()
            rounds = max(self.rounds, 1)
            out["turns_per_round"] = round(self.turns / rounds, 2)
            out["presses_per_round"] = round(self.presses / rounds, 2)
            out["minutes_per_round"] = round(self.minutes_per_round, 2)
            out["per_round"] = {
                "turns": _spread(self.turns_hist),
                "presses": _spread(self.presses_hist),
                "minutes": _spread(self.round_seconds_hist, 1 / 60),
            }
            if self.time_model is not None:
                out["time_model"] = self.time_model.to_json()
            if self.launcher_config is not None:
                out["launcher_config"] = {
                    "source": self.launcher_source,
                    **{k: self.launcher_config[k] for k in PATTERN_KEYS},
                }
        return out
