"""The launcher never goes deaf (issue 20): the button and the beam are watched while the
firmware talks to the host, on both boards of the differential tier.

On the rp2 port a write to USB costs chip time (about 80 µs a call), so a firmware that wrote
a long reply or a backlog in one loop iteration stopped sampling its inputs for tens to
hundreds of milliseconds: presses of 30-100 ms went unseen and cards flew out uncounted.
Each test here is a row of the issue's table: a scripted host polls (or pauses and resumes)
while the launcher's mechanics press the button or shoot cards, and every press and every
card must be accounted for. Press lengths and gaps are the mechanics' own time (on the
rp2040 board the chip's clock), so the tests do not depend on the host machine's speed.
"""

from __future__ import annotations

import contextlib
import json
import shutil
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from board_harness import Link, board_link, board_params
from fw_harness import FIRMWARE

pytestmark = pytest.mark.timeout(300)

BOARD = pytest.mark.parametrize("board", board_params())

PRESS_LENGTHS_MS = (30, 40, 60, 100)  # issue 20: no press of 30 ms or longer is missed
PRESS_ROUNDS = 4
PRESS_GAP_MS = 80  # physics.PRESS_GAP_MS: queued presses are this far apart


@contextlib.contextmanager
def polling(fw: Link, cmd: str, period_s: float, **args: Any) -> Iterator[list[int]]:
    """A host that asks ``cmd`` (with ``args``) every ``period_s`` seconds, as a table's
    client does: it sends the next request once the last one is answered (or after 30 s)
    and the period has passed, until the block ends; yields the ids it sent."""
    stop = threading.Event()
    sent: list[int] = []

    def answered(req_id: int) -> bool:
        tag = b'"id": %d,' % req_id  # (keys come in no set order: docs/protocol.md)
        for line in fw.lines[-50:]:
            if tag in line or line.endswith(b'"id": %d}' % req_id):
                msg = json.loads(line)
                if msg.get("id") == req_id and "ok" in msg:
                    return True
        return False

    def run() -> None:
        req_id = 500000
        while not stop.wait(period_s):
            req_id += 1
            fw.send_raw((json.dumps({"id": req_id, "cmd": cmd, **args}) + "\n").encode())
            sent.append(req_id)
            deadline = time.monotonic() + 30
            while not answered(req_id) and time.monotonic() < deadline and not stop.is_set():
                time.sleep(0.005)

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    try:
        yield sent
    finally:
        stop.set()
        thread.join(timeout=5)


def wait_chip_ms(fw: Link, ms: int, timeout: float = 120.0) -> dict[str, Any]:
    """Wait until the board's own clock has run ``ms`` more milliseconds (the emulated chip
    runs below real time); returns the last status."""
    start = fw.request("status", timeout=30)["uptime_ms"]
    deadline = time.monotonic() + timeout
    while True:
        status = fw.request("status", timeout=30)
        if status["uptime_ms"] - start >= ms:
            return status
        assert time.monotonic() < deadline, f"the board's clock did not run {ms} ms"
        time.sleep(0.2)


def _released(fw: Link, hw_from: int) -> int:
    """Presses the mechanics made and ended since hardware report ``hw_from``."""
    return sum(
        1 for ev in fw.hw_events()[hw_from:] if ev.get("hw") == "button" and ev.get("down") is False
    )


def settled_presses(fw: Link, before: int, lengths: list[int], hw_from: int) -> int:
    """The presses counted since ``before``, once the mechanics have made every press of
    ``lengths`` (the unix board holds a press the firmware was descheduled for until it
    has read it: on a loaded machine the last one may end seconds late) and the board's
    clock has run up to two more seconds (a lost press never comes). (The unix board
    once merged two queued presses into one on a loaded machine: a hard IRQ handler's pin
    read re-entered the world's update, test_fw_board.py
    ::test_queued_presses_stay_apart_when_an_irq_handler_reads_the_pin.)"""
    want = len(lengths)
    deadline = time.monotonic() + 120
    while _released(fw, hw_from) < want:
        assert time.monotonic() < deadline, (
            f"the mechanics made {_released(fw, hw_from)} of {want} presses in 120 s"
        )
        time.sleep(0.1)
    start = fw.request("status", timeout=30)
    status = start
    while status["presses"] - before < want and time.monotonic() < deadline:
        if status["uptime_ms"] - start["uptime_ms"] >= 2000:
            break
        time.sleep(0.1)
        status = fw.request("status", timeout=30)
    return int(status["presses"]) - before


