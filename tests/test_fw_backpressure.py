"""USB back-pressure (issue 14, fault 1): a host that holds the port open without reading.

On MicroPython's rp2 port a write to a connected USB CDC port whose 256-byte TX FIFO is full
waits up to 500 ms (``MICROPY_HW_USB_CDC_TX_TIMEOUT``), then drops the rest of the write, and
``select.poll`` reports POLLOUT as soon as one byte is free. The launcher loop must never wait
on its output: the motor starts before the press is announced, every deadline of a burst runs
from the motor's start, lines the port cannot take are queued (the oldest waiting ones dropped
and counted), and a line reaches the host whole or not at all.

Three levels: the writer (``Outbox`` in ``launcher/protocol.py``) and the launcher logic under
CPython against a port that promises what rp2 promises; the whole firmware on the unix board
behind a stdout pipe the test stops reading and fills up (a full TX FIFO, deterministically);
and the simulator's ``stall()``/``unstall()`` over a pty, as a host sees it.
"""

from __future__ import annotations

import json
import os
import random
import select
import subprocess
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import serial
from fw_fakes import FakePWM, FakeSensor
from fw_harness import SIM_BOARD, make_flash_dir, micropython_exe
from launcher import config, protocol
from launcher.feedback import Feedback
from launcher.launcher import Launcher
from launcher.motor import Motor
from launcher.pattern import Pattern, Rng
from unolaunch.sim import SimulatedLauncher

STALL_S = 5.0  # longer than the watchdog (wdt_ms 3000)


# -- the writer, under CPython ---------------------------------------------------


class FakeCdc:
    """A connected USB CDC port as the rp2 port shows it to Python: ``room`` bytes free in the
    TX FIFO. Its ``ipoll`` (a select.poll with the port registered for POLLOUT) reports the
    port while one byte is free, which is all it promises: a write of more than ``promise``
    bytes, or to a full FIFO, is one that could wait 500 ms and then be cut - a failure. With
    ``promise`` > 1 it is a unix pipe or pty instead (POLLOUT: at least that much room), and a
    write larger than the room takes what fits."""

    def __init__(self, room: int = 256, promise: int = 1) -> None:
        self.room = room
        self.promise = promise
        self.sent = bytearray()  # everything the host has been given, in order
        self.writes = 0
        self.fail = 0  # the next writes that raise OSError (the unix port, nobody reading)

    def ipoll(self, timeout: int) -> list[tuple[Any, int]]:
        assert timeout == 0, "the loop must never wait for the port"
        return [(self, select.POLLOUT)] if self.room >= self.promise else []

    def write(self, buf: bytes | bytearray | memoryview) -> int:
        if self.fail:
            self.fail -= 1
            raise OSError(32, "EPIPE")
        assert len(buf) <= self.promise, f"a {len(buf)}-byte write: POLLOUT promised less"
        assert self.room > 0, "a write to a full port would wait"
        took = min(len(buf), self.room)
        self.room -= took
        self.sent += bytes(buf[:took])
        self.writes += 1
        return took

    def lines(self) -> list[dict[str, Any]]:
        """What the host read, as JSON lines; every line must parse (no fragment)."""
        text = bytes(self.sent)
        assert text.endswith(b"\n") or not text, f"a line left unfinished: {text[-40:]!r}"
        return [json.loads(raw) for raw in text.split(b"\n")[:-1]]


def make_outbox(port: FakeCdc, max_bytes: int = 400, chunk: int = 1) -> Any:
    box = protocol.Outbox(port, port.write)
    box.chunk = chunk
    box.max_bytes = max_bytes
    return box


def line(i: int, pad: int = 30) -> str:
    return protocol.encode({"event": "tick", "i": i, "pad": "x" * pad})


