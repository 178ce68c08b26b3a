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
    # Not replayable (no start card): each entry told from its own data, in words.
    assert "Ann: play red 5" in proc.stdout
    assert "Bob presses the launcher: 2 cards came out" in proc.stdout
    data = json.loads(run_cli("history", str(a), "--json", "--data-dir", tmp_path).stdout)
    assert [e["data"] for e in data["log"]][1] == {"by": "Bob", "press": True, "cards": 2}


def test_history_unknown_game_and_empty_store(run_cli: RunCli, tmp_path: Path) -> None:
    proc = run_cli("history", "--data-dir", tmp_path)
    assert proc.returncode == 0 and "No games yet" in proc.stdout
    proc = run_cli("history", "42", "--data-dir", tmp_path)
    assert proc.returncode == 1
    assert proc.stderr.startswith("unolaunch: no game 42") and "Traceback" not in proc.stderr


def test_history_limit_is_one_or_more(run_cli: RunCli, tmp_path: Path) -> None:
    """Issue 12: --limit 0 / -1 printed "No games yet" while games existed."""
    _, b = _seed_games(tmp_path)
    for bad in ("0", "-1", "x"):
        proc = run_cli("history", "--limit", bad, "--data-dir", tmp_path)
        assert proc.returncode == 2, (bad, proc.stdout, proc.stderr)
        assert "--limit" in proc.stderr and "No games yet" not in proc.stdout
    games = json.loads(run_cli("history", "--limit", "1", "--json", "--data-dir", tmp_path).stdout)
    assert [g["game"] for g in games] == [b]


def _tree(folder: Path) -> dict[str, tuple[int, int]]:
    return {
        p.relative_to(folder).as_posix(): (p.stat().st_size, p.stat().st_mtime_ns)
        for p in folder.rglob("*")
    }


def test_history_listing_writes_nothing(run_cli: RunCli, tmp_path: Path) -> None:
    """Issue 12: `history --data-dir NEW/FOLDER` created the folders and an empty database;
    a listing (and a game's log) only reads."""
    new = tmp_path / "new" / "folder"
    for args in ([], ["--json"], ["3"]):
        proc = run_cli("history", *args, "--data-dir", new)
        assert "Traceback" not in proc.stderr
        assert not (tmp_path / "new").exists(), args
    assert run_cli("history", "--data-dir", new).stdout.startswith("No games yet")
    assert json.loads(run_cli("history", "--json", "--data-dir", new).stdout) == []
    missing = run_cli("history", "3", "--data-dir", new)
    assert missing.returncode == 1 and "no game 3" in missing.stderr
    a, _ = _seed_games(tmp_path)
    before = _tree(tmp_path)
    for args in ([], ["--json"], [str(a)], [str(a), "--json"]):
        assert run_cli("history", *args, "--data-dir", tmp_path).returncode == 0
    assert _tree(tmp_path) == before  # not a byte, not a -wal file, not a timestamp


def test_history_corrupt_store_is_one_line_error(run_cli: RunCli, tmp_path: Path) -> None:
    (tmp_path / "games.sqlite3").write_bytes(b"garbage" * 500)
    proc = run_cli("history", "--data-dir", tmp_path)
    assert proc.returncode == 1
    assert "unreadable" in proc.stderr and len(proc.stderr.strip().splitlines()) == 1


def _played_game(tmp_path: Path) -> int:
    """A short UNO Attack game kept by the table: a fix, presses, a round end, a deal."""
    from unolaunch.table.session import Session

    with Journal.open(tmp_path) as j:
        s = Session.start(j, "attack", ["Ann", "Bob", "Cy"], {}, seed=1, dealer="Cy")
        s.apply({"by": "Cy", "choose": {"top": "y5"}})
        s.correct("Bob", 2)  # typed while Ann is awaited: a fix of Bob's hand
        s.apply({"by": "Ann", "press": True, "cards": 2})
        s.apply({"by": "Bob", "play": "y7", "uno": True})
        s.apply({"by": "Cy", "play": "yH2"})
        s.apply({"by": "Ann", "press": True, "cards": 0})
        s.apply({"by": "Ann", "press": True, "cards": 1})
        s.apply({"by": "Bob", "play": "WAA", "color": "red", "target": "Cy"})
        s.apply({"by": "Cy", "press": True, "cards": 3})  # ATK-15: still owed (COM-7)
        s.apply({"by": "Cy", "press": True, "cards": 1})
        s.reveal({"Ann": 40, "Cy": 30})
        s.next_round()
        s.apply({"by": "Ann", "choose": {"top": "g3"}})
        s.apply({"by": "Bob", "play": "g4"})
        s.undo()
        return s.id


def test_history_log_in_the_words_of_the_game_screen(run_cli: RunCli, tmp_path: Path) -> None:
    # Issue 10: deal rows were 'None:', a fix was credited to the awaited player, and the
    # log was raw JSON instead of the game screen's words.
    gid = _played_game(tmp_path)
    proc = run_cli("history", str(gid), "--data-dir", tmp_path)
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    assert "None" not in out and "{" not in out and "=" not in out, out
    assert "Cy turns up the start card: yellow 5" in out
    assert "fix: Bob now holds 2 cards" in out and "Ann: correct" not in out
    assert "Ann presses the launcher: 2 cards came out" in out
    assert "Ann presses the launcher: no card came out" in out
    assert "Bob plays yellow 7 and says UNO" in out
    assert "Cy plays yellow Hit 2; Ann must press the launcher 2 times (ATK-11)" in out
    assert "Bob plays Wild Attack-Attack" in out and "colour is now red" in out
    assert "cards left: Ann 40 points, Cy 30 points; Bob wins the round and scores 70" in out
    assert "round 2 dealt" in out and "Ann deals" in out
    assert "undo: took back 'Bob plays green 4'" in out


