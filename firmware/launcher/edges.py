# Inputs watched by the chip, not by the loop (issue 20). A hard pin IRQ writes each edge of
# the button or the beam - its time and the level after it - into an EdgeLog, a ring
# allocated once (a hard IRQ handler may not allocate); the loop reads the ring whenever it
# gets to it and runs the debounce / beam filter (Settled) on the edges' own timestamps. A
# press or a card is then told by when its edges happened, not by when the loop happened to
# look: a loop iteration that writes a long reply, or a garbage collection, delays what the
# launcher does about an input but never loses it. Pure logic: board.on_edge() attaches the IRQ.
from array import array

from launcher.ticks import ticks_diff

EDGES = 32  # edges held between two loop iterations (a full ring: see EdgeLog.lost)


class EdgeLog:
    """(time, level) edges, oldest first: record() from the IRQ handler, next()/pop() from
    the loop. Single writer, single reader: the handler only moves `head`, the loop only
    moves `tail`, so neither needs the other to stop."""

    def __init__(self, size=EDGES):
        self.size = size
        # "l": a C long holds a tick value on every port (30 bits on rp2, the unix port's
        # ticks run to 62 bits on a 64-bit host; an "i" there wraps them negative)
        self.times = array("l", [0] * size)
        self.levels = array("b", [0] * size)
        self.idx = array("i", [0, 0, 0])  # head (next to write), tail (next to read), lost

    def record(self, t, level):
        """An edge at time `t` (the IRQ's clock): called in the IRQ, allocates nothing."""
        idx = self.idx
        head = idx[0]
        nxt = head + 1
        if nxt == self.size:
            nxt = 0
        if nxt == idx[1]:
            idx[2] += 1  # the loop is that far behind: its own sample of the pin resyncs
            return
        self.times[head] = t
        self.levels[head] = level
        idx[0] = nxt  # published last: the reader never sees a half-written edge

    def next(self):
        """The ring index of the oldest unread edge, or -1."""
        tail = self.idx[1]
        return -1 if tail == self.idx[0] else tail

    def pop(self):
        tail = self.idx[1] + 1
        self.idx[1] = 0 if tail == self.size else tail

    def lost(self):
        """Edges dropped because the ring was full (since boot)."""
        return self.idx[2]


class Settled:
    """A level that counts once it has held for `hold` (in its clock's units): contact
    bounce and sensor glitches shorter than that never count. Fed edges (t, level), or
    samples as edges; settle(t) says whether the counted level changed by time `t`."""

    def __init__(self, hold, level=False, t=0):
        self.hold = hold
        self.state = level  # the counted level
        self.raw = level  # the last level seen
        self.since = t  # when `raw` was first seen

    def edge(self, t, level):
        if level != self.raw:
            self.raw = level
            self.since = t

    def settle(self, t):
        """True if the raw level, held from `since` until `t`, becomes the counted one."""
        if self.raw != self.state and ticks_diff(t, self.since) >= self.hold:
            self.state = self.raw
            return True
        return False


def follow(log, settled, now, on_change, active):
    """Run `settled` over the logged edges up to `now` (a level is True when the pin reads
    `active`): on_change() at each change of the counted level, which happens at the time
    of the edge that ends the hold (or at `now`).
    Returns False if on_change() asked to stop (it returned True): the edges after the
    change stay in the log for the next call."""
    while True:
        i = log.next()
        if i >= 0 and ticks_diff(log.times[i], now) > 0:
            i = -1  # recorded after the loop read its clock: next time
        until = now if i < 0 else log.times[i]
        if settled.settle(until) and on_change():
            return False
        if i < 0:
            return True
        settled.edge(log.times[i], log.levels[i] == active)
        log.pop()
