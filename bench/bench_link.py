"""Benchmark the host <-> launcher link against the simulator running the real firmware.

Prints:
  * the round trip of a ``status`` request (host client -> pty -> relay -> MicroPython
    firmware -> back): median, p99 and max over N requests (default 10 000), with the
    simulator in its own process (``unolaunch sim``, as in two terminals) and, for
    comparison, in the client's process (``SimulatedLauncher``, as the tests use it);
  * CPU per request: the client's process, and the simulator's (relay + MicroPython);
  * simulator start -> first ``hello`` reply: in-process (``SimulatedLauncher``) and from
    ``unolaunch sim`` being launched (includes starting Python).

Targets (issue 4): median <= 1 ms, p99 <= 5 ms; start to hello <= 1 s.

    python bench/bench_link.py [--requests 10000] [--starts 10]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

HOST = Path(__file__).resolve().parents[1] / "host"
sys.path.insert(0, str(HOST))

from unolaunch.link import open_launcher  # noqa: E402
from unolaunch.sim import SimulatedLauncher  # noqa: E402

TICK = os.sysconf("SC_CLK_TCK")


def proc_cpu(pid: int) -> float:
    """CPU seconds (user + system) used so far by process ``pid`` and its live children."""
    total = 0.0
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        total += (int(fields[11]) + int(fields[12])) / TICK
        for task in Path(f"/proc/{pid}/task").iterdir():
            for child in (task / "children").read_text().split():
                total += proc_cpu(int(child))
    except (OSError, IndexError, ValueError):
        pass
    return total


def pct(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * p))]


def round_trips(port: str, n: int, sim_pid: int | None) -> dict[str, float]:
    with open_launcher(port, timeout=2.0) as client:
        for _ in range(200):  # warm up
            client.status()
        times = []
        cpu0 = time.process_time()
        sim0 = proc_cpu(sim_pid) if sim_pid else 0.0
        wall0 = time.perf_counter()
        for _ in range(n):
            t = time.perf_counter()
            client.status()
            times.append(time.perf_counter() - t)
        wall = time.perf_counter() - wall0
        cpu = time.process_time() - cpu0
        sim_cpu = (proc_cpu(sim_pid) - sim0) if sim_pid else float("nan")
    return {
        "median_ms": statistics.median(times) * 1e3,
        "p99_ms": pct(times, 0.99) * 1e3,
        "max_ms": max(times) * 1e3,
        "per_s": n / wall,
        "client_cpu_us": cpu / n * 1e6,
        "sim_cpu_us": sim_cpu / n * 1e6,
    }


def start_sim_process() -> tuple[subprocess.Popen[str], str, float]:
    env = dict(os.environ, PYTHONPATH=str(HOST) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    t0 = time.perf_counter()
    proc = subprocess.Popen(
        [sys.executable, "-m", "unolaunch", "sim"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        env=env,
    )
    assert proc.stdout is not None
    port = proc.stdout.readline().strip()
    return proc, port, t0


def stop_sim_process(proc: subprocess.Popen[str]) -> None:
    assert proc.stdin is not None
    proc.stdin.write("quit\n")
    proc.stdin.flush()
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=10000)
    parser.add_argument("--starts", type=int, default=10)
    args = parser.parse_args()
    n = args.requests
    load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    print(f"machine: {os.cpu_count()} CPUs, load average {load} (other work skews the tails)")
    print(f"status round trip over {n} requests (target: median <= 1 ms, p99 <= 5 ms)")

    proc, port, _ = start_sim_process()
    try:
        r = round_trips(port, n, proc.pid)
    finally:
        stop_sim_process(proc)
    print(
        f"  sim in its own process: median {r['median_ms']:.3f} ms, p99 {r['p99_ms']:.3f} ms, "
        f"max {r['max_ms']:.2f} ms, {r['per_s']:.0f} requests/s; CPU per request: client "
        f"{r['client_cpu_us']:.0f} us, simulator (relay + MicroPython) {r['sim_cpu_us']:.0f} us"
    )
    with SimulatedLauncher() as sim:
        r = round_trips(sim.port, n, None)
    print(
        f"  sim in the client's process: median {r['median_ms']:.3f} ms, p99 "
        f"{r['p99_ms']:.3f} ms, max {r['max_ms']:.2f} ms, {r['per_s']:.0f} requests/s; "
        f"CPU per request (client + relay threads, MicroPython excluded) "
        f"{r['client_cpu_us']:.0f} us"
    )

    print(f"simulator start -> first hello reply, {args.starts} starts (target <= 1 s)")
    inproc = []
    for _ in range(args.starts):
        t0 = time.perf_counter()
        with SimulatedLauncher() as sim, open_launcher(sim.port, timeout=5.0):
            inproc.append(time.perf_counter() - t0)
    cli = []
    for _ in range(args.starts):
        proc, port, t0 = start_sim_process()
        try:
            with open_launcher(port, timeout=5.0):
                cli.append(time.perf_counter() - t0)
        finally:
            stop_sim_process(proc)
    for name, values in (("SimulatedLauncher", inproc), ("'unolaunch sim' process", cli)):
        print(
            f"  {name}: median {statistics.median(values) * 1e3:.0f} ms, "
            f"max {max(values) * 1e3:.0f} ms"
        )


if __name__ == "__main__":
    main()
