"""The UNO Attack launcher abstraction: "press once -> k cards come out" (ATK-25).

The engine only needs ``press(player) -> int``. Three kinds exist here:

* :class:`ListLauncher` — a fixed list of counts (the ``launcher`` of a scenario file);
* :class:`PatternLauncher` — a simulated launcher: the firmware's own ejection pattern
  (``firmware/launcher/pattern.py``) with a launcher configuration;
* anything else with a ``press`` method, e.g. a real launcher driven over serial.

At a real table the observed count travels with the action instead
(``{"by": "Bob", "press": true, "cards": 3}``); the engine asks its launcher only when
an action carries no count.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, Protocol, runtime_checkable

__all__ = ["Launcher", "ListLauncher", "PatternLauncher"]


@runtime_checkable
class Launcher(Protocol):
    """Something that fires for one press and says how many cards came out."""

    def press(self, player: str) -> int:
        """Fire for one press by ``player``; return the number of cards shot out (>= 0)."""
        ...


class ListLauncher:
    """Yields the given counts in order, then 0 for every further press (scenario format)."""

    def __init__(self, counts: Iterable[int] = ()) -> None:
        self.counts = [int(c) for c in counts]
        if any(c < 0 for c in self.counts):
            raise ValueError("launcher counts must be >= 0")
        self.presses = 0

    def press(self, player: str) -> int:
        """Return the next count of the list (0 once the list is used up)."""
        i = self.presses
        self.presses += 1
        return self.counts[i] if i < len(self.counts) else 0


class PatternLauncher:
    """The launcher as the firmware decides it: each press is ``Pattern.press()`` of the
    firmware's own ``launcher/pattern.py`` (imported, never copied), with its own seeded
    ``Rng`` — the same seed gives the same presses as a board after ``seed``.

    ``config`` is a launcher configuration (a whole ``launcher.json`` or just its
    ``fire_chance_pct``, ``max_blanks`` and ``burst_weights``); missing keys take the
    firmware's defaults, and a value the firmware would refuse raises ``ValueError``.

    It keeps the launcher's statistics: ``presses``, ``fires``, ``cards``, ``histogram``
    (``histogram[k]`` = presses that shot ``k`` cards, ``histogram[0]`` the blanks) and
    ``max_blank_streak``.
    """

    def __init__(self, seed: int = 0, config: Mapping[str, Any] | None = None) -> None:
        from unolaunch.fwconfig import load_pattern_module, pattern_settings

        module = load_pattern_module()
        self.settings = pattern_settings(config)
        self.pattern = module.Pattern(module.Rng(seed))
        self.pattern.configure(self.settings)
        self.presses = 0
        self.fires = 0
        self.cards = 0
        self.histogram = [0] * (len(self.settings["burst_weights"]) + 1)
        self.max_blank_streak = 0
        self._press = self.pattern.press

    def press(self, player: str) -> int:
        """Fire for one press: the pattern's count (0 for a blank press)."""
        k: int = self._press()
        self.presses += 1
        self.histogram[k] += 1
        if k:
            self.fires += 1
            self.cards += k
        else:
            streak = self.pattern.blanks
            if streak > self.max_blank_streak:
                self.max_blank_streak = streak
        return k
