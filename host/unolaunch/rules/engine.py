"""The rules engine: one :class:`Game` per game, a subclass per variant.

The engine lives in four modules, as python-chess keeps its base board in one module and
its variants in another:

* :mod:`unolaunch.rules.game` — :class:`Game`, what all variants share: the deal, turns,
  the public interface (:meth:`Game.apply`, :attr:`Game.awaiting`, :meth:`Game.undo`,
  :meth:`Game.snapshot`), the fast one for bots (:meth:`Game.moves`, :meth:`Game.step`, the
  fused random loop :meth:`Game.play_random`), hidden hands, scoring; its docstring
  describes them;
* :mod:`unolaunch.rules.attack` — :class:`AttackGame` (ATK-1..ATK-26);
* :mod:`unolaunch.rules.mario_kart` — :class:`MarioKartGame` (MK-1..MK-25);
* :mod:`unolaunch.rules.pocket_pizza` — :class:`PocketPizzaGame` (PP-1..PP-19).

This module gathers them, with the fast interface's move encoding, the turn phases and the
obligation kinds that bots and the table read.
"""

from __future__ import annotations

from unolaunch.rules.attack import AttackGame
from unolaunch.rules.game import (
    ACCEPT,
    AFTER_DRAW,
    CATCH,
    CHALLENGE,
    CHOOSE,
    DRAW,
    EXTRA,
    GAME_OVER,
    NO_COLOR,
    NO_SEAT,
    OB_CHALLENGE,
    OB_COLOR,
    OB_GIVE,
    OB_PRESS,
    OB_REVEAL,
    OB_TARGET,
    OB_TOP,
    OB_TURNED,
    OB_UNTIL,
    OB_VERDICT,
    PASS,
    PLAY,
    PRESS,
    ROUND_OVER,
    TURN,
    UNO_BIT,
    VARIANTS,
    VERB_NAMES,
    Effect,
    Game,
    TurnCapError,
)
from unolaunch.rules.mario_kart import MarioKartGame
from unolaunch.rules.pocket_pizza import PocketPizzaGame

__all__ = [
    "ACCEPT",
    "AFTER_DRAW",
    "CATCH",
    "CHALLENGE",
    "CHOOSE",
    "DRAW",
    "EXTRA",
    "GAME_OVER",
    "NO_COLOR",
    "NO_SEAT",
    "OB_CHALLENGE",
    "OB_COLOR",
    "OB_GIVE",
    "OB_PRESS",
    "OB_REVEAL",
    "OB_TARGET",
    "OB_TOP",
    "OB_TURNED",
    "OB_UNTIL",
    "OB_VERDICT",
    "PASS",
    "PLAY",
    "PRESS",
    "ROUND_OVER",
    "TURN",
    "UNO_BIT",
    "VARIANTS",
    "VERB_NAMES",
    "AttackGame",
    "Effect",
    "Game",
    "MarioKartGame",
    "PocketPizzaGame",
    "TurnCapError",
]
