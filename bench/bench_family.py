#!/usr/bin/env python3
"""A family that types, at length: thousands of seeded games at a simulated physical
table typed into the real table (tests/table_family.py), each checked by the oracle after
every action. Prints games, rounds, lines typed and time per line for each variant, and
every divergence with its seed and the lines typed (exit 1 if there is one).

    python bench/bench_family.py [GAMES_PER_VARIANT] [FIRST_SEED] [--screen]

UNO Attack is played twice: presses typed with their cards, and presses coming from a
launcher's events (jams, fouls). Default: 1000 games per variant to 60 points, seeds from
100000, without rich's layout
of the screen (``--screen`` lays it out too, as ``play`` does, about five times slower).
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(REPO / "host"), str(REPO / "tests")]

from table_family import Divergence, play_family_game  # noqa: E402


def main(argv: list[str]) -> int:
    screen = "--screen" in argv
    args = [a for a in argv if a != "--screen"]
    games = int(args[0]) if args else 1000
    first = int(args[1]) if len(args) > 1 else 100_000
    failed = 0
    for variant in ("attack", "attack+launcher", "mario-kart", "pocket-pizza"):
        launcher = variant.endswith("+launcher")
        lines = rounds = 0
        t = time.perf_counter()
        with tempfile.TemporaryDirectory() as d:
            for seed in range(first, first + games):
                try:
                    record = play_family_game(
                        Path(d) / str(seed),
                        variant.removesuffix("+launcher"),
                        seed,
                        target=60,
                        screen=screen,
                        launcher=launcher,
                    )
                except Divergence as exc:
                    failed += 1
                    print(f"DIVERGENCE {exc}", flush=True)
                    continue
                lines += len(record.lines)
                rounds += record.rounds
        spent = time.perf_counter() - t
        print(
            f"{variant:<16} {games} games, {rounds} rounds, {lines} lines typed, "
            f"{spent:7.1f} s, {1000 * spent / max(lines, 1):.3f} ms a line",
            flush=True,
        )
    print(f"divergences: {failed}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
