"""Issue 34, "Table truth 3", where it happens in the browser (Debian's chromium driven by
Playwright): a phone's Wild Item Box (item 3), a phone after the server is back (item 9),
the table view's launcher line before the start card (item 7).
"""

from __future__ import annotations

import signal
import socket
from pathlib import Path
from typing import Any

from table_pty import Player, start_web_play
from test_table_truth3 import get_state, post
from test_web_browser_truth import chromium  # noqa: F401  (the fixture)

PLAYERS = ("Ann", "Bob", "Cy")


def free_port() -> int:
    """A port nobody listens on now (for a server that is started twice on it)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_item3_item9_a_wild_item_box_from_a_phone_and_the_phone_after_a_restart(
    tmp_path: Path,
    chromium: Any,  # noqa: F811  (the fixture imported above)
) -> None:
    """Item 3 (MK-13): the phone asked for a colour before a Wild Item Box (it names none:
    the card it turns up decides) and showed the colour before it while the card was
    asked for. Item 9: after the server was gone (a crash) a phone kept "no connection"
    once it was back (``--resume`` on the same port)."""
    from playwright.sync_api import expect

    data, port = tmp_path / "data", free_port()
    p, url, links = start_web_play(data, PLAYERS, "Cy", variant="mario-kart", web=str(port))
    phones = chromium.new_context(
        viewport={"width": 390, "height": 844}, has_touch=True, is_mobile=True
    )
    phones.set_default_timeout(20_000)
    try:
        p.at("Cy> ")
        assert post(url, links["Cy"], {"by": "Cy", "choose": {"top": "r5"}})[0] == 200
        ann = phones.new_page()
        ann.goto(links["Ann"])
        expect(ann.locator("#me")).to_have_text("Ann")
        expect(ann.locator("#color")).to_contain_text("RED")
        ann.click("[data-tab=W]")
        ann.click("[data-card=WIB]")
        expect(ann.locator("#go")).to_be_enabled()  # nothing more to choose
        expect(ann.locator("[data-colour]")).to_have_count(0)  # no colour asked
        ann.click("#go")
        expect(ann.locator("#actions .ask")).to_contain_text("Which card did the Item Box turn")
        expect(ann.locator("#color")).to_have_text("—")  # no colour to match until it is told
        assert get_state(url)["color"] is None
        ann.click("[data-tab=g]")
        ann.click("[data-card=g7]")  # MK-16 Green Shell: Ann chooses who draws one
        ann.click("#go")
        expect(ann.locator("[data-target=Bob]")).to_be_visible()
        expect(ann.locator("#color")).to_contain_text("GREEN")

        p.child.kill(signal.SIGKILL)  # the table's laptop crashes
        p.child.close()
        ann.click("[data-target=Bob]")
        expect(ann.locator("#message")).to_contain_text("no connection to the table")
        q = Player(data, "play", "--resume", "--web", str(port), timeout=60)
        try:
            q.at("Ann> ")
            expect(ann.locator("#live")).to_have_text("live")  # the page reconnected
            expect(ann.locator("#message")).to_be_hidden()  # and says so: no stale message
            ann.click("[data-target=Bob]")  # the choice, made again, is taken
            expect(ann.locator("#message")).to_contain_text("✓")
        finally:
            q.close()
    finally:
        phones.close()
        p.close()


def test_item7_before_the_start_card_the_table_view_counts_nothing_inside(
    tmp_path: Path,
    chromium: Any,  # noqa: F811  (the fixture imported above)
) -> None:
    """ATK-3: before the start card the table view said "load the other 90" beside a
    launcher line of "91 cards inside" (the last count; the players load the launcher
    once the start card is turned up). It now says no count until then, and 90 after."""
    from playwright.sync_api import expect

    p, url, _links = start_web_play(tmp_path / "data", PLAYERS, "Cy", "--port", "sim")
    tv = chromium.new_context(viewport={"width": 1920, "height": 1080})
    tv.set_default_timeout(20_000)
    try:
        p.at("Cy> ")
        table = tv.new_page()
        table.goto(url)
        expect(table.locator("#live")).to_have_text("live")
        expect(table.locator("#reminder")).to_contain_text("load the other 90 cards")
        expect(table.locator("#launcher")).to_contain_text("disarmed")
        expect(table.locator("#launcher .inside")).to_have_count(0)
        assert "inside" not in get_state(url)["launcher"]["status"]
        p.type("Cy> ", "r5")
        expect(table.locator("#launcher .inside")).to_have_text("90 cards inside")
        expect(table.locator("#reminder")).to_be_hidden()
    finally:
        tv.close()
        p.close()
