"""The interactive table: prompts, the screen, and the launcher's live events.

:class:`Table` runs one game to its end (or until ``quit`` / end of input): it draws the
screen, asks the awaited player what they did, parses the answer (:mod:`.parse`), applies
it through the :class:`~unolaunch.table.session.Session` (which journals it), and asks
for the table facts the engine needs (the start card, the cards left at round end, how
many cards a press shot out when there is no launcher). Bad input gets one line saying
what to type; the game is unchanged.

With a launcher (:mod:`.launcher`) the presses come from the button: its events arrive
on another thread, update the game and redraw the screen while the prompt waits.
"""

from __future__ import annotations

import contextlib
import re
import shlex
import sys
import threading
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any, Protocol

from rich.cells import cell_len
from rich.console import Console
from rich.text import Text

from unolaunch.cards import COLOR_NAMES, card_code, color_word
from unolaunch.errors import UnolaunchError
from unolaunch.i18n import N_, _, ngettext, pgettext
from unolaunch.rules import Action, Effect, IllegalMoveError
from unolaunch.rules import engine as E
from unolaunch.table.launcher import JOURNALED
from unolaunch.table.names import shown
from unolaunch.table.outcome import CLEAR, Outcome, of_effect, words
from unolaunch.table.parse import (
    Command,
    Context,
    Move,
    ParseError,
    answer,
    complete,
    help_text,
    parse,
    parse_discarded,
    parse_hand,
    table_command,
    tokens_of,
)
from unolaunch.table.prompt import Message, Reader, terminal_reader
from unolaunch.table.screen import (
    View,
    card_name,
    card_names,
    colour_name,
    either,
    kind_name,
    render,
    variant_title,
)
from unolaunch.table.session import Session, StaleLine, TableError, actions_in_effect

PROMPT_SUFFIX = "> "


class TableLauncher(Protocol):
    """What the table needs from a connected launcher (see :mod:`.launcher`)."""

    def status(self, inside: bool = True) -> str:
        """One line for the screen (armed for whom, faults; with the cards inside unless
        ``inside`` is false)."""
        ...

    def sync(self) -> None:
        """Arm or disarm for exactly what the game now demands."""
        ...

    def virtual_press(self) -> str:
        """``press`` typed at the keyboard: press a simulated button, or say what to do."""
        ...

    def working(self) -> bool:
        """Connected and not in a fault: its button is the way to press."""
        ...

    def clear(self) -> Outcome:
        """Clear a fault (jam, empty) after the table fixed it; return what happened."""
        ...

    def close(self) -> None:
        """Disarm and let go of the port."""
        ...


class QuitGame(Exception):
    """The players asked to stop (the game stays in the journal)."""


