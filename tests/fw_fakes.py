"""CPython stand-ins for the Pico's pins, used by the firmware logic unit tests.

The logic modules never import ``machine``: they are handed objects with ``value()``,
``duty_u16()``, ``freq()`` and ``irq()``; these are the smallest such objects.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any

from fw_harness import FIRMWARE

if str(FIRMWARE) not in sys.path:
    sys.path.insert(0, str(FIRMWARE))


class FakePin:
    def __init__(self, level: int = 1) -> None:
        self.level = level
        self.handler: Callable[[Any], None] | None = None
        self.trigger = 0
        self.writes: list[int] = []

    def value(self, v: int | None = None) -> int | None:
        if v is None:
            return self.level
        self.level = v
        self.writes.append(v)
        return None

    def irq(self, handler: Callable[[Any], None] | None = None, trigger: int = 0) -> None:
        self.handler = handler
        self.trigger = trigger


class FakePWM:
    def __init__(self) -> None:
        self.duty = 0
        self.hz = 0
        self.history: list[int] = []

    def duty_u16(self, v: int) -> None:
        self.duty = v
        self.history.append(v)

    def freq(self, hz: int) -> None:
        self.hz = hz


class FakeSensor:
    """A sensor whose count and beam the test sets directly."""

    def __init__(self) -> None:
        self.count = 0
        self.is_blocked = False

    def blocked(self) -> bool:
        return self.is_blocked
