"""The table after a launcher fault (issue 10, item 3): the launcher's events, in the order
the firmware sends them (docs/protocol.md), fed to the table's :class:`LinkedLauncher` with
a fake link. After a jam or an empty magazine the table says who presses next and how many
presses remain, a press the firmware refused because of the fault is not called a foul
nobody owes (ATK-26), and every card that came out is credited — the firmware's ``stray``
reports included (a card pulled out of a jam belongs to who pressed)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from unolaunch.table.journal import Journal
from unolaunch.table.launcher import LinkedLauncher
from unolaunch.table.outcome import CLEAR, Outcome, words
from unolaunch.table.session import Arming, Session

P = ["Ann", "Bob", "Cy"]


class FakeLink:
    """The calls the table makes on a launcher client, recorded."""

    def __init__(self) -> None:
        self.calls: list[tuple[Any, ...]] = []

    def arm(self, player: str, presses: int, mode: str = "random") -> None:
        self.calls.append(("arm", player, presses, mode))

    def disarm(self) -> None:
        self.calls.append(("disarm",))

    def stop(self) -> None:
        self.calls.append(("stop",))


class Table:
    def __init__(self, tmp_path: Path) -> None:
        j = Journal.open(tmp_path)
        self.session = Session.start(j, "attack", P, {}, seed=1, dealer="Cy")
        self.session.apply({"by": "Cy", "choose": {"top": "r5"}})  # COM-4
        self.link = FakeLink()
        self.notes: list[str] = []
        self.warnings: list[str] = []
        self.launcher = LinkedLauncher(self.link, self.session, self.notify)
        self.launcher.sync()

    def notify(self, note: Outcome | None, warning: Outcome | None) -> None:
        """The table's screen: what happened and the warning, in words."""
        if note is not None:
            self.notes.append(words(note))
        if warning is not None and warning != CLEAR:
            self.warnings.append(words(warning))

    def events(self, *events: dict[str, Any]) -> None:
        for ev in events:
            self.launcher.handle(ev)

    def sizes(self) -> dict[str, int]:
        return dict(self.session.snapshot()["hand_sizes"])


def burst(player: str, n: int, cards: int, owed: int, **extra: Any) -> dict[str, Any]:
    ev = {"event": "eject", "n": n, "player": player, "cards": cards, "counted": True}
    return {**ev, "mode": "random", "owed": owed, **extra}


def test_atk11_a_jammed_owed_press_counts_and_the_table_says_who_presses_next(
    tmp_path: Path,
) -> None:
    t = Table(tmp_path)
    t.session.apply({"by": "Ann", "play": "rH2"})  # ATK-11: Bob presses twice
    t.launcher.sync()
    assert t.launcher.armed == Arming("Bob", 2)
    t.events(
        {"event": "press", "n": 1, "player": "Bob", "owed": 1, "mode": "random"},
        burst("Bob", 1, 1, 1, wanted=3),
        {"event": "fault", "code": "jam", "message": "...", "n": 1, "player": "Bob",
         "beam": "blocked"},
    )  # fmt: skip
    assert t.sizes()["Bob"] == 8  # the card that came out is Bob's
    warning = t.warnings[-1]
    assert "stuck" in warning and "Bob" in warning
    assert "Bob presses next: 1 press left" in warning  # ATK-11: one of two is made
    assert "Bob presses next: 1 press left" in t.launcher.status()


def test_atk26_a_press_refused_because_of_the_fault_is_not_a_foul_nobody_owes(
    tmp_path: Path,
) -> None:
    t = Table(tmp_path)
    t.session.apply({"by": "Ann", "play": "rH2"})
    t.launcher.sync()
    t.events(
        burst("Bob", 1, 0, 1, wanted=2),
        {"event": "fault", "code": "jam", "message": "...", "n": 1, "player": "Bob",
         "beam": "blocked"},
    )  # fmt: skip
    before = t.session.snapshot()
    t.events({"event": "foul", "n": 2, "reason": "fault", "player": None})
    warning = t.warnings[-1]
    assert "FOUL" not in warning and "nobody owes" not in warning
    assert "did not fire" in warning and "'clear'" in warning
    assert "Bob presses next: 1 press left" in warning
    assert t.session.snapshot() == before and t.launcher.fouls == 0
    t.events({"event": "foul", "n": 3, "reason": "busy", "player": None})
    assert "still firing" in t.warnings[-1] and "FOUL" not in t.warnings[-1]
    t.events({"event": "foul", "n": 4, "reason": "not_armed", "player": None})
    assert "FOUL (ATK-26)" in t.warnings[-1] and t.launcher.fouls == 1


