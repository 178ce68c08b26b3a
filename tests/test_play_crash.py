"""Crash safety of `unolaunch play`: SIGKILL at random points of a scripted game, then
`--resume`: the state equals the state before the kill, and the game plays on to the same
end as a game never interrupted."""

from __future__ import annotations

import random
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

from conftest import cli_env
from table_typist import script_game
from unolaunch.table.journal import DB_NAME, Journal
from unolaunch.table.session import Session

KILL_POINTS = 52
#: How many entries past its kill point a run is given lines for.
AHEAD = 3


def _entries(db: Path) -> int:
    if not db.exists():
        return 0
    try:
        con = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=5)
        try:
            return int(con.execute("SELECT COUNT(*) FROM entries").fetchone()[0])
        finally:
            con.close()
    except sqlite3.OperationalError:
        return 0


def _cli(args: list[str], data_dir: Path) -> list[str]:
    return [sys.executable, "-m", "unolaunch", *args, "--data-dir", str(data_dir)]


def _run_and_kill(args: list[str], lines: list[str], m: int, data_dir: Path) -> int:
    """Run `unolaunch ARGS` typing ``lines``, SIGKILL it once the journal holds >= m
    entries; return the number of entries that survived."""
    proc = subprocess.Popen(
        _cli(args, data_dir),
        stdin=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        env=cli_env(),
        text=True,
    )
    assert proc.stdin is not None
    proc.stdin.write("\n".join(lines) + "\n")
    proc.stdin.flush()
    db = data_dir / DB_NAME
    deadline = time.monotonic() + 60
    while _entries(db) < m and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.001)
    proc.kill()  # SIGKILL: no cleanup, no flush, no atexit
    _, err = proc.communicate(timeout=30)
    assert "Traceback" not in err, err
    return _entries(db)


def test_kill_at_random_points_then_resume(tmp_path: Path) -> None:
    """52 SIGKILLs along one game: each run resumes the game the previous kill left."""
    script = script_game(
        tmp_path / "reference", "attack", ["Ann", "Bob", "Cy"], seed=5, target=60, max_lines=600
    )
    total = max(script.keys)
    assert script.states[total]["game_winner"] is not None, "the script plays a whole game"
    entries_before = [0, *script.entries_after[:-1]]
    assert all(b - a <= 1 for a, b in zip(entries_before, script.entries_after, strict=True))
    # Kills before the game's end (after it, 'play --resume' without a number finds no
    # unfinished game; the closing note 'yes' leaves comes after it, issue 22).
    end = min(k for k, st in script.states.items() if st["game_winner"] is not None)
    points = sorted(random.Random(2024).sample(range(1, end), KILL_POINTS))
    data_dir = tmp_path / "table"
    args, start, survived = script.args, 0, []
    for m in points:
        # The run is typed the lines up to a few entries past m, not the whole rest: on a
        # loaded machine the killer's poll falls behind the table, and the kills would land
        # late and bunch (the coverage check below) -- the table still works on lines while
        # the kill comes.
        upto = next(
            (i for i in range(start, len(script.lines)) if script.entries_after[i] >= m + AHEAD),
            len(script.lines) - 1,
        )
        k = _run_and_kill(args, script.lines[start : upto + 1], m, data_dir)
        assert k >= m, f"an action stored before the kill was lost ({k} < {m})"
        survived.append(k)
        with Journal.open(data_dir) as journal:
            resumed = Session.resume(journal, script.game_id)
            assert resumed.game.state_key() == script.keys[k], f"kill at entry {k}"
            assert resumed.snapshot() == script.states[k]
        # Next run: --resume, typing from the first line the killed run had not finished.
        # (A loaded machine may let a run reach the game's end before its kill: then only
        # 'yes' is left to type, and the game is named, as a finished game must be.)
        last = len(script.lines) - 1
        start = entries_before.index(k) if k in entries_before else last
        args = ["play", "--resume"] if k < end else ["play", "--resume", str(script.game_id)]
    proc = subprocess.run(
        _cli(args, data_dir),
        input="\n".join(script.lines[start:]) + "\n",
        capture_output=True,
        text=True,
        env=cli_env(),
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    assert "wins the game" in proc.stdout
    with Journal.open(data_dir) as journal:
        final = Session.resume(journal, script.game_id)
        assert final.game.state_key() == script.keys[total]
        assert journal.game(script.game_id).status == "finished"
    # The kills really landed all over the game, not only at its start or end.
    assert len(set(survived)) >= KILL_POINTS * 0.8
    assert min(survived) < end / 4 and max(survived) > end * 3 / 4
