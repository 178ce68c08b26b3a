"""What a family sees is always the truth (issue 23, items 2 and 3), without a browser:
no colour of the last round before the start card, the dealer's load reminder (ATK-3) in
the state the pages show, UNO said late from a phone within COM-6's window, and a
resumed game's log and launcher counters rebuilt from the journal.
"""

from __future__ import annotations

import io
import json
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from rich.console import Console
from test_web_api import WebGame, _serve
from unolaunch.table.app import Table
from unolaunch.table.journal import Journal
from unolaunch.table.launcher import connect
from unolaunch.table.outcome import words
from unolaunch.table.session import Session
from unolaunch.web.front import TableFront
from unolaunch.web.server import WebServer


@pytest.fixture
def game(tmp_path: Path) -> Iterator[WebGame]:
    yield from _serve(tmp_path)


def _finish_round(game: WebGame) -> None:
    """Round 1 to its end: Ann goes out (a 'fix' at the terminal first), the others' hands
    reported as the fewest points they can be worth."""
    s = game.session
    game.ok({"by": "Cy", "choose": {"top": "r5"}})
    s.correct("Ann", 1)  # 'fix Ann 1' typed at the terminal
    game.ok({"by": "Ann", "play": "r7"})
    low = s.hand_value_range(7)[0]
    game.ok({"by": "Ann", "reveal": {"Bob": str(low), "Cy": str(low)}})


def test_item2_a_new_round_shows_no_colour_before_its_start_card(game: WebGame) -> None:
    _finish_round(game)
    assert game.state()["color"] == "red"  # round 1 ended on a red 7
    game.ok({"by": "Bob", "deal": True})
    st = game.state()
    assert st["round"] == 2 and st["top"] is None
    assert st["color"] is None  # not round 1's red
    game.ok({"by": "Ann", "choose": {"top": "g3"}})
    assert game.state()["color"] == "green"


def test_item3_the_dealers_load_reminder_reaches_the_pages_atk3(game: WebGame) -> None:
    st = game.state()
    assert st["reminder"] == "Cy: load the other 90 cards into the launcher (ATK-3)"
    assert st["reminder"] in game.table.hint()  # the terminal's words
    game.ok({"by": "Cy", "choose": {"top": "r5"}})
    assert game.state()["reminder"] is None


def test_item3_uno_said_late_from_the_phone_within_com6s_window(game: WebGame) -> None:
    s = game.session
    game.ok({"by": "Cy", "choose": {"top": "r5"}})
    s.correct("Ann", 2)
    game.ok({"by": "Ann", "play": "r7"})  # the card before her last, UNO not said
    st = game.state()
    assert st["uno_catchable"] == "Ann" and not st["players"][0]["uno"]
    status, reply = game.act({"by": "Bob", "uno": True})  # not Bob's to say
    assert status == 409 and reply["rule"] == "COM-6"
    reply = game.ok({"by": "Ann", "uno": True})  # COM-6: late, before anyone moved
    st = game.state()
    assert st["uno_catchable"] is None and st["players"][0]["uno"] is True
    assert game.act({"by": "Bob", "catch": "Ann"})[0] == 409  # nobody can catch her now
    assert words(game.table.log[-1]) == "Ann (web): Ann plays red 7 and says UNO"
    # the journal has the play with UNO, as the terminal's 'uno' leaves it
    assert game.journal_actions()[-1] == {"by": "Ann", "play": "r7", "uno": True}
    # a second late UNO, or one after the next player began, is refused
    assert game.act({"by": "Ann", "uno": True})[0] == 409
    s.correct("Bob", 2)
    game.ok({"by": "Bob", "play": "r8"})
    assert game.state()["uno_catchable"] == "Bob"
    game.ok({"by": "Cy", "press": True, "cards": 0})  # the next player began
    status, reply = game.act({"by": "Bob", "uno": True})
    assert status == 409 and "COM-6" in reply["error"]


