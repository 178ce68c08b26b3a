"""A family that plays from its phones (issue 23, "the same oracle through the browser's
door"): seeded players choose what people at a table would do — cards the page offers,
presses with the cards that came out, colours, targets, challenges, catches, a late UNO,
now and then a move out of turn or a card that does not fit — and send it through
``POST /api/action``, each with their own secret. After every action ``/api/state`` and
what the event stream delivered are checked against an oracle: the rules engine fed the
same accepted actions on its own (a refused action must change nothing at all).

Several seeds, whole games to a low target; no launcher (presses carry their count, as
typed at a table without one). One more game is played with the table view and the three
phones open in chromium: after every action each page shows what ``/api/state`` says.
"""

from __future__ import annotations

import http.client
import json
import random
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from test_web_api import WebGame, _serve
from test_web_browser_truth import chromium  # noqa: F401  (the fixture)
from unolaunch.rules import Game

COLORS = ("red", "yellow", "green", "blue")
CHECKED = ("top", "turn", "direction", "round", "scores", "round_winner", "game_winner")


class Stream:
    """The event stream, read on a thread: the last state it delivered."""

    def __init__(self, port: int) -> None:
        self.last: dict[str, Any] | None = None
        self.cond = threading.Condition()
        self.conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        self.conn.request("GET", "/api/events")
        self.response = self.conn.getresponse()
        self.thread = threading.Thread(target=self._read, daemon=True)
        self.thread.start()

    def _read(self) -> None:
        try:
            for raw in self.response:
                line = raw.decode().rstrip("\n")
                if line.startswith("data: "):
                    with self.cond:
                        self.last = json.loads(line[6:])
                        self.cond.notify_all()
        except Exception:  # the connection closed under it: the stream is over
            return

    def at(self, version: int, timeout: float = 10) -> dict[str, Any]:
        """The streamed state of ``version`` (waits for it)."""
        deadline = time.monotonic() + timeout
        with self.cond:
            while self.last is None or self.last["version"] < version:
                left = deadline - time.monotonic()
                assert left > 0, f"the stream did not deliver version {version}: {self.last}"
                self.cond.wait(left)
            return self.last

    def close(self) -> None:
        self.conn.close()


def oracle_view(game: Game) -> dict[str, Any]:
    """What the pages must show, from the oracle's engine."""
    snap = game.snapshot()
    aw = snap.get("awaiting")
    return {
        **{k: snap.get(k if k != "round" else "round") for k in CHECKED},
        "color": snap["color"] if snap["top"] else None,
        "hand_sizes": snap["hand_sizes"],
        "awaiting": (aw["by"], list(aw["verbs"])) if aw else None,
    }


def page_view(state: dict[str, Any]) -> dict[str, Any]:
    """The same from ``/api/state``."""
    aw = state["awaiting"]
    return {
        **{k: state[k] for k in CHECKED},
        "color": state["color"],
        "hand_sizes": {p["name"]: p["hand_size"] for p in state["players"]},
        "awaiting": (aw["by"], aw["verbs"]) if aw else None,
    }


def choose(rng: random.Random, state: dict[str, Any]) -> dict[str, Any]:
    """What someone at the table does now (usually legal, sometimes not)."""
    players = [p["name"] for p in state["players"]]
    sizes = {p["name"]: p["hand_size"] for p in state["players"]}
    aw = state["awaiting"]
    if aw is None:
        return {"by": rng.choice(players), "deal": True}
    by = aw["by"]
    others = [p for p in players if p != by]
    if state["uno_catchable"] and rng.random() < 0.5:
        caught = state["uno_catchable"]
        if rng.random() < 0.5:
            return {"by": caught, "uno": True}  # COM-6, late
        return {"by": rng.choice([p for p in players if p != caught]), "catch": caught}
    if rng.random() < 0.04:  # out of turn
        return {"by": rng.choice(others), "play": rng.choice(state["deck"])}
    choice = aw["choice"]
    if choice == "top":
        return {"by": by, "choose": {"top": rng.choice([c for c in state["deck"] if c[0] != "W"])}}
    if choice in ("press", "until"):
        return {"by": by, "press": True, "cards": rng.choice((0, 0, 1, 2))}
    if choice == "color":
        return {"by": by, "choose": {"color": rng.choice(COLORS)}}
    if choice == "target":
        return {"by": by, "choose": {"target": rng.choice(others)}}
    if choice == "challenge":
        return {"by": by, rng.choice(("challenge", "accept")): True}
    if choice == "won":
        return {"by": by, "choose": {"won": rng.random() < 0.5}}
    if choice == "reveal":
        return {"by": by, "reveal": {p: str(30 + 2 * sizes[p]) for p in others}}
    verbs = aw["verbs"]
    playable = state["playable"]
    if "play" in verbs and playable and rng.random() < 0.75:
        code = rng.choice(playable) if rng.random() < 0.95 else rng.choice(state["deck"])
        action: dict[str, Any] = {"by": by, "play": code}
        if code.startswith("W"):
            action["color"] = rng.choice(COLORS)
        if code == "WAA" or code.endswith("TH"):
            action["target"] = rng.choice(others)
        if code.endswith("DA"):
            action["discarded"] = []
        if sizes[by] == 2 and rng.random() < 0.6:
            action["uno"] = True
        return action
    for verb in ("press", "draw", "pass"):
        if verb in verbs:
            return {
                "by": by,
                verb: True,
                **({"cards": rng.choice((0, 1, 2))} if verb == "press" else {}),
            }
    return {"by": by, "play": rng.choice(state["deck"])}