def _hosted_unarmed(fw: Link) -> None:
    # a press is then a `foul` (not_armed): it is counted, and it moves no motor
    fw.hello()
    assert fw.request("mode", mode="hosted")["ok"]
    fw.drain()


@BOARD
@pytest.mark.parametrize(
    ("cmd", "period_s"), [("status", 0.1), ("config_get", 0.25)], ids=["status", "config_get"]
)
def test_every_press_is_seen_under_a_polling_host(board: str, cmd: str, period_s: float) -> None:
    """Rows 1-2: presses of 30, 40, 60 and 100 ms while the host asks `status` every 100 ms
    or `config_get` every 250 ms; the launcher counts every one."""
    lengths = [ms for _ in range(PRESS_ROUNDS) for ms in PRESS_LENGTHS_MS]
    with board_link(board) as fw:
        seen = presses_under_polling(fw, lengths, cmd, period_s)
        fouls = [ev for ev in fw.events if ev["event"] == "foul"]
        assert seen == len(lengths), (
            f"{seen} of {len(lengths)} presses seen on {board} under {cmd} polling; "
            f"fouls {[ev['n'] for ev in fouls]}"
        )


def presses_under_polling(
    fw: Link, lengths: list[int], cmd: str, period_s: float, **args: Any
) -> int:
    """Presses of ``lengths`` ms while a host polls ``cmd`` (with ``args``): how many the
    launcher counted."""
    _hosted_unarmed(fw)
    before = fw.request("status")["presses"]
    hw_from = len(fw.hw_events())
    with polling(fw, cmd, period_s, **args) as sent:
        for ms in lengths:
            fw.control(f"press {ms}")  # queued: each follows the last after a gap
        wait_chip_ms(fw, sum(lengths) + PRESS_GAP_MS * len(lengths) + 500)
        seen = settled_presses(fw, before, lengths, hw_from)
    assert len(sent) >= 3, "the host did not poll"
    return seen


@BOARD
def test_both_boards_catch_a_loop_that_stops_watching_while_it_writes(
    board: str, tmp_path: Path
) -> None:
    """Issue 20, item 3: the unix board charges every USB write the chip time it costs on
    the rp2 port, so the fast tier finds a deaf loop too. The firmware with its pin IRQs
    off, its output slice unbounded and a byte per write (what it was before issue 20: a
    write of a line at once, issue 32, is too quick to make a loop deaf) loses presses under
    a host polling `config_get`, on both boards."""
    deaf = tmp_path / "deaf"
    shutil.copytree(FIRMWARE, deaf, ignore=shutil.ignore_patterns("__pycache__"))
    app = deaf / "launcher" / "app.py"
    text = app.read_text()
    assert "SLICE_US = 1400" in text and text.count("if board.on_edge(") == 2
    text = text.replace("SLICE_US = 1400", "SLICE_US = 500_000")  # one slice: all of it
    app.write_text(text.replace("if board.on_edge(", "if False and board.on_edge("))
    usb = deaf / "launcher" / "board.py"
    text = usb.read_text()
    one_byte = (
        'TX_CHUNK = 256 if sys.platform == "linux" else 1',
        "if self.fifo is not None and self.fifo.at:",
    )
    assert all(s in text for s in one_byte)
    text = text.replace(one_byte[0], "TX_CHUNK = 1").replace(one_byte[1], "if False:")
    usb.write_text(text)
    lengths = [ms for _ in range(PRESS_ROUNDS) for ms in PRESS_LENGTHS_MS]
    with board_link(board, firmware_dir=deaf) as fw:
        seen = presses_under_polling(fw, lengths, "config_get", 0.25)
        if board == "rp2040":  # and the chip's edge watch credits no IRQ with an edge
            assert fw.sim.inputs_watch().edges == 0  # type: ignore[attr-defined]
    assert seen < len(lengths), f"a deaf loop saw all {seen} presses on {board}"


