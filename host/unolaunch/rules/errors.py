"""The rules engine's exception."""

from __future__ import annotations

__all__ = ["IllegalMoveError"]


class IllegalMoveError(ValueError):
    """An action the rules forbid in the current position; the game state is unchanged.

    ``rule`` is the id of the rule that forbids it (``"COM-2"``, ``"ATK-26"``...); the
    message names the rule, the action and the position, e.g.::

        COM-2: Ann plays g3: g3 matches neither the colour (red), the number nor the
        symbol of the top card r9 [Ann to play; top r9, colour red; hands Ann 2, Bob 1]
    """

    def __init__(self, rule: str, message: str) -> None:
        super().__init__(f"{rule}: {message}")
        self.rule = rule
        self.detail = message
