"""Issue 33, items 1-3, in-process: the order of "disarm the launcher" and "record the move"
(the launcher is armed only for presses the journal owes, at every journal write: ATK-26),
a press a pulled cable cut short is a press made (ATK-25, ATK-7) and never asked twice, and
a full disk keeps the game in memory and stores it once, when space is back.

The every-crash-point proof with real processes and both boards is
tests/test_play_every_crash_point.py."""

from __future__ import annotations

import threading
import time
from pathlib import Path
from typing import Any

import pytest
from conftest import RunCli
from unolaunch.table.journal import Journal
from unolaunch.table.launcher import LinkedLauncher
from unolaunch.table.outcome import Outcome, words
from unolaunch.table.parse import Command, parse
from unolaunch.table.session import Arming, Session, arming_for, fresh_game


class ArmingLink:
    """A launcher client that keeps what the launcher is armed for, as the firmware does:
    ``arm`` replaces it, ``disarm`` clears it, a press counts it down."""

    def __init__(self) -> None:
        self.armed: Arming | None = None
        self.calls: list[tuple[Any, ...]] = []

    def arm(self, player: str, presses: int, mode: str = "random") -> None:
        self.calls.append(("arm", player, presses))
        self.armed = Arming(player, presses, mode)

    def disarm(self) -> None:
        self.calls.append(("disarm",))
        self.armed = None

    def press(self, player: str) -> bool:
        """The button pressed by ``player``: True if the launcher fires (it is armed for
        them), counting the arming down; False: a foul (ATK-26)."""
        a = self.armed
        if a is None or a.player != player:
            return False
        self.armed = Arming(a.player, a.presses - 1, a.mode) if a.presses > 1 else None
        return True


def covers(owed: Arming | None, armed: Arming | None) -> bool:
    """The test's own oracle of the arming promise: every press the launcher may fire
    (``armed``) is one the game owes (``owed``)."""
    if armed is None:
        return True
    return (
        owed is not None
        and (armed.player, armed.mode) == (owed.player, owed.mode)
        and armed.presses <= owed.presses
    )


def _table(tmp_path: Path) -> tuple[Session, ArmingLink, LinkedLauncher, list[str]]:
    journal = Journal.open(tmp_path)
    session = Session.start(journal, "attack", ["Ann", "Bob", "Cy"], {}, seed=3, dealer="Cy")
    link = ArmingLink()
    said: list[str] = []

    def notify(notice: Outcome | None, warning: Outcome | None) -> None:
        said.extend(words(o) for o in (notice, warning) if o is not None and o.kind != "clear")

    launcher = LinkedLauncher(link, session, notify)
    launcher.sync()
    return session, link, launcher, said


#: A scripted stretch of UNO Attack: (who, what) — a card or answer typed, or "press" (the
#: launcher's button, firing 1 card for whoever it is armed for).
SCRIPT: list[tuple[str, Any]] = [
    ("Cy", {"choose": {"top": "r5"}}),
    ("Ann", "press"),  # a normal turn's press (ATK-5)
    ("Bob", {"play": "r7"}),
    ("Cy", {"play": "rH2"}),  # ATK-11: Ann presses twice and loses her turn
    ("Ann", "press"),
    ("Ann", "press"),
    ("Bob", {"play": "rS"}),  # ATK-10: Cy is skipped; ATK-8: Bob may play one more
    ("Bob", {"play": "r3"}),
    ("Ann", {"play": "WH4", "color": "green"}),  # ATK-14: Bob presses four times
    ("Bob", "press"),
    ("Bob", "press"),
    ("Bob", "press"),
    ("Bob", "press"),
    ("Cy", {"play": "g2"}),
    ("Ann", {"play": "gR"}),  # ATK-9, ATK-8: a Reverse, then one more card or pass
    ("Ann", {"pass": True}),
    ("Cy", "press"),
]


def _run(session: Session, link: ArmingLink, launcher: LinkedLauncher) -> None:
    for who, what in SCRIPT:
        if what == "press":
            assert link.press(who), f"the launcher refused {who}'s owed press"
            launcher.handle({"event": "eject", "player": who, "cards": 1})
            continue
        action = {"by": who, **what}
        color = action.pop("color", None)
        session.apply(action)
        if color is not None:
            session.apply({"by": who, "choose": {"color": color}})
        launcher.sync()  # what the table does after each move (app.sync_launcher)


