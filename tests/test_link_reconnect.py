"""What goes wrong with a real launcher on a cable, against the simulator running the real
firmware: a board reset mid-command, unplug/replug during a game (many times), a board
sitting at the REPL, two programs on one port, a launcher that does not come back."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest
from conftest import RunCli
from unolaunch.link import DisconnectedError, PortBusyError, open_launcher, open_serial
from unolaunch.sim import SimulatedLauncher

MPREMOTE = (sys.executable, "-m", "mpremote")


def test_two_programs_on_one_port(run_cli: RunCli) -> None:
    with SimulatedLauncher() as sim, open_launcher(sim.port) as first:
        with pytest.raises(PortBusyError) as busy:
            open_launcher(sim.port)
        assert f"is Thonny or mpremote holding {sim.port}?" in str(busy.value)
        proc = run_cli("monitor", "--port", sim.port, timeout=30)
        assert proc.returncode == 1 and "Thonny or mpremote" in proc.stderr
        mp = subprocess.run(
            [*MPREMOTE, "connect", sim.port, "exec", "print(1)"],
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert mp.returncode != 0  # mpremote cannot take the port either
        assert first.status()["state"] == "idle"  # and the first program is unharmed
        first.close()
        # mpremote holding the port: we say who might be.
        holder = subprocess.Popen(
            [*MPREMOTE, "connect", sim.port, "exec", "import time; time.sleep(3)"],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        try:
            deadline = time.monotonic() + 20
            while True:
                try:
                    open_serial(sim.port).close()  # not yet taken: try again
                except PortBusyError as exc:
                    assert "Thonny or mpremote" in str(exc)
                    break
                assert time.monotonic() < deadline, "mpremote never took the port"
                time.sleep(0.02)
        finally:
            holder.wait(timeout=60)
        assert holder.returncode == 0
        with open_launcher(sim.port) as again:  # free again: the firmware comes back
            assert again.status()["state"] == "idle"


def test_board_at_the_repl_is_soft_reset_into_the_firmware(sim: SimulatedLauncher) -> None:
    import serial

    with serial.serial_for_url(sim.port, timeout=0.2) as ser:
        ser.write(b"\r\x03\x03")  # Ctrl-C twice: the firmware stops, the REPL is up
        data = b""
        deadline = time.monotonic() + 5
        while not data.endswith(b">>> ") and time.monotonic() < deadline:
            data += ser.read(100)
        assert data.endswith(b">>> ")
    with open_launcher(sim.port, timeout=1) as client:
        assert client.status()["state"] == "idle"


def leave_in_the_raw_repl(port: str) -> None:
    """What an interrupted flash leaves: the firmware handed the REPL over, mpremote entered
    the raw REPL, and the process died without leaving it (the board sits there, silent)."""
    from unolaunch.flash import Board

    board = Board(port)
    assert board.transport.in_raw_repl
    board.transport.serial.close()  # killed: no Ctrl-B, no soft reset


def test_board_left_silent_in_the_raw_repl_is_probed_left_and_soft_reset(
    sim: SimulatedLauncher,
) -> None:
    """Issue 12: after an interrupted flash the board sits silent in the raw REPL; the
    client failed at once with "is the firmware running?". It probes, leaves the raw REPL
    (Ctrl-B), soft-resets, and says so."""
    leave_in_the_raw_repl(sim.port)
    said: list[dict[str, Any]] = []
    with open_launcher(sim.port, timeout=1, on_event=said.append) as client:
        assert client.status()["state"] == "idle"
    links = [e for e in said if e["event"] == "link"]
    assert links and links[0]["cause"] == "repl", said
    assert "raw REPL" in links[0]["message"] and "soft-reset" in links[0]["message"]


def test_monitor_says_it_took_the_board_out_of_the_raw_repl(sim: SimulatedLauncher) -> None:
    leave_in_the_raw_repl(sim.port)
    from conftest import cli_env

    proc = subprocess.Popen(
        [sys.executable, "-m", "unolaunch", "monitor", "--port", sim.port],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=cli_env(),
    )
    try:
        assert proc.stdout is not None
        lines = []
        for line in proc.stdout:  # ends when monitor exits (an error) or connects
            lines.append(line)
            if "connected to" in line:
                break
    finally:
        proc.terminate()
        _, err = proc.communicate(timeout=30)
    assert any("connected to" in line for line in lines), (lines, err)
    assert any("raw REPL" in line and "soft-reset" in line for line in lines), lines


@pytest.fixture
def sim() -> Iterator[SimulatedLauncher]:
    with SimulatedLauncher(seed=11) as s:
        yield s


def test_board_reset_mid_command_is_recovered_and_arming_restored(
    sim: SimulatedLauncher,
) -> None:
    links: list[dict[str, Any]] = []
    with open_launcher(sim.link, timeout=1.5) as client:
        client.on_event(lambda e: links.append(e) if e["event"] == "link" else None)
        client.arm("Dee", presses=3, mode="exact", cards=1)
        pid = sim.pid
        assert pid is not None
        os.kill(pid, signal.SIGSTOP)  # the board hangs with our request unread...
        sent = threading.Event()
        write = client._write

        def spy(data: bytes) -> None:
            write(data)
            if b'"status"' in data:
                sent.set()

        client._write = spy  # type: ignore[method-assign]
        result: dict[str, Any] = {}

        def ask() -> None:
            result.update(client.status())
            result["links_by_then"] = len(links)

        worker = threading.Thread(target=ask)
        worker.start()
        # the request is on its way (not a sleep hoping it is: issue 12)
        assert sent.wait(10), "the status request was never sent"
        assert not links and "state" not in result  # unanswered: the board is stopped
        sim.reset()  # ...and resets before answering
        worker.join(timeout=20)
        assert result.pop("links_by_then") == 1  # restored while the request waited
        assert result["state"] == "armed"
        assert result["armed"] == {"player": "Dee", "presses": 3, "mode": "exact", "cards": 1}
        assert result["mode"] == "hosted"
    assert links and links[-1]["state"] == "restored" and links[-1]["cause"] == "reset"
    assert "re-armed Dee for 3 presses" in links[-1]["message"]
    assert links[-1]["done"] == ["re-armed Dee for 3 presses"]
    assert links[-1]["message"] == links[-1]["summary"] + "; re-armed Dee for 3 presses"


def test_unplug_and_replug_during_a_game_many_times_loses_nothing(
    sim: SimulatedLauncher,
) -> None:
    cycles = 22
    presses = 25
    start_cards = sim.cards
    with open_launcher(sim.link, timeout=2, reconnect_timeout=20) as client:
        client.arm("Eve", presses=presses, mode="exact", cards=1)
        pressed: list[dict[str, Any]] = []
        ejected: list[dict[str, Any]] = []
        restored = 0
        for i in range(presses):
            sim.control("press")
            pressed.append(client.wait_for("press", timeout=10))
            ejected.append(client.wait_for("eject", timeout=10))
            if i < cycles:
                sim.unplug()
                threading.Timer(0.1, sim.replug).start()
                link = client.wait_for(
                    lambda e: e["event"] == "link" and e["state"] == "restored", 20
                )
                restored += 1
                owed = presses - i - 1
                assert f"re-armed Eve for {owed} press" in link["message"]
                assert client.status()["armed"]["presses"] == owed
        done = client.wait_for("done", timeout=10)
    assert done["player"] == "Eve"
    assert restored == cycles and client.reconnects == cycles
    assert [p["owed"] for p in pressed] == list(range(presses - 1, -1, -1))
    assert all(p["player"] == "Eve" for p in pressed)
    assert sum(e["cards"] for e in ejected) == presses
    assert sim.cards == start_cards - presses  # every card out is accounted for
    assert sim.boots == cycles + 1


def test_reconnect_gives_up_with_a_clear_message(sim: SimulatedLauncher) -> None:
    with open_launcher(sim.link, timeout=1, reconnect_timeout=0.5) as client:
        sim.unplug()
        with pytest.raises(DisconnectedError, match=r"did not come back within 0\.5 s"):
            client.status()
        sim.replug()
        assert client.status()["state"] == "idle"  # usable again once it is back


def test_mpremote_interrupts_the_real_firmware_and_the_client_gets_it_back(
    sim: SimulatedLauncher,
) -> None:
    for args in (["exec", "print(1+1)"], ["resume", "exec", "print(2+2)"]):
        proc = subprocess.run(
            [*MPREMOTE, "connect", sim.port, *args], capture_output=True, text=True, timeout=60
        )
        assert proc.returncode == 0, proc.stderr
        assert proc.stdout.strip() == ("2" if args[0] == "exec" else "4")
    # mpremote leaves the board at the REPL, as on a Pico: the client soft-resets it.
    with open_launcher(sim.port, timeout=2) as client:
        assert client.status()["state"] == "idle"


def test_monitor_shows_events_and_the_cable_live(sim: SimulatedLauncher) -> None:
    from conftest import cli_env

    proc = subprocess.Popen(
        [sys.executable, "-m", "unolaunch", "monitor", "--port", sim.link],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=cli_env(),
    )
    assert proc.stdout is not None and proc.stderr is not None
    try:
        first = proc.stdout.readline()
        while "(not protocol)" in first:  # the tail of a line printed before we opened it
            first = proc.stdout.readline()
        assert f"connected to {sim.link}: firmware" in first and "protocol 3" in first
        sim.control("press")
        lines = [proc.stdout.readline() for _ in range(2)]
        assert "press #1 (random pattern)" in lines[0]
        assert "eject: " in lines[1] and "(counted), press #1" in lines[1]
        sim.unplug()
        assert "link lost: lost the launcher" in proc.stdout.readline()
        sim.replug()
        back = proc.stdout.readline()
        while "(not protocol)" in back:  # the tail of the boot line, opened mid-line
            back = proc.stdout.readline()
        assert "link restored: the launcher is back" in back
        proc.terminate()
        assert proc.wait(timeout=10) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert "Traceback" not in proc.stderr.read()


def test_monitor_json_lines_for_scripts(sim: SimulatedLauncher) -> None:
    import json

    from conftest import cli_env

    proc = subprocess.Popen(
        [sys.executable, "-m", "unolaunch", "monitor", "--port", sim.port, "--json"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=cli_env(),
    )
    assert proc.stdout is not None
    try:
        hello = json.loads(proc.stdout.readline())
        while "noise" in hello:  # the tail of a line printed before we opened it
            hello = json.loads(proc.stdout.readline())
        assert hello["event"] == "connected" and hello["hello"]["protocol"] == 3
        sim.control("press")
        press = json.loads(proc.stdout.readline())
        eject = json.loads(proc.stdout.readline())
        assert press["event"] == "press" and eject["event"] == "eject"
        assert press["time"] <= eject["time"] and "T" in press["time"]
        proc.terminate()
        assert proc.wait(timeout=10) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def test_mpremote_reset_then_the_client_connects(sim: SimulatedLauncher) -> None:
    proc = subprocess.run(
        [*MPREMOTE, "connect", sim.port, "reset"], capture_output=True, text=True, timeout=60
    )
    assert proc.returncode == 0, proc.stderr
    sim.wait_hw(lambda e: e.get("hw") == "boot" and e.get("cause") == "reset", timeout=10)
    with open_launcher(sim.port, timeout=2) as client:
        assert client.status()["uptime_ms"] < 10000


def test_a_pty_name_handed_to_another_pty_is_not_taken_for_the_launcher(
    sim: SimulatedLauncher,
) -> None:
    from unolaunch.link import PortReplacedError

    old = sim.port
    taken: list[int] = []

    def another_program_gets_the_name() -> None:
        for _ in range(64):  # ptys get the lowest free number: walk up to the old one
            master, slave = os.openpty()
            taken.extend((master, slave))
            if os.ttyname(slave) == old:
                return

    with open_launcher(old, timeout=1, reconnect_timeout=10) as client:
        sim.reset()  # same device: the client carries on
        assert client.status()["uptime_ms"] < 10000
        sim.unplug()
        intruder = threading.Timer(0.3, another_program_gets_the_name)
        intruder.start()
        started = time.monotonic()
        try:
            with pytest.raises(PortReplacedError, match=r"unolaunch sim --link PATH"):
                client.status()
            assert time.monotonic() - started < 5  # at once, not after reconnect_timeout
        finally:
            intruder.join()
            for fd in taken:
                os.close(fd)
