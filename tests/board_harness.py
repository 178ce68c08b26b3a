"""Both simulated boards behind one driver, for the differential tier (tests/test_boards.py).

``unix``: the firmware in MicroPython's unix port with the fake ``machine``;
``rp2040``: MicroPython's real rp2 port in an emulated RP2040 (unolaunch.sim.rp2040). Both
are :class:`unolaunch.sim.SimBoard`s behind a real pty; :class:`Link` speaks to either over
pyserial with the line-level API of ``fw_harness.Firmware`` (request, wait_event, control,
hw_events...), so one test function runs on both boards and any difference between the fake
board and the rp2 port fails a test.

The rp2040 board needs node 18+, the rp2040js npm package (installed into ``.cache/`` on
first use) and the MicroPython ``.uf2`` + boot ROM in ``UNOLAUNCH_RP2_DIR``. Without them the
rp2040 tests are skipped with the reason, except under ``CI=true``, where they fail with it.
"""

from __future__ import annotations

import contextlib
import json
import os
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import serial
from unolaunch.sim import SimBoard, SimError, make_launcher

REPO = Path(__file__).resolve().parents[1]
BOARDS = ("unix", "rp2040")

# The emulator and the stubs install into the checkout's cache, never globally.
os.environ.setdefault("UNOLAUNCH_CACHE_DIR", str(REPO / ".cache"))

_rp2040_problem: list[str | None] = []


def rp2040_problem() -> str | None:
    """Why the rp2040 board cannot run here (None: it can). Installs rp2040js on first use."""
    if not _rp2040_problem:
        from unolaunch.sim.rp2040 import ensure_rp2040js, find_node, find_rp2_files

        try:
            find_rp2_files()
            find_node()
            ensure_rp2040js()
            _rp2040_problem.append(None)
        except SimError as exc:
            _rp2040_problem.append(str(exc))
    return _rp2040_problem[0]


def require_board(board: str) -> None:
    """Skip (or, under CI=true, fail) a test on a board this machine cannot run."""
    if board != "rp2040":
        return
    problem = rp2040_problem()
    if problem is None:
        return
    if os.environ.get("CI") == "true":
        pytest.fail(f"the rp2040 tier cannot run in CI: {problem}", pytrace=False)
    pytest.skip(f"rp2040 board unavailable: {problem}")


def board_params() -> list[Any]:
    """``@pytest.mark.parametrize("board", board_params())``: both boards, the emulated
    one marked ``rp2040`` (``pytest -m rp2040`` runs that tier alone)."""
    return [
        pytest.param("unix", id="unix"),
        pytest.param("rp2040", id="rp2040", marks=pytest.mark.rp2040),
    ]


def settled(sim: SimBoard) -> None:
    """Wait until the roller has stood still for 0.5 s of the board's time (every burst
    over and braked, one a crash left running too: on the emulated chip, whose clock runs
    slower than the host's, 0.5 s of the host's was sometimes not)."""
    deadline = sim.deadline(60)
    while deadline.left() > 0:
        events = sim.hw_events()
        motor = [e for e in events if e.get("hw") == "motor"]
        if not motor or not motor[-1].get("duty"):
            sim.sleep(0.5)
            if len(sim.hw_events()) == len(events):
                return
        else:
            time.sleep(0.05)
    raise AssertionError("the roller never stopped")


def start_board(board: str, **kwargs: Any) -> SimBoard:
    """A started simulated launcher on ``board`` (skips/fails as :func:`require_board`)."""
    require_board(board)
    return make_launcher(board, **kwargs).start()


