"""`unolaunch play` on the command line: usage errors, a launcher that is not there,
resuming, a damaged games file — one clear line each, never a traceback."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import RunCli
from unolaunch.table.journal import Journal

NEW = ["play", "--variant", "attack", "--players", "Ann,Bob"]


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["play"], "which game?"),
        (["play", "--variant", "attack"], "name the players"),
        (["play", "--variant", "attack", "--players", "Ann,,Bob"], "a name is empty"),
        (["play", "--variant", "attack", "--players", "Ann,ann"], "same name"),
        (
            ["play", "--variant", "mario-kart", "--players", "Ann,Bob", "--port", "sim"],
            "no launcher",
        ),
        ([*NEW, "--dealer", "Zed"], "not one of Ann, Bob"),
        ([*NEW, "--target", "0"], "at least 1"),
        ([*NEW, "--option", "strict_press"], "KEY=VALUE"),
        (["play", "--resume", "--variant", "attack"], "leave out --variant"),
        (["play", "--resume", "--target", "50"], "leave out --target"),  # issue 22
        (["play", "--resume", "--option", "strict_press=true"], "leave out --option"),
        (["play", "--resume", "1", "--dealer", "Ann"], "leave out --dealer"),
        (["play", "--variant", "uno"], "invalid choice"),
    ],
)
def test_usage_errors(run_cli: RunCli, tmp_path: Path, args: list[str], says: str) -> None:
    proc = run_cli(*args, "--data-dir", tmp_path)
    assert proc.returncode == 2
    assert says in proc.stderr
    assert "Traceback" not in proc.stderr


def test_engine_refuses_bad_options_and_player_counts(run_cli: RunCli, tmp_path: Path) -> None:
    proc = run_cli(*NEW, "--option", "nosuch=1", "--data-dir", tmp_path)
    assert proc.returncode == 2 and "unknown option 'nosuch'" in proc.stderr
    many = ",".join(f"P{i}" for i in range(7))
    proc = run_cli("play", "--variant", "pocket-pizza", "--players", many, "--data-dir", tmp_path)
    assert proc.returncode == 2 and "2 to 5 players" in proc.stderr  # PP-3


def test_resume_without_a_game(run_cli: RunCli, tmp_path: Path) -> None:
    proc = run_cli("play", "--resume", "--data-dir", tmp_path)
    assert proc.returncode == 1 and "no unfinished game" in proc.stderr
    proc = run_cli("play", "--resume", "42", "--data-dir", tmp_path)
    assert proc.returncode == 1 and "no game 42" in proc.stderr


def test_missing_launcher_says_how_to_go_on(run_cli: RunCli, tmp_path: Path) -> None:
    proc = run_cli(*NEW, "--port", str(tmp_path / "no-such-port"), "--data-dir", tmp_path)
    assert proc.returncode == 1
    assert "--port none" in proc.stderr and len(proc.stderr.strip().splitlines()) == 1
    # Nothing was saved (issue 12); without the launcher presses are typed with their count.
    proc = run_cli(*NEW, "--port", "none", "--data-dir", tmp_path, input="r5\npress 2\nquit\n")
    assert proc.returncode == 0, proc.stderr
    with Journal.open(tmp_path) as j:
        (game,) = j.games()
        assert [e.data for e in j.entries(game.id)][-1]["cards"] == 2


def test_damaged_games_file(run_cli: RunCli, tmp_path: Path) -> None:
    (tmp_path / "games.sqlite3").write_bytes(b"not a database" * 300)
    proc = run_cli(*NEW, "--data-dir", tmp_path)
    assert proc.returncode == 1
    assert "unreadable" in proc.stderr and "move it aside" in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1


def test_piped_game_ends_saved_at_end_of_input(run_cli: RunCli, tmp_path: Path) -> None:
    proc = run_cli(
        "play",
        "--variant",
        "pocket-pizza",
        "--players",
        "Ann,Bob",
        "--dealer",
        "Bob",
        "--data-dir",
        tmp_path,
        input="y3\nblah\ny4\n",
    )
    assert proc.returncode == 0
    assert "✗ 'blah' is not a card here" in proc.stdout
    assert "\x1b[" not in proc.stdout  # no colours when not a terminal
    assert "Continue it with: unolaunch play --resume 1" in proc.stdout
    with Journal.open(tmp_path) as j:
        assert [e.data for e in j.entries(1)] == [
            {"by": "Bob", "choose": {"top": "y3"}},
            {"by": "Ann", "play": "y4"},
        ]


def test_a_game_that_cannot_reach_its_launcher_is_not_saved(
    run_cli: RunCli, tmp_path: Path
) -> None:
    """Issue 12: a play that failed to start (a bad --port) saved an empty 'playing' game
    that then cluttered history."""
    missing = tmp_path / "ttyACM9"
    proc = run_cli(
        "play",
        "--variant",
        "attack",
        "--players",
        "Ann,Bob",
        "--port",
        missing,
        "--data-dir",
        tmp_path,
        input="",
    )
    assert proc.returncode == 1 and "Traceback" not in proc.stderr
    assert f"no serial device {missing}" in proc.stderr
    assert "nothing was saved" in proc.stderr and "--port none" in proc.stderr
    assert "--resume" not in proc.stderr  # there is no game to resume
    listed = run_cli("history", "--json", "--data-dir", tmp_path)
    assert json.loads(listed.stdout) == []


def test_a_game_whose_web_pages_cannot_start_is_not_saved(run_cli: RunCli, tmp_path: Path) -> None:
    """Issue 12, as for the launcher: a play that fails to start saves no empty game."""
    import socket

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        proc = run_cli(
            *NEW, "--port", "none", "--web", f"127.0.0.1:{port}", "--data-dir", tmp_path, input=""
        )
    assert proc.returncode == 1 and "Traceback" not in proc.stderr, proc.stderr
    listed = run_cli("history", "--json", "--data-dir", tmp_path)
    assert json.loads(listed.stdout) == []


def _damage_pages(tmp_path: Path) -> Path:
    """A games file of 30 games whose middle pages are overwritten (a failing disk)."""
    with Journal.open(tmp_path) as j:
        for g in range(30):
            gid = j.new_game("attack", ["Ann", "Bob"], {}, seed=g)
            for i in range(40):
                press = {"by": "Ann", "press": True, "cards": i % 5, "pad": "x" * 80}
                j.append(gid, "action", press)
    path = tmp_path / "games.sqlite3"
    data = bytearray(path.read_bytes())
    page = 4096
    middle = len(data) // page // 2
    data[middle * page : (middle + 2) * page] = b"\xa5" * (2 * page)
    path.write_bytes(bytes(data))
    return path


def test_damaged_pages_are_found_at_start_and_the_readable_games_recovered(
    run_cli: RunCli, tmp_path: Path
) -> None:
    """Issue 22: a file with damaged pages takes no new game; 'history --recover' keeps
    every game it can read (the advice never makes them vanish)."""
    path = _damage_pages(tmp_path)
    proc = run_cli(*NEW, "--data-dir", tmp_path)
    assert proc.returncode == 1 and "Traceback" not in proc.stderr
    assert "damaged" in proc.stderr and "history --recover" in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1
    proc = run_cli("history", "--recover", "--data-dir", tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert (tmp_path / "games.sqlite3.bad").exists() and path.exists()
    with Journal.open(tmp_path) as j:  # the fresh file passes the check
        games = j.games()
        assert 20 <= len(games) <= 30 and "recovered" in proc.stdout
        whole = [g for g in games if len(j.entries(g.id)) == 40]
        assert len(whole) >= 20
    listing = run_cli("history", "--limit", "50", "--data-dir", tmp_path)
    assert listing.stdout.count("UNO Attack") == len(games)
