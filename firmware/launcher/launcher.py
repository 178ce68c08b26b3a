# The launcher state machine: idle / armed / firing / fault. It turns debounced presses and
# host requests into motor bursts and protocol events. Pure logic: the devices, the clock
# values (`now`, ticks_ms) and the event sink are handed in; nothing here touches machine.
from launcher import protocol
from launcher.config import RESTART_KEYS, merged
from launcher.eventlog import EventLog
from launcher.ticks import ticks_diff

STANDALONE = "standalone"
HOSTED = "hosted"
HEARTBEAT_MS = 1000  # while armed, an event at least this often (docs/protocol.md)

FAULT_MESSAGES = {
    "jam": "no card came out within jam_ms with the motor running: "
    "clear the slot, then press the button or send stop",
    "empty": "the magazine ran dry (no card came out and the beam is clear): "
    "load cards, then press the button or send stop",
    "motor_timeout": "burst ran longer than burst_max_ms and was stopped: "
    "check the roller, then send stop",
    "internal": "firmware error, motor stopped: send stop, and report the message if it repeats",
}


class Launcher:
    """The launcher's brain.

    motor: launcher.motor.Motor; sensor: launcher.sensor.Sensor or None (open loop);
    feedback: launcher.feedback.Feedback; pattern: launcher.pattern.Pattern;
    emit(dict): writes one event or reply line; info: the static part of `hello`;
    save(cfg): persists a configuration (raises OSError); apply(cfg): pushes live settings
    into the devices.
    """

    def __init__(
        self, cfg, motor, sensor, feedback, pattern, emit, info, now, save=None, apply=None
    ):
        self._handlers: dict = {}  # cmd -> its bound _cmd_ method (handle)
        self.cfg = cfg
        self.motor = motor
        self.sensor = sensor
        self.feedback = feedback
        self.pattern = pattern
        self.emit = emit
        self.info = info
        self.save = save
        self.apply = apply
        self.boot_at = now
        self.now = now
        self.mode = STANDALONE
        self.arming: dict | None = None  # {"player", "owed", "mode", "cards"} while armed
        self.burst: dict | None = None  # the burst in progress, see _start
        self.test: dict | None = None  # a self-test pulse in progress, see _cmd_test
        self.button = None  # launcher.button.Button, for `inputs` (the loop hands it in)
        self.fault = None  # a fault code while in fault
        self.presses = 0
        self.cards_out = 0
        self.cardless = 0  # consecutive bursts in which the sensor saw no card
        self.seen = 0  # sensor count accounted for (by a burst or a stray event)
        self.last = (None, None)  # (n, player) of the last burst that ran the motor
        self.reset_at = None  # ticks_ms of a `reset` request
        self.repl_at = None  # ticks_ms of a `repl` request: the loop hands the REPL over
        self.interrupts = 0  # Ctrl-C ignored since boot (the loop keeps it up to date)
        self.beat_at = now  # the last event: a heartbeat follows HEARTBEAT_MS after it
        self.pending_restart = []
        self.perf = None  # optional () -> dict of performance figures for `status`
        self.events = EventLog(info.get("boot"))  # protocol 3: numbered, kept events

    # -- state -----------------------------------------------------------------
    def state(self):
        if self.fault:
            return "fault"
        if self.burst:
            return "firing"
        if self.test:
            return "testing"
        if self.arming:
            return "armed"
        return "idle"

    def _event(self, name, fields):
        fields["event"] = name
        fields["t"] = self.now
        self.beat_at = self.now
        if name != "heartbeat":  # a heartbeat says nothing a host must not miss
            self.events.note(fields)
        self.emit(fields)

    def boot(self, now):
        self.now = now
        self._event("boot", self.hello_fields())
        self.feedback.ready(now)

    def _armed_view(self):
        a = self.arming
        if a is None:
            return None
        view = {"player": a["player"], "presses": a["owed"], "mode": a["mode"]}
        if a["mode"] == "exact":
            view["cards"] = a["cards"]
        return view

    # -- presses ---------------------------------------------------------------
    def on_press(self, now, start_at=None):
        """A debounced button press. `now`: when the contact closed (the events' `t`);
        `start_at`: the clock when the press is acted on (default `now`) - the motor starts
        then, and every deadline of the burst runs from it."""
        self.now = now
        start = now if start_at is None else start_at
        self.presses += 1
        n = self.presses
        if self.fault:
            if self.mode == STANDALONE:
                # no host to send `stop`: the button acknowledges the fault
                self._clear(now, "button")
            else:
                self._event("foul", {"n": n, "reason": "fault", "player": None})
            return
        if self.burst or self.test:
            self._event("foul", {"n": n, "reason": "busy", "player": None})
            return
        if self.mode == HOSTED:
            a = self.arming
            if a is None or a["owed"] <= 0:
                self._event("foul", {"n": n, "reason": "not_armed", "player": None})
                return
            cards = self._plan(a["mode"], a["cards"])
            if a["mode"] != "until_card" or cards:
                a["owed"] -= 1  # Wild Hit Fire: a blank press does not count (ATK rules)
            self._start(start, n, a["player"], a["mode"], cards, a, True)
        else:
            self._start(start, n, None, "random", self.pattern.press(), None, True)

    def press_plan(self):
        """The cards a press now would run the motor for (0: it would not start it), drawn
        ahead where the pattern decides (Pattern.ahead): what on_press will do."""
        if self.fault or self.burst or self.test:
            return 0
        if self.mode == HOSTED:
            a = self.arming
            if a is None or a["owed"] <= 0:
                return 0
            return a["cards"] if a["mode"] == "exact" else self.pattern.ahead()
        return self.pattern.ahead()

    def _plan(self, mode, cards):
        if mode == "exact":
            return cards
        return self.pattern.press()

    # -- bursts ----------------------------------------------------------------
    def _start(self, now, n, player, mode, cards, arming, press=False):
        """A burst starting at `now`: the motor first, then (for a press) the `press` event,
        so the roller never waits on the serial port; the burst's deadlines (jam_ms, the
        open-loop run, burst_max_ms) all run from the motor's start."""
        b = {
            "n": n,
            "player": player,
            "mode": mode,
            "want": cards,
            "arming": arming,
            "base": self.sensor.count if self.sensor else 0,
            "got": 0,
            "last_card_at": now,
        }
        if cards:
            self.burst = b
            if not self.motor.running:  # (a press's timer IRQ may have started it: issue 32)
                self.motor.start(now)
            if self.sensor is not None:
                # the sensor brakes the motor the moment the last card is out (its IRQ)
                self.sensor.stop_at = b["base"] + cards
        if press:
            self.feedback.ding(now)
            owed = arming["owed"] if arming else None
            self._event("press", {"n": n, "player": player, "owed": owed, "mode": mode})
        self._strays(b["base"])  # cards seen since the last burst were not this one's
        if not cards:
            self.feedback.suspense(self.pattern.blanks, now)
            self._finish(b, 0, True, None)
            return
        self.feedback.firing(True, now)

    def _run_ms(self, cards):
        return self.cfg["ramp_ms"] // 2 + cards * self.cfg["ms_per_card"]

    def tick(self, now):
        """Drive the burst in progress and the feedback. Called every loop iteration."""
        self.now = now
        fb = self.feedback
        if fb._steps or fb.fault_blink or fb._suspense_period:  # (a call is 50 us on rp2)
            fb.tick(now)
        a = self.arming
        if a is not None and ticks_diff(now, self.beat_at) >= HEARTBEAT_MS:
            # a host waiting for this player's press hears that the loop still runs
            self._event(
                "heartbeat", {"state": self.state(), "player": a["player"], "owed": a["owed"]}
            )
        t = self.test
        if t is not None:
            self._test_tick(t, now)
        b = self.burst
        if b is None:
            # (checked here first: a call costs about 50 us of rp2 chip time, and an idle
            # loop iteration must stay well under a millisecond, issue 20)
            if self.motor.braking:
                self.motor.tick(now)  # ends the brake after a burst
            s = self.sensor
            if s is not None and s.count != self.seen:
                self._strays(s.count)
            return
        if self.sensor is not None:
            got = self.sensor.count - b["base"]
            if got >= b["want"]:
                self._finish(b, b["want"], True, None)
                return
            if got != b["got"]:
                b["got"] = got
                b["last_card_at"] = now
            # the first card gets the soft-start ramp on top of jam_ms
            grace = self.cfg["jam_ms"] + (self.cfg["ramp_ms"] if got == 0 else 0)
            if ticks_diff(now, b["last_card_at"]) >= grace:
                self._stall(b, got)
                return
        elif ticks_diff(now, self.motor.started_at) >= self._run_ms(b["want"]):
            self._finish(b, b["want"], False, None)
            return
        if not self.motor.tick(now):
            got = b["got"] if self.sensor is not None else self._estimate(b, now)
            self._finish(b, got, self.sensor is not None, "motor_timeout")

    def _estimate(self, b, now):
        """Open loop: the cards a burst cut short has probably shot out."""
        ran = ticks_diff(now, self.motor.started_at) - self.cfg["ramp_ms"] // 2
        return max(0, min(ran // self.cfg["ms_per_card"], b["want"]))

    def _stall(self, b, got):
        # no card within jam_ms: a card stuck in the beam is a jam; cards that came and then
        # stopped with the beam clear mean the magazine ran dry; bursts that see no card at
        # all (a card may be stuck before the beam), empty_bursts times in a row, mean empty
        code = "jam"
        if not self.sensor.blocked():
            if got:
                code = "empty"
            else:
                self.cardless += 1
                if self.cardless >= self.cfg["empty_bursts"]:
                    code = "empty"
        hint = None
        if self.sensor.count == 0:
            hint = "no card seen since power-up; if no sensor is fitted, set sensor_pin to null"
        self._finish(b, got, True, code, hint=hint)
        if got and code == "empty":
            self.cardless = self.cfg["empty_bursts"]  # known dry: a cardless burst is empty

    def _strays(self, count):
        """Cards the sensor saw outside any burst (a coasting roller, a card pulled out of
        a jam): the player of the last burst gets them (docs/protocol.md, `stray`)."""
        cards = count - self.seen
        if cards > 0:
            self.cards_out += cards
            self._event("stray", {"cards": cards, "n": self.last[0], "player": self.last[1]})
        self.seen = count

    def _finish(self, b, cards, counted, fault, cancelled=False, hint=None):
        if self.sensor is not None:
            self.sensor.stop_at = -1
        self.motor.brake(self.now)  # (a brake the sensor began goes on)
        self.burst = None
        self.feedback.firing(False, self.now)
        self.cards_out += cards
        if b["want"]:
            self.last = (b["n"], b["player"])
        if self.sensor is not None:
            self.seen = b["base"] + cards  # any more than that is a stray
        if cards and self.sensor is not None:
            self.cardless = 0
        a = b["arming"]
        if a is not None and a["mode"] == "until_card" and b["want"] and not cards:
            a["owed"] += 1  # Wild Hit Fire: nothing came out, the press still owes a card
        ev = {
            "n": b["n"],
            "player": b["player"],
            "cards": cards,
            "counted": counted,
            "mode": b["mode"],
        }
        ev["owed"] = a["owed"] if a is not None else None
        if b["want"] != cards:
            ev["wanted"] = b["want"]
        if cancelled:
            ev["cancelled"] = True
        self._event("eject", ev)
        if fault:
            self._fault(fault, hint, b)
        if a is not None and a["owed"] <= 0 and a is self.arming:
            # the last owed press is served, even if its burst faulted: never a press more
            self.arming = None
            self._event("done", {"player": b["player"]})

    def _fault(self, code, detail, b=None):
        self.motor.brake(self.now)
        self.fault = code
        message = FAULT_MESSAGES.get(code, code)
        if detail:
            message = message + " (" + detail + ")"
        # the burst's press and player: a card left sticking out belongs to who pressed
        ev = {"code": code, "message": message, "n": None, "player": None}
        # a jam with the beam blocked is a card stuck in the mouth; with it clear, a card
        # stuck further in or (first cardless burst) an empty magazine: the host may know
        s = self.sensor
        ev["beam"] = None if s is None else ("blocked" if s.blocked() else "clear")
        if b is not None:
            ev["n"] = b["n"]
            ev["player"] = b["player"]
        self._event("fault", ev)
        self.feedback.fault(self.now)

    def internal_error(self, exc):
        """An unhandled exception in the loop: motor off, fault `internal`."""
        self.motor.off()
        b = self.burst
        if b is not None:
            # the burst still gets its eject, with what came out so far (nothing is lost)
            try:
                self._finish(b, self._so_far(b, self.now), self.sensor is not None, None)
            except Exception:
                self.burst = None
        self._fault("internal", repr(exc)[:120], b)

    def _so_far(self, b, now):
        if self.sensor is None:
            return self._estimate(b, now)
        return min(b["want"], self.sensor.count - b["base"])

    def _clear(self, now, by):
        code = self.fault
        self.fault = None
        self.feedback.clear(now)
        self._event("cleared", {"code": code, "by": by})

    # -- requests --------------------------------------------------------------
    def handle(self, req, now):
        """Run one validated request; return its reply (a dict with id and ok)."""
        self.now = now
        self.beat_at = now  # the host hears the reply: the heartbeat can wait
        cmd = req["cmd"]
        run = self._handlers.get(cmd)
        if run is None:  # bound once per command: "_cmd_" + cmd was 0.08 ms of rp2 chip time
            run = self._handlers[cmd] = getattr(self, "_cmd_" + cmd)
        return run(req, req["id"], now)

    def _ok(self, rid, fields=None):
        # every caller hands in a dict of its own: it becomes the reply, not copied (a copy of
        # a 15-key dict was 0.5 ms of rp2 chip time)
        reply = {} if fields is None else fields
        reply["id"] = rid
        reply["ok"] = True
        return reply

    def hello_fields(self, asked=1):
        """`hello`/`boot`: a host that does not say which protocol it speaks is a v1 host
        and is answered as one (v2 only adds commands); one that asks gets what both speak."""
        fields = dict(self.info)
        fields["protocol"] = min(asked, protocol.PROTOCOL)
        fields["protocol_max"] = protocol.PROTOCOL
        fields["mode"] = self.mode
        fields["seq"] = self.events.seq  # v3: the last numbered event (boot: its own)
        return fields

    def _cmd_hello(self, req, rid, now):
        return self._ok(rid, self.hello_fields(req.get("protocol", 1)))

    def _cmd_status(self, req, rid, now):
        # the reply whole in one literal, id and ok included (not _ok's): the dict's table is
        # made its full size at once (two keys added after grew it: a second table, 0.1 ms
        # of rp2 chip time) - the `status` round trip is issue 32's 3 ms
        return {
            "id": rid,
            "ok": True,
            "state": self.state(),
            "mode": self.mode,
            "armed": self._armed_view(),
            "fault": self.fault,
            "presses": self.presses,
            "cards_out": self.cards_out,
            "blanks": self.pattern.blanks,
            "uptime_ms": ticks_diff(now, self.boot_at),
            "restart_needed": self.pending_restart,
            "interrupts": self.interrupts,
            "boot": self.events.boot,
            "seq": self.events.seq,
            "perf": self.perf() if req.get("perf") and self.perf is not None else None,
        }

    def _cmd_events(self, req, rid, now):
        return self.events.replay(rid, req["since"], self.emit)

    def _cmd_mode(self, req, rid, now):
        was = None
        if req["mode"] == STANDALONE:
            was = self._armed_view()
            self.arming = None
        self.mode = req["mode"]
        return self._ok(rid, {"mode": self.mode, "was": was})

    def _cmd_arm(self, req, rid, now):
        mode = req.get("mode", "random")
        self.mode = HOSTED
        self.arming = {
            "player": req["player"],
            "owed": req.get("presses", 1),
            "mode": mode,
            "cards": req.get("cards", 0),
        }
        return self._ok(rid, {"armed": self._armed_view(), "state": self.state()})

    def _cmd_disarm(self, req, rid, now):
        was = self._armed_view()
        self.arming = None
        return self._ok(rid, {"was": was})

    def _cmd_fire(self, req, rid, now):
        if self.fault:
            return protocol.error(
                rid, "fault", "launcher in fault %s; send stop first" % self.fault
            )
        if self.burst:
            return protocol.error(rid, "bad_state", "a burst is running; wait for its eject event")
        if self.test:
            return protocol.error(rid, "bad_state", "a self-test is running; wait for `tested`")
        mode = req.get("mode", "random")
        cards = req["cards"] if mode == "exact" else self.pattern.cards()
        if self.sensor is None and self._run_ms(cards) >= self.cfg["burst_max_ms"]:
            return protocol.error(
                rid, "bad_field", "%d cards take longer than burst_max_ms" % cards, field="cards"
            )
        self._start(now, None, None, mode, cards, None)
        return self._ok(rid, {"cards": cards})

    def _cmd_seed(self, req, rid, now):
        self.pattern.reseed(req["seed"])
        return self._ok(rid, {"seed": req["seed"]})

    def _cmd_config_get(self, req, rid, now):
        # self.cfg is never changed in place (config_set puts a new dict there): the reply
        # may hold it while it is encoded, over a few loop iterations
        return self._ok(rid, {"config": self.cfg, "restart_needed": self.pending_restart})

    def _cmd_config_set(self, req, rid, now):
        if self.burst:  # writing the flash stalls the CPU with the PWM still running
            return protocol.error(
                rid, "bad_state", "a burst is running; send config_set after its eject event"
            )
        new, errors = merged(self.cfg, req["config"])
        if errors:
            errors = sorted(errors, key=lambda e: e[0])
            reasons = [{"key": k, "reason": r} for k, r in errors]
            first = errors[0]
            return protocol.error(
                rid, "config_invalid", "%s: %s" % (first[0], first[1]), reasons=reasons
            )
        if self.save is not None:
            try:
                self.save(new)
            except OSError as e:
                return protocol.error(rid, "io_error", "could not save launcher.json: %r" % (e,))
        for key in RESTART_KEYS:
            if new[key] != self.cfg[key] and key not in self.pending_restart:
                self.pending_restart.append(key)
        self.cfg = new
        self.info["config_status"] = "ok"  # what runs now is a saved, valid file
        self.info["config_errors"] = []
        if self.apply is not None:
            self.apply(new)
        return self._ok(rid, {"config": new, "restart_needed": self.pending_restart})

    def _cmd_stop(self, req, rid, now):
        self.motor.brake(now)
        t = self.test
        if t is not None:
            self._end_test(t, now, False, True)
        b = self.burst
        if b is not None:
            self._finish(b, self._so_far(b, now), self.sensor is not None, None, cancelled=True)
        if self.fault:
            self._clear(now, "stop")
        return self._ok(rid, {"state": self.state()})

    def _cmd_repl(self, req, rid, now):
        # like stop (a running burst ends cancelled), then the loop hands the REPL over
        # once this reply is out: watchdog stopped, back to MicroPython's REPL
        self.motor.brake(now)
        b = self.burst
        if b is not None:
            self._finish(b, self._so_far(b, now), self.sensor is not None, None, cancelled=True)
        self.motor.off()
        self.feedback.off()
        self.test = None
        self.repl_at = now
        return self._ok(rid, {"repl": True})

    def _cmd_reset(self, req, rid, now):
        self.motor.off()
        self.reset_at = now  # the loop resets RESET_DELAY_MS later, once this reply is out
        return self._ok(rid, {"resetting": True})

    # -- self-test (protocol 2): in launcher/selftest.py, imported on first use so
    # that a launcher at the table does not hold its code in RAM
    def _cmd_test(self, req, rid, now):
        from launcher import selftest

        return selftest.cmd_test(self, req, rid, now)

    def _test_tick(self, t, now):
        from launcher import selftest

        selftest.tick(self, t, now)

    def _end_test(self, t, now, completed, cancelled=False):
        from launcher import selftest

        selftest.end(self, t, now, completed, cancelled)

    def _cmd_inputs(self, req, rid, now):
        from launcher import selftest

        return selftest.cmd_inputs(self, req, rid, now)