class Table:
    """One game at the table, driven by typed lines (and launcher events)."""

    def __init__(
        self,
        session: Session,
        console: Console | None = None,
        read_line: Callable[[str], str] | None = None,
    ) -> None:
        self.session = session
        self.console = console or Console(highlight=False)
        self.read_line = read_line or input
        self.launcher: TableLauncher | None = None
        self.out_lock = threading.RLock()
        #: what happened, as data (outcome.py): each screen says it in its own language
        self.log: list[Outcome] = []
        self.warning: Outcome | None = None
        #: how lines are read in a terminal (prompt.py); None: through ``read_line``
        self.reader: Reader | None = None
        self._message: Message | None = None  # the question the prompt waits on, if any
        #: the game's version the turn's prompt shows now (a line typed there carries it)
        self.shown_version: int | None = None
        #: the prompt's text as last shown
        self.prompt = ""
        #: set by ``play`` until the first screen is drawn (run): what happens before is
        #: only remembered, and that screen shows it (issue 34, item 6: a resume drew the
        #: board twice, the first time without the launcher's line)
        self.holding = False
        self._held: list[Outcome] = []  # what happened while holding: said before that screen
        # --port sim: carries out one 'unolaunch sim' command ('jam', 'load 40'), or None
        self.sim_commands: Callable[[str], None] | None = None

    # ------------------------------------------------------------------ output
    def say(self, line: str, style: str | None = None) -> None:
        """Print one line (thread-safe): as plain text, never markup, and with any control
        or invisible character of a name or typed text shown escaped (names.py)."""
        with self.out_lock:
            self.console.print(Text(shown(line, lines=True), style=style or ""), soft_wrap=True)

    def effects(self, effects: list[Effect]) -> None:
        """Print what an action did and keep it for the screen."""
        for e in effects:
            said = of_effect(e)
            self.log.append(said)
            self.say(f"  · {words(said)}")

    def view(self) -> View:
        """The screen's content now."""
        s = self.session
        snap = s.snapshot()
        owed: dict[str, str] = {}
        for who, what in s.owed_texts():
            owed[who] = (owed.get(who, "") + "; " if who in owed else "") + what
        choice = s.choice()
        launcher = self.launcher.status(inside=self.inside_known()) if self.launcher else None
        return View(
            variant=s.variant,
            players=s.players,
            state=snap,
            round_no=int(snap.get("round", 1)),
            target=s.game.target,
            dealer=snap.get("dealer"),
            game_id=s.id,
            owed=owed,
            launcher=launcher,
            notice=words(self.log[-1]) if self.log else None,
            warning=unsaved_warning(s) or (words(self.warning) if self.warning else None),
            uno_said=sorted(s.uno_said),
            doing=_(_DOING[choice]) if choice in _DOING else None,
            reminder=load_reminder(s) if choice == "top" else None,
        )

    def inside_known(self) -> bool:
        """Whether the launcher's count of cards inside is this round's: not while the
        start card is awaited (the deal is not loaded yet, ATK-3)."""
        return self.session.choice() != "top"

    def draw(self) -> None:
        """Draw the screen."""
        with self.out_lock:
            self.console.print(render(self.view()))
            self.say(self.hint(), style="bold")

    def hint(self) -> str:
        """What the awaited player is asked for, in words."""
        s = self.session
        snap = s.snapshot()
        aw = snap.get("awaiting")
        if not aw:
            if snap.get("game_winner"):
                w = snap["game_winner"]
                return _(
                    "{who} reaches {points} points and wins the game: 'yes' ends it, "
                    "'undo' takes back the last action (COM-8)."
                ).format(who=w, points=snap["scores"][w])
            return _("Round over: press Enter to deal the next round (or 'undo', 'quit').")
        who = aw["by"]
        choice = s.choice()
        if choice == "top":
            if s.variant == "attack":
                return _(
                    "{who} deals: which card was turned up to start the pile? (e.g. r5) "
                    "({reminder})"
                ).format(who=who, reminder=load_reminder(s))
            return _("{who} deals: which card was turned up to start the pile? (e.g. r5)").format(
                who=who
            )
        if choice in ("press", "until"):
            presses = owed_presses(s, ", ")
            if self.launcher and self.launcher.working():
                text = _("{who} must press {presses}: press the launcher's button")
            elif self.launcher and getattr(self.launcher, "fault", None):
                text = _(
                    "{who} must press {presses}: the launcher is stopped: fix it, then type 'clear'"
                )
            else:
                text = _("{who} must press {presses}: type 'press N' with the cards that came out")
            return text.format(who=who, presses=presses)
        if choice == "challenge":
            return _("{who}: 'challenge' or 'accept' the draw card").format(who=who)
        if choice == "won":
            return _("{who} saw the hand: did the challenge succeed? ('won' or 'lost')").format(
                who=who
            )
        if choice == "color":
            return _("{who}: name the colour (red, yellow, green, blue)").format(who=who)
        if choice == "target":
            others = ", ".join(p for p in s.players if p != who)
            return _("{who}: choose a player ({others})").format(who=who, others=others)
        if choice == "turned":
            return _("{who}: which card did the Item Box turn up? (e.g. g7)").format(who=who)
        if choice == "give":
            return _("{who}: which card is given? (e.g. r5)").format(who=who)
        if choice == "reveal":
            return _("{who} is out! Now the cards left in the other hands.").format(who=who)
        verbs = aw["verbs"]
        if "play" in verbs and "pass" in verbs:
            with s.lock:
                drawn, rule = s.game.phase == E.AFTER_DRAW, s.game.pass_rule
            if drawn:  # MK-9, PP-7: only the card just drawn may be played now
                text = _("{who}: play the card just drawn, if it can be played, or 'pass' ({rule})")
                return text.format(who=who, rule=rule)
            return _("{who}: play one more card, or 'pass'").format(who=who)  # ATK-8
        example = _(_WILD_EXAMPLE.get(s.variant, _WILD_EXAMPLE["attack"]))
        if "press" in verbs:
            text = _("{who}: play a card (e.g. r5, '{example}') or press; 'help' for more")
        else:
            text = _("{who}: play a card (e.g. r5, '{example}') or draw; 'help' for more")
        return text.format(who=who, example=example)

    def prompt_for(self) -> str:
        """The prompt: the awaited player's name. Once a hand is empty (a phone or the
        launcher's last owed press may end the round while the terminal waits for a move)
        it asks for Enter: the round end's questions come next."""
        s = self.session
        aw = s.snapshot().get("awaiting")
        if aw and s.choice() == "reveal":
            return _("round over: press Enter") + PROMPT_SUFFIX
        return f"{shown(aw['by']) if aw else _('table')}{PROMPT_SUFFIX}"

    def redraw_from_event(self, notice: Outcome | None, warning: Outcome | None) -> None:
        """Called from the launcher's thread: show what happened and re-show the prompt.
        What comes with a warning (a foul, a fault, a press that did not fit) is kept in
        the journal as a note for ``history``; a press that was applied is there already."""
        self.remember(notice, warning)
        self.repaint(notice)

    def remember(self, notice: Outcome | None, warning: Outcome | None) -> None:
        """Keep what happened for the screen (the log; the warning: ``CLEAR`` clears it,
        None leaves it) without drawing: a front end that must not wait for the terminal
        (the web pages) calls this at once and :meth:`repaint` from a thread of its own. A
        warning is also kept in the journal as a note for ``history``, as data."""
        journaled = notice is not None and notice.kind in JOURNALED  # by the launcher's driver
        if warning is not None and warning != CLEAR and not journaled:
            note: dict[str, Any] = {"warning": warning.to_json()}
            if notice is not None:
                note["outcome"] = notice.to_json()
                if notice.kind == "foul":
                    note["foul"] = True  # counted on --resume (ATK-26)
            with contextlib.suppress(UnolaunchError):  # the screen matters more than the log
                self.session.note(note)
        if notice is not None:
            self.log.append(notice)
        if warning is not None:
            self.warning = None if warning == CLEAR else warning

    def repaint(self, notice: Outcome | None) -> None:
        """Print ``notice`` and the screen, and show the prompt again with what was typed:
        a live prompt redraws itself (its text follows the game), else it is written
        again here, with the turn's prompt naming whoever is awaited now."""
        reader = self.reader
        with self.out_lock:
            if self.holding:  # said just before the first screen
                if notice is not None:
                    self._held.append(notice)
                return
            waiting = self._message
            if waiting is not None and reader is not None and not reader.live:
                sys.stdout.write("\r\x1b[K")  # the prompt and what was typed: drawn again below
            if notice is not None:
                self.say(f"  · {words(notice)}")
            self.draw()
            if reader is not None and reader.live:
                reader.refresh()
            elif waiting is not None:
                typed = reader.typed() if reader is not None else ""
                sys.stdout.write(waiting() + typed)
                sys.stdout.flush()

    # ------------------------------------------------------------------ input
    def ask(self, prompt: str | Message) -> str:
        """Read one line; ``EOFError`` when the input ends. ``prompt``: the question, or a
        function that says it as the game is now (asked at every redraw: the turn's
        prompt follows the game). The prompt's names are shown escaped (names.py)."""
        message: Message = prompt if callable(prompt) else (lambda: shown(prompt))
        with self.out_lock:
            self._message = message
            if not callable(prompt):
                self.prompt = shown(prompt)
        try:
            if self.reader is not None:
                line = self.reader.read(message)
            else:
                line = self.read_line(message())
        finally:
            with self.out_lock:
                self._message = None
        if (self.reader is None or not self.reader.terminal) and not sys.stdin.isatty():
            # Echo piped input so that a transcript reads like a session.
            self.console.print(Text(shown(line), style="dim"))
        return line

    def turn_prompt(self) -> str:
        """The turn's prompt as the game is now (:meth:`prompt_for`), escaped; the version
        it shows is kept: a line typed at it carries that version (issue 34)."""
        with self.session.lock:
            self.shown_version = self.session.version
            self.prompt = shown(self.prompt_for())
            return self.prompt

    def enable_terminal(self) -> None:
        """Read lines from the terminal with the prompt that follows the game (prompt.py):
        prompt_toolkit on a terminal (Tab completes, Up/Down recall), ``input`` when piped.
        Only for a table that reads its own terminal (no ``read_line`` given)."""
        if self.read_line is not input or self.reader is not None:
            return

        def completions(text: str) -> list[str]:
            return complete(text, self.context())

        self.reader = terminal_reader(completions)

    # ------------------------------------------------------------------ the loop
    def run(self) -> int:
        """Play until the game ends (0) or the players quit / input ends (0, resumable)."""
        self.enable_terminal()
        with self.reader.output() if self.reader is not None else contextlib.nullcontext():
            return self._run()

    def _run(self) -> int:
        s = self.session
        self.sync_launcher()
        with self.out_lock:
            self.holding = False
            for notice in self._held:
                self.say(f"  · {words(notice)}")
            self._held.clear()
            self.draw()
        try:
            while True:
                snap = s.snapshot()
                if snap.get("game_winner"):
                    if self.game_end(snap):
                        return 0
                elif s.choice() == "reveal":
                    self.round_end()
                elif snap.get("awaiting") is None:
                    self.between_rounds()
                else:
                    self.turn()
                self.sync_launcher()
        except (EOFError, QuitGame, KeyboardInterrupt):
            if self.reader is not None and self.reader.terminal:
                sys.stdout.write("\n")
            if not s.save():  # a full disk still: say what is lost, never "saved"
                self.say("✗ " + (unsaved_warning(s) or ""), style="bold red")
                return 1
            self.say(
                _("Game {game} is saved. Continue it with: {command}").format(
                    game=s.id, command=resume_command(s)
                ),
                style="bold",
            )
            return 0

    def sync_launcher(self) -> None:
        """Keep the launcher armed for exactly what the rules demand."""
        if self.launcher is not None:
            self.launcher.sync()

    def turn(self) -> None:
        """Ask the awaited player for one line and carry it out — if the game is still at
        the version the prompt showed when it was typed (issue 34): a line typed just
        before another screen or the launcher moved the game on is refused, the new state
        shown, nothing recorded."""
        line = self.ask(self.turn_prompt)
        at = self.shown_version
        s = self.session
        if s.choice() == "reveal" or s.snapshot().get("awaiting") is None:
            # The round ended while the prompt waited (the launcher's last owed presses, a
            # phone's last card). Whatever was typed meanwhile is not taken: a move typed
            # just before the repaint must never be read as a hand's cards. A 'quit' is no
            # move: it still saves and quits.
            if answer(line) in ("q", *_QUIT_WORDS):
                raise QuitGame
            if line.strip():
                self.say(
                    _(
                        "(the round ended before '{line}' was taken: nothing was done with it)"
                    ).format(line=line.strip())
                )
            return
        try:
            parsed = parse(line, self.context())
            if isinstance(parsed, Command):
                if parsed.name in _CHANGES_GAME:
                    s.expect(at)  # refused if the game moved on since the line was typed
                self.command(parsed, at)
                return
            s.expect(at)
            self.move(parsed, at)
        except StaleLine as exc:
            self.stale(line, exc)
        except (ParseError, TableError, IllegalMoveError) as exc:
            try:  # typed for a state that is gone: that is what to say, not why it misreads now
                s.expect(at)
            except StaleLine as moved:
                self.stale(line, moved)
                return
            self.error(exc)

    def stale(self, line: str, exc: StaleLine) -> None:
        """A line typed before the game moved on: refused (nothing recorded), with the new
        state shown."""
        self.say(f"✗ '{line.strip()}': {exc}", style="bold red")
        self.draw()

    def context(self) -> Context:
        """The parser's context, knowing whether a working launcher counts the presses
        (else they are typed with their cards)."""
        ctx = self.session.context()
        with self.session.lock:
            deck = frozenset(card_code(c) for c in self.session.game.composition)
        working = self.launcher is not None and self.launcher.working()
        return replace(ctx, launcher=working, deck=deck)

    def error(self, exc: Exception) -> None:
        """One line: what was wrong and what to do. The game is unchanged."""
        if isinstance(exc, IllegalMoveError) and exc.press_first and exc.action is not None:
            # "must press first" reads as "then play": say what the presses lead to.
            s = self.session
            if s.choice() in ("press", "until"):
                who = s.snapshot()["awaiting"]["by"]
                # TRANSLATORS: {action} is the refused action ("play red 3").
                msg = _("{action}: {who} must press the launcher {presses}").format(
                    action=f"{exc.action.by}: {refused_action(exc.action)}",
                    who=who,
                    presses=owed_presses(s, _(" and ")),
                )
                text = _("{message} — the game is unchanged").format(message=msg)
                self.say(f"✗ {text}", style="bold red")
                return
        self.say(f"✗ {error_text(exc, self.session)}", style="bold red")

    def instead(self) -> str:
        """What the player whose turn it is may type (COM-2) — see :func:`instead_text`."""
        return instead_text(self.session)

    def move(self, move: Move, at: int | None = None) -> None:
        """Apply parsed actions (asking for a press's card count when there is no launcher);
        ``at``: the version of the game the line was typed against (a line typed before the
        game moved on is refused, whatever was asked meanwhile)."""
        actions = []
        for a in move.actions:
            if "press" in a:
                working = self.launcher is not None and self.launcher.working()
                if "cards" not in a and self.launcher is not None and working:
                    # The launcher's button: it fires for whoever it is armed for, and a
                    # press nobody owes is its foul (ATK-26) — as at the table, and as the
                    # README shows. A press named for another player than the one it is
                    # armed for is refused: the button cannot press as them.
                    with self.session.lock:  # checked and pressed in one step
                        self.session.expect(at)
                        armed = self.session.arming()
                        if armed is not None and armed.player != a["by"]:
                            self.check_press(a)  # the rules' refusal (ATK-26)
                        said = self.launcher.virtual_press()
                    self.say(said)
                    return
                # ATK-26: a press typed with its cards is the presser's, owed by the rules.
                self.check_press(a)
                if "cards" not in a:
                    a = dict(a, cards=self.ask_count(a["by"]))
                elif working and not move.missed:
                    raise TableError(
                        _(
                            "ATK-25: the launcher is working and counts the cards itself: "
                            "{who} presses its button. A press it missed (cards came out "
                            "unseen): 'missed press {cards}'"
                        ).format(who=a["by"], cards=a["cards"])
                    )
                else:
                    a = dict(a, cards=self.check_count(a["by"], int(a["cards"])))
            if self._discard_all_unsaid(a):
                self.session.check_action(dict(a, discarded=[]))  # legal at all? (COM-2)
                a = dict(a, discarded=self.ask_discarded(a))
            if a.get("uno") and not self.session.uno_fits(a):
                a = {k: v for k, v in a.items() if k != "uno"}
                self.say(
                    "  · "
                    + _(
                        "(UNO is said with the second-to-last card, COM-6: {who} keeps "
                        "more than one, so it is not recorded)"
                    ).format(who=a["by"])
                )
            actions.append(a)
        effects: list[Effect] = []
        applied: list[dict[str, Any]] = []
        try:
            with self.session.lock:  # the line's actions in one step, at its version
                for a in actions:
                    effects += self.session.apply(a, expect=at if not applied else None)
                    applied.append(a)
        finally:
            self.warning = None
            self.effects(effects)
            self.warning = overplayed(self.session, applied)
            if self.warning:
                self.say(f"⚠ {words(self.warning)}", style="bold yellow")
            if applied:  # a refused line changed nothing: its ✗ line is all there is to see
                self.sync_launcher()
                self.draw()

    def check_press(self, action: dict[str, Any]) -> None:
        """ATK-26: a press is the presser's, with a launcher or without — refused here as
        the engine would refuse it, and said without a card count nobody typed (a bare
        'press' is not a press of "0 cards")."""
        try:
            self.session.check_action(dict(action, cards=action.get("cards", 0)))
        except IllegalMoveError as exc:
            if "cards" not in action and exc.action is not None:
                exc.action = replace(exc.action, cards=None)
            raise

    def _discard_all_unsaid(self, action: dict[str, Any]) -> bool:
        """A Discard All played without the cards that went with it, from a hand that had
        others (ATK-12): they must be asked for, or the hand size goes wrong."""
        play = action.get("play")
        if self.session.variant != "attack" or not isinstance(play, str) or play[1:] != "DA":
            return False
        sizes = self.session.snapshot()["hand_sizes"]
        return "discarded" not in action and sizes.get(action["by"], 0) > 1

    def ask_discarded(self, action: dict[str, Any]) -> list[str]:
        """ATK-12: which (or how many) other cards of its colour went with a Discard All;
        a count becomes that many unseen cards (``?``)."""
        by, letter = str(action["by"]), str(action["play"])[0]
        colour = {"r": "red", "y": "yellow", "g": "green", "b": "blue"}[letter]
        most = self.session.snapshot()["hand_sizes"][by] - 1
        ctx = replace(self.context(), color=colour)
        question = _(_DISCARD_ALL_QUESTION[letter])
        while True:
            line = self.ask(question.format(who=by, c=letter))
            if answer(line) in _CANCEL_WORDS:
                raise TableError(_("the Discard All is not recorded; type the play again"))
            try:
                got = parse_discarded(line, ctx)
            except ParseError as exc:
                self.error(exc)
                continue
            cards = ["?"] * got if isinstance(got, int) else got
            if len(cards) > most:
                text = ngettext(
                    "{who} had {n} other card besides the Discard All; type at most {n} (or "
                    "'fix {who} N' after 'cancel' if that is wrong)",
                    "{who} had {n} other cards besides the Discard All; type at most {n} (or "
                    "'fix {who} N' after 'cancel' if that is wrong)",
                    most,
                ).format(who=by, n=most)
                self.say(f"✗ {text}", style="bold red")
                continue
            return cards

    def ask_count(self, who: str) -> int:
        """No launcher: how many cards came out of a press. Enter, 'undo' or 'cancel'
        records nothing."""
        while True:
            line = self.ask(
                _("How many cards came out for {who}? (a number, 'none'; Enter cancels) ").format(
                    who=who
                )
            )
            word = answer(line)
            if word in ("", "u", "oops", "q", *_CANCEL_WORDS, *_QUIT_WORDS):
                raise TableError(
                    _("the press is not recorded; {who} may press again").format(who=who)
                )
            if word in _NONE_WORDS or word == "no":
                return 0
            if word.isdigit() and len(word) <= 3:
                return self.check_count(who, int(word))
            self.say(
                "✗ " + _("type a number, e.g. 0 (or none) or 3; Enter cancels"), style="bold red"
            )

    def check_count(self, who: str, n: int) -> int:
        """A typed press count larger than one burst can be (the launcher's largest burst)
        or than the cards inside: a typo? (ATK-25) — asked, as plays are."""
        with self.session.lock:  # inside, and the discard pile to reload (ATK-22, COM-5)
            g = self.session.game
            inside = len(g.stock) + max(0, len(g.discard) - 1)
        most = getattr(self.launcher, "largest_burst", None) or largest_burst()
        while n > most or n > inside:
            if n > most and n <= inside:
                question = _(
                    "{n} cards from one press for {who}? one press shoots at most {most}: "
                    "a typo? Type the right count, 'yes' to keep {n}, or Enter to cancel: "
                )
            elif n > most:
                question = _(
                    "{n} cards from one press for {who}? one press shoots at most {most}: a "
                    "typo? Type the right count, or Enter to cancel: "
                )
            else:
                question = _(
                    "{n} cards from one press for {who}? the launcher and the discard pile hold "
                    "{inside} cards: a typo? Type the right count, or Enter to cancel: "
                )
            line = self.ask(question.format(n=n, who=who, most=most, inside=inside))
            word = answer(line)
            if word in _YES_WORDS and word not in ("ok",) and n <= inside:
                return n
            if word in ("", "u", "oops", *_CANCEL_WORDS, *_NO_WORDS):
                raise TableError(
                    _("the press is not recorded; {who} may press again").format(who=who)
                )
            if word in _NONE_WORDS:
                return 0
            if word.isdigit() and len(word) <= 3:
                n = int(word)
                continue
            self.say(
                "✗ " + _("type how many cards came out for {who}, e.g. 3").format(who=who),
                style="bold red",
            )
        return n

    def command(self, cmd: Command, at: int | None = None) -> None:
        """Table commands: undo, help, fix, uno, clear, quit, show (``at``: the version of
        the game the line was typed against)."""
        s = self.session
        if cmd.name == "quit":
            raise QuitGame
        if cmd.name == "help":
            self.say(help_text(self.context()))
            return
        if cmd.name == "show":
            self.draw()
            return
        if cmd.name == "save":
            if s.save():
                self.say("  · " + _("the game is saved"))
                self.sync_launcher()  # the journal owes its presses again: armed for them
            self.draw()
            return
        if cmd.name == "undo":
            self.undo(int(cmd.args[0]), expect=at)
        elif cmd.name == "fix":
            if not self.fix(str(cmd.args[0]), int(cmd.args[1]), at):
                return
        elif cmd.name == "uno":
            self.effects(s.say_uno(expect=at))
            self.say("  · " + _("UNO!"))
        elif cmd.name == "sim":
            self.sim_control(str(cmd.args[0]))
            self.draw()
            return
        elif cmd.name == "clear":
            if self.launcher is None:
                raise TableError(_("no launcher is connected; nothing to clear"))
            cleared = self.launcher.clear()
            self.log.append(cleared)
            self.say(f"  · {words(cleared)}")
        self.warning = None
        self.sync_launcher()
        self.draw()

    def sim_control(self, line: str) -> None:
        """``sim ...`` with ``--port sim``: one command of ``unolaunch sim`` for the simulated
        launcher (jam, unjam, load N, unplug, replug, reset, stall, ...), carried out by
        :attr:`sim_commands` (set by ``play``, which knows the simulator's commands)."""
        from unolaunch.sim import SimError

        if self.sim_commands is None:
            raise TableError(
                _(
                    "'sim ...' controls the simulated launcher of '--port sim'; a simulator "
                    "started with 'unolaunch sim --link PATH' takes its commands in its own "
                    "terminal"
                )
            )
        if line.split()[0] in ("quit", "exit"):
            raise TableError(_("the simulated launcher stops with the game ('quit')"))
        try:
            self.sim_commands(line)
        except SimError as exc:
            raise TableError(f"sim: {exc}") from None
        self.say("  · " + _("(simulated launcher: {command})").format(command=line))

    def undo(self, n: int, after: Outcome | None = None, expect: int | None = None) -> str:
        """Take back ``n`` actions and say which, in words (``undid: Ann plays red 7``); the
        screen's last line becomes that (what the undone actions wrote is gone), and cards
        a taken-back press shot out go back into the launcher (ATK-25)."""
        s = self.session
        with s.lock:  # what is taken back is what the undo finds
            taken = actions_in_effect(s.entries())[-n:] if n > 0 else []
            s.undo(n, expect=expect)
        keep_uno_said(s)
        back = sum(int(a.get("cards") or 0) for a in taken if a is not None and "press" in a)
        # --port sim: the simulated magazine follows the game's stock (the launcher's
        # sync after every change puts the cards back: one count, one owner)
        done = bool(back) and getattr(self.launcher, "sim", None) is not None
        args: dict[str, Any] = {"actions": list(reversed(taken)), "back": back, "done": done}
        if after is not None:
            args["after"] = after
        said = Outcome("undid", args)
        self.log.append(said)
        self.warning = None
        text = words(said)
        self.say(f"  · {text}")
        return text

    def fix(self, who: str, n: int, at: int | None = None) -> bool:
        """``fix NAME N``: correct a hand size. A hand of no cards ends the round (COM-7):
        asked first. False when nothing was changed. ``at``: the version it was typed at."""
        s = self.session
        snap = s.snapshot()
        if n == 0 and snap["round_winner"] is None and snap["hand_sizes"].get(who) != 0:
            line = self.ask(
                _(
                    "{who} has no cards: {who} is out and that ends the round (COM-7). "
                    "Is that right? ('yes' / 'no') "
                ).format(who=who)
            )
            if answer(line) not in _YES_WORDS:
                self.say(
                    "  · "
                    + _("nothing changed: {who} still holds {n}").format(
                        who=who, n=snap["hand_sizes"][who]
                    )
                )
                return False
        self.effects(s.correct(who, n, expect=at))
        return True

    def round_end(self) -> None:
        """COM-8: ask the cards (or points) left in each other hand, each checked against
        the hand size the table knows ('fix NAME N' corrects it here), then score."""
        s = self.session
        winner = s.snapshot()["awaiting"]["by"]
        ctx = self.context()
        left: dict[str, list[str] | int] = {}
        others = [p for p in s.players if p != winner]
        i = 0
        while i < len(others):
            p = others[i]
            while True:
                n = s.snapshot()["hand_sizes"][p]
                line = self.ask(
                    ngettext(
                        "Cards left in {who}'s hand ({n} card: the cards, e.g. 'r5 g7 {wild}', "
                        "or their points, e.g. 37)? ",
                        "Cards left in {who}'s hand ({n} cards: the cards, e.g. 'r5 g7 {wild}', "
                        "or their points, e.g. 37)? ",
                        n,
                    ).format(who=p, n=n, wild=_wild_word(s.variant))
                )
                if s.choice() != "reveal":  # reported from another screen meanwhile
                    return
                try:
                    cmd = table_command(line, ctx)
                    if cmd is not None and cmd.name == "undo" and left and cmd.args == (1,):
                        # The last count typed is taken back, not the winning card.
                        i -= 1
                        q = others[i]
                        undone = Outcome("undid_count", {"who": q, "left": left.pop(q)})
                        self.log.append(undone)
                        self.say(f"  · {words(undone)}")
                        p = q
                        continue
                    if cmd is not None:
                        if self.round_end_command(cmd):
                            return
                        continue
                    said = tokens_of(line)[:1]
                    if said and said[0] in _GAME_WORDS:
                        raise TableError(self.round_ended(winner, said[0], p))
                    value = parse_hand(line, ctx)
                    s.check_left(p, value)
                except (ParseError, TableError, IllegalMoveError) as exc:
                    self.error(exc)
                    continue
                left[p] = value
                warning = overcounted(s, left)
                if warning:
                    self.say(f"⚠ {warning}", style="bold yellow")
                break
            i += 1
        try:
            self.effects(s.reveal(left))
            self.warning = None  # about what came before the round's end
        except (IllegalMoveError, TableError) as exc:
            self.error(exc)
        self.draw()

    def round_ended(self, winner: str, word: str, asked: str) -> str:
        """A move typed at the round end's questions: the round has ended (COM-7)."""
        if word in ("challenge", "accept", "ch", "chal"):
            rule = {"mario-kart": "MK-23", "pocket-pizza": "PP-16"}.get(self.session.variant)
            if rule:
                return _(
                    "the round has ended: {winner} went out (COM-7); a last Wild Draw card "
                    "cannot be challenged ({rule}), its cards are drawn. Type the cards left in "
                    "{who}'s hand or their points; 'undo' takes back the last action"
                ).format(winner=winner, rule=rule, who=asked)
        return _(
            "the round has ended: {winner} went out (COM-7). Type the cards left in "
            "{who}'s hand or their points; 'undo' takes back the last action"
        ).format(winner=winner, who=asked)

    def round_end_command(self, cmd: Command) -> bool:
        """A command typed at the round end: True when the round's questions start over
        (after an undo)."""
        s = self.session
        if cmd.name == "quit":
            raise QuitGame
        if cmd.name == "undo":
            self.undo(int(cmd.args[0]))
            self.draw()
            return True
        if cmd.name == "fix":
            self.fix(str(cmd.args[0]), int(cmd.args[1]))
            if s.choice() != "reveal":  # COM-7: the winner has cards: the round goes on
                self.draw()
                return True
            return False
        if cmd.name == "show":
            self.draw()
            return False
        self.say(
            _(
                "Type each card left (r5 g7 {wild}) or the hand's point total (37); 'none' for "
                "no cards. 'fix NAME N' corrects a hand size first; 'undo' takes back the last "
                "count."
            ).format(wild=_wild_word(s.variant))
        )
        return False

    def between_rounds(self) -> None:
        """Round scored: Enter deals the next round (the deal passes left, COM-4)."""
        next_round = int(self.session.snapshot()["round"]) + 1
        line = answer(self.ask(_("deal round {n}? ").format(n=next_round)))
        snap = self.session.snapshot()
        if snap.get("awaiting") is not None or snap.get("game_winner"):
            return  # dealt (or taken back) from another screen meanwhile
        if line in ("q", *_QUIT_WORDS):
            raise QuitGame
        try:
            cmd = table_command(line, self.context())
        except ParseError as exc:
            self.error(exc)
            return
        if cmd is not None and cmd.name == "undo":
            try:
                self.undo(int(cmd.args[0]))  # back across the round's end
            except TableError as exc:
                self.error(exc)
            self.draw()
            return
        if line not in ("", "deal", "next", "give", *_YES_WORDS):
            self.say(
                "✗ " + _("press Enter to deal the next round, or type 'undo' or 'quit'"), "bold red"
            )
            return
        self.effects(self.session.next_round())
        self.warning = None
        self.draw()

    def game_end(self, snap: dict[str, Any]) -> bool:
        """COM-8: a player reached the target. The game closes only once the table says
        'yes'; until then — and after '--resume' of a finished game — 'undo' takes back the
        action that ended it (a mistyped total, say). True when the game is closed."""
        w = snap["game_winner"]
        line = self.ask(
            _(
                "{who} reaches {points} points and wins the game. Is that right? "
                "('yes' ends the game, 'undo' takes back the last action) "
            ).format(who=w, points=snap["scores"][w])
        )
        word = answer(line)
        if word in ("end", *_YES_WORDS):
            self.finish(snap)
            return True
        if word in ("q", "bye", *_QUIT_WORDS):
            raise QuitGame
        try:
            cmd = table_command(line, self.context())
            if cmd is not None and cmd.name == "undo":
                if self.session.closed() and not self.reopen(w):
                    return False
                self.undo(int(cmd.args[0]), Outcome("game_goes_on"))
                self.draw()
                return False
        except (ParseError, TableError) as exc:
            self.error(exc)
            return False
        self.say(
            "✗ " + _("type 'yes' to end the game, or 'undo' to take back the last action"),
            "bold red",
        )
        return False

    def reopen(self, winner: str) -> bool:
        """A game closed with 'yes' (and resumed): ask before 'undo' reopens it."""
        line = self.ask(
            _(
                "Game {game} was closed: {who} won. Reopen it and take back its "
                "last action? ('yes' / 'no') "
            ).format(game=self.session.id, who=winner)
        )
        if answer(line) in ("reopen", *_YES_WORDS):
            return True
        self.say("  · " + _("nothing changed: the game stays closed ('yes' to end here)"))
        return False

    def finish(self, snap: dict[str, Any]) -> None:
        """The game is over: final scores."""
        scores = snap["scores"]
        ranked = sorted(scores.items(), key=lambda kv: -kv[1])
        self.say(
            "🏆 " + _("{who} wins the game!").format(who=snap["game_winner"]), style="bold magenta"
        )
        width = max(cell_len(shown(name)) for name in scores)  # wide letters count twice
        for name, pts in ranked:
            pad = " " * (width - cell_len(shown(name)))
            style = "bold" if name == snap["game_winner"] else None
            self.say(f"   {name}{pad}  {pts:>4}", style=style)
        with contextlib.suppress(UnolaunchError):  # closed with 'yes': reopening asks first
            self.session.note({"outcome": Outcome("closed").to_json(), "closed": True})
        self.say(_("Game {game} is in 'unolaunch history'.").format(game=self.session.id))


