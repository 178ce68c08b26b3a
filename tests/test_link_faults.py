"""A board that misbehaves in ways the real firmware never does, on a real pty: garbage and
truncated lines, a reply that never comes, a board that never answers, an incompatible
firmware; and ports that are not there."""

from __future__ import annotations

import json
import os
import sys
import threading
import time
import tty
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from conftest import RunCli
from unolaunch.link import (
    IncompatibleFirmwareError,
    LauncherClient,
    NoReplyError,
    PortInfo,
    PortNotFoundError,
    open_launcher,
    resolve_port,
)
from unolaunch.link.client import START_WAIT_S

Script = Callable[[dict[str, Any]], bytes]
MPREMOTE = (sys.executable, "-m", "mpremote")


BAD_LINE = b'{"id": null, "ok": false, "error": "bad_json", "message": "not a JSON line"}\n'


class FakeBoard:
    """A misbehaving board on a real pty, for what the real firmware never does: ``script``
    turns each request into the exact bytes to send back (b"" for silence)."""

    def __init__(self, script: Script) -> None:
        self.script = script
        self.master, slave = os.openpty()
        tty.setraw(slave)
        self.port = os.ttyname(slave)
        self.slave = slave  # kept open, as the simulator does
        self.requests: list[dict[str, Any]] = []
        self._stop = False
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        import select

        buf = b""
        while not self._stop:
            ready, _, _ = select.select([self.master], [], [], 0.05)
            if not ready:
                continue
            try:
                buf += os.read(self.master, 4096)
            except OSError:
                return
            while b"\n" in buf:
                line, buf = buf.split(b"\n", 1)
                try:
                    req = json.loads(line)
                except ValueError:
                    if line.strip():  # as the firmware does: an error nobody's id is on
                        os.write(self.master, BAD_LINE)
                    continue
                self.requests.append(req)
                out = self.script(req)
                if out:
                    os.write(self.master, out)

    def close(self) -> None:
        self._stop = True
        self._thread.join()
        os.close(self.master)
        os.close(self.slave)


HELLO = {
    "firmware": "0.1.0",
    "protocol": 1,
    "board": "fake",
    "capabilities": [],
    "mode": "standalone",
}


def reply(req: dict[str, Any], **fields: Any) -> bytes:
    return json.dumps({"id": req["id"], "ok": True, **fields}).encode() + b"\n"


@pytest.fixture
def fake() -> Iterator[Callable[[Script], FakeBoard]]:
    boards: list[FakeBoard] = []

    def make(script: Script) -> FakeBoard:
        boards.append(FakeBoard(script))
        return boards[-1]

    yield make
    for b in boards:
        b.close()


def test_garbage_and_truncated_lines_are_skipped_and_nothing_is_lost(
    fake: Callable[[Script], FakeBoard],
) -> None:
    def script(req: dict[str, Any]) -> bytes:
        if req["cmd"] == "hello":
            return b"\x00\xff\xfeline noise\r\n" + reply(req, **HELLO)
        return (
            b'{"id": 999, "ok": tr'  # a line cut short...
            b"\n\x1b[2J Traceback (most recent call last):\r\n"
            b'{"event": "press", "t": 5, "n": 1, "player": null, "owed": null}\n'
            b'{"id": 12345, "ok": true}\n'  # a stale reply to nobody
            + b"x" * 70000  # an endless line
            + b"\n"
            + reply(req, state="idle", armed=None)
        )

    noise: list[str] = []
    board = fake(script)
    with LauncherClient(board.port, timeout=2, on_noise=noise.append) as client:
        assert client.status()["state"] == "idle"
        assert client.status()["state"] == "idle"
        # The event in the middle of the garbage is delivered, once per status.
        assert [e["event"] for e in client.events(timeout=0.2)] == ["press", "press"]
    assert any("line noise" in n for n in noise)
    assert any("Traceback" in n for n in noise)


NO_REPLY_ADVICE = (
    "unplug the launcher and plug it back in; if it stays silent, run 'unolaunch flash'"
)


def test_a_reply_that_never_comes_times_out_with_a_clear_message(
    fake: Callable[[Script], FakeBoard],
) -> None:
    def script(req: dict[str, Any]) -> bytes:
        if req["cmd"] == "hello":
            return reply(req, **HELLO)
        return b'{"id": %d, "ok": tr' % req["id"]  # truncated forever

    board = fake(script)
    with LauncherClient(board.port, timeout=0.3, reconnect=False) as client:
        started = time.monotonic()
        with pytest.raises(NoReplyError) as err:
            client.status()
        assert time.monotonic() - started < 2
    assert NO_REPLY_ADVICE in str(err.value)


