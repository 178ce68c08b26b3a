"""The table screen: everything players need at a glance, drawn with rich.

Pure rendering: :func:`render` takes a :class:`View` (the engine's snapshot plus what only
the table knows: names, round, launcher state, the last thing that happened) and returns
a rich renderable. Colours come from rich's Console, which turns them off by itself when
the output is not a terminal (or ``NO_COLOR`` is set), so a log or a pipe stays plain.

Every text goes to rich as :class:`~rich.text.Text`, never as markup, and names and
messages pass through :func:`~unolaunch.table.names.shown`: a stored name such as ``[/]``
or one holding ESC is drawn as typed, escaped, and cannot break or take over the screen.

Every word is in the current language (:mod:`unolaunch.i18n`), card names too
(:func:`card_name`: ``rautt 5``, ``Villispil Draga fjögur``); the state's data (card codes,
colour names) is English and is put in words here.
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

from unolaunch.cards import COLOR_NAMES, color_word
from unolaunch.i18n import N_, _, ngettext, pgettext
from unolaunch.table.names import shown

#: The games' names (marked for the catalog: shown through :func:`variant_title`).
VARIANT_TITLES = {
    "attack": N_("UNO Attack"),
    "mario-kart": N_("UNO Mario Kart"),
    "pocket-pizza": N_("UNO Pocket Pizza Pizza"),
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
    "play": N_("play a card"),
    "press": N_("press the launcher"),
    # TRANSLATORS: what the awaited player may do: "Ann: draw or pass".
    "draw": N_("draw"),
    "pass": N_("pass"),
    "challenge": N_("challenge"),
    "accept": N_("accept"),
    "choose": N_("choose"),
    "catch": N_("catch"),
}


def variant_title(variant: str) -> str:
    """The game's name in the current language (``UNO Attack``)."""
    title = VARIANT_TITLES.get(variant)
    return _(title) if title else variant


def kind_name(kind: str) -> str:
    """A card kind's name (``S`` -> ``Skip``, ``W+4`` -> ``Wild Draw Four``); numbers stay."""
    # TRANSLATORS: card names, as printed on the cards (see the Icelandic glossary).
    names = {
        "S": pgettext("card", "Skip"),
        "R": pgettext("card", "Reverse"),
        "H2": pgettext("card", "Hit 2"),
        "DA": pgettext("card", "Discard All"),
        "TH": pgettext("card", "Trade Hands"),
        "+2": pgettext("card", "Draw Two"),
        "+1": pgettext("card", "Draw One"),
        "W": pgettext("card", "Wild"),
        "WH4": pgettext("card", "Wild Hit 4"),
        "WAA": pgettext("card", "Wild Attack-Attack"),
        "WC": pgettext("card", "Wild Customizable"),
        "WHF": pgettext("card", "Wild Hit Fire"),
        "WAH": pgettext("card", "Wild All Hit"),
        "W+4": pgettext("card", "Wild Draw Four"),
        "WIB": pgettext("card", "Wild Item Box"),
        "W+2": pgettext("card", "Wild Draw 2"),
        "WDD": pgettext("card", "Wild Dip Into The Deck"),
    }
    return names.get(kind, kind)


def colour_name(color: str | None) -> str:
    """A colour of the state (``"red"``) as a noun in the current language (``rauður``)."""
    if color in COLOR_NAMES:
        return color_word(COLOR_NAMES.index(color))
    return color or ""


def either(options: Sequence[str]) -> str:
    """``a``, ``a or b``, ``a, b or c`` in the current language."""
    if not options:
        return ""
    if len(options) == 1:
        return options[0]
    # TRANSLATORS: the last two of a list of choices: "draw or pass".
    return _("{some} or {last}").format(some=", ".join(options[:-1]), last=options[-1])


def card_colour(code: str | None) -> str | None:
    """The printed colour of a card code (``None`` for wild cards and no card)."""
    if not code or code.startswith("W"):
        return None
    return _COLOUR_OF.get(code[0])


def card_name(code: str) -> str:
    """A card code in words, in the current language: ``r5`` -> ``red 5`` (``rautt 5``),
    ``gS`` -> ``green Skip``, ``W+4`` -> ``Wild Draw Four``."""
    if code.startswith("W"):
        return kind_name(code)
    colour = _COLOUR_OF.get(code[:1])
    if colour is None:
        return code  # "?" (a card nobody saw) and the like
    # TRANSLATORS: a coloured card: {colour} is its colour (Icelandic: neuter, "rautt"),
    # {kind} its number or symbol: "red 5", "blue Skip".
    return pgettext("card", "{colour} {kind}").format(
        colour=color_word(COLOR_NAMES.index(colour), "card"), kind=kind_name(code[1:])
    )


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
        text.append(f" {colour_name(color).upper()} ", style=_STYLE[color])
    return text


def colour_text(color: str | None) -> Text:
    """The colour to match, in its colour."""
    if not color:
        return Text("—")
    return Text(colour_name(color).upper(), style=_FG.get(color, "bold"))


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
        return _("nobody")
    return _("{who}: {what}").format(who=shown(awaiting.get("by")), what=verbs_text(awaiting))


