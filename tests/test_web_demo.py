"""``unolaunch demo --web``: the bots' game shown live and read-only (issue 13)."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from typing import Any

from conftest import RunCli
from unolaunch.table.demo import NAMES, run_demo
from unolaunch.web.front import DemoFront
from unolaunch.web.server import WebServer


def _get(url: str) -> dict[str, Any]:
    with urllib.request.urlopen(url, timeout=10) as r:
        result: dict[str, Any] = json.load(r)
        return result


def test_demo_game_is_served_live_and_read_only() -> None:
    front = DemoFront(NAMES[:2])
    seen: list[dict[str, Any]] = []
    with WebServer(front, "127.0.0.1", 0) as server:
        url = f"http://127.0.0.1:{server.port}/"
        assert server.join_links() == {}  # nobody plays from the web: no secrets, no links

        def watch(demo: Any, pressed: tuple[str, int] | None) -> None:
            front.watch(demo, pressed)
            if pressed is not None and len(seen) < 3:
                seen.append(_get(url + "api/state"))  # what a browser sees right now

        lines: list[str] = []

        def log(line: str) -> None:
            front.note(line)
            lines.append(line)

        result = run_demo(5, 2, 60, log, watch=watch)
        final = _get(url + "api/state")
        req = urllib.request.Request(
            url + "api/action",
            data=b'{"by": "Ann", "press": true, "secret": "x"}',
            headers={"Content-Type": "application/json"},
        )
        try:
            urllib.request.urlopen(req, timeout=10)
            raise AssertionError("an action was accepted in the demo")
        except urllib.error.HTTPError as exc:
            assert exc.code == 403
    assert len(seen) == 3
    for s in seen:
        assert s["launcher"]["kind"] == "sim" and s["fire"]["player"] in NAMES[:2]
        assert s["players_can_act"] is False and "hands" not in s
    assert seen[-1]["fire"]["seq"] == 3
    assert final["game_winner"] == result.winner
    assert final["scores"] == result.scores
    assert final["launcher"]["presses"] == result.presses
    assert final["launcher"]["cards_out"] == result.cards_launched
    assert final["log"][-1] == lines[-1].strip()


def test_demo_web_needs_a_port(run_cli: RunCli) -> None:
    proc = run_cli("demo", "--web", "localhost:http")
    assert proc.returncode == 2 and "give a port" in proc.stderr


def test_item2_the_demo_shows_uno_for_the_bots_that_said_it_com6() -> None:
    """Issue 23 item 2: a bot that said UNO with its card before last shows "UNO!"; one
    that did not (and may be caught) shows "not said" — checked against the engine at
    every step of a few games."""
    said_seen = unsaid_seen = 0
    for seed in (1, 2, 3):
        front = DemoFront(NAMES[:3])

        def watch(
            demo: Any, pressed: tuple[str, int] | None, front: DemoFront = front, seed: int = seed
        ) -> None:
            nonlocal said_seen, unsaid_seen
            front.watch(demo, pressed)
            g = demo.game
            catchable = g.players[g.uno_seat] if g.uno_seat >= 0 else None
            for p in front.state()["players"]:
                if p["name"] == catchable:
                    assert p["uno"] is False  # COM-6: not said, and can be caught
                    unsaid_seen += 1
                elif p["one_card"] and p["name"] in demo.uno_said:
                    assert p["uno"] is True, (seed, p)
                    said_seen += 1

        run_demo(seed, 3, 60, front.note, watch=watch)
    assert said_seen > 0  # the bots do say UNO