def test_issue33_item1_at_every_journal_write_the_launcher_is_armed_only_for_presses_owed_atk26(
    tmp_path: Path,
) -> None:
    """At the instant of each journal write — a crash right after it leaves the launcher as
    it is — the launcher's arming is covered by what the journal (as written) owes: a press
    made while the table is down fires only if the game owes it. Before issue 33 the move
    was recorded first and the launcher disarmed after: a crash in between left it armed
    for the player who had just played (the issue's 4 of 10 kills)."""
    session, link, launcher, _said = _table(tmp_path)
    journal = session.journal
    real = journal.append_many
    checked: list[tuple[Arming | None, Arming | None]] = []

    def append_many(game_id: int, items: list[tuple[str, dict[str, Any]]], **kw: Any) -> int:
        seq = real(game_id, items, **kw)
        # what a --resume would rebuild from the journal as it now is
        game = fresh_game(journal.game(game_id))
        for e in journal.entries(game_id):
            if e.kind == "action":
                game.apply({k: v for k, v in e.data.items() if k != "reason"})
        owed = arming_for(game)
        checked.append((owed, link.armed))
        assert covers(owed, link.armed), f"journal owes {owed}, launcher armed {link.armed}"
        return seq

    journal.append_many = append_many  # type: ignore[method-assign]
    _run(session, link, launcher)
    assert len(checked) >= len(SCRIPT)
    # the launcher was armed at many of those instants: the check is not vacuous
    assert sum(1 for _owed, armed in checked if armed is not None) >= 4
    assert session.snapshot()["awaiting"]["by"] == "Bob"  # the Reverse: play goes right


def test_issue33_item1_the_misfit_line_says_1_card_not_1_cards() -> None:
    one = words(Outcome("press_misfit", {"who": "Ann", "n": 1, "rule": "ATK-26"}))
    two = words(Outcome("press_misfit", {"who": "Ann", "n": 2, "rule": "ATK-26"}))
    assert "Ann's press (1 card) did not fit" in one
    assert "Ann's press (2 cards) did not fit" in two


def _lose_link_during(launcher: LinkedLauncher, burst: dict[str, Any]) -> None:
    """What the client reports when the cable is pulled during a burst, then wait for the
    table to have taken it in (it works on a thread of its own)."""
    before = set(threading.enumerate())
    launcher._on_link_event({"event": "link", "state": "lost", "burst": burst})
    for t in set(threading.enumerate()) - before:
        t.join(5)


def test_issue33_item2_a_press_cut_by_a_pulled_cable_is_made_not_owed_again_atk25_atk7(
    tmp_path: Path, run_cli: RunCli
) -> None:
    """The cable pulled during Ann's burst (the board loses power: its eject never comes).
    ATK-25: a press is the unit the rules speak in, and Ann pressed; ATK-7: her turn is
    over. The press is recorded (no card: the table is asked for them, 'fix Ann N') and the
    launcher, back, is armed for Bob — never for Ann's press again."""
    session, link, launcher, said = _table(tmp_path)
    session.apply({"by": "Cy", "choose": {"top": "r5"}})
    launcher.sync()
    assert link.armed == Arming("Ann", 1)
    link.press("Ann")
    press = {"event": "press", "player": "Ann", "owed": 0, "boot": 7, "seq": 4}
    _lose_link_during(launcher, press)
    assert any("unplugged while Ann's burst ran" in s for s in said), said
    snap = session.snapshot()
    assert snap["awaiting"]["by"] == "Bob"
    assert snap["hand_sizes"]["Ann"] == 7  # nothing guessed: the table counts the cards
    assert session.launcher_mark() == {"boot": 7, "seq": 4, "event": "press"}
    # the board comes back (a new boot): the table arms what the game awaits
    launcher._handle({"event": "link", "state": "restored", "message": "back"})
    assert link.armed == Arming("Bob", 1)
    assert ("arm", "Ann", 1) not in link.calls[link.calls.index(("arm", "Ann", 1)) + 1 :]
    history = run_cli("history", "1", "--data-dir", tmp_path).stdout
    assert "Ann presses the launcher: the cable was pulled during the burst" in history


def test_issue33_item2_a_cut_press_whose_eject_comes_after_all_credits_its_cards_once(
    tmp_path: Path,
) -> None:
    """A board that kept its power (a powered hub): its eject for the cut burst comes on
    reconnection. The press is recorded already: its cards go to Ann, no second press."""
    session, link, launcher, _said = _table(tmp_path)
    session.apply({"by": "Cy", "choose": {"top": "r5"}})
    launcher.sync()
    link.press("Ann")
    _lose_link_during(launcher, {"event": "press", "player": "Ann", "boot": 7, "seq": 4})
    launcher.connected = True
    launcher.handle({"event": "eject", "player": "Ann", "cards": 3, "boot": 7, "seq": 5})
    snap = session.snapshot()
    assert snap["hand_sizes"]["Ann"] == 10
    assert snap["awaiting"]["by"] == "Bob"
    presses = [e for e in session.entries() if e.kind == "action" and e.data.get("press")]
    assert len(presses) == 1


