"""The simulated launcher: the real firmware in the MicroPython unix port, behind a pty.

See :class:`SimulatedLauncher` (CONTRACTS.md §2). ``board/`` holds the fake ``machine``
module and the launcher physics (MicroPython code, owned by the firmware).
"""

from __future__ import annotations

from unolaunch.sim.runner import (
    BOARD_DIR,
    SEED_MAX,
    SimError,
    SimulatedLauncher,
    configure_without_sensor,
    find_micropython,
)

__all__ = [
    "BOARD_DIR",
    "SEED_MAX",
    "SimError",
    "SimulatedLauncher",
    "configure_without_sensor",
    "find_micropython",
]
