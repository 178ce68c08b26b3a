# The event log (protocol 3, docs/protocol.md "Event log"): every event but the heartbeat
# gets a number, `seq`, and this boot's random `boot` id; the last SIZE are kept in a ring
# allocated once, for a host that missed them (a crash, a pulled cable) and asks `events`
# since the last number it applied. Pure logic: no machine, no I/O (the sink is handed in).
from launcher import protocol

SIZE = 64  # events kept (a full ring of `tested` events: 11.9 KB on the unix port)
# An `events` reply sends at most BATCH of them, so that they never overflow the port's
# 2 KB output queue (which would drop the oldest lines); the host asks again for the rest.
BATCH = 6


class EventLog:
    """note(fields) numbers an event and keeps it; replay(rid, since, emit) answers
    `events`."""

    def __init__(self, boot):
        self.boot = boot  # random at each boot: `seq` restarts with it
        self.seq = 0  # the last numbered event
        self.ring: list = [None] * SIZE  # slot seq % SIZE

    def note(self, fields):
        self.seq += 1
        fields["seq"] = self.seq
        fields["boot"] = self.boot
        self.ring[self.seq % SIZE] = fields

    def replay(self, rid, since, emit):
        """Send again, in order, the kept events after `since` (at most BATCH, each with
        `replay: true`) through `emit`; return the reply: `gone` when the ring no longer
        reaches back that far, `bad_field` when `since` is past the last event."""
        last = self.seq
        oldest = last - SIZE + 1 if last >= SIZE else 1
        if since > last:
            msg = "since is past the last event (seq %d)" % last
            return protocol.error(rid, "bad_field", msg, field="since", last=last, boot=self.boot)
        if since + 1 < oldest:
            msg = "the event log starts at seq %d now" % oldest
            return protocol.error(rid, "gone", msg, oldest=oldest, last=last, boot=self.boot)
        upto = since + BATCH if since + BATCH < last else last
        for seq in range(since + 1, upto + 1):
            ev = dict(self.ring[seq % SIZE])
            ev["replay"] = True
            emit(ev)
        reply = {"id": rid, "ok": True, "since": since, "to": upto, "last": last}
        reply["more"] = upto < last
        reply["boot"] = self.boot
        return reply
