"""Issue 14, fault 7 (the smaller ones): ``config_set`` during a burst (a flash write stalls
the CPU with the PWM on) is refused; a magazine that runs dry mid-burst is ``empty``, not
``jam``; ``boot``/``hello`` say what reset the board (``reset_cause``); and a launcher armed
for a player sends a ``heartbeat`` every second, so a host that only listens notices within
a second or two that its loop has stopped.

CPython tests of the logic (fw_fakes, test_fw_logic.Rig), the whole firmware on the unix
board, and both simulated boards (the rp2 port's own reset causes).
"""

from __future__ import annotations

import os
import signal
import time

import pytest
from board_harness import Link, board_link, board_params, start_board
from fw_fakes import FakeSensor
from fw_harness import Firmware
from test_fw_logic import Rig

# -- config_set during a burst -----------------------------------------------------------


def test_config_set_is_refused_while_a_burst_runs() -> None:
    rig = Rig()
    rig.req("fire", mode="exact", cards=5)
    rig.run(50)
    reply = rig.req("config_set", config={"jam_ms": 700})
    assert reply["ok"] is False and reply["error"] == "bad_state"
    assert rig.saved == [] and rig.l.cfg["jam_ms"] != 700  # nothing written, nothing changed
    rig.run(1000, cards_every=100)
    assert rig.events("eject")
    assert rig.req("config_set", config={"jam_ms": 700})["ok"]


# -- the magazine running dry ------------------------------------------------------------


def test_a_magazine_that_runs_dry_mid_burst_is_empty_not_a_jam() -> None:
    rig = Rig(jam_ms=300, empty_bursts=2)
    rig.req("arm", player="Ann", presses=1, mode="exact", cards=5)
    rig.l.on_press(rig.t)
    rig.run(250, cards_every=100)  # two cards, then nothing: the beam stays clear
    rig.run(600)
    fault = rig.events("fault")[-1]
    assert (fault["code"], fault["player"]) == ("empty", "Ann")
    eject = rig.events("eject")[-1]
    assert (eject["cards"], eject["wanted"]) == (2, 5)


def test_cards_that_stop_with_the_beam_blocked_are_still_a_jam() -> None:
    rig = Rig(jam_ms=300)
    rig.req("fire", mode="exact", cards=5)
    rig.run(250, cards_every=100)
    assert isinstance(rig.sensor, FakeSensor)
    rig.sensor.is_blocked = True  # a card stuck in the mouth
    rig.run(600)
    assert rig.events("fault")[-1]["code"] == "jam"


# -- heartbeat ---------------------------------------------------------------------------


def test_an_armed_launcher_sends_a_heartbeat_every_second() -> None:
    rig = Rig()
    rig.run(3000)
    assert rig.events("heartbeat") == []  # nobody to tell: not armed
    rig.req("arm", player="Ann", presses=2)
    start = rig.t
    rig.run(3500)
    beats = rig.events("heartbeat")
    assert len(beats) == 3
    assert [b["t"] - start for b in beats] == [1000, 2000, 3000]
    assert all((b["state"], b["player"], b["owed"]) == ("armed", "Ann", 2) for b in beats), beats
    rig.req("disarm")
    rig.run(3000)
    assert len(rig.events("heartbeat")) == 3


def test_any_event_restarts_the_heartbeat_clock() -> None:
    rig = Rig(fire_chance_pct=100)
    rig.req("arm", player="Bo", presses=3, mode="exact", cards=1)
    rig.run(900)
    rig.l.on_press(rig.t)  # press + eject: the host just heard from the launcher
    rig.run(300, cards_every=100)
    eject = rig.events("eject")[-1]
    rig.run(eject["t"] + 999 - rig.t)
    assert rig.events("heartbeat") == []  # a second after the eject, not after the arm
    rig.run(300)
    assert len(rig.events("heartbeat")) == 1


# -- the whole firmware on the unix board ------------------------------------------------


