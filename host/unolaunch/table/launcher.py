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

from unolaunch.errors import UnolaunchError
from unolaunch.i18n import N_, _, ngettext
from unolaunch.rules import IllegalMoveError
from unolaunch.table.app import effect_text
from unolaunch.table.session import Arming, Session

#: notify(notice, warning): a line for the log and the warning to show ("" clears it).
Notify = Callable[[str | None, str | None], None]

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


#: The line of a foul (ATK-26) in the log and the journal's note (counted on --resume: the
#: note is marked ``foul``; a journal from before issue 25 has this English line).
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


def press_outcome(notice: str, player: str) -> str | None:
    """What a launcher notice says became of ``player``'s press, in whatever language the
    table said it: ``fired``, ``foul`` (ATK-26), ``ignored`` (pressed while firing),
    ``fault`` (refused: the launcher is stopped), or None (another notice). For a front end
    that pressed the button for a player and waits for the outcome (the web pages)."""
    from unolaunch.i18n import LANGUAGES, PSEUDO, use

    for lang in (*LANGUAGES, PSEUDO):
        with use(lang):
            fired = {
                ngettext("{who} presses: {n} card out", "{who} presses: {n} cards out", n)
                .format(who=player, n="\0")
                .split("\0")[0]
                for n in (1, 2, 5, 11, 21)
            }
            if any(notice.startswith(head) for head in fired):
                return "fired"
            if notice == _(FOUL_NOTICE):
                return "foul"
            if notice == _("press while firing: ignored"):
                return "ignored"
            if notice == _("press refused: the launcher is in a fault"):
                return "fault"
    return None


def fault_name(code: str) -> str:
    """A launcher fault code (``jam``, ``empty``...) in the table's language."""
    return _(_FAULT_NAMES[code]) if code in _FAULT_NAMES else code