def test_issue33_item2_a_press_typed_by_hand_while_the_cable_was_out_is_not_doubled(
    tmp_path: Path,
) -> None:
    """The game moved on before the table took the lost link in (Ann's press typed by
    hand with its cards): the cut press is not recorded a second time."""
    session, _link, launcher, _said = _table(tmp_path)
    session.apply({"by": "Cy", "choose": {"top": "r5"}})
    launcher.sync()
    version = session.version
    session.apply({"by": "Ann", "press": True, "cards": 2})  # typed: 'press 2'
    launcher._lost({"event": "link", "state": "lost", "burst": {"player": "Ann"}}, version)
    presses = [e for e in session.entries() if e.kind == "action" and e.data.get("press")]
    assert len(presses) == 1
    assert session.snapshot()["hand_sizes"]["Ann"] == 9


def _fill_disk(session: Session) -> None:
    """The games file may not grow any more: SQLite's own 'database or disk is full'
    (SQLITE_FULL), as on a full disk, from the next page it needs."""
    db = session.journal._db
    pages = db.execute("PRAGMA page_count").fetchone()[0]
    db.execute(f"PRAGMA max_page_count={pages}")


def _free_disk(session: Session) -> None:
    session.journal._db.execute("PRAGMA max_page_count=1000000")


def test_issue33_item3_a_full_disk_keeps_the_game_in_memory_and_stores_it_once_later(
    tmp_path: Path,
) -> None:
    """Moves go on while the disk is full (kept in memory, said, the launcher disarmed);
    once space is back the next move stores them all, in order, once; a resume then gives
    the same game."""
    session, link, launcher, _said = _table(tmp_path)
    session.apply({"by": "Cy", "choose": {"top": "r5"}})
    launcher.sync()
    _fill_disk(session)
    moves = 0
    while not session.unsaved:  # presses until a write needs a page it may not have
        who = session.snapshot()["awaiting"]["by"]
        session.apply({"by": who, "press": True, "cards": 0})
        launcher.sync()
        moves += 1
        assert moves < 500
    stored = len(session.journal.entries(session.id))
    assert "is full" in (session.save_error or "")
    assert link.armed is None  # the journal owes no press it holds: disarmed (ATK-26)
    for _ in range(3):  # the game goes on in memory
        who = session.snapshot()["awaiting"]["by"]
        session.apply({"by": who, "press": True, "cards": 1})
        launcher.sync()
        assert link.armed is None
    assert len(session.journal.entries(session.id)) == stored  # nothing half-written
    assert not session.save()  # asked while still full: still kept, still said
    _free_disk(session)
    who = session.snapshot()["awaiting"]["by"]
    session.apply({"by": who, "play": "r9"})  # the next move stores what waited, first
    launcher.sync()
    assert session.unsaved == [] and session.save_error is None
    assert link.armed == session.arming() and link.armed is not None
    entries = session.journal.entries(session.id)
    assert len(entries) == stored + 5  # the 4 kept + this one: each once
    assert [e.seq for e in entries] == list(range(1, len(entries) + 1))
    again = Session.resume(session.journal, session.id)
    assert again.game.state_key() == session.game.state_key()


def test_issue33_item3_save_stores_what_waited_when_asked(tmp_path: Path) -> None:
    session, _link, launcher, _said = _table(tmp_path)
    session.apply({"by": "Cy", "choose": {"top": "r5"}})
    _fill_disk(session)
    while not session.unsaved:
        who = session.snapshot()["awaiting"]["by"]
        session.apply({"by": who, "press": True, "cards": 0})
    waiting = len(session.unsaved)
    stored = len(session.journal.entries(session.id))
    _free_disk(session)
    assert session.save()
    assert len(session.journal.entries(session.id)) == stored + waiting
    assert session.save()  # nothing left: nothing written twice
    assert len(session.journal.entries(session.id)) == stored + waiting
    assert Session.resume(session.journal, session.id).snapshot() == session.snapshot()
    del launcher


