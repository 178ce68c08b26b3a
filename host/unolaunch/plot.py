"""Pictures of simulations (``simulate --plot``, ``tune --plot``) with matplotlib, an
optional extra: ``pip install 'unolaunch[plot]'``. The core install does not need it."""

from __future__ import annotations

import math
from pathlib import Path
from typing import TYPE_CHECKING, Any

from unolaunch.errors import UnolaunchError, UsageError

if TYPE_CHECKING:
    from unolaunch.simulation import Stats

__all__ = ["check_plot_target", "plot_search", "plot_simulation"]

FORMATS = (".svg", ".png")


def check_plot_target(path: str) -> Path:
    """Check a ``--plot`` file name and that matplotlib is installed; return the path."""
    target = Path(path)
    if target.suffix.lower() not in FORMATS:
        raise UsageError(f"--plot {path}: name an .svg or .png file")
    if not target.parent.is_dir():
        raise UsageError(f"--plot {path}: the folder {target.parent} does not exist")
    _pyplot()
    return target


def _pyplot() -> Any:
    try:
        import matplotlib  # type: ignore[import-not-found, unused-ignore]

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt  # type: ignore[import-not-found, unused-ignore]
    except ImportError:
        raise UnolaunchError(
            "--plot needs matplotlib: pip install 'unolaunch[plot]' (or pip install matplotlib)"
        ) from None
    return plt


def plot_simulation(stats: Stats, target: Path) -> None:
    """Draw the cards-per-press distribution and the round-length histogram into ``target``."""
    plt = _pyplot()
    fig, (left, right) = plt.subplots(1, 2, figsize=(10, 4))
    hist = stats.cards_hist
    presses = max(stats.presses, 1)
    ks = list(range(0, max(hist, default=0) + 1))
    left.bar(ks, [hist[k] / presses for k in ks], color=["#999999"] + ["#d62728"] * (len(ks) - 1))
    left.set_xlabel("cards per press (0 = blank)")
    left.set_ylabel("share of presses")
    left.set_title(f"launcher: fire rate {stats.fire_rate:.1%}, {presses:,} presses")
    rounds = stats.round_seconds_hist
    minutes = sorted(rounds.elements())
    right.hist([s / 60 for s in minutes], bins=30, color="#1f77b4")
    right.set_xlabel("minutes per round (time model)")
    right.set_ylabel("rounds")
    right.set_title(f"{stats.rounds:,} rounds: mean {stats.minutes_per_round:.1f} min")
    fig.suptitle(
        f"UNO Attack, {stats.players} players ({', '.join(stats.bots)}), seed {stats.seed}"
    )
    fig.tight_layout()
    try:
        fig.savefig(target)
    except OSError as exc:
        raise UnolaunchError(f"cannot write the plot {target}: {exc}") from None
    finally:
        plt.close(fig)


def plot_search(trials: list[dict[str, Any]], target_name: str, goal: float, path: Path) -> None:
    """Draw a ``tune`` search: each trial's measured figure against its settings."""
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(7, 4))
    xs = list(range(1, len(trials) + 1))
    # a setting whose games never end (inf) has no point: it is marked at the top instead
    ys = [t["value"] if math.isfinite(t["value"]) else math.nan for t in trials]
    ax.plot(xs, ys, marker="o", linestyle="none")
    ax.axhline(goal, color="#d62728", linestyle="--", label=f"target {goal:g}")
    top = max([y for y in ys if not math.isnan(y)] + [goal])
    for x, y, t in zip(xs, ys, trials, strict=True):
        label = f"{t['fire_chance_pct']}%/{t['max_blanks']}"
        if math.isnan(y):
            y, label = top, label + " never ends"
        ax.annotate(
            label, (x, y), fontsize=7, textcoords="offset points", xytext=(0, 6), ha="center"
        )
    ax.set_xticks(xs)
    ax.set_xlabel("trial (labels: fire_chance_pct / max_blanks)")
    ax.set_ylabel(target_name)
    ax.legend()
    fig.tight_layout()
    try:
        fig.savefig(path)
    except OSError as exc:
        raise UnolaunchError(f"cannot write the plot {path}: {exc}") from None
    finally:
        plt.close(fig)
