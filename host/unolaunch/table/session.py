"""A game at the table: the rules engine in hidden-hands mode, kept in the journal.

The table does not see anyone's cards, so the engine runs with ``hidden_hands=True``
(docs/architecture.md §1): hands are counts, a played card is trusted, and facts only the
table knows come with the actions (the start card, a press's card count, an Item Box's
card, a challenge's outcome, the cards left at round end).

:class:`Session` is the one place that changes the game: every action goes through
:meth:`Session.apply`, which applies it to the engine and stores it in the journal in
the same step (the engine's state is rolled back if the journal cannot be written). The
same entries replayed on a fresh engine give back the position exactly, which is how
``--resume`` works. Everything here is thread-safe: the launcher's events arrive on
another thread.

The game's :attr:`Session.version` is the number of its journal's changes (actions, undos,
deals): a line typed at the terminal or sent from a phone carries the version it was
typed against (``expect``), and is refused with :class:`StaleLine` — nothing recorded —
when the game has moved on since (issue 34): a move is never credited to whoever is
awaited now when it was typed for someone else.
"""

from __future__ import annotations

import random
import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from unolaunch.cards import parse_card
from unolaunch.errors import UnolaunchError, UsageError
from unolaunch.i18n import N_, _, ngettext
from unolaunch.rules import Effect, Game, IllegalMoveError
from unolaunch.rules import engine as E
from unolaunch.table.journal import DiskFull, Entry, GameRecord, Journal
from unolaunch.table.parse import VARIANT_NAMES, Context

#: What the awaited player is asked for, by the engine's pending obligation.
_CHOICE = {
    E.OB_PRESS: "press",
    E.OB_UNTIL: "until",
    E.OB_CHALLENGE: "challenge",
    E.OB_COLOR: "color",
    E.OB_TARGET: "target",
    E.OB_GIVE: "give",
    E.OB_TOP: "top",
    E.OB_REVEAL: "reveal",
    E.OB_TURNED: "turned",
    E.OB_VERDICT: "won",
}


#: The rule that gives the card values a round-end total is checked against, by variant.
_VALUES_RULE = {"attack": "ATK-23", "mario-kart": "MK-24", "pocket-pizza": "PP-18"}


class TableError(UnolaunchError):
    """An action the table cannot take now (the message says what to do instead)."""


class StaleLine(TableError):
    """A line typed against a version of the game that has moved on since (another
    screen or the launcher changed it first): nothing was done with it. ``version`` is the
    game's version now."""

    def __init__(self, message: str, version: int) -> None:
        super().__init__(message)
        self.version = version


@dataclass(frozen=True)
class Arming:
    """What the launcher must be armed for: ``player``, ``presses`` and the firmware's mode
    (``random``, or ``until_card`` for Wild Hit Fire, ATK-17). ``None`` means disarmed."""

    player: str
    presses: int
    mode: str = "random"


#: A listener of a session: called with the journal entry's kind and data after each
#: journaled change (while the session's lock is held: it must be quick and not block).
Listener = Callable[[str, dict[str, Any]], None]

#: A guard of a session: called after the engine took a change and before the journal
#: records it, with the session's lock held (docs/architecture.md, *Crash safety*: the
#: launcher is disarmed here when the change takes away a press it is armed for).
Guard = Callable[[], None]


