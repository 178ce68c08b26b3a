#!/usr/bin/env python3
"""Benchmark of the rules engine: our actions/s against RLCard's, and memory over 100k games.

    python bench/bench_engine.py                     # everything (a few minutes)
    python bench/bench_engine.py --skip-memory       # speed only
    python bench/bench_engine.py --rlcard-venv DIR   # keep/reuse RLCard's virtualenv in DIR

Speed: RLCard (pip-installed here into a throwaway virtualenv, never a project dependency)
runs its raw ``UnoGame.step`` loop with uniformly random legal actions; we run
``unolaunch simulate --variant mario-kart --players 2 --bot random --workers 1 --json`` (the
real CLI on one core, as RLCard runs; bench_simulate.py measures what more workers add;
full rules: Item Box items, Wild Draw Four challenge, UNO calls and catches, scoring to
500). Both run alternately, several times, in the same run on the same machine, so a busy
machine slows both; the script prints every run, the best of each and the ratio.

Memory: one process plays 100,000 complete games through ``unolaunch.simulation``
(the CLI's code path) and prints the resident set size every 10,000 games, then measures
with tracemalloc the memory still held after 2,000 more games.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import subprocess
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
HOST = REPO / "host"
RLCARD_REQUIREMENT = "rlcard==1.2.0"

RLCARD_LOOP = r"""
import json, random, sys, time
import numpy as np
from rlcard.games.uno.game import UnoGame
seconds = float(sys.argv[1])
game = UnoGame(num_players=2)
game.np_random = np.random.RandomState(1)
rnd = random.Random(1).random
actions = games = 0
start = time.perf_counter()
cpu = time.process_time()
while time.perf_counter() - start < seconds:
    state, _ = game.init_game()
    while not game.is_over():
        legal = state["legal_actions"]
        state, _ = game.step(legal[int(rnd() * len(legal))])
        actions += 1
    games += 1