@pytest.mark.parametrize(("promise", "chunk"), [(1, 1), (256, 256)], ids=["rp2", "unix"])
def test_outbox_writes_what_poll_promises_and_every_line_whole(promise: int, chunk: int) -> None:
    port = FakeCdc(room=7, promise=promise)
    box = make_outbox(port, max_bytes=100_000, chunk=chunk)
    rng = random.Random(1)
    for i in range(40):
        box.write(line(i, pad=rng.randrange(0, 600)))
        for _ in range(rng.randrange(0, 3)):
            port.room += rng.randrange(0, 700)  # the host reads a little, now and then
            box.flush()
    while box._q:
        port.room += 300
        box.flush()
    assert [m["i"] for m in port.lines()] == list(range(40))
    assert all("dropped" not in m for m in port.lines())


def test_outbox_never_waits_on_a_full_port_and_drops_the_oldest_waiting_lines() -> None:
    port = FakeCdc(room=0)  # connected, the host reads nothing
    box = make_outbox(port, max_bytes=400)
    for i in range(30):
        box.write(line(i))  # each returns at once: nothing is written to a full port
    assert port.writes == 0 and sum(len(b) for b in box._q) <= 400
    port.room = 100_000  # the host reads again
    box.flush()
    got = port.lines()
    kept = [m["i"] for m in got]
    # the line at the head (the next to go) stays; behind it the newest survive, in order
    assert kept == [0, *range(30 - len(got) + 1, 30)]
    assert got[1]["dropped"] == 30 - len(got)  # the gap, on the first line after it
    assert all("dropped" not in m for m in got[:1] + got[2:])
    box.write(line(30))
    assert "dropped" not in port.lines()[-1]  # counted once


def test_outbox_keeps_the_count_when_a_write_takes_nothing_after_a_gap() -> None:
    port = FakeCdc(room=3)
    box = make_outbox(port, max_bytes=200)
    for i in range(10):
        box.write(line(i))  # three bytes of line 0 go, then lines 1.. pile up and drop
    port.room = len(line(0)) + 1 - 3  # exactly the rest of line 0
    box.flush()
    port.fail = 1  # the next line's first write fails (a rp2 timeout, a unix EPIPE)
    port.room = 1
    box.flush()
    assert port.fail == 0 and port.room == 1
    port.room = 0
    for i in range(10, 20):
        box.write(line(i))  # more drops, behind the line that carries the first count
    port.room = 100_000
    box.flush()
    got = port.lines()
    dropped = sum(m.get("dropped", 0) for m in got)
    assert len(got) + dropped == 20 and dropped > 0
    assert [m["i"] for m in got] == sorted(m["i"] for m in got)


def test_outbox_never_cuts_the_line_it_has_started() -> None:
    port = FakeCdc(room=5)  # five bytes of the first line go out, then the FIFO is full
    box = make_outbox(port, max_bytes=200)
    for i in range(20):
        box.write(line(i))
    assert bytes(port.sent) == line(0).encode()[:5]
    port.room = 100_000
    box.flush()
    got = port.lines()
    assert got[0]["i"] == 0 and "dropped" not in got[0]  # the line in flight was finished
    assert got[1]["dropped"] == 20 - len(got)  # then the gap before the newest ones
    assert [m["i"] for m in got[1:]] == list(range(20 - len(got) + 1, 20))


def test_outbox_a_failing_write_loses_no_byte_and_a_long_line_still_goes() -> None:
    port = FakeCdc(room=100_000)
    box = make_outbox(port, max_bytes=64)
    port.fail = 3  # the unix port's EPIPE/EIO: the bytes stay, the loop goes on
    long = protocol.encode({"event": "long", "pad": "y" * 500})
    box.write(long)  # longer than max_bytes on its own: kept, since it is the newest
    assert port.sent == b""
    for _ in range(3):
        box.flush()
    assert bytes(port.sent) == long.encode() + b"\n" and not box._q


# -- the launcher logic, under CPython --------------------------------------------


