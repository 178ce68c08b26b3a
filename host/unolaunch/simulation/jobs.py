"""A run as picklable jobs, and the function that plays one anywhere.

:func:`plan` splits a run into :class:`Job` values of at most ``chunk`` games; each game's
seed comes from the run's seed and the game's number (:func:`game_seed`), so a job gives
the same figures in this process, in a worker process or on a Dask worker on another
machine, and :meth:`Stats.merge` adds the parts up in any order.
"""

from __future__ import annotations

import hashlib
import random
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from unolaunch.bots import Bot, RoundFigures, make_bot, play_game
from unolaunch.errors import UnolaunchError
from unolaunch.rules import Game, PatternLauncher, TurnCapError
from unolaunch.simulation.model import TimeModel
from unolaunch.simulation.stats import Stats

__all__ = ["Job", "game_seed", "plan", "play_games"]


def game_seed(seed: int, number: int) -> int:
    """The seed of game ``number`` (0-based) of a run seeded ``seed``: a 64-bit hash of both,
    the same in every process and on every platform."""
    digest = hashlib.blake2b(f"unolaunch:{seed}:{number}".encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big")


@dataclass(frozen=True)
class Job:
    """Games ``start`` to ``stop - 1`` of a run: everything a worker needs (picklable)."""

    variant: str
    players: int
    bot_names: tuple[str, ...]
    options: dict[str, Any]
    max_actions: int
    seed: int
    start: int
    stop: int
    launcher_config: dict[str, Any] | None
    time_model: TimeModel | None
    count_capped: bool = False


def play_games(job: Job) -> Stats:
    """Play the games of ``job`` in this process; return their statistics."""
    cpu_start = time.process_time()
    names = [f"P{i + 1}" for i in range(job.players)]
    kinds = [job.bot_names[i % len(job.bot_names)] for i in range(job.players)]
    stats = Stats(job.variant, job.players, kinds, job.seed)
    attack = job.variant == "attack"
    model = job.time_model
    for i in range(job.start, job.stop):
        rng = random.Random(game_seed(job.seed, i))
        bots: list[Bot] = [make_bot(k, rng) for k in kinds]
        launcher = PatternLauncher(rng.getrandbits(32), job.launcher_config) if attack else None
        game = Game.new(job.variant, names, options=job.options, rng=rng, launcher=launcher)
        figures: list[RoundFigures] | None = [] if attack else None
        try:
            result = play_game(game, bots, max_actions=job.max_actions, round_figures=figures)
        except TurnCapError as exc:
            if job.count_capped:
                stats.capped += 1  # one is enough to call the setting too much
                break
            raise UnolaunchError(f"game {i + 1} (seed {job.seed}): {exc}") from None
        stats.games += 1
        stats.actions += result.actions
        stats.rounds += result.rounds
        stats.wins_by_seat[result.winner] += 1
        stats.wins_by_bot[kinds[result.winner]] += 1
        stats.presses += game.presses
        stats.press_cards += game.press_cards
        if launcher is not None and figures is not None:
            stats.fires += launcher.fires
            stats.cards += launcher.cards
            stats.cards_hist.update(dict(enumerate(launcher.histogram)))
            stats.max_blank_streak = max(stats.max_blank_streak, launcher.max_blank_streak)
            for f in figures:
                stats.reloads += f.reloads
                stats.turns += f.turns
                stats.turns_hist[f.turns] += 1
                stats.presses_hist[f.presses] += 1
                if model is not None:
                    secs = model.seconds(f.actions, f.presses, f.fires, f.cards, f.reloads)
                    stats.round_seconds_hist[round(secs)] += 1
    stats.cards_hist = +stats.cards_hist  # without the burst sizes that never came
    stats.cpu_seconds = time.process_time() - cpu_start
    return stats


def plan(
    variant: str,
    players: int,
    games: int,
    seed: int,
    bot_names: Sequence[str],
    options: dict[str, Any] | None = None,
    max_actions: int = 2_000_000,
    *,
    launcher_config: Mapping[str, Any] | None = None,
    launcher_source: str = "firmware defaults",
    time_model: TimeModel | None = None,
    chunk: int = 200,
    count_capped: bool = False,
) -> tuple[Stats, list[Job]]:
    """Split a run into jobs of at most ``chunk`` games; return the empty statistics to merge
    their results into (in any order) and the jobs.

    Jobs are picklable and :func:`play_games` plays one anywhere — a worker process here, or
    a Dask worker on another machine (:class:`~unolaunch.simulation.runners.DaskRunner`)::

        stats, jobs = plan("attack", 4, 1_000_000, 1, ["heuristic"])
        for part in executor.map(play_games, jobs):
            stats.merge(part)
    """
    from unolaunch.fwconfig import config_defaults

    config = dict(config_defaults())
    if launcher_config is not None:
        config.update(launcher_config)
    model = time_model if time_model is not None else TimeModel.for_config(config)
    kinds = [bot_names[i % len(bot_names)] for i in range(players)]
    chunk = max(1, chunk)
    jobs = [
        Job(variant, players, tuple(bot_names), dict(options or {}), max_actions, seed,
            start, min(start + chunk, games), config, model, count_capped)
        for start in range(0, games, chunk)
    ]  # fmt: skip
    stats = Stats(variant, players, kinds, seed)
    stats.launcher_config = config
    stats.launcher_source = launcher_source
    stats.time_model = model
    return stats, jobs
