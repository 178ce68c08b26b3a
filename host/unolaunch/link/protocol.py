"""The host side of the launcher's serial protocol (docs/protocol.md): framing and message
types, with no I/O. Feed it bytes as they come; it hands back whole messages.

    parser = LineParser()
    for msg in parser.feed(b'{"id": 1, "ok": true, "protocol": 1}\\n{"event": "pr'):
        ...                       # Reply(id=1, ok=True, ...)
    parser.feed(b'ess", "t": 5, "n": 1}\\n')   # [Event(name='press', ...)]

Lines that are not protocol messages (a REPL banner, a traceback, line noise, a line cut in
half by a reset) come out as :class:`Noise` so that the caller can show or ignore them; the
parser never raises on input.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

__all__ = [
    "MAX_LINE_IN",
    "MAX_REQUEST_ID",
    "PROTOCOL_VERSION",
    "SUPPORTED_PROTOCOLS",
    "Event",
    "LineParser",
    "Message",
    "Noise",
    "Reply",
    "encode_request",
    "parse_line",
]

#: The newest protocol version this host speaks; its ``hello`` asks for it, and the board
#: answers with the version both speak (docs/protocol.md, "Versions").
PROTOCOL_VERSION = 3
#: Board versions this host works with: a v1 firmware plays (v2 only adds the self-test
#: commands, ``unolaunch selftest`` asks for a flash; v3 the numbered, replayable events:
#: without them nothing missed is caught up).
SUPPORTED_PROTOCOLS = (1, 2, 3)
#: Request ids are 0 .. 2**31 - 1.
MAX_REQUEST_ID = 2**31 - 1
#: The longest line the host accepts from a board; longer ones are noise (a board's
#: largest reply, config_get, is far shorter).
MAX_LINE_IN = 64 * 1024


@dataclass(frozen=True)
class Reply:
    """The reply to request ``id`` (None when the board could not read an id)."""

    id: int | None
    ok: bool
    fields: dict[str, Any]

    @property
    def error(self) -> str | None:
        """The error code of a refused request (``bad_field``, ``fault``...)."""
        value = self.fields.get("error")
        return value if isinstance(value, str) else None

    @property
    def message(self) -> str:
        """The board's human-readable explanation of an error ("" when none)."""
        value = self.fields.get("message")
        return value if isinstance(value, str) else ""


@dataclass(frozen=True)
class Event:
    """An unsolicited event (``press``, ``eject``, ``boot``...), ``t`` in board ticks_ms."""

    name: str
    fields: dict[str, Any]

    @property
    def t(self) -> int | None:
        """The board's ``ticks_ms`` when it happened."""
        value = self.fields.get("t")
        return value if isinstance(value, int) else None


@dataclass(frozen=True)
class Noise:
    """A line that is not a protocol message, and why (kept for logs and diagnostics)."""

    line: bytes
    reason: str = field(default="not JSON")

    def text(self) -> str:
        """The line as text, undecodable bytes replaced."""
        return self.line.decode("utf-8", "replace")


Message = Reply | Event | Noise


def parse_line(line: bytes) -> Message | None:
    """Classify one line (without its ``\\n``; a trailing ``\\r`` is ignored).

    Returns None for a blank line, else a :class:`Reply`, :class:`Event` or :class:`Noise`.
    """
    line = line.rstrip(b"\r")
    if not line.strip():
        return None
    try:
        obj = json.loads(line)
    except (ValueError, UnicodeDecodeError):
        return Noise(line, "not JSON")
    if not isinstance(obj, dict):
        return Noise(line, "not a JSON object")
    if "event" in obj:
        name = obj["event"]
        if not isinstance(name, str):
            return Noise(line, "event name is not a string")
        return Event(name, obj)
    if "ok" in obj:
        rid = obj.get("id")
        ok = obj["ok"]
        if not isinstance(ok, bool):
            return Noise(line, "'ok' is not true/false")
        if rid is not None and (
            not isinstance(rid, int) or isinstance(rid, bool) or not 0 <= rid <= MAX_REQUEST_ID
        ):
            return Noise(line, "reply id is not a valid request id")
        return Reply(rid, ok, obj)
    return Noise(line, "neither a reply nor an event")


class LineParser:
    """Split a byte stream into protocol messages: ``feed(bytes) -> list[Message]``.

    Keeps the unfinished tail between calls. A line longer than ``max_line`` bytes is
    reported once as :class:`Noise` and skipped up to its end.
    """

    def __init__(self, max_line: int = MAX_LINE_IN) -> None:
        self.max_line = max_line
        self._buf = bytearray()
        self._skipping = False

    def feed(self, data: bytes) -> list[Message]:
        """Take the next bytes from the port; return the messages they complete."""
        out: list[Message] = []
        buf = self._buf
        buf += data
        start = 0
        while True:
            end = buf.find(b"\n", start)
            if end < 0:
                break
            if self._skipping:
                self._skipping = False
            elif end - start > self.max_line:
                out.append(self._too_long(buf[start:end]))
            else:
                msg = parse_line(bytes(buf[start:end]))
                if msg is not None:
                    out.append(msg)
            start = end + 1
        del buf[:start]
        if len(buf) > self.max_line:
            if not self._skipping:
                out.append(self._too_long(buf))
            self._skipping = True
            buf.clear()
        return out

    def _too_long(self, line: bytearray) -> Noise:
        return Noise(
            bytes(line[: min(80, self.max_line)]) + b"...", f"longer than {self.max_line} bytes"
        )

    def pending(self) -> bytes:
        """Bytes of a line not finished yet (e.g. a REPL prompt, which ends no line)."""
        return bytes(self._buf)

    def reset(self) -> None:
        """Forget any half line (after a reconnect: it will never be finished)."""
        self._buf.clear()
        self._skipping = False


def encode_request(rid: int, cmd: str, args: dict[str, Any] | None = None) -> bytes:
    """One request line: ``{"id": rid, "cmd": cmd, ...args}`` + ``\\n``, compact JSON."""
    if not 0 <= rid <= MAX_REQUEST_ID:
        raise ValueError(f"request id {rid} is out of range 0..{MAX_REQUEST_ID}")
    body: dict[str, Any] = {"id": rid, "cmd": cmd}
    if args:
        for key in args:
            if key in ("id", "cmd"):
                raise ValueError(f"argument {key!r} would overwrite the request's own field")
        body.update(args)
    return json.dumps(body, separators=(",", ":"), ensure_ascii=False).encode() + b"\n"
