"""`unolaunch play` for UNO Attack with a launcher: the simulator runs the real firmware
behind a pty; the table arms it for exactly what the rules demand; presses of its button
update the hands live; a press nobody owes is a foul; an UNO catch; round scoring."""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path

import pexpect
import pytest
from table_pty import Player
from unolaunch import firmware_dir
from unolaunch.fwconfig import config_defaults
from unolaunch.sim import SimulatedLauncher
from unolaunch.table.journal import Journal


@pytest.fixture
def sim() -> Iterator[SimulatedLauncher]:
    with SimulatedLauncher(cards=112, seed=11) as s:
        yield s


def _last_press(p: Player) -> dict[str, object]:
    with Journal.open(p.data_dir) as j:
        return next(e.data for e in reversed(j.entries(1)) if "press" in e.data)


def _press(p: Player, sim: SimulatedLauncher, who: str) -> int:
    """Press the simulated button; wait until the table shows it; return the cards out."""
    sizes = p.state()["hand_sizes"]
    sim.control("press")
    p.expect(f"· {who} presses: ")
    cards = int(p.child.readline().split()[0])
    p.child.expect_exact("launcher: ")  # the screen was redrawn after the press
    action = _last_press(p)
    assert action["by"] == who and action["cards"] == cards
    assert p.state()["hand_sizes"][who] == sizes[who] + cards  # live hand size
    return cards


def test_attack_round_with_launcher_atk11_presses_atk26_foul_atk20_catch_atk23_scoring(
    tmp_path: Path, sim: SimulatedLauncher
) -> None:
    p = Player(
        tmp_path,
        "play",
        "--variant",
        "attack",
        "--players",
        "Ann,Bob,Cy",
        "--dealer",
        "Cy",
        "--target",
        "60",
        "--port",
        str(sim.link),
        timeout=60,
    )
    try:
        p.type("Cy> ", "r5")
        screen = p.at("Ann> ")
        assert "armed for Ann, 1 press" in screen  # ATK-5: a normal turn's press
        _press(p, sim, "Ann")  # ATK-7: the press ends Ann's turn
        screen = p.at("Bob> ")
        assert "armed for Bob, 1 press" in screen
        p.type("Bob> ", "red hit 2")  # ATK-11: Cy presses twice and loses the turn
        screen = p.at("Cy> ")
        assert "armed for Cy, 2 presses" in screen
        _press(p, sim, "Cy")
        _press(p, sim, "Cy")
        p.at("Ann> ")
        assert p.state()["awaiting"] == {"by": "Ann", "verbs": ["play", "press"]}
        p.type("Ann> ", "press")  # typed at the keyboard: the button is the launcher's
        p.expect("press the launcher's button")
        p.type("Ann> ", "red skip")  # ATK-10 + ATK-8: Bob skipped, Ann may play once more
        screen = p.at("Ann> ")
        assert "disarmed" in screen
        before = p.state()
        sim.control("press")  # nobody owes a press now: a foul (ATK-26)
        p.expect("FOUL (ATK-26)")
        p.expect("Ann> ")
        assert p.state() == before  # nothing fired, nothing changed
        p.type("Ann> ", "pass")
        p.type("Cy> ", "fix Cy 2")
        p.type("Cy> ", "r3")  # second-to-last card, no UNO said
        p.type("Ann> ", "catch Cy")  # COM-6 / ATK-20: Cy presses twice
        screen = p.at("Cy> ")
        assert "armed for Cy, 2 presses" in screen
        _press(p, sim, "Cy")
        _press(p, sim, "Cy")
        p.at("Ann> ")
        p.type("Ann> ", "fix Ann 1")
        p.type("Ann> ", "r8")  # Ann goes out (COM-7)
        bob = p.state()["hand_sizes"]["Bob"]
        p.type(f"Cards left in Bob's hand ({bob} card", "fix Bob 2")  # COM-8: fit the size
        p.type("Cards left in Bob's hand (2 cards", "r5 attack")  # 5 + 50 (ATK-1)
        p.type("Cards left in Cy's hand", "30")
        p.type("Is that right?", "yes")  # COM-8: the game's end is confirmed
        p.expect("Ann wins the game")
        p.child.expect(pexpect.EOF)
        state = p.state()
        assert state["scores"] == {"Ann": 85, "Bob": 0, "Cy": 0}  # ATK-23
        assert state["game_winner"] == "Ann"
    finally:
        p.close()


