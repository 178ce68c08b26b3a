"""`unolaunch history`: past games with winner and scores; one game's log."""

from __future__ import annotations

import json
from pathlib import Path

from conftest import RunCli
from unolaunch.table.journal import Journal


def _seed_games(tmp_path: Path) -> tuple[int, int]:
    with Journal.open(tmp_path) as j:
        a = j.new_game("attack", ["Ann", "Bob", "Cy"], {}, seed=3)
        j.append(a, "action", {"by": "Ann", "play": "r5"})
        j.append(a, "action", {"by": "Bob", "press": True, "cards": 2})
        b = j.new_game("mario-kart", ["Ann", "Bob"], {}, seed=4)
        j.append(
            b,
            "action",
            {"by": "Ann", "play": "g+2"},
            scores={"Ann": 512, "Bob": 130},
            winner="Ann",
            finished=True,
            round_no=5,
        )
    return a, b


def test_history_lists_games_with_winner_and_scores(run_cli: RunCli, tmp_path: Path) -> None:
    a, b = _seed_games(tmp_path)
    proc = run_cli("history", "--data-dir", tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert "UNO Mario Kart" in proc.stdout and "UNO Attack" in proc.stdout
    line = next(ln for ln in proc.stdout.splitlines() if "Mario Kart" in ln)
    assert "finished" in line and "Ann 512, Bob 130" in line
    proc = run_cli("history", "--json", env={"UNOLAUNCH_DATA_DIR": str(tmp_path)})
    games = json.loads(proc.stdout)
    assert [g["game"] for g in games] == [b, a]
    assert games[0]["winner"] == "Ann" and games[1]["status"] == "playing"


def test_history_of_one_game_is_its_log(run_cli: RunCli, tmp_path: Path) -> None:
    a, _ = _seed_games(tmp_path)
    proc = run_cli("history", str(a), "--data-dir", tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert "Ann: play=r5" in proc.stdout
    assert "Bob: press cards=2" in proc.stdout
    data = json.loads(run_cli("history", str(a), "--json", "--data-dir", tmp_path).stdout)
    assert [e["data"] for e in data["log"]][1] == {"by": "Bob", "press": True, "cards": 2}


def test_history_unknown_game_and_empty_store(run_cli: RunCli, tmp_path: Path) -> None:
    proc = run_cli("history", "--data-dir", tmp_path)
    assert proc.returncode == 0 and "No games yet" in proc.stdout
    proc = run_cli("history", "42", "--data-dir", tmp_path)
    assert proc.returncode == 1
    assert proc.stderr.startswith("unolaunch: no game 42") and "Traceback" not in proc.stderr


def test_history_corrupt_store_is_one_line_error(run_cli: RunCli, tmp_path: Path) -> None:
    (tmp_path / "games.sqlite3").write_bytes(b"garbage" * 500)
    proc = run_cli("history", "--data-dir", tmp_path)
    assert proc.returncode == 1
    assert "unreadable" in proc.stderr and len(proc.stderr.strip().splitlines()) == 1
