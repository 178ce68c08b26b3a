"""Firmware budgets, measured on the real firmware in the MicroPython unix port (issue 3).

Prints figures (never asserts timings):

* total compiled ``.mpy`` size (``mpy-cross -march=armv6m``, as flashed to a Pico);
* RAM after boot with ``-X heapsize=192K``, from .py and .mpy (budget: >= 103 KB free once
  the fake board's share is added back; issue 3 set 120 KB for a firmware a third of this
  size: tests/test_fw_board.py says what took the rest);
* main-loop work per iteration (idle and during a burst) and the idle loop period;
* press-to-motor-on latency in loop iterations;
* request -> reply round trip over a real pty with pyserial (target median <= 1 ms,
  p99 <= 5 ms under the unix port).

Run: ``python bench/bench_firmware.py [--requests N]`` from the repository root.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "host"))

import serial  # noqa: E402
from unolaunch.sim import SimulatedLauncher  # noqa: E402
from unolaunch.sim.runner import fake_board_heap_bytes  # noqa: E402

FIRMWARE = REPO / "firmware"


def mpy_cross() -> str:
    exe = Path(sys.executable).parent / "mpy-cross"
    return str(exe) if exe.exists() else "mpy-cross"


class Host:
    """JSON lines over pyserial, just enough for measuring.

    Lines are read in chunks (``read(in_waiting)``): pyserial's own ``readline()`` makes
    two system calls per byte, which alone adds about a millisecond to a 250-byte reply.
    """

    def __init__(self, port: str) -> None:
        self.ser = serial.serial_for_url(port, timeout=2.0)
        self.n = 0
        self._buf = b""

    def readline(self) -> bytes:
        while b"\n" not in self._buf:
            chunk = self.ser.read(self.ser.in_waiting or 1)
            if not chunk:
                line, self._buf = self._buf, b""
                return line
            self._buf += chunk
        line, self._buf = self._buf.split(b"\n", 1)
        return line + b"\n"

    def request(self, cmd: str, **args: Any) -> dict[str, Any]:
        self.n += 1
        self.ser.write((json.dumps({"id": self.n, "cmd": cmd, **args}) + "\n").encode())
        return self.reply(self.n)

    def reply(self, req_id: int) -> dict[str, Any]:
        while True:
            raw = self.readline()
            if not raw:
                raise RuntimeError(f"no reply to request {req_id}")
            if raw.strip():
                msg: dict[str, Any] = json.loads(raw)
                if msg.get("id") == req_id and "event" not in msg:
                    return msg

    def wait_event(self, name: str, timeout: float = 15.0) -> dict[str, Any]:
        end = time.monotonic() + timeout
        while True:
            raw = self.readline()
            if not raw and time.monotonic() > end:
                raise RuntimeError(f"no {name} event")
            if raw.strip():
                msg: dict[str, Any] = json.loads(raw)
                if msg.get("event") == name:
                    return msg


def compiled_size(dest: Path) -> tuple[int, int, dict[str, int]]:
    sources = sorted([FIRMWARE / "main.py", *FIRMWARE.glob("launcher/*.py")])
    per_file = {}
    for src in sources:
        out = dest / (src.stem + ".mpy")
        subprocess.run([mpy_cross(), "-march=armv6m", "-o", str(out), str(src)], check=True)
        per_file[src.relative_to(FIRMWARE).as_posix()] = out.stat().st_size
    return sum(per_file.values()), sum(s.stat().st_size for s in sources), per_file


def mpy_flash(dest: Path) -> Path:
    """A flash folder with launcher/*.mpy only (main.py stays source, as on a Pico)."""
    dest.mkdir(parents=True)
    shutil.copy2(FIRMWARE / "main.py", dest / "main.py")
    (dest / "launcher").mkdir()
    for src in FIRMWARE.glob("launcher/*.py"):
        out = dest / "launcher" / (src.stem + ".mpy")
        subprocess.run([mpy_cross(), "-o", str(out), str(src)], check=True)
    return dest


def ram_after_boot(firmware_dir: Path) -> dict[str, Any]:
    with SimulatedLauncher(firmware_dir=firmware_dir, heap="192K") as sim:
        host = Host(sim.port)
        perf: dict[str, Any] = host.request("status", perf=True)["perf"]
        host.ser.close()
        return perf


def pipe_round_trips(n: int) -> list[float]:
    """Round trips with the firmware on plain pipes (no pty, no relay): the firmware's own
    share of the pty figure."""
    board = REPO / "host" / "unolaunch" / "sim" / "board"
    with tempfile.TemporaryDirectory() as tmp:
        flash = Path(tmp)
        shutil.copy2(FIRMWARE / "main.py", flash / "main.py")
        shutil.copytree(FIRMWARE / "launcher", flash / "launcher")
        env = {"MICROPYPATH": str(board), "PATH": "/usr/bin:/bin"}
        exe = Path(sys.executable).parent / "micropython"
        proc = subprocess.Popen(
            [str(exe if exe.exists() else "micropython"), "-X", "heapsize=192K", "main.py"],
            cwd=flash,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            env=env,
        )
        assert proc.stdin is not None and proc.stdout is not None
        times = []
        for i in range(n):
            t0 = time.perf_counter()
            proc.stdin.write(b'{"id": %d, "cmd": "hello"}\n' % i)
            proc.stdin.flush()
            while b'"id": %d,' % i not in proc.stdout.readline():
                pass
            times.append((time.perf_counter() - t0) * 1000)
        proc.stdin.close()
        proc.wait(timeout=10)
    return times


def percentile(values: list[float], pct: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(pct / 100 * (len(ordered) - 1)))]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=2000, help="round trips to time")
    parser.add_argument("--presses", type=int, default=10, help="presses for the latency")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory() as tmp:
        total, source, per_file = compiled_size(Path(tmp))
        print("== code size (mpy-cross -march=armv6m)")
        for name, size in per_file.items():
            print(f"  {name:24s} {size:6d} B")
        print(f"  total .mpy {total} B ({total / 1024:.1f} KB); .py sources {source} B")

        print("== RAM after boot, -X heapsize=192K (budget: >= 103 KB free, fake board added back)")
        for label, fw_dir in (("from .py", FIRMWARE), ("from .mpy", mpy_flash(Path(tmp) / "f"))):
            perf = ram_after_boot(fw_dir)
            boot, free = perf["mem_free_boot"], perf["mem_free"]
            print(
                f"  {label:9s}: {boot} B free after boot ({boot / 1024:.1f} KB); "
                f"{free} B ({free / 1024:.1f} KB) while serving a status request"
            )
        fake = fake_board_heap_bytes()
        print(
            f"  the simulated board's fake machine module takes {fake} B of that heap; on a "
            f"Pico (native machine) about {(boot + fake) / 1024:.0f} KB would be free"
        )

    with SimulatedLauncher(firmware_dir=FIRMWARE, cards=10_000) as sim:
        host = Host(sim.port)
        time.sleep(1.0)
        idle = host.request("status", perf=True)["perf"]
        up = host.request("status")["uptime_ms"]
        print("== main loop (unix port on this machine)")
        print(
            f"  idle: work {idle['step_us_avg']} us/iteration (max {idle['step_us_max']} us), "
            f"period {up * 1000 / max(1, idle['iterations']):.0f} us (1 ms poll wait)"
        )
        before = host.request("status", perf=True)["perf"]
        host.request("fire", mode="exact", cards=20)
        host.wait_event("eject")
        after = host.request("status", perf=True)["perf"]
        iters = after["iterations"] - before["iterations"]
        print(f"  a 20-card burst: {iters} iterations (~1 ms apart: the beam is sampled in each)")

        host.request("arm", player="bench", presses=args.presses, mode="exact", cards=1)
        latencies, millis = [], []
        for _ in range(args.presses):
            sim.control("press")
            host.wait_event("eject")
            perf = host.request("status", perf=True)["perf"]
            latencies.append(perf["press_to_motor_iters"])
            millis.append(perf["press_to_motor_ms"])
        print("== press -> motor on (debounce_ms = 20)")
        print(
            f"  {statistics.median(latencies):.0f} loop iterations median "
            f"(min {min(latencies)}, max {max(latencies)}) over {len(latencies)} presses; "
            f"{statistics.median(millis):.0f} ms median (max {max(millis)} ms): the press acts "
            "in the iteration that ends the debounce"
        )

        print(f"== request -> reply round trip over the pty ({args.requests} requests)")
        for cmd, cmd_args in (("seed", {"seed": 1}), ("hello", {}), ("status", {})):
            times = []
            for _ in range(args.requests):
                t0 = time.perf_counter()
                host.request(cmd, **cmd_args)
                times.append((time.perf_counter() - t0) * 1000)
            print(
                f"  {cmd:7s} median {statistics.median(times):.3f} ms, "
                f"p99 {percentile(times, 99):.3f} ms, max {max(times):.3f} ms "
                "(target: median <= 1 ms, p99 <= 5 ms)"
            )
        host.ser.close()
    times = pipe_round_trips(args.requests)
    print(
        f"  firmware alone over pipes: hello median {statistics.median(times):.3f} ms, "
        f"p99 {percentile(times, 99):.3f} ms (the rest of the pty figure is the relay)"
    )
    load = os.getloadavg()
    print(f"  (load average during the run: {load[0]:.1f} on {os.cpu_count()} CPUs)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
