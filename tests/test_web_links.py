"""Join links survive a restart (issue 23, item 5): the players' secrets are kept with the
game in the journal, so ``play --resume --web`` after ``kill -9`` prints the same links and
the phones' secrets still work; ``--new-links`` makes new ones and the old stop working; a
link that does not work says so on a full page, with what to do.
"""

from __future__ import annotations

import json
import signal
import socket
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

from conftest import RunCli
from table_pty import Player
from test_web_browser_truth import chromium  # noqa: F401  (the fixture)


def _start(data: Path, *args: str, port: str = "0") -> tuple[Player, str, dict[str, str]]:
    """``play ARGS --web PORT``: the table view's address and the links printed (what was
    printed between them in ``p.head``)."""
    p = Player(data, "play", *args, "--web", port, timeout=30)
    p.expect("Table view: ")
    url = p.child.readline().split()[0]
    links = {}
    heads = []
    for name in ("Ann", "Bob", "Cy"):
        heads.append(p.expect(f"  {name}: "))
        links[name] = p.child.readline().strip()
    p.head = heads[0]  # type: ignore[attr-defined]
    return p, url, links


def _get(url: str, secret: str | None = None) -> tuple[int, str]:
    headers = {"Authorization": f"Bearer {secret}"} if secret else {}
    try:
        with urllib.request.urlopen(urllib.request.Request(url, headers=headers), timeout=10) as r:
            return r.status, r.read().decode()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read().decode()


def _act(url: str, secret: str, action: dict[str, object]) -> int:
    req = urllib.request.Request(
        url + "api/action",
        data=json.dumps(action).encode(),
        headers={"Content-Type": "application/json", "Authorization": f"Bearer {secret}"},
    )
    try:
        with urllib.request.urlopen(req, timeout=10) as r:
            return int(r.status)
    except urllib.error.HTTPError as exc:
        return int(exc.code)


def _secret(link: str) -> str:
    return link.rsplit("/p/", 1)[1]


def test_item5_links_survive_kill_9_and_resume_new_links_revokes_them(tmp_path: Path) -> None:
    data = tmp_path / "data"
    game = ("--variant", "attack", "--players", "Ann,Bob,Cy", "--dealer", "Cy")
    p, url, links = _start(data, *game)
    try:
        p.at("Cy> ")
        assert _act(url, _secret(links["Cy"]), {"by": "Cy", "choose": {"top": "r5"}}) == 200
        p.at("Ann> ")
        p.child.kill(signal.SIGKILL)  # the laptop's lid, a crash
        p.child.wait()
    finally:
        p.child.close()

    p, url2, again = _start(data, "--resume")
    try:
        assert again == {n: link.replace(url, url2) for n, link in links.items()}
        assert "The players' links are the same as before" in p.head  # type: ignore[attr-defined]
        for name, link in links.items():
            status, body = _get(url2 + "api/me", _secret(link))
            assert status == 200 and json.loads(body) == {"player": name}
        assert _act(url2, _secret(links["Ann"]), {"by": "Ann", "play": "r7"}) == 200
    finally:
        p.close()

    p, url3, fresh = _start(data, "--resume", "--new-links")
    try:
        assert not {_secret(v) for v in fresh.values()} & {_secret(v) for v in links.values()}
        old = _secret(links["Bob"])
        status, body = _get(url3 + "api/me", old)
        assert status == 403
        assert _act(url3, old, {"by": "Bob", "press": True, "cards": 1}) == 403
        status, page = _get(url3 + "p/" + old)  # the old link's page: what to do, full size
        assert status == 404 and '<html lang="en">' in page
        assert "<title>This link does not work" in page and "<main" in page
        assert "What to do:" in page and "ask the table for your link" in page
        assert _get(url3 + "p/" + _secret(fresh["Bob"]))[0] == 200
        status, page = _get(url3 + "nothing-here")
        assert status == 404 and "<title>" in page and 'lang="en"' in page
    finally:
        p.close()
    # and the newest links are the ones kept
    p, _, last = _start(data, "--resume")
    try:
        assert {_secret(v) for v in last.values()} == {_secret(v) for v in fresh.values()}
    finally:
        p.close()


def test_item5_new_links_needs_web(run_cli: RunCli) -> None:
    proc = run_cli("play", "--variant", "attack", "--players", "Ann,Bob", "--new-links")
    assert proc.returncode == 2 and "use it with --web" in proc.stderr


def test_item5_an_open_phone_after_a_restart_goes_on_or_says_its_link_is_gone(
    tmp_path: Path,
    chromium: Any,  # noqa: F811  (the fixture imported above)
) -> None:
    """In chromium: a phone open during ``kill -9`` goes on playing after ``--resume`` (the
    same link, the page reconnects by itself); after ``--resume --new-links`` the same open
    page says, full size, that its link does not work and what to do — no buttons."""
    from playwright.sync_api import expect

    with socket.socket() as probe:  # one port for every run: the page reconnects to it
        probe.bind(("127.0.0.1", 0))
        port = str(probe.getsockname()[1])
    data = tmp_path / "data"
    game = ("--variant", "attack", "--players", "Ann,Bob,Cy", "--dealer", "Cy")
    p, _, links = _start(data, *game, port=port)
    context = chromium.new_context(viewport={"width": 390, "height": 844}, has_touch=True)
    context.set_default_timeout(20_000)
    cy = context.new_page()
    cy.goto(links["Cy"])
    expect(cy.locator("#status")).to_contain_text("Your move: turn up the start card")
    p.child.kill(signal.SIGKILL)
    p.child.wait()
    p.child.close()
    expect(cy.locator("#live")).not_to_have_text("live")

    p, _, again = _start(data, "--resume", port=port)
    try:
        assert again == links
        expect(cy.locator("#live")).to_have_text("live")  # reconnected by itself
        cy.click("[data-tab=r]")
        cy.click("[data-card=r5]")
        cy.click("#go")
        expect(cy.locator("#message")).to_contain_text("✓")
        assert p.state()["top"] == "r5"
    finally:
        p.close()

    p, _, fresh = _start(data, "--resume", "--new-links", port=port)
    try:
        assert fresh["Cy"] != links["Cy"]
        refused = cy.locator("#refused")
        expect(refused).to_contain_text("This link does not work any more")
        expect(refused).to_contain_text("What to do:")
        assert float(refused.evaluate("e => parseFloat(getComputedStyle(e).fontSize)")) >= 18
        expect(cy.locator("button")).to_have_count(0)  # nothing to tap that would be refused
    finally:
        p.close()
        context.close()