class Rig:
    """A Launcher with fake devices; each event is logged with the motor's state then."""

    def __init__(self, sensor: bool = True, **cfg: Any) -> None:
        self.cfg = dict(config.DEFAULTS, **cfg)
        self.motor = Motor(FakePWM(), FakePWM())
        self.motor.configure(self.cfg)
        self.sensor = FakeSensor() if sensor else None
        self.pattern = Pattern(Rng(1))
        self.pattern.configure(self.cfg)
        self.out: list[tuple[dict[str, Any], bool]] = []
        info = {"firmware": "t", "protocol": 1, "board": "test", "capabilities": []}
        info.update(config_status="defaults:missing", config_errors=[])
        self.l = Launcher(
            self.cfg,
            self.motor,
            self.sensor,
            Feedback(None, None),
            self.pattern,
            lambda m: self.out.append((m, self.motor.running)),
            info,
            0,
        )

    def req(self, cmd: str, **args: Any) -> dict[str, Any]:
        req, err = protocol.parse(json.dumps({"id": 1, "cmd": cmd, **args}).encode())
        assert err is None and req is not None
        return self.l.handle(req, 0)

    def events(self, name: str) -> list[tuple[dict[str, Any], bool]]:
        return [(m, running) for m, running in self.out if m.get("event") == name]


def test_the_motor_runs_before_the_press_is_announced() -> None:
    rig = Rig()
    rig.l.on_press(10, 11)  # standalone
    rig.req("arm", player="Ann", presses=2, mode="exact", cards=3)
    rig.l.tick(500)
    assert rig.sensor is not None
    rig.sensor.count += 40
    rig.l.tick(501)
    rig.l.on_press(600, 601)  # hosted
    presses = rig.events("press")
    fired = [running for m, running in presses if m["mode"] == "exact"]
    assert fired == [True]  # the roller already turned when the host heard of the press
    assert presses[0][0]["t"] == 10 and presses[1][0]["t"] == 600  # t: the press itself


def test_a_blank_press_still_announces_the_press_before_its_eject() -> None:
    rig = Rig(fire_chance_pct=1, max_blanks=3)
    rig.l.on_press(10, 12)
    names = [m["event"] for m, _ in rig.out]
    assert names == ["press", "eject"]
    assert rig.out[1][0]["cards"] == 0 and not rig.motor.running


def test_every_burst_deadline_runs_from_the_motor_start_not_the_press() -> None:
    # the jam deadline (jam_ms, plus ramp_ms before the first card)
    rig = Rig(jam_ms=300, ramp_ms=80)
    rig.req("arm", player="Ann", presses=1, mode="exact", cards=2)
    rig.l.on_press(1000, 2004)  # the motor could only start 1004 ms after the press
    assert rig.motor.running and rig.motor.started_at == 2004
    rig.l.tick(2004 + 379)
    assert rig.l.fault is None  # not a false jam
    rig.l.tick(2004 + 380)
    assert rig.l.fault == "jam"

    # open loop: the burst's length (ramp_ms / 2 + cards * ms_per_card)
    rig = Rig(sensor=False, ramp_ms=80, ms_per_card=100)
    rig.req("arm", player="Bo", presses=1, mode="exact", cards=2)
    rig.l.on_press(1000, 2004)
    rig.l.tick(2004 + 239)
    assert rig.motor.running
    rig.l.tick(2004 + 240)
    eject = rig.events("eject")[0][0]
    assert not rig.motor.running and eject["cards"] == 2 and rig.l.fault is None

    # `fire`: the burst starts at the clock the request is handled with
    rig = Rig(jam_ms=300, ramp_ms=80)
    req, _ = protocol.parse(b'{"id": 2, "cmd": "fire", "mode": "exact", "cards": 1}')
    rig.l.handle(req, 5000)
    rig.l.tick(5000 + 379)
    assert rig.l.fault is None and rig.motor.running


# -- the whole firmware on the unix board, behind a pipe the host stops reading ------


