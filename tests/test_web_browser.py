"""The game in a real browser (issue 13): Debian's chromium driven by Playwright.

``unolaunch play --port sim --web 0`` runs in a pseudo-terminal (the simulated launcher is
the real firmware); one chromium opens the table view and the three players' join links.
The players play from their pages: a press of the launcher's button nobody owes (a foul,
ATK-26), the dealer's start card, presses until one fires cards, a wild, a refused card,
the round's end reported from the winner's page and the game's end; the table view
follows each change without a reload; the terminal, ``--resume`` and ``history`` agree.
A screenshot of the table view is saved in ``build/test-artifacts/``.

Needs chromium (``apt-get install -y chromium``; .ci/run installs it) and the Python
package ``playwright`` (in the test extra; its own browser download is never used).
Without them the test is skipped here and fails under ``CI=true``.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from conftest import cli_env
from table_pty import start_web_play

ROOT = Path(__file__).resolve().parent.parent
ARTIFACTS = ROOT / "build" / "test-artifacts"
CHROMIUM_FLAGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def chromium_path() -> str:
    """Debian's chromium, else skip (fail under CI=true) saying how to install it."""
    path = os.environ.get("UNOLAUNCH_CHROMIUM") or shutil.which("chromium")
    path = path or shutil.which("chromium-browser")
    missing = []
    if not path:
        missing.append("chromium (Debian/Ubuntu: apt-get install -y chromium)")
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        missing.append("playwright (pip install -e '.[test]')")
    if missing:
        message = "the browser test needs " + " and ".join(missing)
        if os.environ.get("CI") == "true":
            pytest.fail(message)
        pytest.skip(message)
    assert path is not None
    return path


@pytest.fixture
def browser(tmp_path: Path) -> Iterator[Any]:
    """A fresh headless chromium profile (Playwright, the system's browser)."""
    path = chromium_path()
    os.environ.setdefault("PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD", "1")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        context = pw.chromium.launch_persistent_context(
            str(tmp_path / "profile"),
            executable_path=path,
            headless=True,
            args=CHROMIUM_FLAGS,
            viewport={"width": 1280, "height": 860},
        )
        context.set_default_timeout(20_000)
        # and the same for expect(): its own default, 5 s, is short for a loaded machine
        from playwright.sync_api import expect

        expect.set_options(timeout=20_000)
        try:
            yield context
        finally:
            context.close()


def _state(url: str) -> dict[str, Any]:
    with urllib.request.urlopen(url + "api/state", timeout=10) as r:
        result: dict[str, Any] = json.load(r)
        return result


def _wait(url: str, check: Any, what: str, timeout: float = 20) -> dict[str, Any]:
    deadline = time.monotonic() + timeout
    while True:
        s = _state(url)
        if check(s):
            return s
        if time.monotonic() > deadline:
            raise AssertionError(f"waited {timeout} s for {what}; state: {s}")
        time.sleep(0.05)


