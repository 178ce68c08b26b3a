"""Issue 34 (a), item 1: the prompt follows the game, in a real terminal (tmux).

``unolaunch play --web`` runs in a tmux pane (a terminal emulator: what the screen shows is
what a player sees, cursor moves and redraws carried out). The phones act over HTTP; the
terminal's prompt must name the player whose move is awaited the moment the game changes
— with what was typed kept — and still after a window resize and Ctrl-L (readline's
``input()`` kept the prompt it was started with: ``Ann>`` came back on a redraw, and a line
typed there was Bob's without a word).
"""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from conftest import cli_env
from test_table_truth3 import post
from unolaunch.table.journal import Journal

pytestmark = pytest.mark.skipif(
    shutil.which("tmux") is None and os.environ.get("CI") != "true",
    reason="needs tmux (apt-get install tmux)",
)


class Pane:
    """One command in a tmux pane of its own server (``-L``: nothing shared with a tmux the
    machine runs)."""

    def __init__(self, tmp: Path, argv: list[str], width: int = 110, height: int = 45) -> None:
        self.socket = f"unolaunch-test-{os.getpid()}-{id(self)}"
        command = shlex.join([sys.executable, "-m", "unolaunch", *argv])
        self._tmux(
            "-f", "/dev/null", "new-session", "-d", "-s", "t",
            "-x", str(width), "-y", str(height), command,
        )  # fmt: skip
        self._tmux("set-option", "-t", "t", "remain-on-exit", "on")

    def _tmux(self, *args: str) -> str:
        done = subprocess.run(
            ["tmux", "-L", self.socket, *args],
            env=cli_env({"TERM": "xterm-256color"}),
            capture_output=True,
            text=True,
            timeout=20,
            check=True,
        )
        return done.stdout

    def screen(self, history: int = 0) -> str:
        """What the pane shows (with ``history`` lines scrolled off above it)."""
        extra = ["-S", f"-{history}"] if history else []
        return self._tmux("capture-pane", "-p", "-J", "-t", "t", *extra)

    def prompt(self) -> str:
        """The pane's last line with text: the prompt and what is typed at it."""
        lines = [line for line in self.screen().splitlines() if line.strip()]
        return lines[-1].rstrip() if lines else ""

    def wait(self, check: Callable[[], bool], what: str, timeout: float = 30) -> None:
        """Wait until ``check()``; fail with the screen."""
        deadline = time.monotonic() + timeout
        while not check():
            if time.monotonic() > deadline:
                raise AssertionError(f"no {what} within {timeout} s; the screen:\n{self.screen()}")
            time.sleep(0.1)

    def wait_prompt(self, text: str) -> None:
        """Wait until the prompt line reads ``text``."""
        self.wait(lambda: self.prompt() == text, f"prompt {text!r}")

    def keys(self, *keys: str, literal: bool = False) -> None:
        """Type ``keys`` (tmux key names, or text with ``literal``)."""
        self._tmux("send-keys", "-t", "t", *(["-l"] if literal else []), *keys)

    def resize(self, width: int, height: int) -> None:
        """The terminal window changes size."""
        self._tmux("resize-window", "-t", "t", "-x", str(width), "-y", str(height))

    def close(self) -> None:
        """End the pane's server (and the command in it)."""
        subprocess.run(["tmux", "-L", self.socket, "kill-server"], capture_output=True, timeout=20)


@pytest.fixture
def game(tmp_path: Path) -> Iterator[tuple[Pane, str, dict[str, str], Path]]:
    data = tmp_path / "data"
    argv = ["play", "--variant", "attack", "--players", "Ann,Bob,Cy", "--dealer", "Cy"]
    pane = Pane(tmp_path, [*argv, "--web", "0", "--data-dir", str(data)])
    try:
        pane.wait_prompt("Cy>")
        text = pane.screen(history=200)
        url = text.split("Table view: ", 1)[1].split()[0]
        links = {n: text.split(f"  {n}: ", 1)[1].split()[0] for n in ("Ann", "Bob", "Cy")}
        yield pane, url, links, data
    finally:
        pane.close()


def test_item1_the_prompt_names_who_is_awaited_whoever_changed_the_game(
    game: tuple[Pane, str, dict[str, str], Path],
) -> None:
    pane, url, links, data = game
    assert post(url, links["Cy"], {"by": "Cy", "choose": {"top": "r5"}})[0] == 200
    pane.wait_prompt("Ann>")  # redrawn at once, nothing typed at the terminal
    pane.keys("r", "9", literal=True)  # typed, not entered
    pane.wait_prompt("Ann> r9")
    assert post(url, links["Ann"], {"by": "Ann", "play": "r7"})[0] == 200  # her phone was first
    pane.wait_prompt("Bob> r9")  # the game moved on: the prompt follows, the typing stays
    pane.resize(90, 40)  # the window is made smaller...
    pane.keys("C-l")  # ...and the screen redrawn: the prompt is still the game's
    time.sleep(0.5)
    pane.wait_prompt("Bob> r9")
    pane.keys("Enter")  # typed at "Bob>": Bob's move
    pane.wait_prompt("Cy>")
    with Journal.open(data) as journal:
        actions = [e.data for e in journal.entries(1) if e.kind == "action"]
    assert actions[-2:] == [{"by": "Ann", "play": "r7"}, {"by": "Bob", "play": "r9"}]


def test_item1_notices_print_above_the_prompt_and_tab_completes(
    game: tuple[Pane, str, dict[str, str], Path],
) -> None:
    """A phone's move is printed above the prompt (the line being typed stays whole and
    last); Tab completes the table's words; Up recalls the last line typed."""
    pane, url, links, _data = game
    pane.keys("r", "5", "Enter", literal=False)
    pane.wait_prompt("Ann>")
    pane.keys("hi", literal=True)
    pane.keys("Tab")
    pane.wait_prompt("Ann> hit")  # 'hit' (its forms follow) completed from 'hi'
    assert post(url, links["Ann"], {"by": "Ann", "play": "r2"})[0] == 200
    pane.wait_prompt("Bob> hit")
    above = pane.screen()
    assert "Ann (web): Ann plays red 2" in above  # the phone's move, above the prompt
    pane.keys("C-u")
    pane.keys("Up")  # the line typed before: the start card
    pane.wait_prompt("Bob> r5")


def test_tab_offers_this_games_cards_only(tmp_path: Path) -> None:
    """Tab at the terminal (moved here from test_table_reading.py: the completions are
    listed on the screen): a plain UNO Attack deck has no Wild Hit Fire (ATK-2), so 'hi' and
    Tab complete the common part, and a second Tab lists Hit 2 and Hit 4 only."""
    data = tmp_path / "data"
    argv = ["play", "--variant", "attack", "--players", "Ann,Bob,Cy", "--dealer", "Cy"]
    pane = Pane(tmp_path, [*argv, "--data-dir", str(data)])
    try:
        pane.wait_prompt("Cy>")
        pane.keys("y5", literal=True)
        pane.keys("Enter")
        pane.wait_prompt("Ann>")
        pane.keys("hi", literal=True)
        pane.keys("Tab")
        pane.wait(lambda: "Ann> hit" in pane.screen(), "'hit' completed")
        pane.keys("Tab")
        pane.wait(lambda: "hit2" in pane.screen() and "hit4" in pane.screen(), "the choices")
        assert "hitfire" not in pane.screen()
    finally:
        pane.close()
