"""The host's client for a launcher on a serial port (pyserial): handshake, typed commands,
the event stream, and reconnection that restores what the host had armed.

    with open_launcher("auto") as launcher:          # or "/dev/ttyACM0", "loop://", sim.port
        launcher.arm("Bob", presses=2)
        for event in launcher.events(timeout=30):
            print(event)          # {"event": "press", ...}, {"event": "eject", ...}

Every read has a deadline. A launcher that goes away (unplugged, reset, its firmware
restarted) is noticed; with ``reconnect=True`` (the default) the client keeps trying to
open the port again, redoes the handshake, re-arms what was still owed, and reports what
happened as a ``{"event": "link", ...}`` event (and through :mod:`logging`): ``state``
(``lost``, ``restored``, ``recovered``), ``cause`` and a ``message`` for people; a
``restored`` event also has ``summary`` (the message without what was put back) and
``done`` (what was put back, e.g. ``["re-armed Ann for 2 presses"]``).
"""

from __future__ import annotations

import contextlib
import errno
import logging
import os
import random
import select
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator
from typing import Any, cast

import serial

from unolaunch import crashpoint
from unolaunch.i18n import _
from unolaunch.link.discovery import resolve_port
from unolaunch.link.errors import (
    BadReplyError,
    CommandError,
    ConfigInvalidError,
    DisconnectedError,
    EventLogGone,
    FaultError,
    IncompatibleFirmwareError,
    LinkError,
    NoEventError,
    NoReplyError,
    PortBusyError,
    PortNotFoundError,
    PortPermissionError,
    PortReplacedError,
)
from unolaunch.link.protocol import (
    MAX_REQUEST_ID,
    PROTOCOL_VERSION,
    SUPPORTED_PROTOCOLS,
    Event,
    LineParser,
    Noise,
    Reply,
    encode_request,
)

__all__ = ["EventDict", "LauncherClient", "open_launcher", "open_serial"]

log = logging.getLogger("unolaunch.link")

EventDict = dict[str, Any]
EventCallback = Callable[[EventDict], None]

_HELLO = {"protocol": PROTOCOL_VERSION}  # a v2 firmware answers a bare hello as v1
_SLICE_S = 0.05  # longest a reader holds the port lock while waiting for bytes (unless woken)
_RETRY_OPEN_S = 0.1  # pause between attempts to reopen a port that went away
_EVENT_BACKLOG = 10000  # events kept for events()/next_event() when nobody consumes them
_REPL_MARKERS = (b">>> ", b"raw REPL; CTRL-B to exit", b"\r\n>")

#: How long a launcher that does not answer ``hello`` (and sits at no REPL) is waited for
#: to start, after the hello's own timeout. The firmware is silent only while it boots
#: (the Ctrl-C guard, the imports, the first loop: about 0.2 s of a Pico's time, 0.5 s at
#: most) or while it hangs, and a hang ends in a watchdog reset within ``wdt_ms`` (at most
#: 8388 ms: the RP2040 watchdog's own limit) followed by a boot; either way its ``boot``
#: event says when it is up. So a silent launcher that runs unolaunch firmware is heard
#: from within 8.4 + 0.5 s of its own time; the wait is that, rounded up. (A simulated
#: RP2040 keeps this figure in its own clock, which may run slower than the host's: the
#: simulator's boots are waited for as their boot events come, see sim/rp2040.)
START_WAIT_S = 10.0
#: How long a device path that does not exist yet is waited for: a Pico's USB port goes
#: away when it resets and comes back when MicroPython starts its USB, about a second
#: later (the port of one just plugged in, the same).
PORT_WAIT_S = 5.0


class _Lost(Exception):
    """The port failed (device gone)."""


def _lost(exc: BaseException) -> _Lost:
    """A port failure, in words for the user (the raw error goes to the debug log)."""
    log.debug("port failure: %r", exc)
    return _Lost("the device went away: unplugged, or the board reset")


class _Rebooted(Exception):
    """The board announced a fresh boot while we were waiting for a reply."""


def _pty_identity(port: str) -> tuple[int, int] | None:
    """(device number, creation time) of a pseudo-terminal named directly (not through a
    symlink, which is meant to follow a replugged simulator); None for anything else."""
    if not port.startswith("/dev/pts/") or os.path.islink(port):
        return None
    try:
        st = os.stat(port)
    except OSError:
        return None
    return (st.st_rdev, st.st_ctime_ns)


def open_serial(port: str, exclusive: bool = True) -> serial.SerialBase:
    """Open ``port`` (a device path or a pyserial URL such as ``loop://``) for the protocol,
    turning the usual failures into :class:`LinkError` subclasses that say what to do."""
    try:
        ser = serial.serial_for_url(port, baudrate=115200, timeout=0, do_not_open=True)
        if hasattr(ser, "exclusive"):
            ser.exclusive = exclusive  # an honest 'busy' when mpremote/Thonny hold it
        ser.open()
    except (serial.SerialException, OSError, ValueError) as exc:
        raise _open_error(port, exc) from None
    return cast(serial.SerialBase, ser)


def _open_error(port: str, exc: BaseException) -> LinkError:
    code = getattr(exc, "errno", None)
    text = str(exc)
    if code in (errno.ENOENT, errno.ENXIO, errno.ENODEV) or "No such file" in text:
        return PortNotFoundError(
            f"no serial device {port}: is the launcher plugged in? "
            "(check the cable, or use --port auto to find it)",
            port,
        )
    if code in (errno.EACCES, errno.EPERM):
        return PortPermissionError(port)
    if code in (errno.EBUSY, errno.EAGAIN, errno.EWOULDBLOCK) or "exclusively lock" in text:
        return PortBusyError(port)
    if isinstance(exc, ValueError) or "URL" in text or "unknown" in text.lower():
        return PortNotFoundError(f"cannot use {port!r} as a serial port: {text}", port)
    return LinkError(f"cannot open {port}: {text}", port)


