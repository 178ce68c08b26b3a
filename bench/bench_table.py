#!/usr/bin/env python3
"""Benchmark of the table: what a stored action costs, how fast a long game resumes, and
how fast the input parser reads.

    python bench/bench_table.py

Journal: each action is written in its own SQLite transaction with ``synchronous=FULL``
(WAL), so that nothing acknowledged is lost in a crash or a power cut; this prints what
that costs per action on this machine (median and 95th percentile), beside the same
appends with ``synchronous=OFF`` for comparison (which would lose acknowledged actions).
Resume: ``--resume`` replays a game's whole journal on a fresh engine; this times it for a
long scripted game. Parser: lines per second over a mix of inputs.
"""

from __future__ import annotations

import contextlib
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(REPO / "host"), str(REPO / "tests")]

from table_typist import script_game  # noqa: E402
from unolaunch.table.journal import Journal  # noqa: E402
from unolaunch.table.parse import Context, ParseError, parse  # noqa: E402
from unolaunch.table.session import Session  # noqa: E402


def bench_appends(n: int = 300) -> None:
    for mode in ("FULL", "OFF"):
        with tempfile.TemporaryDirectory() as d:
            j = Journal.open(d)
            j._db.execute(f"PRAGMA synchronous={mode}")
            gid = j.new_game("attack", ["Ann", "Bob", "Cy"], {}, seed=1)
            times = []
            for i in range(n):
                t = time.perf_counter()
                j.append(gid, "action", {"by": "Ann", "press": True, "cards": i % 5})
                times.append((time.perf_counter() - t) * 1000)
            j.close()
        times.sort()
        label = "synchronous=FULL (used)" if mode == "FULL" else "synchronous=OFF (unsafe)"
        print(
            f"journal append, {label:<26} median {statistics.median(times):6.3f} ms, "
            f"p95 {times[int(n * 0.95)]:6.3f} ms  ({n} appends)"
        )


def bench_resume() -> None:
    with tempfile.TemporaryDirectory() as d:
        script = script_game(Path(d), "attack", ["Ann", "Bob", "Cy"], seed=5, target=400)
        entries = max(script.keys)
        with Journal.open(d) as j:
            t = time.perf_counter()
            reps = 5
            for _ in range(reps):
                Session.resume(j, script.game_id)
            took = (time.perf_counter() - t) / reps
    print(
        f"resume: replaying a {entries}-entry game ({len(script.lines)} lines typed) "
        f"takes {took * 1000:.1f} ms ({entries / took:,.0f} entries/s)"
    )


def bench_parse(n: int = 20000) -> None:
    ctx = Context("attack", ("Ann", "Bob", "Cy"), "Ann", ("play", "press"), "green", "g3")
    lines = [
        "r5",
        "red 5",
        "skip",
        "wild blue",
        "attack blue Bob",
        "press 3",
        "catch Bob",
        "undo",
        "blah",
        "hit 4 red",
        "discard all g3 7",
    ]
    rng = random.Random(1)
    sample = [rng.choice(lines) for _ in range(n)]
    t = time.perf_counter()
    for line in sample:
        with contextlib.suppress(ParseError):
            parse(line, ctx)
    took = time.perf_counter() - t
    print(f"parser: {n / took:,.0f} lines/s ({took / n * 1e6:.1f} µs per line)")


if __name__ == "__main__":
    bench_appends()
    bench_resume()
    bench_parse()
