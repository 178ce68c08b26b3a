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

import functools
import queue
import re
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from unolaunch.errors import UnolaunchError
from unolaunch.i18n import N_, PSEUDO, PSEUDO_CLOSE, PSEUDO_OPEN, _, current, ngettext
from unolaunch.rules import Effect, Game, IllegalMoveError
from unolaunch.rules.actions import Action, ActionFormatError
from unolaunch.table.app import Table, effect_text, error_text
from unolaunch.table.outcome import CLEAR, Outcome, note_outcome, of_effects, words
from unolaunch.table.parse import ParseError, parse_hand
from unolaunch.table.session import (
    StaleLine,
    TableError,
    actions_in_effect,
    engine_action,
    fresh_game,
)
from unolaunch.web.state import Extras, build_state, deck_codes, launcher_state

#: Ends the terminal's paint thread.
_STOP = object()

_DEAL_EXAMPLE = '{"by": NAME, "deal": true}'

#: A reply to an action: the HTTP status and the JSON body.
Reply = tuple[int, dict[str, Any]]


def refused(status: int, message: str, rule: str | None = None) -> Reply:
    """An action that changed nothing: ``{"ok": false, "error": message, "rule": ...}``,
    the message in a phone's words (:func:`phone_words`), its rule apart."""
    found = _RULE_FIRST.match(message)
    if found:
        rule = rule or found.group(1)
    body: dict[str, Any] = {"ok": False, "error": phone_words(message)}
    if rule:
        body["rule"] = rule
    return status, body


def stale(exc: StaleLine) -> Reply:
    """A move made before the game moved on: 409, ``"stale": true`` and the version now."""
    status, body = refused(409, str(exc))
    body.update(stale=True, at=exc.version)
    return status, body


_RULE_FIRST = re.compile(r"^([A-Z]{2,3}-\d+): ")
# The terminal's commands in a message, and how a phone says them instead. Both sides are
# translated: a language's pattern is how that language's messages quote the terminal's
# command ({player}: a name, or NAME; {command}: the word typed for 'undo' or 'clear'), so
# a phone reads every language's messages in its own words. A pattern may list
# alternatives separated by '|' (Icelandic puts 'svo' or 'fyrst' inside 'sláðu inn'); the
# phone's words then list as many, taken in step (or one for them all).
_PHONE_WORDS = (
    (
        # TRANSLATORS: a pattern to find in messages, not a sentence to show: write it
        # exactly as your translation of "if {who} does not hold {n} cards, type 'fix {who}
        # N' first (N: the real count)" writes this part, with {player} for the name.
        N_("type 'fix {player} N' first (N: the real count)"),
        N_("first the table corrects {player}'s card count"),
    ),
    (
        # TRANSLATORS: a pattern to find in messages: the command that corrects a hand size
        # as your messages quote it, {player} for the name (or NAME). Parentheses around it
        # go with it.
        N_("'fix {player} N'"),
        N_("(the table corrects {player}'s card count)"),
    ),
    (
        # TRANSLATORS: a pattern to find in messages: "type 'undo'" and "type 'clear'" as
        # your messages say them, {command} for the word typed; alternatives separated by
        # '|' (and the phone's words for each, in the same order, in the next string).
        N_("type '{command}'"),
        N_("the table types '{command}' at the terminal"),
    ),
)
_FIELDS = {"player": r"(?P<player>[^'\s]+)", "command": r"(?P<command>[^'\s]+)"}
_TABLE_COMMANDS = ("undo", "clear")  # what {command} may stand for (glossary.COMMANDS)


@functools.lru_cache(maxsize=8)
def _phone_rewrites(lang: str) -> list[tuple[re.Pattern[str], str]]:
    """The rewrites of :data:`_PHONE_WORDS` in ``lang``, the current language (a key for
    the cache: built once per language): (pattern, words)."""
    out = []
    for pattern, phone in _PHONE_WORDS:
        translated = _(pattern)
        if current() == PSEUDO:  # the pseudo-locale's messages quote the English
            translated = translated.removeprefix(PSEUDO_OPEN).removesuffix(PSEUDO_CLOSE)
        found = [alt.strip() for alt in translated.split("|") if alt.strip()]
        said = [alt.strip() for alt in _(phone).split("|")]
        for i, alternative in enumerate(found):
            regex = re.escape(alternative)
            for name, group in _FIELDS.items():
                regex = regex.replace(re.escape("{" + name + "}"), group)
            if pattern == _PHONE_WORDS[1][0]:
                regex = r"\(?" + regex + r"\)?"
            out.append((re.compile(regex), said[i] if len(said) == len(found) else said[0]))
    return out


