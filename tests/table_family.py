"""A family that types: whole seeded games played at a simulated physical table, typed
into the real :class:`~unolaunch.table.app.Table` (the parser and session of ``play``).

The physical table is the rules engine with every card known (``hidden_hands=False``):
real shuffled decks, the real hands the players hold, and in UNO Attack the launcher's
real bursts (the firmware's own ejection pattern, ``PatternLauncher``). Each player picks
a legal action there; it is done at the physical table first (so the cards a press shot
out, the card an Item Box turned up, a challenge's outcome and the hands left at a round's
end are known), then typed the way people type it — ``r5``, ``red 5``, ``red five``,
``draw``, ``drew a card``, ``Ann: press 3``, ``wild`` then ``blue``, ``r5`` then ``uno`` —
now and then with a typo the table must refuse, or a wrong card followed by ``undo``.

After every complete action an oracle compares what the table believes (hand sizes,
whose turn, direction, colour, top card, presses owed, scores, round and game winner)
with the physical table. A divergence raises :class:`Divergence` with the seed and every
line typed, so that the game can be typed again by hand.

``concurrent`` (issue 34): the terminal, the phones and the launcher act at once. Each move
of the physical table is made through one of them — typed at the terminal, sent from the
player's phone (the web front's ``act``, with the state's ``at``), or the launcher's events
— and a move made by a phone or the launcher while the terminal's prompt waits comes with a
line typed there just before (the same move typed for the state that is gone): it must be
refused and nothing recorded. The game speaks ``en`` or the pseudo-locale ``qps``, each
phone one of them too; after every step the oracle also checks who was recorded (a phone's
or the launcher's move is its player's), the stock (and the launcher's counters), and that
every screen — the terminal, the table's view, each phone — says everything in its own
language.
"""

from __future__ import annotations

import collections
import io
import json
import random
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pseudo import escaped
from rich.console import Console
from unolaunch.cards import card_code
from unolaunch.i18n import use
from unolaunch.rules import Action, Game
from unolaunch.rules import engine as E
from unolaunch.table.app import Table
from unolaunch.table.journal import Journal
from unolaunch.table.launcher import LinkedLauncher
from unolaunch.table.outcome import words
from unolaunch.table.session import Session

COLORS = ("red", "yellow", "green", "blue")
_LETTER_COLOUR = {"r": "red", "y": "yellow", "g": "green", "b": "blue"}
_NUMBER_WORDS = ("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine")

#: Lines the table must refuse whatever the position (the game unchanged).
TYPOS = ["bleu 5", "r55", "blah", "hit", "press lots", "undo x", "fix", "purple 3", "red red 5"]

#: Ways of typing each coloured kind ({c}: colour word, {l}: colour letter).
_KIND_FORMS = {
    "S": ["{c} skip", "{l}S", "skip {c}", "{c} skip"],
    "R": ["{c} reverse", "{l}R", "{c} rev"],
    "H2": ["{c} hit 2", "{l}H2", "{c} hit two"],
    "+2": ["{c} +2", "{l}+2", "{c} draw two", "draw two {c}", "{c}+2"],
    "+1": ["{c} +1", "{l}+1", "{c} draw one", "draw one {c}"],
    "DA": ["{c} discard all"],
}
_WILD_FORMS = {
    "W": ["wild {c}", "{c} wild", "w {c}"],
    "WH4": ["wh4 {c}", "hit 4 {c}", "wild hit 4 {c}", "hit4 {c}"],
    "WAA": ["attack {c} {t}", "attack {t} {c}", "wild attack attack {c} {t}"],
    "WC": ["custom {c}", "wild custom {c}"],
    "W+4": ["wd4 {c}", "wild draw four {c}", "+4 {c}", "w+4 {c}"],
    "W+2": ["wd2 {c}", "wild draw 2 {c}", "wild draw two {c}"],
    "WDD": ["dip {c}", "wild dip {c}", "dip into the deck {c}"],
    "WIB": ["item box {x}", "box {x}", "wild item box {x}"],
}
_DRAW_FORMS = ["draw", "drew", "draw a card", "draw one", "pick up", "drew 1", "took one"]