def test_a_board_at_the_micropython_prompt_is_told_the_firmware_is_missing() -> None:
    """A silent launcher is told to power-cycle; one that shows MicroPython's prompt runs
    MicroPython without the launcher firmware: flashing is the fix (issue 12)."""
    err = NoReplyError("/dev/ttyACM0", "hello", 2.0, seen=">>> ")
    assert str(err).endswith(
        ": MicroPython answers, but not the launcher firmware: run 'unolaunch flash'"
    )
    assert (
        err.detail == "no reply from the launcher on /dev/ttyACM0 to hello within 2 s "
        "(it printed: >>> )"
    )
    silent = NoReplyError("/dev/ttyACM0", "hello", 2.0)
    assert str(silent) == f"{silent.detail}: {NO_REPLY_ADVICE}"


def test_a_board_that_never_answers(fake: Callable[[Script], FakeBoard], run_cli: RunCli) -> None:
    board = fake(lambda req: b"")
    waits: list[str] = []
    with pytest.raises(NoReplyError) as err:
        open_launcher(board.port, timeout=0.4, start_wait=0.5, on_wait=waits.append)
    # the hello, the REPL probe, then the wait for a start that never came: 1.3 s in all
    assert str(err.value).startswith(
        f"no reply from the launcher on {board.port} to hello within 1.3 s"
    )
    assert waits == [
        f"the launcher on {board.port} has not answered yet: waiting up to 0.5 s for it to start…"
    ]
    # a silent board needs a power cycle, then a flash: safe mode is advice for a firmware
    # that will not let go of the REPL (issue 12), not for one that says nothing
    assert NO_REPLY_ADVICE in str(err.value) and "safe mode" not in str(err.value)
    proc = run_cli("monitor", "--port", board.port, "--timeout", "0.4", timeout=60)
    assert proc.returncode == 1
    waited, error = proc.stderr.splitlines()
    assert waited.endswith(f"waiting up to {START_WAIT_S:g} s for it to start…")
    assert error.startswith("unolaunch: no reply") and "unolaunch flash" in error
    assert "Traceback" not in proc.stderr


def test_incompatible_firmware_is_refused_with_what_to_do(
    fake: Callable[[Script], FakeBoard],
) -> None:
    board = fake(lambda req: reply(req, **{**HELLO, "protocol": 4, "firmware": "9.0"}))
    with pytest.raises(IncompatibleFirmwareError, match="run 'unolaunch flash'") as err:
        open_launcher(board.port, timeout=1)
    assert "protocol 4" in str(err.value) and "9.0" in str(err.value)
    assert "speaks protocol 1, 2 or 3" in str(err.value)
    other = fake(
        lambda req: (
            json.dumps(
                {"id": req["id"], "ok": False, "error": "unknown_cmd", "message": "what?"}
            ).encode()
            + b"\n"
        )
    )
    with pytest.raises(IncompatibleFirmwareError, match="unolaunch flash"):
        open_launcher(other.port, timeout=1)


def test_a_v1_firmware_still_plays_and_the_self_test_commands_ask_for_a_flash(
    fake: Callable[[Script], FakeBoard],
) -> None:
    # issue 14, fault 8: the host's hello asks for protocol 2; a firmware that only speaks 1
    # ignores the field and answers 1, and everything of v1 keeps working
    asked: list[dict[str, Any]] = []

    def script(req: dict[str, Any]) -> bytes:
        asked.append(req)
        if req["cmd"] == "hello":
            return reply(req, **HELLO)
        return reply(req, state="idle")

    board = fake(script)
    with open_launcher(board.port, timeout=1) as client:
        assert asked[-1]["cmd"] == "hello" and asked[-1]["protocol"] == 3
        assert client.info["protocol"] == 1
        assert client.stop()["state"] == "idle"
        for call in (lambda: client.test("led", 100), client.inputs):
            with pytest.raises(IncompatibleFirmwareError, match="run 'unolaunch flash'"):
                call()
    assert not [r for r in asked if r["cmd"] in ("test", "inputs")]  # never sent


def test_no_such_port_and_auto_detection_messages() -> None:
    with pytest.raises(PortNotFoundError, match="is the launcher plugged in"):
        open_launcher("/dev/ttyNOPE9", timeout=0.5, port_wait=0.2)
    ports = [PortInfo("/dev/ttyS0", description="n/a"), PortInfo("/dev/ttyUSB0", 0x0403, 0x6001)]
    with pytest.raises(PortNotFoundError) as none:
        resolve_port("auto", lambda: ports)
    assert "2E8A:0005" in str(none.value) and "/dev/ttyUSB0 (0403:6001)" in str(none.value)
    picos = [
        *ports,
        PortInfo("/dev/ttyACM0", 0x2E8A, 5, "E660"),
        PortInfo("/dev/ttyACM1", 0x2E8A, 5),
    ]
    with pytest.raises(PortNotFoundError) as several:
        resolve_port("auto", lambda: picos)
    assert "2 launchers found" in str(several.value)
    assert "/dev/ttyACM0 (2E8A:0005, serial E660)" in str(several.value)
    assert resolve_port("auto", lambda: picos[:3]) == "/dev/ttyACM0"
    assert resolve_port("loop://", lambda: []) == "loop://"