class _Link:
    """A launcher link that takes the table's commands and does nothing."""

    def arm(self, *_args: object, **_kw: object) -> None:
        pass

    def disarm(self) -> None:
        pass


def test_history_shows_launcher_fouls_and_faults(run_cli: RunCli, tmp_path: Path) -> None:
    # Issue 10: what the launcher reported at the table (a foul, a jam, a press that did
    # not fit, cards for nobody) was on the screen only; it is kept in the journal as a
    # note that --resume skips, and the log shows it where it happened.
    import io

    from rich.console import Console
    from unolaunch.table.app import Table
    from unolaunch.table.launcher import LinkedLauncher
    from unolaunch.table.outcome import CLEAR, Outcome
    from unolaunch.table.session import Session

    with Journal.open(tmp_path) as j:
        s = Session.start(j, "attack", ["Ann", "Bob", "Cy"], {}, seed=1, dealer="Cy")
        s.apply({"by": "Cy", "choose": {"top": "y5"}})
        table = Table(s, Console(file=io.StringIO()), read_line=lambda _p: "")
        # a foul's and a fault's notes are journaled by the launcher's driver, with the
        # event's number in the same transaction (issue 33)
        launcher = LinkedLauncher(_Link(), s, table.redraw_from_event)
        launcher.handle({"event": "foul", "reason": "not_armed", "boot": 1, "seq": 1})
        s.apply({"by": "Ann", "press": True, "cards": 2})
        pressed = Outcome("press", {"who": "Ann", "cards": 2})
        table.redraw_from_event(pressed, CLEAR)  # applied: in the log already
        launcher.handle({"event": "fault", "code": "jam", "message": "", "boot": 1, "seq": 2})
        misfit = {"who": "Bob", "n": 3, "rule": "ATK-26"}
        table.redraw_from_event(None, Outcome("press_misfit", misfit))
        state = s.snapshot()
        gid = s.id
        again = Session.resume(j, gid)
        assert again.snapshot() == state  # notes change nothing in the game
        assert again.game.undo_depth == s.game.undo_depth
    out = run_cli("history", str(gid), "--data-dir", tmp_path).stdout
    lines = [ln for ln in out.splitlines() if "launcher" in ln]
    assert len(lines) == 4, out
    assert "launcher: foul: a press nobody owes" in lines[0]
    assert "Ann presses the launcher: 2 cards came out" in lines[1]
    assert "launcher: launcher fault: jam" not in out and "launcher: fault: jam" in lines[2]
    assert "launcher: Bob's press (3 cards) did not fit the game (ATK-26)" in lines[3]
    # the notes keep what happened as data, said in the language history is run in
    out = run_cli("history", str(gid), "--data-dir", tmp_path, "--lang", "is").stdout
    assert "brot: ýting sem enginn átti" in out and "foul" not in out


# Issue 22: more games than shown are counted; times are local; an abandoned game is closed.
def test_history_says_when_more_games_than_shown(run_cli: RunCli, tmp_path: Path) -> None:
    _seed_games(tmp_path)
    proc = run_cli("history", "--limit", "1", "--data-dir", tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert "1 older game not shown" in proc.stdout and "--limit 2" in proc.stdout
    assert "not shown" not in run_cli("history", "--data-dir", tmp_path).stdout


def test_history_shows_local_times(run_cli: RunCli, tmp_path: Path) -> None:
    a, _ = _seed_games(tmp_path)
    with Journal.open(tmp_path) as j:
        created = j.game(a).created  # stored in UTC
    from datetime import datetime, timedelta

    tokyo = (datetime.fromisoformat(created) + timedelta(hours=9)).strftime("%Y-%m-%d %H:%M")
    proc = run_cli("history", "--data-dir", tmp_path, env={"TZ": "Asia/Tokyo"})
    assert tokyo in proc.stdout and "(UTC)" not in proc.stdout
    proc = run_cli("history", str(a), "--data-dir", tmp_path, env={"TZ": "Asia/Tokyo"})
    assert f"started {tokyo}" in proc.stdout


def test_history_abandon_closes_an_unfinished_game(run_cli: RunCli, tmp_path: Path) -> None:
    a, b = _seed_games(tmp_path)
    proc = run_cli("history", "--abandon", str(a), "--data-dir", tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert f"game {a} is abandoned" in proc.stdout
    with Journal.open(tmp_path) as j:
        assert j.game(a).status == "abandoned" and j.latest_unfinished() is None
    proc = run_cli("history", "--abandon", str(b), "--data-dir", tmp_path)
    assert proc.returncode == 1 and "finished already" in proc.stderr
    line = next(ln for ln in run_cli("history", "--data-dir", tmp_path).stdout.splitlines()
                if "UNO Attack" in ln)  # fmt: skip
    assert "abandoned" in line
