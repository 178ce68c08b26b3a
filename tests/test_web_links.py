"""Join links survive a restart (issue 23, item 5): the players' secrets are kept with the
game in the journal, so ``play --resume --web`` after ``kill -9`` prints the same links and
the phones' secrets still work; ``--new-links`` makes new ones and the old stop working; a
link that does not work says so on a full page, with what to do.
"""

from __future__ import annotations

import json
import signal
import urllib.error
import urllib.request
from pathlib import Path

from conftest import RunCli
from table_pty import Player


def _start(data: Path, *args: str) -> tuple[Player, str, dict[str, str]]:
    """``play ARGS --web 0``: the table view's address and the links printed (what was
    printed between them in ``p.head``)."""
    p = Player(data, "play", *args, "--web", "0", timeout=30)
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
