"""Benchmark ``unolaunch flash`` against the simulator (the real mpremote, the real firmware).

Prints, for a board that has MicroPython only (a fresh flash):
  * first flash, compiled to .mpy: files and bytes copied, seconds (library call, so no
    Python start-up), and the split: taking the REPL + survey, copy, soft reset + hello;
  * re-flash of the unchanged tree: files copied (must be 0) and seconds;
  * the same two for --no-compile (sources), and the firmware's size as .py vs .mpy;
  * ``unolaunch flash`` as a command (a new Python process), re-flash, wall time.

The simulator adds its own latency to every raw-REPL exchange (it relays a pty to the
MicroPython unix port), so a real Pico over USB is usually faster; the *number of files
copied* is the same.

    python bench/bench_flash.py [--runs 3]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

HOST = Path(__file__).resolve().parents[1] / "host"
sys.path.insert(0, str(HOST))

from unolaunch.flash import flash  # noqa: E402
from unolaunch.sim import SimulatedLauncher  # noqa: E402


class Quiet:
    """A FlashUI that prints nothing and notes when the copy starts and ends."""

    def __init__(self) -> None:
        self.copy_start = 0.0
        self.copy_end = 0.0

    def info(self, message: str) -> None:
        pass

    def file(self, action: str, path: str, size: int | None = None, note: str = "") -> None:
        pass

    def transfer(self, total_bytes: int) -> Callable[[int, str], None]:
        self.copy_start = time.perf_counter()
        return lambda done, path: None

    def done(self) -> None:
        self.copy_end = time.perf_counter()


def one(port: str, compile: bool) -> tuple[float, int, int, Quiet, float]:
    ui = Quiet()
    start = time.perf_counter()
    report = flash(port, ui, compile=compile)
    took = time.perf_counter() - start
    return took, len(report.plan.copy), report.plan.copy_bytes, ui, start


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--runs", type=int, default=3, help="re-flashes to time (median)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        for compile in (True, False):
            flash_dir = Path(tmp) / ("mpy" if compile else "py")
            flash_dir.mkdir()
            (flash_dir / "README.txt").write_text("a board with MicroPython only\n")
            label = "compiled (.mpy)" if compile else "sources (--no-compile)"
            with SimulatedLauncher(flash_dir=flash_dir) as sim:
                took, files, size, ui, start = one(sim.port, compile)
                print(f"first flash, {label}: {files} files, {size:,} bytes in {took:.2f} s")
                print(
                    f"  split: REPL + survey {ui.copy_start - start:.2f} s, "
                    f"copy {ui.copy_end - ui.copy_start:.2f} s "
                    f"({size / max(ui.copy_end - ui.copy_start, 1e-9) / 1000:.1f} kB/s), "
                    f"soft reset + hello {start + took - ui.copy_end:.2f} s"
                )
                again = [one(sim.port, compile) for _ in range(args.runs)]
                copied = {r[1] for r in again}
                print(
                    f"re-flash, unchanged tree: {sorted(copied)} files copied, median "
                    f"{statistics.median(r[0] for r in again):.2f} s over {args.runs} runs"
                )
                if compile:
                    env = dict(os.environ, PYTHONPATH=str(HOST))
                    start = time.perf_counter()
                    proc = subprocess.run(
                        [sys.executable, "-m", "unolaunch", "flash", "--port", sim.port],
                        capture_output=True,
                        text=True,
                        env=env,
                        timeout=300,
                    )
                    wall = time.perf_counter() - start
                    assert proc.returncode == 0, proc.stderr
                    print(f"'unolaunch flash' command, re-flash: {wall:.2f} s wall (new process)")
            total = sum(
                p.stat().st_size for p in flash_dir.rglob("*") if p.suffix in (".py", ".mpy")
            )
            print(f"firmware on the board as {label}: {total:,} bytes")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
