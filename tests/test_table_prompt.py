"""The live prompt's screen order (issue 31; the live prompt is issue 34's): what another
thread prints reaches the screen before the prompt that follows the change it tells of,
and nothing printed while prompts come and go is lost.

A real prompt_toolkit prompt on a VT100 output (written to a string: the screen's bytes in
order) and a pipe for its keys; the printing threads are the table's (a phone's move, the
launcher's events). In a tmux pane: ``test_table_tmux.py``.
"""

from __future__ import annotations

import io
import sys
import threading
import time
from collections.abc import Callable, Iterator

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


@pytest.fixture
def live(monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[ToolkitReader, io.StringIO, object]]:
    """A live reader whose prompt draws on ``screen`` and reads keys from a pipe."""
    monkeypatch.setenv("TERM", "xterm-256color")
    screen = io.StringIO()
    with create_pipe_input() as keys:
        out = Vt100_Output(screen, lambda: Size(rows=24, columns=100), term="xterm-256color")
        with create_app_session(input=keys, output=out):
            reader = ToolkitReader(lambda text: [])
            assert reader.live
            yield reader, screen, keys


def test_a_notice_from_another_thread_is_on_the_screen_before_the_prompt_it_explains(
    live: tuple[ToolkitReader, io.StringIO, object], monkeypatch: pytest.MonkeyPatch
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
            keys.send_text("done\r")  # type: ignore[attr-defined]

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
    live: tuple[ToolkitReader, io.StringIO, object], monkeypatch: pytest.MonkeyPatch
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
            keys.send_text("x\r")  # type: ignore[attr-defined]

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
