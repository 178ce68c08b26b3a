#!/usr/bin/env python3
"""``unolaunch simulate`` on a Dask cluster: when one machine is not enough.

    pip install 'dask[distributed]'            # on every machine, next to unolaunch
    dask scheduler                              # on one machine: prints tcp://HOST:8786
    dask worker tcp://HOST:8786                 # on every machine with cores to give
    python bench/simulate_dask.py --scheduler tcp://HOST:8786 --games 1000000 \\
        --variant attack --players 4 --bot heuristic --option strict_press=true

Without --scheduler it starts a local cluster (one worker process per core), which shows
the path on one machine and checks it against ``simulate --workers 1``: the jobs are the
ones ``unolaunch.commands.simulate.plan`` makes (picklable, ``play_games`` plays one
anywhere), and their results merge exactly in any order, so the figures are the same as
on one core for the same --seed. Prints the JSON ``simulate --json`` prints.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "host"))

from unolaunch.commands.simulate import (
    _parse_option,
    plan,
    play_games,
    simulate,
)

TIMING = {
    "seconds", "cpu_seconds", "games_per_second", "actions_per_second", "actions_per_cpu_second",
    "workers",
}  # fmt: skip


def main() -> int:
    """Plan the run, map the jobs over the cluster, merge, print the JSON."""
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--scheduler", help="tcp://HOST:8786 (default: a local cluster)")
    p.add_argument("--variant", default="attack")
    p.add_argument("--players", type=int, default=4)
    p.add_argument("--bot", default="heuristic")
    p.add_argument("--games", type=int, default=2000)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--option", action="append", default=[])
    p.add_argument("--chunk", type=int, default=100, help="games per job (default 100)")
    p.add_argument("--check", action="store_true", help="compare with simulate --workers 1")
    args = p.parse_args()
    try:
        from dask.distributed import Client, LocalCluster, as_completed
    except ImportError:
        print("needs Dask: pip install 'dask[distributed]'", file=sys.stderr)
        return 1
    bots = [b.strip() for b in args.bot.split(",")]
    options = dict(_parse_option(o) for o in args.option)
    stats, jobs = plan(
        args.variant, args.players, args.games, args.seed, bots, options, chunk=args.chunk
    )
    cluster = None if args.scheduler else LocalCluster(processes=True, threads_per_worker=1)
    with Client(args.scheduler or cluster) as client:
        workers = len(client.scheduler_info()["workers"])
        start = time.perf_counter()
        for future in as_completed(client.map(play_games, jobs, pure=False)):
            stats.merge(future.result())
        stats.seconds = time.perf_counter() - start
    if cluster is not None:
        cluster.close()
    stats.workers = workers
    out = stats.to_json()
    print(json.dumps(out))
    print(
        f"{len(jobs)} jobs on {workers} Dask workers: {out['games']} games in "
        f"{out['seconds']:.2f} s ({out['actions_per_second']:,.0f} actions/s)",
        file=sys.stderr,
    )
    if args.check:
        one = simulate(args.variant, args.players, args.games, args.seed, bots, options)
        same = {k: v for k, v in out.items() if k not in TIMING} == {
            k: v for k, v in one.to_json().items() if k not in TIMING
        }
        print(f"simulate --workers 1: {one.seconds:.2f} s; same figures: {same}", file=sys.stderr)
        return 0 if same else 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
