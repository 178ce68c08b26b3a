"""`unolaunch play` in a pseudo-terminal, typed as players would: whole rounds of Mario Kart
and Pocket Pizza, bad input at every prompt (one ✗ line, nothing stored), resume."""

from __future__ import annotations

from pathlib import Path

import pexpect
import pytest
from table_pty import Player


@pytest.fixture
def mk(tmp_path: Path):  # type: ignore[no-untyped-def]
    p = Player(
        tmp_path,
        "play",
        "--variant",
        "mario-kart",
        "--players",
        "Ann,Bob,Cy",
        "--dealer",
        "Cy",
        "--target",
        "100",
    )
    yield p
    p.close()


def test_mario_kart_round_mk12_mk20_mk13_com8_to_the_end(mk: Player) -> None:
    mk.type("Cy> ", "r5")  # COM-4 / MK-3: the dealer reports the start card
    mk.type("Ann> ", "red 7")
    mk.at("Bob> ")
    mk.child.send("wd\t")  # Tab completes the word
    mk.child.expect_exact("wd4 ")
    mk.child.sendline("blue")  # MK-12
    mk.type("Cy> ", "challenge")  # MK-20: Cy sees Bob's hand...
    mk.type("Cy> ", "lost")  # MK-21: ...no blue card: Cy draws six, loses the turn
    mk.at("Ann> ")
    assert mk.state()["hand_sizes"] == {"Ann": 6, "Bob": 6, "Cy": 13}
    mk.type("Ann> ", "item box g7 Bob")  # MK-13 + MK-16 Green Shell: Bob draws one
    mk.type("Bob> ", "draw")  # MK-9
    mk.type("Bob> ", "pass")
    mk.type("Cy> ", "green 3")
    mk.type("Ann> ", "fix Ann 2")  # a hand size corrected by hand (journaled)
    mk.type("Ann> ", "g4 uno")  # COM-6: UNO said with the second-to-last card
    mk.type("Bob> ", "catch Ann")  # she said it: refused
    mk.expect("✗ ")
    mk.type("Bob> ", "+2")  # MK-10: green Draw Two, Cy draws two
    mk.type("Ann> ", "g2")  # her last card: the round ends (COM-7)
    before = mk.expect("Cards left in Bob's hand (7 cards")
    assert "Ann has no cards left" in before
    mk.child.sendline("g7 wd4 r+2 r1 b2 y3 g4")  # all 7 (COM-8): 7 + 50 + 20 + 10 (MK-1)
    mk.type("Cards left in Cy's hand (14 cards", "40")
    out = mk.expect("Is that right?")  # COM-8: the game's end is confirmed first
    assert "Ann wins the round (+127 points)" in out or "scores 127" in out
    mk.child.sendline("yes")
    mk.expect("Ann wins the game")
    mk.child.expect(pexpect.EOF)
    state = mk.state()
    assert state["scores"] == {"Ann": 127, "Bob": 0, "Cy": 0}  # MK-24
    assert state["game_winner"] == "Ann"


def test_pocket_pizza_round_pp9_pp11_pp13_pp18(tmp_path: Path) -> None:
    pp = Player(
        tmp_path,
        "play",
        "--variant",
        "pocket-pizza",
        "--players",
        "Ann,Bob",
        "--dealer",
        "Bob",
        "--target",
        "50",
    )
    try:
        pp.type("Bob> ", "y3")
        pp.at("Ann> ")
        assert pp.state()["hand_sizes"] == {"Ann": 5, "Bob": 5}  # PP-3: five each
        pp.type("Ann> ", "+1")  # PP-9: Bob draws one and loses the turn (two players)
        pp.type("Ann> ", "undo")  # taken back...
        pp.at("Ann> ")
        assert pp.state()["hand_sizes"] == {"Ann": 5, "Bob": 5}
        pp.type("Ann> ", "yellow draw one")  # ...and played again
        pp.type("Ann> ", "dip green")  # PP-11: Ann draws one, gives one to Bob
        pp.at("Bob> ")
        assert pp.state()["hand_sizes"] == {"Ann": 3, "Bob": 7}
        pp.type("Bob> ", "wd2 red")  # PP-12
        pp.type("Ann> ", "challenge won")  # PP-13: Bob could have played: he draws two
        pp.at("Ann> ")
        assert pp.state()["hand_sizes"] == {"Ann": 3, "Bob": 8}
        pp.type("Ann> ", "r4")
        pp.type("Bob> ", "red skip")  # PP-8: Ann is skipped, Bob again
        pp.type("Bob> ", "draw")  # PP-7
        pp.type("Bob> ", "pass")
        pp.type("Ann> ", "fix Ann 2")
        pp.type("Ann> ", "r9")  # her second-to-last card...
        pp.type("Bob> ", "uno")  # ...and UNO said right after it (COM-6)
        pp.refused("Bob> ", "catch Ann", "")  # so she cannot be caught (PP-15)
        pp.type("Bob> ", "r1")
        pp.type("Ann> ", "r3")
        # all 7 cards (COM-8): 5 + 7 + 50 + 4 x 1 (PP-1)
        pp.type("Cards left in Bob's hand (7 cards", "r5 g7 wild r1 b1 y1 g1")
        pp.type("Ann reaches 66 points and wins the game. Is that right?", "yes")
        pp.expect("Ann wins the game")
        pp.child.expect(pexpect.EOF)
        assert pp.state()["scores"] == {"Ann": 66, "Bob": 0}  # PP-18
    finally:
        pp.close()


