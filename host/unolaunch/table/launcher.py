"""The launcher at the table: armed for exactly what the rules demand, its events applied.

:class:`LinkedLauncher` sits between a :class:`~unolaunch.table.session.Session` and a
launcher reached through :mod:`unolaunch.link` (a real Pico, or the simulator with
``--port sim``). After every change of the game it arms the launcher for exactly the
awaited player and the presses owed (a normal turn's press, Hit 2, Wild Hit 4,
Attack-Attack's target, an UNO penalty, Wild Hit Fire until a card comes out — ATK-25)
or disarms it, so a press nobody owes is refused by the firmware and reported as a foul
(ATK-26). A background thread turns the launcher's ``eject`` events into press actions
with the observed card count, and reports fouls, jams and an empty magazine with what to
do about them.
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from typing import Any

from unolaunch import crashpoint
from unolaunch.errors import UnolaunchError
from unolaunch.i18n import N_, _, ngettext
from unolaunch.rules import IllegalMoveError
from unolaunch.table.outcome import CLEAR, Outcome, of_effects, words
from unolaunch.table.session import Arming, Session, event_mark

#: notify(notice, warning): what happened, for the log, and the warning to show (``CLEAR``
#: clears it, None leaves it): outcomes as data, put in words by each screen (outcome.py).
Notify = Callable[[Outcome | None, Outcome | None], None]

#: What to do about each fault (translated where shown; {player}, {stock} filled in).
FAULT_HELP = {
    "jam": N_(
        "the launcher stopped: no card came out with the motor running. A stuck card: "
        "pull it out and give it to the player who pressed ('fix NAME N'); empty: load the "
        "discard pile except its top card (ATK-22). Then type 'clear'"
    ),
    # a jam seen by the sensor: the card in the beam leaves through it and is credited
    "jam:blocked": N_(
        "a card is stuck in the launcher's mouth: pull it out — it is {player}'s "
        "(the table gives it to {player} when the sensor sees it leave) — then type 'clear'"
    ),
    # no card and the beam clear: the firmware cannot tell a card stuck inside from an empty
    # magazine on the first such burst; the table counts what is inside
    "jam:clear": N_(
        "no card came out and the sensor's beam is clear: the launcher may be empty "
        "(the table counts {stock} cards inside; if so, load the discard pile except its top "
        "card, ATK-22) or a card is stuck inside (take it out and give it to {player}: 'fix "
        "{player} N'). Then type 'clear'"
    ),
    "empty": N_(
        "the launcher is empty: shuffle the discard pile except its top card into the "
        "launcher (ATK-22), then type 'clear'"
    ),
    "motor_timeout": N_(
        "the motor ran too long without finishing: check the gears and the cards, then type 'clear'"
    ),
    "config": N_(
        "the launcher's configuration is broken: run 'unolaunch selftest', then type 'clear'"
    ),
}


#: What the launcher may be armed for when the table does not know (a new connection, a
#: resume): the first :meth:`LinkedLauncher.sync` sends the arming (or a disarm) whatever it
#: is, and a move before it disarms first (issue 33).
UNKNOWN = Arming("?", 0)


def covers(owed: Arming | None, armed: Arming | None) -> bool:
    """Whether every press the launcher may fire when armed for ``armed`` is owed by
    ``owed`` (the game's :func:`~unolaunch.table.session.arming_for`): the launcher's arming
    promise (docs/architecture.md, *Crash safety*; ATK-26)."""
    if armed is None:
        return True
    if owed is None or armed is UNKNOWN:
        return False
    return armed.player == owed.player and armed.mode == owed.mode and armed.presses <= owed.presses


#: The notices of a launcher's foul or fault: their note is journaled by the launcher's
#: driver itself, with the event's number in the same transaction (a crash between a note
#: and its mark recorded a foul twice, issue 33); a front end does not journal them again.
JOURNALED = frozenset({"foul", "fault", "fault_refused", "busy"})


#: The line of a foul (ATK-26) in a journal from before issue 25 (an English note; later
#: notes keep the outcome ``foul`` as data and are marked ``foul``).
FOUL_NOTICE = N_("foul: a press nobody owes")


#: The launcher's fault codes (protocol words) as the table names them.
_FAULT_NAMES = {
    # TRANSLATORS: the launcher's fault codes, shown as "FAULT: jam"; translate freely.
    "jam": N_("jam"),
    "empty": N_("empty"),
    "motor_timeout": N_("motor_timeout"),
    "config": N_("config"),
    "fault": N_("fault"),
}


def fault_name(code: str) -> str:
    """A launcher fault code (``jam``, ``empty``...) in the table's language."""
    return _(_FAULT_NAMES[code]) if code in _FAULT_NAMES else code


def is_foul_note(data: Mapping[str, Any]) -> bool:
    """Whether a journal note is a foul's (ATK-26): marked so (its outcome is ``foul``), or
    a journal's English note from before issue 25."""
    return bool(data.get("foul")) or data.get("notice") == FOUL_NOTICE


def event_dict(ev: Any) -> dict[str, Any]:
    """An event from the link as a plain dict with its name under ``event``."""
    if isinstance(ev, Mapping):
        return dict(ev)
    name = getattr(ev, "name", None)
    fields = getattr(ev, "fields", None)
    out = dict(fields) if isinstance(fields, Mapping) else {}
    out["event"] = name if name is not None else out.get("event")
    return out


class LinkedLauncher:
    """Drive one connected launcher for one table session (thread-safe)."""

    def __init__(
        self,
        client: Any,
        session: Session,
        notify: Notify,
        *,
        port: str = "",
        sim: Any = None,
        reopen: Callable[[], Any] | None = None,
    ) -> None:
        self.client = client
        self.session = session
        self.notify = notify
        self.port = port
        self.sim = sim
        self.reopen = reopen
        self.armed: Arming | None = UNKNOWN
        self.fault: str | None = None
        self.connected = True
        self.presses = 0
        self.cards_out = 0
        self.fouls = 0
        self.largest_burst: int | None = None  # from the launcher's configuration
        self._loaded: tuple[Any, bool] | None = None
        #: --port sim: the game's stock changed by the table's own hand (a hand size fixed,
        #: an undo): the simulated magazine follows it at the next sync (one count, one
        #: owner: the game's stock, which its presses move with it)
        self._realign = False
        if sim is not None:
            session.listen(self._on_session)
        session.guard(self._before_move)
        #: the press a pulled cable cut short, recorded as made (ATK-25): (boot, seq, player)
        #: of its ``press`` event, so that its ``eject``, if the board kept power and sends it
        #: after all, credits the cards instead of a second press (issue 33, item 2)
        self._cut: tuple[Any, int, str] | None = None
        #: (boot, seq) of the last numbered launcher event taken in (protocol 3): one at or
        #: below it is a duplicate (a replay, a catch-up) and is never applied again
        self.applied: tuple[Any, int] | None = None
        #: while catching up: what the events said, in order (said after, in one go)
        self._caught: list[tuple[Outcome | None, Outcome | None]] | None = None
        #: called whenever what :meth:`status` and the counters show changed without a
        #: ``notify`` (an arming after a move typed at the terminal): the web pages follow
        self.on_change: Callable[[], None] = lambda: None
        self._lock = threading.RLock()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="launcher-events", daemon=True)

    def start(self) -> LinkedLauncher:
        """Start listening to the launcher's events, in hosted mode from the start: a
        press before the first arming is a foul too (ATK-26), not a burst for nobody.
        First it catches up with what the launcher did while this game was not connected
        to it (``--resume`` after a crash: :meth:`catch_up`)."""
        self._watch(self.client)
        self.restore_counts()
        self.catch_up()
        set_mode = getattr(self.client, "set_mode", None)
        if set_mode is not None:
            try:
                set_mode("hosted")
            except UnolaunchError as exc:
                self._trouble(exc)
        config_get = getattr(self.client, "config_get", None)
        if config_get is not None:
            # ATK-25: the most cards one press can shoot, by this launcher's own settings
            # (a typed count above it is asked about as a typo).
            with contextlib.suppress(UnolaunchError, TypeError, ValueError):
                weights = config_get().get("burst_weights")
                if isinstance(weights, list) and weights:
                    self.largest_burst = len(weights)
        self._thread.start()
        return self

    def restore_counts(self) -> None:
        """The counters of this game's launcher (presses, cards out, fouls) as the journal
        has them: a resumed game goes on counting where it stopped. A press the launcher
        fired is journaled with its event's mark; a foul as a note."""
        presses = cards = fouls = 0
        last: dict[str, Any] = {}
        for e in self.session.entries():
            mark = e.data.get("launcher_event") if e.kind == "note" else None
            if isinstance(mark, Mapping) and mark.get("event") == "eject" and last.get("press"):
                presses += 1
                cards += int(last.get("cards") or 0)
            elif e.kind == "note" and is_foul_note(e.data):
                fouls += 1
            if e.kind == "action":
                last = e.data
        with self._lock:
            self.presses, self.cards_out, self.fouls = presses, cards, fouls

    def _watch(self, client: Any) -> None:
        # The client reports a lost link at once (then spends a while reconnecting while
        # holding the port): stop talking to it until it is back. A command sent meanwhile
        # (or cut by the loss) fails at once rather than wait for the cable: the table may
        # be holding the game's lock (an arming is made under it: docs/architecture.md,
        # *Crash safety*), and the lost burst's press needs that lock to be recorded.
        if hasattr(client, "reconnect_in_requests"):
            client.reconnect_in_requests = False
        on_event = getattr(client, "on_event", None)
        if on_event is not None:
            on_event(self._on_link_event)

    # ------------------------------------------------------------------ catching up
    def catch_up(self) -> None:
        """Apply, once each and in order, the launcher's events after the last one this
        game took in (the journal's mark), with one line saying what happened meanwhile;
        when the launcher restarted since, or its log no longer reaches back, say so and
        ask the table instead of guessing (issue 21). Then journal where the table is."""
        from unolaunch.link import EventLogGone

        client = self.client
        boot = getattr(client, "boot", None)
        if boot is None:
            return  # a firmware without numbered events: nothing to catch up with
        mark = self.session.launcher_mark()
        with self._lock:
            prev, self.applied = self.applied, (boot, int(getattr(client, "last_seq", 0) or 0))
        since = int(mark["seq"]) if mark is not None and mark.get("boot") == boot else None
        if prev is not None and prev[0] == boot:  # a reconnect: what this process took in
            since = max(since or 0, prev[1])
        if since is None and mark is not None and self.sim is None:
            # (a simulated launcher is this process's own: it did not run meanwhile)
            self.notify(Outcome("restarted_away"), Outcome("restarted_away_warning"))
        elif since is not None:
            try:
                missed = client.events_since(since)
            except EventLogGone as exc:
                self.notify(Outcome("log_gone"), Outcome("log_gone_warning", {"event": exc.oldest}))
            except UnolaunchError as exc:
                self._trouble(exc)
                return
            else:
                with self._lock:
                    self.applied = (boot, since)
                    self._caught = []
                try:
                    for ev in missed:
                        self.handle(dict(event_dict(ev), caught_up=True))
                finally:
                    self._say_caught_up()
        with self._lock:
            seq = self.applied[1] if self.applied else 0
        with contextlib.suppress(UnolaunchError):
            self.session.mark_launcher({"boot": boot, "seq": seq, "event": "connected"})

    def _tell(self, notice: Outcome | None, warning: Outcome | None) -> None:
        """Notify — or, while catching up, keep it to be said in its place after."""
        with self._lock:
            caught = self._caught
            if caught is not None:
                caught.append((notice, warning))
                return
        self.notify(notice, warning)

    def _say_caught_up(self) -> None:
        """What happened while unolaunch was away, in the order it happened: each run of
        presses in one line (who pressed how often, the cards out), a foul or a fault in its
        place between them (issue 34, item 9: a foul came before the presses made earlier)."""
        with self._lock:
            caught, self._caught = self._caught or [], None
        run: dict[str, list[int]] = {}

        def presses() -> None:
            if run:
                parts = [
                    Outcome("pressed_away", {"who": who, "times": len(outs), "cards": sum(outs)})
                    for who, outs in run.items()
                ]
                self.notify(Outcome("caught_up", {"presses": parts}), CLEAR)
                run.clear()

        for notice, warning in caught:
            if notice is not None and notice.kind == "pressed_away":
                run.setdefault(str(notice.args["who"]), []).append(int(notice.args["cards"]))
                continue
            presses()
            self.notify(notice, warning)
        presses()

    def _on_link_event(self, ev: dict[str, Any]) -> None:
        # (called by the client with its lock held, while it starts reconnecting: no lock
        # taken here, the rest on a thread of its own — a move being recorded holds the
        # session's lock and may be waiting for the client's)
        if ev.get("event") == "link" and ev.get("state") == "lost":
            self.connected = False
            version = self.session.version
            threading.Thread(
                target=self._lost, args=(ev, version), name="launcher-lost", daemon=True
            ).start()

    def _lost(self, ev: dict[str, Any], version: int) -> None:
        """The link is lost (``version``: the game's then). A burst that was running is a
        press made (ATK-25: a press is the unit; ATK-7: the turn is over): it is recorded
        with no card and the table is asked for the cards that came out, so the press is
        never asked again — unless the game moved on first (a press typed by hand)."""
        burst = ev.get("burst")
        who = burst.get("player") if isinstance(burst, dict) else None
        if not isinstance(burst, dict) or not isinstance(who, str):
            self.notify(Outcome("lost"), Outcome("lost_warning"))
            return
        # its cards flew out, its eject never comes (the board lost power with the cable):
        # only the table can count them
        numbered = isinstance(burst.get("seq"), int) and burst.get("boot") is not None
        with contextlib.suppress(IllegalMoveError, UnolaunchError):
            self.session.apply(
                {"by": who, "press": True, "cards": 0, "reason": "cut"},
                event=burst if numbered else None,
                expect=version,
            )
            if numbered:
                with self._lock:
                    self._cut = (burst.get("boot"), int(burst["seq"]), who)
        self.notify(
            Outcome("lost_burst", {"who": who}), Outcome("lost_burst_warning", {"who": who})
        )

    # ------------------------------------------------------------------ arming
    def status(self, inside: bool = True) -> str:
        """One line for the screen (with the simulated launcher's count of cards inside
        unless ``inside`` is false)."""
        if not self.connected:
            return _("disconnected — plug it back in; meanwhile type presses as 'press N'")
        if self.fault:
            return _("FAULT: {fault} — fix it, then type 'clear' · {next}").format(
                fault=fault_name(self.fault), next=self.next_press()
            )
        where = _("simulated") if self.sim is not None else self.port
        state = arming_text(None if self.armed is UNKNOWN else self.armed)
        if self.sim is not None and inside:
            n = int(self.sim.cards)
            return ngettext(
                "{where} · {state} · {n} card inside", "{where} · {state} · {n} cards inside", n
            ).format(where=where, state=state, n=n)
        return f"{where} · {state}"

    def sync(self) -> None:
        """Arm for exactly what the game awaits, or disarm (only when it changed); a
        change is published (:attr:`on_change`). The session's lock first, then this one's:
        a move is guarded in that order (:meth:`_before_move`)."""
        with self.session.lock, self._lock:
            if not self.connected or self.fault:
                return
            changed = self._load_sim()
            want = self.session.arming()
            if want != self.armed:
                try:
                    if want is None:
                        self.client.disarm()
                    else:
                        self.client.arm(want.player, want.presses, mode=want.mode)
                    self.armed = want
                    changed = True
                except UnolaunchError as exc:
                    self._trouble(exc)
                    return
        if changed:
            self.on_change()

    def _before_move(self) -> None:
        """(The session's guard: the engine took a move, the journal has not recorded it.)
        Disarm the launcher now when the move takes away a press it is armed for: the host
        writes ahead, the launcher is armed only for presses the journal owes, so whatever
        instant the host dies no press the game does not owe fires a card (ATK-26; docs/
        architecture.md, *Crash safety*). The arming for the new position comes after the
        record (:meth:`sync`)."""
        want = self.session.arming()
        with self._lock:
            if not self.connected or self.fault or covers(want, self.armed):
                return
            try:
                self.client.disarm()
            except UnolaunchError as exc:
                self._trouble(exc)
                return
            self.armed = None

    def _on_session(self, kind: str, data: dict[str, Any]) -> None:
        # (under the session's lock: only a flag) A correction or an undo moved cards
        # between the stock and a hand by the table's word; a stray card's correction
        # records cards the magazine already let out.
        if kind == "undo" or (kind == "action" and "correct" in data and "reason" not in data):
            self._realign = True

    def _load_sim(self) -> bool:
        """``--port sim``: once a round's start card is down, the simulated launcher holds
        exactly the stock, as the players would load a real one (ATK-3); after a hand size
        fixed or an undo it holds the stock again (issue 34, item 5: the magazine kept its
        own count, which 'fix' did not move and '--resume' then reloaded from the stock).
        True when loaded."""
        if self.sim is None:
            return False
        snap = self.session.snapshot()
        key = (snap.get("round"), snap.get("top") is not None)
        if snap.get("top") is None or (key == self._loaded and not self._realign):
            return False
        stock = int(snap.get("stock_size") or 0)
        self._realign = False
        self._loaded = key
        if int(self.sim.cards) == stock:
            return False
        self.sim.control(f"load {stock}")
        return True

    def next_press(self) -> str:
        """Who presses next and how many presses remain (what a fault leaves to do)."""
        return words(self.next_outcome())

    def next_outcome(self) -> Outcome:
        """:meth:`next_press` as data."""
        want = self.session.arming()
        owed = want is not None and (want.mode == "until_card" or self.session.presses_owed() > 0)
        if want is not None and owed:
            until = want.mode == "until_card"
            return Outcome("next_presses", {"who": want.player, "n": want.presses, "until": until})
        aw = self.session.snapshot().get("awaiting") or {}
        if aw:
            args = {"who": aw.get("by"), "verbs": list(aw.get("verbs", [])), "armed": bool(want)}
            return Outcome("next_verbs", args)
        return Outcome("no_press")

    def working(self) -> bool:
        """Connected and not in a fault (else presses are typed with their count)."""
        return self.connected and not self.fault

    def virtual_press(self) -> str:
        """``press`` typed at the keyboard."""
        if self.sim is not None:
            self.sim.control("press")
            return "  · " + _("(the simulated launcher's button is pressed)")
        return _(
            "press the launcher's button — or, if it is out of order, type the press with "
            "its cards, e.g. 'press 2'"
        )

    def clear(self) -> Outcome:
        """The table fixed a fault: clear it on the launcher and re-arm."""
        with self._lock:
            try:
                self.client.stop()
            except UnolaunchError as exc:
                self._trouble(exc)
                return Outcome("unreachable", {"error": str(exc)})
            self.fault = None
            self.armed = None
        self.sync()
        return Outcome("cleared")

    def close(self) -> None:
        """Disarm, stop listening and close the port."""
        self._stop.set()
        with self._lock:
            if self.connected:
                with contextlib.suppress(UnolaunchError):
                    self.client.disarm()
            with contextlib.suppress(UnolaunchError, OSError):
                self.client.close()
        self._thread.join(timeout=3)
        if self.sim is not None:  # --port sim: the simulator is ours to stop
            self.sim.close()

    # ------------------------------------------------------------------ events
    def _events(self) -> Iterator[Any]:
        return iter(self.client.events(timeout=0.2))

    def _run(self) -> None:
        while not self._stop.is_set():
            try:
                for ev in self._events():
                    if self._stop.is_set():
                        return
                    self.handle(event_dict(ev))
            except UnolaunchError as exc:
                if self._stop.is_set():
                    return
                self._trouble(exc)
                self._reconnect()
            except OSError as exc:
                if self._stop.is_set():
                    return
                self._trouble(exc)
                self._reconnect()

    def _trouble(self, exc: Exception) -> None:
        with self._lock:
            self.connected = False
            self.armed = None
        self.notify(None, Outcome("trouble", {"error": str(exc)}))

    def _reconnect(self) -> None:
        while not self._stop.wait(1.0):
            if self.reopen is None:
                return
            try:
                client = self.reopen()
            except UnolaunchError:
                continue
            self._watch(client)
            with self._lock:
                self.client = client
                self.connected = True
                self.fault = None
                self.armed = UNKNOWN  # the launcher may have kept an arming
            self.catch_up()
            self.sync()
            self.notify(Outcome("reconnected"), CLEAR)
            return

    def handle(self, ev: dict[str, Any]) -> None:
        """One launcher event: apply presses, report fouls and faults — a numbered event
        (protocol 3) once only, whether it comes live, again after a reconnect or in a
        catch-up."""
        seq, boot = ev.get("seq"), ev.get("boot")
        numbered = isinstance(seq, int) and boot is not None and ev.get("event") != "boot"
        if numbered and isinstance(seq, int):
            with self._lock:
                done = self.applied
                if done is not None and done[0] == boot and seq <= done[1]:
                    return  # applied already
                self.applied = (boot, seq)
        self._handle(ev)
        crashpoint.step(f"event:{ev.get('event')}")  # applied (issue 33)

    def _handle(self, ev: dict[str, Any]) -> None:
        name = ev.get("event")
        if name == "eject":
            self._eject(ev)
        elif name == "foul":
            self._foul(ev)
        elif name == "fault":
            self._fault(ev)
        elif name == "stray":
            self._stray(ev)
        elif name == "cleared":
            with self._lock:
                self.fault = None
                self.armed = None
            self.sync()
        elif name == "link" and ev.get("state") == "restored":
            with self._lock:
                self.connected = True
                self.fault = None
                armed = getattr(self.client, "armed", None)
                self.armed = restored = _arming_of(armed) if isinstance(armed, Mapping) else None
            self.sync()
            said = Outcome("restored", {"text": ev.get("message")})
            with self._lock:
                now = self.armed
            if now != restored:
                # the game moved on while the cable was out (presses typed by hand): the
                # client's "re-armed X" names what it had, not what the table armed just now
                armed = None if now is None else arming_json(now)
                said = Outcome("restored", {"text": ev.get("summary"), "arming": armed})
            self.notify(said, CLEAR)
        elif name == "boot":
            # The board restarted (reset, watchdog, replug): it forgot its arming.
            with self._lock:
                self.armed = None
            self.sync()
            self.notify(Outcome("restarted"), None)

    def _note(self, ev: dict[str, Any], notice: Outcome, warning: Outcome) -> None:
        """Journal a foul's or a fault's note (``history`` shows it, ``--resume`` counts the
        fouls) with the event's number in the same transaction, then say it: a crash
        leaves both or neither, and a caught-up event is not noted twice."""
        note: dict[str, Any] = {"warning": warning.to_json(), "outcome": notice.to_json()}
        if notice.kind == "foul":
            note["foul"] = True  # counted on --resume (ATK-26)
        if isinstance(ev.get("seq"), int) and ev.get("boot") is not None:
            note["launcher_event"] = event_mark(ev)
        with contextlib.suppress(UnolaunchError):  # the screen matters more than the log
            self.session.note(note)
        self._tell(notice, warning)

    def _foul(self, ev: dict[str, Any]) -> None:
        reason = ev.get("reason")
        if reason == "fault":
            # the owed press may be this very one: not a foul, nothing happened
            args = {"fault": self.fault or "fault", "next": self.next_outcome()}
            self._note(ev, Outcome("fault_refused"), Outcome("fault_refused_warning", args))
            return
        if reason == "busy":
            self._note(ev, Outcome("busy"), Outcome("busy_warning", {"next": self.next_outcome()}))
            return
        with self._lock:
            self.fouls += 1
        aw = self.session.snapshot().get("awaiting") or {}
        warning = Outcome(
            "foul_warning", {"who": aw.get("by"), "verbs": list(aw.get("verbs", []))} if aw else {}
        )
        self._note(ev, Outcome("foul"), warning)

    def _fault(self, ev: dict[str, Any]) -> None:
        code = str(ev.get("code", "fault"))
        player = ev.get("player") if isinstance(ev.get("player"), str) else None
        stock = int(self.session.snapshot().get("stock_size") or 0)
        key = code
        if code == "jam" and ev.get("beam") in ("blocked", "clear"):
            key = f"jam:{ev['beam']}"
            if ev["beam"] == "clear" and stock == 0:
                code = key = "empty"  # nothing inside by the table's count: ATK-22
        with self._lock:
            self.fault = code
            self.armed = None
        help_args = {
            "key": key,
            "fault": code,
            "message": str(ev.get("message", "")),
            "player": player,
            "stock": stock,
            "next": self.next_outcome(),
        }
        self._note(ev, Outcome("fault", {"fault": code}), Outcome("fault_warning", help_args))

    def _stray(self, ev: dict[str, Any]) -> None:
        """Cards the sensor saw leave between bursts: a card pulled out of a jam, one the
        roller carried out after its burst. They belong to who pressed last."""
        cards = ev.get("cards")
        player = ev.get("player")
        if not isinstance(cards, int) or cards <= 0:
            return
        with self._lock:
            self.cards_out += cards
        if not isinstance(player, str) or player not in self.session.players:
            self._tell(None, Outcome("stray_nobody", {"n": cards}))
            return
        size = int(self.session.snapshot()["hand_sizes"].get(player, 0))
        try:
            self.session.correct(
                player,
                size + cards,
                reason="stray",
                event=ev if isinstance(ev.get("seq"), int) else None,
            )
        except (IllegalMoveError, UnolaunchError) as exc:
            args = {"n": cards, "who": player, "error": str(exc)}
            self._tell(None, Outcome("stray_failed", args))
            return
        self._tell(Outcome("stray", {"n": cards, "who": player, "size": size + cards}), None)

    def _eject(self, ev: dict[str, Any]) -> None:
        player = ev.get("player")
        cards = ev.get("cards")
        if not isinstance(cards, int) or cards < 0:
            return
        with self._lock:
            cut, self._cut = self._cut, None
        seq = ev.get("seq")
        late = cut is not None and isinstance(seq, int) and seq > cut[1]
        if late and cut is not None and (ev.get("boot"), player) == (cut[0], cut[2]):
            # the eject of the press a pulled cable cut short (the board kept its power):
            # the press is recorded already (ATK-25); its cards are the player's
            self._stray(dict(ev, event="stray"))
            return
        with self._lock:
            self.presses += 1
            self.cards_out += cards
            a = self.armed
            if a is not None and a.player == player:
                # The launcher counts its owed presses down by itself; keep in step so
                # that sync() does not re-arm needlessly.
                left = a.presses - 1
                self.armed = Arming(a.player, left, a.mode) if left > 0 else None
                if a.mode == "until_card" and cards == 0:
                    self.armed = a
        if not isinstance(player, str):
            self._tell(Outcome("eject_nobody", {"n": cards}), Outcome("eject_nobody_warning"))
            return
        try:
            effects = self.session.apply(
                {"by": player, "press": True, "cards": cards},
                event=ev if isinstance(ev.get("seq"), int) else None,
            )
        except IllegalMoveError as exc:
            args = {"who": player, "n": cards, "rule": exc.rule}
            self._tell(None, Outcome("press_misfit", args))
            return
        if ev.get("caught_up"):
            # said with the catch-up's other presses (catch_up), and the arming after it
            self._tell(Outcome("pressed_away", {"who": player, "cards": cards}), None)
            return
        self.sync()
        # The cards a press brought are in its first words; then what else happened.
        then = of_effects([e for e in effects if e.kind != "draw"])
        self._tell(Outcome("press", {"who": player, "cards": cards, "then": then}), CLEAR)