class Link:
    """The host side of a simulated launcher's serial port, line by line."""

    def __init__(
        self, sim: SimBoard, open_timeout: float = 10.0, device: str | None = None
    ) -> None:
        self.sim = sim
        self.device = device or sim.port  # (sim.uart_port: the host on the board's UART)
        self.lines: list[bytes] = []  # every line received, in order
        self.events: list[dict[str, Any]] = []
        self._pending: list[dict[str, Any]] = []
        self._queue: list[dict[str, Any]] = []
        self._cond = threading.Condition()
        self._next_id = 1000
        self._stop = False
        self.allow_text = True  # a REPL's text lines are kept, as {"text": ...}
        self.port = self._open(open_timeout)
        self._thread = threading.Thread(target=self._reader, daemon=True)
        self._thread.start()

    def _open(self, timeout: float) -> Any:
        deadline = time.monotonic() + timeout
        while True:
            try:
                return serial.serial_for_url(self.device, baudrate=115200, timeout=0.05)
            except (serial.SerialException, OSError, SimError):
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.05)

    def _reader(self) -> None:
        buf = b""
        while not self._stop:
            try:
                data = self.port.read(4096)
            except (serial.SerialException, OSError, TypeError):
                time.sleep(0.05)
                continue
            if not data:
                continue
            buf += data
            *lines, buf = buf.split(b"\n")
            for raw in lines:
                self._line(raw.rstrip(b"\r"))

    def _line(self, raw: bytes) -> None:
        if not raw.strip():
            return
        try:
            msg = json.loads(raw)
        except ValueError:
            msg = {"text": raw.decode("utf-8", "replace")}
        if not isinstance(msg, dict):
            msg = {"text": raw.decode("utf-8", "replace")}
        with self._cond:
            self.lines.append(raw)
            if "event" in msg:
                self.events.append(msg)
                self._pending.append(msg)
            self._queue.append(msg)
            self._cond.notify_all()

    # -- the Firmware API ----------------------------------------------------
    def wait_event(self, name: str, timeout: float = 10.0) -> dict[str, Any]:
        """The next not-yet-consumed event called ``name``, within ``timeout`` seconds of
        the board's own time (every wait here is: the emulated chip on a busy host runs far
        below real time, and what a test waits for is what the chip does)."""
        deadline = self.sim.deadline(timeout)
        with self._cond:
            while True:
                for i, ev in enumerate(self._pending):
                    if ev["event"] == name:
                        del self._pending[i]
                        return ev
                left = deadline.left()
                if left <= 0:
                    raise AssertionError(
                        f"no {name!r} event within {timeout}s on {self.sim.board}; "
                        f"pending {self._pending}; last lines {self.lines[-5:]}"
                    )
                self._cond.wait(left)

    def drain(self, quiet: float = 0.3) -> list[dict[str, Any]]:
        """Lines until the board is quiet for ``quiet`` seconds of its own time."""
        got: list[dict[str, Any]] = []
        with self._cond:
            while True:
                n = len(self._queue)
                deadline = self.sim.deadline(quiet)
                while len(self._queue) == n and (left := deadline.left()) > 0:
                    self._cond.wait(left)
                if len(self._queue) == n:
                    got, self._queue = self._queue, []
                    return got

    def send_raw(self, data: bytes) -> None:
        """Bytes to the board, as a host writes them."""
        self.port.write(data)
        self.port.flush()

    def reply_to(self, req_id: Any, timeout: float = 10.0) -> dict[str, Any]:
        """The reply with ``id`` (a line with ``ok``; an echo of the request is not one).
        ``req_id`` may be a set: a reply to any of those ids."""
        ids = req_id if isinstance(req_id, set) else {req_id}
        deadline = self.sim.deadline(timeout)
        with self._cond:
            while True:
                for i, msg in enumerate(self._queue):
                    if "event" not in msg and "ok" in msg and msg.get("id") in ids:
                        del self._queue[: i + 1]
                        return msg
                left = deadline.left()
                if left <= 0:
                    raise AssertionError(
                        f"no reply to id {req_id} within {timeout}s on {self.sim.board}; "
                        f"last lines {self.lines[-5:]}"
                    )
                self._cond.wait(left)

    def request(self, cmd: str, timeout: float = 10.0, **args: Any) -> dict[str, Any]:
        """Send a request and return its reply."""
        req_id = self._next_id
        self._next_id += 1
        self.send_raw((json.dumps({"id": req_id, "cmd": cmd, **args}) + "\n").encode())
        return self.reply_to(req_id, timeout)

    def hello(self, timeout: float = 30.0) -> dict[str, Any]:
        """``hello`` once the firmware answers (it may still be booting): one request,
        answered by the boot that reads it (what a host writes while a board starts is kept
        for it, test_boards.py::test_what_a_host_writes_while_the_board_restarts_...)."""
        req = self._next_id
        self._next_id += 1
        self.send_raw(b"\n" + json.dumps({"id": req, "cmd": "hello"}).encode() + b"\n")
        return self.reply_to(req, timeout)

    def control(self, line: str) -> None:
        """A line to the launcher's mechanics (``press``, ``jam``, ``load 5``...)."""
        self.sim.control(line)

    def hw_events(self) -> list[dict[str, Any]]:
        """Hardware reports so far."""
        return self.sim.hw_events()

    def close(self) -> None:
        """Stop reading and close the port."""
        self._stop = True
        self._thread.join(timeout=2)
        with contextlib.suppress(Exception):
            self.port.close()


@contextlib.contextmanager
def board_link(board: str, **kwargs: Any) -> Iterator[Link]:
    """A started board on ``board`` and a :class:`Link` to it; both closed afterwards."""
    sim = start_board(board, **kwargs)
    link = None
    try:
        link = Link(sim)
        yield link
    finally:
        if link is not None:
            link.close()
        sim.close()


class ScriptedPerson:
    """The person :func:`unolaunch.selftest.run_selftest` asks for, played on a simulated
    board: a card pushed through the beam, the button pressed when told; every question
    answered yes."""

    def __init__(self, sim: SimBoard) -> None:
        self.sim = sim

    def tell(self, message: str) -> None:
        """Do what the self-test asks of the person's hands."""
        if "push a card" in message:
            self.sim.control("beam block")
            time.sleep(0.3)
            self.sim.control("beam clear")
        elif "press the launcher's button" in message:
            self.sim.control("press")

    def ask(self, question: str) -> bool:
        """Yes: the roller turned, the buzzer beeped, the LED blinked."""
        return True

    def result(self, check: Any) -> None:
        """(Results are read from run_selftest's return value.)"""