def test_hello_glued_to_garbage_in_the_board_is_retried(
    fake: Callable[[Script], FakeBoard],
) -> None:
    hellos = 0

    def script(req: dict[str, Any]) -> bytes:
        nonlocal hellos
        if req["cmd"] == "hello":
            hellos += 1
            if hellos == 1:  # as if "\x02" from a terminal came before our line
                return b'{"id": null, "ok": false, "error": "bad_json", "message": "x"}\n'
        return reply(req, **HELLO)

    board = fake(script)
    with open_launcher(board.port, timeout=1) as client:
        assert client.info["board"] == "fake"
    assert hellos == 2


def test_whatever_the_board_answers_only_unolaunch_errors_come_out(
    fake: Callable[[Script], FakeBoard],
) -> None:
    """A board answering every request with random bytes (or valid JSON of the wrong
    shape): the client returns a reply or raises one of its own errors, never anything
    else (no tracebacks for users)."""
    import random

    from unolaunch.errors import UnolaunchError

    rng = random.Random(4)
    pieces = [
        b"\x00\xff garbage\n",
        b'{"id": 1, "ok": tr',
        b"[]\n",
        b'{"ok": true}\n',
        b'{"id": null, "ok": false, "error": "bad_json"}\n',
        b'{"event": "boot", "t": 1}\n',
        b'{"event": "press", "t": 2, "n": 1, "player": "Ann", "owed": 0}\n',
        b">>> ",
        b"\n",
        b'{"id": 99999, "ok": true}\n',
    ]

    def script(req: dict[str, Any]) -> bytes:
        if req["cmd"] == "hello" and rng.random() < 0.7:
            return reply(req, **HELLO)
        out = b"".join(rng.choice(pieces) for _ in range(rng.randrange(0, 4)))
        if rng.random() < 0.5:
            out += json.dumps({"id": req["id"], "ok": rng.random() < 0.5}).encode() + b"\n"
        return out

    board = fake(script)
    outcomes: set[str] = set()
    for _ in range(40):
        try:
            client = LauncherClient(board.port, timeout=0.15, reconnect_timeout=0.3, start_wait=0.3)
            with client:
                client.status()
                client.arm("Ann", presses=1)
                list(client.events(timeout=0.05))
            outcomes.add("ok")
        except UnolaunchError as exc:
            outcomes.add(type(exc).__name__)
    assert "ok" in outcomes and len(outcomes) > 1  # both paths were exercised


def test_an_event_that_never_comes_is_named_plainly() -> None:
    """Issue 19: wait_for said "no reply from the launcher on P to waiting for the awaited
    event"; it says which event did not come."""
    from unolaunch.link import NoEventError

    err = NoEventError("/dev/ttyACM0", "'eject' event", 20.0)
    assert isinstance(err, NoReplyError)
    assert err.detail == "the launcher on /dev/ttyACM0 sent no 'eject' event within 20 s"
    assert "to waiting for" not in str(err)


@pytest.mark.parametrize("answers_early_hello", [True, False])
def test_a_launcher_that_is_starting_is_waited_for_until_its_boot_event(
    fake: Callable[[Script], FakeBoard], answers_early_hello: bool
) -> None:
    """Issue 31: a launcher just reset (or plugged in, or reset by its watchdog) says
    nothing until its firmware runs; then it announces itself with a `boot` event. Opening
    it waits for that (saying so), past the hello's own timeout and the REPL probe, then
    shakes hands: it does not give up after a fixed guess. Whether the board later answers
    the hellos it got while starting or drops them, the handshake is the one after boot."""
    started = time.monotonic()
    up_after_s = 1.5  # longer than the hello and the probe (0.4 s each)

    def script(req: dict[str, Any]) -> bytes:
        if time.monotonic() - started < up_after_s:
            return b""  # starting: deaf
        return reply(req, **HELLO) if req["cmd"] == "hello" else reply(req, state="idle")

    board = fake(script)

    def boot_when_up() -> None:
        time.sleep(up_after_s)
        os.write(board.master, json.dumps({"event": "boot", **HELLO}).encode() + b"\n")
        if answers_early_hello:
            for req in list(board.requests):
                os.write(board.master, reply(req, **HELLO))

    threading.Thread(target=boot_when_up, daemon=True).start()
    waits: list[str] = []
    with open_launcher(board.port, timeout=0.4, on_wait=waits.append) as client:
        assert client.info["board"] == "fake"
        assert client.status()["state"] == "idle"
    assert time.monotonic() - started >= up_after_s
    assert waits == [
        f"the launcher on {board.port} has not answered yet: waiting up to {START_WAIT_S:g} s "
        "for it to start…"
    ]


