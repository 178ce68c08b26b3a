"""The browser's way into a game: the table's session, or the demo's game, as seen and
played from a web page.

A front end gives the web server two things: :meth:`state` (the JSON of ``/api/state``)
and :meth:`act` (one player's action from ``POST /api/action``, already authenticated).
It calls ``on_change`` whenever the state may have changed, from whatever thread.

:class:`TableFront` is ``unolaunch play --web``: the web pages are a second front end of
the one :class:`~unolaunch.table.session.Session`. An action from a phone goes through
:meth:`Session.apply` exactly as one typed at the terminal or pressed on the launcher (the
session's lock puts them in one order; the journal stores it at once), and the terminal
redraws to show it. :class:`DemoFront` is ``unolaunch demo --web``: the bots' game shown
live, read-only.
"""

from __future__ import annotations

import queue
import threading
import time
from collections.abc import Callable, Mapping
from typing import Any

from unolaunch.errors import UnolaunchError
from unolaunch.rules import Effect, Game, IllegalMoveError
from unolaunch.rules.actions import Action, ActionFormatError
from unolaunch.table.app import Table, effect_text, error_text
from unolaunch.table.parse import ParseError, parse_hand
from unolaunch.table.session import TableError
from unolaunch.web.state import Extras, build_state, deck_codes, launcher_state

#: Ends the terminal's paint thread.
_STOP = object()

#: A reply to an action: the HTTP status and the JSON body.
Reply = tuple[int, dict[str, Any]]


def refused(status: int, message: str, rule: str | None = None) -> Reply:
    """An action that changed nothing: ``{"ok": false, "error": message, "rule": ...}``."""
    body: dict[str, Any] = {"ok": False, "error": message}
    if rule:
        body["rule"] = rule
    return status, body


