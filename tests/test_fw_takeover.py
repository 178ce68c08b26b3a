"""Issue 14, fault 5: one stray 0x03 byte stopped the launcher for good (KeyboardInterrupt,
the REPL, the watchdog off, the host's next JSON lines evaluated as Python). The takeover is
now a handshake (docs/protocol.md, "Flashing, safe mode and the watchdog"):

* the ``repl`` request hands the REPL over (motor off, watchdog stopped, reply, then exit);
* tools that know nothing of the protocol take it with what they send anyway: Ctrl-C
  followed within a second by a REPL control byte (mpremote: ``\\r\\x03`` then ``\\r\\x01``;
  Thonny: ``\\x03\\x01``), or Ctrl-C twice (a person at a terminal);
* a single Ctrl-C followed by anything else (a protocol line), or by nothing, is ignored and
  counted (``status`` ``interrupts``).

CPython tests of the handshake's logic, the whole firmware on the unix board over pipes
(where 0x03 is a byte, as on rp2 with the firmware's ``micropython.kbd_intr(-1)``; the unix
port then leaves SIGINT to its default action, and the simulator's relay writes Ctrl-C as a
byte too), both simulated boards with mpremote and a Thonny-like sequence, ``unolaunch
flash`` on the handshake, and the host's reply matching.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest
from board_harness import Link, board_link, board_params, start_board
from fw_fakes import FIRMWARE
from fw_harness import Firmware
from launcher import protocol
from launcher.protocol import TAKEOVER_MS, Takeover
from test_fw_logic import Rig
from unolaunch.link import PROTOCOL_VERSION, open_launcher
from unolaunch.link.protocol import Noise, Reply, parse_line

# -- the handshake's logic -------------------------------------------------------------------


def test_a_single_ctrl_c_before_a_protocol_line_is_ignored_and_counted() -> None:
    t = Takeover()
    assert t.feed(b"\x03", 0) == b""
    assert t.feed(b'{"id": 1, "cmd": "status"}\n', 5) == b'{"id": 1, "cmd": "status"}\n'
    assert t.replay is None and t.interrupts == 1
    assert t.feed(b"\x01", 10) == b"\x01"  # the window closed with the protocol line


def test_a_ctrl_c_inside_a_line_is_dropped_and_the_line_kept() -> None:
    t = Takeover()
    assert t.feed(b'{"id": 1, "cm\x03d": "hello"}\n', 0) == b'{"id": 1, "cmd": "hello"}\n'
    assert t.replay is None


def test_mpremote_ctrl_c_then_raw_repl_takes_over_and_the_ctrl_a_is_handed_back() -> None:
    t = Takeover()
    assert t.feed(b'{"id": 1, "cmd": "status"}\n\r\x03', 0) == b'{"id": 1, "cmd": "status"}\n\r'
    assert t.replay is None
    assert t.feed(b"\r\x01", 3) == b"\r"
    assert t.replay == b"\x01"  # for the REPL: it enters the raw REPL


def test_thonny_ctrl_c_ctrl_a_and_a_double_ctrl_c_take_over() -> None:
    t = Takeover()
    t.feed(b"\x03\x01", 0)
    assert t.replay == b"\x01"
    t = Takeover()
    t.feed(b"\x03\x03\r\n", 0)
    assert t.replay == b"\r\n"
    t = Takeover()
    t.feed(b"\x03", 0)
    t.feed(b"\x03", TAKEOVER_MS - 1)
    assert t.replay == b""


def test_two_stray_bytes_far_apart_are_two_ignored_interrupts() -> None:
    t = Takeover()
    t.feed(b"\x03", 0)
    t.feed(b"\x03", TAKEOVER_MS)
    t.feed(b"\x01", 2 * TAKEOVER_MS)
    assert t.replay is None and t.interrupts == 2


def test_keyboard_interrupts_count_as_ctrl_c() -> None:
    t = Takeover()
    assert not t.ctrl_c(100)
    assert t.ctrl_c(100 + TAKEOVER_MS - 1)
    t = Takeover()
    assert not t.ctrl_c(0)
    assert not t.ctrl_c(TAKEOVER_MS)


def test_the_repl_request_stops_a_burst_and_asks_the_loop_to_leave() -> None:
    req, err = protocol.parse(b'{"id": 4, "cmd": "repl"}')
    assert err is None and req is not None
    rig = Rig()
    rig.req("fire", mode="exact", cards=5)
    rig.run(100)
    assert rig.motor.running
    reply = rig.req("repl")
    assert reply["ok"] is True and reply["repl"] is True
    assert not rig.motor.running and rig.l.repl_at == rig.t
    eject = rig.events("eject")[-1]
    assert eject["cancelled"] is True


def test_status_counts_the_ignored_interrupts() -> None:
    rig = Rig()
    assert rig.req("status")["interrupts"] == 0
    rig.l.interrupts = 2  # the loop keeps it (App: Takeover.interrupts)
    assert rig.req("status")["interrupts"] == 2


# -- the whole firmware on the unix board ---------------------------------------------------


def test_unix_board_a_stray_ctrl_c_byte_changes_nothing() -> None:
    with Firmware() as fw:
        fw.wait_event("boot")
        fw.request("arm", player="Ann", presses=1, mode="exact", cards=2)
        fw.send_raw(b"\x03")
        assert fw.request("status")["state"] == "armed"  # answered: no REPL, no echo
        fw.control("press")
        assert fw.wait_event("eject")["cards"] == 2
        assert fw.request("status")["interrupts"] == 1
        assert fw.proc.poll() is None


def test_unix_board_mpremote_sequence_hands_over_with_the_motor_off() -> None:
    with Firmware(config={"wdt_ms": 500}) as fw:
        fw.wait_event("boot")
        fw.allow_text = True
        fw.request("fire", mode="exact", cards=30)
        time.sleep(0.3)
        fw.send_raw(b"\r\x03")
        fw.send_raw(b"\r\x01")
        assert fw.proc.wait(timeout=10) is not None  # main.py ended: the REPL's turn
        hw = fw.hw_events(0.3)
        assert [h for h in hw if h["hw"] == "motor"][-1]["duty"] == 0.0
        assert not [h for h in hw if h["hw"] == "reset"]  # the watchdog was stopped
        fw.drain()
        assert b"KeyboardInterrupt" in b"".join(fw.raw)


def test_unix_board_repl_request_answers_then_leaves() -> None:
    with Firmware() as fw:
        fw.wait_event("boot")
        fw.request("fire", mode="exact", cards=30)
        time.sleep(0.2)
        assert fw.request("repl") == {"id": 2, "ok": True, "repl": True}
        assert fw.wait_event("eject")["cancelled"] is True
        assert fw.proc.wait(timeout=10) == 0  # a clean exit: no traceback
        hw = fw.hw_events(0.3)
        assert [h for h in hw if h["hw"] == "motor"][-1]["duty"] == 0.0


def test_unix_board_one_ctrl_c_is_ignored_two_hand_over() -> None:
    with Firmware(config={"wdt_ms": 500}) as fw:
        fw.wait_event("boot")
        fw.send_raw(b"\x03")  # a byte, as on rp2 (main.py: micropython.kbd_intr(-1))
        time.sleep(TAKEOVER_MS / 1000 + 0.3)
        assert fw.request("status")["interrupts"] == 1
        assert fw.proc.poll() is None
        fw.allow_text = True
        fw.send_raw(b"\x03")
        time.sleep(0.2)
        fw.send_raw(b"\x03")
        fw.proc.wait(timeout=10)
        assert not [h for h in fw.hw_events(0.3) if h["hw"] == "reset"]


def test_unix_board_firmware_takes_ctrl_c_as_a_byte_not_a_signal() -> None:
    """main.py's first statement, micropython.kbd_intr(-1), on the unix port too: MicroPython
    then leaves SIGINT to its default action (the simulator's relay sends none: it writes
    Ctrl-C as a byte), so a SIGINT is not a Ctrl-C to the firmware any more."""
    with Firmware() as fw:
        fw.wait_event("boot")
        fw.proc.send_signal(signal.SIGINT)
        assert fw.proc.wait(timeout=10) == -signal.SIGINT


# -- both boards ----------------------------------------------------------------------------

BOARD = pytest.mark.parametrize("board", board_params())


def _mpremote(port: str, code: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "mpremote", "connect", port, "exec", code],
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def _text(fw: Link) -> bytes:
    return b"\n".join(fw.lines)


@pytest.mark.timeout(300)
@BOARD
def test_a_stray_ctrl_c_leaves_an_armed_launcher_running(board: str) -> None:
    with board_link(board, cards=40) as fw:
        fw.hello(timeout=60)
        fw.request("arm", player="Ann", presses=1, mode="exact", cards=2)
        fw.send_raw(b"\x03")
        reply = fw.request("status", timeout=30)  # answered, not echoed by a REPL
        assert reply["state"] == "armed" and reply["interrupts"] == 1
        fw.control("press")
        assert fw.wait_event("eject", timeout=60)["cards"] == 2
        # longer than the watchdog (3 s of the board's own time; the emulated chip runs
        # below real time): it must still be fed, nothing resets
        deadline = time.monotonic() + 60
        while fw.request("status", timeout=30)["uptime_ms"] < 4000:
            assert time.monotonic() < deadline
            time.sleep(0.5)
        assert not [ev for ev in fw.hw_events() if ev.get("hw") == "reset"]
        assert b">>>" not in _text(fw) and b"Traceback" not in _text(fw)


@pytest.mark.timeout(300)
@BOARD
def test_thonny_takes_over_a_running_launcher(board: str) -> None:
    with board_link(board) as fw:
        fw.hello(timeout=60)
        # Thonny's _interrupt_to_raw_prompt: Ctrl-C + Ctrl-A, waits 0.05, 0.5, 0.1, 1, 3 s
        for delay in (0.05, 0.5, 0.1, 1.0, 3.0, 5.0):
            fw.send_raw(b"\x03")
            fw.send_raw(b"\x01")
            time.sleep(delay)
            if b"raw REPL; CTRL-B to exit" in _text(fw):
                break
        deadline = time.monotonic() + 20
        while b"raw REPL; CTRL-B to exit" not in _text(fw):
            assert time.monotonic() < deadline, fw.lines[-5:]
            time.sleep(0.1)
        fw.send_raw(b"print(6*7)\x04")
        deadline = time.monotonic() + 20
        while not any(b"OK42" in line for line in fw.lines):
            assert time.monotonic() < deadline, fw.lines[-5:]
            time.sleep(0.1)


@pytest.mark.timeout(400)
@BOARD
def test_the_repl_request_then_mpremote_then_a_soft_reset(board: str) -> None:
    sim = start_board(board)
    try:
        fw = Link(sim)
        try:
            fw.hello(timeout=60)
            fw.request("arm", player="Bo", presses=2)
            assert fw.request("repl", timeout=30) == {
                "id": fw._next_id - 1,
                "ok": True,
                "repl": True,
            }
            time.sleep(5)  # the watchdog was stopped: no reset at the REPL
            assert not [ev for ev in sim.hw_events() if ev.get("hw") == "reset"]
        finally:
            fw.close()
        out = _mpremote(sim.port, "print(6*7)")
        assert out.returncode == 0 and "42" in out.stdout, (out.stdout, out.stderr)
        fw = Link(sim)
        try:
            fw.send_raw(b"\x04")  # soft reset at the friendly REPL: main.py runs again
            cause = fw.hello(timeout=60)["reset_cause"]
            assert cause == "soft"
        finally:
            fw.close()
    finally:
        sim.close()


@pytest.mark.timeout(400)
@BOARD
def test_unolaunch_flash_takes_a_launcher_that_has_run_for_a_while(
    board: str, run_cli: Any, tmp_path: Any
) -> None:
    """A launcher that has run for a while (the unix relay once behaved differently in a
    boot's first 5 s): the flasher gets the board through the ``repl`` request, on both
    boards."""
    sim = start_board(board, flash_dir=tmp_path / "flash", firmware_dir=FIRMWARE)
    try:
        started = time.monotonic()
        fw = Link(sim)
        try:
            fw.hello(timeout=60)
        finally:
            fw.close()
        time.sleep(max(0.0, 6.0 - (time.monotonic() - started)))
        out = run_cli("flash", "--port", sim.port, timeout=300)
        assert out.returncode == 0, out.stderr
        assert "copied" in out.stdout
    finally:
        sim.close()


@pytest.mark.timeout(300)
@BOARD
def test_plain_mpremote_takes_a_launcher_that_has_run_for_a_while(board: str) -> None:
    """mpremote (1.24 and later) sends ``\\r\\x03``, then ``\\r\\x01``, once, and waits for the
    raw REPL's banner: the firmware sees the Ctrl-A after the Ctrl-C, hands the REPL over and
    gives the Ctrl-A back to it (os.dupterm on rp2; the unix port has none, so the unix board
    gives it back through its simulator's relay: issue 19, README's example failed the first
    time)."""
    with board_link(board) as fw:
        fw.hello(timeout=60)
        fw.request("arm", player="Cy", presses=1)
        time.sleep(6)
        port = fw.sim.port
        fw.close()
        out = _mpremote(port, "print(6*7)")
        assert out.returncode == 0 and "42" in out.stdout, (out.stdout, out.stderr)


# -- the host: a reply is a line with ``ok`` ------------------------------------------------


def test_an_echoed_request_is_noise_not_a_reply() -> None:
    echo = parse_line(b'{"id": 5, "cmd": "status"}')
    assert isinstance(echo, Noise)
    assert isinstance(parse_line(b'{"id": 5, "ok": true, "state": "idle"}'), Reply)


@pytest.fixture
def echoing_board() -> Iterator[str]:
    """A pty whose far end echoes every line (as a REPL does) before it answers it."""
    master, slave = os.openpty()
    import tty

    tty.setraw(slave)
    path = os.ttyname(slave)
    stop = threading.Event()

    def board() -> None:
        buf = b""
        while not stop.is_set():
            try:
                import select

                if not select.select([master], [], [], 0.05)[0]:
                    continue
                buf += os.read(master, 4096)
            except OSError:
                return
            *lines, buf = buf.split(b"\n")
            for line in lines:
                if not line.strip():
                    continue
                os.write(master, line + b"\r\n")  # the echo comes first, with the same id
                time.sleep(0.05)
                req = json.loads(line)
                reply: dict[str, Any] = {"id": req["id"], "ok": True}
                if req["cmd"] == "hello":
                    reply.update(protocol=PROTOCOL_VERSION, firmware="echo", board="unix-sim")
                    reply.update(capabilities=[], config_status="ok", config_errors=[])
                    reply.update(mode="standalone", max_line=1024)
                else:
                    reply.update(state="idle", answered=req["cmd"])
                os.write(master, json.dumps(reply).encode() + b"\n")

    thread = threading.Thread(target=board, daemon=True)
    thread.start()
    try:
        yield path
    finally:
        stop.set()
        thread.join(timeout=2)
        os.close(master)
        os.close(slave)


def test_the_client_takes_only_a_line_with_ok_as_the_reply(echoing_board: str) -> None:
    with open_launcher(echoing_board, timeout=2.0, reconnect=False) as client:
        reply = client.request("status")
        assert reply["answered"] == "status" and reply["ok"] is True


@pytest.mark.timeout(400)
@BOARD
@pytest.mark.parametrize("when", ["running", "0.3s-after-reset"])
def test_mpremote_takes_over_then_a_soft_reset_reads_soft(board: str, when: str) -> None:
    """Issue 20 item 5: after a Ctrl-C takeover (mpremote's own, no ``repl`` request) and a
    Ctrl-D at the friendly REPL, ``hello`` says ``reset_cause: "soft"`` on both boards. The
    rp2 board said ``power_on`` when the Ctrl-C came while main.py was still importing the
    firmware: MicroPython stopped main.py before the firmware could mark its hand-over
    (board.mark_repl); main.py now turns Ctrl-C into a byte first of all (item 4)."""
    with board_link(board) as fw:
        fw.hello(timeout=60)
        port = fw.sim.port
        fw.close()
        if when == "running":
            time.sleep(2)
        else:
            fw.sim.reset()
            time.sleep(0.3)
        out = _mpremote(port, "print(6*7)")
        assert out.returncode == 0 and "42" in out.stdout, (out.stdout, out.stderr)
        fw = Link(fw.sim)
        try:
            fw.send_raw(b"\x04")  # soft reset at the friendly REPL: main.py runs again
            hello = fw.hello(timeout=60)
            assert hello["reset_cause"] == "soft", hello
        finally:
            fw.close()
