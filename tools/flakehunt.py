"""Hunt flaky tests: run the suite (or part of it) N times, optionally with a CPU hog per
core, and print every test that failed at least once with how many runs it failed in.

    python tools/flakehunt.py --runs 5 --hog                 # the whole suite, 5 loaded runs
    python tools/flakehunt.py --runs 20 --hog -- -k mpremote tests/test_sim.py

Everything after ``--`` goes to pytest (default: the suite as README runs it,
``-n auto --dist worksteal``).
Each run writes a JUnit XML report into ``--out`` (a temporary folder unless given), so a
failure's message and output can be read afterwards. A hog is a process per core that
spins (``--hog``), as a shared CI machine running other work is; ``UNOLAUNCH_TEST_DESCHEDULE``
is the harness's own way to deschedule the simulated board (see tests/conftest.py) and is
passed through if set. The exit status is 0 when every run passed, 1 otherwise.
"""

from __future__ import annotations

import argparse
import collections
import contextlib
import multiprocessing
import os
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _spin() -> None:  # pragma: no cover - runs in a hog process
    os.nice(0)
    while True:
        pass


@contextlib.contextmanager
def hogs(count: int) -> Iterator[None]:
    """``count`` processes that each keep a core busy until the block ends."""
    procs = [multiprocessing.Process(target=_spin, daemon=True) for _ in range(count)]
    for p in procs:
        p.start()
    try:
        yield
    finally:
        for p in procs:
            p.terminate()
        for p in procs:
            p.join(5)


def failures(report: Path) -> list[tuple[str, str]]:
    """(test id, first line of the failure) for every failed or erroring test in a JUnit
    XML report; a report pytest could not write counts as one failure of the whole run."""
    try:
        tree = ET.parse(report)
    except (OSError, ET.ParseError) as exc:
        return [("<the run itself>", f"no report: {exc}")]
    found = []
    for case in tree.iter("testcase"):
        for kind in ("failure", "error"):
            bad = case.find(kind)
            if bad is not None:
                name = f"{case.get('classname', '')}::{case.get('name', '')}"
                message = (bad.get("message") or "").strip().splitlines()
                found.append((name, message[0][:160] if message else kind))
    return found


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description="Run the tests N times (optionally under CPU load) and list the flaky ones."
    )
    parser.add_argument("--runs", type=int, default=5, help="how many runs (default 5)")
    parser.add_argument(
        "--hog",
        nargs="?",
        const=os.cpu_count() or 1,
        type=int,
        default=0,
        metavar="N",
        help="N processes spinning during the runs (default with no N: one per core)",
    )
    parser.add_argument("--out", type=Path, help="folder for the runs' JUnit XML reports")
    parser.add_argument("pytest_args", nargs="*", help="arguments for pytest (after --)")
    args = parser.parse_args(argv)
    out = args.out or Path(tempfile.mkdtemp(prefix="flakehunt-"))
    out.mkdir(parents=True, exist_ok=True)
    pytest_args = args.pytest_args or ["-n", "auto", "--dist", "worksteal"]
    counts: collections.Counter[str] = collections.Counter()
    first: dict[str, str] = {}
    durations = []
    with hogs(args.hog):
        for run in range(1, args.runs + 1):
            report = out / f"run{run}.xml"
            cmd = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                   f"--junitxml={report}", *pytest_args]  # fmt: skip
            started = time.monotonic()
            proc = subprocess.run(cmd, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
            took = time.monotonic() - started
            durations.append(took)
            tail = proc.stdout.decode(errors="replace").strip().splitlines()[-1:]
            bad = failures(report) if proc.returncode else []
            if proc.returncode and not bad:
                bad = [("<the run itself>", f"pytest exited {proc.returncode}")]
            for name, why in bad:
                counts[name] += 1
                first.setdefault(name, why)
            print(
                f"run {run}/{args.runs}: {took:.0f} s, {len(bad)} failed"
                f" — {tail[0] if tail else ''}",
                flush=True,
            )
    hog = f", a CPU hog on each of {args.hog} cores" if args.hog else ""
    print(f"\n{args.runs} runs{hog}: {min(durations):.0f}-{max(durations):.0f} s each")
    if not counts:
        print("no test failed")
        return 0
    print(f"{len(counts)} tests failed at least once (reports in {out}):")
    for name, n in counts.most_common():
        print(f"  {n}/{args.runs}  {name}\n         {first[name]}")
    return 1


if __name__ == "__main__":
    sys.exit(main())