def test_three_players_and_the_table_play_uno_attack_in_chromium(
    tmp_path: Path, browser: Any
) -> None:
    from playwright.sync_api import expect

    p, url, links = start_web_play(
        tmp_path / "data", ("Ann", "Bob", "Cy"), "Cy", "--target", "40", "--port", "sim"
    )
    try:
        p.at("Cy> ")

        errors: list[str] = []  # console errors of any page: CSP violations, JS errors
        browser.on(
            "page",
            lambda page: page.on(
                "console", lambda m: errors.append(m.text) if m.type == "error" else None
            ),
        )
        table = browser.new_page()
        table.goto(url)
        expect(table.locator("#live")).to_have_text("live")
        table.evaluate("window.stillTheSamePage = true")
        pages = {}
        for name, link in links.items():
            pages[name] = browser.new_page()
            pages[name].goto(link)
            expect(pages[name].locator("#me")).to_have_text(name)
        expect(pages["Cy"].locator("#status")).to_contain_text("Your move: turn up the start")
        expect(pages["Ann"].locator("#status")).to_contain_text("Waiting for Cy")

        # ATK-26: Bob presses the launcher's button before the start card: nobody owes a
        # press, the launcher does not fire, the table view shows the foul.
        pages["Bob"].click("#foul")  # behind a question (issue 23 item 11)
        pages["Bob"].click("#foul-yes")
        expect(pages["Bob"].locator("#message")).to_contain_text("⚠ Foul")  # not a ✓
        expect(table.locator("#warning")).to_contain_text("FOUL (ATK-26)")
        expect(table.locator("#launcher")).to_contain_text("0 presses · 0 cards out · 1 foul")
        assert _state(url)["fire"] is None  # nothing came out

        # COM-4: Cy turns up the start card from the card picker.
        cy = pages["Cy"]
        cy.click("[data-tab=r]")
        cy.click("[data-card=r5]")
        cy.click("#go")
        expect(table.locator("#top")).to_have_attribute("data-code", "r5")
        expect(table.locator("#color")).to_have_text("● RED")
        expect(table.locator("#who")).to_have_text("▶ Ann")
        expect(table.locator("#warning")).to_be_hidden()

        # ATK-5/ATK-25: presses from the players' pages until one fires cards.
        fired = None
        for _ in range(15):
            s = _state(url)
            who = s["awaiting"]["by"]
            seq = (s["fire"] or {}).get("seq", 0)
            size = next(x["hand_size"] for x in s["players"] if x["name"] == who)
            # the page shows the state read (a press carries it: one made at an older one
            # is refused as stale, nothing pressed)
            pages[who].wait_for_function(
                "v => Number(document.body.dataset.version) >= v", arg=s["version"]
            )
            pages[who].click("#press")
            s = _wait(url, lambda s, seq=seq: (s["fire"] or {}).get("seq", 0) > seq, "a press")
            fire = s["fire"]
            assert fire["player"] == who
            mine = next(x for x in s["players"] if x["name"] == who)
            assert mine["hand_size"] == size + fire["cards"]
            if fire["cards"] > 0:
                fired = (who, fire["cards"], mine["hand_size"])
                break
        assert fired is not None, "no press fired a card in 15 presses"
        who, cards, size = fired
        box = table.locator(f".player[data-player={who}] .count")
        expect(box).to_have_text(str(size))  # the table view follows, without a reload
        out = "1 card out" if cards == 1 else f"{cards} cards out"  # (the page's plural)
        expect(table.locator("#launcher")).to_contain_text(out)

        # COM-1: the player whose turn it is plays a wild and names blue.
        s = _state(url)
        player = s["awaiting"]["by"]
        page = pages[player]
        page.click("[data-tab=W]")
        page.click("[data-card=W]")
        expect(page.locator("#go")).to_be_disabled()  # the colour is not named yet
        page.click("[data-colour=blue]")
        page.click("#go")
        expect(table.locator("#top")).to_have_attribute("data-code", "W")
        expect(table.locator("#color")).to_have_text("◆ BLUE")

        # COM-2: the next player's red 3 on a blue wild is refused with the terminal's
        # message, and nothing changes.
        s = _state(url)
        nxt = s["awaiting"]["by"]
        entries = p.entries()
        page = pages[nxt]
        page.click("[data-tab=r]")
        expect(page.locator("[data-card=r3]")).to_have_class(re.compile(r"\bunplayable\b"))
        page.click("[data-card=r3]")
        page.click("#go")
        expect(page.locator("#message")).to_contain_text("✗ ")
        expect(page.locator("#message .rule")).to_have_text("COM-2")  # apart, small
        expect(page.locator("#message")).to_contain_text("the game is unchanged")
        assert p.entries() == entries
        game = ("top", "color", "players", "awaiting", "scores")
        assert {k: _state(url)[k] for k in game} == {k: s[k] for k in game}
        # only the awaited player has moves; the others wait
        for name, other in pages.items():
            if name != nxt:
                expect(other.locator("#go, #press")).to_have_count(0)
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        table.screenshot(path=str(ARTIFACTS / "web-table-view.png"), full_page=True)

        # The terminal still works: 'fix' (a table correction) leaves nxt one card; nxt
        # plays it from the phone and reports the hands left; the target is reached.
        p.type(f"{nxt}> ", f"fix {nxt} 1")
        expect(table.locator(f".player[data-player={nxt}] .count")).to_have_text("1")
        page.click("[data-tab=b]")
        page.click("[data-card=b2]")
        page.click("#go")
        expect(page.locator("form.reveal")).to_be_visible()
        # COM-8: totals that these hand sizes can be worth (ATK-1: 30 + 2 a card)
        sizes = {x["name"]: x["hand_size"] for x in _state(url)["players"] if x["name"] != nxt}
        points = {n: 30 + 2 * k for n, k in sizes.items()}
        for name, total in points.items():
            page.fill(f"form.reveal input[name={name}]", str(total))
        page.click("form.reveal button")
        expect(page.locator("#message")).to_contain_text(f"✓ {nxt} wins the round and scores")
        won = sum(points.values())  # ATK-23: the others' cards score for the winner
        expect(table.locator("#banner")).to_contain_text(f"{nxt} wins the game with {won} points")
        assert table.evaluate("window.stillTheSamePage") is True  # never reloaded
        # the refused card's 409 is the only failed request a page logs
        assert [e for e in errors if "409" not in e] == [], errors
        s = _state(url)
        assert s["game_winner"] == nxt and s["scores"][nxt] == won
        final = {x["name"]: x["score"] for x in s["players"]}
        p.child.sendline("")  # the terminal's prompt was waiting for nxt's move
        p.expect("wins the game. Is that right?")
        p.child.sendline("yes")
        p.expect(f"{nxt} wins the game!")
        p.child.expect("history")
    finally:
        p.close()
    # --resume and history agree with what the browser showed
    assert p.state()["scores"] == final and p.state()["game_winner"] == nxt
    out = subprocess.run(
        [sys.executable, "-m", "unolaunch", "history", "1", "--data-dir", str(p.data_dir)],
        capture_output=True,
        text=True,
        env=cli_env(),
        timeout=60,
    )
    assert out.returncode == 0, out.stderr
    assert nxt in out.stdout and str(won) in out.stdout
