"""Issue 34, "Table truth 3": the terminal, the phones and the launcher act at once, and
the record stays right. Each numbered fault of the issue, through the terminal in a
pseudo-terminal (``play --web``, phones as HTTP requests) where it happens there.

The prompt that follows the game (item 1) is tested in a real terminal (tmux):
``test_table_tmux.py``; the browser's items: ``test_web_browser_truth3.py``; the phones'
repeated presses (item 10): ``test_web_sim.py``.
"""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from collections.abc import Callable
from pathlib import Path
from typing import Any

from table_pty import Player, start_web_play
from unolaunch.table.journal import Journal

PLAYERS = ("Ann", "Bob", "Cy")


def post(url: str, link: str, action: dict[str, Any], lang: str | None = None) -> tuple[int, Any]:
    """A phone's action (its secret from its join ``link``); the status and the reply."""
    query = f"?lang={lang}" if lang else ""
    req = urllib.request.Request(
        url + "api/action" + query,
        data=json.dumps(action).encode(),
        headers={
            "Content-Type": "application/json",
            "Authorization": "Bearer " + link.rsplit("/p/", 1)[1],
        },
    )
    try:
        with urllib.request.urlopen(req, timeout=20) as r:
            return r.status, json.load(r)
    except urllib.error.HTTPError as exc:
        return exc.code, json.load(exc)


def get_state(url: str, lang: str | None = None) -> dict[str, Any]:
    """``/api/state`` (in ``lang``, else the game's language)."""
    query = f"?lang={lang}" if lang else ""
    with urllib.request.urlopen(url + "api/state" + query, timeout=20) as r:
        state: dict[str, Any] = json.load(r)
        return state


def line_after(p: Player, head: str) -> str:
    """The rest of the terminal's line that begins with ``head``."""
    p.expect(head)
    return head + str(p.child.readline()).rstrip()


def test_item4_each_screen_says_a_phones_move_in_its_own_language(tmp_path: Path) -> None:
    """A game in Icelandic, Ann's phone in English: the terminal's line of her move is
    Icelandic through and through (it read "Ann (vefur): Ann plays gult 5": the engine's
    words made in the phone's language, the card named in the game's), her phone's log is
    English, the table view's Icelandic; and the other way round."""
    p, url, links = start_web_play(tmp_path / "data", PLAYERS, "Cy", "--lang", "is")
    try:
        p.at("Cy> ")
        assert post(url, links["Cy"], {"by": "Cy", "choose": {"top": "y3"}}, "en")[0] == 200
        said = line_after(p, "Cy (vefur): ")
        assert "byrjunarspil gult 3" in said and "start card" not in said, said
        p.at("Ann> ")
        status, reply = post(url, links["Ann"], {"by": "Ann", "play": "y5"}, "en")
        assert status == 200 and reply["effects"] == ["Ann plays yellow 5"], reply
        said = line_after(p, "Ann (vefur): ")
        assert said == icelandic_play("Ann", "y5"), said
        english, icelandic = get_state(url, "en"), get_state(url)
        assert english["notice"] == "Ann (web): Ann plays yellow 5", english["notice"]
        assert icelandic["notice"] == icelandic_play("Ann", "y5"), icelandic["notice"]
        assert english["log"][-2:] == ["Cy (web): start card yellow 3", english["notice"]]
        # an Icelandic phone in this Icelandic game, and Bob's English move after it
        p.at("Bob> ")
        assert post(url, links["Bob"], {"by": "Bob", "play": "y7"}, "is")[0] == 200
        assert line_after(p, "Bob (vefur): ") == icelandic_play("Bob", "y7")
        assert get_state(url, "en")["notice"] == "Bob (web): Bob plays yellow 7"
    finally:
        p.close()


def icelandic_play(who: str, card: str) -> str:
    """The line of a phone's play in Icelandic, from the catalog ("Ann (vefur): Ann
    leggur út gult 5")."""
    from unolaunch.i18n import _, use
    from unolaunch.table.screen import card_name

    with use("is"):
        play = _("{who} plays {card}").format(who=who, card=card_name(card))
        line = _("{player} (web): {what}").format(player=who, what=play)
    assert "gult" in line and "plays" not in line, line
    return line


def _stock_expected(state: dict[str, Any], pile: int) -> int:
    """The stock by the record: the deck, less the cards in hands and on the pile."""
    from unolaunch.cards import deck_composition

    deck = sum(deck_composition(state["variant"]).values())
    return deck - sum(p["hand_size"] for p in state["players"]) - pile