class Session:
    """One game: engine + journal. Create with :meth:`start` or :meth:`resume`."""

    def __init__(self, journal: Journal, record: GameRecord, game: Game) -> None:
        self.journal = journal
        self.record = record
        self.game = game
        self.lock = threading.RLock()
        self.uno_said: set[str] = set()
        #: the number of the journal's changes (actions, undos, deals): front ends redraw
        #: when it moves, and a line carries the version it was typed against
        self.version = 0
        self._listeners: list[Listener] = []
        self._guards: list[Guard] = []
        #: entries the journal could not store yet (a full disk): the game goes on in
        #: memory and the next write stores them first, all in one transaction (issue 33)
        self.unsaved: list[tuple[str, dict[str, Any]]] = []
        #: why they are not stored (the full disk's one line), None when all is stored
        self.save_error: str | None = None

    def listen(self, listener: Listener) -> None:
        """Call ``listener(kind, data)`` after every journaled change, whoever made it
        (the terminal, the launcher's thread, a web front end)."""
        with self.lock:
            self._listeners.append(listener)

    def guard(self, guard: Guard) -> None:
        """Call ``guard()`` after each change of the game and before it is journaled
        (:data:`Guard`)."""
        with self.lock:
            self._guards.append(guard)

    def _write(self, items: list[tuple[str, dict[str, Any]]], moves: bool = True) -> None:
        """Journal ``items`` after what a full disk left unsaved, in one transaction;
        ``moves``: they change the game (the guards run first: the launcher is disarmed
        before a move that takes its press away is recorded, never after).

        A full disk (:class:`~unolaunch.table.journal.DiskFull`) is no error here: the game
        is kept in memory, the entries wait in :attr:`unsaved` with the reason in
        :attr:`save_error`, and the next write (or :meth:`save`) stores them all, once.
        Any other failure of the journal raises, nothing of ``items`` stored."""
        if moves:
            for guard in list(self._guards):
                guard()
        batch = [*self.unsaved, *items]
        if not batch:
            return
        try:
            self.journal.append_many(self.id, batch, **self._summary())
        except DiskFull as exc:
            self.unsaved = batch
            self.save_error = str(exc)
            return
        self.unsaved = []
        self.save_error = None

    def save(self) -> bool:
        """Store what a full disk left unsaved (``save`` at the table); True when the
        journal now holds the whole game."""
        with self.lock:
            if self.unsaved:
                self._write([], moves=False)
                if not self.unsaved:
                    for listener in list(self._listeners):
                        listener("saved", {})
            return not self.unsaved

    def _changed(self, kind: str, data: dict[str, Any], entries: int = 1) -> None:
        self.version += entries
        for listener in list(self._listeners):
            listener(kind, data)

    def expect(self, version: int | None) -> None:
        """Refuse (:class:`StaleLine`) a line typed against ``version`` when the game has
        moved on since (None: a line that says nothing of it, taken as it is)."""
        if version is None:
            return
        with self.lock:
            if version != self.version:
                aw = self.game.awaiting
                if aw:
                    now = _("now {who} is to move").format(who=aw["by"])
                else:
                    now = _("now the round is over")
                raise StaleLine(
                    _(
                        "the game moved on before this was taken (another screen or the "
                        "launcher was first): nothing was done with it; {now}"
                    ).format(now=now),
                    self.version,
                )

    # ------------------------------------------------------------------ creation
    @classmethod
    def start(
        cls,
        journal: Journal,
        variant: str,
        players: Sequence[str],
        options: Mapping[str, Any] | None = None,
        seed: int | None = None,
        dealer: str | None = None,
        port: str | None = None,
        lang: str | None = None,
    ) -> Session:
        """Start and store a new game (first dealer: ``dealer``, else chosen by the engine;
        ``lang``: the table's language, kept for ``--resume``)."""
        seed = random.SystemRandom().randrange(2**31) if seed is None else seed
        opts = dict(options or {})
        game = _new_game(variant, players, opts, seed, dealer)
        gid = journal.new_game(
            variant, list(players), opts, seed, port, dealer=game.players[game.dealer], lang=lang
        )
        return cls(journal, journal.game(gid), game)

    @classmethod
    def resume(cls, journal: Journal, game_id: int | None = None) -> Session:
        """Rebuild a stored game by replaying its journal (the latest unfinished game when
        ``game_id`` is None)."""
        if game_id is None:
            record = journal.latest_unfinished()
            if record is None:
                raise UnolaunchError(
                    _(
                        "there is no unfinished game to resume; start one with "
                        "'unolaunch play --variant attack --players Ann,Bob' ('unolaunch "
                        "history' lists past games)"
                    )
                )
        else:
            record = journal.game(game_id)
        session = cls(journal, record, fresh_game(record))
        for entry in journal.entries(record.id):
            if entry.kind != "note":
                session.version += 1  # the journal's changes: the same version as before
            try:
                session._replay(entry.kind, entry.data)
            except (IllegalMoveError, ValueError, KeyError, TypeError) as exc:
                raise UnolaunchError(
                    _(
                        "game {game}'s journal is damaged at entry {entry}: it does not "
                        "replay ({error}); the entries before it are intact — 'unolaunch "
                        "history {game}' shows them"
                    ).format(game=record.id, entry=entry.seq, error=exc)
                ) from None
        return session

    def _replay(self, kind: str, data: dict[str, Any]) -> None:
        g = self.game
        if kind == "action":
            g.apply(engine_action(data))
            self._track_uno(data)
        elif kind == "undo":
            g.undo(int(data.get("n", 1)))
        elif kind == "deal":
            g.next_round()
        elif kind != "note":  # a note (what the launcher reported) changes no game state
            raise ValueError(f"unknown journal entry kind {kind!r}")

    # ------------------------------------------------------------------ reading
    @property
    def id(self) -> int:
        """The game's number in the journal."""
        return self.record.id

    @property
    def variant(self) -> str:
        """``attack``, ``mario-kart`` or ``pocket-pizza``."""
        return self.game.variant

    @property
    def players(self) -> tuple[str, ...]:
        """Players in seating order."""
        return self.game.players

    def snapshot(self) -> dict[str, Any]:
        """The engine's snapshot (docs/architecture.md §1 keys, plus dealer, round, owed)."""
        with self.lock:
            return self.game.snapshot()

    def owed_texts(self) -> list[tuple[str, str]]:
        """What each player owes, in the players' language (``Game.owed_texts``)."""
        with self.lock:
            return self.game.owed_texts()

    def choice(self) -> str | None:
        """What the awaited player owes: ``press``, ``until``, ``challenge``, ``color``,
        ``target``, ``give``, ``top``, ``reveal``, ``turned``, ``won``; ``None`` on a turn."""
        with self.lock:
            pending = self.game.pending
            return _CHOICE.get(pending[0][0]) if pending else None

    def presses_owed(self) -> int:
        """Presses the awaited player owes right now (0 when none are owed)."""
        with self.lock:
            pending = self.game.pending
            if pending and pending[0][0] == E.OB_PRESS:
                return int(pending[0][2])
            return 0

    def context(self) -> Context:
        """The parser's view of the position."""
        with self.lock:
            g = self.game
            aw = g.awaiting or {}
            snap = g.snapshot()
            return Context(
                variant=g.variant,
                players=g.players,
                awaiting_by=aw.get("by"),
                verbs=tuple(aw.get("verbs", ())),
                color=snap["color"],
                top=snap["top"],
                choice=self.choice(),
            )

    def arming(self) -> Arming | None:
        """What the launcher must be armed for now (see :func:`arming_for`); disarmed
        while a full disk keeps changes unsaved: the launcher is armed only for presses the
        journal owes (docs/architecture.md, *Crash safety*)."""
        with self.lock:
            return None if self.unsaved else arming_for(self.game)

    # ------------------------------------------------------------------ changing
    def _summary(self) -> dict[str, Any]:
        g = self.game
        snap = g.snapshot()
        return {
            "scores": snap["scores"],
            "round_no": snap["round"],
            "winner": snap["game_winner"],
            "finished": g.game_over,
        }

    def apply(
        self,
        action: Mapping[str, Any],
        event: Mapping[str, Any] | None = None,
        expect: int | None = None,
    ) -> list[Effect]:
        """Apply one action and journal it; ``IllegalMoveError`` leaves everything as it was.

        ``expect``: the version the action was typed against (:meth:`expect`).
        ``event``: the launcher event (``boot``, ``seq``, ``event``…) the action applies;
        its mark is journaled in the same transaction (:meth:`launcher_mark`), so that after
        a crash the event is applied again if and only if the action was not stored.

        Table facts that cannot be true of the hands the table knows are refused first with
        :class:`TableError` (a round-end hand that does not fit its size, COM-8; a Discard
        All without the cards that went with it, ATK-12)."""
        data = dict(action)
        with self.lock:
            self.expect(expect)
            self._check_facts(data)
            effects = self.game.apply(engine_action(data))
            items: list[tuple[str, dict[str, Any]]] = [("action", data)]
            if event is not None:
                items.append(("note", {"launcher_event": event_mark(event)}))
            try:
                self._write(items)
            except BaseException:
                self.game.undo()
                raise
            self._track_uno(data)
            self._changed("action", data)
            return effects

    def _track_uno(self, data: Mapping[str, Any]) -> None:
        by = data.get("by")
        if data.get("play") and data.get("uno"):
            self.uno_said.add(str(by))
        elif data.get("play") or "catch" in data:
            self.uno_said.discard(str(data.get("catch") or by))

    def undo(self, n: int = 1, expect: int | None = None) -> None:
        """Take back the last ``n`` actions or deals, journaled (``expect``: the version
        the ``undo`` was typed against)."""
        with self.lock:
            self.expect(expect)
            depth = self.game.undo_depth
            if n > depth:
                raise TableError(
                    ngettext(
                        "only {n} action can be taken back",
                        "only {n} actions can be taken back",
                        depth,
                    ).format(n=depth)
                    if depth
                    else _("nothing to undo yet")
                )
            self.game.undo(n)
            try:
                self._write([("undo", {"n": n})])
            except BaseException:
                self._rebuild()
                raise
            self.uno_said = set()
            self._changed("undo", {"n": n})

    def _rebuild(self) -> None:
        fresh = Session.resume(self.journal, self.id)
        for kind, data in self.unsaved:  # what a full disk keeps in memory, on top
            fresh._replay(kind, data)
        self.game = fresh.game

    def next_round(self) -> list[Effect]:
        """Deal the next round (the deal passes left, COM-4), journaled."""
        with self.lock:
            effects = self.game.next_round()
            try:
                self._write([("deal", {})])
            except BaseException:
                self.game.undo()
                raise
            self.uno_said = set()
            self._changed("deal", {})
            return effects

    def mark_launcher(self, event: Mapping[str, Any]) -> None:
        """Journal that the launcher event ``event`` was taken in (one that changes no game
        state: a fault, a foul, the launcher's position when the table connected)."""
        with self.lock:
            self._write([("note", {"launcher_event": event_mark(event)})], moves=False)

    def entries(self) -> list[Entry]:
        """The game's journal entries, with those a full disk left unsaved after them
        (numbered on): the game as this process holds it."""
        with self.lock:
            stored = self.journal.entries(self.id)
            seq = stored[-1].seq if stored else 0
            kept = [Entry(seq + i, k, d, "") for i, (k, d) in enumerate(self.unsaved, 1)]
            return [*stored, *kept]

    def launcher_mark(self) -> dict[str, Any] | None:
        """The last launcher event this game took in (``boot``, ``seq``, ``event``), or
        None: on ``--resume`` the table asks the launcher for every event after it."""
        with self.lock:
            for e in reversed(self.entries()):
                mark = e.data.get("launcher_event") if e.kind == "note" else None
                if isinstance(mark, dict) and isinstance(mark.get("seq"), int):
                    return mark
        return None

    def note(self, data: Mapping[str, Any]) -> None:
        """Keep in the journal something that happened at the table but is no action of
        the game — a foul, a launcher fault, a press that did not fit (``history`` shows
        it in its place; replay and undo skip it)."""
        with self.lock:
            self._write([("note", dict(data))], moves=False)

    def closed(self) -> bool:
        """Whether the game was closed with 'yes' at its end (and nothing changed since)."""
        with self.lock:
            entries = self.entries()
        return bool(entries) and entries[-1].kind == "note" and bool(entries[-1].data.get("closed"))

    def say_uno(self, expect: int | None = None) -> list[Effect]:
        """``uno`` typed just after a play (or after the colour, target or card given that
        the play asked for): the play becomes a play with UNO said (COM-6), journaled as
        undo + the amended play + the answers that followed it."""
        with self.lock:
            self.expect(expect)
            stack = actions_in_effect(self.entries())
            after: list[dict[str, Any]] = []
            while stack and stack[-1] is not None and "choose" in stack[-1]:
                choose = stack[-1].get("choose") or {}
                if not any(k in choose for k in ("color", "target", "give")):
                    break
                after.insert(0, dict(stack.pop() or {}))
            last = stack[-1] if stack else None
            if last is None or "play" not in last or last.get("uno"):
                raise TableError(
                    _("say UNO together with the card, e.g. 'r5 uno' (nothing to add it to now)")
                )
            if any(a.get("by") != last.get("by") for a in after):
                raise TableError(  # answers by another player: the play is not the last one
                    _("say UNO together with the card, e.g. 'r5 uno' (nothing to add it to now)")
                )
            by = str(last["by"])
            g = self.game
            held = len(g.hands[g.players.index(by)]) if by in g.players else 1
            giving = bool(g.pending) and g.pending[0][0] == E.OB_GIVE and held == 2
            if held != 1 and not giving:
                raise TableError(
                    _(
                        "COM-6: UNO is said with the second-to-last card, and {who} holds "
                        "{held}: nothing changed ('fix' the hand size if it is wrong)"
                    ).format(who=by, held=held)
                )
            amended = dict(last, uno=True)
            n = 1 + len(after)
            self.game.undo(n)
            try:
                effects = self.game.apply(amended)
                for a in after:
                    effects += self.game.apply(a)
            except IllegalMoveError:
                self._rebuild()
                raise TableError(
                    _("{who} did not play their second-to-last card; UNO is said with it").format(
                        who=last["by"]
                    )
                ) from None
            try:
                self._write(
                    # the undo is marked: history says "UNO", not "undo" (issue 34)
                    [
                        ("undo", {"n": n, "uno": by}),
                        ("action", amended),
                        *(("action", a) for a in after),
                    ]
                )
            except BaseException:
                self._rebuild()
                raise
            self.uno_said.add(by)
            self._changed("action", amended, entries=2 + len(after))
            return effects

    def uno_fits(self, action: Mapping[str, Any]) -> bool:
        """COM-6: whether a play said with UNO leaves its player one card (the hand size
        the table knows, less the card and what a Discard All took with it)."""
        by = action.get("by")
        with self.lock:
            g = self.game
            if by not in g.players or not isinstance(action.get("play"), str):
                return True
            if str(action["play"])[1:] == "TH":
                return True  # ATK-19: the hand is traded away; who holds what is not known
            held = len(g.hands[g.players.index(str(by))])
        discarded = action.get("discarded")
        with_it = len(discarded) if isinstance(discarded, list) else 0
        return held - 1 - with_it == 1

    def correct(
        self,
        player: str,
        size: int,
        reason: str | None = None,
        event: Mapping[str, Any] | None = None,
        expect: int | None = None,
    ) -> list[Effect]:
        """Correct a hand size (journaled and undoable). The correction is ``player``'s own
        (whoever is awaited). COM-7: giving the round's winner cards takes the round's end
        back; a hand of 0 ends the round (the table confirms that first). ``reason``: why,
        for the history (``stray``); ``event``: the launcher event it applies, as for
        :meth:`apply`; ``expect``: the version it was typed against."""
        with self.lock:
            self.expect(expect)
            g = self.game
            if player in g.players:
                held = len(g.hands[g.players.index(player)])
                spare = len(g.stock) + max(0, len(g.discard) - 1)  # COM-5: the pile reloads
                if size > held + spare:
                    raise TableError(
                        _(
                            "{who} cannot hold {size} cards: with the {spare} cards of the "
                            "stock and the discard pile, at most {most}; type "
                            "'fix {who} N' with the real count"
                        ).format(who=player, size=size, spare=spare, most=held + spare)
                    )
            action: dict[str, Any] = {"by": player, "correct": {player: size}}
            if reason:
                action["reason"] = reason  # for the history: why the hand changed
            return self.apply(action, event=event, expect=expect)

    def reveal(self, left: Mapping[str, list[str] | int]) -> list[Effect]:
        """Round end: the cards (a list of codes) or point total left in each other hand
        (COM-8). Mixed answers are sent as point totals."""
        with self.lock:
            aw = self.game.awaiting
            if self.choice() != "reveal" or not aw:
                raise TableError(_("the round is not waiting for the cards left in the hands"))
            for p, v in left.items():
                if p in self.game.players:
                    self.check_left(p, v)  # COM-8, before mixed answers become totals
            hands = {p: v for p, v in left.items() if isinstance(v, list)}
            if len(hands) == len(left):
                choice: dict[str, Any] = {"hands": hands}
            else:
                choice = {"points": {p: self.points_of(v) for p, v in left.items()}}
            return self.apply({"by": aw["by"], "choose": choice})

    def points_of(self, left: list[str] | int) -> int:
        """Point value of a hand given as cards (values per variant) or as a total."""
        if isinstance(left, int):
            return left
        return sum(self.game.points[parse_card(c)] for c in left)

    # ------------------------------------------------------------------ table facts
    def hand_value_range(self, n: int) -> tuple[int, int]:
        """The least and the most ``n`` cards of this game's deck can be worth (card values
        ATK-1/MK-1/PP-1): the ``n`` cheapest and the ``n`` dearest cards of the deck."""
        g = self.game
        values = sorted(g.points[c] for c, k in g.composition.items() for _ in range(k))
        n = max(0, min(n, len(values)))
        return sum(values[:n]), sum(values[len(values) - n :])

    def check_left(self, player: str, left: list[str] | int) -> None:
        """COM-8: refuse (``TableError``) a round-end answer for ``player`` that the hand the
        table knows cannot hold: a card list of another length than the hand, more copies
        of a card than the deck has, or a total outside what that many cards are worth."""
        g = self.game
        rule = _VALUES_RULE.get(g.variant, "COM-8")
        with self.lock:
            n = len(g.hands[g.players.index(player)])
        cards = ngettext("{n} card", "{n} cards", n).format(n=n)
        fix = ngettext(
            "if {who} does not hold {n} card, type 'fix {who} N' first (N: the real count)",
            "if {who} does not hold {n} cards, type 'fix {who} N' first (N: the real count)",
            n,
        ).format(who=player, n=n)
        if isinstance(left, list):
            if len(left) != n:
                typed = ngettext("{n} card were typed", "{n} cards were typed", len(left)).format(
                    n=len(left)
                )
                raise TableError(
                    _(
                        "COM-8: {who} holds {cards}, but {typed}: type all {n} (or their point "
                        "total); {fix}"
                    ).format(who=player, cards=cards, typed=typed, n=n, fix=fix)
                )
            for code in sorted(set(left)):
                have = g.composition.get(parse_card(code), 0)
                if left.count(code) > have:
                    raise TableError(
                        _(
                            "{rule}: the {game} deck has {have} {card}, not {typed}: type the "
                            "cards again"
                        ).format(
                            rule=rule,
                            game=VARIANT_NAMES[g.variant],
                            have=have,
                            card=code,
                            typed=left.count(code),
                        )
                    )
            return
        low, high = self.hand_value_range(n)
        if not low <= left <= high:
            if left > high:
                text = ngettext(
                    "{rule}: {n} card is worth at most {points} points in {game}, not {left}: "
                    "type the total again; {fix}",
                    "{rule}: {n} cards are worth at most {points} points in {game}, not "
                    "{left}: type the total again; {fix}",
                    n,
                )
            else:
                text = ngettext(
                    "{rule}: {n} card is worth at least {points} points in {game}, not {left}: "
                    "type the total again; {fix}",
                    "{rule}: {n} cards are worth at least {points} points in {game}, not "
                    "{left}: type the total again; {fix}",
                    n,
                )
            raise TableError(
                text.format(
                    rule=rule,
                    n=n,
                    points=high if left > high else low,
                    game=VARIANT_NAMES[g.variant],
                    left=left,
                    fix=fix,
                )
            )

    def check_action(self, action: Mapping[str, Any]) -> None:
        """Raise what :meth:`apply` would raise for ``action``, changing nothing (the
        engine tries it and takes it back)."""
        data = dict(action)
        with self.lock:
            self._check_facts(data)
            self.game.apply(engine_action(data))
            self.game.undo()

    def _check_facts(self, data: Mapping[str, Any]) -> None:
        g = self.game
        choose = data.get("choose")
        if isinstance(choose, Mapping) and self.choice() == "reveal":
            for key in ("hands", "points"):
                given = choose.get(key)
                if not isinstance(given, Mapping):
                    continue
                for player, value in given.items():
                    if player not in g.players or isinstance(value, bool):
                        continue  # the engine names what is wrong
                    if isinstance(value, list) and all(isinstance(c, str) for c in value):
                        try:
                            self.check_left(player, list(value))
                        except ValueError:  # an unknown card code: the engine says so
                            continue
                    elif isinstance(value, int):
                        self.check_left(player, value)
        play = data.get("play")
        if (
            g.variant == "attack"
            and isinstance(play, str)
            and play[1:] == "DA"
            and "discarded" not in data
            and data.get("by") in g.players
        ):
            size = len(g.hands[g.players.index(str(data["by"]))])
            if size > 1:
                raise TableError(
                    _(_DISCARD_ALL_UNSAID.get(play[0], _DISCARD_ALL_UNSAID["r"])).format(
                        who=data["by"], c=play[0]
                    )
                )


