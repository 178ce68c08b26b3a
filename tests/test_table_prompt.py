"""The live prompt's screen order (issue 31; the live prompt is issue 34's): what another
thread prints reaches the screen before the prompt that follows the change it tells of,
and nothing printed while prompts come and go is lost.

A real prompt_toolkit prompt on a VT100 output (written to a string: the screen's bytes in
order) and a pipe for its keys; the printing threads are the table's (a phone's move, the
launcher's events). In a tmux pane: ``test_table_tmux.py``.
"""

from __future__ import annotations

import contextlib
import io
import sys
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from prompt_toolkit.application import create_app_session
from prompt_toolkit.data_structures import Size
from prompt_toolkit.formatted_text import fragment_list_to_text, to_formatted_text
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output.vt100 import Vt100_Output
from unolaunch.table.prompt import ToolkitReader


def _until(ok: Callable[[], bool], what: str, timeout_s: float = 20.0) -> None:
    end = time.monotonic() + timeout_s
    while not ok():
        assert time.monotonic() < end, f"never: {what}"
        time.sleep(0.005)


@contextlib.contextmanager
def _reader(screen: io.StringIO) -> Iterator[tuple[ToolkitReader, Any]]:
    """A live reader whose prompt draws on ``screen`` and reads keys from a pipe."""
    with create_pipe_input() as keys:
        out = Vt100_Output(screen, lambda: Size(rows=24, columns=100), term="xterm-256color")
        with create_app_session(input=keys, output=out):
            reader = ToolkitReader(lambda text: [])
            assert reader.live
            yield reader, keys


@pytest.fixture
def live(monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[ToolkitReader, io.StringIO, Any]]:
    """A live reader on a screen of its own (see :func:`_reader`)."""
    monkeypatch.setenv("TERM", "xterm-256color")
    screen = io.StringIO()
    with _reader(screen) as (reader, keys):
        yield reader, screen, keys