def unsaved_warning(session: Session) -> str | None:
    """What a full disk left unsaved, and what to do (None when the journal holds the whole
    game): the game goes on in memory, each change tries the write again (issue 33)."""
    if not session.save_error:
        return None
    n = len([k for k, _d in session.unsaved if k != "note"]) or 1
    return ngettext(
        "{error}. The game goes on in memory, but {n} change is not saved yet: free some "
        "space, then type 'save' (every move tries again too). Until it is saved the "
        "launcher stays disarmed (a press typed as 'missed press N' is taken)",
        "{error}. The game goes on in memory, but {n} changes are not saved yet: free some "
        "space, then type 'save' (every move tries again too). Until it is saved the "
        "launcher stays disarmed (a press typed as 'missed press N' is taken)",
        n,
    ).format(error=session.save_error, n=n)


def resume_command(session: Session) -> str:
    """The command that continues ``session``'s game: with ``--data-dir`` when its games
    file is not where a bare ``unolaunch play`` looks (``--data-dir`` given, issue 34)."""
    from unolaunch.table.journal import data_dir

    command = f"unolaunch play --resume {session.id}"
    folder = Path(session.journal.path).parent
    if folder.resolve() != data_dir().resolve():
        command += f" --data-dir {shlex.quote(str(folder))}"
    return command


