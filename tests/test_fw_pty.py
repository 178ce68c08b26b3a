"""The real firmware behind a real pty (unolaunch.sim.SimulatedLauncher), spoken to with
pyserial and interrupted with mpremote, as a host does with a Pico on USB."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import serial
from fw_harness import FIRMWARE, load_examples, matches
from unolaunch.sim import SimulatedLauncher


class PtyHost:
    """A minimal JSON-lines host on pyserial (the link package has the real client)."""

    def __init__(self, sim: SimulatedLauncher) -> None:
        self.sim = sim
        self.port = serial.serial_for_url(sim.port, timeout=0.2)
        self.pending: list[dict[str, Any]] = []
        self._next = 1000

    def send_raw(self, data: bytes) -> None:
        self.port.write(data)

    def read(self, timeout: float = 5.0) -> dict[str, Any]:
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            raw = self.port.readline()
            if raw.strip():
                msg: dict[str, Any] = json.loads(raw)
                return msg
        raise AssertionError(f"nothing from the launcher within {timeout}s")

    def reply_to(self, req_id: Any, timeout: float = 5.0) -> dict[str, Any]:
        end = time.monotonic() + timeout
        while True:
            msg = self.read(max(0.1, end - time.monotonic()))
            if "event" in msg:
                self.pending.append(msg)
            elif msg.get("id") == req_id:
                return msg

    def request(self, cmd: str, **args: Any) -> dict[str, Any]:
        self._next += 1
        self.send_raw((json.dumps({"id": self._next, "cmd": cmd, **args}) + "\n").encode())
        return self.reply_to(self._next)

    def wait_event(self, name: str, timeout: float = 5.0) -> dict[str, Any]:
        end = time.monotonic() + timeout
        while True:
            for i, ev in enumerate(self.pending):
                if ev["event"] == name:
                    return self.pending.pop(i)
            msg = self.read(max(0.1, end - time.monotonic()))
            if "event" in msg:
                self.pending.append(msg)

    def close(self) -> None:
        self.port.close()


@pytest.fixture
def host() -> Iterator[PtyHost]:
    with SimulatedLauncher(firmware_dir=FIRMWARE, cards=112) as sim:
        h = PtyHost(sim)
        try:
            yield h
        finally:
            h.close()


def test_examples_over_a_real_pty(host: PtyHost) -> None:
    assert host.request("hello")["board"] == "unix-sim"
    for ex in load_examples():
        if "send" in ex:
            host.send_raw(ex["send"].encode() + b"\n")
            reply = host.reply_to(ex["reply"]["id"])
            assert matches(ex["reply"], reply), (ex, reply)
        else:
            host.sim.control(ex["control"])
        for want in ex.get("events", []):
            got = host.wait_event(want["event"])
            assert matches(want, got), (ex, got)


def test_press_over_the_pty_reaches_the_motor(host: PtyHost) -> None:
    host.request("arm", player="Ann", presses=1, mode="exact", cards=3)
    host.sim.control("press")
    assert host.wait_event("press")["player"] == "Ann"
    eject = host.wait_event("eject")
    assert eject["cards"] == 3 and eject["counted"] is True
    kinds = [h["hw"] for h in host.sim.hw_events()]
    assert kinds.count("card") == 3 and "motor" in kinds
    assert host.sim.cards == 109


def _mpremote(port: str, code: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "mpremote", "connect", port, "exec", code],
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_mpremote_interrupts_the_firmware_and_the_watchdog_does_not_cut_it_short(
    tmp_path: Path,
) -> None:
    flash = tmp_path / "flash"
    with SimulatedLauncher(flash_dir=flash, firmware_dir=FIRMWARE) as sim:
        host = PtyHost(sim)
        assert host.request("config_set", config={"wdt_ms": 500})["ok"]
        host.pending.clear()  # forget the first boot
        host.request("reset")
        assert host.wait_event("boot", timeout=15)["config_status"] == "ok"
        assert host.request("hello")["config_status"] == "ok"
        host.request("fire", mode="exact", cards=30)
        host.close()
        time.sleep(0.2)
        # Ctrl-C from mpremote lands mid-burst; then a REPL session three times longer than
        # the watchdog timeout, touching the board so that a live watchdog would fire
        proc = _mpremote(
            sim.port,
            "import time, machine\ntime.sleep_ms(1500)\nprint('alive', machine.Pin(15).value())",
        )
        assert proc.returncode == 0, proc.stderr
        assert "alive 1" in proc.stdout
        hw = sim.hw_events()
        assert not [h for h in hw if h.get("hw") == "reset" and h.get("cause") == "wdt"]
        motors = [h for h in hw if h.get("hw") == "motor"]
        assert motors[-1]["duty"] == 0.0  # the interrupted burst's motor is off