class _Link:
    """What the table asks of a launcher's link (arm, disarm, stop), accepted."""

    def arm(self, player: str, presses: int, mode: str = "random") -> None:
        """Armed (the events say what the launcher then did)."""

    def disarm(self) -> None:
        """Disarmed."""

    def stop(self) -> None:
        """Motor stopped, fault cleared."""


class _Enough(Exception):
    """A short game has been typed far enough."""


class Divergence(AssertionError):
    """The table's state is not the physical table's."""


@dataclass
class FamilyGame:
    """One game's record: what was typed, and how far it went."""

    variant: str
    seed: int
    lines: list[str] = field(default_factory=list)
    actions: int = 0
    rounds: int = 1
    finished: bool = False
    phone_moves: int = 0  # concurrent: moves sent from the phones
    launcher_moves: int = 0  # concurrent: presses that came as the launcher's events
    stale_lines: int = 0  # concurrent: lines typed for a state that was gone (refused)


def card_words(code: str, rng: random.Random, to_match: str | None) -> str:
    """One way a person types the coloured card ``code`` (``r5`` -> ``red five``...)."""
    letter, kind = code[0], code[1:]
    colour = _LETTER_COLOUR[letter]
    if kind.isdigit():
        forms = [code, code.upper(), f"{colour} {kind}", f"{colour} {_NUMBER_WORDS[int(kind)]}"]
        forms += [f"{kind} {colour}", f"{colour}{kind}"]
        if to_match == colour:
            forms.append(kind)  # the colour to match is understood
        return rng.choice(forms)
    form = rng.choice(_KIND_FORMS[kind])
    if to_match == colour and kind in ("S", "R") and rng.random() < 0.3:
        form = {"S": "skip", "R": "reverse"}[kind]
    return form.format(c=colour, l=letter)


