"""The rules engine's exception."""

from __future__ import annotations

from typing import Any

__all__ = ["IllegalMoveError"]


class IllegalMoveError(ValueError):
    """An action the rules forbid in the current position; the game state is unchanged.

    ``rule`` is the id of the rule that forbids it (``"COM-2"``, ``"ATK-26"``...); the
    message (``str(exc)``, always English: logs, scenario files and tests compare it) names
    the rule, the action and the position, e.g.::

        COM-2: Ann: play g3: g3 matches neither the colour (red), the number nor the
        symbol of the top card r9 [Ann to play; top r9, colour red; hands Ann 2, Bob 1]

    What a player reads comes from the structured fields, never from parsing the message:

    * ``why`` — the reason alone, in the language current when the error was made (card
      codes stay codes: the table names them in words), e.g. ``g3 matches neither ...``;
    * ``action`` — the refused :class:`~unolaunch.rules.actions.Action` (``None`` when
      there is none, e.g. dealing the next round);
    * ``out_of_turn`` — it is another player's turn (COM-2, ATK-26...; not when the game
      waits for someone's decision or owed presses: the message names what it waits for);
    * ``press_first`` — refused because the player still owes launcher presses (ATK-11...).

    ``detail`` is the English message without the rule.
    """

    def __init__(
        self,
        rule: str,
        message: str,
        *,
        why: str | None = None,
        action: Any = None,
        out_of_turn: bool = False,
        press_first: bool = False,
    ) -> None:
        super().__init__(f"{rule}: {message}")
        self.rule = rule
        self.detail = message
        self.why = message if why is None else why
        self.action = action
        self.out_of_turn = out_of_turn
        self.press_first = press_first