elapsed = time.perf_counter() - start
cpu = time.process_time() - cpu
print(json.dumps({"actions": actions, "games": games, "seconds": elapsed, "cpu_seconds": cpu}))
"""


def rlcard_python(venv: Path) -> Path:
    """Create ``venv`` with RLCard installed (once) and return its python."""
    python = venv / "bin" / "python"
    if not python.exists():
        print(f"installing {RLCARD_REQUIREMENT} into {venv} ...", flush=True)
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    probe = subprocess.run([str(python), "-c", "import rlcard"], capture_output=True)
    if probe.returncode != 0:
        subprocess.run(
            [str(python), "-m", "pip", "install", "--quiet", RLCARD_REQUIREMENT], check=True
        )
    return python


def run_rlcard(python: Path, seconds: float) -> dict[str, float]:
    """One timed RLCard run; returns actions, games, seconds."""
    out = subprocess.run(
        [str(python), "-c", RLCARD_LOOP, str(seconds)], capture_output=True, text=True, check=True
    )
    data: dict[str, float] = json.loads(out.stdout)
    return data


def run_ours(games: int, seed: int) -> dict[str, float]:
    """One run of the real CLI: ``unolaunch simulate ... --json``."""
    env = dict(os.environ, PYTHONPATH=str(HOST))
    cmd = [
        sys.executable, "-m", "unolaunch", "simulate", "--variant", "mario-kart",
        "--players", "2", "--bot", "random", "--games", str(games), "--seed", str(seed),
        "--json", "--no-progress", "--workers", "1",
    ]  # fmt: skip
    out = subprocess.run(cmd, capture_output=True, text=True, check=True, env=env)
    data: dict[str, float] = json.loads(out.stdout)
    return data


def speed(args: argparse.Namespace) -> None:
    """Alternate RLCard and our simulator; print each run, the best of each, the ratio."""
    if args.rlcard_venv:
        venv_dir = Path(args.rlcard_venv)
        python = rlcard_python(venv_dir)
        tmp = None
    else:
        tmp = tempfile.TemporaryDirectory(prefix="rlcard-venv-")
        python = rlcard_python(Path(tmp.name) / "venv")
    try:
        version = subprocess.run(
            [str(python), "-c", "import rlcard; print(rlcard.__version__)"],
            capture_output=True, text=True, check=True,
        ).stdout.strip()  # fmt: skip
        print(f"RLCard {version}: UnoGame.step, 2 players, uniformly random legal actions")
        print("unolaunch: simulate --variant mario-kart --players 2 --bot random (full rules)")
        print("  (wall: actions per elapsed second; cpu: per second of the process's CPU time,")
        print("   steadier when other programs share the CPUs)")
        best = {"rl": 0.0, "us": 0.0, "rl_cpu": 0.0, "us_cpu": 0.0}
        ratios, cpu_ratios = [], []
        for i in range(args.rounds):
            rl = run_rlcard(python, args.seconds)
            us = run_ours(args.games, seed=i + 1)
            rl_aps = rl["actions"] / rl["seconds"]
            rl_cpu = rl["actions"] / rl["cpu_seconds"]
            us_aps, us_cpu = us["actions_per_second"], us["actions_per_cpu_second"]
            for key, value in (
                ("rl", rl_aps),
                ("us", us_aps),
                ("rl_cpu", rl_cpu),
                ("us_cpu", us_cpu),
            ):
                best[key] = max(best[key], value)
            ratios.append(us_aps / rl_aps)
            cpu_ratios.append(us_cpu / rl_cpu)
            print(
                f"  run {i + 1}: RLCard {rl_aps:>9,.0f} wall {rl_cpu:>9,.0f} cpu actions/s "
                f"({rl['games'] / rl['seconds']:,.0f} games/s) | unolaunch {us_aps:>9,.0f} wall "
                f"{us_cpu:>9,.0f} cpu actions/s ({us['games_per_second']:,.1f} games/s, "
                f"{us['avg_actions_per_game']:,.0f} actions/game) | ratio {ratios[-1]:.2f}x wall,"
                f" {cpu_ratios[-1]:.2f}x cpu"
            )
        ratios.sort()
        cpu_ratios.sort()
        mid = len(ratios) // 2
        print(f"best RLCard:    {best['rl']:>10,.0f} actions/s wall, {best['rl_cpu']:>10,.0f} cpu")
        print(f"best unolaunch: {best['us']:>10,.0f} actions/s wall, {best['us_cpu']:>10,.0f} cpu")
        print(
            f"ratio unolaunch/RLCard: {best['us'] / best['rl']:.2f}x wall (best vs best), "
            f"{best['us_cpu'] / best['rl_cpu']:.2f}x cpu (best vs best); median of runs "
            f"{ratios[mid]:.2f}x wall, {cpu_ratios[mid]:.2f}x cpu  (target: 4x)"
        )
    finally:
        if tmp is not None:
            tmp.cleanup()


def rss_mib() -> float:
    """Resident set size of this process in MiB (Linux /proc; else the peak from getrusage)."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def memory(args: argparse.Namespace) -> None:
    """Play many complete games in this process; RSS every tenth, tracemalloc at the end."""
    sys.path.insert(0, str(HOST))
    from unolaunch.simulation import simulate

    games, step = args.memory_games, max(args.memory_games // 10, 1)
    variant, options = args.memory_variant, {"target": args.memory_target}
    print(
        f"memory: {games:,} complete games of {variant} (2 heuristic bots, target "
        f"{args.memory_target}) in one process"
    )
    samples: list[tuple[int, float]] = [(0, rss_mib())]
    start = time.perf_counter()
    done = 0
    while done < games:
        n = min(step, games - done)
        stats = simulate(variant, 2, n, seed=done + 1, bot_names=["heuristic"], options=options)
        done += n
        samples.append((done, rss_mib()))
        print(
            f"  {done:>7,} games  RSS {samples[-1][1]:7.1f} MiB  "
            f"({stats.actions / stats.seconds:,.0f} actions/s)",
            flush=True,
        )
    elapsed = time.perf_counter() - start
    first, last = samples[1][1], samples[-1][1]
    print(
        f"RSS after {samples[1][0]:,} games {first:.1f} MiB, after {games:,} games {last:.1f} "
        f"MiB: growth {last - first:+.1f} MiB over {games - samples[1][0]:,} games "
        f"({elapsed:.0f} s)"
    )
    tracemalloc.start()
    simulate(variant, 2, 200, seed=7, bot_names=["heuristic"], options=options)  # warm up
    gc.collect()  # a Game refers to itself (its effect table): freed by the cycle collector
    before = tracemalloc.take_snapshot()
    simulate(variant, 2, 2000, seed=8, bot_names=["heuristic"], options=options)
    gc.collect()
    after = tracemalloc.take_snapshot()
    growth = sum(s.size_diff for s in after.compare_to(before, "filename"))
    tracemalloc.stop()
    print(f"tracemalloc: {growth:+,} bytes still held after 2,000 more games")


def main() -> int:
    """Parse the options and run the benchmarks."""
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--rounds", type=int, default=3, help="alternating runs of each (default 3)")
    p.add_argument("--seconds", type=float, default=5.0, help="seconds per RLCard run")
    p.add_argument("--games", type=int, default=120, help="games per unolaunch run")
    p.add_argument("--rlcard-venv", help="virtualenv folder for RLCard (kept; reused)")
    p.add_argument("--skip-speed", action="store_true")
    p.add_argument("--skip-memory", action="store_true")
    p.add_argument("--memory-games", type=int, default=100_000)
    p.add_argument("--memory-variant", default="mario-kart")
    p.add_argument("--memory-target", type=int, default=50, help="points that end a game")
    args = p.parse_args()
    load = os.getloadavg()[0]
    print(f"python {sys.version.split()[0]} on {os.cpu_count()} CPUs, load average {load:.1f}")
    if not args.skip_speed:
        speed(args)
    if not args.skip_memory:
        memory(args)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