def test_a_notice_from_another_thread_is_on_the_screen_before_the_prompt_it_explains(
    live: tuple[ToolkitReader, io.StringIO, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each change: the game moves on, the notice is printed, the prompt is refreshed (the
    order ``Table.repaint`` keeps); the first time the prompt is drawn naming the new
    player, that notice is on the screen already. (prompt_toolkit's ``patch_stdout`` wrote
    the notice from a thread of its own, after up to 0.2 s, and the refresh drew the new
    prompt at once: issue 31's tmux flake.) Each draw is watched as it happens (the
    prompt's ``after_render``): what it names, and how much of the screen was written."""
    reader, screen, keys = live
    monkeypatch.setattr(sys, "stdout", screen)  # the terminal, where lines go with no prompt
    who = ["P0"]
    app = reader._session.app
    drawn: list[tuple[str, int]] = []  # (the prompt's text, the screen's length) per draw

    def on_render(_: object) -> None:
        drawn.append(
            (
                fragment_list_to_text(to_formatted_text(reader._session.message)),
                len(screen.getvalue()),
            )
        )

    app.after_render += on_render
    failed: list[BaseException] = []

    def phones() -> None:
        try:
            _until(lambda: app.is_running, "the prompt runs")
            for i in range(1, 30):
                who[0] = f"P{i}"
                print(f"notice {i}: P{i - 1} played")
                reader.refresh()
                _until(lambda i=i: any(t == f"P{i}> " for t, _ in drawn), f"P{i}'s prompt")
        except BaseException as exc:  # said below, in the test's own thread
            failed.append(exc)
        finally:
            keys.send_text("done\r")

    with reader.output():
        thread = threading.Thread(target=phones)
        thread.start()
        line = reader.read(lambda: f"{who[0]}> ")
        thread.join()
    assert not failed, failed
    assert line == "done"
    text = screen.getvalue()
    for i in range(1, 30):
        written = next(n for t, n in drawn if t == f"P{i}> ")
        assert f"notice {i}: " in text[:written], f"P{i}'s prompt was drawn before notice {i}"


def test_lines_printed_while_prompts_come_and_go_are_all_written_in_order(
    live: tuple[ToolkitReader, io.StringIO, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Three threads print while the table asks 25 lines in a row (each prompt's loop
    starts and ends under them): every line is on the screen once, each thread's in the
    order it printed them — whether a prompt's loop wrote it, or the thread itself with no
    prompt running, or the prompt's end wrote what its loop had not got to."""
    reader, screen, keys = live
    monkeypatch.setattr(sys, "stdout", screen)  # the terminal, where lines go with no prompt
    stop = threading.Event()

    def printer(name: str) -> None:
        n = 0
        while not stop.is_set() or n < 50:
            print(f"<{name} {n}>")
            n += 1
            time.sleep(0.001)
        print(f"<{name} end {n}>")

    lines: list[str] = []

    failed: list[BaseException] = []

    def typist() -> None:
        app = reader._session.app
        for k in range(25):
            try:
                _until(lambda k=k: len(lines) == k and app.is_running, f"prompt {k}")
            except BaseException as exc:  # said below, in the test's own thread
                failed.append(exc)
            keys.send_text("x\r")

    with reader.output():
        printers = [threading.Thread(target=printer, args=(c,)) for c in "abc"]
        for t in [*printers, threading.Thread(target=typist)]:
            t.start()
        for _ in range(25):
            lines.append(reader.read(lambda: "T> "))
        stop.set()
        for t in printers:
            t.join()
    assert not failed, failed
    assert lines == ["x"] * 25
    text = screen.getvalue()
    for name in "abc":
        last = text.index(f"<{name} end ")
        n = int(text[last:].split()[2].rstrip(">"))
        at = [text.find(f"<{name} {i}>") for i in range(n)]
        assert all(a >= 0 for a in at), (
            f"{name}: lines lost: {[i for i, a in enumerate(at) if a < 0]}"
        )
        assert at == sorted(at), f"{name}: lines out of order"
        assert all(text.count(f"<{name} {i}>") == 1 for i in range(n)), f"{name}: a line twice"


class _Terminal(io.StringIO):
    """The terminal's own stream (lines written with no prompt running), slow to write:
    each write notes whether a prompt was running meanwhile."""

    def __init__(self, screen: io.StringIO, write_s: float = 0.01) -> None:
        super().__init__()
        self.screen = screen
        self.write_s = write_s
        self.app: Any = None
        self.during_prompt: list[str] = []

    def write(self, s: str) -> int:
        time.sleep(self.write_s)
        if self.app is not None and self.app.is_running:
            self.during_prompt.append(s)
        return self.screen.write(s)

    def isatty(self) -> bool:
        return True


def test_a_thread_writing_as_a_prompt_starts_never_writes_over_it(
    live: tuple[ToolkitReader, io.StringIO, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A thread printing lines (each slow to write) while the table's prompt starts: no
    line is written straight to the terminal once the prompt runs (its loop writes them,
    with the prompt taken down), and the prompt drawn after the change names the new
    player with the notice above it. Found by review: the thread went on writing over
    the prompt, and the prompt kept the old name."""
    reader, screen, keys = live
    terminal = _Terminal(screen)
    terminal.app = reader._session.app
    monkeypatch.setattr(sys, "stdout", terminal)
    who = ["P0"]
    drawn: list[tuple[str, int]] = []
    terminal.app.after_render += lambda _: drawn.append(
        (fragment_list_to_text(to_formatted_text(reader._session.message)), len(screen.getvalue()))
    )

    def printer() -> None:
        for i in range(12):
            print(f"line {i}")
        who[0] = "P1"
        print("notice: P0 played")
        reader.refresh()

    with reader.output():
        thread = threading.Thread(target=printer)
        thread.start()
        time.sleep(0.02)  # the printer is writing its first line as the prompt starts
        typist = threading.Thread(
            target=lambda: (
                thread.join(),
                _until(lambda: any(t == "P1> " for t, _ in drawn), "P1's prompt"),
                keys.send_text("r5\r"),
            )
        )
        typist.start()
        line = reader.read(lambda: f"{who[0]}> ")
        typist.join()
    assert terminal.during_prompt == []
    assert line == "r5"
    text = screen.getvalue()
    written = next(n for t, n in drawn if t == "P1> ")
    assert "notice: P0 played" in text[:written]
    assert [text.count(f"line {i}\n") for i in range(12)] == [1] * 12


def _a_line_then_a_move(screen: io.StringIO) -> tuple[str, int]:
    """'r5' entered at P0's prompt; a phone's move lands as the prompt ends. What was
    read, and the version (the player's number) the prompt's text last recorded."""
    with _reader(screen) as (reader, keys):
        who = ["P0"]
        version: list[int] = []

        def message() -> str:
            version.append(int(who[0][1:]))
            return f"{who[0]}> "

        app = reader._session.app

        def phone() -> None:
            _until(lambda: app.is_running, "the prompt")
            keys.send_text("r5\r")
            _until(lambda: not app.is_running, "the line entered")
            who[0] = "P1"
            print("notice: P0 played")
            reader.refresh()

        with reader.output():
            thread = threading.Thread(target=phone)
            thread.start()
            line = reader.read(message)
            at = version[-1]
            thread.join()
    return line, at


def test_a_refresh_after_the_line_is_entered_does_not_move_its_version(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Issue 34: a line carries the version its prompt showed (the prompt's text, asked,
    records it). A phone's move that lands after Enter, while the prompt ends, must not
    ask the text again: the line was typed at P0's prompt and carries P0's version. Found
    by review (18 of 20 carried P1's); 20 tries."""
    monkeypatch.setenv("TERM", "xterm-256color")
    for _ in range(20):
        screen = io.StringIO()
        monkeypatch.setattr(sys, "stdout", screen)
        assert _a_line_then_a_move(screen) == ("r5", 0)


def test_the_last_lines_are_written_when_the_table_ends(monkeypatch: pytest.MonkeyPatch) -> None:
    """A daemon thread (the web pages' painter, the launcher's events) is writing a line
    as the table prints its last one and ends: both are on the screen when the table's
    output closes (the process may end right after). Found by review: the last line was
    left to the daemon thread, and lost with it."""
    monkeypatch.setenv("TERM", "xterm-256color")
    screen = io.StringIO()
    terminal = _Terminal(screen)
    monkeypatch.setattr(sys, "stdout", terminal)
    with _reader(io.StringIO()) as (reader, _keys):
        with reader.output():
            threading.Thread(target=lambda: print("  · Bob played"), daemon=True).start()
            time.sleep(0.005)  # the daemon thread is in its write
            print("Game 7 is saved.")
        assert screen.getvalue().splitlines() == ["  · Bob played", "Game 7 is saved."]


def test_a_prompt_that_fails_to_start_holds_no_line(
    live: tuple[ToolkitReader, io.StringIO, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The prompt's text raises before the prompt starts (Ctrl-C while it waits for the
    game's lock): the lines printed after are written at once, not held for a prompt that
    never came. Found by review: they waited for the next prompt or the table's end."""
    reader, screen, _keys = live
    monkeypatch.setattr(sys, "stdout", screen)

    def interrupted() -> str:
        raise KeyboardInterrupt

    with reader.output():
        with pytest.raises(KeyboardInterrupt):
            reader.read(interrupted)
        thread = threading.Thread(target=lambda: print("launcher: Bob pressed, 2 cards"))
        thread.start()
        thread.join()
        assert screen.getvalue().endswith("launcher: Bob pressed, 2 cards\n")


def test_the_last_lines_keep_their_order_when_the_table_ends(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """As the table's output closes, one daemon thread is writing a line (slowly), the
    table's own last line waits behind it, and another thread prints just then: the
    three lines are written whole, in the order printed. Found by review: the third went
    straight to the terminal, ahead of the second and into it."""
    monkeypatch.setenv("TERM", "xterm-256color")
    screen = io.StringIO()
    monkeypatch.setattr(sys, "stdout", _Terminal(screen, write_s=0.05))
    third = threading.Event()

    def later() -> None:
        third.wait()
        time.sleep(0.01)
        print("3 launcher: reconnected")

    late = threading.Thread(target=later, daemon=True)
    late.start()
    with _reader(io.StringIO()) as (reader, _keys):
        with reader.output():
            threading.Thread(target=lambda: print("1 · Bob played"), daemon=True).start()
            time.sleep(0.005)  # the daemon thread is in its write
            print("2 Game 7 is saved.")
            third.set()
        late.join()
    assert screen.getvalue().splitlines() == [
        "1 · Bob played",
        "2 Game 7 is saved.",
        "3 launcher: reconnected",
    ]
