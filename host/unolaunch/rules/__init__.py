"""The rules engine for UNO Attack, UNO Mario Kart and UNO Pocket Pizza Pizza.

Pure (no I/O, no clock; randomness only from an injected ``random.Random``)::

    import random
    from unolaunch.rules import Game, IllegalMoveError

    g = Game.new("attack", ["Ann", "Bob", "Cy"], rng=random.Random(7))
    g.awaiting                      # {"by": "Bob", "verbs": ["play", "press"]}
    g.apply({"by": "Bob", "press": True})
    g.undo()

See :mod:`unolaunch.rules.game` for what all variants share (the fast interface used by
bots, the hidden-hands mode of the table-side scorekeeper), :mod:`unolaunch.rules.attack`,
:mod:`unolaunch.rules.mario_kart` and :mod:`unolaunch.rules.pocket_pizza` for each variant
(:mod:`unolaunch.rules.engine` gathers them), :mod:`unolaunch.rules.actions` for the action
keys, and :mod:`unolaunch.rules.options` for each variant's options.
"""

from __future__ import annotations

from unolaunch.rules.actions import VERBS, Action, ActionFormatError
from unolaunch.rules.engine import (
    VARIANTS,
    AttackGame,
    Effect,
    Game,
    MarioKartGame,
    PocketPizzaGame,
    TurnCapError,
)
from unolaunch.rules.errors import IllegalMoveError
from unolaunch.rules.launcher import Launcher, ListLauncher, PatternLauncher
from unolaunch.rules.options import OPTION_DEFAULTS, resolve_options

__all__ = [
    "OPTION_DEFAULTS",
    "VARIANTS",
    "VERBS",
    "Action",
    "ActionFormatError",
    "AttackGame",
    "Effect",
    "Game",
    "IllegalMoveError",
    "Launcher",
    "ListLauncher",
    "MarioKartGame",
    "PatternLauncher",
    "PocketPizzaGame",
    "TurnCapError",
    "resolve_options",
]
