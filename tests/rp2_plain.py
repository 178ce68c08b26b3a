"""Plain MicroPython on the emulated RP2040: the rp2 port from the ``.uf2`` with no launcher
firmware on its filesystem, behind a pty (for the chip's own conformance tests and
MicroPython's test suite, tests/test_rp2040_isa.py and tests/test_rp2040_micropython.py).

It is the same :class:`unolaunch.sim.rp2040.Rp2040Launcher` the launcher tests use (the
runner, USB, flash and lockstep are the same), booted from a flash image whose filesystem
holds only ``files``. Skipped (failing under ``CI=true``) as the rest of the rp2040 tier
when the board cannot run here.
"""

from __future__ import annotations

import contextlib
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

from board_harness import require_board
from unolaunch.rp2image import build_image
from unolaunch.sim.rp2040 import Rp2040Launcher, find_rp2_files


@contextlib.contextmanager
def plain_board(
    folder: Path, files: dict[str, bytes] | None = None, uart: int | None = None
) -> Iterator[Rp2040Launcher]:
    """A started emulated RP2040 running plain MicroPython; ``files`` go on its filesystem
    (path -> bytes), ``uart`` is the UART wired to a host (``uart_port``). The flash image
    is kept in ``folder``."""
    require_board("rp2040")
    rp2 = find_rp2_files()
    folder.mkdir(parents=True, exist_ok=True)
    image = build_image(rp2.uf2.read_bytes(), dict(files or {}), str(rp2.uf2))
    (folder / "flash.bin").write_bytes(image)
    with Rp2040Launcher(flash_dir=folder, uart=uart) as sim:
        yield sim


def run_script(port: str, script: str, timeout: float = 120) -> str:
    """Run ``script`` on the board at ``port`` through the raw REPL (mpremote); its output.
    A board that answers with an error fails the calling test with the board's traceback."""
    proc = subprocess.run(
        [sys.executable, "-m", "mpremote", "connect", port, "exec", script],
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    assert proc.returncode == 0, f"the board failed the script:\n{proc.stdout}\n{proc.stderr}"
    return proc.stdout