#: ATK-12: a Discard All typed without the cards that went with it, by its colour's letter
#: ({c}; the example is typed words, so a translation must be words the parser takes).
_DISCARD_ALL_UNSAID = {
    "r": N_(
        "ATK-12: a Discard All takes every other red card of {who}'s hand with it: say which "
        "('red discard all {c}3 {c}9'), how many, or none"
    ),
    "y": N_(
        "ATK-12: a Discard All takes every other yellow card of {who}'s hand with it: say "
        "which ('yellow discard all {c}3 {c}9'), how many, or none"
    ),
    "g": N_(
        "ATK-12: a Discard All takes every other green card of {who}'s hand with it: say "
        "which ('green discard all {c}3 {c}9'), how many, or none"
    ),
    "b": N_(
        "ATK-12: a Discard All takes every other blue card of {who}'s hand with it: say "
        "which ('blue discard all {c}3 {c}9'), how many, or none"
    ),
}


#: Keys of a journaled action that are the table's own, not the engine's: ``reason`` of a
#: hand size correction (``stray``: cards the launcher let out after a press, ATK-25).
TABLE_KEYS = ("reason",)


def engine_action(data: Mapping[str, Any]) -> dict[str, Any]:
    """A journaled action without the table's own keys (what the engine applies)."""
    return {k: v for k, v in data.items() if k not in TABLE_KEYS}


