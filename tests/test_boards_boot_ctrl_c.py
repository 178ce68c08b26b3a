"""A stray Ctrl-C right after a reset (issue 20, item 4), on both boards.

A single 0x03 in the first half second after a reset reached MicroPython before ``main.py``
had turned Ctrl-C into a byte (it imported ``launcher.app`` first): the launcher sat at the
REPL with no watchdog until someone reset it. ``main.py`` now does that first of all, so on the
rp2 port the byte is line noise: counted in ``status`` ``interrupts``, and the launcher runs
on.

The rp2040 board only, for now: on the unix board the relay repeats a Ctrl-C that the
process does not answer by going to the REPL for the first 5 s of a boot (a SIGINT can land
before MicroPython handles it), which makes one stray byte a takeover there. mpremote's
takeover on the unix board relies on that repeat (the unix port has no os.dupterm to give
the REPL the Ctrl-A the firmware read after the Ctrl-C), so the relay cannot simply stop
repeating: it would have to hand the REPL those bytes itself (issue 20, item 4, open).
"""

from __future__ import annotations

import time

import pytest
from board_harness import board_link

pytestmark = pytest.mark.timeout(240)


@pytest.mark.rp2040
@pytest.mark.parametrize("delay_s", [0.05, 0.3], ids=["0.05s", "0.3s"])
def test_a_stray_ctrl_c_right_after_a_reset_is_noise(delay_s: float) -> None:
    board = "rp2040"
    with board_link(board) as fw:
        fw.hello()
        boots = fw.sim.boots
        fw.sim.reset()
        time.sleep(delay_s)
        fw.send_raw(b"\x03")
        hello = fw.hello(timeout=60)  # at the REPL this would be a SyntaxError, no reply
        assert hello["ok"] and fw.sim.boots > boots
        assert hello["reset_cause"] != "soft", hello  # not a REPL soft-reset
        # longer than the TAKEOVER_MS window and than the watchdog: still the launcher
        time.sleep(1.0)
        status = fw.request("status", timeout=30)
        assert status["ok"] and status["state"] == "idle"
        assert status["interrupts"] <= 1, status  # the one byte, once (or lost before USB)
        assert not [line for line in fw.lines if b">>>" in line or b"Traceback" in line]
