"""Issue 10 "Rules": two players, UNO Attack. A Reverse acts as a Skip, and the extra play
of ATK-8 is the "play again" (its Decision): a Hit 2 played as that extra card makes the
opponent press, never its own player; the scorekeeper arms the launcher for the opponent."""

from __future__ import annotations

from pathlib import Path

from unolaunch.table.journal import Journal
from unolaunch.table.session import Arming, Session


def _two(tmp_path: Path) -> Session:
    j = Journal.open(tmp_path)
    s = Session.start(j, "attack", ["Ann", "Bob"], {}, seed=1, dealer="Bob")
    s.apply({"by": "Bob", "choose": {"top": "r5"}})
    return s


def test_atk8_two_players_extra_hit2_after_a_reverse_arms_the_opponent(tmp_path: Path) -> None:
    s = _two(tmp_path)
    s.apply({"by": "Ann", "play": "rR"})  # COM-3: a Skip with two players
    assert s.arming() is None  # ATK-8: the extra play or a pass; no press is owed
    s.apply({"by": "Ann", "play": "rH2"})
    assert s.snapshot()["awaiting"] == {"by": "Bob", "verbs": ["press"]}
    assert s.arming() == Arming("Bob", 2)  # ATK-11: the opponent presses twice
    s.apply({"by": "Bob", "press": True, "cards": 1})
    s.apply({"by": "Bob", "press": True, "cards": 0})
    assert s.arming() == Arming("Ann", 1)  # Bob lost his turn: Ann plays again
    assert s.snapshot()["hand_sizes"] == {"Ann": 5, "Bob": 8}
    assert Session.resume(s.journal, s.id).game.state_key() == s.game.state_key()


def test_atk8_two_players_extra_number_after_a_reverse_passes_the_turn(tmp_path: Path) -> None:
    s = _two(tmp_path)
    s.apply({"by": "Ann", "play": "rR"})
    s.apply({"by": "Ann", "play": "r7"})  # the extra play is the "play again"
    assert s.arming() == Arming("Bob", 1)


def test_atk8_two_players_extra_hit4_after_a_skip_arms_the_opponent(tmp_path: Path) -> None:
    s = _two(tmp_path)
    s.apply({"by": "Ann", "play": "rS"})
    s.apply({"by": "Ann", "play": "WH4", "color": "blue"})
    assert s.arming() == Arming("Bob", 4)  # ATK-14