def phone_words(message: str) -> str:
    """A terminal message as a phone says it: without the leading rule id (the page shows
    it apart, small) and with the terminal's commands said in words, in the language the
    message is in (the current one)."""
    from unolaunch.table.glossary import COMMANDS

    text = _RULE_FIRST.sub("", message, count=1)
    for regex, said in _phone_rewrites(current()):

        def fill(m: re.Match[str], said: str = said) -> str:
            fields = m.groupdict()
            command = fields.get("command")
            if command is not None and COMMANDS.get(command, command) not in _TABLE_COMMANDS:
                return m[0]  # another quoted word ('yes', a card): left as it is
            return said.format(**fields)

        text = regex.sub(fill, text)
    return text


class TableFront:
    """``unolaunch play --web``: the terminal's :class:`~unolaunch.table.app.Table` and its
    session, for the web pages (see the module docstring)."""

    players_can_act = True

    def __init__(self, table: Table) -> None:
        self.table = table
        self.session = table.session
        #: the game's language: the terminal's and the table log's (a phone may read its own)
        self.lang = current()
        self.on_change: Callable[[], None] = lambda: None
        self.fire: dict[str, Any] | None = None
        self._fires = 0
        #: the launcher's recent notices, numbered (what became of a phone's press)
        self._notices: list[tuple[int, Outcome]] = []
        self._heard_n = 0
        self._heard = threading.Condition()
        self._dealt: tuple[Any, str] = (None, "")  # (round, who) of the last deal from a phone
        self._button = threading.Lock()  # one phone press at a time (issue 34, item 10)
        self._pressed: dict[str, int] = {}  # the version each player's last press was made at
        self._rounds: tuple[Any, list[dict[str, Any]]] = (None, [])
        self.session.listen(self._on_session)
        if not table.log:  # --resume: the log as it was, from the journal
            table.log.extend(journal_log(self.session)[-8:])
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

    def follow(self, launcher: Any) -> None:
        """Publish every change of ``launcher`` (a re-arming after a move typed at the
        terminal changes no game state, but the pages show the launcher)."""
        if hasattr(launcher, "on_change"):
            launcher.on_change = self._launcher_changed
        self.on_change()  # a page that asked before the launcher was there: it is now

    def _launcher_changed(self) -> None:
        self.on_change()

    def notify(self, notice: Outcome | None, warning: Outcome | None) -> None:
        """The launcher's notify (a foul, a fault, a press): the pages update at once, the
        terminal redraws as soon as it can."""
        if notice is not None:
            with self._heard:
                self._heard_n += 1
                self._notices.append((self._heard_n, notice))
                del self._notices[:-64]
                self._heard.notify_all()
        self.table.remember(notice, warning)
        self.on_change()
        self._paint.put(notice)

    def _paint_loop(self) -> None:
        while True:
            notice = self._paint.get()
            if notice is _STOP:
                return
            self.table.repaint(notice if isinstance(notice, Outcome) else None)

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
                launcher=launcher_state(t.launcher, inside=t.inside_known()),
                notice=view.notice,
                reminder=view.reminder or None,
                warning=view.warning,
                log=[words(o) for o in t.log[-8:]],
                uno_said=list(view.uno_said),
                fire=self.fire,
                extra={
                    "playable": self.playable(),
                    "rounds": self.rounds(),
                    # the game's version: a phone's move carries it back (issue 34)
                    "at": self.session.version,
                },
            )
            return build_state(self.session.game, extras)

    def rounds(self) -> list[dict[str, Any]]:
        """Each round scored so far: ``{"round", "winner", "points"}`` (the table view's
        score table). Worked out from the journal again only when a round ended or was
        taken back."""
        with self.session.lock:
            snap = self.session.snapshot()
            key = (snap["round"], snap["round_winner"], snap["round_points"], str(snap["scores"]))
            if self._rounds[0] != key:
                entries = self.session.entries()
                self._rounds = (key, round_results(self.session.record, entries))
            return [dict(r) for r in self._rounds[1]]

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
        as the terminal reads it). Refusals carry the terminal's message.

        ``"at"``: the game's version the phone made the move at (the state's ``at``; the
        pages always send it): when the game has moved on since, the move is refused — 409
        with ``"stale": true`` and the version now — and nothing is recorded (issue 34)."""
        s = self.session
        data = dict(data)
        at = data.pop("at", None)
        if at is not None and (not isinstance(at, int) or isinstance(at, bool)):
            return refused(400, _("at: the game's version the move was made at (the state's at)"))
        try:
            if "deal" in data:
                _only(data, "deal")
                if data["deal"] is not True:
                    return refused(
                        400, _("deal: must be true ({example})").format(example=_DEAL_EXAMPLE)
                    )
                with s.lock:  # two "Deal" taps at once: one deals, the other is told so
                    snap = s.snapshot()
                    if snap.get("awaiting") is not None:
                        if self._dealt[0] == snap["round"]:
                            said = _("{player} already dealt round {round}").format(
                                player=self._dealt[1], round=snap["round"]
                            )
                        else:
                            said = _("the table already dealt round {round}").format(
                                round=snap["round"]
                            )
                        return refused(409, said)
                    s.expect(at)
                    effects = s.next_round()
                    snap = s.snapshot()
                    self._dealt = (snap["round"], player)

                dealt = Outcome("dealt", {"round": snap["round"], "dealer": snap["dealer"]})
                self._done(player, effects, dealt)
                texts = [effect_text(e) for e in effects] or [words(dealt)]
                return 200, {"ok": True, "effects": texts}
            elif data.get("uno") is True and set(data) == {"by", "uno"}:
                return self._late_uno(player, at)
            elif "reveal" in data:
                _only(data, "reveal")
                left = self._left(data["reveal"])
                with s.lock:  # checked and scored in one step
                    aw = s.snapshot().get("awaiting") or {}
                    if s.choice() != "reveal":
                        return refused(409, _("the round is not waiting for the cards left"))
                    if aw.get("by") != player:
                        said = _("{player} went out: {player} reports the hands left")
                        return refused(409, said.format(player=aw.get("by")))
                    s.expect(at)
                    effects = s.reveal(left)
            else:
                action = Action.from_dict(data)
                if action.verb == "correct":
                    return refused(
                        403, _("card counts are corrected at the terminal, by the table")
                    )
                if action.verb == "press" and action.cards is None:
                    return self._press(player, at)
                effects = s.apply(data, expect=at)
        except StaleLine as exc:
            return stale(exc)
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

    def _late_uno(self, player: str, at: int | None = None) -> Reply:
        """COM-6: UNO said just after the play that left one card, as ``uno`` typed at the
        terminal — only by the player who played it, and only until someone catches them
        or the next player begins (while they are ``uno_catchable``)."""
        s = self.session
        with s.lock:
            if s.snapshot().get("uno_catchable") != player:
                return refused(
                    409,
                    _(
                        "{player} can say UNO only with the card before last, or right after "
                        "it until someone else moves (COM-6)"
                    ).format(player=player),
                    "COM-6",
                )
            try:
                effects = s.say_uno(expect=at)
            except StaleLine as exc:
                return stale(exc)
            except (TableError, IllegalMoveError) as exc:
                return refused(409, error_text(exc))
        self._done(player, effects, Outcome("uno"))
        return 200, {"ok": True, "effects": [effect_text(e) for e in effects] or [_("UNO!")]}

    def _left(self, raw: Any) -> dict[str, list[str] | int]:
        """``reveal``'s answers, each read like the terminal's round-end question."""
        if not isinstance(raw, Mapping):
            raise ParseError(
                _("reveal: an object {example}").format(example='{"NAME": "r5 g7 wild" or "37"}')
            )
        ctx = self.table.context()
        left: dict[str, list[str] | int] = {}
        for name, text in raw.items():
            if name not in self.session.players:
                raise ParseError(_("reveal: {name} is not a player").format(name=repr(name)))
            if isinstance(text, int) and not isinstance(text, bool):
                text = str(text)
            if not isinstance(text, str) or len(text) > 400:
                raise ParseError(
                    _("reveal.{name}: the cards (r5 g7 wild) or the points (37)").format(name=name)
                )
            left[name] = parse_hand(text, ctx)
        return left

    def _press(self, player: str, at: int | None = None) -> Reply:
        """A press without its card count: the launcher's button. With ``--port sim`` the
        page presses the simulated button (a press nobody owes is the firmware's foul,
        ATK-26) and the reply says what the launcher did with it (``outcome``: ``fired``
        with the ``cards``, ``foul``, ``ignored`` while it was firing, ``fault``, or
        ``pressed`` when it has not said yet); a real launcher is pressed by hand; with
        none, the count is needed.

        One phone press at a time, its check and its press in one step (issue 34, item
        10): a press that comes while another is being made is refused (nothing pressed);
        a press sent again at the same version of the game (a double tap, a phone's retry)
        is refused as already made; a press typed before the game moved on is stale."""
        launcher = self.table.launcher
        if launcher is None or not launcher.working():
            example = f'{{"by": "{player}", "press": true, "cards": 2}}'
            return refused(
                400,
                _("how many cards came out? send the press with its count, e.g. {example}").format(
                    example=example
                ),
            )
        sim = getattr(launcher, "sim", None)
        if sim is None:
            return refused(
                409, _("press the launcher's button: it fires for whoever it is armed for")
            )
        if not self._button.acquire(blocking=False):
            return refused(
                409,
                _(
                    "another press from a phone is being made: nothing was pressed (wait for "
                    "the launcher's answer, then press again if it is still yours)"
                ),
            )
        try:
            return self._press_now(player, at, launcher)
        finally:
            self._button.release()

    def _press_now(self, player: str, at: int | None, launcher: Any) -> Reply:
        """:meth:`_press` once the button is this request's."""
        s = self.session
        # A move is recorded, then the launcher armed for what the game awaits now (it is
        # disarmed before the record when the move takes its press away: docs/
        # architecture.md, *Crash safety*): a press that comes in between is made on the
        # old arming (a foul for a press now owed). Arm first; the check below then refuses
        # a press if the game moved on again meanwhile. (Locks: the session's, then the
        # launcher's, as every arming takes them.)
        self.table.sync_launcher()
        with s.lock:  # checked and pressed in one step: nothing moves the game in between
            try:
                s.expect(at)
            except StaleLine as exc:
                return stale(exc)
            if getattr(launcher, "armed", None) != s.arming():  # moved on since the arming
                return refused(
                    409,
                    _(
                        "the launcher is being armed for the game's new state: nothing was "
                        "pressed (press again if it is still yours)"
                    ),
                )
            if at is not None and self._pressed.get(player) == at:
                return refused(
                    409,
                    _(
                        "this press was made already (a second tap): nothing was pressed again; "
                        "press again once the table shows the new state"
                    ),
                )
            armed = getattr(launcher, "armed", None)
            if armed is not None and armed.player != player:
                return refused(
                    409,
                    _(
                        "the launcher is armed for {player}, not for you: nothing was pressed "
                        "(wait until the table says it is your press)"
                    ).format(player=armed.player),
                    "ATK-26",
                )
            with self._heard:
                seen = self._heard_n
            fires = self._fires
            launcher.virtual_press()
            self._pressed[player] = s.version
        self.notify(Outcome("phone_button", {"player": player}), None)
        outcome, said = self._press_outcome(player, seen, fires)
        reply: dict[str, Any] = {"ok": True, "pressed": True, "armed": armed is not None}
        reply.update(outcome=outcome, said=said)
        if outcome == "fired" and self.fire is not None and self.fire.get("player") == player:
            reply["cards"] = self.fire.get("cards")
        return 202, reply

    def _press_outcome(
        self, player: str, seen: int, fires: int, timeout_s: float = 3.0
    ) -> tuple[str, str]:
        """What the launcher did with ``player``'s press, from the outcomes the launcher
        reported after notice number ``seen`` (``fires``: the presses counted before it):
        the firmware answers within a burst (a few hundred ms). Outcomes are data: their
        kind says what happened; the reply is in the phone's language."""
        deadline = time.monotonic() + timeout_s
        with self._heard:
            while True:
                new = [o for n, o in self._notices if n > seen]
                kinds = {o.kind for o in new}
                fire = self.fire
                if self._fires > fires and fire is not None and fire.get("player") == player:
                    own = [o for o in new if o.kind == "press" and o.args.get("who") == player]
                    if own:
                        return "fired", words(own[0])  # the launcher's line, with what followed
                    cards = int(fire.get("cards") or 0)
                    return "fired", words(Outcome("press", {"who": player, "cards": cards}))
                if "foul" in kinds:
                    return "foul", _(
                        "Foul: nobody owed a press, so the launcher did not fire (ATK-26)"
                    )
                if "busy" in kinds:
                    return "ignored", _(
                        "The launcher was still firing and ignored your press: press again"
                    )
                if "fault_refused" in kinds:
                    return "fault", _("The launcher is stopped by a fault: it did not fire")
                left = deadline - time.monotonic()
                if left <= 0:
                    return "pressed", _("The button is pressed: watch the table")
                self._heard.wait(left)

    def _done(self, player: str, effects: list[Effect], said: Outcome | None = None) -> None:
        """After a phone's action: the launcher follows the game and every screen shows it,
        each in its own language (``said``: what an action without effects did)."""
        self.table.sync_launcher()
        then = of_effects(effects) or ([said] if said is not None else [])
        self.notify(Outcome("phone", {"who": player, "then": then}), CLEAR)


def round_results(record: Any, entries: Sequence[Any]) -> list[dict[str, Any]]:
    """The rounds a game's journal scored (its actions in effect replayed on a fresh
    engine, as ``--resume`` does): ``[{"round": 1, "winner": "Ann", "points": 60}, ...]``."""
    game = fresh_game(record)
    out: list[dict[str, Any]] = []
    for action in actions_in_effect(entries):
        if action is None:
            game.next_round()
            continue
        game.apply(action)
        snap = game.snapshot()
        winner, points = snap["round_winner"], snap["round_points"]
        if winner and points is not None and (not out or out[-1]["round"] != snap["round"]):
            out.append({"round": snap["round"], "winner": winner, "points": points})
    return out


def journal_log(session: Any) -> list[Outcome]:
    """What happened in ``session``'s game so far (each action's effects, the table's
    notices, deals and undos), as outcomes, from its journal replayed on a fresh engine:
    the log a resumed game shows. Stops at an entry that does not replay."""
    game = fresh_game(session.record)
    out: list[Outcome] = []
    for e in session.entries():
        data = e.data
        try:
            if e.kind == "action":
                effects = game.apply(engine_action(data))
                cards = data.get("cards")
                if data.get("press") is True and isinstance(cards, int):
                    # as the launcher's line says it (table/launcher.py)
                    then = of_effects([x for x in effects if x.kind != "draw"])
                    out.append(Outcome("press", {"who": data["by"], "cards": cards, "then": then}))
                else:
                    out += of_effects(effects)
            elif e.kind == "undo":
                n = int(data.get("n", 1))
                game.undo(n)
                if not data.get("uno"):  # a late UNO is journaled as undo + the amended play
                    out.append(Outcome("undid_n", {"n": n}))
            elif e.kind == "deal":
                game.next_round()
                snap = game.snapshot()
                out.append(Outcome("dealt", {"round": snap["round"], "dealer": snap["dealer"]}))
            elif e.kind == "note":
                said = note_outcome(data)
                if said is not None:
                    out.append(said)
        except (IllegalMoveError, ValueError, KeyError, TypeError):
            break
    return out


def _only(data: Mapping[str, Any], verb: str) -> None:
    extra = sorted(set(data) - {"by", verb})
    if extra:
        raise ActionFormatError(
            extra[0],
            _("unexpected key {key} for a {verb} action").format(key=repr(extra[0]), verb=verb),
        )


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
        self,
        game: Game,
        press: tuple[str, int] | None,
        launcher: dict[str, Any] | None,
        uno_said: Sequence[str] = (),
    ) -> None:
        """The demo's game after a step (``press``: who pressed and the cards out;
        ``uno_said``: who said UNO with the card before their last, COM-6)."""
        with self._lock:
            if press is not None:
                self._fires += 1
                self._fire = {"seq": self._fires, "player": press[0], "cards": press[1]}
            extras = Extras(
                launcher=launcher,
                notice=self._log[-1] if self._log else None,
                log=list(self._log),
                fire=self._fire,
                uno_said=list(uno_said),
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
            state = ngettext(
                "armed for {player}, {n} press", "armed for {player}, {n} presses", n
            ).format(player=armed.get("player"), n=n)
        else:
            state = _("disarmed (a press now is a foul)")
        inside_text = ngettext("{n} card inside", "{n} cards inside", inside).format(n=inside)
        launcher = {
            # TRANSLATORS: the demo's launcher line: "simulated · armed for Ann, 2 presses ·
            # 40 cards inside"
            "status": _("simulated · {state} · {inside}").format(state=state, inside=inside_text),
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
        self.publish(demo.game, pressed, launcher, sorted(getattr(demo, "uno_said", ())))
        if self.pace > 0:
            time.sleep(self.pace)

    def state(self) -> dict[str, Any]:
        """The last published state."""
        with self._lock:
            return dict(self._state)

    def act(self, player: str, data: Mapping[str, Any]) -> Reply:
        """The bots play the demo: nobody acts from the web."""
        return refused(403, _("this is the bots' demo game: watch it, the bots play"))