def test_item2_an_item_box_from_a_phone_takes_its_card_off_the_stock_mk13(tmp_path: Path) -> None:
    """MK-13: the Item Box turns the top card of the stock. From a phone the turned card
    comes as a step of its own (``choose.turned``); the engine took it off the stock only
    when it came with the play (the terminal's ``item box g7``). Two Item Boxes from Ann's
    phone: the stock is the record's (the deck less the hands and the pile), and so after
    ``--resume``. Item 8 on the way: after a draw the prompt says only the drawn card may
    be played (MK-9)."""
    data = tmp_path / "data"
    p, url, links = start_web_play(data, PLAYERS, "Cy", variant="mario-kart")
    try:
        p.at("Cy> ")
        assert post(url, links["Cy"], {"by": "Cy", "choose": {"top": "r5"}})[0] == 200
        for turned in ("r3", "b4"):  # MK-14 Mushroom, MK-17 Lightning: Ann plays again
            assert post(url, links["Ann"], {"by": "Ann", "play": "WIB"})[0] == 200
            state = get_state(url)
            assert state["awaiting"]["choice"] == "turned" and state["color"] is None  # item 3
            status, reply = post(url, links["Ann"], {"by": "Ann", "choose": {"turned": turned}})
            assert status == 200, reply
        state = get_state(url)
        pile = 5  # r5, the Item Box, r3, the Item Box, b4
        assert state["stock_size"] == _stock_expected(state, pile), state["stock_size"]
        # the line above the screen (its "  · "), not the screen's own last-notice line: the
        # terminal draws each phone's move in turn, after both are in the log, so the screen
        # drawn for the first Item Box already shows the second one's words
        p.expect("  · Ann (web): the Item Box turns blue 4: Lightning")
        p.type("Ann> ", "draw")  # item 8 (MK-9): one card, then that card or 'pass'
        hint = p.at("Ann> ")
        assert "Ann: play the card just drawn, if it can be played, or 'pass' (MK-9)" in hint
        assert "play one more card" not in hint
        p.type("Ann> ", "quit")
        p.child.expect("Game 1 is saved")
    finally:
        p.close()
    resumed = p.state()  # what --resume replays
    assert resumed["stock_size"] == _stock_expected(state, pile) - 1  # and Ann's draw


def test_item8_after_a_draw_only_the_drawn_card_may_be_played_pp7_and_item9(
    tmp_path: Path,
) -> None:
    """PP-7: after a draw the prompt offers the drawn card or 'pass' (it said "play one
    more card"). Item 9: a late UNO shows in ``history`` as UNO, not as an undo; the
    ``quit`` hint names the data folder the game lives in."""
    data = tmp_path / "data"
    p = Player(data, "play", "--variant", "pocket-pizza", "--players", "Ann,Bob", "--dealer", "Bob")
    try:
        p.type("Bob> ", "r5")
        p.type("Ann> ", "drew one")
        hint = p.at("Ann> ")
        assert "Ann: play the card just drawn, if it can be played, or 'pass' (PP-7)" in hint
        p.type("Ann> ", "pass")
        p.type("Bob> ", "fix Bob 2")
        p.type("Bob> ", "r7")  # his second-to-last card, UNO not said...
        p.type("Ann> ", "uno")  # ...said just after it (COM-6): Bob's
        p.expect("UNO!")
        p.type("Ann> ", "quit")
        p.expect("Game 1 is saved. Continue it with: ")
        hint = str(p.child.readline()).strip()
        assert hint == f"unolaunch play --resume 1 --data-dir {data}", hint
    finally:
        p.close()
    out = run_cli("history", "1", "--data-dir", str(data))
    assert "Bob says UNO just after the card (COM-6)" in out
    assert "undo" not in out, out