def largest_burst() -> int:
    """The most cards one press can shoot: the firmware's default burst weights (ATK-25)."""
    from unolaunch.fwconfig import pattern_settings

    return len(pattern_settings()["burst_weights"])


#: A wild card to show in examples, by variant (a Mario Kart deck has no plain Wild): typed
#: words, so a translation must be words the parser takes (glossary.py).
_WILD_EXAMPLE = {
    # TRANSLATORS: an example of a typed move: the Wild card and a colour, as a player types it.
    "attack": N_("wild blue"),
    # TRANSLATORS: an example of a typed move: Wild Draw Four (wd4) and a colour.
    "mario-kart": N_("wd4 blue"),
    "pocket-pizza": N_("wild blue"),
}


def _wild_word(variant: str) -> str:
    """The typed word for the variant's wild card (``wild``, ``wd4``), in the language."""
    return _(_WILD_EXAMPLE.get(variant, _WILD_EXAMPLE["attack"])).split()[0]


#: Typed answers, in the parser's English words: parse.answer() maps every language's words
#: (glossary.py) onto them.
_YES_WORDS = ("y", "yes", "right", "correct", "ok")
_NO_WORDS = ("n", "no")
_CANCEL_WORDS = ("undo", "cancel", "back")
_QUIT_WORDS = ("quit", "exit")
_NONE_WORDS = ("none", "nothing", "no cards", "zero", "0")

