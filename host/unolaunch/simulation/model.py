"""The time model: seconds a table spends on a round, from the counts of a simulation.

    seconds = play x (actions that are not presses) + press x presses
            + (ramp_ms / 2 + brake_ms) / 1000 x firing presses
            + ms_per_card / 1000 x cards shot + reload x reloads

The three table figures default to a stated guess (:data:`SECONDS_PER_PLAY`, ...);
:mod:`unolaunch.simulation.calibrate` measures them from the journal of real games.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

__all__ = ["SECONDS_PER_PLAY", "SECONDS_PER_PRESS", "SECONDS_PER_RELOAD", "TimeModel"]

#: The time model's defaults, seconds per action (see the module's docstring).
SECONDS_PER_PLAY = 4.0
SECONDS_PER_PRESS = 2.0
SECONDS_PER_RELOAD = 30.0


@dataclass(frozen=True)
class TimeModel:
    """Seconds a table spends on a round (the module's docstring gives the formula)."""

    play: float = SECONDS_PER_PLAY
    press: float = SECONDS_PER_PRESS
    reload: float = SECONDS_PER_RELOAD
    ms_per_card: int = 115
    ramp_ms: int = 80
    brake_ms: int = 50

    @classmethod
    def for_config(cls, config: Mapping[str, Any], **seconds: float) -> TimeModel:
        """The model with the motor figures of a launcher configuration."""
        return cls(
            ms_per_card=int(config["ms_per_card"]),
            ramp_ms=int(config["ramp_ms"]),
            brake_ms=int(config["brake_ms"]),
            **seconds,
        )

    def seconds(
        self, actions: int, presses: int, fires: int, cards: int, reloads: int
    ) -> float:  # fmt: skip
        """The estimated seconds of a stretch of play with these counts."""
        return (
            (actions - presses) * self.play
            + presses * self.press
            + fires * (self.ramp_ms / 2 + self.brake_ms) / 1000
            + cards * self.ms_per_card / 1000
            + reloads * self.reload
        )

    def to_json(self) -> dict[str, Any]:
        """The model as stated in ``--json``."""
        return {
            "seconds_per_play": self.play,
            "seconds_per_press": self.press,
            "seconds_per_reload": self.reload,
            "ms_per_card": self.ms_per_card,
            "cards_per_second": round(1000 / self.ms_per_card, 2),
            "ramp_ms": self.ramp_ms,
            "brake_ms": self.brake_ms,
            "formula": "play*(actions-presses) + press*presses + (ramp_ms/2+brake_ms)/1000*fires"
            " + ms_per_card/1000*cards + reload*reloads",
        }
