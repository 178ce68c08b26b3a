"""The table screen: turn, direction, colour and top card, owed presses, sizes, scores."""

from __future__ import annotations

import io
from typing import Any

from rich.console import Console
from unolaunch.table.screen import View, card_name, render

STATE: dict[str, Any] = {
    "hand_sizes": {"Ann": 5, "Bob": 7, "Cy": 1},
    "turn": "Bob",
    "direction": -1,
    "top": "WH4",
    "color": "blue",
    "scores": {"Ann": 120, "Bob": 0, "Cy": 40},
    "awaiting": {"by": "Bob", "verbs": ["press"]},
    "stock_size": 60,
}


def _text(view: View, terminal: bool) -> str:
    out = io.StringIO()
    Console(
        file=out, force_terminal=terminal, width=90, color_system="standard" if terminal else None
    ).print(render(view))
    return out.getvalue()


def test_screen_shows_everything_at_a_glance() -> None:
    view = View(
        "attack",
        ["Ann", "Bob", "Cy"],
        STATE,
        round_no=2,
        game_id=4,
        owed={"Bob": "4 presses (Wild Hit 4)"},
        launcher="armed for Bob, 4 presses",
        warning="press by Cy nobody owed: foul, nothing fired",
        uno_said=["Cy"],
    )
    text = _text(view, terminal=False)
    assert "UNO Attack · round 2 · to 500 · game 4" in text
    assert "▶ Bob  press the launcher" in text
    assert "play goes right" in text  # direction -1
    assert "WILD HIT 4" in text and "BLUE" in text
    assert "4 presses (Wild Hit 4)" in text
    assert "1 UNO" in text
    for name, cards, score in (("Ann", "5", "120"), ("Bob", "7", "0"), ("Cy", "1", "40")):
        line = next(ln for ln in text.splitlines() if f" {name} " in ln and "▶ Bob " not in ln)
        assert cards in line and score in line
    assert "foul" in text


def test_colours_only_on_a_terminal() -> None:
    view = View("attack", ["Ann", "Bob", "Cy"], STATE)
    assert "\x1b[" not in _text(view, terminal=False)
    coloured = _text(view, terminal=True)
    assert "\x1b[" in coloured
    assert "44m" in coloured  # the named colour blue as a background block


def test_round_and_game_winner_banner() -> None:
    st = dict(STATE, round_winner="Cy", round_points=87, awaiting=None)
    assert "Cy wins the round (+87 points)" in _text(
        View("mario-kart", ["Ann", "Bob", "Cy"], st), False
    )
    st = dict(st, game_winner="Cy")
    assert "Cy wins the game" in _text(View("pocket-pizza", ["Ann", "Bob", "Cy"], st), False)


def test_card_names() -> None:
    assert card_name("r5") == "red 5"
    assert card_name("gS") == "green Skip"
    assert card_name("bH2") == "blue Hit 2"
    assert card_name("W+4") == "Wild Draw Four"
