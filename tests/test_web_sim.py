"""Phones and the simulated launcher (issue 13, ATK-25/26), without a browser: the
``press`` of a player page is the simulated launcher's button, armed by the table for
exactly the player who owes it; a press nobody owes is the firmware's foul.

The launcher is the real firmware in MicroPython (``--port sim``), reached through the
serial link as at the table; the web server serves the same session on 127.0.0.1.
"""

from __future__ import annotations

import io
import json
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console
from unolaunch.table.app import Table
from unolaunch.table.journal import Journal
from unolaunch.table.launcher import connect
from unolaunch.table.session import Session
from unolaunch.web.front import TableFront
from unolaunch.web.server import WebServer


class Served:
    def __init__(self, session: Session, server: WebServer, table: Table) -> None:
        self.session = session
        self.server = server
        self.table = table
        self.url = f"http://127.0.0.1:{server.port}/"

    def state(self) -> dict[str, Any]:
        with urllib.request.urlopen(self.url + "api/state", timeout=10) as r:
            result: dict[str, Any] = json.load(r)
            return result

    def act(self, action: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        req = urllib.request.Request(
            self.url + "api/action",
            data=json.dumps(action).encode(),
            headers={
                "Content-Type": "application/json",
                "Authorization": f"Bearer {self.server.keys.by_player[action['by']]}",
            },
        )
        try:
            with urllib.request.urlopen(req, timeout=10) as r:
                return r.status, json.load(r)
        except urllib.error.HTTPError as exc:
            return exc.code, json.load(exc)

    def wait(self, check: Any, what: str, timeout: float = 15) -> dict[str, Any]:
        deadline = time.monotonic() + timeout
        while True:
            s = self.state()
            if check(s):
                return s
            if time.monotonic() > deadline:
                raise AssertionError(f"no {what} within {timeout} s: {s}")
            time.sleep(0.05)

    def presses(self) -> list[dict[str, Any]]:
        entries = self.session.journal.entries(self.session.id)
        return [e.data for e in entries if "press" in e.data]


@pytest.fixture
def served(tmp_path: Path) -> Iterator[Served]:
    with Journal.open(tmp_path) as journal:
        session = Session.start(journal, "attack", ["Ann", "Bob", "Cy"], {}, seed=3, dealer="Cy")
        table = Table(session, console=Console(file=io.StringIO(), width=100))
        front = TableFront(table)
        server = WebServer(front, "127.0.0.1", 0).start()
        table.launcher = connect("sim", session, front.notify)
        front.follow(table.launcher)
        try:
            table.sync_launcher()
            yield Served(session, server, table)
        finally:
            table.launcher.close()
            server.close()


def test_presses_from_the_phones_atk26_foul_armed_player_only_and_cards_out(
    served: Served,
) -> None:
    s = served.state()
    assert s["launcher"]["kind"] == "sim" and s["launcher"]["armed"] is None
    # Before the start card nobody owes a press: the button is pressed, the firmware
    # refuses to fire and reports a foul; nothing is journaled.
    status, reply = served.act({"by": "Bob", "press": True})
    assert status == 202 and reply["armed"] is False
    s = served.wait(lambda s: s["launcher"]["fouls"] == 1, "foul")
    assert "FOUL (ATK-26)" in s["warning"]
    assert s["launcher"]["presses"] == 0 and s["fire"] is None and served.presses() == []
    assert served.act({"by": "Cy", "choose": {"top": "r5"}})[0] == 200
    s = served.wait(lambda s: s["launcher"]["armed"] is not None, "arming")
    assert s["launcher"]["armed"] == {"player": "Ann", "presses": 1, "mode": "random"}
    assert s["warning"] is None  # the next move clears the foul's warning
    inside = s["launcher"]["cards_inside"]
    # Armed for Ann: Bob's press is refused (a foul by the rules), the launcher untouched
    status, reply = served.act({"by": "Bob", "press": True})
    assert status == 409 and reply["rule"] == "ATK-26" and "armed for Ann" in reply["error"]
    time.sleep(0.3)
    assert served.state()["launcher"]["presses"] == 0
    # Ann's press fires: the cards that came out are Ann's, journaled with their count
    status, reply = served.act({"by": "Ann", "press": True})
    assert status == 202 and reply["armed"] is True
    s = served.wait(lambda s: s["fire"] is not None, "the launcher firing")
    cards = s["fire"]["cards"]
    assert s["fire"] == {"seq": 1, "player": "Ann", "cards": cards}
    assert served.presses() == [{"by": "Ann", "press": True, "cards": cards}]
    assert s["players"][0]["hand_size"] == 7 + cards
    assert s["launcher"]["cards_out"] == cards and s["launcher"]["presses"] == 1
    assert s["awaiting"]["by"] == "Bob"  # ATK-7: the press ended Ann's turn
    s = served.wait(lambda s: s["launcher"]["cards_inside"] == inside - cards, "the magazine")
    # a press typed with its count (the launcher out of order) goes in as typed
    assert served.act({"by": "Bob", "press": True, "cards": 2})[0] == 200
    assert served.presses()[-1] == {"by": "Bob", "press": True, "cards": 2}


def test_item1_a_card_typed_at_the_terminal_moves_the_launcher_line(served: Served) -> None:
    """Issue 23 item 1: the terminal applies a move, then re-arms the launcher (ATK-25). A
    page that asked for the state in between (the event stream does, at once) must not
    keep the old arming: the re-arming is published too."""
    assert served.act({"by": "Cy", "choose": {"top": "r5"}})[0] == 200
    s = served.wait(lambda s: s["launcher"]["armed"] is not None, "arming")
    assert s["launcher"]["armed"]["player"] == "Ann"
    served.session.apply({"by": "Ann", "play": "r7"})  # what Table.move does first
    assert served.state()["awaiting"]["by"] == "Bob"  # a page asks now: still Ann's arming
    served.table.sync_launcher()  # what Table.move does next
    s = served.wait(
        lambda s: (s["launcher"]["armed"] or {}).get("player") == "Bob", "Bob's arming", 5
    )
    assert s["launcher"]["armed"] == {"player": "Bob", "presses": 1, "mode": "random"}
    assert "armed for Bob" in s["launcher"]["status"]


def test_item4_a_phones_press_says_what_the_launcher_did_with_it(served: Served) -> None:
    """Issue 23 item 4: a foul is not a ✓ — the reply says what the launcher did (fired
    and how many cards, a foul, ignored); a press refused for another player's arming
    says that nothing was pressed, not that a foul was counted."""
    status, reply = served.act({"by": "Bob", "press": True})  # nobody owes a press
    assert status == 202 and reply["outcome"] == "foul", reply
    assert "did not fire" in reply["said"] and "ATK-26" in reply["said"]
    assert served.state()["launcher"]["fouls"] == 1
    assert served.act({"by": "Cy", "choose": {"top": "r5"}})[0] == 200
    served.wait(lambda s: s["launcher"]["armed"] is not None, "arming")
    status, reply = served.act({"by": "Bob", "press": True})
    assert status == 409 and reply["rule"] == "ATK-26"
    assert "nothing was pressed" in reply["error"] and "foul" not in reply["error"]
    assert served.state()["launcher"]["fouls"] == 1  # nothing counted
    status, reply = served.act({"by": "Ann", "press": True})
    assert status == 202 and reply["outcome"] == "fired", reply
    s = served.wait(lambda s: s["fire"] is not None, "the launcher firing")
    assert reply["cards"] == s["fire"]["cards"] and reply["said"].startswith("Ann presses: ")


def test_item10_a_phones_repeated_presses_press_once_each_reply_says_what_happened(
    served: Served,
) -> None:
    """Issue 34, item 10: ten presses from Ann's phone at once (a double tap, a phone's
    retries) while she owes one: several passed the "armed for me?" check before the
    simulated press happened, and the extra presses were credited to Bob and Cy, who never
    pressed. A phone's press is checked and made in one step, one at a time: exactly one
    press is Ann's, nobody else gets one, and every other request is told it was not
    pressed. Then, with nobody owing a press, a burst of presses: every reply that says
    "foul" is a foul the launcher counted and the journal kept."""
    from concurrent.futures import ThreadPoolExecutor

    assert served.act({"by": "Cy", "choose": {"top": "r5"}})[0] == 200
    served.wait(lambda s: (s["launcher"]["armed"] or {}).get("player") == "Ann", "Ann's arming")
    press: dict[str, Any] = {"by": "Ann", "press": True, "at": served.state()["at"]}
    with ThreadPoolExecutor(10) as pool:
        replies = list(pool.map(lambda _i: served.act(press), range(10)))
    pressed = [r for status, r in replies if status == 202]
    assert len(pressed) == 1, replies
    assert all((status == 409 and "nothing was pressed" in r["error"]) or r.get("stale")
               for status, r in replies if status != 202), replies  # fmt: skip
    s = served.wait(lambda s: s["fire"] is not None, "Ann's press")
    time.sleep(1.0)  # any press wrongly let through would fire for Bob by now
    assert [p["by"] for p in served.presses()] == ["Ann"], served.presses()
    assert s["launcher"]["fouls"] == 0

    # Bob now owes his turn's press; Cy, who owes nothing, presses again and again
    # (without 'at', as a script may): each reply says what became of that press.
    with ThreadPoolExecutor(6) as pool:
        replies = list(pool.map(lambda _i: served.act({"by": "Cy", "press": True}), range(6)))
    replies += [served.act({"by": "Cy", "press": True}) for _ in range(3)]
    said_foul = [r for status, r in replies if status == 202 and r["outcome"] == "foul"]
    refused = [r for status, r in replies if status == 409]
    assert len(said_foul) + len(refused) == len(replies), replies
    assert all("armed for Bob" in r["error"] for r in refused), refused
    assert said_foul == []  # armed for Bob: Cy's presses are refused, none is made
    assert [p["by"] for p in served.presses()] == ["Ann"]


def test_item10_every_foul_a_reply_announces_is_counted_and_journaled(served: Served) -> None:
    """Before the start card nobody owes a press: a burst of presses from a phone (at
    once, then one after the other). Each reply that says "foul" is one foul the launcher
    counted and one foul note in the journal; the others say nothing was pressed (it was
    40 replies saying foul for 29 fouls counted and 58 journal entries)."""
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(8) as pool:
        replies = list(pool.map(lambda _i: served.act({"by": "Bob", "press": True}), range(8)))
    replies += [served.act({"by": "Bob", "press": True}) for _ in range(3)]
    fouls = [r for status, r in replies if status == 202 and r["outcome"] == "foul"]
    others = [
        (status, r) for status, r in replies if not (status == 202 and r["outcome"] == "foul")
    ]
    assert all(status == 409 and "nothing was pressed" in r["error"] for status, r in others), (
        others
    )
    assert len(fouls) >= 3  # the ones one after the other
    s = served.wait(lambda s: s["launcher"]["fouls"] >= len(fouls), "the fouls counted")
    time.sleep(0.5)
    assert served.state()["launcher"]["fouls"] == len(fouls)
    entries = served.session.journal.entries(served.session.id)
    assert len([e for e in entries if e.kind == "note" and e.data.get("foul")]) == len(fouls)
    assert s["launcher"]["presses"] == 0 and served.presses() == []


def test_a_phones_press_between_a_move_and_the_launchers_arming_is_for_the_new_state(
    served: Served,
) -> None:
    """A move is recorded, then the launcher re-armed (ATK-25); a phone's press that comes
    in between (its page already shows the new state) was pressed on the old arming: Ann's
    press right after the start card was a foul (ATK-26) and she then owed a press she had
    made (a CI failure of the qps browser game, 'waited 20 s for a press', which re-pressed
    to get past it), and Bob's press right after his own card fired cards for him on
    Cy's turn. A phone's press is made on the arming of the state it was pressed at."""
    served.session.apply({"by": "Cy", "choose": {"top": "r5"}})  # recorded, not yet armed
    assert served.table.launcher.armed is None
    status, reply = served.act({"by": "Ann", "press": True, "at": served.state()["at"]})
    assert status == 202 and reply["armed"] is True and reply["outcome"] == "fired", reply
    s = served.wait(lambda s: s["fire"] is not None, "Ann's press")
    assert s["launcher"]["fouls"] == 0 and [p["by"] for p in served.presses()] == ["Ann"]
    assert s["awaiting"]["by"] == "Bob"  # ATK-7: the press ended Ann's turn

    served.table.sync_launcher()
    assert served.table.launcher.armed.player == "Bob"
    served.session.apply({"by": "Bob", "play": "r7"})
    # the play took Bob's press away: disarmed before it was recorded (issue 33), not yet
    # armed for Cy
    assert served.table.launcher.armed is None
    status, reply = served.act({"by": "Bob", "press": True, "at": served.state()["at"]})
    assert status == 409 and reply["rule"] == "ATK-26", reply  # Cy's now: nothing pressed
    time.sleep(0.5)
    assert [p["by"] for p in served.presses()] == ["Ann"]
    assert served.state()["launcher"]["presses"] == 1