class TableFront:
    """``unolaunch play --web``: the terminal's :class:`~unolaunch.table.app.Table` and its
    session, for the web pages (see the module docstring)."""

    players_can_act = True

    def __init__(self, table: Table) -> None:
        self.table = table
        self.session = table.session
        self.on_change: Callable[[], None] = lambda: None
        self.fire: dict[str, Any] | None = None
        self._fires = 0
        self.session.listen(self._on_session)
        # The terminal is drawn from a thread of its own: a terminal that does not read
        # its output (scrolled back, Ctrl-S) never holds up a phone or the launcher.
        self._paint: queue.SimpleQueue[object] = queue.SimpleQueue()
        self._painter = threading.Thread(target=self._paint_loop, name="web-paint", daemon=True)
        self._painter.start()

    @property
    def players(self) -> tuple[str, ...]:
        """Players in seating order."""
        return self.session.players

    def _on_session(self, kind: str, data: dict[str, Any]) -> None:
        # Every press with its card count, from the launcher, the terminal or a phone:
        # the table view shows it as the launcher firing.
        if kind == "action" and data.get("press") is True and isinstance(data.get("cards"), int):
            self._fires += 1
            self.fire = {"seq": self._fires, "player": data.get("by"), "cards": data["cards"]}
        self.on_change()

    def notify(self, notice: str | None, warning: str | None) -> None:
        """The launcher's notify (a foul, a fault, a press): the pages update at once, the
        terminal redraws as soon as it can."""
        self.table.remember(notice, warning)
        self.on_change()
        self._paint.put(notice)

    def _paint_loop(self) -> None:
        while True:
            notice = self._paint.get()
            if notice is _STOP:
                return
            self.table.repaint(notice if isinstance(notice, str) else None)

    def close(self) -> None:
        """Stop drawing the terminal for the pages (what is queued is drawn first)."""
        self._paint.put(_STOP)
        self._painter.join(timeout=2)

    def state(self) -> dict[str, Any]:
        """The JSON state (web/state.py) with what the terminal's screen shows."""
        t = self.table
        with self.session.lock:
            view = t.view()
            extras = Extras(
                game_id=self.session.id,
                launcher=launcher_state(t.launcher),
                notice=view.notice,
                warning=view.warning,
                log=t.log[-8:],
                uno_said=list(view.uno_said),
                fire=self.fire,
                extra={"playable": self.playable()},
            )
            return build_state(self.session.game, extras)

    def playable(self) -> list[str]:
        """The cards the awaited player may play now (COM-2 and the variant's rules), each
        tried on the engine and taken back (:meth:`Session.check_action`): the player
        page shows the others dimmed. Empty when no play is allowed."""
        s = self.session
        with s.lock:
            aw = s.game.awaiting
            if not aw or "play" not in aw["verbs"]:
                return []
            by = str(aw["by"])
            other = next(p for p in s.players if p != by)
            out = []
            for code in deck_codes(s.game):
                action: dict[str, Any] = {"by": by, "play": code}
                if code.startswith("W"):
                    action["color"] = "red"
                if code == "WAA" or code.endswith("TH"):
                    action["target"] = other
                if code.endswith("DA"):
                    action["discarded"] = []
                try:
                    s.check_action(action)
                except (IllegalMoveError, UnolaunchError, ValueError):
                    continue
                out.append(code)
            return out

    # ------------------------------------------------------------------ actions
    def act(self, player: str, data: Mapping[str, Any]) -> Reply:
        """Carry out ``player``'s action (``by`` already checked to be ``player``): a
        scenario-format action, or the web's two table steps ``{"by", "deal": true}`` (deal
        the next round) and ``{"by", "reveal": {NAME: "r5 g7" | "37"}}`` (round end, read
        as the terminal reads it). Refusals carry the terminal's message."""
        s = self.session
        try:
            if "deal" in data:
                _only(data, "deal")
                if data["deal"] is not True:
                    return refused(400, 'deal: must be true ({"by": NAME, "deal": true})')
                effects = s.next_round()
            elif "reveal" in data:
                _only(data, "reveal")
                left = self._left(data["reveal"])
                with s.lock:  # checked and scored in one step
                    aw = s.snapshot().get("awaiting") or {}
                    if s.choice() != "reveal":
                        return refused(409, "the round is not waiting for the cards left")
                    if aw.get("by") != player:
                        winner = aw.get("by")
                        return refused(409, f"{winner} went out: {winner} reports the hands left")
                    effects = s.reveal(left)
            else:
                action = Action.from_dict(data)
                if action.verb == "correct":
                    return refused(403, "hand sizes are corrected at the terminal ('fix NAME N')")
                if action.verb == "press" and action.cards is None:
                    return self._press(player)
                effects = s.apply(dict(data))
        except (ActionFormatError, ParseError) as exc:
            return refused(400, str(exc))
        except IllegalMoveError as exc:
            return refused(409, error_text(exc, s), exc.rule)
        except TableError as exc:  # a table fact that cannot be (ATK-12, COM-8)
            return refused(409, error_text(exc))
        except UnolaunchError as exc:  # the journal cannot be written: nothing changed
            return refused(500, error_text(exc))
        self._done(player, effects)
        return 200, {"ok": True, "effects": [effect_text(e) for e in effects]}

    def _left(self, raw: Any) -> dict[str, list[str] | int]:
        """``reveal``'s answers, each read like the terminal's round-end question."""
        if not isinstance(raw, Mapping):
            raise ParseError('reveal: an object {"NAME": "r5 g7 wild" or "37"}')
        ctx = self.table.context()
        left: dict[str, list[str] | int] = {}
        for name, text in raw.items():
            if name not in self.session.players:
                raise ParseError(f"reveal: {name!r} is not a player")
            if isinstance(text, int) and not isinstance(text, bool):
                text = str(text)
            if not isinstance(text, str) or len(text) > 400:
                raise ParseError(f"reveal.{name}: the cards (r5 g7 wild) or the points (37)")
            left[name] = parse_hand(text, ctx)
        return left

    def _press(self, player: str) -> Reply:
        """A press without its card count: the launcher's button. With ``--port sim`` the
        page presses the simulated button (a press nobody owes is the firmware's foul,
        ATK-26); a real launcher is pressed by hand; with none, the count is needed."""
        launcher = self.table.launcher
        if launcher is None or not launcher.working():
            return refused(
                400,
                "how many cards came out? send the press with its count, e.g. "
                f'{{"by": "{player}", "press": true, "cards": 2}}',
            )
        sim = getattr(launcher, "sim", None)
        armed = getattr(launcher, "armed", None)
        if sim is None:
            return refused(409, "press the launcher's button: it fires for whoever it is armed for")
        if armed is not None and armed.player != player:
            return refused(
                409,
                f"ATK-26: the launcher is armed for {armed.player}; a press by {player} now is a "
                "foul — the game is unchanged",
                "ATK-26",
            )
        launcher.virtual_press()
        self.notify(f"{player} presses the simulated launcher's button", None)
        return 202, {"ok": True, "pressed": True, "armed": armed is not None}

    def _done(self, player: str, effects: list[Effect]) -> None:
        """After a phone's action: the launcher follows the game and the terminal shows it."""
        texts = [effect_text(e) for e in effects]
        self.table.sync_launcher()
        what = "; ".join(texts) if texts else "done"
        self.notify(f"{player} (web): {what}", "")


