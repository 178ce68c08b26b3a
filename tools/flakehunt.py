"""Hunt flaky tests: run the suite (or part of it) N times, optionally with a CPU hog per
core, and print every test that failed at least once with how many runs it failed in.

    python tools/flakehunt.py --runs 5 --hog                 # the whole suite, 5 loaded runs
    python tools/flakehunt.py --runs 20 --hog -- -k mpremote tests/test_sim.py
    CI=true python tools/flakehunt.py --runs 5 --hog --ci    # CI's own runs, loaded

``--ci``: each run is what CI runs - a fresh clone of this checkout's HEAD and ``bash
.ci/run`` in it (its set-up included), with the environment as it is (``CI=true`` makes a
missing piece fail; ``UNOLAUNCH_RP2_DIR`` names the rp2 files, as .ci/run needs them beside
the clone otherwise); the clone is removed after the run, its report kept.

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
import shutil
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


def _ci_run(folder: Path, report: Path) -> subprocess.CompletedProcess[bytes]:
    """CI's run: HEAD cloned into ``folder``, ``bash .ci/run`` there (its output kept
    beside the report), the clone removed afterwards."""
    shutil.rmtree(folder, ignore_errors=True)
    clone = folder / "main"
    subprocess.run(["git", "clone", "-q", str(ROOT), str(clone)], check=True)
    env = dict(os.environ, PYTEST_ADDOPTS=f"--junitxml={report}")
    try:
        proc = subprocess.run(
            ["bash", ".ci/run"], cwd=clone, env=env, stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
        )  # fmt: skip
        report.with_suffix(".log").write_bytes(proc.stdout)
        return proc
    finally:
        shutil.rmtree(folder, ignore_errors=True)


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
    parser.add_argument(
        "--ci",
        action="store_true",
        help="each run: a fresh clone of HEAD and `bash .ci/run` in it (CI's command)",
    )
    parser.add_argument("pytest_args", nargs="*", help="arguments for pytest (after --)")
    args = parser.parse_args(argv)
    if args.ci and args.pytest_args:
        parser.error("--ci runs .ci/run as it is: give no pytest arguments with it")
    out = args.out or Path(tempfile.mkdtemp(prefix="flakehunt-"))
    out.mkdir(parents=True, exist_ok=True)
    pytest_args = args.pytest_args or ["-n", "auto", "--dist", "worksteal"]
    counts: collections.Counter[str] = collections.Counter()
    first: dict[str, str] = {}
    durations = []
    with hogs(args.hog):
        for run in range(1, args.runs + 1):
            report = out / f"run{run}.xml"
            started = time.monotonic()
            if args.ci:
                proc = _ci_run(out / f"run{run}", report)
            else:
                cmd = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                       f"--junitxml={report}", *pytest_args]  # fmt: skip
                proc = subprocess.run(
                    cmd, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT
                )
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