def verbs_text(awaiting: Mapping[str, Any]) -> str:
    """What the awaited player may do, in words: ``press the launcher``, ``draw or pass``."""
    verbs = [_(_VERB_TEXT.get(v, v)) for v in awaiting.get("verbs", []) if v != "catch"]
    return either(verbs) if verbs else _("nothing")


def render(view: View) -> RenderableType:
    """The whole table screen for ``view``."""
    st = view.state
    awaiting = st.get("awaiting") or {}
    turn = st.get("turn")
    title = variant_title(view.variant)
    target = view.target or TARGETS.get(view.variant)
    if view.game_id is not None:
        header = _("{title} · round {round} · to {target} · game {game}").format(
            title=title, round=view.round_no, target=target, game=view.game_id
        )
    else:
        header = _("{title} · round {round} · to {target}").format(
            title=title, round=view.round_no, target=target
        )

    lines: list[RenderableType] = []
    if st.get("game_winner"):
        won = _("{who} wins the game!").format(who=shown(st["game_winner"]))
        lines.append(Text(f"🏆 {won}", style="bold magenta"))
    elif st.get("round_winner"):
        pts = st.get("round_points")
        winner = shown(st["round_winner"])
        if pts is not None:
            won = ngettext(
                "{who} wins the round (+{n} point)", "{who} wins the round (+{n} points)", pts
            ).format(who=winner, n=pts)
        else:
            won = _("{who} wins the round").format(who=winner)
        lines.append(Text(won, style="bold magenta"))
    # One source of truth: the awaited player is the one marked; with nobody awaited (the
    # round or the game is over) nobody is, whoever's turn the engine would name next.
    who = awaiting.get("by")
    big = Text()
    if who:
        big.append("▶ ", style="bold")
        big.append(shown(who), style="bold reverse")
        big.append(f"  {view.doing or verbs_text(awaiting)}", style="bold")
    elif st.get("game_winner"):
        big.append(_("the game is over"), style="bold")
    else:
        big.append(
            _("round {round} is over: press Enter to deal round {next}").format(
                round=view.round_no, next=view.round_no + 1
            ),
            style="bold",
        )
    direction = st.get("direction", 1)
    arrow = _("play goes left") if direction == 1 else _("play goes right")
    big.append(f"    {'↻' if direction == 1 else '↺'} {arrow}")
    lines.append(big)
    if st.get("top") is None:
        top = Text(
            _("start card: not turned up yet ({who} turns it up)").format(
                who=shown(who or view.dealer)
            ),
            style="bold",
        )
    else:
        # TRANSLATORS: the label before the top card of the discard pile.
        top = Text(pgettext("screen", "top") + " ")
        top.append_text(card_text(st.get("top"), st.get("color")))
        top.append("   " + _("colour to match") + " ")
        top.append_text(colour_text(st.get("color")))
    lines.append(top)

    table = Table(box=None, pad_edge=False, show_edge=False, expand=False)
    table.add_column("", width=2)
    # TRANSLATORS: the columns of the players' table (keep them short).
    table.add_column(pgettext("column", "player"), style="bold")
    table.add_column(pgettext("column", "cards"), justify="right")
    table.add_column(pgettext("column", "score"), justify="right")
    table.add_column(pgettext("column", "owes / notes"))
    # TRANSLATORS: the mark of the dealer in the players' table (one letter).
    dealer_mark = pgettext("column", "D")
    sizes = st.get("hand_sizes") or {}
    scores = st.get("scores") or {}
    for p in view.players:
        mark = "▶" if p == who else (dealer_mark if p == view.dealer else "")
        n = sizes.get(p)
        cards = Text("?" if n is None else str(n))
        notes = Text(shown(view.owed.get(p, "")), style="bold cyan")
        if n == 1 and p in view.uno_said:
            cards.append(" " + _("UNO"), style="bold yellow")
        elif n == 1 and p == st.get("uno_catchable"):  # COM-6: until the next player begins
            # In the notes: the cards column keeps its width and the box does not move.
            # TRANSLATORS: 'catch Ann' is what to type: use the command word players type.
            said = _("no UNO said: 'catch {who}'").format(who=shown(p))
            notes.append(f"{' ' if notes.plain else ''}{said}", style="bold yellow")
        if p == turn and who and p != who and not st.get("round_winner"):
            if st.get("top") is not None:
                notes.append(" " + _("(turn)"))
            else:
                notes.append(" " + _("(plays first)"))
        table.add_row(Text(mark), Text(shown(p)), cards, Text(str(scores.get(p, 0))), notes)
    lines.append(table)
    if view.launcher:
        lines.append(Text(_("launcher: {status}").format(status=shown(view.launcher)), style="dim"))
    if view.reminder:
        lines.append(Text(shown(view.reminder), style="bold"))
    if st.get("stock_size") is not None and view.variant != "attack":
        n = st["stock_size"]
        lines.append(
            Text(ngettext("stock: {n} card", "stock: {n} cards", n).format(n=n), style="dim")
        )
    if view.notice:
        lines.append(Text(shown(view.notice)))
    if view.warning:
        lines.append(Text(f"⚠ {shown(view.warning)}", style="bold red"))
    return Panel(Group(*lines), title=Text(header), title_align="left", expand=False)