@BOARD
@pytest.mark.parametrize(
    ("cmd", "period_s"), [("status", 0.05), ("config_get", 0.2)], ids=["status", "config_get"]
)
def test_fire_exact_counts_every_card_under_a_polling_host(
    board: str, cmd: str, period_s: float
) -> None:
    """Rows 3-4: `fire exact 10` at full duty while the host polls: every card that leaves
    the magazine is counted, by the burst's eject or as a `stray`."""
    with board_link(board, cards=60) as fw:
        fw.hello()
        assert fw.request("config_set", config={"motor_duty_pct": 100})["ok"]
        fw.drain()
        before = fw.sim.cards
        out_before = fw.request("status")["cards_out"]
        with polling(fw, cmd, period_s):
            assert fw.request("fire", mode="exact", cards=10, timeout=30)["ok"]
            eject = fw.wait_event("eject", timeout=60)
            wait_chip_ms(fw, 600)  # the brake, the roller coasting, strays reported
        status = fw.request("status")
        out = before - fw.sim.cards
        counted = status["cards_out"] - out_before
        strays = sum(ev["cards"] for ev in fw.events if ev["event"] == "stray")
        assert eject["cards"] == 10 and eject["counted"], eject
        assert out == counted, (
            f"{out} cards out, {counted} counted ({eject['cards']} by the burst, "
            f"{strays} stray) on {board} under {cmd} polling"
        )


@BOARD
def test_a_press_right_after_unstall_is_seen(board: str) -> None:
    """Row 5: the host pauses (its backlog of replies fills the launcher's queue), then reads
    again; a 120 ms press made right then is counted, three times over."""
    rounds = 3
    with board_link(board) as fw:
        _hosted_unarmed(fw)
        before = fw.request("status")["presses"]
        hw_from = len(fw.hw_events())
        for _ in range(rounds):
            fw.sim.stall()
            for i in range(14):  # about 3 KB of replies: more than the queue holds
                fw.send_raw((json.dumps({"id": 900000 + i, "cmd": "status"}) + "\n").encode())
            wait_unread(fw, 0.5)
            fw.sim.unstall()
            fw.control("press 120")
            wait_chip_ms(fw, 120 + 400)
        seen = settled_presses(fw, before, [120] * rounds, hw_from)
        assert seen == rounds, f"{seen} of {rounds} presses right after unstall seen on {board}"


def wait_unread(fw: Link, seconds: float) -> None:
    """Let the board take the requests in while its host does not read (a paused host)."""
    fw.sim.sleep(seconds)


@pytest.mark.rp2040
def test_replies_are_made_in_short_pieces_on_rp2040() -> None:
    """Issue 20, the loop gap: on the rp2040 board (the judge) no loop iteration of a launcher
    answering a polling host holds the inputs unlooked-at for anything like the 16 ms that
    one reply parsed, run and encoded in one go cost. The figure is the firmware's own, in
    the emulated chip's time (``status perf`` ``inputs_gap_us_max``), over windows of
    requests with no garbage collection in them (``gcs``: a collection is one long gap of its
    own, made when the loop is idle: see docs/architecture.md)."""
    with board_link("rp2040") as fw:
        fw.hello(timeout=60)
        gaps: list[int] = []
        for _ in range(6):
            before = fw.request("status", timeout=60, perf=True)["perf"]  # resets the figure
            for cmd in ("config_get", "status", "hello", "status"):
                assert fw.request(cmd, timeout=60)["ok"]
            perf = fw.request("status", timeout=60, perf=True)["perf"]
            if perf["gcs"] == before["gcs"]:
                gaps.append(perf["inputs_gap_us_max"])
        assert len(gaps) >= 3, "a garbage collection in nearly every window"
        assert max(gaps) <= 8000, gaps


# -- how long an input waits for the chip (rp2040: the runner's edge watch) ----------------

WATCH_LIMIT_US = 2000  # issue 20: never unobserved for more than 2 ms of chip time


def _taken(fw: Link, pin: int, want: int, what: str) -> float:
    """The longest wait of the input edges the chip took since the last look, after
    checking that it took ``want`` of them, all on ``pin``."""
    watch = fw.sim.inputs_watch()  # type: ignore[attr-defined]
    assert watch.per_pin == {pin: want}, f"{what}: edges taken {watch.per_pin}, {want} made"
    assert watch.waited_us_max <= WATCH_LIMIT_US, (
        f"{what}: an edge waited {watch.waited_us_max:.0f} us of chip time to be taken"
    )
    return watch.waited_us_max


