# The serial protocol (docs/protocol.md): newline-delimited JSON framing, request
# validation and reply/event encoding. No I/O: feed(bytes) -> lines, parse(line) -> request
# or error reply, encode(dict) -> text line.
import json

PROTOCOL = 1
MAX_LINE = 1024  # bytes, without the newline
MAX_ID = 0x7FFFFFFF
TOO_LONG = object()  # LineReader's marker for a line that was cut off

MODES = ("random", "exact", "until_card")
FIRE_MODES = ("random", "exact")
MAX_CARDS = 40  # an "exact" burst; a bigger deal is several requests
MAX_PRESSES = 50

# cmd -> ((field, kind, required, a, b), ...)
#   kind "int": integer a..b; "str": string of a..b characters; "enum": one of a;
#   "bool": true or false; "obj": a JSON object.
#   Fields not listed are ignored (forward compatibility).
COMMANDS = {
    "hello": (),
    "status": (("perf", "bool", False, None, None),),
    "disarm": (),
    "stop": (),
    "config_get": (),
    "reset": (),
    "mode": (("mode", "enum", True, ("standalone", "hosted"), None),),
    "arm": (
        ("player", "str", True, 1, 32),
        ("presses", "int", False, 1, MAX_PRESSES),
        ("mode", "enum", False, MODES, None),
        ("cards", "int", False, 1, MAX_CARDS),
    ),
    "fire": (
        ("mode", "enum", False, FIRE_MODES, None),
        ("cards", "int", False, 1, MAX_CARDS),
    ),
    "seed": (("seed", "int", True, 0, 0xFFFFFFFF),),
    "config_set": (("config", "obj", True, None, None),),
}


class LineReader:
    """Splits a byte stream into lines of at most max_len bytes.

    feed() returns the complete lines seen so far: bytes (a trailing \\r removed, blank
    lines skipped) or TOO_LONG for a line that overflowed; an overflowing line is dropped up
    to its newline, so the stream re-synchronises on the next line.
    """

    def __init__(self, max_len=MAX_LINE):
        self.max_len = max_len
        self._buf = bytearray()
        self._over = False

    def _add(self, piece):
        if self._over or not piece:
            return
        if len(self._buf) + len(piece) > self.max_len:
            self._over = True
            self._buf = bytearray()
        else:
            self._buf.extend(piece)

    def feed(self, data):
        out: list = []
        start = 0
        while True:
            i = data.find(b"\n", start)
            if i < 0:
                self._add(data[start:])
                return out
            self._add(data[start:i])
            start = i + 1
            if self._over:
                self._over = False
                out.append(TOO_LONG)
                continue
            line = bytes(self._buf).strip()
            self._buf = bytearray()
            if line:
                out.append(line)


def error(req_id, code, message, **extra):
    reply = {"id": req_id, "ok": False, "error": code, "message": message}
    for k in extra:
        reply[k] = extra[k]
    return reply


def _check_field(spec, value):
    name, kind, _, a, b = spec
    if kind == "int":
        if type(value) is not int:
            return "%s must be an integer" % name
        if value < a or value > b:
            return "%s must be %d..%d" % (name, a, b)
    elif kind == "str":
        if type(value) is not str:
            return "%s must be a string" % name
        if not a <= len(value) <= b:
            return "%s must be %d..%d characters" % (name, a, b)
    elif kind == "enum":
        if value not in a or type(value) is not str:
            return "%s must be one of %s" % (name, ", ".join(a))
    elif kind == "bool":
        if type(value) is not bool:
            return "%s must be true or false" % name
    elif kind == "obj":
        if type(value) is not dict:
            return "%s must be an object" % name
    return None


def parse(line):
    """Validate one line. Returns (request, None) or (None, error_reply).

    `line` is bytes without its newline, or TOO_LONG. A valid request is the decoded dict;
    the error reply names what was wrong (docs/protocol.md, "error codes").
    """
    if line is TOO_LONG:
        return None, error(
            None, "too_long", "line longer than %d bytes; send shorter lines" % MAX_LINE
        )
    try:
        obj = json.loads(line.decode())
    except Exception:
        return None, error(None, "bad_json", "not a JSON line; send one JSON object per line")
    if type(obj) is not dict:
        return None, error(None, "not_object", 'send a JSON object like {"id": 1, "cmd": "hello"}')
    req_id = obj.get("id")
    if type(req_id) is not int or req_id < 0 or req_id > MAX_ID:
        return None, error(None, "bad_id", "id must be an integer 0..%d" % MAX_ID)
    cmd = obj.get("cmd")
    if type(cmd) is not str or cmd not in COMMANDS:
        return None, error(
            req_id, "unknown_cmd", "unknown cmd; known: " + ", ".join(sorted(COMMANDS))
        )
    for spec in COMMANDS[cmd]:
        name = spec[0]
        if name not in obj:
            if spec[2]:
                return None, error(req_id, "bad_field", "%s is required" % name, field=name)
            continue
        reason = _check_field(spec, obj[name])
        if reason:
            return None, error(req_id, "bad_field", reason, field=name)
    if cmd in ("arm", "fire"):
        mode = obj.get("mode", "random")
        if mode == "exact" and "cards" not in obj:
            return None, error(req_id, "bad_field", "mode exact needs cards", field="cards")
        if mode != "exact" and "cards" in obj:
            return None, error(
                req_id, "bad_field", "cards only goes with mode exact", field="cards"
            )
    return obj, None


_FIRST = ("id", "event", "ok", "error", "message")


def _enc(value):
    if type(value) is dict:
        return "{" + ", ".join(json.dumps(k) + ": " + _enc(value[k]) for k in sorted(value)) + "}"
    if type(value) is list or type(value) is tuple:
        return "[" + ", ".join(_enc(v) for v in value) + "]"
    return json.dumps(value)


def encode(msg):
    """One reply or event as a JSON line (no newline): id/event/ok/error/message first, then
    the other keys sorted, so a person reading a serial terminal finds things in one place."""
    parts = []
    for k in _FIRST:
        if k in msg:
            parts.append(json.dumps(k) + ": " + _enc(msg[k]))
    for k in sorted(msg):
        if k not in _FIRST:
            parts.append(json.dumps(k) + ": " + _enc(msg[k]))
    return "{" + ", ".join(parts) + "}"