def test_bad_input_at_every_prompt_changes_nothing(mk: Player) -> None:
    mk.refused("Cy> ", "skip", "not one card")  # start card: a colourless skip
    mk.child.sendline("blah")
    mk.child.expect_exact("✗ ")
    mk.type("Cy> ", "r5")
    mk.refused("Ann> ", "blah", "not a card")  # a turn
    mk.refused("Ann> ", "r5 g7", "one card at a time")
    mk.refused("Ann> ", "wild blue", "not a UNO Mario Kart card")
    mk.refused("Ann> ", "g3", "COM-2")  # parsed, but the engine refuses it
    mk.refused("Ann> ", "catch Zed", "catch whom")
    mk.refused("Ann> ", "undo 99", "can be taken back")
    mk.type("Ann> ", "draw")
    mk.refused("Ann> ", "press 3", "")  # after drawing: play or pass
    mk.type("Ann> ", "pass")
    mk.type("Bob> ", "wd4 blue")
    mk.refused("Cy> ", "r5", "")  # must challenge or accept first
    mk.type("Cy> ", "challenge")
    mk.refused("Cy> ", "maybe", "won")  # the verdict
    mk.type("Cy> ", "won")  # MK-20: Bob held blue: he draws four, Cy plays on
    mk.refused("Cy> ", "item box", "turned up")  # MK-13: the turned card comes with it
    mk.refused("Cy> ", "item box skip", "which colour")
    mk.type("Cy> ", "item box y2")  # Banana: the player before Cy (Bob) draws two (MK-15)
    mk.type("Ann> ", "item box wd4")  # Bob-omb: Ann draws two, names the colour (MK-18)
    mk.refused("Ann> ", "purple", "")
    mk.type("Ann> ", "red")
    mk.type("Bob> ", "item box g1")  # Green Shell: Bob chooses who draws (MK-16)
    mk.refused("Bob> ", "Zed", "choose a player")  # a target: players only
    mk.refused("Bob> ", "Bob", "")  # not himself
    mk.type("Bob> ", "Cy")
    mk.type("Cy> ", "fix Cy 1")
    mk.type("Cy> ", "g5")
    mk.expect("Cards left in Ann's hand")
    n = mk.entries()
    for bad in ("blah", "r5 purple", "-3", "99999"):
        mk.child.sendline(bad)
        mk.expect("✗ ")
        mk.expect("Cards left in Ann's hand")
    assert mk.entries() == n
    mk.child.sendline("12")
    mk.type("Cards left in Bob's hand", "10")
    mk.expect("deal round 2? ")
    mk.child.sendline("what")
    mk.expect("✗ ")
    assert mk.entries() == n + 1
    mk.type("deal round 2? ", "")
    mk.expect("Ann deals")


def test_attack_without_launcher_prompts_refuse_bad_input(tmp_path: Path) -> None:
    p = Player(
        tmp_path,
        "play",
        "--variant",
        "attack",
        "--players",
        "Ann,Bob,Cy",
        "--dealer",
        "Cy",
    )
    try:
        p.type("Cy> ", "r5")
        p.type("Ann> ", "press")  # no launcher: it asks how many cards came out
        for bad in ("lots", "-1"):
            p.type("How many cards came out for Ann? ", bad)
            p.expect("✗ type a number")
        p.type("How many cards came out for Ann? ", "999")
        p.type("a typo? Type the right count", "2")  # ATK-25: more than a burst (issue 22)
        p.at("Bob> ")
        assert p.state()["hand_sizes"]["Ann"] == 9
        p.type("Bob> ", "red hit 2")  # ATK-11
        # Cy owes two presses, and they end Cy's turn (ATK-11): not "press first".
        p.refused("Cy> ", "r7", "Cy must press the launcher 2 more times and then Cy's turn")
        p.refused("Cy> ", "press lots", "press N")
        p.refused("Cy> ", "draw", "no drawing in UNO Attack")  # ATK-3: the launcher is the stock
        p.type("Cy> ", "press 1")
        p.type("Cy> ", "0")  # a bare number: the cards of an owed press
        p.at("Ann> ")
        assert p.state()["hand_sizes"]["Cy"] == 8
        p.type("Ann> ", "red skip")  # ATK-8: one more play, or pass
        p.refused("Ann> ", "press 1", "ATK-26")
        p.refused("Ann> ", "attack blue", "name the target")
        p.refused("Ann> ", "attack blue Zed", "")
        p.type("Ann> ", "attack blue Bob")  # ATK-15: Bob presses twice
        p.refused("Bob> ", "catch Bob", "")
        p.type("Bob> ", "press 0")
        p.type("Bob> ", "press 0")
        p.at("Cy> ")
        assert p.state()["awaiting"] == {"by": "Cy", "verbs": ["play", "press"]}
    finally:
        p.close()
