"""How the terminal reads a line: the prompt that follows the game.

In a terminal the table reads with prompt_toolkit (:class:`ToolkitReader`): the prompt's
text is a function, asked again every time the prompt is drawn, so it always names the
player whose move is awaited now — another thread (the launcher's events, a phone's move)
changes the game and calls :meth:`Reader.refresh`, and the prompt is redrawn at once with
what was typed kept. A window resize or Ctrl-L redraws it the same way (readline kept the
text it was started with: issue 34, item 1). Notices from other threads are printed
above the prompt (``patch_stdout``); Tab completes the words the table reads; Up/Down go
through the lines typed before.

A dumb terminal (``TERM=dumb``: an editor's shell, a script driving a pseudo-terminal)
gets prompt_toolkit's plain prompt: the table writes the prompt again itself when the game
changes (:attr:`Reader.live` is false). Piped input and in-process callers read through
:class:`PlainReader`.
"""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Callable, Iterable, Iterator
from typing import Any, Protocol

#: A prompt's text, asked each time it is drawn.
Message = Callable[[], str]


class Reader(Protocol):
    """What the table needs to read lines."""

    #: True when the reader redraws its prompt by itself (:meth:`refresh`); else the
    #: table writes the prompt again after printing over it.
    live: bool
    #: True when the lines come from a person at a terminal (else piped or scripted).
    terminal: bool

    def read(self, message: Message) -> str:
        """One line (``EOFError`` at the end of input, ``KeyboardInterrupt`` on Ctrl-C)."""
        ...

    def typed(self) -> str:
        """What is typed at the prompt so far (not yet entered)."""
        ...

    def refresh(self) -> None:
        """The game changed: draw the prompt again (from any thread)."""
        ...

    def output(self) -> contextlib.AbstractContextManager[Any]:
        """Around the table's run: where its prints go while a prompt may be shown."""
        ...


class PlainReader:
    """Lines from a function (``input``, or a test's script): the prompt is made once per
    line."""

    live = False

    def __init__(self, read_line: Callable[[str], str], terminal: bool = False) -> None:
        self.read_line = read_line
        self.terminal = terminal

    def read(self, message: Message) -> str:
        """The next line, asked with the prompt's text now."""
        return self.read_line(message())

    def typed(self) -> str:
        """Nothing is known of a line before it is entered."""
        return ""

    def refresh(self) -> None:
        """The table writes the prompt again itself."""

    def output(self) -> contextlib.AbstractContextManager[Any]:
        """Prints go where they go."""
        return contextlib.nullcontext()


class ToolkitReader:
    """A person at a terminal, through prompt_toolkit (see the module docstring).
    ``complete(text)``: the completions of the last word of ``text``."""

    terminal = True

    def __init__(self, complete: Callable[[str], Iterable[str]]) -> None:
        from prompt_toolkit import PromptSession
        from prompt_toolkit.completion import Completer, Completion
        from prompt_toolkit.history import InMemoryHistory
        from prompt_toolkit.shortcuts import CompleteStyle
        from prompt_toolkit.utils import is_dumb_terminal

        class _Words(Completer):
            def get_completions(self, document: Any, complete_event: Any) -> Iterator[Any]:
                text = document.text_before_cursor
                last = text.split(" ")[-1]
                for option in complete(text):
                    if option.startswith(last):  # the word goes on: only the rest is added
                        yield Completion(option[len(last) :] + " ", 0, display=option)
                    else:  # another case or accents ('blar' -> 'blár'): the word is replaced
                        yield Completion(option + " ", start_position=-len(last))

        self.live = not is_dumb_terminal()
        self._session: Any = PromptSession(
            history=InMemoryHistory(),
            completer=_Words(),
            complete_while_typing=False,  # Tab completes, as readline did
            complete_style=CompleteStyle.READLINE_LIKE,
        )
        self._echoed = ""
        if not self.live:
            # A dumb terminal's prompt echoes the one character before the cursor at each
            # change: a completion's other letters are written here first (this handler
            # runs before prompt_toolkit's own).
            self._session.default_buffer.on_text_changed += self._echo_completion

    def _echo_completion(self, buffer: Any) -> None:
        text = str(buffer.document.text_before_cursor)
        if text.startswith(self._echoed) and len(text) - len(self._echoed) > 1:
            self._session.output.write(text[len(self._echoed) : -1])
        self._echoed = text

    def read(self, message: Message) -> str:
        """One line; in a live terminal the prompt's text is asked at every redraw."""
        if self.live:
            return str(self._session.prompt(message))
        self._echoed = ""
        return str(self._session.prompt(message()))

    def typed(self) -> str:
        """The line being typed."""
        return str(self._session.default_buffer.text)

    def refresh(self) -> None:
        """Redraw the prompt (thread-safe; nothing when no prompt is shown)."""
        if self.live:
            self._session.app.invalidate()

    def output(self) -> contextlib.AbstractContextManager[Any]:
        """In a live terminal, everything printed goes above the prompt."""
        if not self.live:
            return contextlib.nullcontext()
        from prompt_toolkit.patch_stdout import patch_stdout

        return patch_stdout(raw=True)  # raw: the screen's colours pass


def terminal_reader(complete: Callable[[str], Iterable[str]]) -> Reader:
    """The reader for this process: prompt_toolkit when stdin and stdout are a terminal,
    else plain ``input`` (piped lines)."""
    if sys.stdin.isatty() and sys.stdout.isatty():
        return ToolkitReader(complete)
    return PlainReader(input)
