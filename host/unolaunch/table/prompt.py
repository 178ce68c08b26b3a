"""How the terminal reads a line: the prompt that follows the game.

In a terminal the table reads with prompt_toolkit (:class:`ToolkitReader`): the prompt's
text is a function, asked again whenever the game changes, so it always names the player
whose move is awaited now — another thread (the launcher's events, a phone's move) changes
the game, prints what happened and calls :meth:`Reader.refresh`, and the prompt is drawn
again with what was typed kept, below that notice, never before it (:class:`_Above`). A
window resize or Ctrl-L redraws it the same way (readline kept the text it was started
with: issue 34, item 1). Tab completes the words the table reads; Up/Down go through the
lines typed before.

A dumb terminal (``TERM=dumb``: an editor's shell, a script driving a pseudo-terminal)
gets prompt_toolkit's plain prompt: the table writes the prompt again itself when the game
changes (:attr:`Reader.live` is false). Piped input and in-process callers read through
:class:`PlainReader`.
"""

from __future__ import annotations

import contextlib
import contextvars
import sys
import threading
from collections import deque
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
        self._message: Message | None = None
        self._shown = ""
        self._above = _Above(self._session)
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
        """One line; in a live terminal the prompt's text is the game's as of the last
        :meth:`refresh` that reached the screen (see :class:`_Above`)."""
        if self.live:
            self._above.restart()
            self._message = message
            self._shown = message()
            try:
                return str(self._session.prompt(lambda: self._shown))
            finally:
                self._message = None
                self._above.drain()  # what the prompt's last moment did not get to write
        self._echoed = ""
        return str(self._session.prompt(message()))

    def typed(self) -> str:
        """The line being typed."""
        return str(self._session.default_buffer.text)

    def refresh(self) -> None:
        """The game changed: the prompt's text follows it once what was printed before this
        call is on the screen (thread-safe; nothing when no prompt is shown)."""
        if self.live:
            self._above.post(self._follow)

    def _follow(self) -> None:
        # Runs where the prompt is taken down, after the lines printed before the refresh:
        # the redraw that comes next shows the game as it is now.
        message = self._message
        if message is not None:
            self._shown = message()

    def output(self) -> contextlib.AbstractContextManager[Any]:
        """In a live terminal, everything printed goes above the prompt."""
        if not self.live:
            return contextlib.nullcontext()
        return self._above.installed()


class _Above:
    """``sys.stdout`` and ``sys.stderr`` while a live prompt may be on the screen: each
    whole line printed (from any thread) is written above the prompt, in the order
    printed, and so is a change of the prompt's text (:meth:`ToolkitReader.refresh`), so
    the prompt never names the next player before the line saying why is on the screen.

    (prompt_toolkit's own ``patch_stdout`` writes from a thread of its own after a pause
    of 0.2 s that gathers small writes; a redraw asked meanwhile showed the new prompt
    first: issue 31.) Lines wait in a queue that the prompt's event loop empties with the
    prompt taken down (``run_in_terminal``); with no prompt running they are written at
    once, and what a prompt's loop did not get to before it ended is written as it
    returns: nothing is lost."""

    def __init__(self, session: Any) -> None:
        self._session = session
        self._lock = threading.RLock()
        self._partial: list[str] = []
        self._queue: deque[str | Callable[[], None]] = deque()
        self._asked = False  # the prompt's loop has been asked to empty the queue
        self._draining = threading.Lock()  # one thread writes the queue out at a time
        self._original: Any = sys.stdout
        self._context = contextvars.copy_context()

    @contextlib.contextmanager
    def installed(self) -> Iterator[None]:
        """Be ``sys.stdout`` and ``sys.stderr`` for the block."""
        stdout, stderr = sys.stdout, sys.stderr
        self._original = stdout
        sys.stdout = sys.stderr = self
        try:
            yield
        finally:
            sys.stdout, sys.stderr = stdout, stderr
            self.flush()
            self.drain()

    # -- the file the table prints to
    def write(self, data: str) -> int:
        """Keep ``data``; each whole line goes to the queue."""
        with self._lock:
            if "\n" not in data:
                self._partial.append(data)
                return len(data)
            before, after = data.rsplit("\n", 1)
            self._queue.append("".join(self._partial) + before + "\n")
            self._partial = [after] if after else []
        self._kick()
        return len(data)

    def flush(self) -> None:
        """The part of a line written so far goes to the queue too."""
        with self._lock:
            if not self._partial:
                return
            self._queue.append("".join(self._partial))
            self._partial = []
        self._kick()

    def isatty(self) -> bool:
        """As the terminal (the table's colours follow it)."""
        return bool(self._original.isatty())

    def fileno(self) -> int:
        """The terminal's."""
        return int(self._original.fileno())

    @property
    def encoding(self) -> str:
        """The terminal's."""
        return str(getattr(self._original, "encoding", "utf-8"))

    # -- the queue
    def post(self, item: Callable[[], None]) -> None:
        """Run ``item`` above the prompt once the lines printed before it are written."""
        with self._lock:
            self._queue.append(item)
        self._kick()

    def _kick(self) -> None:
        # The prompt's loop writes the queue out; with no prompt running, this thread.
        app = self._session.app
        loop = app.loop if app.is_running else None
        if loop is not None:
            try:
                # In the reading thread's context: it names the running prompt, which
                # run_in_terminal takes down (a printing thread's may name none).
                loop.call_soon_threadsafe(self._ask_terminal, context=self._context)
                return
            except RuntimeError:  # the loop closed just now: no prompt any more
                pass
        self.drain()

    def _ask_terminal(self) -> None:
        # On the prompt's loop: take the prompt down once for whatever is queued.
        if self._queue and not self._asked:
            from prompt_toolkit.application import run_in_terminal

            self._asked = True
            run_in_terminal(self._in_terminal, in_executor=False)

    def _in_terminal(self) -> None:
        self._asked = False
        self.drain(on_loop=True)

    def restart(self) -> None:
        """A new prompt (called in the thread that reads): no earlier loop's request is
        pending."""
        self._asked = False
        self._context = contextvars.copy_context()

    def drain(self, on_loop: bool = False) -> None:
        """Write (and run) what is queued, in order, here and now — or leave it to the
        thread doing so already. Nothing is held while an item runs: a prompt's text may
        wait for the game's lock, whose holder may be printing. ``on_loop``: called with
        the prompt taken down, on its loop (the prompt's output is this thread's to use);
        else the lines go to the terminal's stream itself."""
        while self._queue:
            if not self._draining.acquire(blocking=False):
                return  # its drainer takes what was queued meanwhile: the check below
            try:
                while self._queue:
                    self._run(self._queue.popleft(), on_loop)
            finally:
                self._draining.release()

    def _run(self, item: str | Callable[[], None], on_loop: bool) -> None:
        if not isinstance(item, str):
            item()
        elif on_loop:
            out = self._session.output
            out.enable_autowrap()
            out.write_raw(item)
            out.flush()
        else:
            self._original.write(item)
            self._original.flush()


def terminal_reader(complete: Callable[[str], Iterable[str]]) -> Reader:
    """The reader for this process: prompt_toolkit when stdin and stdout are a terminal,
    else plain ``input`` (piped lines)."""
    if sys.stdin.isatty() and sys.stdout.isatty():
        return ToolkitReader(complete)
    return PlainReader(input)