#: ATK-12's question after a Discard All, by its colour ({c}: the colour's letter).
_DISCARD_ALL_QUESTION = {
    "r": N_(
        "Which other red cards went with {who}'s Discard All (ATK-12)? the cards "
        "(e.g. {c}3 {c}9), how many (e.g. 2), or none: "
    ),
    "y": N_(
        "Which other yellow cards went with {who}'s Discard All (ATK-12)? the cards "
        "(e.g. {c}3 {c}9), how many (e.g. 2), or none: "
    ),
    "g": N_(
        "Which other green cards went with {who}'s Discard All (ATK-12)? the cards "
        "(e.g. {c}3 {c}9), how many (e.g. 2), or none: "
    ),
    "b": N_(
        "Which other blue cards went with {who}'s Discard All (ATK-12)? the cards "
        "(e.g. {c}3 {c}9), how many (e.g. 2), or none: "
    ),
}

#: Table commands that change the game: refused when typed before it moved on (issue 34).
_CHANGES_GAME = frozenset({"undo", "fix", "uno"})

#: Words of a move (not a hand's cards) that may be typed at the round end's questions.
_GAME_WORDS = frozenset(
    {"challenge", "ch", "chal", "accept", "press", "draw", "drew", "pass", "catch", "play"}
)


#: What the awaited player does, by the kind of decision the engine waits for.
_DOING = {
    "top": N_("turn up the start card"),
    "color": N_("name the colour"),
    "target": N_("choose a player"),
    "give": N_("give a card"),
    "turned": N_("report the Item Box card"),
    "won": N_("report the challenge"),
    "reveal": N_("count the cards left"),
    "challenge": N_("challenge or accept"),
}


