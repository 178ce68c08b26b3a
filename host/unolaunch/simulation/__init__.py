"""Simulation as a library: bots play many complete games on the rules engine, on every
core of this machine or on a Dask cluster, and the figures come out the same.

``unolaunch simulate`` and ``unolaunch tune`` only parse their arguments and print; what
they run is here::

    from unolaunch.simulation import open_runner, simulate

    with open_runner(workers=4) as runner:          # or scheduler="tcp://HOST:8786"
        stats = simulate("attack", 4, 10_000, 1, ["heuristic"], runner=runner)
    stats.to_json()

* :mod:`~unolaunch.simulation.model` — :class:`TimeModel`, seconds a table spends on a round;
* :mod:`~unolaunch.simulation.stats` — :class:`Stats`, integer sums that merge exactly;
* :mod:`~unolaunch.simulation.jobs` — :func:`plan` splits a run into picklable :class:`Job`
  values, :func:`play_games` plays one anywhere;
* :mod:`~unolaunch.simulation.runners` — where jobs are played (:func:`open_runner`) and
  :func:`simulate`;
* :mod:`~unolaunch.simulation.search` — ``tune``'s search of the launcher's settings;
* :mod:`~unolaunch.simulation.calibrate` — the time model measured from the journal of
  games played at a real table.
"""

from __future__ import annotations

from unolaunch.simulation.jobs import Job, game_seed, plan, play_games
from unolaunch.simulation.model import (
    SECONDS_PER_PLAY,
    SECONDS_PER_PRESS,
    SECONDS_PER_RELOAD,
    TimeModel,
)
from unolaunch.simulation.runners import (
    DaskRunner,
    PoolRunner,
    Runner,
    SerialRunner,
    check_scheduler,
    default_workers,
    open_runner,
    simulate,
)
from unolaunch.simulation.stats import PATTERN_KEYS, Stats

__all__ = [
    "PATTERN_KEYS",
    "SECONDS_PER_PLAY",
    "SECONDS_PER_PRESS",
    "SECONDS_PER_RELOAD",
    "DaskRunner",
    "Job",
    "PoolRunner",
    "Runner",
    "SerialRunner",
    "Stats",
    "TimeModel",
    "check_scheduler",
    "default_workers",
    "game_seed",
    "open_runner",
    "plan",
    "play_games",
    "simulate",
]