def test_port_sim_starts_a_simulated_launcher(tmp_path: Path) -> None:
    p = Player(
        tmp_path,
        "play",
        "--variant",
        "attack",
        "--players",
        "Ann,Bob",
        "--dealer",
        "Bob",
        "--port",
        "sim",
        timeout=60,
    )
    try:
        p.type("Bob> ", "g4")
        screen = p.at("Ann> ")
        assert "simulated · armed for Ann, 1 press · 97 cards inside" in screen
        p.type("Ann> ", "press")  # presses the simulated button
        p.expect("· Ann presses: ")
        p.at("Bob> ")
        assert _last_press(p)["by"] == "Ann"
    finally:
        p.close()


def test_pulled_cable_is_shown_and_presses_can_be_typed(
    tmp_path: Path, sim: SimulatedLauncher
) -> None:
    p = Player(
        tmp_path,
        "play",
        "--variant",
        "attack",
        "--players",
        "Ann,Bob",
        "--dealer",
        "Bob",
        "--port",
        str(sim.link),
        timeout=60,
    )
    try:
        p.type("Bob> ", "g4")
        p.at("Ann> ")
        sim.unplug()
        p.expect("disconnected")
        p.type("Ann> ", "press")  # no launcher to press now: it asks for the count
        p.type("How many cards came out for Ann? ", "2")  # counted by hand
        p.at("Bob> ")
        assert p.state()["hand_sizes"]["Ann"] == 9
        sim.replug()
        p.expect("restored")
        p.expect("armed for Bob, 1 press")
        _press(p, sim, "Bob")
    finally:
        p.close()


@pytest.fixture
def firing_sim(tmp_path: Path) -> Iterator[SimulatedLauncher]:
    """A simulated launcher whose every press fires (its launcher.json says so)."""
    flash = tmp_path / "flash"
    shutil.copytree(firmware_dir(), flash)
    config = dict(config_defaults(), fire_chance_pct=100)
    (flash / "launcher.json").write_text(json.dumps(config))
    with SimulatedLauncher(flash_dir=flash, cards=112, seed=3) as s:
        yield s


def test_jam_is_shown_with_what_to_do_then_cleared(
    tmp_path: Path, firing_sim: SimulatedLauncher
) -> None:
    sim = firing_sim
    p = Player(
        tmp_path,
        "play",
        "--variant",
        "attack",
        "--players",
        "Ann,Bob",
        "--dealer",
        "Bob",
        "--port",
        str(sim.link),
        timeout=60,
    )
    try:
        p.type("Bob> ", "g4")
        p.at("Ann> ")
        sim.control("jam")  # a card stuck in the mouth of the launcher
        sim.control("press")
        p.expect("launcher fault: jam")
        p.expect("launcher: FAULT: jam")
        p.expect("a card is stuck in the launcher's mouth: pull it out — it is Ann's")
        p.expect("next: Bob is to play or press")  # who is next, after the fault
        p.at("Bob> ")  # the jammed press still counted as Ann's (no card came out)
        assert _last_press(p) == {"by": "Ann", "press": True, "cards": 0}
        sim.control("press")  # pressed before 'clear': refused, and not a foul (ATK-26)
        p.expect("did not fire: fix it and type 'clear' first")
        sim.control("unjam")  # the table pulls the stuck card out: the sensor sees it go
        p.expect("1 more card came out after Ann's press: given to Ann")  # the firmware's stray
        p.at("Bob> ")
        assert p.state()["hand_sizes"]["Ann"] == 8
        p.type("Bob> ", "clear")
        p.expect("launcher fault cleared")
        screen = p.at("Bob> ")
        assert "armed for Bob, 1 press" in screen
        _press(p, sim, "Bob")  # and it fires again
        assert p.state()["hand_sizes"]["Ann"] == 8
    finally:
        p.close()


def test_atk22_empty_launcher_is_shown_with_what_to_do(
    tmp_path: Path, firing_sim: SimulatedLauncher
) -> None:
    sim = firing_sim
    p = Player(
        tmp_path,
        "play",
        "--variant",
        "attack",
        "--players",
        "Ann,Bob",
        "--dealer",
        "Bob",
        "--port",
        str(sim.link),
        timeout=60,
    )
    try:
        p.type("Bob> ", "g4")
        p.at("Ann> ")
        sim.control("load 0")  # the magazine is empty
        sim.control("press")  # the first burst with no card looks like a jam...
        p.expect("launcher fault: jam")
        p.type("Bob> ", "clear")
        p.expect("launcher fault cleared")
        p.at("Bob> ")
        sim.control("press")  # ...a second one means empty
        p.expect("launcher fault: empty")
        p.expect("the launcher is empty: shuffle the discard pile except its top card")
        p.at("Ann> ")
        sim.control("load 30")  # the table reloads it (ATK-22)...
        p.type("Ann> ", "clear")  # ...and clears the fault: armed again
        p.expect("launcher fault cleared")
        screen = p.at("Ann> ")
        assert "armed for Ann, 1 press" in screen
        _press(p, sim, "Ann")
    finally:
        p.close()