class PipeHost:
    """The firmware in MicroPython's unix port with the fake board, its stdout a pipe that
    this host can stop reading (``stall``) and fill up (``fill``), as a paused terminal
    leaves a Pico's USB TX FIFO full. While stalled, nothing is read from the pipe."""

    def __init__(self, flash: Path, log: Path) -> None:
        ctl_r, self._ctl_w = os.pipe()
        hw_r, hw_w = os.pipe()
        out_r, out_w = os.pipe()
        env = dict(os.environ)
        env.update(
            MICROPYPATH=str(SIM_BOARD),
            UNOLAUNCH_SIM_CTL_FD=str(ctl_r),
            UNOLAUNCH_SIM_HW_FD=str(hw_w),
            UNOLAUNCH_SIM_CARDS="112",
            UNOLAUNCH_SIM_SENSOR="1",
        )
        self._log = open(log, "wb")  # noqa: SIM115  (closed in close())
        self.proc = subprocess.Popen(
            [micropython_exe(), "-X", "heapsize=192K", "main.py"],
            cwd=flash,
            stdin=subprocess.PIPE,
            stdout=out_w,
            stderr=self._log,
            env=env,
            pass_fds=(ctl_r, hw_w),
        )
        # A second way into the board's stdout pipe with its own open file description, so
        # it can be non-blocking while the board's end stays blocking.
        self._fill_fd = os.open(f"/proc/self/fd/{out_w}", os.O_WRONLY | os.O_NONBLOCK)
        for fd in (ctl_r, hw_w, out_w):
            os.close(fd)
        self._out = out_r
        self._hw_r = hw_r
        self._cond = threading.Condition()
        self._stalled = False
        self._done = False
        self.lines: list[bytes] = []
        self.hw: list[dict[str, Any]] = []
        self._next_id = 1
        self._threads = [
            threading.Thread(target=target, daemon=True)
            for target in (self._read_out, self._read_hw)
        ]
        for t in self._threads:
            t.start()

    # -- reading
    def _read_out(self) -> None:
        buf = b""
        while not self._done:
            ready, _, _ = select.select([self._out], [], [], 0.02)
            with self._cond:
                if self._stalled or not ready:
                    data = None
                else:
                    data = os.read(self._out, 65536)
                    if not data:
                        return
                    buf += data
                    *whole, buf = buf.split(b"\n")
                    self.lines.extend(whole)
                    self._cond.notify_all()
            if data is None and self._stalled:
                time.sleep(0.01)

    def _read_hw(self) -> None:
        with os.fdopen(self._hw_r, "rb") as f:
            for raw in f:
                with self._cond:
                    self.hw.append(json.loads(raw))
                    self._cond.notify_all()

    def stall(self) -> None:
        with self._cond:  # a read in progress finishes first; none starts after this
            self._stalled = True

    def unstall(self) -> None:
        with self._cond:
            self._stalled = False

    def fill(self) -> None:
        """Fill the pipe with filler lines until not even a 16-byte line fits: every slot of
        the pipe is taken (POLLOUT is off) and any line the board writes would wait."""
        for size in (4096, 512, 64, 16):
            filler = b'{"fill": "' + b"." * (size - 13) + b'"}\n'
            while True:
                try:
                    os.write(self._fill_fd, filler)  # <= PIPE_BUF: all or EAGAIN
                except BlockingIOError:
                    break

    def wait(self, predicate: Callable[[], bool], timeout: float) -> bool:
        deadline = time.monotonic() + timeout
        with self._cond:
            while not predicate():
                left = deadline - time.monotonic()
                if left <= 0:
                    return False
                self._cond.wait(left)
        return True

    def quiet(self, seconds: float = 0.3, timeout: float = 30.0) -> None:
        """Wait until no line has come for ``seconds``."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            n = len(self.lines)
            time.sleep(seconds)
            if len(self.lines) == n:
                return
        raise AssertionError("the board never went quiet")

    def messages(self, start: int = 0) -> list[dict[str, Any]]:
        out = []
        for raw in self.lines[start:]:
            msg = json.loads(raw)  # a fragment glued to another line fails here
            assert isinstance(msg, dict), raw
            out.append(msg)
        return out

    # -- writing
    def send(self, cmd: str, **args: Any) -> int:
        req_id = self._next_id
        self._next_id += 1
        assert self.proc.stdin is not None
        self.proc.stdin.write((json.dumps({"id": req_id, "cmd": cmd, **args}) + "\n").encode())
        self.proc.stdin.flush()
        return req_id

    def request(self, cmd: str, timeout: float = 10.0, **args: Any) -> dict[str, Any]:
        start = len(self.lines)
        req_id = self.send(cmd, **args)

        def answered() -> bool:
            return any(b'"id": %d,' % req_id in raw for raw in self.lines[start:])

        assert self.wait(answered, timeout), f"no reply to {cmd} ({self.stderr()})"
        for msg in self.messages(start):
            if msg.get("id") == req_id:
                return msg
        raise AssertionError("unreachable")

    def control(self, line: str) -> None:
        os.write(self._ctl_w, line.encode() + b"\n")

    def motor_starts(self, start: int = 0) -> int:
        """Times the motor went from stopped to driven forward, in hw[start:] (the brake at a
        burst's end passes through reverse for microseconds: not a start)."""
        starts = 0
        running = False
        for h in self.hw[start:]:
            if h.get("hw") == "motor":
                now = h["duty"] > 0 and h["dir"] == 1
                starts += now and not running
                running = now
        return starts

    def motor_idle(self) -> bool:
        motors = [h for h in self.hw if h.get("hw") == "motor"]
        return not motors or motors[-1]["duty"] == 0

    def stderr(self) -> str:
        self._log.flush()
        return Path(self._log.name).read_text(errors="replace")[-2000:]

    def close(self) -> None:
        self._done = True
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait(timeout=10)
        for t in self._threads:
            t.join(timeout=5)
        for fd in (self._fill_fd, self._ctl_w, self._out):
            os.close(fd)
        if self.proc.stdin is not None:
            self.proc.stdin.close()
        self._log.close()


@pytest.fixture
def pipe_host(tmp_path: Path) -> Iterator[PipeHost]:
    if not Path("/proc/self/fd").is_dir():
        pytest.skip("needs /proc/self/fd (Linux) to open the board's stdout pipe twice")
    host = PipeHost(make_flash_dir(tmp_path / "flash"), tmp_path / "stderr.txt")
    try:
        yield host
    finally:
        host.close()


def test_a_host_that_stops_reading_never_stalls_the_launcher(pipe_host: PipeHost) -> None:
    host = pipe_host
    assert host.wait(lambda: any(b'"event": "boot"' in raw for raw in host.lines), 15)
    assert host.request("arm", player="Ann", presses=3, mode="exact", cards=1)["ok"]
    host.quiet(0.2)
    start = len(host.lines)
    hw_start = len(host.hw)

    host.stall()
    host.fill()
    stalled_at = time.monotonic()
    ids = []
    for i in range(3):
        # the player presses while nobody reads; the motor must start all the same
        host.control("press")
        host.wait(lambda i=i: host.motor_starts(hw_start) > i and host.motor_idle(), 3.0)
        # requests the host will read later: more than the board can keep for it
        ids += [host.send("status") for _ in range(8)]
    time.sleep(max(0.0, STALL_S - (time.monotonic() - stalled_at)))
    during = host.motor_starts(hw_start)
    resets_during = [h for h in host.hw if h.get("hw") == "reset"]
    host.unstall()
    host.quiet(0.5)

    assert during == 3, f"the motor started {during} times for 3 presses while not read"
    assert not resets_during and not [h for h in host.hw if h.get("hw") == "reset"], host.hw
    got = [m for m in host.messages(start) if "fill" not in m]  # every line parses
    assert not [m for m in got if m.get("event") == "boot"]
    replies = [m["id"] for m in got if "event" not in m]
    events = [m["event"] for m in got if "event" in m]
    dropped = sum(m.get("dropped", 0) for m in got)
    assert len(set(replies)) == len(replies) and set(replies) <= set(ids)
    assert set(events) <= {"press", "eject", "done"}
    # every line the board wrote meanwhile either arrived whole or was counted as dropped:
    # 24 status replies; 3 press + 3 eject + 1 done events
    assert len(replies) + len(events) + dropped == len(ids) + 7, (replies, events, dropped)
    assert dropped > 0  # more than the board keeps for a host that does not read

    status = host.request("status")
    assert status["ok"] and status["presses"] == 3 and status["cards_out"] == 3
    assert status["state"] == "idle" and status["armed"] is None
    assert host.proc.poll() is None


# -- the simulator: stall()/unstall() over a pty ------------------------------------


def test_simulator_stalled_for_five_seconds_while_the_player_presses() -> None:
    with (
        SimulatedLauncher(cards=112, seed=7) as sim,
        serial.serial_for_url(sim.port, timeout=0.1) as ser,
    ):
        buf = bytearray()

        def read_lines(quiet: float = 0.5, timeout: float = 20.0) -> list[bytes]:
            """Lines until nothing came for ``quiet`` seconds."""
            out: list[bytes] = []
            deadline = time.monotonic() + timeout
            last = time.monotonic()
            while time.monotonic() < deadline and time.monotonic() - last < quiet:
                data = ser.read(4096)
                if data:
                    last = time.monotonic()
                    buf.extend(data)
                    while b"\n" in buf:
                        raw, _, rest = bytes(buf).partition(b"\n")
                        buf[:] = rest
                        out.append(raw.rstrip(b"\r"))
            return out

        def request(req_id: int, cmd: str, **args: Any) -> dict[str, Any]:
            ser.write((json.dumps({"id": req_id, "cmd": cmd, **args}) + "\n").encode())
            deadline = time.monotonic() + 15
            while time.monotonic() < deadline:
                for raw in read_lines(0.3):
                    msg = json.loads(raw)
                    if msg.get("id") == req_id and "ok" in msg:
                        return msg
            raise AssertionError(f"no reply to {cmd}")

        assert request(1, "hello")["ok"]
        assert request(2, "arm", player="Ann", presses=3, mode="exact", cards=1)["ok"]
        read_lines(0.3)
        boots = len([h for h in sim.hw_events() if h.get("hw") == "boot"])
        hw_start = len(sim.hw_events())

        def motor_starts() -> int:
            starts, running = 0, False
            for h in sim.hw_events()[hw_start:]:
                if h.get("hw") == "motor":
                    forward = h["duty"] > 0 and h["dir"] == 1  # not the brake's reverse blip
                    starts += forward and not running
                    running = forward
            return starts

        sim.stall()
        stalled_at = time.monotonic()
        for i in range(3):
            sim.control("press")
            deadline = time.monotonic() + 3
            while motor_starts() <= i and time.monotonic() < deadline:
                time.sleep(0.02)
            time.sleep(0.6)  # the burst of one card ends before the next press
        time.sleep(max(0.0, STALL_S - (time.monotonic() - stalled_at)))
        assert motor_starts() == 3
        sim.unstall()
        got = [json.loads(raw) for raw in read_lines(0.5)]  # whole lines only

        hw = sim.hw_events()
        assert not [h for h in hw if h.get("hw") == "reset"], hw
        assert len([h for h in hw if h.get("hw") == "boot"]) == boots
        events = [m["event"] for m in got if "event" in m]
        dropped = sum(m.get("dropped", 0) for m in got)
        assert len(events) + dropped == 7, got  # 3 press, 3 eject, 1 done: whole or counted
        status = request(3, "status")
        assert status["presses"] == 3 and status["cards_out"] == 3 and status["armed"] is None
