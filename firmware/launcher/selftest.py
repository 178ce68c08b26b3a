# Protocol 2's self-test commands (`test`, `inputs`; docs/protocol.md): the launcher's
# parts driven from its own loop for `unolaunch selftest`. Pure logic like launcher.py;
# `self` is the Launcher. Imported on first use, so a launcher at the table does not hold
# this code in RAM.
from launcher import protocol
from launcher.ticks import ticks_diff


def cmd_test(self, req, rid, now):
    """One part driven for `unolaunch selftest`, inside the loop (the watchdog fed, the
    motor's limit applied): the reply now, a `tested` event when it ends."""
    part = req["part"]
    ms = req.get("ms", 300)
    count = req.get("count", 1)
    state = self.state()
    if state == "fault":
        return protocol.error(rid, "fault", "launcher in fault %s; send stop first" % self.fault)
    if state != "idle":
        return protocol.error(
            rid, "bad_state", "the launcher is %s; disarm (or wait) first" % state
        )
    motor = part.startswith("motor")
    if motor:
        if count != 1:
            return protocol.error(rid, "bad_field", "a motor pulse has count 1", field="count")
        if self.info.get("motor") == "disabled":
            return protocol.error(
                rid, "absent", "the motor is disabled (unusable pins: see config_errors)"
            )
        self.motor.start(now, part == "motor_reverse")
    else:
        key = part + "_pin"
        if getattr(self.feedback, part) is None:
            return protocol.error(rid, "absent", "no %s configured (%s is null)" % (part, key))
        self.feedback.pulses(part == "buzzer", count, ms, now)
        ms = 2 * ms * count
    self.test = {"part": part, "at": now, "ms": ms}
    return self._ok(rid, {"part": part, "ms": ms})


def tick(self, t, now):
    if t["part"].startswith("motor") and not self.motor.tick(now):
        end(self, t, now, False)  # the motor's own limit stopped it
    elif ticks_diff(now, t["at"]) >= t["ms"]:
        end(self, t, now, True)


def end(self, t, now, completed, cancelled=False):
    self.test = None
    if t["part"].startswith("motor"):
        self.motor.brake(now)
    else:
        self.feedback.clear(now)
    ev = {"part": t["part"], "ms": ticks_diff(now, t["at"]), "completed": completed}
    if cancelled:
        ev["cancelled"] = True
    self._event("tested", ev)


def cmd_inputs(self, req, rid, now):
    """The button's and the beam's levels now, and the cards the sensor has counted."""
    s = self.sensor
    b = self.button
    return self._ok(
        rid,
        {
            "button": None if b is None else ("down" if b.raw() else "up"),
            "beam": None if s is None else ("blocked" if s.blocked() else "clear"),
            "cards_seen": None if s is None else s.count,
            "presses": self.presses,
        },
    )