def test_unix_board_config_set_during_a_burst_and_a_dry_magazine() -> None:
    with Firmware(cards=2) as fw:
        fw.wait_event("boot")
        fw.request("config_set", config={"jam_ms": 400})
        fw.request("arm", player="Cy", presses=1, mode="exact", cards=5)
        fw.control("press")
        fw.wait_event("press")
        reply = fw.request("config_set", config={"jam_ms": 900})
        assert reply["error"] == "bad_state"
        fault = fw.wait_event("fault", timeout=10)
        assert fault["code"] == "empty" and fault["player"] == "Cy"
        assert fw.request("config_get")["config"]["jam_ms"] == 400


def test_unix_board_heartbeat_stops_when_the_loop_stops() -> None:
    with Firmware() as fw:
        assert fw.wait_event("boot")["reset_cause"] == "power_on"
        assert fw.request("hello")["reset_cause"] == "power_on"
        fw.request("arm", player="Dee", presses=1)
        first = fw.wait_event("heartbeat", timeout=3)
        second = fw.wait_event("heartbeat", timeout=3)
        assert 900 <= second["t"] - first["t"] <= 1300
        assert (second["player"], second["owed"], second["state"]) == ("Dee", 1, "armed")
        os.kill(fw.proc.pid, signal.SIGSTOP)  # the loop stops (a hang, a crash)
        try:
            fw.drain(0.3)
            time.sleep(2.5)
            assert [e for e in fw.drain(0.2) if e.get("event") == "heartbeat"] == []
        finally:
            os.kill(fw.proc.pid, signal.SIGCONT)


# -- both boards ---------------------------------------------------------------------------

BOARD = pytest.mark.parametrize("board", board_params())


@pytest.mark.timeout(240)
@BOARD
def test_dry_magazine_heartbeat_and_busy_config_on_the_board(board: str) -> None:
    with board_link(board, cards=2) as fw:
        hello = fw.hello(timeout=60)
        assert hello["reset_cause"] == "power_on"
        fw.request("config_set", config={"jam_ms": 400})
        fw.request("arm", player="Eve", presses=2, mode="exact", cards=4)
        beat = fw.wait_event("heartbeat", timeout=10)
        assert (beat["player"], beat["owed"]) == ("Eve", 2)
        fw.control("press")
        fw.wait_event("press", timeout=30)
        assert fw.request("config_set", config={"jam_ms": 900})["error"] == "bad_state"
        fault = fw.wait_event("fault", timeout=30)
        eject = [e for e in fw.events if e["event"] == "eject"][-1]
        assert fault["code"] == "empty" and (eject["cards"], eject["wanted"]) == (2, 4)


@pytest.mark.timeout(300)
@BOARD
def test_reset_cause_after_a_reset_and_a_watchdog_on_the_board(board: str) -> None:
    sim = start_board(board)
    try:
        fw = Link(sim)
        try:
            assert fw.hello(timeout=60)["reset_cause"] == "power_on"
            fw.request("reset")  # machine.reset(): a watchdog reboot on rp2, told apart
            sim.wait_hw(lambda ev: ev.get("hw") == "boot" and ev.get("cause") != "power_on", 60)
            time.sleep(0.5)
            cause = fw.hello(timeout=60)["reset_cause"]
            assert cause == "reset"
        finally:
            fw.close()
    finally:
        sim.close()


@pytest.mark.timeout(300)
@BOARD
def test_reset_cause_after_a_watchdog_timeout_on_the_board(board: str) -> None:
    with board_link(board) as fw:
        fw.hello(timeout=60)
        # the REPL taken over (Ctrl-C twice), a watchdog started there and never fed
        fw.send_raw(b"\x03\x03")
        time.sleep(1.5)
        fw.send_raw(b"\r\nimport machine; w = machine.WDT(timeout=600)\r\n")
        fw.send_raw(b"while True: machine.idle()\r\n\r\n")
        fw.sim.wait_hw(lambda ev: ev.get("hw") == "reset", timeout=60)
        time.sleep(0.5)
        assert fw.hello(timeout=60)["reset_cause"] == "watchdog"