def _only(data: Mapping[str, Any], verb: str) -> None:
    extra = sorted(set(data) - {"by", verb})
    if extra:
        raise ActionFormatError(extra[0], f"unexpected key {extra[0]!r} for a {verb} action")


class DemoFront:
    """``unolaunch demo --web``: the bots' game, read-only. The demo's thread calls
    :meth:`publish` after each step; the state is built there (the game is not shared)."""

    players_can_act = False

    def __init__(self, players: tuple[str, ...], pace: float = 0.0) -> None:
        self.players = players
        self.pace = pace  # seconds to wait after each published step
        self.on_change: Callable[[], None] = lambda: None
        self._lock = threading.Lock()
        self._state: dict[str, Any] = {}
        self._log: list[str] = []
        self._fires = 0
        self._fire: dict[str, Any] | None = None

    def note(self, line: str) -> None:
        """One line of the demo's log."""
        with self._lock:
            self._log.append(line.strip())
            del self._log[:-8]

    def publish(
        self, game: Game, press: tuple[str, int] | None, launcher: dict[str, Any] | None
    ) -> None:
        """The demo's game after a step (``press``: who pressed and the cards out)."""
        with self._lock:
            if press is not None:
                self._fires += 1
                self._fire = {"seq": self._fires, "player": press[0], "cards": press[1]}
            extras = Extras(
                launcher=launcher,
                notice=self._log[-1] if self._log else None,
                log=list(self._log),
                fire=self._fire,
                hidden_hands=False,
                players_can_act=False,
            )
            self._state = build_state(game, extras)
        self.on_change()

    def watch(self, demo: Any, pressed: tuple[str, int] | None) -> None:
        """:attr:`unolaunch.table.demo.Demo.watch`: publish the demo's game and its
        launcher, then wait :attr:`pace` seconds so that people can follow."""
        armed = getattr(demo.client, "armed", None) or None
        inside = int(demo.sim.cards)
        if armed:
            n = int(armed.get("presses") or 0)
            state = f"armed for {armed.get('player')}, {n} press{'es' * (n != 1)}"
        else:
            state = "disarmed (a press now is a foul)"
        launcher = {
            "status": f"simulated · {state} · {inside} cards inside",
            "kind": "sim",
            "connected": True,
            "working": True,
            "fault": None,
            "armed": (
                {
                    "player": armed.get("player"),
                    "presses": int(armed.get("presses") or 0),
                    "mode": str(armed.get("mode") or "random"),
                }
                if armed
                else None
            ),
            "cards_inside": inside,
            "presses": demo.presses,
            "cards_out": demo.cards_launched,
            "fouls": 0,
        }
        self.publish(demo.game, pressed, launcher)
        if self.pace > 0:
            time.sleep(self.pace)

    def state(self) -> dict[str, Any]:
        """The last published state."""
        with self._lock:
            return dict(self._state)

    def act(self, player: str, data: Mapping[str, Any]) -> Reply:
        """The bots play the demo: nobody acts from the web."""
        return refused(403, "this is the bots' demo game: watch it, the bots play")