class Family:
    """Plays one game at a physical table and types it into the real table."""

    def __init__(
        self,
        data_dir: Path,
        variant: str,
        seed: int,
        target: int = 60,
        screen: bool = True,
        max_lines: int = 0,
        launcher: bool = False,
        concurrent: bool = False,
    ) -> None:
        self.max_lines = max_lines
        self.rng = random.Random(seed)
        self.concurrent = concurrent
        # 2 to 5 players (PP-3 allows 5; most games at three)
        n = self.rng.choice([2, 3, 3, 3, 4, 5])
        players = ["Ann", "Bob", "Cy", "Dee", "Eve"][:n]
        self.players = players
        self.record = FamilyGame(variant, seed)
        opts = {"target": target}
        self.phys = Game.new(
            variant, players, options=opts, rng=random.Random(seed), dealer=players[0]
        )
        self.journal = Journal.open(data_dir)
        self.session = Session.start(
            self.journal, variant, players, opts, seed=seed, dealer=players[0]
        )
        self.queue: list[str] = []
        self.unsynced = False  # a wrong line typed on purpose: the next line is 'undo'
        self.out = io.StringIO()
        self.table = Table(
            self.session,
            Console(file=self.out, width=100, highlight=False),
            read_line=self.read_line,
        )
        # concurrent: the game's language and each phone's (en, or the pseudo-locale)
        self.lang = self.rng.choice(["en", "qps"]) if concurrent else "en"
        self.phone_lang = {p: self.rng.choice(["en", "qps"]) for p in players}
        self.front: Any = None
        self._seen_out = 0
        self._typed_words: set[str] = set(players)  # may stand outside ⟦…⟧: typed, echoed
        self._stale_at: int | None = None  # the game's version when a stale line was typed
        self._recorded: list[dict[str, Any]] = []  # every action journaled, as it was
        self._log_seen = 0  # the table's log entries already checked on the phones
        self.launched = {"presses": 0, "cards": 0, "fouls": 0}
        if concurrent:
            from unolaunch.web.front import TableFront

            self.session.listen(  # what is journaled, by whom (a listener: as it happens)
                lambda kind, data: self._recorded.append(data) if kind == "action" else None
            )
            with use(self.lang):
                self.front = TableFront(self.table)  # the phones' way in (no server needed)
            # Its painter redraws the terminal from a thread of its own: in this simulation
            # the terminal's prompt is only ever shown again by the table itself (what the
            # typist sees stays what it typed for).
            self.front.close()
        if not screen:
            # The suite's short games: the screen's content is still computed every time
            # (what it shows, the hint, the presses owed), only not laid out by rich.
            table = self.table

            def draw() -> None:
                table.view()
                table.say(table.hint())

            table.draw = draw  # type: ignore[method-assign]
        self.launcher: LinkedLauncher | None = None
        if launcher and variant == "attack":
            # UNO Attack with a launcher: its presses arrive as the firmware's events
            # (as from the launcher's thread), faults and all; nothing of them is typed.
            notify = self.front.notify if concurrent else self.table.remember
            self.launcher = LinkedLauncher(_Link(), self.session, notify)
            self.table.launcher = self.launcher
            self.launcher.sync()

    # ------------------------------------------------------------------ the oracle
    def differences(self) -> list[str]:
        """What the table believes that the physical table does not."""
        t, p = self.session.snapshot(), self.phys.snapshot()
        out = []
        for key in ("hand_sizes", "direction", "color", "top", "scores"):
            if key == "color" and p["round_winner"] is not None:
                continue  # a last wild's colour is never asked: the round is over (COM-7)
            if t[key] != p[key]:
                out.append(f"{key}: table {t[key]!r}, physical {p[key]!r}")
        for key in ("round_winner", "game_winner"):
            if t[key] != p[key]:
                out.append(f"{key}: table {t[key]!r}, physical {p[key]!r}")
        ta, pa = t["awaiting"], p["awaiting"]
        if self.session.choice() != "reveal" and (ta or {}).get("by") != (pa or {}).get("by"):
            out.append(f"awaiting: table {ta!r}, physical {pa!r}")
        owed = self.phys.pending[0][2] if self._phys_kind() == E.OB_PRESS else 0
        if self.session.presses_owed() != owed:
            out.append(f"presses owed: table {self.session.presses_owed()}, physical {owed}")
        return out

    def check(self) -> None:
        """Raise :class:`Divergence` (seed and lines typed) if the tables disagree."""
        diffs = self.differences()
        if self.concurrent:
            diffs += self.concurrent_differences()
        if diffs:
            raise Divergence(self.report("; ".join(diffs)))

    def concurrent_differences(self) -> list[str]:
        """The stock and the launcher's counters; a line typed for a state that was gone
        recorded nothing; every screen in its own language."""
        out = []
        t, p = self.session.snapshot(), self.phys.snapshot()
        # the cards in no hand: the stock and the pile (a hand size typed too high and then
        # corrected may leave the pile reshuffled into the stock: the split is the table's)
        with self.session.lock:
            table = t["stock_size"] + len(self.session.game.discard)
        physical = p["stock_size"] + len(self.phys.discard)
        if p["round_winner"] is None and table != physical:
            out.append(f"stock and pile: table {table}, physical {physical}")
        if self.launcher is not None:
            got = {"presses": self.launcher.presses, "cards": self.launcher.cards_out}
            got["fouls"] = self.launcher.fouls
            if got != self.launched:
                out.append(f"launcher counters: {got}, launched {self.launched}")
        if self._stale_at is not None:
            if self.session.version != self._stale_at:
                out.append("a line typed for a state that was gone was recorded")
            self._stale_at = None
        out += self.screen_languages()
        return out

    def screen_languages(self) -> list[str]:
        """What each screen says now — the terminal since the last check, each phone's log,
        notice, warning, launcher line and what is awaited — in its own language: the
        pseudo-locale's all inside ⟦…⟧ (but names, numbers, what was typed), English with
        none."""
        allowed = self._typed_words
        text = self.out.getvalue()
        terminal, self._seen_out = text[self._seen_out :].splitlines(), len(text)
        screens = [("terminal", self.lang, terminal)]
        for lang in sorted(set(self.phone_lang.values())):  # the phones of one language
            screens.append((f"the {lang} phones", lang, self.phone_texts(lang)))
        self._log_seen = len(self.table.log)
        out = []
        for name, lang, lines in screens:
            lines = [line for line in lines if line.strip()]
            if lang == "qps":
                bad = escaped(lines, allowed)
            else:
                bad = [line for line in lines if "⟦" in line]
            if bad:
                out.append(f"{name} ({lang}) says {bad[:3]}")
        return out

    def phone_texts(self, lang: str) -> list[str]:
        """What a phone in ``lang`` shows of the game's words (web/state.py's texts; of the
        log, what was added since the last check)."""
        table = self.table
        with use(lang), self.session.lock:
            view = table.view()
            texts = [words(o) for o in table.log[self._log_seen :]]
            texts += [view.notice or "", view.warning or "", view.doing or "", table.hint()]
            texts += [view.launcher or "", *list(view.owed.values())]
        return texts

    def report(self, what: str) -> str:
        """A divergence, with what to type to see it again."""
        r = self.record
        typed = "\n".join(f"  {i + 1:4} {line}" for i, line in enumerate(r.lines))
        return (
            f"{r.variant} seed {r.seed} (players {','.join(self.players)}, dealer "
            f"{self.players[0]}), after line {len(r.lines)}: {what}\nlines typed:\n{typed}"
        )

    def _phys_kind(self) -> int | None:
        return self.phys.pending[0][0] if self.phys.pending else None

    # ------------------------------------------------------------------ typing
    def read_line(self, prompt: str) -> str:
        """The table asks; the family answers (the next line of the current action, or
        the next action at the physical table once the oracle agrees). A prompt in the
        pseudo-locale is read without its brackets (the family reads the English)."""
        line = self._answer(prompt.replace("⟦", "").replace("⟧", ""))
        self.record.lines.append(line)
        self._typed_words.update(re.findall(r"[\w'\u2019-]+", line))
        if len(self.record.lines) > 6000:
            raise Divergence(self.report("the game does not end (6000 lines)"))
        return line

    def _answer(self, prompt: str) -> str:
        rng = self.rng
        if self._stale_at is not None:  # the stale line before this prompt...
            if self.phys.round_winner < 0:
                self.check()  # ...recorded nothing (and all is as it was)
            elif self.session.version != self._stale_at:
                raise Divergence(self.report("a line typed for a state that was gone"))
            self._stale_at = None
        if self.queue:
            return self.queue.pop(0)
        if self.unsynced:  # a wrong card was typed on purpose: take it back
            self.unsynced = False
            return rng.choice(["undo", "oops", "u"])
        if prompt.startswith("Cards left in "):
            who = prompt[len("Cards left in ") :].split("'s hand", 1)[0]
            right = self.hand_left(who)
            opponents = [p for p in self.players if p != self.phys.snapshot()["round_winner"]]
            if who != opponents[-1] and rng.random() < 0.2:
                # A count typed wrong, then 'undo' (it takes back that count, not the
                # winning card) and the right one.
                n = len(self.phys.hands[self.phys.players.index(who)])
                lo, hi = self.session.hand_value_range(n)
                wrong = str(rng.randrange(lo, hi + 1))
                if wrong != right:
                    self.queue = ["undo", right]
                    return wrong
            return right
        if "wins the game. Is that right?" in prompt:
            self.check()
            self.record.finished = True
            return "yes"
        if prompt.startswith("deal round"):
            self.check()
            self.phys.next_round()
            self.record.rounds += 1
            return rng.choice(["", "deal", "yes"])
        if self.session.choice() == "top":
            top = str(self.phys.snapshot()["top"])
            return top if top.startswith("W") else card_words(top, rng, None)
        self.check()
        if self.max_lines and len(self.record.lines) >= self.max_lines:
            raise _Enough  # a short game: stopped where the tables agree
        if rng.random() < 0.03:
            return rng.choice(TYPOS + self.wrong_moves())  # refused: nothing may change
        if rng.random() < 0.02:
            return self.fix_typo()
        if rng.random() < 0.03 and self.session.choice() is None and self._wrong_card():
            return self.queue.pop(0)
        if self.concurrent and rng.random() < 0.4:
            moved = self.phone_step()
            if moved is not None:
                return moved
        self.queue = self.act()
        return self.queue.pop(0)

    # ------------------------------------------------------------------ the phones
    def phone_step(self) -> str | None:
        """The awaited player's move, made at the physical table and sent from their phone
        while the terminal's prompt waits; then what the terminal had typed meanwhile: the
        same move, for the state that is gone now (refused), or Enter. None when the move
        is not one a phone sends here (the terminal types it)."""
        aw = self.session.snapshot()["awaiting"] or {}
        if self.session.choice() not in (None, "press", "until", "color", "target", "challenge"):
            return None
        legal = [a for a in self.phys.legal_actions() if a.verb != "catch"]
        if not legal:
            return None
        a = self.rng.choice(legal)
        if a.by != aw.get("by") or (a.verb == "press" and self.launcher is not None):
            return None  # presses with a launcher come from the launcher (launcher_press)
        sent = self.phone_actions(a)
        self.record.lines.append(f"[{a.by}'s phone: {json.dumps(sent)}]")
        self._typed_words.update(re.findall(r"[\w'\u2019-]+", self.record.lines[-1]))
        before = len(self._recorded)
        for action in sent:
            body = dict(action, at=self.session.version)
            with use(self.phone_lang[a.by]):
                status, reply = self.front.act(a.by, body)
            if status != 200:
                raise Divergence(self.report(f"the phone's {body} was refused: {reply}"))
            said = [reply.get("error", ""), *list(reply.get("effects", []))]
            if self.phone_lang[a.by] == "en" and any("⟦" in x for x in said):
                raise Divergence(self.report(f"an English phone was answered {said}"))
        self.record.phone_moves += 1
        self.check_recorded(a.by, before)
        if self.phys.round_winner < 0:  # (a round's end is checked once the count is in)
            self.check()
        if self.rng.random() < 0.3:
            return ""  # Enter: the screen again
        self.record.stale_lines += 1
        self._stale_at = self.session.version
        return stale_line(sent[0])

    def check_recorded(self, by: str, before: int) -> None:
        """The actions a phone's or the launcher's move journaled (after the first
        ``before``) are that player's."""
        new = self._recorded[before:]
        who = {a.get("by") for a in new if "correct" not in a}
        if who - {by}:
            raise Divergence(self.report(f"{by}'s move was recorded as {sorted(who)}'s"))

    def phone_actions(self, a: Action) -> list[dict[str, Any]]:
        """``a`` done at the physical table, as the phone sends it (the table's facts with
        it: a press's cards, a challenge's outcome, an Item Box's card in a step of its
        own, a Discard All's cards)."""
        phys = self.phys
        seat = phys.players.index(a.by)
        before = collections.Counter(phys.hands[seat])
        guilty = phys.pending[0][3] if a.verb == "challenge" and phys.pending else 0
        phys.apply(a)
        while phys.pending and phys.pending[0][0] == E.OB_GIVE:  # PP-11: as do_play
            phys.apply(self.rng.choice([g for g in phys.legal_actions() if g.verb == "choose"]))
        by = a.by
        if a.verb == "play":
            assert a.card is not None
            sent: dict[str, Any] = {"by": by, "play": a.card}
            if a.color and phys.hands[seat]:
                sent["color"] = a.color  # a last card names no colour (COM-7)
            if a.target:
                sent["target"] = a.target
            if a.uno:
                sent["uno"] = True
            if a.card[1:] == "DA":
                gone = before - collections.Counter(phys.hands[seat])
                others = [card_code(c) for c in gone.elements()]
                others.remove(a.card)
                sent["discarded"] = others
            if a.card == "WIB":  # MK-13: the card it turned, told as a step of its own
                return [sent, {"by": by, "choose": {"turned": card_code(phys.discard[-1])}}]
            return [sent]
        if a.verb == "draw":  # PP-6, MK-9: the drawn card cannot be played: 'pass'
            aw = phys.awaiting or {}
            done = aw.get("by") != by or "pass" not in aw.get("verbs", ())
            return [{"by": by, "draw": True}, *([{"by": by, "pass": True}] if done else [])]
        if a.verb == "press":
            n = len(phys.hands[seat]) - sum(before.values())
            return [{"by": by, "press": True, "cards": n}]
        if a.verb == "challenge":
            return [{"by": by, "challenge": True, "won": bool(guilty)}]
        if a.verb in ("pass", "accept"):
            return [{"by": by, a.verb: True}]
        if a.verb == "choose":
            key = "color" if a.color is not None else "target"
            return [{"by": by, "choose": {key: a.color if a.color is not None else a.target}}]
        raise Divergence(self.report(f"a phone cannot send {a}"))

    def wrong_moves(self) -> list[str]:
        """Lines the table must refuse in this position: a press named for a player who
        owes none (ATK-26), a draw of several cards where one is the rule (PP-6, MK-9)."""
        aw = self.session.snapshot()["awaiting"] or {}
        others = [p for p in self.players if p != aw.get("by")]
        if self.phys.variant == "attack":
            wrong = [f"{self.rng.choice(others)}: press {self.rng.randrange(4)}"]
            if self.launcher is not None:  # ATK-25: the launcher counts its own cards
                wrong.append(f"press {self.rng.randrange(1, 4)}")
            return wrong
        return ["draw 3", "took 5", "drew 2"]  # 'drew 2' could be a Draw card: asked

    def fix_typo(self) -> str:
        """A hand size typed wrong and then corrected (the correction ends in the right
        count); a 0 is asked about first (COM-7) and answered 'no'."""
        who = self.rng.choice(self.players)
        right = self.session.snapshot()["hand_sizes"][who]
        wrong = self.rng.choice([0, right + 1, right + 2])
        if wrong == 0 and self.session.snapshot()["round_winner"] is None:
            # asked first (COM-7) — only while nobody has gone out (else refused at once)
            self.queue = ["no"]
            return f"{who} has 0"
        wrong = max(wrong, right + 1)
        self.queue = [f"fix {who} {right}"]
        if right == 0:  # the round's winner: given cards, then out again (COM-7, asked)
            self.queue.append("yes")
        return self.rng.choice([f"fix {who} {wrong}", f"{who} has {wrong}"])

    def _wrong_card(self) -> bool:
        """A card the player does not hold but the table must take (its hands are unseen),
        typed on purpose; 'undo' follows."""
        snap = self.session.snapshot()
        aw = snap["awaiting"] or {}
        if "play" not in aw.get("verbs", ()) or not snap["color"]:
            return False
        if self.phys.variant == "attack" and snap["hand_sizes"][aw["by"]] <= 2:
            return False  # a Discard All question or a round end would follow
        low = 0 if self.phys.variant == "mario-kart" else 1
        self.queue = [f"{snap['color']} {self.rng.randrange(low, 10)}"]
        self.unsynced = True
        return True

    def act(self) -> list[str]:
        """Choose a legal action at the physical table, do it there, and return the lines
        that tell the table."""
        rng, phys = self.rng, self.phys
        legal = phys.legal_actions()
        catches = [a for a in legal if a.verb == "catch"]
        if catches and rng.random() < 0.4:
            return self.do_catch(rng.choice(catches))
        legal = [a for a in legal if a.verb != "catch"]
        plays = [a for a in legal if a.verb == "play"]
        others = [a for a in legal if a.verb != "play"]
        if plays and (not others or rng.random() < 0.9):
            return self.do_play(rng.choice(plays))
        a = rng.choice(others)
        if a.verb in ("draw", "press"):
            return self.do_take(a)
        if a.verb == "pass":
            phys.apply(a)
            return [rng.choice(["pass", "done", "keep"])]
        if a.verb in ("challenge", "accept"):
            return self.do_answer(a)
        if a.verb == "choose":
            phys.apply(a)
            if a.color is not None:
                return [rng.choice([a.color, f"choose {a.color}", a.color[0]])]
            if a.target is not None:
                return [rng.choice([a.target, f"choose {a.target}", a.target.lower()])]
        raise Divergence(self.report(f"the family cannot type {a}"))

    def _named(self, who: str, text: str) -> str:
        """Sometimes say who does it: ``Bob: r5``, ``bob r5``."""
        r = self.rng.random()
        if r < 0.15:
            return f"{who}: {text}"
        if r < 0.2 and not text.isdigit():  # "ann 4" could be a hand size: asked
            return f"{who.lower()} {text}"
        return text

    def do_catch(self, a: Action) -> list[str]:
        self.phys.apply(a)
        awaited = (self.session.snapshot()["awaiting"] or {}).get("by")
        if a.by == awaited and self.rng.random() < 0.5:
            return [f"catch {a.target}"]
        return [f"{a.by} catch {a.target}"]

    def do_take(self, a: Action) -> list[str]:
        rng, phys = self.rng, self.phys
        before = len(phys.hands[phys.players.index(a.by)])
        phys.apply(a)
        if a.verb == "press" and self.launcher is not None:
            n = len(phys.hands[phys.players.index(a.by)]) - before
            return self.launcher_press(a.by, n)
        if a.verb == "press":
            n = len(phys.hands[phys.players.index(a.by)]) - before
            if n < 0:
                raise Divergence(self.report(f"a press took cards away from {a.by}"))
            owed = self.session.presses_owed() > 0
            forms = [f"press {n}", f"pressed {n}", f"press {n} cards"]
            if n == 0:
                forms += ["press none", "press 0"]
            if owed:
                forms.append(str(n) if n else "none")
            if rng.random() < 0.15:
                return [self._named(a.by, "press"), str(n) if n else "none"]
            return [self._named(a.by, rng.choice(forms))]
        # PP-6 / MK-9: one card; if it cannot be played the physical turn ends, and the
        # table (which does not see the card) is told 'pass'.
        lines = [self._named(a.by, rng.choice(_DRAW_FORMS))]
        if (phys.awaiting or {}).get("by") != a.by or "pass" not in (phys.awaiting or {}).get(
            "verbs", ()
        ):
            lines.append("pass")
        return lines

    def launcher_press(self, who: str, n: int) -> list[str]:
        """The button pressed at the launcher: its events, now and then a jam (the card in
        the mouth is pulled out, then 'clear') or a foul by someone else first (ATK-26)."""
        assert self.launcher is not None
        rng = self.rng
        events: list[dict[str, Any]] = []
        if rng.random() < 0.05:  # a press nobody owes: the launcher does not fire
            events.append({"event": "foul", "n": 0, "reason": "not_armed", "player": None})
        jam = n > 0 and rng.random() < 0.1
        owed = max(0, self.session.presses_owed() - 1)
        counted = n - 1 if jam else n
        events.append(
            {"event": "eject", "n": 1, "player": who, "cards": counted, "counted": True,
             "mode": "random", "owed": owed}
        )  # fmt: skip
        lines = [""]  # Enter: the screen shows what the launcher did
        if self.concurrent and rng.random() < 0.6:
            # typed at the terminal just before the launcher's press took the turn on: the
            # press again, for the state that is gone (refused: nothing pressed or recorded)
            lines = [rng.choice(["press", f"{who}: press"])]
        if jam:
            events.append(
                {"event": "fault", "code": "jam", "message": "card stuck", "n": 1,
                 "player": who, "beam": "blocked"}
            )  # fmt: skip
            events.append({"event": "done", "player": who})
            events.append({"event": "stray", "cards": 1, "n": 1, "player": who})
            lines = [rng.choice(["clear", "unjam"])]
        before = len(self._recorded)
        for ev in events:
            self.launcher.handle(ev)
        self.launched["presses"] += 1
        self.launched["cards"] += n
        self.launched["fouls"] += events[0]["event"] == "foul"
        if self.concurrent:
            self.record.launcher_moves += 1
            self.check_recorded(who, before)
            if lines[0] not in ("", "clear", "unjam"):
                self.record.stale_lines += 1
                self._stale_at = self.session.version
        return lines

    def do_answer(self, a: Action) -> list[str]:
        rng, phys = self.rng, self.phys
        guilty = phys.pending[0][3] if phys.pending else -1
        phys.apply(a)
        if a.verb == "accept":
            return [rng.choice(["accept", "no challenge"])]
        outcome = "won" if guilty else "lost"
        if rng.random() < 0.5:
            return [f"challenge {outcome}"]
        return ["challenge", rng.choice([outcome, "yes" if guilty else "no"])]

    def do_play(self, a: Action) -> list[str]:
        rng, phys = self.rng, self.phys
        assert a.card is not None
        seat = phys.players.index(a.by)
        before = collections.Counter(phys.hands[seat])
        to_match = phys.snapshot()["color"]
        phys.apply(a)
        # PP-11: the card given is the physical player's choice; the table does not ask.
        while phys.pending and phys.pending[0][0] == E.OB_GIVE:
            gives = [g for g in phys.legal_actions() if g.verb == "choose"]
            phys.apply(rng.choice(gives))
        code = a.card
        extra: list[str] = []
        if code.startswith("W"):
            text, extra = self._wild_text(a, code)
            if not phys.hands[seat]:
                extra = []  # a last card: the table asks no colour (COM-7)
        else:
            text = card_words(code, rng, to_match)
        if code[1:] == "DA":  # ATK-12: the other cards of its colour went with it
            gone = before - collections.Counter(phys.hands[seat])
            others = [card_code(c) for c in gone.elements()]
            others.remove(code)
            if others and rng.random() < 0.5:
                text += " " + " ".join(others)
            elif sum(before.values()) > 1:  # the table asks which went with it
                answer = rng.choice([" ".join(others), str(len(others))]) if others else "none"
                extra.append(answer)
        if a.uno:
            if rng.random() < 0.5 and not extra:
                text += " uno"
            else:
                extra.append("uno")
        return [self._named(a.by, text), *extra]

    def _wild_text(self, a: Action, code: str) -> tuple[str, list[str]]:
        """A wild card's line, and the colour on a line of its own when it is left out."""
        rng = self.rng
        colour = a.color or ""
        if code == "WIB":
            turned = card_code(self.phys.discard[-1])
            text = rng.choice(_WILD_FORMS["WIB"]).format(x=turned)
            # The item's question (MK-16 Green Shell's target, MK-18 Bob-omb's colour) is
            # answered on the same line now and then: 'item box g7 Bob', 'box W blue'.
            phys = self.phys
            asked = phys.pending and phys.pending[0][0] in (E.OB_TARGET, E.OB_COLOR)
            if asked and rng.random() < 0.5:
                answer = rng.choice([x for x in phys.legal_actions() if x.verb == "choose"])
                phys.apply(answer)
                text += f" {answer.target or answer.color}"
            return text, []
        form = rng.choice(_WILD_FORMS[code])
        if colour and "{t}" not in form and rng.random() < 0.15:
            # 'wild' alone: the table asks for the colour next (COM-1)
            return form.format(c="").strip(), [colour]
        return form.format(c=colour, t=a.target or ""), []

    def hand_left(self, who: str) -> str:
        """The round's end: the cards (or their points) left in ``who``'s hand."""
        hand = self.phys.hands[self.phys.players.index(who)]
        if self.rng.random() < 0.5 and hand:
            return str(sum(self.phys.points[c] for c in hand))
        return " ".join(card_code(c) for c in hand) or "none"

    # ------------------------------------------------------------------ the game
    def play(self) -> FamilyGame:
        """Play the game to its end; :class:`Divergence` on the first disagreement."""
        try:
            with use(self.lang):
                self.table.run()
        except _Enough:
            return self.record
        finally:
            self.journal.close()
        if not self.record.finished:
            raise Divergence(self.report("the table stopped before the game's end"))
        self.check()
        return self.record


def play_family_game(
    data_dir: Path,
    variant: str,
    seed: int,
    target: int = 60,
    screen: bool = True,
    max_lines: int = 0,
    launcher: bool = False,
    concurrent: bool = False,
) -> FamilyGame:
    """One seeded game typed by a family; returns its record or raises Divergence.
    ``screen=False`` leaves out rich's layout of the screen (its content is computed);
    ``max_lines`` stops a short game at the first point after it where the tables agree;
    ``launcher`` (UNO Attack): presses come from a launcher's events, jams and fouls too;
    ``concurrent``: the phones and the launcher act while the terminal types (issue 34)."""
    family = Family(data_dir, variant, seed, target, screen, max_lines, launcher, concurrent)
    return family.play()


def stale_line(sent: dict[str, Any]) -> str:
    """What the terminal had typed for the move a phone made first: the same move."""
    by = sent["by"]
    if "play" in sent:
        code = str(sent["play"])
        colour = sent.get("color")
        if code.startswith("W"):
            return f"{by}: {code} {colour or ''}".strip()
        return f"{by}: {code}"
    if "choose" in sent:
        return str(next(iter(sent["choose"].values())))
    if "press" in sent:
        return f"press {sent['cards']}"
    return next(k for k in sent if k != "by")