@pytest.mark.parametrize("line", ["save", "vista"])
def test_issue33_item3_save_is_a_table_command_in_both_languages(tmp_path: Path, line: str) -> None:
    session, _link, _launcher, _said = _table(tmp_path)
    assert parse(line, session.context()) == Command("save")


def test_issue33_item3_the_screen_says_what_to_do_and_save_stores_it(tmp_path: Path) -> None:
    """The table's screen while the disk is full: the one line of the full disk, that the
    game goes on in memory, how many changes wait and what to type; 'save' once space is
    back stores them and says so; quitting with changes unsaved never says "saved"."""
    import io

    from rich.console import Console
    from unolaunch.table.app import Table

    session, _link, launcher, _said = _table(tmp_path)
    session.apply({"by": "Cy", "choose": {"top": "r5"}})
    out = io.StringIO()
    table = Table(session, Console(file=out, width=200), read_line=lambda _p: "")
    table.launcher = launcher
    _fill_disk(session)
    while not session.unsaved:
        who = session.snapshot()["awaiting"]["by"]
        session.apply({"by": who, "press": True, "cards": 0})
    who = session.snapshot()["awaiting"]["by"]
    session.apply({"by": who, "press": True, "cards": 0})
    table.draw()
    screen = " ".join(out.getvalue().split())
    assert "is full" in screen and "free some space" in screen, screen
    assert "2 changes are not saved yet" in screen, screen
    assert "type 'save'" in screen, screen
    table.command(Command("save"))  # still full: nothing said saved
    assert "the game is saved" not in out.getvalue()
    _free_disk(session)
    table.command(Command("save"))
    assert "the game is saved" in out.getvalue()
    assert session.unsaved == [] and launcher.armed == session.arming()
    out.truncate(0)
    table.draw()
    assert "is full" not in out.getvalue()
    # full again, a change waiting, and the table quits (Ctrl-D): it says what is lost
    _fill_disk(session)
    while not session.unsaved:
        who = session.snapshot()["awaiting"]["by"]
        session.apply({"by": who, "press": True, "cards": 0})

    def ctrl_d(_prompt: str) -> str:
        raise EOFError

    quitting = io.StringIO()
    gone = Table(session, Console(file=quitting, width=200), read_line=ctrl_d)
    assert gone.run() == 1
    said = " ".join(quitting.getvalue().split())
    assert "Game 1 is saved" not in said and "1 change is not saved yet" in said, said


def test_issue33_a_cable_pulled_as_the_table_disarms_never_holds_the_game(tmp_path: Path) -> None:
    """The table arms and disarms the launcher holding the game's lock (the arming promise
    at every journal write, ATK-26), and the client used to reconnect inside a command cut
    by a pulled cable — up to its reconnect_timeout (30 s) with the game's lock held: the
    screen froze, and the lost burst's press, which needs that lock to be recorded, waited
    for the cable (a CI failure of the cable-pull test on rp2040: no word in 90 s). Now a
    command fails at once when the launcher is lost or being reconnected; the events thread
    reconnects, and the arming follows the game once it is back."""
    from unolaunch.table.launcher import connect

    journal = Journal.open(tmp_path)
    session = Session.start(journal, "attack", ["Ann", "Bob", "Cy"], {}, seed=3, dealer="Cy")
    said: list[str] = []

    def notify(notice: Outcome | None, warning: Outcome | None) -> None:
        said.extend(words(o) for o in (notice, warning) if o is not None and o.kind != "clear")

    launcher = connect("sim", session, notify)
    sim = launcher.sim
    assert sim is not None
    try:
        session.apply({"by": "Cy", "choose": {"top": "r5"}})
        launcher.sync()
        assert launcher.armed == Arming("Ann", 1, "random")
        moved = threading.Event()

        def move() -> None:  # Ann's card takes her press away: a disarm first
            session.apply({"by": "Ann", "play": "r7"})
            launcher.sync()
            moved.set()

        sim.unplug()
        threading.Thread(target=move, daemon=True).start()
        # (the client's reconnect_timeout is 30 s: 10 s tells a move that waited for the
        # cable from one that did not, whatever the load)
        assert moved.wait(10), "the move waited for the cable to come back"
        assert session.snapshot()["awaiting"]["by"] == "Bob"
        sim.replug()
        deadline = time.monotonic() + 60
        while launcher.armed != Arming("Bob", 1, "random") and time.monotonic() < deadline:
            time.sleep(0.05)
        assert launcher.armed == Arming("Bob", 1, "random"), said  # back, and following the game
        assert launcher.connected
    finally:
        launcher.close()
        journal.close()