def run_cli(*args: str) -> str:
    """``unolaunch ARGS``: its standard output."""
    import subprocess
    import sys

    from conftest import cli_env

    done = subprocess.run(
        [sys.executable, "-m", "unolaunch", *args],
        env=cli_env(),
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    return done.stdout


def test_item5_item6_the_simulated_launcher_holds_the_games_stock_and_resumes_quietly(
    tmp_path: Path,
) -> None:
    """Item 5: ``r5``, five presses, ``fix Bob 12``: the simulated launcher said 81 cards
    inside while the game's stock was 76 (its own count, which 'fix' did not move; resume
    reloaded it from the stock): one count, the game's. Item 6: a ``--resume`` with
    nothing done meanwhile draws the board once, warns of nothing, and adds no "the
    launcher restarted" note to ``history`` (the simulator is this process's own)."""
    import re

    data = tmp_path / "data"
    game = ("--variant", "attack", "--players", "Ann,Bob,Cy", "--dealer", "Cy", "--port", "sim")
    p = Player(data, "play", *game, timeout=60)
    try:
        p.type("Cy> ", "r5")
        for who in ("Ann", "Bob", "Cy", "Ann", "Bob"):  # each presses on their turn
            p.type(f"{who}> ", "press")
            p.expect(f"{who} presses: ")
        p.type("Cy> ", "fix Bob 12")
        screen = p.expect("Cy> ")
        p._at = "Cy> "
        inside = [int(n) for n in re.findall(r"(\d+) cards? inside", screen)]
        stock = p.state()["stock_size"]
        assert inside[-1] == stock, (inside, stock)
        p.type("Cy> ", "quit")
        p.child.expect("Game 1 is saved")
    finally:
        p.close()
    for _again in range(2):
        q = Player(data, "play", "--resume", timeout=60)
        try:
            first = q.at("Cy> ")
            assert first.count("╭─") == 1, first  # one board, with its launcher line
            assert "⚠" not in first, first
            assert [int(n) for n in re.findall(r"(\d+) cards? inside", first)] == [stock]
        finally:
            q.close()
    out = run_cli("history", "1", "--data-dir", str(data))
    assert "restarted" not in out, out


def test_item11_a_press_after_a_skip_is_the_launchers_foul_as_the_readme_says(
    tmp_path: Path,
) -> None:
    """README (and docs/play.md) show a press after a Skip as a foul: with a launcher the
    button is pressed and the launcher, disarmed, does not fire (ATK-26). The table
    refused it instead, saying "(0 cards)" nobody typed. With a working launcher the
    table does not suggest 'press N' either (it would refuse it: ATK-25)."""
    data = tmp_path / "data"
    game = ("--variant", "attack", "--players", "Ann,Bob,Cy", "--dealer", "Cy", "--port", "sim")
    p = Player(data, "play", *game, timeout=60)
    try:
        p.type("Cy> ", "r5")
        p.refused("Ann> ", "press 3", "ATK-25")  # the launcher counts its cards itself
        p.refused("Ann> ", "draw 2", "did you mean 'hit 2' (ATK-11)?")
        assert "press 2" not in p.transcript[-1], p.transcript[-1]
        p.refused("Ann> ", "draw", "type 'press' and press its button")
        p.type("Ann> ", "red skip")  # ATK-8: Ann may play one more card, or pass
        p.type("Ann> ", "press")
        said = p.expect("foul: a press nobody owes")
        assert "(0 cards)" not in said and "✗" not in said, said
        p.expect("FOUL (ATK-26)")
    finally:
        p.close()
    with Journal.open(data) as journal:
        notes = [e.data for e in journal.entries(1) if e.kind == "note" and e.data.get("foul")]
    assert len(notes) == 1 and notes[0]["outcome"] == {"outcome": "foul", "args": {}}


# ----------------------------------------------------------------- (b) versioned lines
def _table_with_phones(tmp_path: Path, lines: list[Callable[[], str]]) -> tuple[Any, Any, str]:
    """A table whose terminal types ``lines`` (each called when its prompt is shown: it
    may let a phone move first) and a web front for the phones; returns (table, front,
    the terminal's output)."""
    import io

    from rich.console import Console
    from unolaunch.table.app import Table
    from unolaunch.table.session import Session
    from unolaunch.web.front import TableFront

    journal = Journal.open(tmp_path)
    session = Session.start(journal, "attack", list(PLAYERS), {}, seed=3, dealer="Cy")
    out = io.StringIO()
    todo = list(lines)

    def read_line(prompt: str) -> str:
        if not todo:
            raise EOFError
        return todo.pop(0)()

    table = Table(session, Console(file=out, width=100), read_line=read_line)
    front = TableFront(table)
    return table, front, out


def test_b_a_line_typed_before_a_phone_moved_the_game_on_is_refused_not_credited(
    tmp_path: Path,
) -> None:
    """Item 1 as it happened: Ann's prompt was up, Ann typed ``r9`` while her phone played
    ``r7`` — the line was then credited to Bob (whose turn it had become). A line carries
    the version it was typed against: refused, the new state shown, nothing recorded."""
    front_box: list[Any] = []

    def phone_then(line: str) -> Callable[[], str]:
        def typed() -> str:
            status, reply = front_box[0].act("Ann", {"by": "Ann", "play": "r7"})
            assert status == 200, reply
            return line

        return typed

    table, front, out = _table_with_phones(tmp_path, [lambda: "r5", phone_then("r9"), lambda: "r2"])
    front_box.append(front)
    table.run()
    with Journal.open(tmp_path) as journal:
        actions = [e.data for e in journal.entries(1) if e.kind == "action"]
    assert actions == [
        {"by": "Cy", "choose": {"top": "r5"}},
        {"by": "Ann", "play": "r7"},  # from her phone
        {"by": "Bob", "play": "r2"},  # typed at Bob's prompt; 'r9' was not taken
    ]
    text = out.getvalue()
    assert "✗ 'r9': the game moved on before this was taken" in text
    assert "nothing was done with it; now Bob is to move" in text
    front.close()


def test_b_a_phones_move_made_before_the_game_moved_on_is_refused(tmp_path: Path) -> None:
    """A phone's move carries the state's ``at``: made at an old one, it is refused (409,
    ``stale``, the version now) and nothing is recorded; the pages send it."""
    table, front, _out = _table_with_phones(tmp_path, [])
    s = table.session
    assert front.act("Cy", {"by": "Cy", "choose": {"top": "r5"}})[0] == 200
    at = front.state()["at"]
    s.apply({"by": "Ann", "play": "r7"})  # typed at the terminal meanwhile
    status, reply = front.act("Ann", {"by": "Ann", "play": "r3", "at": at})
    assert status == 409 and reply["stale"] is True and reply["at"] == at + 1, reply
    assert len([e for e in s.journal.entries(s.id) if e.kind == "action"]) == 2
    status, reply = front.act("Bob", {"by": "Bob", "play": "r3", "at": at + 1})
    assert status == 200, reply
    assert front.act("Cy", {"by": "Cy", "play": "r4", "at": "x"})[0] == 400
    front.close()