def oracle_apply(game: Game, action: dict[str, Any], state_before: dict[str, Any]) -> None:
    """The accepted ``action`` on the oracle, in the engine's own terms."""
    if action.get("deal"):
        game.next_round()
    elif "reveal" in action:
        points = {p: int(v) for p, v in action["reveal"].items()}
        game.apply({"by": action["by"], "choose": {"points": points}})
    elif set(action) == {"by", "uno"}:  # the last play again, with UNO said (as 'uno')
        game.undo()
        game.apply(dict(_last_play[-1], uno=True))
    else:
        game.apply(action)
    if "play" in action:
        _last_play.append(action)


_last_play: list[dict[str, Any]] = []


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_a_family_plays_from_its_phones_and_the_pages_tell_the_truth(
    tmp_path: Path, seed: int
) -> None:
    play_family(tmp_path, seed)


def test_the_family_with_the_pages_open_in_chromium(
    tmp_path: Path,
    chromium: Any,  # noqa: F811  (the fixture imported above)
) -> None:
    """The same family, with the table view and the three phones open in chromium: after
    every action each page shows what ``/api/state`` says."""
    from playwright.sync_api import expect

    context = chromium.new_context(viewport={"width": 1280, "height": 900})
    context.set_default_timeout(20_000)
    pages: dict[str, Any] = {}

    def opened(game: WebGame) -> None:
        url = f"http://127.0.0.1:{game.server.port}/"
        pages["table"] = context.new_page()
        pages["table"].goto(url)
        for name, secret in game.secrets.items():
            pages[name] = context.new_page()
            pages[name].goto(f"{url}p/{secret}")
            expect(pages[name].locator("#me")).to_have_text(name)

    def check(state: dict[str, Any]) -> None:
        for page in pages.values():
            expect(page.locator("body")).to_have_attribute("data-version", str(state["version"]))
        table = pages["table"]
        assert table.get_attribute("#top", "data-code") == (state["top"] or "")
        for p in state["players"]:
            tile = table.locator(f".player[data-player='{p['name']}']")
            assert tile.locator(".count").inner_text() == str(p["hand_size"])
            assert tile.locator(".score").inner_text() == f"{p['score']} points"
        aw = state["awaiting"]
        who = table.locator("#who").inner_text()
        assert who == (f"▶ {aw['by']}" if aw else who), (who, aw)
        for name in game_players:
            status = pages[name].locator("#status").inner_text()
            if aw and aw["by"] == name:
                assert status.startswith("Your move: "), (name, status)
            elif aw:
                assert status.startswith(f"Waiting for {aw['by']}"), (name, status)

    game_players = ("Ann", "Bob", "Cy")
    try:
        play_family(tmp_path, 4, opened=opened, check=check)
    finally:
        context.close()


def play_family(
    tmp_path: Path,
    seed: int,
    opened: Callable[[WebGame], None] | None = None,
    check: Callable[[dict[str, Any]], None] | None = None,
) -> None:
    """One seeded game played from the phones, checked after every action."""
    rng = random.Random(seed)
    _last_play.clear()
    served = _serve(tmp_path, target=60)
    game: WebGame = next(served)
    try:
        record = game.session.record
        oracle = Game.new(
            record.variant,
            list(record.players),
            options=dict(record.options),
            rng=random.Random(record.seed),
            launcher=None,
            hidden_hands=True,
            dealer=record.dealer,
        )
        stream = Stream(game.server.port)
        if opened is not None:
            opened(game)
        refused = accepted = 0
        state = game.state()
        for _ in range(600):
            if state["game_winner"]:
                break
            action = choose(rng, state)
            status, reply = game.act(action)
            after = game.state()
            if status == 200:
                accepted += 1
                oracle_apply(oracle, action, state)
            else:
                assert status in (400, 409), (action, reply)
                refused += 1
                same = {k: v for k, v in after.items() if k not in ("version", "log", "notice")}
                assert same == {
                    k: v for k, v in state.items() if k not in ("version", "log", "notice")
                }, action
            assert page_view(after) == oracle_view(oracle), (seed, action, reply)
            streamed = stream.at(after["version"])
            assert page_view(streamed) == page_view(after)
            if check is not None:
                check(after)
            state = after
        stream.close()
        assert state["game_winner"], f"seed {seed}: no winner in 600 actions"
        assert accepted > 20 and refused > 0
        assert state["scores"] == dict(oracle.snapshot()["scores"])
    finally:
        served.close()