@pytest.mark.rp2040
def test_every_input_edge_is_taken_within_2_ms_of_chip_time_on_rp2040() -> None:
    """Issue 20, item 1, measured as the issue puts it: on the rp2040 board (the judge) the
    button and the beam are never unobserved for more than 2 ms of chip time, whatever the
    host does. The emulator times each edge from the instant the world makes it to the
    return of the pin interrupt that took it (runner.js, 14.); the firmware's hard IRQ
    timestamps it there. Rows of the issue's table: presses while the host polls
    `config_get`, presses right after `unstall` with a backlog, a burst's beam edges under
    a host polling `status`, and presses while the host asks `status perf` (a garbage
    collection each)."""
    lengths = [30, 40, 60, 100] * 2
    with board_link("rp2040", cards=60) as fw:
        fw.hello(timeout=60)
        fw.sim.inputs_watch()  # type: ignore[attr-defined]
        waits = []
        assert presses_under_polling(fw, lengths, "config_get", 0.25) == len(lengths)
        waits.append(_taken(fw, 15, 2 * len(lengths), "presses under config_get"))

        fw.sim.stall()
        for i in range(14):
            fw.send_raw((json.dumps({"id": 900000 + i, "cmd": "status"}) + "\n").encode())
        wait_unread(fw, 0.5)
        fw.sim.unstall()
        fw.control("press 120")
        wait_chip_ms(fw, 600)
        waits.append(_taken(fw, 15, 2, "a press right after unstall"))

        # each `status perf` runs a garbage collection in the firmware (App.perf)
        assert presses_under_polling(fw, lengths, "status", 0.05, perf=True) == len(lengths)
        waits.append(_taken(fw, 15, 2 * len(lengths), "presses under status perf"))

        before = fw.sim.cards
        with polling(fw, "status", 0.05):
            assert fw.request("fire", mode="exact", cards=10, timeout=30)["ok"]
            fw.wait_event("eject", timeout=60)
            wait_chip_ms(fw, 600)
        waits.append(_taken(fw, 14, 2 * (before - fw.sim.cards), "a burst's cards"))
    assert max(waits) > 0  # the watch measured something


@pytest.mark.rp2040
def test_a_hard_pin_irq_takes_edges_during_garbage_collections_on_rp2040(
    tmp_path: Path,
) -> None:
    """What the firmware's design rests on (docs/architecture.md): on MicroPython's rp2 port
    a hard pin IRQ runs in the middle of a garbage collection, so a collection (about
    12 ms in the launcher) delays what the loop does about an edge, never its timestamp.
    Plain MicroPython collecting a 60 KB live heap back to back while the button is
    pressed: every edge is taken within 2 ms of chip time, by the handler."""
    from rp2_plain import plain_board, run_script

    script = """
import gc, time, machine
from array import array
seen = array('i', [0])
def took(pin):
    seen[0] += 1
button = machine.Pin(15, machine.Pin.IN, machine.Pin.PULL_UP)
button.irq(took, machine.Pin.IRQ_FALLING | machine.Pin.IRQ_RISING, hard=True)
live = [bytearray(64) for _ in range(700)]  # a heap to mark, as the firmware's bytecode
start = time.ticks_ms()
busy = n = 0
while seen[0] < 12 and time.ticks_diff(time.ticks_ms(), start) < 20000:
    t = time.ticks_us()
    gc.collect()
    busy += time.ticks_diff(time.ticks_us(), t)
    n += 1
button.irq(None)  # the count is final: presses the test still makes are not taken
ran_us = time.ticks_diff(time.ticks_ms(), start) * 1000
print('collections', n, 'collecting_us', busy, 'us', ran_us, 'edges', seen[0])
"""
    with plain_board(tmp_path / "flash") as sim:
        result: list[str] = []
        runner = threading.Thread(target=lambda: result.append(run_script(sim.port, script)))
        runner.start()
        # presses made before the IRQ is on are taken by neither (the runner counts edges
        # on watched pins only)
        deadline = time.monotonic() + 120
        sent = 0
        while runner.is_alive() and time.monotonic() < deadline:
            if sent < 12:
                sim.control("press 40")
                sent += 1
            time.sleep(0.5)
        runner.join(timeout=60)
        # one more press after the script stopped counting: its edges must not be taken
        # (a handler left on after the count took them: 13 edges for 12 counted, in CI)
        start = len(sim.hw_events())
        sim.control("press 40")
        sim.wait_hw(lambda e: e.get("hw") == "button" and e.get("down") is False, 30, start)
        watch = sim.inputs_watch()
    words = result[0].split()
    figures = dict(zip(words[::2], (int(w) for w in words[1::2]), strict=True))
    assert figures["edges"] >= 12 and watch.per_pin == {15: figures["edges"]}, (figures, watch)
    assert figures["collections"] >= 5 and figures["collecting_us"] >= 0.8 * figures["us"], figures
    assert 0 < watch.waited_us_max <= WATCH_LIMIT_US, watch
