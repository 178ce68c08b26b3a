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
from pathlib import Path
from typing import Any

from table_pty import Player, start_web_play

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
        assert said == "Ann (vefur): Ann spilar gult 5", said
        english, icelandic = get_state(url, "en"), get_state(url)
        assert english["notice"] == "Ann (web): Ann plays yellow 5", english["notice"]
        assert icelandic["notice"] == "Ann (vefur): Ann spilar gult 5", icelandic["notice"]
        assert english["log"][-2:] == ["Cy (web): start card yellow 3", english["notice"]]
        # an Icelandic phone in this Icelandic game, and Bob's English move after it
        p.at("Bob> ")
        assert post(url, links["Bob"], {"by": "Bob", "play": "y7"}, "is")[0] == 200
        assert line_after(p, "Bob (vefur): ") == "Bob (vefur): Bob spilar gult 7"
        assert get_state(url, "en")["notice"] == "Bob (web): Bob plays yellow 7"
    finally:
        p.close()