def load_reminder(session: Session) -> str:
    """ATK-3, at a round's start: the cards left after the deal (but the start card) are
    the stock, and in UNO Attack they all go into the launcher. Empty in other variants."""
    if session.variant != "attack":
        return ""
    snap = session.snapshot()
    n = int(snap.get("stock_size") or 0) - (1 if snap.get("top") is None else 0)
    return ngettext(
        "{dealer}: load the other {n} card into the launcher (ATK-3)",
        "{dealer}: load the other {n} cards into the launcher (ATK-3)",
        n,
    ).format(dealer=snap["dealer"], n=n)


def owed_presses(session: Session, joint: str) -> str:
    """The presses the awaited player owes and what they lead to, in words:
    ``2 more times, then Bob's turn is over (ATK-11)`` (``joint`` between the two parts).
    What they lead to is found by trying them on the engine (no card out; for Wild Hit
    Fire one card) and taking them back; nothing is journaled."""
    with session.lock:
        g = session.game
        pending, aw = g.pending, g.awaiting
        if not pending or not aw or pending[0][0] not in (E.OB_PRESS, E.OB_UNTIL):
            return _("once")
        who, rule = aw["by"], str(pending[0][4])
        until = pending[0][0] == E.OB_UNTIL
        n = 1 if until else int(pending[0][2])
        owes = (
            _("until a card comes out")
            if until
            else ngettext("{n} more time", "{n} more times", n).format(n=n)
        )
        done = 0
        try:
            for _i in range(n):
                g.apply({"by": who, "press": True, "cards": 1 if until else 0})
                done += 1
            after = g.awaiting or {}
            over = g.round_winner >= 0
            presses_next = bool(g.pending) and g.pending[0][0] in (E.OB_PRESS, E.OB_UNTIL)
        except (IllegalMoveError, ValueError):
            return f"{owes} ({rule})"
        finally:
            if done:
                g.undo(done)
    if over:
        then = _("then the round is over")
    elif presses_next and after.get("by") and after.get("by") != who:
        # ATK-18: every player presses once in turn
        then = _("then {who} presses").format(who=after["by"])
    elif after.get("by") == who and "play" in after.get("verbs", ()):
        then = _("then {who} plays").format(who=who)
    elif rule in _LOSES_TURN:
        then = _("then {who}'s turn is over").format(who=who)
    elif after.get("by"):
        then = _("then {who} plays").format(who=after["by"])
    else:
        then = _("then play goes on")
    return f"{owes}{joint}{then} ({rule})"


