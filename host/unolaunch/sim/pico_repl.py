"""A Pico's USB REPL, emulated between the host and a MicroPython unix-port process.

The simulated unix board (:class:`unolaunch.sim.SimulatedLauncher`, ``sim/runner.py``) runs
the firmware in a ``micropython`` process (``sim/unixport.py``) behind the serial device a
host opens (``sim/base.py``). Its relay thread passes every byte between the two through one
:class:`PicoRepl`, which makes the unix port's REPL behave like a Pico's, so that
``mpremote`` and ``unolaunch flash`` work unchanged.

Why there is a relay between the two (facts measured on the unix port):

* The child runs on a pty of its own.  Its termios starts "raw, with NOFLSH set as a
  marker"; the unix port switches to ``c_lflag = 0`` while its REPL waits for input and back
  to our marker while code runs, so ``tcgetattr`` on our side tells us whether code runs.
* A Pico turns Ctrl-C into ``KeyboardInterrupt`` only while code runs with Ctrl-C as its
  interrupt character: not at the REPL, not before ``main.py`` has started running (the byte
  waits in the USB buffer), not after ``micropython.kbd_intr(-1)`` (the firmware's first
  statement); otherwise it is a byte the code can read. The relay does the same: 0x03
  becomes SIGINT only while code runs and MicroPython has its SIGINT handler installed
  (:meth:`UnixPortProcess.catches_sigint`: the unix port installs it exactly while Ctrl-C is
  its interrupt character); otherwise the byte is written to the process like any other,
  once (issue 20: a relay that repeated a SIGINT the process had not answered made one
  stray byte at boot a takeover).
* The unix port switches modes with ``TCSAFLUSH``, which throws away input that has not been
  read yet.  A Pico keeps it.  So around a mode switch (after a SIGINT, after a REPL
  command, when the child has just printed a prompt) the relay holds the host's bytes back
  until the switch has happened (a "gate").
* At an empty raw REPL, Ctrl-D makes the unix port *exit*; a Pico soft-resets.  The relay
  prints the soft-reboot banner and starts a new process, in raw-REPL mode if that is where
  the old one was, otherwise running ``main.py`` as a Pico does.
* The relay keeps its own fd of the host side open, so a host closing and reopening the port
  does not end anything; output nobody reads is dropped, as a Pico with no host drops it.

Who does what: :class:`PicoRepl` holds the host's bytes waiting for the child, the gate,
whether the child is at the raw REPL (from its banners) and, after a soft reset from the raw
REPL, the fresh child's banner until it is back there; it hands back what the host should
see. The board (``sim/runner.py``) owns the process's life: it notices the exit, prints
:data:`SOFT_REBOOT` and starts the next process (asking :attr:`PicoRepl.in_raw_repl` where),
and keeps the host's side of the cable (``sim/base.py``) and the physical state. A
:class:`PicoRepl` is used by the relay thread only and takes no lock.
"""

from __future__ import annotations

import time

from unolaunch.sim.unixport import UnixPortProcess

__all__ = ["SOFT_REBOOT", "PicoRepl"]

#: What a Pico prints when it soft-resets (Ctrl-D at the REPL, ``sys.exit``, main.py's end).
SOFT_REBOOT = b"MPY: soft reboot\r\n"

_CTRL_A = b"\x01"
_CTRL_C = 0x03
_ENTER_RAW = 0x01  # Ctrl-A at the friendly REPL
_LEAVE_RAW = 0x02  # Ctrl-B at the raw REPL
_CTRL_D = 0x04
_CR = 0x0D
_RAW_BANNER = b"raw REPL; CTRL-B to exit"
_FRIENDLY_BANNER = b'Type "help()" for more information.'
_PROMPTS = (b">>> ", b"\x04>", _RAW_BANNER + b"\r\n>")
_BANNER_START = b"MicroPython "
# How long the gate waits for the unix port to switch terminal mode before giving up.
_GATE_REPL_S = 0.5
_GATE_SIGINT_S = 0.15
_GATE_EXEC_S = 0.03
# After a Ctrl-D at an empty prompt the process ends (a Pico soft-resets): the host's next
# bytes are for the next process, however long the old one takes to go on a busy machine
# (a gate that opened after _GATE_REPL_S handed them to the dying one: a hello right after
# mpremote's soft reset was lost). This only bounds a process that never ends.
_GATE_EXIT_S = 30.0
# After Ctrl-A/Ctrl-B switch between the friendly and the raw REPL the unix port prints the
# other's banner and flushes its input: what follows waits for that prompt.
_GATE_PROMPT_S = 5.0
_BOOT_TIMEOUT_S = 5.0
# How long bytes the firmware handed back wait for the REPL's prompt (PicoRepl.replay).
_REPLAY_S = 2.0
# Past this many host bytes waiting for the child the relay stops reading the host.
_CHILD_BUFFER_MAX = 64 * 1024


