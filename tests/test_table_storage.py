"""The games file's real troubles, each one line naming the cause and what to do (issue 10,
item 6): a bad byte inside a page, a damaged page, a read-only data folder, a full disk
at open. Never `internal error`, never "unreadable, move it aside" for a disk that is
merely full or read-only."""

from __future__ import annotations

import os
import shutil
import sqlite3
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from conftest import RunCli, cli_env
from unolaunch.errors import UnolaunchError
from unolaunch.table.journal import DB_NAME, Journal, storage_error
from unolaunch.table.session import Session

COMMANDS = [["history"], ["history", "1"], ["play", "--resume", "1"]]


def _game(folder: Path) -> Path:
    with Journal.open(folder) as j:
        s = Session.start(j, "pocket-pizza", ["Zelda", "Bob"], {}, seed=1, dealer="Bob")
        s.apply({"by": "Bob", "choose": {"top": "y3"}})
        s.apply({"by": "Zelda", "play": "y4"})
    path = folder / DB_NAME
    assert not (folder / f"{DB_NAME}-wal").exists()  # all in the main file
    return path


def _one_line(proc: subprocess.CompletedProcess[str]) -> str:
    assert proc.returncode == 1, proc.stdout + proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, proc.stderr
    assert "internal error" not in lines[0] and "Traceback" not in proc.stderr
    return lines[0]


def test_a_bad_byte_inside_a_page_says_damaged(run_cli: RunCli, tmp_path: Path) -> None:
    path = _game(tmp_path)
    data = bytearray(path.read_bytes())
    at = data.find(b"Zelda")
    data[at + 1] = 0xFF  # no longer UTF-8
    path.write_bytes(bytes(data))
    for args in COMMANDS:
        line = _one_line(run_cli(*args, "--data-dir", tmp_path, input=""))
        assert f"the games file {path} is damaged" in line, line
        assert "not valid UTF-8" in line and "move it aside" in line
        assert "\ufffd" not in line and "\\udc" not in line  # no broken text echoed


def test_a_damaged_page_says_damaged(run_cli: RunCli, tmp_path: Path) -> None:
    path = _game(tmp_path)
    data = bytearray(path.read_bytes())
    page = 4096
    for start in range(page, len(data), page):
        data[start] = 0x42  # not a b-tree page type
    path.write_bytes(bytes(data))
    for args in COMMANDS:
        line = _one_line(run_cli(*args, "--data-dir", tmp_path, input=""))
        assert f"the games file {path} is damaged" in line, line
        assert "malformed" in line and "move it aside" in line


def _read_only(folder: Path) -> Callable[[list[str]], subprocess.CompletedProcess[str]]:
    """Run the CLI with ``folder`` read-only: by its permissions (a normal user), or as a
    read-only bind mount in a mount namespace (root ignores permissions)."""
    argv = [sys.executable, "-m", "unolaunch"]
    if os.geteuid() != 0:
        folder.chmod(0o555)
        prefix: list[str] = []
    else:
        unshare = shutil.which("unshare")
        prefix = [
            str(unshare),
            "--mount",
            "--propagation",
            "private",
            "sh",
            "-c",
            'mount --bind "$1" "$1" && mount -o remount,bind,ro "$1" && shift && exec "$@"',
            "sh",
            str(folder),
        ]
        ok = unshare is not None and (
            subprocess.run([*prefix, "true"], capture_output=True, timeout=30).returncode == 0
        )
        if not ok:
            pytest.skip("root without mount namespaces: cannot make a folder read-only")

    def run(args: list[str]) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [*prefix, *argv, *args, "--data-dir", str(folder)],
            input="",
            capture_output=True,
            text=True,
            env=cli_env(),
            timeout=60,
        )

    return run


@pytest.mark.parametrize("with_games", [True, False], ids=["games-file", "empty"])
def test_a_read_only_data_folder_says_so(tmp_path: Path, with_games: bool) -> None:
    folder = tmp_path / "data"
    folder.mkdir()
    if with_games:
        _game(folder)
    run = _read_only(folder)
    try:
        commands = [*COMMANDS, ["play", "--variant", "attack", "--players", "Ann,Bob"]]
        for args in commands if with_games else commands[:1] + commands[-1:]:
            if args[0] == "history":  # a listing only reads (issue 12): it works there
                proc = run(args)
                assert proc.returncode == 0, proc.stderr
                assert ("Zelda" if with_games else "No games yet") in proc.stdout
                continue
            line = _one_line(run(args))
            assert f"the games folder {folder} " in line and "read-only" in line, line
            assert "--data-dir" in line and "move it aside" not in line
            assert "damaged" not in line and "unreadable" not in line
    finally:
        folder.chmod(0o755)


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="needs /dev/full")
def test_a_full_disk_at_open_says_full(run_cli: RunCli, tmp_path: Path) -> None:
    """/dev/full: every write fails with ENOSPC, exactly as on a full disk."""
    (tmp_path / DB_NAME).symlink_to("/dev/full")
    for args in (["play", "--variant", "attack", "--players", "Ann,Bob"],):  # history: reads
        line = _one_line(run_cli(*args, "--data-dir", tmp_path, input=""))
        assert f"the disk holding {tmp_path} is full" in line, line
        assert "free some space" in line
        assert "move it aside" not in line and "unreadable" not in line


def _error(code: int, text: str) -> sqlite3.OperationalError:
    exc = sqlite3.OperationalError(text)
    exc.sqlite_errorcode = code
    return exc


@pytest.mark.parametrize(
    ("code", "text", "says"),
    [
        (13, "database or disk is full", "is full"),
        (10, "disk I/O error", "fails to read or write"),
        (5, "database is locked", "held by another program"),
        (11, "database disk image is malformed", "is damaged"),
        (26, "file is not a database", "is damaged"),
        (0, "Could not decode to UTF-8 column 'data' with text '\udcff'", "not valid UTF-8"),
    ],
)
def test_each_sqlite_failure_names_its_cause(
    tmp_path: Path, code: int, text: str, says: str
) -> None:
    err = storage_error(_error(code, text), tmp_path / DB_NAME)
    assert isinstance(err, UnolaunchError)
    assert says in str(err)
    assert "\udcff" not in str(err)