#: Presses after which the presser's turn is over: a turned-up Hit 2 (ATK-4), Hit 2
#: (ATK-11), Wild Hit 4 (ATK-14), Wild Hit Fire (ATK-17). Others (Attack-Attack's target,
#: ATK-15; an UNO penalty, ATK-20; Wild All Hit, ATK-18) take no one's turn away.
_LOSES_TURN = frozenset({"ATK-4", "ATK-11", "ATK-14", "ATK-17"})


def keep_uno_said(session: Session) -> None:
    """After an undo, who said UNO (COM-6) is what the actions still in effect say — not
    forgotten (the screen showed a said UNO as a bare ``1 (1)``)."""
    said: set[str] = set()
    for data in actions_in_effect(session.entries()):
        if data is None:
            said = set()
        elif data.get("play") and data.get("uno"):
            said.add(str(data.get("by")))
        elif data.get("play") or "catch" in data:
            said.discard(str(data.get("catch") or data.get("by")))
    with session.lock:
        session.uno_said = said


#: The rule that gives each variant's deck: how many of each card there are.
_DECK_RULE = {"attack": "ATK-1", "mario-kart": "MK-1", "pocket-pizza": "PP-1"}


def overplayed(session: Session, actions: list[dict[str, Any]]) -> Outcome | None:
    """A warning when a card just played (or discarded with a Discard All) is now on the
    discard pile more often than the game's deck holds it — since the last reshuffle the
    played cards are all there, in everyone's sight (ATK-1/ATK-2, MK-1, PP-1/PP-2 counts).
    It is almost always a typo, but hands are unseen: the play stands, ``undo`` takes it
    back. ``None`` when every count fits."""
    codes: list[str] = []
    for a in actions:
        for key in ("play", "turned"):
            if isinstance(a.get(key), str):
                codes.append(a[key])
        discarded = a.get("discarded")
        if isinstance(discarded, list):
            codes += [c for c in discarded if isinstance(c, str) and c != "?"]
    if not codes:
        return None
    with session.lock:
        g = session.game
        pile = [card_code(c) for c in g.discard]
        deck = {card_code(c): k for c, k in g.composition.items()}
    for code in dict.fromkeys(codes):
        played, held = pile.count(code), deck.get(code, 0)
        if played > held:
            rule = _DECK_RULE.get(g.variant, "COM-1")
            if g.variant == "pocket-pizza" and code.startswith("W"):
                rule = "PP-2"  # the wild counts (a deck option)
            elif g.variant == "attack" and (code in ("WHF", "WAH") or code[1:] == "TH"):
                rule = "ATK-2"  # the optional edition's cards
            args = {"card": code, "n": played, "variant": g.variant, "held": held, "rule": rule}
            return Outcome("overplayed", args)
    return None


def left_text(value: list[str] | int) -> str:
    """Cards left in a hand (codes) or their points, in words."""
    if isinstance(value, int):
        return ngettext("{n} point", "{n} points", value).format(n=value)
    return " ".join(card_name(c) for c in value) or _("no cards")


def action_text(data: dict[str, Any] | None, variant: str = "") -> str:
    """A journaled action in words, in the current language, for what ``undo`` took back
    (and what a refusal was about): ``Ann plays red 7``, ``Bob's press (3 cards)``,
    ``Cy draws``, ``fix Bob 5``; ``None`` is a deal."""
    if data is None:
        return _("the deal of a round")
    by = str(data.get("by", "?"))
    if isinstance(data.get("play"), str):
        card = card_name(str(data["play"]))
        if data.get("color"):
            colour = colour_name(str(data["color"]))
            if data.get("uno"):
                text = _("{who} plays {card} ({colour}) and says UNO")
            else:
                text = _("{who} plays {card} ({colour})")
            return text.format(who=by, card=card, colour=colour)
        if data.get("uno"):
            return _("{who} plays {card} and says UNO").format(who=by, card=card)
        return _("{who} plays {card}").format(who=by, card=card)
    if "press" in data:
        k = data.get("cards")
        if isinstance(k, int):
            text = ngettext("{who}'s press ({n} card)", "{who}'s press ({n} cards)", k)
            return text.format(who=by, n=k)
        return _("{who}'s press").format(who=by)
    if "draw" in data:
        return _("{who} draws").format(who=by)
    if "pass" in data:
        return _("{who} passes").format(who=by)
    if "challenge" in data:
        return _("{who} challenges").format(who=by)
    if "accept" in data:
        return _("{who} accepts").format(who=by)
    if "catch" in data:
        return _("{who} catches {other}").format(who=by, other=data["catch"])
    correct = data.get("correct")
    if isinstance(correct, dict):
        if data.get("reason") == "stray":
            text = _("the cards credited to {who} after a press (now {n})")
        else:
            # TRANSLATORS: "fix" is the command word players type to correct a hand size.
            text = _("fix {who} {n}")
        return ", ".join(text.format(who=p, n=n) for p, n in correct.items())
    choose = data.get("choose")
    if isinstance(choose, dict):
        if "top" in choose:
            return _("the start card {card}").format(card=card_name(str(choose["top"])))
        if "hands" in choose or "points" in choose:
            return _("the round's count (the cards left in the hands)")
        if "color" in choose:
            colour = colour_name(str(choose["color"]))
            return _("{who} names {colour}").format(who=by, colour=colour)
        if "target" in choose:
            return _("{who} chooses {other}").format(who=by, other=choose["target"])
        if "turned" in choose:
            card = card_name(str(choose["turned"]))
            return _("the Item Box's card {card}").format(card=card)
        if "give" in choose:
            return _("{who} gives {card}").format(who=by, card=card_name(str(choose["give"])))
        if "won" in choose:
            return _("the challenge's outcome")
    return _("{who}'s action").format(who=by)