class PicoRepl:
    """The Pico-like USB REPL in front of the current unix-port process (see the module).

    The board calls :meth:`boot` when it has started a process and :meth:`detach` when it
    has killed it; in between, :meth:`from_host` and :meth:`from_child` take the bytes each
    side wrote, and :meth:`deliver`, :meth:`check_gate` and :meth:`check_boot_raw` move
    things on (each turn of the relay thread, and when the child's pty can take bytes).
    """

    def __init__(self) -> None:
        self._child: UnixPortProcess | None = None
        self._to_child = bytearray()  # the host's bytes not yet handed to the child
        self._gate: tuple[str, float] | None = None  # ("repl"|"exec"|"sigint", deadline)
        self._raw_repl = False
        self._tail = b""
        self._boot_raw = False  # swallowing a fresh child's banner before entering raw REPL
        self._boot_buf = b""
        self._muted = False  # the dying child's output is being dropped
        self._replay = b""  # bytes the firmware handed back for the REPL, not yet there
        self._replay_until = 0.0  # ... given to the REPL only if its prompt comes by then
        self._at_prompt = False  # the child's last output was a prompt, nothing typed since

    # ------------------------------------------------------------------ the process
    def boot(self, child: UnixPortProcess, raw: bool, repl: bool = False) -> None:
        """A new process started: ``raw`` when it is to be taken into the raw REPL once its
        banner is out (a soft reset from the raw REPL); its banner is then kept back.
        ``repl``: it runs no ``main.py`` and goes straight to its REPL, whose mode switch
        would flush what it was handed before: the host's bytes wait for it. The host's
        bytes still waiting are kept for it."""
        self._child = child
        self._gate = ("repl", time.monotonic() + _BOOT_TIMEOUT_S) if repl else None
        self._at_prompt = False
        self._replay = b""  # they were for the REPL of the process before
        self._raw_repl = False
        self._tail = b""
        self._muted = False
        self._boot_raw = raw
        self._boot_buf = b""

    def replay(self, data: bytes) -> None:
        """The firmware gave back bytes it read that are the REPL's (what followed a REPL
        tool's Ctrl-C: mpremote's Ctrl-A). A Pico's os.dupterm makes them the first thing
        the REPL reads; the unix port has none, so they wait here until the child sits at
        its prompt, ahead of anything the host wrote since — if that prompt comes within
        _REPLAY_S (the one the hand-over prints), never a later one."""
        self._replay += data
        self._replay_until = time.monotonic() + _REPLAY_S

    def detach(self) -> None:
        """The process was killed: nothing is held for it any more (its banner included)."""
        self._child = None
        self._boot_raw = False
        self._gate = None

    @property
    def in_raw_repl(self) -> bool:
        """True when the child sits at the raw REPL (where a soft reset must leave the next
        one), not merely on its way there after a boot."""
        return self._raw_repl and not self._boot_raw

    # ------------------------------------------------------------------ host → child
    @property
    def accepts_input(self) -> bool:
        """False while too many of the host's bytes wait: the host's writes then block, as a
        USB device that NAKs makes them."""
        return len(self._to_child) < _CHILD_BUFFER_MAX

    @property
    def wants_to_write(self) -> bool:
        """True when bytes wait for the child and nothing holds them back."""
        return bool(self._to_child) and self._gate is None and not self._boot_raw

    @property
    def gated(self) -> bool:
        """True while a gate waits for the unix port to switch modes (poll it soon)."""
        return self._gate is not None

    def from_host(self, data: bytes) -> None:
        """Bytes the host wrote to the port: hand them on now if nothing holds them back."""
        self._to_child += data
        if self._child is not None and self._gate is None and not self._boot_raw:
            self.deliver()

    def drop_input(self) -> None:
        """The host's bytes in flight are lost (the cable went, or a hard reset)."""
        self._to_child.clear()

    def deliver(self) -> None:
        """Hand the host's bytes to the child, turning Ctrl-C into SIGINT while code runs
        that takes Ctrl-C as an interrupt (otherwise it is a byte, as on a Pico) and holding
        bytes back across the unix port's input-flushing mode switches."""
        child = self._child
        while self._to_child and child is not None and self._gate is None:
            executing = child.executing()
            if executing:
                cut = self._to_child.find(_CTRL_C)
                if cut >= 0 and not child.catches_sigint():
                    cut = -1  # a byte the code reads (or the REPL, once it is there)
                # (MicroPython may drop its handler between that look and the signal: at
                # main.py's first statement, at the end of a REPL statement; a SIGINT in
                # those microseconds ends the process, which the board then soft-resets)
                chunk = bytes(self._to_child if cut < 0 else self._to_child[:cut])
            else:
                # At the REPL: a Ctrl-D (run / soft reset), a switch between the friendly
                # and the raw REPL or, in the friendly REPL, a CR ends a command; the unix
                # port then flushes its input, so stop there.
                switch = _LEAVE_RAW if self._raw_repl else _ENTER_RAW
                ends = [i for i in (self._to_child.find(_CTRL_D), self._to_child.find(switch))]
                if not self._raw_repl:
                    ends.append(self._to_child.find(_CR))
                ends = [i for i in ends if i >= 0]
                cut = min(ends) if ends else -1
                chunk = bytes(self._to_child if cut < 0 else self._to_child[: cut + 1])
            if chunk:
                try:
                    n = child.write(chunk)
                except BlockingIOError:
                    return
                except OSError:
                    return  # the child is going away; the board notices its exit
                del self._to_child[:n]
                at_prompt, self._at_prompt = self._at_prompt, False
                if n < len(chunk):
                    return
                if not executing and cut >= 0:
                    if at_prompt and chunk == bytes([_CTRL_D]):
                        # Ctrl-D at an empty prompt: the process ends, what follows is the
                        # next one's (boot() or detach() opens the gate)
                        self._gate = ("exit", time.monotonic() + _GATE_EXIT_S)
                        return
                    if chunk[-1] in (_ENTER_RAW, _LEAVE_RAW):
                        self._gate = ("prompt", time.monotonic() + _GATE_PROMPT_S)
                        return
                    # After a Ctrl-D (run) wait longer than after a CR, which may only
                    # continue a statement.
                    wait = _GATE_EXEC_S if chunk[-1] == _CR else _GATE_REPL_S
                    self._gate = ("exec", time.monotonic() + wait)
                    return
            if executing and cut >= 0:
                del self._to_child[:1]  # the Ctrl-C itself becomes the signal
                child.interrupt()
                self._gate = ("sigint", time.monotonic() + _GATE_SIGINT_S)
                return

    def check_gate(self) -> None:
        """Open the gate once the unix port has switched modes (or waited long enough: the
        code took a SIGINT without stopping, as the launcher does with a stray one), then
        deliver."""
        if self._gate is None:
            return
        kind, deadline = self._gate
        child = self._child
        if child is None:
            return
        executing = child.executing()
        # ("exit": only the next process opens it, in boot(); "prompt": its prompt, in
        # from_child())
        switched = (kind == "exec" and executing) or (kind == "repl" and not executing)
        if switched or time.monotonic() >= deadline:
            self._gate = None
        if self._gate is None and self._to_child:
            self.deliver()

    # ------------------------------------------------------------------ child → host
    def from_child(self, data: bytes, resetting: bool = False) -> bytes | None:
        """Bytes the child printed; returns what goes to the host now (possibly empty), or
        None when nothing does. ``resetting``: the board reported a hard reset and its
        process is being killed; what it wrote before goes out (e.g. the reply to
        ``reset``), what the unix port prints while dying (its REPL banner) never left a
        real board."""
        if resetting:
            if self._muted:
                return None
            cut = data.find(_BANNER_START)
            if cut >= 0:
                self._muted = True
                data = data[:cut]
            if not data:
                return None
        if self._boot_raw:
            self._boot_buf += data
            return None
        seen = self._tail + data
        raw_at = seen.rfind(_RAW_BANNER)
        friendly_at = seen.rfind(_FRIENDLY_BANNER)
        if raw_at >= 0 or friendly_at >= 0:
            self._raw_repl = raw_at > friendly_at
        self._tail = seen[-64:]
        child = self._child
        prompt = any(seen.endswith(p) for p in _PROMPTS)
        self._at_prompt = prompt
        if prompt and self._gate is not None and self._gate[0] == "prompt":
            self._gate = None  # the other REPL is there (check_gate delivers)
        if child is not None and self._gate is None and prompt and child.executing():
            # A prompt printed while still in "running" mode: the unix port is about to
            # switch to raw mode and flush input; hold the host's next bytes until then.
            self._gate = ("repl", time.monotonic() + _GATE_REPL_S)
        if self._replay and time.monotonic() > self._replay_until:
            self._replay = b""  # stale: the REPL it was for came and went
        if self._replay and seen.endswith(b">>> "):
            # the REPL the firmware handed over waits: what it gave back comes first
            self._to_child[:0] = self._replay
            self._replay = b""
            if self._gate is None and child is not None:
                self.deliver()
        return data

    def check_boot_raw(self) -> bytes:
        """After a soft reset from the raw REPL: once the fresh child waits at its friendly
        prompt, take it into the raw REPL (its friendly banner is never shown: a Pico goes
        straight back to the raw REPL). Returns what the host should see after all: the
        kept banner if the child did not get there in time, otherwise nothing."""
        child = self._child
        if not self._boot_raw or child is None:
            return b""
        if self._boot_buf.endswith(b">>> ") and not child.executing():
            child.write(_CTRL_A)  # enter the raw REPL, as the old board was
            self._boot_raw = False
            self._boot_buf = b""
            if self._to_child:
                self.deliver()
        elif time.monotonic() - child.started > _BOOT_TIMEOUT_S:
            self._boot_raw = False
            late, self._boot_buf = self._boot_buf, b""
            return late
        return b""
