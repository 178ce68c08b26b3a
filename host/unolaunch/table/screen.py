"""The table screen: everything players need at a glance, drawn with rich.

Pure rendering: :func:`render` takes a :class:`View` (the engine's snapshot plus what only
the table knows: names, round, launcher state, the last thing that happened) and returns
a rich renderable. Colours come from rich's Console, which turns them off by itself when
the output is not a terminal (or ``NO_COLOR`` is set), so a log or a pipe stays plain.

Every text goes to rich as :class:`~rich.text.Text`, never as markup, and names and
messages pass through :func:`~unolaunch.table.names.shown`: a stored name such as ``[/]``
or one holding ESC is drawn as typed, escaped, and cannot break or take over the screen.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from rich.console import Group, RenderableType
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from unolaunch.table.names import shown
from unolaunch.table.parse import KIND_NAMES

VARIANT_TITLES = {
    "attack": "UNO Attack",
    "mario-kart": "UNO Mario Kart",
    "pocket-pizza": "UNO Pocket Pizza Pizza",
}
TARGETS = {"attack": 500, "mario-kart": 500, "pocket-pizza": 250}  # ATK-24, MK-25, PP-19

_STYLE = {
    "red": "bold white on red3",
    "yellow": "bold black on yellow1",
    "green": "bold white on green4",
    "blue": "bold white on blue3",
    None: "bold white on grey23",
}
_FG = {"red": "bold red3", "yellow": "bold yellow1", "green": "bold green4", "blue": "bold blue3"}
_COLOUR_OF = {"r": "red", "y": "yellow", "g": "green", "b": "blue"}

_VERB_TEXT = {
    "play": "play a card",
    "press": "press the launcher",
    "draw": "draw",
    "pass": "pass",
    "challenge": "challenge",
    "accept": "accept",
    "choose": "choose",
    "catch": "catch",
}


def card_colour(code: str | None) -> str | None:
    """The printed colour of a card code (``None`` for wild cards and no card)."""
    if not code or code.startswith("W"):
        return None
    return _COLOUR_OF.get(code[0])


def card_name(code: str) -> str:
    """A card code in words: ``r5`` -> ``red 5``, ``gS`` -> ``green Skip``."""
    if code.startswith("W"):
        return KIND_NAMES.get(code, code)
    colour = _COLOUR_OF.get(code[:1], "?")
    kind = code[1:]
    return f"{colour} {KIND_NAMES.get(kind, kind)}"


#: A card code standing alone in a message: ``r5``, ``gS``, ``bH2``, ``W``, ``WH4``, ``W+4``.
_CODE_IN_TEXT = re.compile(
    r"(?<![\w+\-])([rygb](?:[0-9]|S|R|H2|DA|TH|\+1|\+2)|W(?:H4|AA|C|HF|AH|\+4|\+2|IB|DD)?)"
    r"(?![\w+])"
)


def card_names(text: str) -> str:
    """``text`` with every card code in words (``Ann plays WHF`` -> ``Ann plays Wild Hit
    Fire``, ``r5`` -> ``red 5``), except inside single quotes, where an example of what to
    type stays as it is typed."""
    parts = text.split("'")
    for i in range(0, len(parts), 2):  # outside quotes (a lone apostrophe: best effort)
        parts[i] = _CODE_IN_TEXT.sub(lambda m: card_name(m.group(1)), parts[i])
    return "'".join(parts)


def card_text(code: str | None, color: str | None = None) -> Text:
    """A card as a coloured block, e.g. `` RED 5 `` on red; a wild shows its named colour."""
    if code is None:
        return Text(" ? ", style=_STYLE[None])
    own = card_colour(code)
    text = Text(f" {card_name(code).upper()} ", style=_STYLE[own] if own else _STYLE[None])
    if own is None and color:
        text.append(" ")
        text.append(f" {color.upper()} ", style=_STYLE[color])
    return text


def colour_text(color: str | None) -> Text:
    """The colour to match, in its colour."""
    if not color:
        return Text("—")
    return Text(color.upper(), style=_FG.get(color, "bold"))


@dataclass
class View:
    """What the screen shows. ``state`` is the engine snapshot (docs/architecture.md §1)."""

    variant: str
    players: Sequence[str]
    state: Mapping[str, Any]
    round_no: int = 1
    target: int | None = None
    dealer: str | None = None
    game_id: int | None = None
    owed: Mapping[str, str] = field(default_factory=dict)  # player -> "2 presses (Hit 2)"
    launcher: str | None = None  # one line about the launcher, None without one
    notice: str | None = None  # the last thing that happened
    warning: str | None = None  # a foul, a jam, an empty launcher: with what to do
    uno_said: Sequence[str] = ()
    doing: str | None = None  # what the awaited player is to do, when more precise
    reminder: str | None = None  # what the table must do now (load the launcher, ATK-3)


def awaiting_text(awaiting: Mapping[str, Any] | None) -> str:
    """``{"by": "Bob", "verbs": ["press"]}`` -> ``Bob: press the launcher``."""
    if not awaiting:
        return "nobody"
    verbs = [_VERB_TEXT.get(v, v) for v in awaiting.get("verbs", []) if v != "catch"]
    return f"{shown(awaiting.get('by'))}: {' or '.join(verbs) if verbs else 'nothing'}"


def render(view: View) -> RenderableType:
    """The whole table screen for ``view``."""
    st = view.state
    awaiting = st.get("awaiting") or {}
    turn = st.get("turn")
    title = VARIANT_TITLES.get(view.variant, view.variant)
    target = view.target or TARGETS.get(view.variant)
    header = f"{title} · round {view.round_no} · to {target}"
    if view.game_id is not None:
        header += f" · game {view.game_id}"

    lines: list[RenderableType] = []
    if st.get("game_winner"):
        lines.append(Text(f"🏆 {shown(st['game_winner'])} wins the game!", style="bold magenta"))
    elif st.get("round_winner"):
        pts = st.get("round_points")
        won = f" (+{pts} points)" if pts is not None else ""
        lines.append(Text(f"{shown(st['round_winner'])} wins the round{won}", style="bold magenta"))
    # One source of truth: the awaited player is the one marked; with nobody awaited (the
    # round or the game is over) nobody is, whoever's turn the engine would name next.
    who = awaiting.get("by")
    big = Text()
    if who:
        big.append("▶ ", style="bold")
        big.append(shown(who), style="bold reverse")
        verbs = awaiting_text(awaiting).split(": ", 1)[-1]
        big.append(f"  {view.doing or verbs}", style="bold")
    elif st.get("game_winner"):
        big.append("the game is over", style="bold")
    else:
        big.append(
            f"round {view.round_no} is over: press Enter to deal round {view.round_no + 1}",
            style="bold",
        )
    direction = st.get("direction", 1)
    arrow = "↻ play goes left" if direction == 1 else "↺ play goes right"
    big.append(f"    {arrow}")
    lines.append(big)
    if st.get("top") is None:
        top = Text(
            f"start card: not turned up yet ({shown(who or view.dealer)} turns it up)",
            style="bold",
        )
    else:
        top = Text("top ")
        top.append_text(card_text(st.get("top"), st.get("color")))
        top.append("   colour to match ")
        top.append_text(colour_text(st.get("color")))
    lines.append(top)

    table = Table(box=None, pad_edge=False, show_edge=False, expand=False)
    table.add_column("", width=2)
    table.add_column("player", style="bold")
    table.add_column("cards", justify="right")
    table.add_column("score", justify="right")
    table.add_column("owes / notes")
    sizes = st.get("hand_sizes") or {}
    scores = st.get("scores") or {}
    for p in view.players:
        mark = "▶" if p == who else ("D" if p == view.dealer else "")
        n = sizes.get(p)
        cards = Text("?" if n is None else str(n))
        notes = Text(shown(view.owed.get(p, "")), style="bold cyan")
        if n == 1 and p in view.uno_said:
            cards.append(" UNO", style="bold yellow")  # as wide as the column's title
        elif n == 1 and p == st.get("uno_catchable"):  # COM-6: until the next player begins
            # In the notes: the cards column keeps its width and the box does not move.
            notes.append(
                f"{' ' if notes.plain else ''}no UNO said: 'catch {shown(p)}'",
                style="bold yellow",
            )
        if p == turn and who and p != who and not st.get("round_winner"):
            notes.append(" (turn)" if st.get("top") is not None else " (plays first)")
        table.add_row(Text(mark), Text(shown(p)), cards, Text(str(scores.get(p, 0))), notes)
    lines.append(table)
    if view.launcher:
        lines.append(Text(f"launcher: {shown(view.launcher)}", style="dim"))
    if view.reminder:
        lines.append(Text(shown(view.reminder), style="bold"))
    if st.get("stock_size") is not None and view.variant != "attack":
        lines.append(Text(f"stock: {st['stock_size']} cards", style="dim"))
    if view.notice:
        lines.append(Text(shown(view.notice)))
    if view.warning:
        lines.append(Text(f"⚠ {shown(view.warning)}", style="bold red"))
    return Panel(Group(*lines), title=Text(header), title_align="left", expand=False)
