# The serial protocol (docs/protocol.md): newline-delimited JSON framing, request
# validation and reply/event encoding. No I/O of its own: feed(bytes) -> lines, parse(line)
# -> request or error reply, encode(dict) -> text line, Outbox: lines out to a port.
import json

from launcher.ticks import ticks_diff

PROTOCOL = 3  # the newest version spoken; `hello` negotiates (docs/protocol.md, "Versions")
MAX_LINE = 1024  # bytes, without the newline
MAX_ID = 0x7FFFFFFF
MAX_SEQ = 0x3FFFFFFF  # an event's `seq` (v3); a boot never gets near it
TOO_LONG = object()  # LineReader's marker for a line that was cut off
NL = b"\n"

MODES = ("random", "exact", "until_card")
FIRE_MODES = ("random", "exact")
MAX_CARDS = 40  # an "exact" burst; a bigger deal is several requests
MAX_PRESSES = 50
TEST_PARTS = ("motor_forward", "motor_reverse", "buzzer", "led")  # v2: `test`
TEST_MAX_MS = 3000  # one test pulse at most (the motor's own limit still applies)
TEST_MAX_COUNT = 10

# cmd -> ((field, kind, required, a, b), ...)
#   kind "int": integer a..b; "str": string of a..b characters; "enum": one of a;
#   "bool": true or false; "obj": a JSON object.
#   Fields not listed are ignored (forward compatibility).
COMMANDS = {
    "hello": (("protocol", "int", False, 1, 0xFFFF),),
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
    "repl": (),
    # protocol 2: what `unolaunch selftest` needs, without taking the REPL
    "test": (
        ("part", "enum", True, TEST_PARTS, None),
        ("ms", "int", False, 1, TEST_MAX_MS),
        ("count", "int", False, 1, TEST_MAX_COUNT),
    ),
    "inputs": (),
    # protocol 3: the events kept since boot, sent again (docs/protocol.md, "Event log")
    "events": (("since", "int", True, 0, MAX_SEQ),),
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
        n = len(data) - 1
        if (
            0 < n <= self.max_len
            and not self._buf
            and not self._over
            and data[0] > 32
            and data[n - 1] > 32
            and data.find(b"\n") == n
        ):
            # the usual case: one whole line in one read, nothing to strip - one slice, no
            # split (0.1 ms of rp2 chip time less per request)
            return [data[:n]]
        out: list = []
        lines = data.split(b"\n")  # (C: a line's bytes are not looked at one by one here)
        last = len(lines) - 1
        for i in range(last + 1):
            piece = lines[i]
            if i == last:
                self._add(piece)  # no newline yet: the line goes on in the next feed
                return out
            if self._buf:
                self._add(piece)
                piece = bytes(self._buf)
                self._buf = bytearray()
            elif len(piece) > self.max_len:
                self._over = True
            if self._over:
                self._over = False
                self._buf = bytearray()
                out.append(TOO_LONG)
                continue
            # (strip() makes a new bytes object, 0.1 ms of rp2 chip time: only when needed)
            if piece and piece[0] > 32 and piece[-1] > 32:
                out.append(piece)
                continue
            line = piece.strip()
            if line:
                out.append(line)
        return out


# Output framing: lines out to a port without ever making the loop wait (docs/protocol.md,
# "Framing"; docs/architecture.md, "USB at its speed"). The port is a poll object, a write
# function and, where the port can say it, how many bytes a write takes now (`room`).
#
# What never waits (MicroPython v1.28 rp2 port, shared/tinyusb/mp_usbd_cdc.c): a write to the
# USB serial port while a host holds it open (DTR set) puts min(n, tud_cdc_write_available())
# bytes in the 256-byte TX FIFO and returns at once if that was all of it; only a write longer
# than the free space waits, up to MICROPY_HW_USB_CDC_TX_TIMEOUT (500 ms), for the host to make
# room (mp_usbd_cdc_tx_strn). So a write of at most the FIFO's free space never waits, and
# nothing else writes to the port while the loop runs: free space only grows between a look
# and the write. `room()` (board.Serial: the FIFO's own indices) says that space: a line, or as
# much of it as fits, goes at once (a whole line: its body, then its newline; write_line).
# Where the port cannot say it, select.poll's POLLOUT promises `chunk` bytes (rp2: ONE free
# byte, mp_usbd_cdc_poll_interfaces; a unix pipe or pty: 256), and that is what is written per
# look. With no host (DTR clear) POLLOUT is always set and the FIFO overwrites its oldest
# bytes: nothing waits either.
#
# Why a line is never cut: the write returns what the port took, and a line that has started
# is finished (across loop iterations if need be) before the next one begins. So the host gets
# every line whole, perhaps late, or not at all - never a fragment to resynchronise on.
#
# At most max_bytes wait (the line being sent included). Past that the OLDEST line behind the
# one being sent is dropped - never that one, the host may have its start already: the newest
# lines say where the launcher is now (the last eject, done, a fault), and a reply to a
# request sent once the host reads again is among them. The line right after a gap carries
# "dropped": N, the lines lost just before it, so the host knows to ask `status`.
#
# Output goes in slices (issue 20): with a clock (`clock_us`, time.ticks_us) and a deadline
# (`until`, set by the loop for each iteration) no write starts after the deadline: the rest
# goes in the next iterations, and the inputs are sampled in between. Without them (unit
# tests) a flush writes all the port takes. A one-byte write goes from a buffer allocated once;
# a whole line goes as it is (no slice of it made).
class Outbox:
    """Lines (JSON objects) out to a port. `tx`: a select.poll with the port registered for
    POLLOUT - any event means it takes `chunk` bytes now; put(buf): writes bytes, returns how
    many the port took (0/None: none); clock_us: () -> ticks_us, for `until`; room: None, or
    () -> the bytes a write surely takes now without waiting (0: ask POLLOUT)."""

    chunk = 1  # bytes per write (board.py: what a POLLOUT promises on this port)
    max_bytes = 2048  # waiting for the host at most (about 10 lines)
    drains = False  # True: a full port is only slow (a UART's wire), never a host not reading

    def __init__(self, tx, put, clock_us=None, room=None):
        self._tx = tx
        self._put = put
        self._room = room
        self._clock = clock_us
        self.until = None  # ticks_us after which no write starts (None: no limit)
        self.cut = False
        self.full = False  # the last flush found the port full (its host is not reading)
        self._q: list = []  # lines (bytes, with their newline), oldest first; [0] being sent
        self._size = 0  # bytes in _q
        self._pos = 0  # bytes of _q[0] written
        self._gap = 0  # lines dropped right behind _q[0]
        self._one = bytearray(1)  # the byte a one-byte write sends

    def waiting(self):
        """True while lines wait for the host (it is slow, or not reading)."""
        return bool(self._q)

    def behind(self):
        """True when this end is what holds output back: the last flush ran out of time,
        not out of room in the port, with half the queue full. The loop then reads no more
        requests until it has caught up, so the replies a reading host is owed are never
        dropped to make room for the answers to its later requests."""
        return self.cut and self._size > self.max_bytes // 2

    def write(self, text):
        """Queue one line (without its newline) and write what the port takes now."""
        self.write_line(text.encode())

    def write_line(self, body):
        """Queue one line (bytes, WITHOUT its newline: the Outbox ends it) and write what the
        port takes now."""
        q = self._q
        room = self._room
        n = len(body)
        if not q and room is not None and room() > n:
            # the usual case while the host reads: nothing waits and the line fits (issue 32).
            # The body and its newline go in two writes, not as body + b"\n": on rp2 that
            # concatenation is a new 240-byte object, 0.4 ms of chip time for the allocator to
            # find room in a heap full of small holes; a write is 0.05 ms
            took = 0
            try:
                took = self._put(body) or 0
                if took == n:
                    took += self._put(NL) or 0
            except (OSError, TypeError):
                pass  # (took: what went out before the failed write, if any: not sent twice)
            if took == n + 1:
                self.cut = self.full = False
                return
            line = (body + NL)[took:]  # (never seen: room() said it fits) the rest waits
        else:
            line = body + NL
        # the host's port is full (it does not read): past max_bytes the oldest line waiting
        # goes. A queue that only waits for this end's next slice keeps its lines (the loop
        # reads no requests meanwhile: behind()), up to a hard cap of 4 x max_bytes.
        cap = self.max_bytes if self.full and not self.drains else 4 * self.max_bytes
        while len(q) > 1 and self._size + len(line) > cap:
            self._size -= len(q.pop(1))
            self._gap += 1
        q.append(line)
        self._size += len(line)
        self.flush()

    def flush(self):
        """Write what the port takes now, never waiting, until `until` (one chunk at least,
        whatever the time: output always moves on); returns the bytes written (`cut`: True
        if the deadline stopped it with lines still waiting)."""
        n = 0
        self.cut = False
        self.full = False
        q = self._q
        chunk = self.chunk
        room = self._room
        one = self._one
        until = self.until
        while q:
            line = q[0]
            pos = self._pos
            if pos >= len(line):  # sent whole (checked here: see the KeyboardInterrupt note)
                self._size -= len(q.pop(0))
                self._pos = 0
                if self._gap and q and len(q[0]) > 2:  # lines were lost: the next says so
                    line = q[0]
                    q[0] = line[:-2] + b', "dropped": %d}\n' % self._gap
                    self._size += len(q[0]) - len(line)
                    self._gap = 0
                continue
            free = room() if room is not None else 0
            if free <= 0:
                for _ in self._tx.ipoll(0):
                    free = chunk
                if free <= 0:
                    self.full = True
                    break
            if n and until is not None and ticks_diff(self._clock(), until) >= 0:
                self.cut = True
                break  # this iteration's slice is used up: the inputs come first
            try:
                rest = len(line) - pos
                if free >= rest:
                    took = self._put(line if pos == 0 else memoryview(line)[pos:])
                elif free == 1:
                    one[0] = line[pos]
                    took = self._put(one)
                else:
                    took = self._put(memoryview(line)[pos : pos + free])
                self._pos = pos + took  # no branch in between: no KeyboardInterrupt lands here
            except (OSError, TypeError):  # OSError: the unix port, nobody reading stdout
                took = 0  # TypeError: the port took nothing (None)
            except KeyboardInterrupt:
                # the unix port only (a Ctrl-C as SIGINT; rp2 reads 0x03 as a byte): raised
                # inside the write, after an unknown part of it went out. End that part with a
                # newline (a fragment the host skips as noise) and count the line as lost.
                q[0] = b"\n"
                self._size += 1 - len(line)
                self._pos = 0
                self._gap += 1
                raise
            if not took:
                self.full = True
                break  # the port took nothing after all: the same bytes go next time
            n += took
        return n


# The REPL takeover handshake (docs/protocol.md, "Flashing, safe mode and the watchdog").
# Ctrl-C (0x03) reaches the firmware as a byte (rp2: micropython.kbd_intr(-1) in the loop) or
# as KeyboardInterrupt (the unix port turns its tty's Ctrl-C into SIGINT). One Ctrl-C alone is
# line noise or a stray keystroke: it is dropped and counted. What a REPL tool sends next
# within TAKEOVER_MS is not what noise makes: another Ctrl-C (a person, rshell, old
# pyboard.py) or, after blanks, a REPL control byte - Ctrl-A raw REPL (mpremote 1.24+:
# "\r\x03" then "\r\x01"; Thonny: "\x03\x01"), Ctrl-B, Ctrl-D, Ctrl-E. Anything else (a
# protocol line) closes the window: the Ctrl-C was noise.
CTRL_C = 3
TAKEOVER_MS = 1000
_REPL_KEYS = (1, 2, 4, 5)
_BLANKS = (9, 10, 13, 32)


class Takeover:
    """feed(data, now) -> the bytes for the protocol; a takeover sets `replay` (the bytes
    after the trigger, a REPL control byte first, for the REPL to read)."""

    def __init__(self):
        self.at = None  # ticks_ms of a Ctrl-C whose window is open
        self.interrupts = 0  # Ctrl-C seen since boot
        self.replay = None

    def ctrl_c(self, now):
        """One Ctrl-C (a byte, or KeyboardInterrupt); True: a takeover."""
        self.interrupts += 1
        if self.at is not None and ticks_diff(now, self.at) < TAKEOVER_MS:
            self.replay = b""
            return True
        self.at = now
        return False

    def feed(self, data, now):
        if self.at is None and b"\x03" not in data:
            return data  # the usual case: no Ctrl-C, nothing waiting on one
        if self.at is not None and ticks_diff(now, self.at) >= TAKEOVER_MS:
            self.at = None
        out = bytearray()
        for i in range(len(data)):
            c = data[i]
            if c == CTRL_C:
                if self.ctrl_c(now):
                    self.replay = bytes(data[i + 1 :])
                    break
            elif self.at is not None and c in _REPL_KEYS:
                self.replay = bytes(data[i:])
                break
            else:
                if c not in _BLANKS:
                    self.at = None  # something else followed: the Ctrl-C was noise
                out.append(c)
        return bytes(out)


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
        obj = json.loads(line)  # bytes as they came: no str copy (UTF-8 is checked)
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


# Why a message is encoded by one json.dumps of the dict as it is (issue 32), measured on rp2
# (emulated RP2040, chip time) for a `status` reply: built in Python a couple of fields at a
# time with its keys sorted, 4.5 ms; its keys put in order in an OrderedDict for one
# json.dumps, 1.45 ms; id/ok dumped first and the rest joined on, 1.6 ms (a new 240-byte str
# costs 0.2-0.8 ms there); json.dumps of the dict, 0.77 ms, and .encode() 0.02 ms more. So
# the keys come in the order MicroPython's dict holds them (docs/protocol.md: readers must not
# depend on key order). Its time is bounded by the message, which the firmware makes itself
# (no request makes a reply larger than config_get's), and the pin IRQs take every edge
# meanwhile.
def encode(msg):
    """One reply or event as a JSON text (no newline)."""
    return json.dumps(msg)


class Encoder:
    """Replies and events (dicts) turned into lines for their ports, in the order they came:
    `jobs` holds (msg, ports); run(until) encodes messages (each whole: see encode) until the
    clock (`clock_us`, ticks_us) reaches `until` (None: everything queued; one message at
    least) and hands each line (without its newline) to its ports' Outbox.write_line. Pure
    logic: the ports are handed in."""

    def __init__(self, clock_us=None):
        self._clock = clock_us
        self.jobs: list = []  # (msg, ports), oldest first
        self.made = 0  # bytes of lines encoded since boot

    def run(self, until=None):
        """Encode what is queued; no message is begun after `until` but the first."""
        jobs = self.jobs
        while jobs:
            try:
                # (.encode(): on MicroPython the bytes share the str's buffer, nothing copied;
                # bytes, as a port writes them; the newline is the Outbox's: see write_line)
                line = encode(jobs[0][0]).encode()
            except KeyboardInterrupt:  # the unix port's Ctrl-C: the message goes next time
                raise
            except Exception:  # a value it cannot encode: that message is lost, not the loop
                jobs.pop(0)
                raise
            self.made += len(line) + 1
            ports = jobs.pop(0)[1]
            for port in ports:
                port.write_line(line)
            if until is not None and ticks_diff(self._clock(), until) >= 0:
                return