def test_a_device_that_is_not_there_yet_is_waited_for(
    fake: Callable[[Script], FakeBoard], tmp_path: Path
) -> None:
    """A Pico's port goes away when it resets and comes back a second later: a device path
    that appears within PORT_WAIT_S is opened (the wait said), one that never does is the
    usual 'no serial device' error."""
    from unolaunch.link.client import PORT_WAIT_S

    board = fake(lambda req: reply(req, **HELLO))
    link = tmp_path / "ttyACM0"
    threading.Timer(1.0, lambda: link.symlink_to(board.port)).start()
    waits: list[str] = []
    try:
        with open_launcher(str(link), timeout=1, on_wait=waits.append) as client:
            assert client.info["board"] == "fake"
    finally:
        link.unlink()
    assert waits == [
        f"waiting for {link} to appear (a launcher that was just reset or plugged in takes "
        "about a second)…"
    ]
    started = time.monotonic()
    with pytest.raises(PortNotFoundError):
        open_launcher(str(link), timeout=1)
    assert time.monotonic() - started >= PORT_WAIT_S


def test_a_reply_that_comes_slowly_is_waited_for_while_it_comes(
    fake: Callable[[Script], FakeBoard],
) -> None:
    """Issue 31: the timeout is for silence. A board in the middle of its reply (the
    emulated chip on a busy host wrote a 400-byte hello at a few bytes a second) is
    answering; giving up halfway through the line was a flake. One that stops halfway
    still times out (test_a_reply_that_never_comes_times_out_with_a_clear_message)."""

    def dribble(data: bytes, master: int) -> None:
        for i in range(0, len(data), 8):
            time.sleep(0.05)
            os.write(master, data[i : i + 8])

    def script(req: dict[str, Any]) -> bytes:
        if req["cmd"] == "hello":
            return reply(req, **HELLO)
        slow = reply(req, state="idle", armed=None, pad="x" * 200)  # ~1.5 s in all
        threading.Thread(target=dribble, args=(slow, board.master), daemon=True).start()
        return b""

    board = fake(script)
    with LauncherClient(board.port, timeout=0.4, reconnect=False) as client:
        started = time.monotonic()
        assert client.status()["pad"] == "x" * 200
        assert time.monotonic() - started > 0.4  # longer than the timeout, all of it talk


def test_a_reply_read_after_a_boot_event_waits_for_the_arming_to_be_restored(
    fake: Callable[[Script], FakeBoard],
) -> None:
    """Issue 31 (a loaded CI run: test_board_reset_mid_command_is_recovered_and_arming_restored):
    a launcher that restarts with a request of ours unread reads it after its boot and
    answers it, unarmed. When its `boot` event and that reply come in one read, the reply
    must not be taken as the answer while the arming is lost: the link is restored first
    (hello, the arming again), then the request goes again - and says what is armed."""
    armed: dict[str, Any] = {}
    restarted = threading.Event()

    def script(req: dict[str, Any]) -> bytes:
        cmd = req["cmd"]
        if cmd == "hello":
            return reply(req, **HELLO)
        if cmd == "arm":
            armed.update(player=req["player"], presses=req.get("presses", 1), mode="random")
            return reply(req, armed=dict(armed), state="armed")
        if cmd == "status" and armed and not restarted.is_set():
            restarted.set()  # the board restarts: the arming is gone, the request read after
            armed.clear()
            boot = json.dumps({"event": "boot", **HELLO}).encode() + b"\n"
            return boot + reply(req, state="idle", mode="standalone", armed=None)
        if cmd == "status":
            return reply(req, state="armed" if armed else "idle", armed=dict(armed) or None)
        return reply(req)

    board = fake(script)
    links: list[dict[str, Any]] = []
    with open_launcher(board.port, timeout=2) as client:
        client.on_event(lambda e: links.append(e) if e["event"] == "link" else None)
        client.arm("Dee", presses=3)
        status = client.status()
    assert restarted.is_set()
    assert status["state"] == "armed" and status["armed"]["player"] == "Dee", status
    assert [e["state"] for e in links] == ["restored"], links
    assert [r["cmd"] for r in board.requests].count("arm") == 2  # armed, then restored