def is_foul_note(data: Mapping[str, Any]) -> bool:
    """Whether a journal note is a foul's (ATK-26), whatever language it was said in."""
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
        self.armed: Arming | None = None
        self.fault: str | None = None
        self.connected = True
        self.presses = 0
        self.cards_out = 0
        self.fouls = 0
        self.largest_burst: int | None = None  # from the launcher's configuration
        self._loaded: tuple[Any, bool] | None = None
        #: (boot, seq) of the last numbered launcher event taken in (protocol 3): one at or
        #: below it is a duplicate (a replay, a catch-up) and is never applied again
        self.applied: tuple[Any, int] | None = None
        self._caught: dict[str, list[int]] = {}  # a catch-up's presses: player -> cards
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
        for e in self.session.journal.entries(self.session.id):
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
        # holding the port): stop talking to it until it is back.
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
        if since is None and mark is not None:
            self.notify(
                _("the launcher restarted while unolaunch was away"),
                _(
                    "the launcher restarted while unolaunch was not running, and its record of "
                    "presses went with it: if anyone pressed it meanwhile, give them the cards "
                    "that came out with 'fix NAME N'"
                ),
            )
        elif since is not None:
            try:
                missed = client.events_since(since)
            except EventLogGone as exc:
                self.notify(
                    _("the launcher's log does not reach back"),
                    _(
                        "more happened while unolaunch was away than the launcher keeps (its "
                        "log starts at event {event}): count the cards each player got "
                        "meanwhile and correct the hands with 'fix NAME N'"
                    ).format(event=exc.oldest),
                )
            except UnolaunchError as exc:
                self._trouble(exc)
                return
            else:
                with self._lock:
                    self.applied = (boot, since)
                    self._caught = {}
                for ev in missed:
                    self.handle(dict(event_dict(ev), caught_up=True))
                self._say_caught_up()
        with self._lock:
            seq = self.applied[1] if self.applied else 0
        with contextlib.suppress(UnolaunchError):
            self.session.mark_launcher({"boot": boot, "seq": seq, "event": "connected"})

    def _say_caught_up(self) -> None:
        with self._lock:
            caught, self._caught = self._caught, {}
        if not caught:
            return
        parts = []
        for player, outs in caught.items():
            n = len(outs)
            if n == 1:
                times = _("once")
            elif n == 2:
                times = _("twice")
            else:
                times = ngettext("{n} time", "{n} times", n).format(n=n)
            cards = sum(outs)
            parts.append(
                ngettext(
                    "{who} pressed {times}: {n} card out",
                    "{who} pressed {times}: {n} cards out",
                    cards,
                ).format(who=player, times=times, n=cards)
            )
        self.notify(
            _("while unolaunch was not running, {presses}").format(presses="; ".join(parts)), ""
        )

    def _on_link_event(self, ev: dict[str, Any]) -> None:
        if ev.get("event") == "link" and ev.get("state") == "lost":
            with self._lock:
                self.connected = False
            burst = ev.get("burst")
            who = burst.get("player") if isinstance(burst, dict) else None
            if isinstance(who, str):
                # a burst was running: its cards flew out, its eject never comes (the
                # board lost power with the cable); only the table can count them
                self.notify(
                    _("lost the launcher during {who}'s burst").format(who=who),
                    _(
                        "the launcher was unplugged while {who}'s burst ran: count the cards "
                        "that came out and give them to {who} with 'fix {who} N'; then plug it "
                        "back in (it is re-armed by itself)"
                    ).format(who=who),
                )
                return
            self.notify(
                _("lost the launcher"),
                _(
                    "the launcher is disconnected: plug it back in (it is re-armed by itself); "
                    "meanwhile a press can be typed as 'press N' (N = cards that came out)"
                ),
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
        state = _arming_text(self.armed)
        if self.sim is not None and inside:
            n = int(self.sim.cards)
            return ngettext(
                "{where} · {state} · {n} card inside", "{where} · {state} · {n} cards inside", n
            ).format(where=where, state=state, n=n)
        return f"{where} · {state}"

    def sync(self) -> None:
        """Arm for exactly what the game awaits, or disarm (only when it changed); a
        change is published (:attr:`on_change`)."""
        with self._lock:
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

    def _load_sim(self) -> bool:
        """``--port sim``: once a round's start card is down, the simulated launcher holds
        exactly the stock, as the players would load a real one (ATK-3). True when loaded."""
        if self.sim is None:
            return False
        snap = self.session.snapshot()
        key = (snap.get("round"), snap.get("top") is not None)
        if key != self._loaded and snap.get("top") is not None:
            self.sim.control(f"load {int(snap.get('stock_size') or 0)}")
            self._loaded = key
            return True
        return False

    def next_press(self) -> str:
        """Who presses next and how many presses remain (what a fault leaves to do)."""
        want = self.session.arming()
        owed = want is not None and (want.mode == "until_card" or self.session.presses_owed() > 0)
        if want is not None and owed:
            n = want.presses
            if want.mode == "until_card":
                text = ngettext(
                    "{who} presses next: {n} press left (until a card comes out)",
                    "{who} presses next: {n} presses left (until a card comes out)",
                    n,
                )
            else:
                text = ngettext(
                    "{who} presses next: {n} press left", "{who} presses next: {n} presses left", n
                )
            return text.format(who=want.player, n=n)
        aw = self.session.snapshot().get("awaiting") or {}
        if aw:
            verbs = _verbs_text(aw.get("verbs", []))
            if want:
                return _("next: {who} is to {verbs}").format(who=aw.get("by"), verbs=verbs)
            return _("no press owed: {who} is to {verbs}").format(who=aw.get("by"), verbs=verbs)
        return _("no press owed")

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

    def clear(self) -> str:
        """The table fixed a fault: clear it on the launcher and re-arm."""
        with self._lock:
            try:
                self.client.stop()
            except UnolaunchError as exc:
                self._trouble(exc)
                return _("could not reach the launcher: {error}").format(error=exc)
            self.fault = None
            self.armed = None
        self.sync()
        return "  · " + _("launcher fault cleared")

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
        self.notify(
            None,
            _(
                "launcher disconnected ({error}): plug it back in; until then type presses as "
                "'press N' (N = cards that came out)"
            ).format(error=exc),
        )

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
                self.armed = None
            self.catch_up()
            self.sync()
            self.notify(_("launcher reconnected"), "")
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
        if numbered and ev.get("event") in ("fault", "foul"):
            # no game action to carry the mark: journal it on its own
            with contextlib.suppress(UnolaunchError):
                self.session.mark_launcher(ev)

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
            message = str(ev.get("message") or _("launcher reconnected"))
            with self._lock:
                now = self.armed
            if now != restored:
                # the game moved on while the cable was out (presses typed by hand): the
                # client's "re-armed X" names what it had, not what the table armed just now
                summary = str(ev.get("summary") or _("launcher reconnected"))
                message = summary + "; " + _arming_text(now)
            self.notify(message, "")
        elif name == "boot":
            # The board restarted (reset, watchdog, replug): it forgot its arming.
            with self._lock:
                self.armed = None
            self.sync()
            self.notify(_("launcher restarted"), None)

    def _foul(self, ev: dict[str, Any]) -> None:
        reason = ev.get("reason")
        if reason == "fault":
            # the owed press may be this very one: not a foul, nothing happened
            self.notify(
                _("press refused: the launcher is in a fault"),
                _(
                    "the launcher is stopped ({fault}) and did not fire: fix it and type "
                    "'clear' first · {next}"
                ).format(fault=fault_name(self.fault or "fault"), next=self.next_press()),
            )
            return
        if reason == "busy":
            self.notify(
                _("press while firing: ignored"),
                _(
                    "the button was pressed while the launcher was still firing: ignored · {next}"
                ).format(next=self.next_press()),
            )
            return
        with self._lock:
            self.fouls += 1
        aw = self.session.snapshot().get("awaiting") or {}
        if aw:
            warning = _(
                "FOUL (ATK-26): the button was pressed when no press was owed — the launcher "
                "did not fire. {who} is to {verbs}"
            ).format(who=aw.get("by"), verbs=_verbs_text(aw.get("verbs", [])))
        else:
            warning = _(
                "FOUL (ATK-26): the button was pressed when no press was owed — the launcher "
                "did not fire."
            )
        self.notify(_(FOUL_NOTICE), warning)

    def _fault(self, ev: dict[str, Any]) -> None:
        code = str(ev.get("code", "fault"))
        player = (
            ev.get("player") if isinstance(ev.get("player"), str) else _("the player who pressed")
        )
        stock = int(self.session.snapshot().get("stock_size") or 0)
        key = code
        if code == "jam" and ev.get("beam") in ("blocked", "clear"):
            key = f"jam:{ev['beam']}"
            if ev["beam"] == "clear" and stock == 0:
                code = key = "empty"  # nothing inside by the table's count: ATK-22
        with self._lock:
            self.fault = code
            self.armed = None
        found = FAULT_HELP.get(key)
        if found is None:
            text = _("launcher fault {code}: {message}; type 'clear' once fixed").format(
                code=code, message=ev.get("message", "")
            )
        else:
            text = _(found).format(player=player, stock=stock)
        self.notify(
            _("launcher fault: {code}").format(code=fault_name(code)),
            f"{text} · {self.next_press()}",
        )

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
            self.notify(
                None,
                ngettext(
                    "{n} card came out of the launcher for nobody: give them to whoever "
                    "pressed and correct the hand with 'fix NAME N'",
                    "{n} cards came out of the launcher for nobody: give them to whoever "
                    "pressed and correct the hand with 'fix NAME N'",
                    cards,
                ).format(n=cards),
            )
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
            self.notify(
                None,
                ngettext(
                    "{n} card came out after {who}'s press but could not be added "
                    "({error}): correct the hand with 'fix {who} N'",
                    "{n} cards came out after {who}'s press but could not be added "
                    "({error}): correct the hand with 'fix {who} N'",
                    cards,
                ).format(n=cards, who=player, error=exc),
            )
            return
        self.notify(
            ngettext(
                "{n} more card came out after {who}'s press: given to {who} "
                "(now {size}; 'undo' if not)",
                "{n} more cards came out after {who}'s press: given to {who} "
                "(now {size}; 'undo' if not)",
                cards,
            ).format(n=cards, who=player, size=size + cards),
            None,
        )

    def _eject(self, ev: dict[str, Any]) -> None:
        player = ev.get("player")
        cards = ev.get("cards")
        if not isinstance(cards, int) or cards < 0:
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
            self.notify(
                ngettext(
                    "{n} card came out for nobody", "{n} cards came out for nobody", cards
                ).format(n=cards),
                _(
                    "the launcher fired without an arming; give the cards to whoever pressed "
                    "and correct the hand with 'fix NAME N'"
                ),
            )
            return
        try:
            effects = self.session.apply(
                {"by": player, "press": True, "cards": cards},
                event=ev if isinstance(ev.get("seq"), int) else None,
            )
        except IllegalMoveError as exc:
            self.notify(
                None,
                _(
                    "{who}'s press ({n} cards) did not fit the game ({rule}); "
                    "correct {who}'s hand with 'fix {who} N'"
                ).format(who=player, n=cards, rule=exc.rule),
            )
            return
        # The cards a press brought are in the first words; say what else happened.
        rest = "; ".join(effect_text(e) for e in effects if e.kind != "draw")
        if ev.get("caught_up"):
            with self._lock:
                self._caught.setdefault(player, []).append(cards)
            return  # one line for the whole catch-up (catch_up), and the arming after it
        self.sync()
        out = ngettext("{who} presses: {n} card out", "{who} presses: {n} cards out", cards).format(
            who=player, n=cards
        )
        self.notify(f"{out} · {rest}" if rest else out, "")


def _arming_text(a: Arming | None) -> str:
    """What the launcher is armed for, in the screen's words."""
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


def _verbs_text(verbs: Any) -> str:
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

        stock = int(session.snapshot().get("stock_size") or 0)
        sim = make_launcher(board, rp2_dir=rp2_dir, cards=stock).start()
        device = sim.port
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