def arming_json(a: Arming) -> dict[str, Any]:
    """What the launcher is armed for, as data (an outcome's ``arming``)."""
    return {"player": a.player, "presses": a.presses, "mode": a.mode}


def arming_text(a: Arming | Mapping[str, Any] | None) -> str:
    """What the launcher is armed for, in the screen's words (an :class:`Arming`, or its
    :func:`arming_json` data)."""
    if isinstance(a, Mapping):
        a = _arming_of(a)
    if a is None:
        return _("disarmed (a press now is a foul)")
    if a.mode == "until_card":
        text = ngettext(
            "armed for {who}, {n} press until a card comes out",
            "armed for {who}, {n} presses until a card comes out",
            a.presses,
        )
    else:
        text = ngettext("armed for {who}, {n} press", "armed for {who}, {n} presses", a.presses)
    return text.format(who=a.player, n=a.presses)


#: The engine's verbs (what an awaited player may do) in words, for the launcher's lines.
_VERBS = {
    "play": N_("play"),
    "press": N_("press"),
    "draw": N_("draw"),
    "pass": N_("pass"),
    "challenge": N_("challenge"),
    "accept": N_("accept"),
    "choose": N_("choose"),
    "catch": N_("catch"),
}


def verbs_text(verbs: Any) -> str:
    """``["play", "press"]`` -> ``play or press`` in the table's language."""
    words = [_(_VERBS[v]) if v in _VERBS else str(v) for v in verbs]
    return _(" or ").join(words)


