"""Issue 10 item 2: a Discard All takes every other card of its colour (ATK-12); at the
table, where hands are unseen, those cards (or how many) must be given, or the hand size
goes wrong from then on."""

from __future__ import annotations

from pathlib import Path

import pytest
from table_pty import Player
from unolaunch.table.journal import Journal
from unolaunch.table.parse import Context, help_text
from unolaunch.table.session import Session, TableError

P = ["Ann", "Bob", "Cy"]


def _attack(tmp_path: Path) -> Session:
    j = Journal.open(tmp_path)
    s = Session.start(j, "attack", P, {}, seed=1, dealer="Cy")
    s.apply({"by": "Cy", "choose": {"top": "y5"}})
    return s


def test_atk12_a_discard_all_without_the_cards_it_took_is_refused(tmp_path: Path) -> None:
    s = _attack(tmp_path)
    entries = len(s.journal.entries(s.id))
    with pytest.raises(TableError, match="ATK-12") as err:
        s.apply({"by": "Ann", "play": "yDA"})
    assert "yellow discard all y3 y9" in str(err.value)
    assert len(s.journal.entries(s.id)) == entries
    assert s.snapshot()["hand_sizes"]["Ann"] == 7


def test_atk12_discard_all_with_its_cards_or_how_many(tmp_path: Path) -> None:
    s = _attack(tmp_path)
    s.apply({"by": "Ann", "play": "yDA", "discarded": ["y3", "y9"]})
    assert s.snapshot()["hand_sizes"]["Ann"] == 4
    effects = s.apply({"by": "Bob", "play": "yDA", "discarded": ["?", "?", "?"]})  # how many
    assert s.snapshot()["hand_sizes"]["Bob"] == 3
    assert any("also discarded: 3 more yellow cards" in str(e) for e in effects)
    s.apply({"by": "Cy", "play": "yDA", "discarded": []})  # none
    assert s.snapshot()["hand_sizes"]["Cy"] == 6
    again = Session.resume(s.journal, s.id)
    assert again.game.state_key() == s.game.state_key()


def test_atk12_discard_all_that_empties_the_hand_wins_the_round(tmp_path: Path) -> None:
    s = _attack(tmp_path)
    s.apply({"by": "Ann", "play": "yDA", "discarded": ["?"] * 6})
    assert s.choice() == "reveal" and s.snapshot()["awaiting"]["by"] == "Ann"


def test_atk12_help_shows_the_discard_all_form() -> None:
    ctx = Context("attack", tuple(P), "Ann", ("play", "press"), "yellow", "y5")
    assert "'yellow discard all y3 y9'" in help_text(ctx)


def test_atk12_the_table_asks_what_went_with_a_discard_all(tmp_path: Path) -> None:
    p = Player(tmp_path, "play", "--variant", "attack", "--players", "Ann,Bob,Cy", "--dealer", "Cy")
    try:
        p.type("Cy> ", "y5")
        asked = "Which other yellow cards went with Ann's Discard All (ATK-12)?"
        p.type("Ann> ", "yellow discard all")
        p.type(asked, "r3")
        p.expect("✗ red 3 is not yellow")
        p.type(asked, "7")
        p.expect("✗ Ann had 6 other cards besides the Discard All")
        p.type(asked, "2")  # how many: unseen cards
        p.at("Bob> ")
        assert p.state()["hand_sizes"]["Ann"] == 4
        p.type("Bob> ", "yellow discard all y3 y9")  # given with the play: nothing asked
        p.at("Cy> ")
        assert p.state()["hand_sizes"]["Bob"] == 4
        p.type("Cy> ", "discard all")  # the colour to match; its cards as plain numbers
        p.type("Which other yellow cards went with Cy's Discard All", "1 2, 8")
        p.at("Ann> ")
        assert p.state()["hand_sizes"]["Cy"] == 3
        p.type("Ann> ", "discard all")
        p.type("Which other yellow cards", "none")
        p.at("Bob> ")
        assert p.state()["hand_sizes"]["Ann"] == 3
        p.type("Bob> ", "y4")
        p.type("Cy> ", "green discard all")  # COM-2: refused before anything is asked
        p.expect("✗ COM-2")
        p.at("Cy> ")
        assert p.state()["hand_sizes"]["Cy"] == 3
    finally:
        p.close()