class LauncherClient:
    """A connection to one launcher (see the module docstring).

    ``port``: a device path, a pyserial URL, or ``auto``. ``timeout``: seconds to wait for
    any reply. ``reconnect``: when the launcher goes away, keep trying for
    ``reconnect_timeout`` seconds before giving up with :class:`DisconnectedError`.
    ``on_event``: called with every event (board events and ``link`` events), from the
    thread that happens to be reading. ``on_noise``: called with every line that is not a
    protocol message (a traceback, a REPL banner, line noise). ``on_wait``: called with a
    sentence when opening waits for something that takes time (a port coming back, a
    launcher starting), so that a user knows why nothing happens yet. ``start_wait``:
    seconds a silent launcher is given to start (:data:`START_WAIT_S`); ``port_wait``:
    seconds a device path that is not there is given to appear (:data:`PORT_WAIT_S`).
    """

    def __init__(
        self,
        port: str,
        timeout: float = 2.0,
        *,
        reconnect: bool = True,
        reconnect_timeout: float = 30.0,
        on_event: EventCallback | None = None,
        on_noise: Callable[[str], None] | None = None,
        on_wait: Callable[[str], None] | None = None,
        start_wait: float = START_WAIT_S,
        port_wait: float = PORT_WAIT_S,
    ) -> None:
        self.requested_port = port
        self.port = port
        self.timeout = timeout
        self.reconnect = reconnect
        self.reconnect_timeout = reconnect_timeout
        #: Whether a request waits for a lost launcher to come back (and then goes on). A
        #: program that keeps reading events (the table) sets it false: a request then
        #: fails at once with :class:`DisconnectedError` when the launcher is lost, is
        #: being reconnected, or goes away during it, and the reading thread does the
        #: reconnecting — so that a caller holding its own locks (the table's game) is not
        #: held for as long as a cable stays out.
        self.reconnect_in_requests = True
        #: The board's ``hello`` reply from the last handshake.
        self.info: dict[str, Any] = {}
        #: How many times the link was restored after the launcher went away or rebooted.
        self.reconnects = 0
        #: Config keys changed since boot that take effect after :meth:`reset` (from the
        #: last ``config_get``/``config_set``).
        self.restart_needed: list[str] = []
        self._ser: serial.SerialBase | None = None
        self._pty: tuple[int, int] | None = None  # which pty we opened, if it is one
        self._parser = LineParser()
        self._lock = threading.RLock()
        # A command goes before the reading thread (next_event), which holds the port lock
        # in slices while it waits for events: the command says it waits (_wanted), wakes
        # the reader's select (the pipe) and the reader lets it have the lock first. Without
        # this a command waited out the slice and then usually lost the race for the lock
        # to the reader's next slice: 100-250 ms for each arm and disarm of the table.
        self._turn = threading.Condition(threading.Lock())
        self._wanted = 0
        self._wake_fds: tuple[int, int] | None = None
        # Ids start at a random number, not 1: a reply that comes late from an earlier
        # connection to the same board (a hello answered after its client gave up, under a
        # slow boot) must not be taken for this one's request of the same number. Below
        # 2^20, so they stay MicroPython small ints on the board for a long while.
        self._next_id = random.SystemRandom().randrange(1, 2**20)
        self._replies: dict[int, Reply] = {}
        self._events: deque[EventDict] = deque(maxlen=_EVENT_BACKLOG)
        self._noise: deque[str] = deque(maxlen=20)
        self._callbacks: list[EventCallback] = [on_event] if on_event else []
        self._on_noise = on_noise
        self._on_wait = on_wait
        self._received = 0  # bytes read from the board so far (_exchange)
        self.start_wait = start_wait
        self.port_wait = port_wait
        self._boot_heard = False  # a `boot` event came during the handshake
        self._rebooted = False
        self._asking: int | None = None  # the request id _exchange waits for
        self._closed = False
        self._in_handshake = False
        # What the host asked for, so that it can be restored after a reboot.
        self._want_hosted = False
        self._armed: dict[str, Any] | None = None
        self._burst: EventDict | None = None  # a press whose eject has not come yet
        #: Protocol 3: the launcher's boot id and the last numbered event received (or
        #: caught up) from it; a ``seq`` at or below it is a duplicate and never emitted.
        self.boot: int | None = None
        self.last_seq = 0
        #: events sent again while _fetch_since waits for its `events` reply (None: not
        #: asking; a replay another port asked for is none of ours: the firmware sends every
        #: event to every port)
        self._replayed: list[EventDict] | None = None
        self._held: list[EventDict] = []  # events after a gap in the numbers (_fresh)

    # ------------------------------------------------------------------ lifecycle
    def open(self) -> LauncherClient:
        """Open the port and shake hands; returns ``self``. Raises :class:`LinkError`."""
        with self._command():
            self._closed = False
            with self._turn:
                if self._wake_fds is None:
                    r, w = os.pipe()
                    os.set_blocking(r, False)
                    os.set_blocking(w, False)
                    self._wake_fds = (r, w)
            try:
                self._connect(first=True)
            except _Lost as exc:
                self._close_wake()
                raise DisconnectedError(
                    f"the launcher on {self.port} went away during the handshake ({exc}): "
                    "check the cable and run the command again",
                    self.port,
                ) from None
            except BaseException:
                # a failed open is not closed by its caller (the retry loops that wait for
                # a starting launcher): the pipe goes with it, not two fds per attempt
                self._close_wake()
                raise
        return self

    def close(self) -> None:
        """Close the port (the launcher keeps whatever state it has)."""
        with self._command():
            self._closed = True
            self._drop_port()
            self._close_wake()

    def _close_wake(self) -> None:
        with self._turn:
            fds, self._wake_fds = self._wake_fds, None
        for fd in fds or ():
            os.close(fd)

    @contextlib.contextmanager
    def _command(self, timeout: float = -1) -> Iterator[bool]:
        """Hold the port lock for a command (yields False if ``timeout`` passed first): the
        reading thread is woken from its wait and lets the command go first."""
        with self._turn:
            self._wanted += 1
            if self._wake_fds is not None:
                with contextlib.suppress(OSError):  # full: a wake-up is already waiting
                    os.write(self._wake_fds[1], b"w")
        try:
            got = self._lock.acquire(timeout=timeout)
        finally:
            with self._turn:
                self._wanted -= 1
                if not self._wanted:
                    self._turn.notify_all()
        try:
            yield got
        finally:
            if got:
                self._lock.release()

    def _let_commands_go(self) -> None:
        """The reading thread, between its slices: wait while a command wants the port."""
        with self._turn:
            self._turn.wait_for(lambda: not self._wanted, timeout=_SLICE_S)

    def __enter__(self) -> LauncherClient:
        if self._ser is None:
            self.open()
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def connected(self) -> bool:
        """True while the port is open and the handshake has been done."""
        return self._ser is not None

    @property
    def armed(self) -> dict[str, Any] | None:
        """What the host has armed and is still owed (``player``, ``presses`` left...)."""
        return dict(self._armed) if self._armed else None

    def on_event(self, callback: EventCallback) -> Callable[[], None]:
        """Call ``callback(event)`` for every event from now on; returns a function that
        unregisters it."""
        self._callbacks.append(callback)

        def remove() -> None:
            if callback in self._callbacks:
                self._callbacks.remove(callback)

        return remove

    # ------------------------------------------------------------------ commands
    def hello(self) -> dict[str, Any]:
        """The handshake request: ``firmware``, ``protocol``, ``board``, ``capabilities``,
        ``config_status``, ``mode``. Also checks the protocol version."""
        reply = self.request("hello", **_HELLO)
        self._check_hello(reply)
        self.info = reply
        return reply

    def status(self) -> dict[str, Any]:
        """``state``, ``mode``, ``armed``, ``fault``, ``presses``, ``cards_out``,
        ``uptime_ms``. What the board says it has armed becomes what the host tracks."""
        reply = self.request("status")
        armed = reply.get("armed")
        self._armed = dict(armed) if isinstance(armed, dict) else None
        return reply

    def set_mode(self, mode: str) -> str:
        """Switch to ``"hosted"`` (only owed presses fire) or ``"standalone"``."""
        reply = self.request("mode", mode=mode)
        self._want_hosted = mode == "hosted"
        if not self._want_hosted:
            self._armed = None
        return str(reply.get("mode", mode))

    def arm(
        self, player: str, presses: int = 1, mode: str = "random", cards: int | None = None
    ) -> dict[str, Any]:
        """Owe ``player`` ``presses`` presses; ``mode`` ``random`` (the pattern),
        ``exact`` (``cards`` per press) or ``until_card`` (Wild Hit Fire). Switches the
        launcher to hosted mode and replaces any earlier arming. Returns the arming."""
        args: dict[str, Any] = {"player": player, "presses": presses, "mode": mode}
        if cards is not None:
            args["cards"] = cards
        reply = self.request("arm", **args)
        armed = reply.get("armed")
        self._armed = dict(armed) if isinstance(armed, dict) else dict(args)
        self._want_hosted = True
        return dict(self._armed)

    def disarm(self) -> dict[str, Any] | None:
        """Cancel the arming; returns what was cancelled (None if nothing)."""
        reply = self.request("disarm")
        self._armed = None
        was = reply.get("was")
        return dict(was) if isinstance(was, dict) else None

    def fire(self, mode: str = "random", cards: int | None = None) -> dict[str, Any]:
        """Fire one burst now (a test): ``random`` or ``exact`` with ``cards``. The reply
        comes at once; an ``eject`` event follows."""
        args: dict[str, Any] = {"mode": mode}
        if cards is not None:
            args["cards"] = cards
        return self.request("fire", **args)

    def seed(self, seed: int) -> None:
        """Restart the pattern's random source from ``seed`` (same seed, same presses)."""
        self.request("seed", seed=seed)

    def config_get(self) -> dict[str, Any]:
        """The launcher's whole configuration."""
        reply = self.request("config_get")
        self.restart_needed = list(reply.get("restart_needed") or [])
        config = reply.get("config")
        if not isinstance(config, dict):
            raise BadReplyError("the launcher's config_get reply has no config object", self.port)
        return config

    def config_set(self, config: dict[str, Any]) -> dict[str, Any]:
        """Change some configuration keys (validated, then saved atomically on the board);
        returns the whole new configuration. Refusals raise :class:`ConfigInvalidError`."""
        reply = self.request("config_set", config=config)
        self.restart_needed = list(reply.get("restart_needed") or [])
        new = reply.get("config")
        if not isinstance(new, dict):
            raise BadReplyError("the launcher's config_set reply has no config object", self.port)
        return new

    def stop(self) -> dict[str, Any]:
        """Motor off at once, burst cancelled (its ``eject`` says ``cancelled``), fault
        cleared; an arming stays."""
        return self.request("stop")

    def test(self, part: str, ms: int, count: int = 1) -> dict[str, Any]:
        """Protocol 2: drive one part for the self-test — ``motor_forward``/``motor_reverse``
        for ``ms``, or ``count`` beeps (``buzzer``) or blinks (``led``) of ``ms`` on and
        ``ms`` off. Returns the reply (``part``, ``ms``: how long it runs); a ``tested``
        event follows when it ends. An older firmware raises
        :class:`IncompatibleFirmwareError` saying to flash."""
        self._need_protocol(2, "test")
        args: dict[str, Any] = {"part": part, "ms": ms}
        if count != 1:
            args["count"] = count
        return self.request("test", **args)

    def inputs(self) -> dict[str, Any]:
        """Protocol 2: ``button`` (``up``/``down``), ``beam`` (``clear``/``blocked``, null
        without a sensor), ``cards_seen`` (the sensor's count since boot) and ``presses``."""
        self._need_protocol(2, "inputs")
        return self.request("inputs")

    def _need_protocol(self, version: int, cmd: str) -> None:
        proto = self.info.get("protocol") if self.info else None
        if isinstance(proto, int) and proto < version:
            raise IncompatibleFirmwareError(
                f"the launcher on {self.port} runs firmware {self.info.get('firmware')} "
                f"(protocol {proto}), which has no '{cmd}' command: run 'unolaunch flash' "
                "to update it",
                self.port,
            )

    def reset(self, timeout: float = 10.0) -> None:
        """Reset the board (``machine.reset()``, e.g. after changing pins) and wait up to
        ``timeout`` seconds for it to come back; the handshake is redone and what was armed
        is restored. A real Pico leaves USB while it resets: that needs ``reconnect``."""
        with self._command():
            self._ensure_connected()
            deadline = time.monotonic() + timeout
            try:
                # Going down before its reply got out is a reset too.
                with contextlib.suppress(_Rebooted, NoReplyError):
                    self._check("reset", self._exchange("reset", {}, self.timeout))
                while not self._rebooted:
                    if time.monotonic() >= deadline:
                        raise NoReplyError(self.port, "reset (waiting for it to boot)", timeout)
                    self._pump(deadline, max_wait=_SLICE_S)
            except _Lost as exc:
                self._handle_lost(str(exc))
                return
            self._handle_reboot("the launcher was reset")

    # ------------------------------------------------------------------ events
    def next_event(self, timeout: float | None = None) -> EventDict | None:
        """The next event, waiting up to ``timeout`` seconds (None: forever); None if none
        came. Handles a launcher going away like the commands do."""
        deadline = None if timeout is None else time.monotonic() + timeout
        while True:
            if self._wanted:
                self._let_commands_go()
            if self._held and not self._events:
                with self._lock:
                    try:
                        self._fill_gap()
                    except _Lost as exc:
                        self._handle_lost(str(exc))
            if self._events:
                return self._events.popleft()
            if deadline is not None and time.monotonic() >= deadline:
                return None
            with self._lock:
                self._ensure_connected()
                if self._events:
                    continue
                try:
                    self._pump(deadline, max_wait=_SLICE_S, wakeable=True)
                except _Lost as exc:
                    self._handle_lost(str(exc))
                if self._reboot_pending():
                    self._handle_reboot()

    def events(self, timeout: float | None = None) -> Iterator[EventDict]:
        """Yield events as they come; stop when none arrives for ``timeout`` seconds
        (None: never stop)."""
        while True:
            event = self.next_event(timeout)
            if event is None:
                return
            yield event

    def wait_for(
        self, what: str | Callable[[EventDict], bool], timeout: float | None = None
    ) -> EventDict:
        """Wait for the first event named ``what`` (or matching it, if a function); events
        before it are passed over (callbacks still see them). Raises
        :class:`NoReplyError` after ``timeout`` seconds (default: the client's)."""
        match = (lambda e: e.get("event") == what) if isinstance(what, str) else what
        limit = self.timeout if timeout is None else timeout
        deadline = time.monotonic() + limit
        while True:
            event = self.next_event(max(0.0, deadline - time.monotonic()))
            if event is None:
                name = f"'{what}' event" if isinstance(what, str) else "event of those awaited"
                raise NoEventError(self.port, name, limit, self._seen())
            if match(event):
                return event

    # ------------------------------------------------------------------ requests
    def request(self, cmd: str, **args: Any) -> dict[str, Any]:
        """Send any command and return its reply's fields (refusals raise
        :class:`CommandError`). Survives the launcher going away when ``reconnect`` (and
        :attr:`reconnect_in_requests`)."""
        wait = self.reconnect_in_requests
        # (the reading thread holds the lock while it reconnects: a request that must not
        # wait for that gives up after a reply's time)
        with self._command(timeout=-1 if wait else self.timeout) as got:
            if not got:
                raise DisconnectedError(
                    f"the launcher on {self.port} is being reconnected: '{cmd}' was not sent",
                    self.port,
                )
            return self._request(cmd, args, wait)

    def _request(self, cmd: str, args: dict[str, Any], wait: bool) -> dict[str, Any]:
        if not wait and self._ser is None and not self._closed:
            raise DisconnectedError(
                f"the launcher on {self.port} is not connected: '{cmd}' was not sent", self.port
            )
        self._ensure_connected()
        tries = 0
        while True:
            tries += 1
            if self._reboot_pending():
                self._handle_reboot()  # it restarted since the last request: nothing is lost
            try:
                reply = self._exchange(cmd, args, self.timeout)
            except _Lost as exc:
                self._handle_lost(str(exc), wait=wait)
                self._after_interruption(cmd, "the launcher went away", tries)
                continue
            except _Rebooted:
                self._handle_reboot()
                self._after_interruption(cmd, "the launcher restarted", tries)
                continue
            except NoReplyError as silence:
                if not self.reconnect or tries > 1 or cmd == "hello":
                    raise
                # Maybe it rebooted and we missed the sign: probe, restore, retry once.
                try:
                    self._handle_silence()
                except NoReplyError:
                    raise silence from None
                continue
            fields = self._check(cmd, reply)
            crashpoint.step(f"launcher:{cmd}")  # the launcher acted on it (issue 33)
            return fields

    def send_raw(self, line: bytes, reply_id: int | None, timeout: float | None = None) -> Reply:
        """Send ``line`` as it is (for diagnostics and protocol tests) and return the reply
        carrying ``reply_id`` (None: the ``"id": null`` reply to an unreadable line). No
        reconnection, no checking of ``ok``."""
        limit = self.timeout if timeout is None else timeout
        with self._command():
            self._ensure_connected()
            try:
                self._write(line)
                deadline = time.monotonic() + limit
                key = -1 if reply_id is None else reply_id
                while True:
                    reply = self._replies.pop(key, None)
                    if reply is not None:
                        return reply
                    if time.monotonic() >= deadline:
                        raise NoReplyError(self.port, repr(line[:40]), limit, self._seen())
                    self._pump(deadline, want=key)
            except _Lost as exc:
                self._handle_lost(str(exc))
                raise DisconnectedError(
                    f"the launcher went away ({exc}): check the cable and run the command again",
                    self.port,
                ) from None

    def _after_interruption(self, cmd: str, what: str, tries: int) -> None:
        if cmd == "fire":
            raise DisconnectedError(
                f"{what} during fire on {self.port}: it may or may not have fired; "
                "look at the cards, then try again",
                self.port,
            )
        if tries >= 5:
            raise DisconnectedError(
                f"{what} again and again while sending {cmd} on {self.port}: "
                "check the cable and the power supply",
                self.port,
            )

    def _check(self, cmd: str, reply: Reply) -> dict[str, Any]:
        if reply.ok:
            return reply.fields
        code = reply.error
        if code == "fault" or (code == "bad_state" and "fault" in reply.message):
            raise FaultError(cmd, reply.fields, self.port)
        if code == "config_invalid":
            raise ConfigInvalidError(cmd, reply.fields, self.port)
        raise CommandError(cmd, reply.fields, self.port)

    def _exchange(self, cmd: str, args: dict[str, Any], timeout: float) -> Reply:
        """Send one request and wait for its reply (raises _Lost, _Rebooted, NoReplyError)."""
        if self._reboot_pending():
            raise _Rebooted  # nothing is sent to a restarted launcher before the handshake
        rid = self._next_id
        self._next_id = 1 if rid >= MAX_REQUEST_ID else rid + 1
        line = encode_request(rid, cmd, args)
        self._write(line)
        deadline = time.monotonic() + timeout
        heard = self._received
        self._asking = rid
        try:
            return self._await_reply(cmd, rid, deadline, heard, timeout)
        finally:
            self._asking = None

    def _reboot_pending(self) -> bool:
        """A boot event came and the handshake with that boot is still to be done."""
        return self._rebooted and not self._in_handshake

    def _await_reply(
        self, cmd: str, rid: int, deadline: float, heard: int, timeout: float
    ) -> Reply:
        """The wait of :meth:`_exchange` for the reply to request ``rid``."""
        while True:
            reply = self._replies.pop(rid, None)
            if reply is not None:
                return reply
            if self._reboot_pending():
                raise _Rebooted
            if time.monotonic() >= deadline:
                # The timeout is for silence: a board in the middle of a line (a slow one:
                # the emulated chip on a busy host) is answering; its line is bounded
                # (max_line), so this ends.
                if self._received == heard or not self._parser.pending():
                    raise NoReplyError(self.port, cmd, timeout, self._seen())
                heard = self._received
                deadline = time.monotonic() + timeout
            self._pump(deadline, want=rid)

    # ------------------------------------------------------------------ I/O
    def _write(self, data: bytes) -> None:
        ser = self._ser
        if ser is None:
            raise _Lost("port closed")
        try:
            ser.write(data)
        except (serial.SerialException, OSError) as exc:
            raise _lost(exc) from None

    def _pump(
        self,
        deadline: float | None,
        want: int | None = None,
        max_wait: float | None = None,
        wakeable: bool = False,
    ) -> None:
        """Wait (until ``deadline``, at most ``max_wait``) for bytes and dispatch them;
        ``wakeable``: return early when a command wants the port (:meth:`_command`)."""
        ser = self._ser
        if ser is None:
            raise _Lost("port closed")
        wait = 3600.0 if deadline is None else max(0.0, deadline - time.monotonic())
        if max_wait is not None:
            wait = min(wait, max_wait)
        try:
            fileno = ser.fileno()
        except (AttributeError, NotImplementedError, serial.SerialException, OSError):
            fileno = None
        try:
            if fileno is not None:
                wake = self._wake_fds[0] if wakeable and self._wake_fds is not None else None
                if wake is None:
                    ready, _, _ = select.select([fileno], [], [], wait)
                else:
                    if self._wanted:
                        return
                    ready, _, _ = select.select([fileno, wake], [], [], wait)
                    if wake in ready:
                        with contextlib.suppress(OSError):
                            os.read(wake, 64)
                        if fileno not in ready:
                            return
                if not ready:
                    return
                data = ser.read(ser.in_waiting or 1)
            else:  # a URL transport without a file descriptor (loop://, socket://...)
                data = ser.read(ser.in_waiting or 1)
                if not data:
                    time.sleep(min(wait, 0.005))
                    return
        except (serial.SerialException, OSError) as exc:
            raise _lost(exc) from None
        if not data:
            return
        self._received += len(data)
        for msg in self._parser.feed(data):
            self._dispatch(msg, want)

    def _dispatch(self, msg: Reply | Event | Noise, want: int | None) -> None:
        if isinstance(msg, Reply):
            if self._reboot_pending() and want is not None and want == self._asking:
                # After a boot event and before the handshake with that boot: the new boot
                # answering a request of _exchange's it read after it had lost the arming.
                # It goes again once the link is restored (_exchange raises _Rebooted); a
                # reply that came before the boot event in the stream was the old boot's and
                # was kept. (send_raw's waits take what comes: diagnostics.)
                log.debug("reply from a restarted launcher before the handshake: %s", msg.fields)
                return
            if msg.id is not None and msg.id == want:
                self._replies[msg.id] = msg
            elif msg.id is None and want is not None:
                # (want == -1: send_raw waiting for exactly this kind of reply)
                # The board could not read our request's id (garbled on the way): that
                # request will never get its own reply.
                self._replies[want] = msg
            else:
                log.debug("stale reply ignored: %s", msg.fields)
            return
        if isinstance(msg, Noise):
            text = msg.text()
            self._noise.append(text)
            log.debug("noise from %s: %r (%s)", self.port, text, msg.reason)
            if self._on_noise is not None:
                self._on_noise(text)
            return
        event = msg.fields
        if event.get("replay") is True:
            if self._replayed is not None:
                self._replayed.append(event)  # asked for with `events`: _fetch_since takes it
            else:
                log.debug("replay asked for by another port ignored: %s", event)
            return
        if self._in_handshake:
            # anything before our hello is answered is stale (docs/protocol.md); a boot
            # says the board is up (_await_start)
            self._boot_heard = self._boot_heard or msg.name == "boot"
            return
        if msg.name == "boot":
            self._rebooted = True
            self._track(event)
            self._emit(event)
            return
        self._deliver(event)

    def _deliver(self, event: EventDict) -> None:
        """An event from the board: to the queue and the callbacks unless it is a
        duplicate (or held back behind a gap: :meth:`_fresh`)."""
        if self._fresh(event):
            self._track(event)
            self._emit(event)

    def _fresh(self, event: EventDict) -> bool:
        """Is this numbered event new (and note it)? Events of another boot than the one
        this host shook hands with wait for the reboot's handshake; unnumbered ones (a v2
        firmware, heartbeats) are always new. One that skips numbers (the board's Outbox
        dropped lines a host did not read in time) is held back: :meth:`next_event` first
        asks for the ones missed, so that events are delivered in order, each once."""
        seq, boot = event.get("seq"), event.get("boot")
        if not isinstance(seq, int) or boot is None or boot != self.boot:
            return True
        if seq <= self.last_seq:
            return False
        if seq > self.last_seq + 1 or self._held:
            self._held.append(event)
            return False
        self.last_seq = seq
        return True

    def _fill_gap(self) -> None:
        """Deliver what a gap in the numbers held back: the missed events first (asked for
        with ``events``), then the held ones, in order, each once."""
        held, self._held = self._held, []
        try:
            missed = self._fetch_since(self.last_seq)
        except (EventLogGone, CommandError) as exc:
            log.info("could not fetch the events missed: %s", exc)
            missed = []
            self._emit(
                {
                    "event": "link",
                    "state": "log_gone",
                    "cause": "gap",
                    "message": f"events of the launcher were lost on the way ({exc})",
                }
            )
            if held:
                self.last_seq = int(held[0]["seq"]) - 1
        for event in sorted(missed + held, key=lambda e: int(e["seq"])):
            self._deliver(event)

    # ------------------------------------------------------------------ the event log (v3)
    def events_since(self, seq: int) -> list[EventDict]:
        """The launcher's numbered events after ``seq`` (protocol 3), in order, as it sent
        them (``replay: true``); they are not delivered again as events. Raises
        :class:`EventLogGone` when it no longer keeps them all, :class:`CommandError` on a
        firmware without the log."""
        with self._command():
            self._ensure_connected()
            self._need_protocol(3, "events")
            return self._fetch_since(seq)

    def _fetch_since(self, seq: int) -> list[EventDict]:
        out: list[EventDict] = []
        since = seq
        empty = 0  # answers in a row that brought none of the events they announced
        while True:
            replayed: list[EventDict] = []
            self._replayed = replayed
            try:
                reply = self._exchange("events", {"since": since}, self.timeout)
            finally:
                self._replayed = None
            if not reply.ok and reply.error == "gone":
                raise EventLogGone("events", reply.fields, self.port)
            fields = self._check("events", reply)
            got = {e["seq"]: e for e in replayed if isinstance(e.get("seq"), int)}
            upto = fields.get("to")
            if not isinstance(upto, int) or upto <= since:
                return out
            # only what came in an unbroken run: a line of the batch lost on the way (the
            # board's Outbox dropped it) is asked for again, never skipped
            n = since
            while n < upto and n + 1 in got:
                n += 1
                out.append(got[n])
            empty = empty + 1 if n == since else 0
            if empty >= 3:
                raise BadReplyError(
                    f"the launcher on {self.port} answered 'events' without sending them",
                    self.port,
                )
            if n < upto:
                since = n
                continue
            since = upto
            if not fields.get("more") and since >= int(fields.get("last") or 0):
                return out

    def _catch_up(self) -> list[str]:
        """After a reconnect to the same boot: deliver, in order, the events missed while
        the link was down (protocol 3), each once, marked ``caught_up``."""
        try:
            missed = self._fetch_since(self.last_seq)
        except EventLogGone as exc:
            self._emit(
                {
                    "event": "link",
                    "state": "log_gone",
                    "cause": "gone",
                    "oldest": exc.oldest,
                    "message": (
                        f"the launcher no longer keeps every event since the link went down "
                        f"(its log starts at {exc.oldest}): what happened meanwhile is unknown"
                    ),
                }
            )
            self.last_seq = int(exc.reply.get("last") or self.last_seq)
            return ["its log of events no longer reaches back: ask the table what happened"]
        self._held = []  # among what was just fetched
        for event in missed:
            self._deliver(dict(event, caught_up=True))
        n = len(missed)
        return [f"caught up {n} event{'s' if n != 1 else ''} missed meanwhile"] if n else []

    def _emit(self, event: EventDict) -> None:
        self._events.append(event)
        for callback in list(self._callbacks):
            try:
                callback(event)
            except Exception:  # a broken callback must not break the link
                log.exception("event callback failed")

    def _track(self, event: EventDict) -> None:
        """Keep what the host armed in step with the board's events."""
        name = event.get("event")
        armed = self._armed
        if name == "press":
            self._burst = event
            owed = event.get("owed")
            if armed and event.get("player") == armed.get("player") and isinstance(owed, int):
                if owed > 0:
                    armed["presses"] = owed
                else:
                    self._armed = None
        elif name == "eject":
            self._burst = None
        elif name == "done":
            if armed and event.get("player") == armed.get("player"):
                self._armed = None
        elif name == "fault":
            self._burst = None

    def _seen(self) -> str:
        tail = list(self._noise)[-3:]
        pending = self._parser.pending().decode("utf-8", "replace")
        if pending.strip():
            tail.append(pending)
        return " | ".join(t.strip() for t in tail if t.strip())[:200]

    # ------------------------------------------------------------------ connection
    def _open_port(self, first: bool = False) -> None:
        self._drop_port()
        self.port = resolve_port(self.requested_port)
        if first:  # (a reconnection keeps trying for reconnect_timeout anyway)
            self._await_port()
        identity = _pty_identity(self.port)
        if identity is not None and self._pty is not None and identity != self._pty:
            # A pseudo-terminal's name is handed to the next pty created, by any program:
            # it is not our launcher plugged back in (real ports and symlinks are).
            raise PortReplacedError(
                f"the device {self.port} went away and its name now belongs to another "
                "pseudo-terminal: for a simulator that survives unplug/replug, start it with "
                "'unolaunch sim --link PATH' and use --port PATH",
                self.port,
            )
        self._ser = open_serial(self.port)
        self._pty = identity
        self._parser.reset()
        self._replies.clear()
        self._rebooted = False

    def _await_port(self) -> None:
        """A device path that is missing may be a launcher resetting or just plugged in:
        wait up to :attr:`port_wait` for it to appear (saying so) before the open fails."""
        port = self.port
        if "://" in port or self.port_wait <= 0 or os.path.exists(port):
            return  # (a URL, or there)
        self._wait_note(
            _(
                "waiting for {port} to appear (a launcher that was just reset or plugged in "
                "takes about a second)…"
            ).format(port=port)
        )
        deadline = time.monotonic() + self.port_wait
        while not os.path.exists(port) and time.monotonic() < deadline:
            time.sleep(_RETRY_OPEN_S)

    def _wait_note(self, text: str) -> None:
        log.info("%s", text)
        if self._on_wait is not None:
            self._on_wait(text)

    def _drop_port(self) -> None:
        ser, self._ser = self._ser, None
        if ser is not None:
            with contextlib.suppress(serial.SerialException, OSError):
                ser.close()
        self._parser.reset()

    def _connect(self, first: bool = False) -> None:
        """Open and shake hands (one attempt; the ``first`` waits for a device path to
        appear); on failure the port is closed again."""
        self._open_port(first)
        try:
            self._handshake()
        except BaseException:
            self._drop_port()
            raise

    def _handshake(self) -> None:
        self._in_handshake = True
        self._boot_heard = False
        try:
            # A newline first ends any half line the board holds (line noise, a terminal's
            # keystrokes); the protocol ignores blank lines.
            self._write(b"\n")
            try:
                reply = self._hello()
            except NoReplyError:
                where = self._which_repl()
                if where is None:
                    reply = self._await_start()
                else:
                    # The board sits at the MicroPython REPL (after mpremote/Thonny, a crash,
                    # or an interrupted flash): a soft reset starts the firmware again, as a
                    # Pico does.
                    self._soft_reset_from_repl(where)
                    reply = self._exchange("hello", _HELLO, self.timeout)
            if not reply.ok:
                raise IncompatibleFirmwareError(
                    f"the launcher on {self.port} refused hello ({reply.message or reply.error}):"
                    " it does not run unolaunch firmware; run 'unolaunch flash'",
                    self.port,
                )
            fields = reply.fields
            self._check_hello(fields)
            self.info = fields
            self._note_boot(fields)
        finally:
            self._in_handshake = False
            self._rebooted = False

    def _await_start(self) -> Reply:
        """No answer to hello, and no REPL: the launcher may be starting (just reset or
        plugged in, or reset by its watchdog). Wait for its ``boot`` event as long as a
        start can take (:attr:`start_wait`, saying so), then shake hands."""
        if not self._boot_heard:
            self._wait_note(
                _(
                    "the launcher on {port} has not answered yet: waiting up to {seconds} s "
                    "for it to start…"
                ).format(port=self.port, seconds=f"{self.start_wait:g}")
            )
            deadline = time.monotonic() + self.start_wait
            while not self._boot_heard:
                if time.monotonic() >= deadline:
                    waited = 2 * self.timeout + self.start_wait  # the hello, the probe, this
                    raise NoReplyError(self.port, "hello", waited, self._seen())
                self._pump(deadline, max_wait=_SLICE_S)
        # It is up: what it answered while we were not asking is gone; ask again (the
        # probe's Ctrl-B before it makes the first a garbled line)
        return self._hello()

    def _hello(self) -> Reply:
        reply = self._exchange("hello", _HELLO, self.timeout)
        if reply.id is None:  # our hello arrived glued to earlier garbage: again
            reply = self._exchange("hello", _HELLO, self.timeout)
        return reply

    def _at_repl(self) -> bool:
        seen = b"".join(n.encode() for n in self._noise) + self._parser.pending()
        return any(marker in seen for marker in _REPL_MARKERS)

    def _which_repl(self) -> str | None:
        """Whether a board that did not answer hello sits at a MicroPython REPL: "friendly"
        (its prompt or banner was seen), "raw" (silent, but the probe found it), or None.

        The raw REPL echoes nothing and answers nothing until Ctrl-D, so a board left there
        (a flash killed half-way) is silent; the probe is Ctrl-B, which leaves the raw REPL
        (dropping the hello it swallowed) and makes MicroPython print its banner. To the
        launcher firmware a lone 0x02 is line noise."""
        if self._at_repl():
            return "friendly"
        self._noise.clear()
        self._write(b"\x02")
        deadline = time.monotonic() + self.timeout  # as long as any reply may take
        while time.monotonic() < deadline:
            self._pump(deadline, max_wait=_SLICE_S)
            if self._at_repl():
                return "raw"
        return None

    def _soft_reset_from_repl(self, where: str = "friendly") -> None:
        if where == "raw":
            message = (
                f"the launcher on {self.port} sat silent in MicroPython's raw REPL (a flash "
                "interrupted?): left it with Ctrl-B and soft-reset it into the firmware"
            )
        else:
            message = (
                f"the launcher on {self.port} was at the MicroPython REPL: soft-reset it into "
                "the firmware"
            )
        log.info("%s", message)
        self._emit({"event": "link", "state": "recovered", "cause": "repl", "message": message})
        self._write(b"\r\x03\x02")  # clear the line, leave the raw REPL
        deadline = time.monotonic() + self.timeout
        while not self._parser.pending().endswith(b">>> ") and time.monotonic() < deadline:
            self._pump(deadline, max_wait=_SLICE_S)
        self._noise.clear()
        self._write(b"\x04")  # soft reset: main.py runs
        while not any("soft reboot" in n for n in self._noise) and time.monotonic() < deadline:
            self._pump(deadline, max_wait=_SLICE_S)

    def _note_boot(self, hello: dict[str, Any]) -> None:
        """A new boot (or the first handshake): its events so far are not ours to apply
        (they happened before this host was there); a reconnect to the same boot keeps
        ``last_seq`` so that :meth:`_catch_up` asks for what was missed."""
        boot, seq = hello.get("boot"), hello.get("seq")
        if boot != self.boot:
            self._held = []  # numbers of a boot that is over
        if boot is None or not isinstance(seq, int):
            self.boot, self.last_seq = None, 0  # a firmware without the event log
        elif boot != self.boot:
            self.boot, self.last_seq = boot, seq

    def _check_hello(self, reply: dict[str, Any]) -> None:
        proto = reply.get("protocol")
        if proto not in SUPPORTED_PROTOCOLS:
            firmware = reply.get("firmware", "unknown")
            raise IncompatibleFirmwareError(
                f"the launcher on {self.port} runs firmware {firmware} speaking protocol "
                f"{proto}; this unolaunch speaks protocol "
                f"{', '.join(map(str, SUPPORTED_PROTOCOLS[:-1]))} or {SUPPORTED_PROTOCOLS[-1]}: "
                "run 'unolaunch flash' to update the firmware",
                self.port,
            )

    def _ensure_connected(self) -> None:
        if self._closed:
            raise LinkError("this launcher connection is closed", self.port)
        if self._ser is None:
            if not self.reconnect:
                raise DisconnectedError(
                    f"the launcher on {self.port} is not connected: check the cable and "
                    "run the command again",
                    self.port,
                )
            self._reconnect()

    def _handle_lost(self, why: str, wait: bool = True) -> None:
        self._drop_port()
        lost_burst = self._burst
        self._burst = None
        message = f"lost the launcher on {self.port} ({why})"
        if self.reconnect:
            message += "; waiting for it to come back"
        if lost_burst is not None:
            message += (
                f"; a burst for {lost_burst.get('player') or 'a press'} was cut short: "
                "count the cards that came out by hand"
            )
        log.info("%s", message)
        lost: EventDict = {"event": "link", "state": "lost", "cause": "disconnected"}
        lost["message"] = message
        if lost_burst is not None:
            lost["burst"] = dict(lost_burst)  # the press whose eject will never come
        self._emit(lost)
        if not self.reconnect:
            raise DisconnectedError(
                message + ": check the cable and run the command again", self.port
            )
        if not wait:  # the reading thread reconnects (reconnect_in_requests)
            raise DisconnectedError(message, self.port)
        self._reconnect()

    def _handle_reboot(self, what: str = "the launcher restarted (reset or power dip)") -> None:
        """The board announced a fresh boot: shake hands again and restore."""
        self._rebooted = False
        self._burst = None
        self._in_handshake = False
        self._shake_and_restore(what, "reset")

    def _handle_silence(self) -> None:
        """No reply: ask hello once; if it answers, restore what might have been lost."""
        self._shake_and_restore("the launcher was silent, then answered", "no_reply")

    def _shake_and_restore(self, what: str, cause: str) -> None:
        """Shake hands again on the open port and restore the arming; say what happened."""
        started = time.monotonic()
        try:
            self._handshake()
            done = self._restore()
        except _Lost as exc:
            self._handle_lost(str(exc))
            return
        self._restored(what, started, done, cause)

    def _reconnect(self) -> None:
        started = time.monotonic()
        deadline = started + self.reconnect_timeout
        last: Exception | None = None
        while True:
            try:
                boot = self.boot
                self._connect()
                if boot is not None and self.boot == boot:
                    # the same boot: the board kept its arming and its events; take the
                    # ones missed (they count the arming down) instead of re-arming
                    done = self._catch_up()
                else:
                    done = self._restore()
                break
            except (IncompatibleFirmwareError, PortReplacedError):
                raise
            except (LinkError, _Lost) as exc:
                self._drop_port()
                last = exc
            if time.monotonic() >= deadline:
                raise DisconnectedError(
                    f"lost the launcher on {self.port} and it did not come back within "
                    f"{self.reconnect_timeout:g} s ({last}): check the USB cable, then run "
                    "the command again",
                    self.port,
                )
            time.sleep(_RETRY_OPEN_S)
        self._restored("the launcher is back", started, done, "disconnected")

    def _restore(self) -> list[str]:
        """Put back what the host had set up on the board (it lost it all); a board that
        reboots again meanwhile gets a new handshake first."""
        for _attempt in range(3):
            try:
                return self._restore_once()
            except _Rebooted:
                self._handshake()
        raise DisconnectedError(
            f"the launcher on {self.port} keeps restarting: check its power supply and cable",
            self.port,
        )

    def _restore_once(self) -> list[str]:
        done: list[str] = []
        armed = self._armed
        try:
            if armed:
                keys = ("player", "presses", "mode", "cards")
                args: dict[str, Any] = {k: armed[k] for k in keys if k in armed}
                self._check("arm", self._exchange("arm", args, self.timeout))
                n = armed.get("presses")
                done.append(f"re-armed {armed.get('player')} for {n} press{'es' * (n != 1)}")
            elif self._want_hosted:
                self._check("mode", self._exchange("mode", {"mode": "hosted"}, self.timeout))
                done.append("back in hosted mode")
        except CommandError as exc:  # say so; retrying would not change the board's mind
            self._armed = None
            done.append(f"could not restore the arming ({exc})")
        return done

    def _restored(self, what: str, started: float, done: list[str], cause: str) -> None:
        self.reconnects += 1
        took = time.monotonic() - started
        summary = f"{what}: link restored in {took:.1f} s"
        message = "; ".join([summary, ", ".join(done)]) if done else summary
        log.info("%s", message)
        # `summary` and `done` apart too: a caller that re-arms differently says its own
        self._emit(
            {
                "event": "link",
                "state": "restored",
                "cause": cause,
                "message": message,
                "summary": summary,
                "done": done,
            }
        )


def open_launcher(port: str = "auto", timeout: float = 2.0, **kwargs: Any) -> LauncherClient:
    """Open a launcher by device path, pyserial URL or ``auto`` and shake hands.

    Keyword arguments go to :class:`LauncherClient` (``reconnect``, ``reconnect_timeout``,
    ``on_event``). Raises a :class:`LinkError` subclass with what to do when it fails.
    """
    return LauncherClient(port, timeout, **kwargs).open()
