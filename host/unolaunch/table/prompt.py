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
            try:
                self._above.begin()  # what was printed before is written first, here
                self._message = message
                self._shown = message()
                return str(self._session.prompt(lambda: self._shown, pre_run=self._above.kick))
            finally:
                self._message = None
                self._above.end()  # what the prompt's last moment did not get to write
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
        # Runs on the prompt's loop with the prompt taken down, after the lines printed
        # before the refresh: the redraw that comes next shows the game as it is now. Not
        # once the line is entered: the text asked now is the version the line carries,
        # and it must be the one the person saw (issue 34).
        app = self._session.app
        message = self._message
        if message is not None and app.is_running and not app.is_done:
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
    first: issue 31.) Lines wait in a queue. While a prompt is being read (from
    :meth:`begin` to :meth:`end`, both in the reading thread) only the prompt's event loop
    writes them, with the prompt taken down (``run_in_terminal``; asked by every line, and
    once as the prompt starts); else the thread that printed writes them at once. What
    the prompt's loop did not get to before it ended is written by :meth:`end`, and the
    block of :meth:`installed` ends with everything written: nothing is lost."""

    def __init__(self, session: Any) -> None:
        self._session = session
        self._lock = threading.RLock()  # the queue, the partial line, _live
        self._partial: list[str] = []
        self._queue: deque[str | Callable[[], None]] = deque()
        self._live = False  # a prompt is being read: only its loop writes
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
            self.flush()
            self._drain(wait=True)  # a thread still writing the queue: its lines too
            sys.stdout, sys.stderr = stdout, stderr
            self.flush()  # what a thread printed meanwhile, after the rest
            self._drain(wait=True)

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
        self.kick()
        return len(data)

    def writelines(self, lines: Iterable[str]) -> None:
        """Each of ``lines``, as :meth:`write`."""
        for line in lines:
            self.write(line)

    def flush(self) -> None:
        """The part of a line written so far goes to the queue too."""
        with self._lock:
            if not self._partial:
                return
            self._queue.append("".join(self._partial))
            self._partial = []
        self.kick()

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

    @property
    def errors(self) -> str:
        """The terminal's."""
        return str(getattr(self._original, "errors", "strict"))

    # -- the queue
    def post(self, item: Callable[[], None]) -> None:
        """Run ``item`` on the prompt's loop, with the prompt taken down, once the lines
        printed before it are written (dropped when no prompt runs: the next one asks
        the game afresh)."""
        with self._lock:
            self._queue.append(item)
        self.kick()

    def kick(self) -> None:
        """Have the queue written: by the prompt's loop while a prompt is read, else now.
        (Also the prompt's ``pre_run``: it starts on the loop, before its first draw.)"""
        with self._lock:
            live = self._live
        if not live:
            self._drain()
            return
        app = self._session.app
        loop = app.loop
        if app.is_running and loop is not None:
            # In the reading thread's context: it names the running prompt, which
            # run_in_terminal takes down (a printing thread's may name none). A loop
            # that closed just now raises: end() writes the queue.
            with contextlib.suppress(RuntimeError):
                loop.call_soon_threadsafe(self._ask_terminal, context=self._context)
        # else the prompt is starting (its pre_run kicks) or ending (end() writes)

    def _ask_terminal(self) -> None:
        # On the prompt's loop: take the prompt down once for whatever is queued.
        if self._queue and not self._asked:
            from prompt_toolkit.application import run_in_terminal

            self._asked = True
            run_in_terminal(self._in_terminal, in_executor=False)

    def _in_terminal(self) -> None:
        self._asked = False
        self._drain(on_loop=True)

    def begin(self) -> None:
        """In the reading thread, before its prompt starts: what is queued is written
        here (a thread writing it out is waited for), and from now on only the prompt's
        loop writes."""
        with self._lock:
            self._live = True
        self._asked = False
        self._context = contextvars.copy_context()
        self._drain(wait=True)

    def end(self) -> None:
        """In the reading thread, once its prompt has returned: what the loop did not get
        to is written here, and printing threads write their own lines again."""
        with self._lock:
            self._live = False
        self._drain(wait=True)

    def _drain(self, on_loop: bool = False, wait: bool = False) -> None:
        """Write out the queue, in order. ``on_loop``: on the prompt's loop with the prompt
        taken down (the prompt's output is this thread's; a refresh's item runs). ``wait``:
        the reading thread with no prompt running (waits for a thread writing the queue,
        then writes it all). Else a printing thread: it writes only while no prompt is
        read, and leaves the queue to whoever is writing it already."""
        mine = wait or on_loop
        while mine or self._queue:  # mine: also a line being written by another thread
            if not self._draining.acquire(blocking=mine):
                return  # its writer takes what was queued meanwhile (it loops till empty)
            try:
                while True:
                    with self._lock:
                        if not self._queue or (self._live and not mine):
                            break
                        item = self._queue.popleft()
                    self._run(item, on_loop)
            finally:
                self._draining.release()
            if self._live and not mine:
                self.kick()  # a prompt started while this thread wrote: its loop is asked
                return
            if not self._queue:
                return

    def _run(self, item: str | Callable[[], None], on_loop: bool) -> None:
        if not isinstance(item, str):
            if on_loop:  # a refresh: only where a prompt is drawn again after it
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
