#!/usr/bin/env python3
"""Benchmark of ``unolaunch simulate --workers N``: the speed-up of N worker processes over
one, on the real CLI, with a check that both give the same figures.

    python bench/bench_simulate.py                 # 1 vs 2 workers, two workloads
    python bench/bench_simulate.py --workers 4     # 1 vs 4
    python bench/bench_simulate.py --rounds 5      # more alternating runs
    python bench/bench_simulate.py --rlcard-venv /tmp/rlcard-venv   # + the RLCard ratio
    python bench/bench_simulate.py --scheduler local             # 1 worker vs a LocalCluster
    python bench/bench_simulate.py --scheduler tcp://HOST:8786 --attack-games 100000
                                   # 1 worker vs a Dask cluster (the 'dask' extra)

Workloads: UNO Attack, 4 heuristic bots (what ``tune`` plays; the launcher is the firmware's
pattern) and UNO Mario Kart, 2 random bots (the workload bench_engine.py compares with
RLCard; its single-core ratio is measured there with --workers 1, and printed here too
with --rlcard-venv). The one-worker and the
N-worker runs alternate, so a busy machine slows both; the script prints every run, the best
of each and the ratio (best vs best), and the CPU count and load average it ran with. On a
machine shared with other work, the speed-up is bounded by the cores actually free.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
HOST = REPO / "host"
TIMING = {
    "seconds", "cpu_seconds", "games_per_second", "actions_per_second", "actions_per_cpu_second",
    "workers",
}  # fmt: skip

WORKLOADS = {
    "attack": ["--variant", "attack", "--players", "4", "--bot", "heuristic"],
    "mario-kart": ["--variant", "mario-kart", "--players", "2", "--bot", "random"],
}


def run(
    workload: str, games: int, seed: int, workers: int, scheduler: str | None = None
) -> dict[str, Any]:
    """One run of the real CLI (on a Dask cluster with ``scheduler``); returns its JSON."""
    env = dict(os.environ, PYTHONPATH=str(HOST))
    where = ["--workers", str(workers)]
    if scheduler is not None:
        where = ["--scheduler", scheduler] + (where if scheduler == "local" else [])
    cmd = [
        sys.executable, "-m", "unolaunch", "simulate", *WORKLOADS[workload],
        "--games", str(games), "--seed", str(seed), *where, "--json", "--no-progress",
    ]  # fmt: skip
    out = subprocess.run(cmd, capture_output=True, text=True, check=True, env=env)
    data: dict[str, Any] = json.loads(out.stdout)
    return data


def figures(d: dict[str, Any]) -> dict[str, Any]:
    """The JSON without its timings (what must not depend on the number of workers)."""
    return {k: v for k, v in d.items() if k not in TIMING}


def main() -> int:
    """Alternate one-worker and N-worker runs of each workload; print the speed-up."""
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--workers", type=int, default=2, help="workers to compare with 1 (default 2)")
    p.add_argument("--rounds", type=int, default=3, help="alternating runs of each (default 3)")
    p.add_argument("--attack-games", type=int, default=600)
    p.add_argument("--mario-kart-games", type=int, default=120)
    p.add_argument(
        "--scheduler",
        help="the N-worker runs on a Dask cluster: tcp://HOST:8786, or 'local' (a LocalCluster "
        "of --workers processes)",
    )
    p.add_argument(
        "--rlcard-venv",
        help="also run bench_engine.py's single-core comparison with RLCard (its virtualenv)",
    )
    args = p.parse_args()
    load = os.getloadavg()[0]
    print(f"python {sys.version.split()[0]} on {os.cpu_count()} CPUs, load average {load:.1f}")
    for workload in WORKLOADS:
        games = args.attack_games if workload == "attack" else args.mario_kart_games
        print(f"{workload}: simulate {' '.join(WORKLOADS[workload])} --games {games}")
        best1 = bestn = 0.0
        ratios: list[float] = []
        cpu1: list[float] = []
        cpun: list[float] = []
        for i in range(args.rounds):
            one = run(workload, games, i + 1, 1)
            many = run(workload, games, i + 1, args.workers, args.scheduler)
            same = figures(one) == figures(many)
            best1 = max(best1, one["actions_per_second"])
            bestn = max(bestn, many["actions_per_second"])
            ratios.append(one["seconds"] / many["seconds"])
            cpu1.append(one["actions_per_cpu_second"])
            cpun.append(many["actions_per_cpu_second"])
            print(
                f"  run {i + 1}: 1 worker {one['seconds']:6.2f} s "
                f"({one['actions_per_second']:>9,.0f} actions/s) | "
                f"{many['workers']} {'Dask ' if args.scheduler else ''}workers "
                f"{many['seconds']:6.2f} s "
                f"({many['actions_per_second']:>9,.0f} actions/s) | speed-up "
                f"{one['seconds'] / many['seconds']:.2f}x | same figures: {same}"
            )
            if not same:
                print("  FIGURES DIFFER between 1 and N workers", file=sys.stderr)
                return 1
        ratios.sort()
        # Each worker's CPU time: N x (actions per CPU second with N / with 1) is the speed-up
        # N free cores would give (what the pool costs, without the other programs' share).
        free = args.workers * max(cpun) / max(cpu1)
        print(
            f"  best: 1 worker {best1:,.0f} actions/s, {args.workers} workers {bestn:,.0f} "
            f"actions/s: speed-up {bestn / best1:.2f}x best vs best, median of runs "
            f"{ratios[len(ratios) // 2]:.2f}x; on {args.workers} free cores (CPU time) "
            f"{free:.2f}x  (target on 2 cores: 1.6x)"
        )
    if args.rlcard_venv:
        sys.path.insert(0, str(Path(__file__).resolve().parent))
        import bench_engine  # the same comparison, not a copy of it

        bench_engine.speed(
            argparse.Namespace(
                rlcard_venv=args.rlcard_venv, rounds=args.rounds, seconds=5.0, games=120
            )
        )
    print(f"load average at the end {os.getloadavg()[0]:.1f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