def arming_for(game: Game) -> Arming | None:
    """What the launcher must be armed for in ``game`` (ATK-25, ATK-26): exactly the player
    awaited and the presses the rules demand — a normal turn's press, Hit 2, Wild Hit 4,
    Attack-Attack's target, an UNO penalty, Wild Hit Fire until a card comes out;
    ``None`` when no press is allowed now (any press would be a foul)."""
    if game.variant != "attack":
        return None
    aw = game.awaiting
    if not aw or "press" not in aw["verbs"]:
        return None
    pending = game.pending
    if pending and pending[0][0] == E.OB_PRESS:
        return Arming(aw["by"], int(pending[0][2]))
    if pending and pending[0][0] == E.OB_UNTIL:
        return Arming(aw["by"], 1, "until_card")  # ATK-17
    return Arming(aw["by"], 1)  # ATK-5: a normal turn's press


def actions_in_effect(entries: Sequence[Any]) -> list[dict[str, Any] | None]:
    """The journal's actions still in effect after its undos, in order (None for a deal)."""
    stack: list[dict[str, Any] | None] = []
    for e in entries:
        if e.kind == "action":
            stack.append(e.data)
        elif e.kind == "deal":
            stack.append(None)
        elif e.kind == "undo":
            del stack[len(stack) - int(e.data.get("n", 1)) :]
    return stack


