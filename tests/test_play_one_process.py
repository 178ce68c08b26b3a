"""One game, one process (issue 10, item 4): a second `unolaunch play --resume N` is
refused at once naming the first; a claim left by a killed process does not block; an
append that does not extend the entry its writer last saw is refused; a journal that does
not replay is called damaged, never "stored by an incompatible version"."""

from __future__ import annotations

import os
import socket
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import RunCli
from table_pty import Player
from unolaunch.errors import UnolaunchError
from unolaunch.table.journal import DB_NAME, GameInUse, Journal, JournalConflict
from unolaunch.table.session import Session

PP = ["play", "--variant", "pocket-pizza", "--players", "Ann,Bob", "--dealer", "Bob"]


def test_second_play_of_the_same_game_is_refused_naming_the_first(
    run_cli: RunCli, tmp_path: Path
) -> None:
    first = Player(tmp_path, *PP)
    try:
        first.type("Bob> ", "y3")
        first.at("Ann> ")
        for resume in (["--resume", "1"], ["--resume"]):
            proc = run_cli("play", *resume, "--data-dir", tmp_path, input="y4\n", timeout=30)
            assert proc.returncode == 1, proc.stdout + proc.stderr
            lines = proc.stderr.strip().splitlines()
            assert len(lines) == 1, proc.stderr
            assert lines[0].startswith("unolaunch: game 1 is already open in another unolaunch")
            assert f"process {first.child.pid}" in lines[0]
            assert "Ann>" not in proc.stdout  # refused before the game is shown
        assert first.entries() == 1  # the second process stored nothing
        first.type("Ann> ", "y4")  # the first one plays on
        first.at("Bob> ")
        assert first.entries() == 2
    finally:
        first.close()
    # Once the first has quit, the game resumes anywhere.
    proc = run_cli("play", "--resume", "1", "--data-dir", tmp_path, input="y5\n")
    assert proc.returncode == 0, proc.stderr
    with Journal.open(tmp_path) as j:
        assert [e.data for e in j.entries(1)][-1] == {"by": "Bob", "play": "y5"}


def test_a_killed_process_does_not_block_the_game(run_cli: RunCli, tmp_path: Path) -> None:
    first = Player(tmp_path, *PP)
    first.type("Bob> ", "y3")
    first.at("Ann> ")
    first.child.kill(9)  # SIGKILL: its claim stays in the file
    first.child.close(force=True)
    with sqlite3.connect(tmp_path / DB_NAME) as db:
        assert db.execute("SELECT pid FROM claims").fetchall() == [(first.child.pid,)]
    proc = run_cli("play", "--resume", "1", "--data-dir", tmp_path, input="y4\n")
    assert proc.returncode == 0, proc.stderr
    with Journal.open(tmp_path) as j:
        assert [e.data for e in j.entries(1)][-1] == {"by": "Ann", "play": "y4"}


def test_claim_api_refuses_a_live_holder_and_takes_over_a_dead_one(tmp_path: Path) -> None:
    with Journal.open(tmp_path) as a, Journal.open(tmp_path) as b:
        gid = a.new_game("attack", ["Ann", "Bob"], {}, seed=1)
        held = rf"game {gid} is already open .*process {os.getpid()}"
        with a.claim(gid), pytest.raises(GameInUse, match=held), b.claim(gid):
            pass
        with b.claim(gid):  # released: free again
            pass
        # A claim written by a process that has ended (same host, its pid gone).
        dead = subprocess.Popen([sys.executable, "-c", "pass"])
        dead.wait()
        with sqlite3.connect(tmp_path / DB_NAME) as db:
            db.execute(
                "INSERT INTO claims VALUES (?, ?, ?, '', 'old', '2020-01-01 00:00:00')",
                (gid, dead.pid, socket.gethostname()),
            )
        with b.claim(gid), pytest.raises(GameInUse), a.claim(gid):
            pass


def test_append_must_extend_the_entry_it_last_saw(tmp_path: Path) -> None:
    """Two sessions of one game (as two processes without the claim): the second writer
    is refused and its game is unchanged, instead of both interleaving in the journal."""
    j1, j2 = Journal.open(tmp_path), Journal.open(tmp_path)
    try:
        s1 = Session.start(j1, "pocket-pizza", ["Ann", "Bob"], {}, seed=1, dealer="Bob")
        s1.apply({"by": "Bob", "choose": {"top": "y3"}})
        s2 = Session.resume(j2, s1.id)
        s2.apply({"by": "Ann", "play": "y4"})
        before = s1.game.state_key()
        with pytest.raises(JournalConflict, match="changed by another unolaunch"):
            s1.apply({"by": "Ann", "play": "y7"})
        assert s1.game.state_key() == before
        assert [e.data for e in j1.entries(s1.id)] == [
            {"by": "Bob", "choose": {"top": "y3"}},
            {"by": "Ann", "play": "y4"},
        ]
        with pytest.raises(JournalConflict):
            j1.append(s1.id, "undo", {"n": 1})
    finally:
        j1.close()
        j2.close()


def test_a_damaged_journal_is_called_damaged_not_incompatible(tmp_path: Path) -> None:
    with Journal.open(tmp_path) as j:
        s = Session.start(j, "pocket-pizza", ["Ann", "Bob"], {}, seed=1, dealer="Bob")
        s.apply({"by": "Bob", "choose": {"top": "y3"}})
        s.apply({"by": "Ann", "play": "y4"})
    with Journal.open(tmp_path) as other:  # the same action written twice
        other.append(s.id, "action", {"by": "Ann", "play": "y4"})
    with Journal.open(tmp_path) as j, pytest.raises(UnolaunchError) as err:
        Session.resume(j, s.id)
    assert "damaged at entry 3" in str(err.value)
    assert "incompatible" not in str(err.value)
    with sqlite3.connect(tmp_path / DB_NAME) as db:  # an entry that is not even JSON
        db.execute('UPDATE entries SET data = \'{"by": "Ann", "pl\' WHERE seq = 2')
    with Journal.open(tmp_path) as j, pytest.raises(UnolaunchError) as err:
        Session.resume(j, s.id)
    assert "entry 2 of game 1" in str(err.value) and "damaged" in str(err.value)
    assert "incompatible" not in str(err.value)