def test_item2_a_resumed_game_keeps_its_log_and_launcher_counters(tmp_path: Path) -> None:
    """Presses fired by the simulated launcher and a foul, then the process ends: the
    resumed game's log and counters (presses, cards out, fouls) are as they were."""
    with Journal.open(tmp_path) as journal:
        session = Session.start(journal, "attack", ["Ann", "Bob", "Cy"], {}, seed=3, dealer="Cy")
        table = Table(session, console=Console(file=io.StringIO(), width=100))
        front = TableFront(table)
        table.launcher = launcher = connect("sim", session, front.notify)
        try:
            table.sync_launcher()
            launcher.virtual_press()  # before the start card: a foul (ATK-26)
            _until(lambda: launcher.fouls == 1, "the foul")
            session.apply({"by": "Cy", "choose": {"top": "r5"}})
            table.sync_launcher()
            for who in ("Ann", "Bob"):
                launcher.virtual_press()
                _until(
                    lambda who=who: any(
                        x.kind == "press" and x.args["who"] == who for x in table.log
                    ),
                    f"{who}'s press",
                )
            before = (launcher.presses, launcher.cards_out, launcher.fouls)
            log = [words(x) for x in table.log]
        finally:
            launcher.close()
            front.close()
        assert before[0] == 2 and before[2] == 1
    with Journal.open(tmp_path) as journal:
        session = Session.resume(journal, 1)
        table = Table(session, console=Console(file=io.StringIO(), width=100))
        front = TableFront(table)
        server = WebServer(front, "127.0.0.1", 0).start()
        table.launcher = launcher = connect("sim", session, front.notify)
        front.follow(launcher)
        try:
            table.sync_launcher()
            st = front.state()
            got = st["launcher"]
            assert (got["presses"], got["cards_out"], got["fouls"]) == before
            # the log goes on from where it was (in the journal's words)
            first = [x for x in log if " presses: " in x]  # the launcher's lines
            assert st["log"][:4] == [
                "foul: a press nobody owes",
                "start card red 5",
                *first,
            ], (st["log"], log)
            assert st["notice"] == st["log"][-1]
        finally:
            launcher.close()
            server.close()
            front.close()


def _until(check: object, what: str, timeout: float = 15) -> None:
    deadline = time.monotonic() + timeout
    while not check():  # type: ignore[operator]
        if time.monotonic() > deadline:
            raise AssertionError(f"no {what} within {timeout} s")
        time.sleep(0.05)


def test_item4_deal_says_what_it_did(game: WebGame) -> None:
    _finish_round(game)
    reply = game.ok({"by": "Bob", "deal": True})
    assert reply["effects"] == ["round 2 dealt: Ann deals"]  # not "done"
    assert words(game.table.log[-1]) == "Bob (web): round 2 dealt: Ann deals"


def test_item11_two_deal_taps_at_once_one_deals_the_other_is_told_who_did(
    game: WebGame,
) -> None:
    import threading

    _finish_round(game)
    replies: dict[str, tuple[int, dict[str, object]]] = {}

    def tap(name: str) -> None:
        replies[name] = game.act({"by": name, "deal": True})

    taps = [threading.Thread(target=tap, args=(n,)) for n in ("Bob", "Cy")]
    for t in taps:
        t.start()
    for t in taps:
        t.join()
    ok = [n for n, (status, _) in replies.items() if status == 200]
    assert len(ok) == 1, replies
    loser = "Cy" if ok == ["Bob"] else "Bob"
    status, reply = replies[loser]
    assert status == 409 and reply["error"] == f"{ok[0]} already dealt round 2"
    assert "COM-4" not in json.dumps(reply)
    kinds = [e.kind for e in game.session.journal.entries(game.session.id)]
    assert kinds.count("deal") == 1


def test_item10_the_state_has_each_rounds_winner_and_points(game: WebGame) -> None:
    assert game.state()["rounds"] == []
    _finish_round(game)
    st = game.state()
    assert st["rounds"] == [{"round": 1, "winner": "Ann", "points": st["round_points"]}]
    game.session.undo(1)  # the round's end taken back at the terminal
    assert game.state()["rounds"] == []
