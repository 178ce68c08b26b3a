"""The two simulated boards side by side: the unix port with the fake board, and MicroPython's
real rp2 port in the emulated RP2040 (issue 9's figures).

For each board, measured in one run:
  * start -> first ``hello`` reply (wall seconds, from creating the simulator);
  * press -> motor on, in the board's own milliseconds (the firmware's ``press_to_motor_ms``
    from ``status perf``: on the rp2040 board that is emulated time, on the unix board
    real time) and in loop iterations;
  * ``status`` round trip (median and p95 of N, wall ms) while the launcher loop runs;
  * ``unolaunch flash``: a full flash onto an older build and an unchanged re-flash (wall s);
  * the board's speed: a CPU-bound MicroPython loop timed by the board's own clock
    (``ticks_us``) and by the host's wall clock; on the rp2040 board the ratio says how fast
    the emulated 125 MHz chip runs (x 125 MHz = emulated clock rate, a MIPS-like figure).

  * issue 20, never deaf: the button and beam are watched by hard pin IRQs that timestamp
    their edges (``inputs_irq`` pins; ``edges_lost``: edges dropped by a full ring, 0), and
    the longest gap between two loop iterations' looks at them (board clock), which is how
    late the launcher can act on an input, in three situations: the host polling
    ``config_get``, presses whose bursts emit events, the backlog written after ``unstall``;
    and how many garbage collections fell in each window and how long the longest took: the
    loop collects when it is idle (no burst, nothing to send) once its output since the last
    collection reaches ``GC_EVERY_BYTES``, and a collection is one gap of its own (the
    firmware's ``gcs``, ``gc_us_max``).

    UNOLAUNCH_RP2_DIR=../shared/rp2 python bench/bench_boards.py [--requests 200]
    ... bench/bench_boards.py --deaf-only    # only the issue 20 figures
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "host"))

import serial  # noqa: E402
from unolaunch.sim import make_launcher  # noqa: E402

CPU_LOOP = b"import time\r\n"
CPU_LOOP += b"t=time.ticks_us(); exec('i=0\\nwhile i<20000:\\n i+=1'); "
CPU_LOOP += b"print('us', time.ticks_diff(time.ticks_us(), t))\r\n"


class Port:
    """A tiny line-level client over pyserial (the bench measures the board, not a client)."""

    def __init__(self, path: str) -> None:
        self.s = serial.serial_for_url(path, baudrate=115200, timeout=0.01)
        self.buf = b""
        self.next_id = 1

    def lines(self, timeout: float) -> list[bytes]:
        end = time.monotonic() + timeout
        out: list[bytes] = []
        while time.monotonic() < end and not out:
            # what is there, or one byte (waiting up to the port's 10 ms timeout for it): a
            # read(4096) would wait out the timeout every time, 10 ms a round trip
            self.buf += self.s.read(max(1, self.s.in_waiting))
            *out, self.buf = self.buf.split(b"\n")
        return [x.rstrip(b"\r") for x in out]

    def request(self, cmd: str, timeout: float = 5.0, **args: Any) -> dict[str, Any]:
        rid = self.next_id
        self.next_id += 1
        self.s.write((json.dumps({"id": rid, "cmd": cmd, **args}) + "\n").encode())
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            for line in self.lines(end - time.monotonic()):
                try:
                    msg = json.loads(line)
                except ValueError:
                    continue
                if isinstance(msg, dict) and msg.get("id") == rid and "ok" in msg:
                    return msg
        raise TimeoutError(f"no reply to {cmd}")

    def text_until(self, pattern: bytes, timeout: float) -> bytes:
        end = time.monotonic() + timeout
        seen = b""
        while time.monotonic() < end:
            seen += self.s.read(4096)
            m = re.search(pattern, seen)
            if m:
                return m.group(0)
        raise TimeoutError(f"no {pattern!r} within {timeout} s: {seen[-200:]!r}")

    def close(self) -> None:
        self.s.close()


LOST: dict[str, int] = {}


def _gap_ms(port: Port, board: str = "") -> float:
    """The longest time between two loop iterations' looks at the inputs since the last
    ``status perf`` (the firmware's ``inputs_gap_us_max``), in ms of the board's own clock;
    resets it. Also notes the edges the pin IRQs had to drop (``edges_lost``) and the
    garbage collections the loop made (``gcs``, ``gc_us_max``)."""
    perf = port.request("status", timeout=60, perf=True)["perf"]
    if board:
        LOST[board] = int(perf["edges_lost"])
        LOST[board + "_irq"] = int(perf["inputs_irq"])
    GCS["count"] = int(perf.get("gcs", 0))
    GCS["us_max"] = int(perf.get("gc_us_max", 0))
    return float(perf["inputs_gap_us_max"]) / 1000


GCS: dict[str, int] = {}


def _window(port: Port, out: dict[str, Any], key: str, sim: Any, board: str = "") -> None:
    """Close a measuring window: its longest loop gap, how many of the loop's garbage
    collections fell in it (a collection is one long gap: MicroPython's collector marks the
    whole live heap in one go), and on the rp2040 board how many input edges the chip took
    and the longest any waited to be taken (the emulator's edge watch)."""
    before = GCS.get("count", 0)
    out[key] = _gap_ms(port, board)
    out[key + "_gcs"] = GCS["count"] - before
    watch = getattr(sim, "inputs_watch", None)
    if watch is not None:
        got = watch()
        out[key + "_edges"] = got.edges
        out[key + "_waited_us"] = got.waited_us_max


def _drain(port: Port, quiet: float, until: bytes | None = None, limit: float = 60) -> None:
    """Read until the board is quiet for ``quiet`` s (or a line holding ``until`` came)."""
    end = time.monotonic() + limit
    while time.monotonic() < end:
        got = port.lines(quiet)
        if not got or (until is not None and any(until in line for line in got)):
            return


def measure_deaf(board: str, requests: int = 20) -> dict[str, Any]:
    """Issue 20: the longest time the button and beam went unobserved (board clock), in
    three situations: the host polling ``config_get`` (the longest reply), a run of presses
    whose bursts emit events, and the backlog written after ``unstall``."""
    out: dict[str, Any] = {}
    sim = make_launcher(board, cards=112).start()
    try:
        port = Port(sim.port)
        _wait_hello(port, board)
        port.request("mode", mode="hosted")  # a press unarmed is a foul: no burst
        _drain(port, 0.5)
        _gap_ms(port)
        if hasattr(sim, "inputs_watch"):
            sim.inputs_watch()  # from here on
        for _ in range(6):
            sim.control("press 40")  # queued: made while the host polls
        for _ in range(requests):
            port.request("config_get", timeout=60)
        _drain(port, 1.0)
        _window(port, out, "deaf_replying_ms", sim)
        presses = 5
        port.request("arm", player="Ann", presses=presses, mode="exact", cards=2)
        _gap_ms(port)
        for _ in range(presses):
            sim.control("press")
            _drain(port, 30, until=b'"event": "eject"')
        _drain(port, 1.0)
        _window(port, out, "deaf_burst_events_ms", sim)
        sim.stall()
        port.s.write(b'{"id": 7, "cmd": "status", "perf": true}\n')  # resets the figure
        for i in range(14):  # about 3 KB of replies: more than the firmware's queue holds
            port.s.write(b'{"id": %d, "cmd": "status"}\n' % (100 + i))
        time.sleep(1.5 if board == "rp2040" else 0.5)
        sim.unstall()
        sim.control("press 120")  # made while the backlog is written
        _drain(port, 2.0 if board == "rp2040" else 0.5)
        _window(port, out, "deaf_backlog_ms", sim, board)
        out["edges_lost"] = LOST[board]
        out["inputs_irq"] = LOST[board + "_irq"]
        out["gcs"] = GCS["count"]
        out["gc_ms_max"] = GCS["us_max"] / 1000
        port.close()
    finally:
        sim.close()
    return out


KINDS = (
    ("status", {}),
    ("hello", {"protocol": 3}),
    ("seed", {"seed": 7}),
    ("config_get", {}),
)


def _wait_hello(port: Port, board: str) -> None:
    """The first `hello`, sent once and waited for as long as the board needs (a boot takes
    about 0.4 s of rp2040 chip time, far more of wall time): no resends (each would be
    answered, after the last one's timeout: issue 32)."""
    port.request("hello", timeout=120 if board == "rp2040" else 30)


def _round_trip_ms(port: Port, sim: Any, cmd: str, **args: Any) -> float:
    """One request's round trip in the board's own time: on the rp2040 board from its
    newline reaching the chip to its reply's reaching the host (``usb_line_times``), on the
    unix board (whose clock is real time) the host's wall clock around it."""
    marks = getattr(sim, "usb_line_times", None)
    if marks is None:
        a = time.perf_counter()
        port.request(cmd, timeout=30, **args)
        return (time.perf_counter() - a) * 1000
    marks()
    port.request(cmd, timeout=60, **args)
    nl_in, nl_out = marks()
    return (nl_out[-1] - nl_in[-1]) / 1000


def _burst_of_lines(port: Port, sim: Any, n: int) -> tuple[int, float]:
    """``n`` `config_get` requests sent at once with the host reading: bytes of replies and
    the board-clock ms from the first reply line to the last."""
    marks = getattr(sim, "usb_line_times", None)
    if marks is not None:
        marks()
    first = port.next_id
    port.next_id += n
    port.s.write(b"".join(b'{"id": %d, "cmd": "config_get"}\n' % (first + i) for i in range(n)))
    got: list[bytes] = []
    a = time.perf_counter()
    t_first = None
    end = time.monotonic() + 120
    while time.monotonic() < end and not any(b'"id": %d,' % (first + n - 1) in x for x in got):
        new = port.lines(1.0)
        if new and t_first is None:
            t_first = time.perf_counter()
        got += new
    wall_ms = (time.perf_counter() - (t_first or a)) * 1000
    sent = sum(len(x) + 1 for x in got if b'"config"' in x)
    if marks is not None:
        _, nl_out = marks()
        return sent, (nl_out[-1] - nl_out[0]) / 1000
    return sent, wall_ms


def measure_speed(board: str, requests: int = 40) -> dict[str, Any]:
    """Issue 32's figures, in the board's own time (rp2040: chip time; unix: real time)."""
    out: dict[str, Any] = {}
    sim = make_launcher(board, cards=112).start()
    try:
        port = Port(sim.port)
        _wait_hello(port, board)
        _drain(port, 0.5)
        perf = port.request("status", timeout=60, perf=True)["perf"]
        out["mem_free_boot_kb"] = perf["mem_free_boot"] / 1024
        for cmd, args in KINDS:
            times = sorted(
                _round_trip_ms(port, sim, cmd, **args)
                for _ in range(requests if cmd == "status" else max(5, requests // 4))
            )
            out[f"rt_{cmd}_median"] = statistics.median(times)
            out[f"rt_{cmd}_max"] = times[-1]
        sent, ms = _burst_of_lines(port, sim, 10)
        out["read_kbps"] = sent / 1024 / (ms / 1000) if ms > 0 else None
        # a backlog after the host paused: the queue's 2 KB out after `unstall`
        sim.stall()
        for i in range(14):
            port.s.write(b'{"id": %d, "cmd": "status"}\n' % (900 + i))
        time.sleep(1.5 if board == "rp2040" else 0.5)
        marks = getattr(sim, "usb_line_times", None)
        if marks is not None:
            marks()
        a = time.perf_counter()
        sim.unstall()
        got: list[bytes] = []
        end = time.monotonic() + 60
        while time.monotonic() < end and not any(b'"id": 913' in x for x in got):
            got += port.lines(1.0)
        wall_ms = (time.perf_counter() - a) * 1000
        backlog = sum(len(x) + 1 for x in got)
        out["backlog_bytes"] = backlog
        if marks is not None:
            _, nl_out = marks()
            out["backlog_ms"] = (nl_out[-1] - nl_out[0]) / 1000
        else:
            out["backlog_ms"] = wall_ms
        _drain(port, 0.5)
        # a burst: press -> motor, last card -> brake, collections and the loop's gap in it
        gcs = port.request("status", timeout=60, perf=True)["perf"]["gcs"]
        port.request("arm", player="Ann", presses=1, mode="exact", cards=10)
        seen = len(sim.hw_events())
        sim.control("press")
        _drain(port, 30, until=b'"event": "eject"')
        _drain(port, 1.0)
        perf = port.request("status", timeout=60, perf=True)["perf"]
        out["press_to_motor_ms"] = perf["press_to_motor_ms"]
        out["burst_gap_ms"] = perf["inputs_gap_us_max"] / 1000
        out["burst_gcs"] = perf["gcs"] - gcs  # (the loop's own: never while a burst runs)
        hw = sim.hw_events()[seen:]
        cards = [ev["t_us"] for ev in hw if ev.get("hw") == "card" and "t_us" in ev]
        brakes = [ev["t_us"] for ev in hw if ev.get("brake") and "t_us" in ev]
        before = [t for t in cards if brakes and t <= brakes[0]]
        if before:  # the last card the burst counted (one out after the brake is a stray)
            out["card_to_brake_ms"] = (brakes[0] - before[-1]) / 1000
        port.close()
    finally:
        sim.close()
    return out


def measure(board: str, requests: int) -> dict[str, Any]:
    out: dict[str, Any] = {}
    t0 = time.monotonic()
    sim = make_launcher(board, cards=112).start()
    try:
        port = Port(sim.port)
        _wait_hello(port, board)
        out["start_to_hello_s"] = time.monotonic() - t0
        port.request("arm", player="Ann", presses=1, mode="exact", cards=1)
        sim.control("press")
        time.sleep(1.5)
        perf = port.request("status", perf=True)["perf"]
        out["press_to_motor_ms"] = perf["press_to_motor_ms"]
        out["press_to_motor_iters"] = perf["press_to_motor_iters"]
        times = []
        for _ in range(requests):
            a = time.perf_counter()
            port.request("status")
            times.append((time.perf_counter() - a) * 1000)
        out["status_median_ms"] = statistics.median(times)
        out["status_p95_ms"] = sorted(times)[int(len(times) * 0.95)]
        port.s.write(b"\x03\x03")
        time.sleep(0.5)
        port.s.reset_input_buffer()
        a = time.perf_counter()
        port.s.write(CPU_LOOP)
        board_us = int(port.text_until(rb"us (\d+)", 60).split()[1])
        wall_us = (time.perf_counter() - a) * 1e6
        out["loop_board_ms"] = board_us / 1000
        out["loop_wall_ms"] = wall_us / 1000
        out["speed_vs_board_clock"] = board_us / wall_us
        port.s.write(b"\x04")  # soft reset: the firmware runs again
        port.close()
    finally:
        sim.close()
    with tempfile.TemporaryDirectory() as tmp:
        older = Path(tmp) / "older"
        shutil.copytree(ROOT / "firmware", older, ignore=shutil.ignore_patterns("__pycache__"))
        with (older / "launcher" / "feedback.py").open("a") as f:
            f.write("\n_OLDER_BUILD = 1\n")
        older_main = older / "main.py"
        older_main.write_text(older_main.read_text() + "\n# older\n")
        for name in ("app", "launcher", "protocol", "config"):
            p = older / "launcher" / f"{name}.py"
            p.write_text(p.read_text() + "\n# older\n")
        sim = make_launcher(board, flash_dir=Path(tmp) / "flash", firmware_dir=older).start()
        try:
            for key in ("flash_full_s", "flash_unchanged_s"):
                a = time.monotonic()
                proc = subprocess.run(
                    [sys.executable, "-m", "unolaunch", "flash", "--port", sim.port],
                    capture_output=True,
                    text=True,
                    timeout=600,
                    env={"PYTHONPATH": str(ROOT / "host"), "PATH": "/usr/bin:/bin"},
                )
                out[key] = time.monotonic() - a
                m = re.search(r"copied (\d+) of (\d+) files", proc.stdout)
                out[key.replace("_s", "_copied")] = m[1] if m else proc.stderr.strip()[-80:]
        finally:
            sim.close()
    return out


SPEED_ROWS = [
    ("round trip, board clock (ms)", "", ""),
    *[(f"  {cmd}, median / max", f"rt_{cmd}", "{:.2f} / {:.2f}") for cmd, _ in KINDS],
    ("output, host reading (10 config_get)", "read_kbps", "{:.0f} KB/s"),
    ("backlog after unstall", "backlog_bytes", "{} bytes"),
    ("  delivered in", "backlog_ms", "{:.1f} ms"),
    ("press -> motor on", "press_to_motor_ms", "{} ms"),
    ("last card -> brake", "card_to_brake_ms", "{:.2f} ms"),
    ("longest loop gap, a 10-card burst", "burst_gap_ms", "{:.2f} ms"),
    ("  collections during it (goal 0)", "burst_gcs", "{}"),
    ("heap free after boot", "mem_free_boot_kb", "{:.0f} KB"),
]


def _print_table(rows: list[tuple[str, str, str]], boards: list[str], results: Any) -> None:
    print(f"{'':38}" + "".join(f"{b:>16}" for b in boards))
    for label, key, fmt in rows:
        if not key:
            print(label)
            continue
        cells = []
        for b in boards:
            r = results[b]
            if key.startswith("rt_"):
                med, top = r.get(key + "_median"), r.get(key + "_max")
                cells.append(fmt.format(med, top) if med is not None else "-")
                continue
            v = r.get(key)
            cells.append(fmt.format(v) if v is not None else "-")
        if any(c != "-" for c in cells):
            print(f"{label:38}" + "".join(f"{c:>16}" for c in cells))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--requests", type=int, default=40)
    ap.add_argument("--boards", default="rp2040,unix")
    ap.add_argument(
        "--full", action="store_true", help="also start, flash, board speed and issue 20's figures"
    )
    ap.add_argument(
        "--deaf-only", action="store_true", help="only the unobserved-inputs figures (issue 20)"
    )
    args = ap.parse_args()
    boards = args.boards.split(",")
    if not args.deaf_only:
        speed = {b: measure_speed(b, args.requests) for b in boards}
        print("issue 32, in each board's own time (rp2040: chip time; unix: real time)")
        _print_table(SPEED_ROWS, boards, speed)
        if not args.full:
            return
        print()
    if args.deaf_only:
        results = {b: measure_deaf(b) for b in boards}
    else:
        results = {b: {**measure(b, args.requests), **measure_deaf(b)} for b in boards}
    rows = [
        ("inputs watched by pin IRQs", "inputs_irq", "{} pins"),
        ("  edges the IRQs dropped", "edges_lost", "{}"),
        ("longest an input edge waited for the chip", "", ""),
        ("  polled config_get, 6 presses", "deaf_replying_ms_waited_us", "{:.0f} us"),
        ("    edges taken", "deaf_replying_ms_edges", "{}"),
        ("  bursts' events (button, beam)", "deaf_burst_events_ms_waited_us", "{:.0f} us"),
        ("    edges taken", "deaf_burst_events_ms_edges", "{}"),
        ("  backlog on unstall, a press", "deaf_backlog_ms_waited_us", "{:.0f} us"),
        ("    edges taken", "deaf_backlog_ms_edges", "{}"),
        ("longest loop gap, polled config_get", "deaf_replying_ms", "{:.2f} ms"),
        ("  garbage collections in it", "deaf_replying_ms_gcs", "{}"),
        ("longest loop gap, bursts' events", "deaf_burst_events_ms", "{:.2f} ms"),
        ("  garbage collections in it", "deaf_burst_events_ms_gcs", "{}"),
        ("longest loop gap, backlog on unstall", "deaf_backlog_ms", "{:.2f} ms"),
        ("  garbage collections in it", "deaf_backlog_ms_gcs", "{}"),
        ("the loop's garbage collections", "gcs", "{}"),
        ("  longest (one loop gap)", "gc_ms_max", "{:.2f} ms"),
        ("start -> first hello", "start_to_hello_s", "{:.2f} s"),
        ("press -> motor on (board ms)", "press_to_motor_ms", "{} ms"),
        ("press -> motor on (iterations)", "press_to_motor_iters", "{}"),
        ("status round trip, median", "status_median_ms", "{:.1f} ms"),
        ("status round trip, p95", "status_p95_ms", "{:.1f} ms"),
        ("flash onto an older build", "flash_full_s", "{:.1f} s"),
        ("  files copied", "flash_full_copied", "{}"),
        ("re-flash, unchanged", "flash_unchanged_s", "{:.1f} s"),
        ("  files copied", "flash_unchanged_copied", "{}"),
        ("20k-iteration loop, board clock", "loop_board_ms", "{:.0f} ms"),
        ("20k-iteration loop, wall clock", "loop_wall_ms", "{:.0f} ms"),
        ("board clock / wall clock", "speed_vs_board_clock", "{:.2f}x"),
    ]
    _print_table(rows, boards, results)
    if "rp2040" in results and "speed_vs_board_clock" in results["rp2040"]:
        speed = results["rp2040"]["speed_vs_board_clock"]
        print(
            f"emulated RP2040: {speed * 125:.0f} MHz-equivalent ({speed:.2f}x a real 125 MHz chip)"
        )


if __name__ == "__main__":
    main()