def _arming_of(armed: Mapping[str, Any]) -> Arming | None:
    """The client's idea of what is armed, as an :class:`Arming`."""
    player, presses = armed.get("player"), armed.get("presses")
    if not isinstance(player, str) or not isinstance(presses, int) or presses < 1:
        return None
    return Arming(player, presses, str(armed.get("mode") or "random"))


def connect(
    port: str,
    session: Session,
    notify: Notify,
    *,
    board: str = "unix",
    rp2_dir: str | None = None,
    say: Callable[[str], None] | None = None,
) -> LinkedLauncher:
    """Open the launcher at ``port`` (a device, ``auto`` or ``sim``) for a table session;
    ``say`` prints why opening waits, if it does (a launcher that is starting).

    ``sim`` starts a simulated launcher (the real firmware in MicroPython, on ``board``:
    see :func:`unolaunch.sim.make_launcher`) loaded with the cards of the stock; typing
    ``press`` then presses its button.
    """
    from unolaunch.link import open_launcher

    sim = None
    device = port
    if port == "sim":
        from unolaunch.sim import make_launcher

        snap = session.snapshot()
        # the players load the launcher once the start card is turned up (ATK-3): before
        # that it is empty, as the screen says (issue 34, item 7)
        stock = int(snap.get("stock_size") or 0) if snap.get("top") is not None else 0
        sim = make_launcher(board, rp2_dir=rp2_dir, cards=stock).start()
        # its link, not its pty: a replugged simulator is a new pty (whose old name another
        # program's pty may have taken meanwhile), and the link follows it as a Pico's
        # /dev/serial/by-id name does
        device = sim.link
        for _ in range(50):  # the firmware boots in well under a second
            try:
                client = open_launcher(device, timeout=2.0)
                break
            except UnolaunchError:
                time.sleep(0.1)
        else:
            sim.close()
            raise UnolaunchError(_("the simulated launcher did not start; run 'unolaunch sim'"))
    else:
        # a launcher that is starting (just reset or plugged in) is waited for, and said
        client = open_launcher(port, timeout=2.0, on_wait=say)

    def reopen() -> Any:
        return open_launcher(device, timeout=2.0)

    driver = LinkedLauncher(client, session, notify, port=port, sim=sim, reopen=reopen)
    return driver.start()
