"""Drive `unolaunch play` as a person would: in a pseudo-terminal (pexpect)."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

import pexpect
from conftest import cli_env
from pty_spawn import Spawn
from unolaunch.table.journal import Journal
from unolaunch.table.session import Session


class Player:
    """A pexpect session of ``unolaunch ARGS`` with its own data folder. Its terminal is a
    dumb one (``TERM=dumb``): pexpect reads the bytes as written, with no terminal to
    carry out prompt_toolkit's cursor moves, so the table gets the plain prompt that it
    writes again when the game changes (the live prompt is tested in tmux:
    test_table_tmux.py)."""

    def __init__(
        self, data_dir: Path, *args: str, timeout: float = 20, env: dict[str, str] | None = None
    ) -> None:
        self.data_dir = data_dir
        self.child = Spawn(  # pexpect.spawn without forking this threaded process
            sys.executable,
            ["-m", "unolaunch", *args, "--data-dir", str(data_dir)],
            env=cli_env({"COLUMNS": "120", "TERM": "dumb", **(env or {})}),
            encoding="utf-8",
            dimensions=(60, 120),
            timeout=timeout,
        )
        self.transcript: list[str] = []
        self._at: str | None = None
        log = os.environ.get("UNOLAUNCH_TEST_TRANSCRIPT")
        if log:  # a readable record of the session, e.g. for the README
            self.child.logfile_read = open(log, "a", encoding="utf-8")  # noqa: SIM115

    def expect(self, text: str) -> str:
        """Wait for ``text``; return what came before it."""
        self.child.expect_exact(text)
        before = str(self.child.before)
        self.transcript.append(before + text)
        return before

    def at(self, prompt: str) -> str:
        """Wait for ``prompt`` (the game has settled: state() is now exact)."""
        before = self.expect(prompt)
        self._at = prompt
        return before

    def type(self, prompt: str, line: str) -> str:
        """At ``prompt``, type ``line`` + Enter; return the output before the prompt."""
        before = "" if self._at == prompt else self.expect(prompt)
        self._at = None
        self.child.sendline(line)
        return before

    def state(self, game_id: int = 1) -> dict[str, Any]:
        """The game's state as stored in the journal (what --resume would continue)."""
        with Journal.open(self.data_dir) as j:
            return Session.resume(j, game_id).snapshot()

    def entries(self, game_id: int = 1) -> int:
        """How many journal entries the game has."""
        with Journal.open(self.data_dir) as j:
            return len(j.entries(game_id))

    def refused(self, prompt: str, line: str, says: str = "") -> None:
        """Type bad ``line`` at ``prompt``: one ✗ line (containing ``says``), the same prompt
        again, and nothing stored."""
        if self._at != prompt:
            self.expect(prompt)
        self._at = None
        before_entries, before_state = self.entries(), self.state()
        self.child.sendline(line)
        self.child.expect_exact("✗ ")
        self.child.expect_exact("\n")
        message = str(self.child.before)
        self.transcript.append(f"{prompt}{line}\n✗ {message}")
        assert says in message, message
        assert self.entries() == before_entries
        assert self.state() == before_state
        # the same prompt comes back (the next type() expects it)

    def close(self) -> None:
        """End the session (quit if still running)."""
        if self.child.isalive():
            self.child.sendline("quit")
            self.child.expect(pexpect.EOF)
        self.child.close()


def start_web_play(
    data: Path,
    players: tuple[str, ...],
    dealer: str,
    *extra: str,
    timeout: float = 60,
    variant: str = "attack",
    web: str = "0",
) -> tuple[Player, str, dict[str, str]]:
    """``unolaunch play --variant VARIANT --web WEB`` for ``players`` (``extra``: more
    options, e.g. ``--port sim``, ``--lang is``): the started terminal, the table view's
    address and each player's join link, read from what it printed (in any language)."""
    p = Player(
        data,
        "play",
        "--variant",
        variant,
        "--players",
        ",".join(players),
        "--dealer",
        dealer,
        *extra,
        "--web",
        web,
        timeout=timeout,
    )
    try:
        p.expect("http://127.0.0.1:")
        url = "http://127.0.0.1:" + p.child.readline().split()[0]
        links = {}
        for name in players:
            p.expect(f"  {name}: ")
            links[name] = p.child.readline().strip()
    except BaseException:
        p.close()
        raise
    return p, url, links