def test_a_card_pulled_out_of_a_jam_is_credited_to_who_pressed(tmp_path: Path) -> None:
    t = Table(tmp_path)  # Ann's turn: a normal turn's press (ATK-5)
    t.events(
        burst("Ann", 1, 0, 0, wanted=2),
        {"event": "fault", "code": "jam", "message": "...", "n": 1, "player": "Ann",
         "beam": "blocked"},
        {"event": "done", "player": "Ann"},
    )  # fmt: skip
    assert t.session.snapshot()["awaiting"]["by"] == "Bob"  # ATK-7: the press ended the turn
    t.events({"event": "stray", "cards": 1, "n": 1, "player": "Ann"})
    assert t.sizes() == {"Ann": 8, "Bob": 7, "Cy": 7}
    assert "1 more card came out after Ann's press: given to Ann (now 8" in t.notes[-1]
    assert t.session.snapshot()["awaiting"]["by"] == "Bob"  # nothing else changed
    t.session.undo()  # a credit is an ordinary, undoable table action
    assert t.sizes()["Ann"] == 7


def test_a_stray_card_for_nobody_asks_the_table(tmp_path: Path) -> None:
    t = Table(tmp_path)
    t.events({"event": "stray", "cards": 2, "n": None, "player": None})
    assert t.sizes() == {"Ann": 7, "Bob": 7, "Cy": 7}
    assert "2 cards came out" in t.warnings[-1] and "fix NAME N" in t.warnings[-1]


def test_atk22_no_card_and_a_clear_beam_with_an_empty_stock_is_empty_not_a_jam(
    tmp_path: Path,
) -> None:
    t = Table(tmp_path)
    stock = int(t.session.snapshot()["stock_size"])
    assert stock > 0
    # the firmware cannot tell a first cardless burst (beam clear) from a card stuck inside
    t.events(
        burst("Ann", 1, 0, 0, wanted=1),
        {"event": "fault", "code": "jam", "message": "...", "n": 1, "player": "Ann",
         "beam": "clear"},
    )  # fmt: skip
    warning = t.warnings[-1]
    assert "no card came out" in warning and "empty" in warning
    assert f"{stock} cards" in warning  # what the table counts inside
    t2 = Table(tmp_path / "b")
    t2.session.apply({"by": "Ann", "correct": {"Ann": 7 + stock}})  # the stock is all out
    assert t2.session.snapshot()["stock_size"] == 0
    t2.events(
        burst("Bob", 1, 0, 0, wanted=1),
        {"event": "fault", "code": "jam", "message": "...", "n": 1, "player": "Bob",
         "beam": "clear"},
    )  # fmt: skip
    assert "the launcher is empty" in t2.warnings[-1] and "ATK-22" in t2.warnings[-1]
    assert "launcher fault: empty" in t2.notes[-1]


def test_after_a_replug_the_table_names_who_it_armed_not_the_clients_stale_arming(
    tmp_path: Path,
) -> None:
    """The client re-arms what it last set (Ann, 1 press); while the cable was out the table
    moved on (Ann's press typed by hand, ATK-25), so the table re-arms for Bob at once and its
    message must say so, not "re-armed Ann"."""
    t = Table(tmp_path)
    assert t.launcher.armed == Arming("Ann", 1)
    t.link.armed = {"player": "Ann", "presses": 1, "mode": "random"}  # what the client kept
    t.launcher.connected = False
    t.session.apply({"by": "Ann", "press": True, "cards": 0})  # typed while unplugged
    t.events(
        {"event": "link", "state": "restored", "cause": "disconnected",
         "message": "the launcher is back: link restored in 1.0 s; re-armed Ann for 1 press",
         "summary": "the launcher is back: link restored in 1.0 s",
         "done": ["re-armed Ann for 1 press"]},
    )  # fmt: skip
    assert t.link.calls[-1] == ("arm", "Bob", 1, "random")
    assert t.launcher.armed == Arming("Bob", 1)
    note = t.notes[-1]
    assert "link restored" in note and "Ann" not in note, note
    assert "armed for Bob, 1 press" in note, note


def test_atk25_a_card_pulled_out_of_a_jam_is_logged_as_such_not_as_a_fix(tmp_path: Path) -> None:
    """Issue 22: the history tells a stray card from a typed 'fix'; resume replays it."""
    from unolaunch.commands.history import log_texts
    from unolaunch.table.session import Session

    t = Table(tmp_path)
    t.events(burst("Ann", 1, 0, 0), {"event": "stray", "cards": 1, "n": 1, "player": "Ann"})
    t.session.correct("Bob", 6)  # a typed fix, for comparison
    j = t.session.journal
    texts = log_texts(j.game(t.session.id), j.entries(t.session.id))
    stray = next(x for x in texts if "Ann now holds 8" in x)
    assert stray.startswith("launcher: ") and "jam" in stray and "fix" not in stray
    assert any(x.startswith("fix: Bob now holds 6") for x in texts)
    assert Session.resume(j, t.session.id).game.state_key() == t.session.game.state_key()
