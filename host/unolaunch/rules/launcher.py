"""The UNO Attack launcher abstraction: "press once -> k cards come out" (ATK-25).

The engine only needs ``press(player) -> int``. Three kinds exist here:

* :class:`ListLauncher` — a fixed list of counts (the ``launcher`` of a scenario file);
* :class:`RandomLauncher` — a simulated launcher with a configurable distribution;
* anything else with a ``press`` method, e.g. a real launcher driven over serial.

At a real table the observed count travels with the action instead
(``{"by": "Bob", "press": true, "cards": 3}``); the engine asks its launcher only when
an action carries no count.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence
from typing import Protocol, runtime_checkable

__all__ = ["DEFAULT_WEIGHTS", "Launcher", "ListLauncher", "RandomLauncher"]


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


#: Default simulated distribution, cards out per press: often none, sometimes a few,
#: now and then a great many (ATK-25). Index = number of cards, value = weight.
DEFAULT_WEIGHTS: tuple[int, ...] = (45, 18, 12, 8, 6, 4, 3, 2, 1, 1)


class RandomLauncher:
    """A simulated launcher: each press yields k cards with probability ``weights[k]``.

    It has its own ``random.Random`` (seeded from ``seed`` or the ``rng`` given) so that the
    game's shuffles and the launcher's whims are independent streams.
    """

    def __init__(
        self,
        rng: random.Random | int | None = None,
        weights: Sequence[int] = DEFAULT_WEIGHTS,
    ) -> None:
        if not weights or any(w < 0 for w in weights) or sum(weights) <= 0:
            raise ValueError("launcher weights must be >= 0 with a positive sum")
        if isinstance(rng, random.Random):
            self.rng = random.Random(rng.getrandbits(64))
        else:
            self.rng = random.Random(rng)
        self.weights = tuple(weights)
        # A cumulative table of 256 slots would be faster, but this keeps exact weights.
        self._table = [k for k, w in enumerate(self.weights) for _ in range(w)]
        self._n = len(self._table)

    def press(self, player: str) -> int:
        """Return a random number of cards out, drawn from the weights."""
        return self._table[int(self.rng.random() * self._n)]