def overcounted(session: Session, left: dict[str, list[str] | int]) -> str | None:
    """At a round's end: a card typed in the hands more often than the deck holds, counting
    the copies on the discard pile since the last reshuffle (ATK-1, MK-1, PP-1/PP-2), as
    plays are warned about (:func:`overplayed`). ``None`` when every count fits."""
    typed = [c for v in left.values() if isinstance(v, list) for c in v if c != "?"]
    with session.lock:
        g = session.game
        pile = [card_code(c) for c in g.discard]
        deck = {card_code(c): k for c, k in g.composition.items()}
    for code in dict.fromkeys(typed):
        seen, held = typed.count(code) + pile.count(code), deck.get(code, 0)
        if seen > held:
            return _(
                "{card}: {typed} typed in the hands and {pile} on the discard pile, but the "
                "{game} deck has {held} ({rule}): a typo? 'undo' takes back the count"
            ).format(
                card=card_name(code),
                typed=typed.count(code),
                pile=pile.count(code),
                game=variant_title(g.variant),
                held=held,
                rule=_DECK_RULE.get(g.variant),
            )
    return None


def effect_text(effect: Effect) -> str:
    """An engine effect in words, in the current language — cards by name, not code —
    without the unknown cards of hidden hands (``?``)."""
    return words(of_effect(effect))


def instead_text(s: Session) -> str:
    """What the player whose turn it is may type (COM-2): a card of the colour, of the
    number or symbol, a wild, or press/draw."""
    snap = s.snapshot()
    aw = snap.get("awaiting") or {}
    who, verbs = aw.get("by", "?"), aw.get("verbs", ())
    ways = []
    if snap.get("color") in COLOR_NAMES:
        colour = color_word(COLOR_NAMES.index(snap["color"]), "card")
        ways.append(_("a {colour} card").format(colour=colour))
    top = snap.get("top")
    if top and not str(top).startswith("W"):
        kind = str(top)[1:]
        if kind.isdigit():
            ways.append(_("a {number}").format(number=kind))
        else:
            ways.append(_("a {symbol}").format(symbol=kind_name(kind)))
    ways.append(_("a wild"))
    # TRANSLATORS: the words in quotes are what players type.
    if "press" in verbs:
        ways.append(_("'press'"))
    elif "draw" in verbs:
        ways.append(_("'draw'"))
    if "pass" in verbs:
        ways.append(_("'pass'"))
    return _("{who} may play {ways}").format(who=who, ways=either(ways))


#: A variant's id in an engine message (the table says the game's name instead).
_VARIANT_ID = re.compile(r"(?<![\w'-])(mario-kart|pocket-pizza)(?![\w'-])")


def error_text(exc: Exception, session: Session | None = None) -> str:
    """The line the table shows for a refused input (without its ✗): the rule and the
    reason, cards named in words; with the ``session``, an illegal card or a play out of
    turn ends with what may be typed instead (COM-2). The web pages show the same."""
    msg = _short_illegal(exc) if isinstance(exc, IllegalMoveError) else str(exc)
    text = _VARIANT_ID.sub(lambda m: variant_title(m.group(0)), card_names(msg))
    if (
        session is not None
        and isinstance(exc, IllegalMoveError)
        and (exc.rule == "COM-2" or exc.out_of_turn)
    ):
        text += f"; {instead_text(session)}"
    return text


def _short_illegal(exc: IllegalMoveError) -> str:
    """The engine's refusal for the table, from its structured fields (never its English
    message): the rule, the refused action in words (``Cy: play red 3``, ``Bob: press
    (0 cards)``) and the reason in the players' language; the screen shows the position."""
    a = exc.action
    if a is None:
        text = _("{rule}: {why}").format(rule=exc.rule, why=exc.why)
        return _("{refusal} — the game is unchanged").format(refusal=text)
    # TRANSLATORS: a refusal: "COM-2: Cy: play red 3: red 3 matches neither ...".
    text = _("{rule}: {who}: {action}: {why}").format(
        rule=exc.rule, who=a.by, action=refused_action(a), why=exc.why
    )
    return _("{refusal} — the game is unchanged").format(refusal=text)


def refused_action(a: Action) -> str:
    """A refused action in the players' words, after its player's name: ``play red 3``,
    ``press (0 cards)``."""
    # TRANSLATORS: a refused action's verb, after the player's name: "Cy: play red 3".
    verbs = {
        "play": pgettext("action", "play"),
        "draw": pgettext("action", "draw"),
        "press": pgettext("action", "press"),
        "pass": pgettext("action", "pass"),
        "challenge": pgettext("action", "challenge"),
        "accept": pgettext("action", "accept"),
        "choose": pgettext("action", "choose"),
        "catch": pgettext("action", "catch"),
        "correct": pgettext("action", "fix"),
    }
    words = [verbs.get(a.verb, a.verb)]
    if a.card is not None:
        words.append(card_name(a.card))
    if a.verb == "choose" and a.color is not None:
        words.append(colour_name(a.color))
    elif a.color is not None:
        words.append(_("colour {colour}").format(colour=colour_name(a.color)))
    if a.target is not None:
        words.append(
            a.target if a.verb in ("catch", "choose") else _("target {who}").format(who=a.target)
        )
    if a.give is not None:
        words.append(_("give {card}").format(card=card_name(a.give)))
    if a.turned is not None:
        words.append(_("turned {card}").format(card=card_name(a.turned)))
    if a.uno:
        words.append(_("UNO"))
    if a.discarded is not None:
        shown_cards = " ".join(card_name(c) for c in a.discarded)
        words.append(_("discarded {cards}").format(cards=shown_cards))
    if a.cards is not None:
        words.append(ngettext("({n} card)", "({n} cards)", a.cards).format(n=a.cards))
    if a.won is not None:
        words.append(_("right") if a.won else _("wrong"))
    words += [f"{name} {size}" for name, size in a.sizes or ()]
    return " ".join(words)
