"""The SQLite game journal: every action stored as it happens, games listed by history."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from unolaunch.errors import UnolaunchError
from unolaunch.table.journal import DB_NAME, Journal, data_dir


def test_data_dir_override_order(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("UNOLAUNCH_DATA_DIR", str(tmp_path / "env"))
    assert data_dir() == tmp_path / "env"
    assert data_dir(tmp_path / "opt") == tmp_path / "opt"
    monkeypatch.delenv("UNOLAUNCH_DATA_DIR")
    assert data_dir().name == "unolaunch"


def test_entries_round_trip_and_survive_reopening(tmp_path: Path) -> None:
    with Journal.open(tmp_path) as j:
        gid = j.new_game("attack", ["Ann", "Bob"], {"target": 500}, seed=7, port="sim")
        assert j.append(gid, "action", {"by": "Ann", "play": "r5"}) == 1
        assert j.append(gid, "action", {"by": "Bob", "press": True, "cards": 2}) == 2
        assert j.append(gid, "undo", {"n": 1}, scores={"Ann": 10, "Bob": 0}, round_no=2) == 3
    with Journal.open(tmp_path) as j:
        entries = j.entries(gid)
        assert [(e.seq, e.kind, e.data) for e in entries] == [
            (1, "action", {"by": "Ann", "play": "r5"}),
            (2, "action", {"by": "Bob", "press": True, "cards": 2}),
            (3, "undo", {"n": 1}),
        ]
        g = j.game(gid)
        assert g.players == ("Ann", "Bob")
        assert g.seed == 7 and g.port == "sim" and g.options == {"target": 500}
        assert g.scores == {"Ann": 10, "Bob": 0} and g.round == 2
        assert g.status == "playing" and g.actions == 3
        assert j.latest_unfinished() == g


def test_finished_game_has_winner_and_is_not_resumed_by_default(tmp_path: Path) -> None:
    with Journal.open(tmp_path) as j:
        a = j.new_game("mario-kart", ["Ann", "Bob"], {}, seed=1)
        b = j.new_game("pocket-pizza", ["Ann", "Bob"], {}, seed=2)
        j.append(
            b,
            "action",
            {"by": "Ann", "draw": True},
            winner="Ann",
            finished=True,
            scores={"Ann": 260, "Bob": 0},
        )
        assert j.latest_unfinished() is not None
        assert j.latest_unfinished().id == a  # type: ignore[union-attr]
        assert [g.id for g in j.games()] == [b, a]
        assert j.game(b).winner == "Ann" and j.game(b).status == "finished"


def test_unknown_game_names_the_known_ones(tmp_path: Path) -> None:
    with Journal.open(tmp_path) as j:
        gid = j.new_game("attack", ["Ann", "Bob"], {}, seed=1)
        with pytest.raises(UnolaunchError, match=f"no game 99 .*known games: {gid}"):
            j.game(99)


def test_corrupt_file_is_a_clear_error_and_is_left_alone(tmp_path: Path) -> None:
    path = tmp_path / DB_NAME
    path.write_bytes(b"this is not a database" * 100)
    with pytest.raises(UnolaunchError, match=r"unreadable.*move it aside"):
        Journal(path)
    assert path.read_bytes().startswith(b"this is not a database")


def test_each_append_is_committed_at_once(tmp_path: Path) -> None:
    """A second connection (as after a crash) sees every entry append() returned for."""
    with Journal.open(tmp_path) as j:
        gid = j.new_game("attack", ["Ann", "Bob"], {}, seed=1)
        j.append(gid, "action", {"by": "Ann", "play": "r5"})
        other = sqlite3.connect(tmp_path / DB_NAME)
        assert other.execute("SELECT COUNT(*) FROM entries").fetchone()[0] == 1
        other.close()


def test_bad_entry_kind_is_refused(tmp_path: Path) -> None:
    with Journal.open(tmp_path) as j:
        gid = j.new_game("attack", ["Ann", "Bob"], {}, seed=1)
        with pytest.raises(ValueError):
            j.append(gid, "nonsense", {})
        assert j.entries(gid) == []
