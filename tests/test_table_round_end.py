"""Issue 10 item 1: a points typo must not end the game for good. At a round's end the
table refuses a hand that cannot be what it knows (COM-8, card values ATK-1/MK-1/PP-1),
confirms the game's end before closing it, and 'undo' reaches back across a round's end
and the game's end — also after '--resume' of a finished game."""

from __future__ import annotations

from pathlib import Path

import pexpect
import pytest
from table_pty import Player
from unolaunch.table.journal import Journal
from unolaunch.table.session import Session, TableError

P = ["Ann", "Bob", "Cy"]


def _round_over(tmp_path: Path, variant: str, sizes: dict[str, int], target: int = 500) -> Session:
    """A game whose round just ended: Ann played her last card; ``sizes`` of the others."""
    j = Journal.open(tmp_path)
    s = Session.start(j, variant, P, {"target": target}, seed=1, dealer="Cy")
    s.apply({"by": "Cy", "choose": {"top": "r5"}})
    for who, n in sizes.items():
        s.correct(who, n)
    s.correct("Ann", 1)
    s.apply({"by": "Ann", "play": "r7"})
    assert s.choice() == "reveal"
    return s


def test_com8_mk1_a_total_above_what_the_hand_can_hold_is_refused(tmp_path: Path) -> None:
    s = _round_over(tmp_path, "mario-kart", {"Bob": 8, "Cy": 2})
    entries, key = len(s.journal.entries(s.id)), s.game.state_key()
    with pytest.raises(TableError, match="at most 400") as err:
        s.reveal({"Bob": 1999, "Cy": 10})  # 8 cards: eight wilds of 50 at the most (MK-1)
    assert "MK-24" in str(err.value) and "fix Bob" in str(err.value)
    with pytest.raises(TableError, match="at most 100"):
        s.apply({"by": "Ann", "choose": {"points": {"Bob": 40, "Cy": 101}}})  # the API too
    assert len(s.journal.entries(s.id)) == entries and s.game.state_key() == key
    assert s.snapshot()["game_winner"] is None
    s.reveal({"Bob": 400, "Cy": 0})  # the most, and the least (two 0s) are fine
    assert s.snapshot()["scores"]["Ann"] == 400


def test_com8_atk23_a_total_below_what_the_hand_is_worth_is_refused(tmp_path: Path) -> None:
    s = _round_over(tmp_path, "attack", {"Bob": 6, "Cy": 2})
    with pytest.raises(TableError, match="at least 6"):  # ATK-1: no card is worth 0
        s.reveal({"Bob": 3, "Cy": 2})


def test_com8_a_card_list_that_does_not_match_the_hand_size_is_refused(tmp_path: Path) -> None:
    s = _round_over(tmp_path, "pocket-pizza", {"Bob": 6, "Cy": 1})
    with pytest.raises(TableError, match="Bob holds 6 cards, but 2 cards") as err:
        s.reveal({"Bob": ["r9", "b3"], "Cy": ["W"]})
    assert "fix Bob" in str(err.value)
    with pytest.raises(TableError, match="Cy holds 1 card, but 0"):
        s.reveal({"Bob": 20, "Cy": []})
    with pytest.raises(TableError, match="deck has 2 W, not 3"):  # PP-2: the deck's wilds
        s.reveal({"Bob": ["W", "W", "W", "r1", "r2", "r3"], "Cy": ["b1"]})
    s.correct("Bob", 2)  # the table's hand size was wrong: fixed first, then accepted
    s.reveal({"Bob": ["r9", "b3"], "Cy": ["W"]})
    assert s.snapshot()["round_points"] == 62


def test_com8_undo_reaches_back_across_the_game_end_and_resume(tmp_path: Path) -> None:
    s = _round_over(tmp_path, "mario-kart", {"Bob": 8, "Cy": 2}, target=100)
    s.reveal({"Bob": 399, "Cy": 0})  # a typo for 39 that ends the game
    assert s.snapshot()["game_winner"] == "Ann"
    assert s.journal.game(s.id).status == "finished"
    again = Session.resume(s.journal, s.id)  # --resume of the finished game
    again.undo(1)
    assert again.choice() == "reveal" and again.snapshot()["game_winner"] is None
    assert again.journal.game(s.id).status == "playing"
    again.reveal({"Bob": 39, "Cy": 0})
    assert again.snapshot()["scores"]["Ann"] == 39 and again.snapshot()["awaiting"] is None


def _pp(tmp_path: Path, *args: str) -> Player:
    return Player(tmp_path, "play", *args)


def test_com8_table_refuses_typos_confirms_the_end_and_undoes_it_after_resume(
    tmp_path: Path,
) -> None:
    new = ("--variant", "pocket-pizza", "--players", "Ann,Bob", "--dealer", "Bob")
    pp = _pp(tmp_path, *new, "--target", "50")
    try:
        pp.type("Bob> ", "y3")
        pp.type("Ann> ", "fix Ann 1")
        pp.type("Ann> ", "y5")  # her last card (COM-7)
        prompt = "Cards left in Bob's hand (5 cards"
        pp.type(prompt, "r9 b3")  # two cards for a five-card hand
        pp.expect("✗ COM-8: Bob holds 5 cards, but 2 cards were typed")
        pp.type(prompt, "999")
        pp.expect("✗ PP-18: 5 cards are worth at most 220 points")
        pp.type(prompt, "fix Bob 2")  # the table had the hand size wrong
        pp.type("Cards left in Bob's hand (2 cards", "r9 b3")
        pp.type("deal round 2? ", "undo")  # back across the round's end
        pp.type("Cards left in Bob's hand (2 cards", "70")
        pp.type("Ann reaches 70 points and wins the game. Is that right?", "no")
        pp.expect("✗ type 'yes' to end the game")
        assert pp.state()["game_winner"] == "Ann"
        pp.type("Is that right?", "quit")  # stopped before confirming: it can still be undone
        pp.expect("--resume 1")
        pp.child.expect(pexpect.EOF)
    finally:
        pp.close()
    again = _pp(tmp_path, "--resume", "1")
    try:
        again.type("Ann reaches 70 points and wins the game. Is that right?", "undo")
        again.type("Cards left in Bob's hand (2 cards", "17")
        again.type("deal round 2? ", "undo 3")  # the score, the fix and Ann's last card
        again.at("Ann> ")
        assert again.state()["hand_sizes"] == {"Ann": 1, "Bob": 5}
        again.type("Ann> ", "y5")
        again.type("Cards left in Bob's hand (5 cards", "60")
        again.type("Ann reaches 60 points and wins the game. Is that right?", "yes")
        again.expect("Ann wins the game!")
        again.child.expect(pexpect.EOF)
    finally:
        again.close()
    with Journal.open(tmp_path) as j:
        assert j.game(1).status == "finished" and j.game(1).scores == {"Ann": 60, "Bob": 0}
    after = _pp(tmp_path, "--resume", "1")  # a confirmed game too: the end can be undone
    try:
        after.type("Is that right?", "undo")  # issue 22: a closed game is reopened on a yes
        after.type("Reopen it and take back its last action?", "no")
        after.expect("nothing changed: the game stays closed")
        after.type("Is that right?", "undo")
        after.type("Reopen it and take back its last action?", "yes")
        after.at("Cards left in Bob's hand (5 cards")
        assert after.state()["game_winner"] is None
    finally:
        after.close()