def event_mark(event: Mapping[str, Any]) -> dict[str, Any]:
    """What the journal keeps of a launcher event: its boot and number, its name and
    whether it was caught up after the table was away (``history`` says so)."""
    mark = {k: event.get(k) for k in ("boot", "seq", "event")}
    if event.get("caught_up"):
        mark["caught_up"] = True
    return mark


def _last_action(entries: Sequence[Any]) -> dict[str, Any] | None:
    """The last action still in effect after the journal's undos (None after a deal)."""
    stack = actions_in_effect(entries)
    return stack[-1] if stack else None


def fresh_game(record: GameRecord) -> Game:
    """The engine as a journal's ``record`` starts its game (hidden hands, no launcher):
    what the journal's entries are replayed on."""
    return _new_game(record.variant, record.players, record.options, record.seed, record.dealer)


def _new_game(
    variant: str,
    players: Sequence[str],
    options: Mapping[str, Any],
    seed: int,
    dealer: str | None,
) -> Game:
    try:
        return Game.new(
            variant,
            list(players),
            options=dict(options),
            rng=random.Random(seed),
            launcher=None,
            hidden_hands=True,
            dealer=dealer,
        )
    except ValueError as exc:  # players or options the variant does not take: usage
        raise UsageError(_("cannot start the game: {error}").format(error=exc)) from None
