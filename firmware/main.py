# unolaunch launcher firmware: the Pico runs this file at power-up.
# Hold the launcher's button while plugging in for safe mode (REPL only, launcher idle).
#
# First of all, before any of the firmware loads (issue 20): Ctrl-C (0x03) on USB becomes a
# byte the launcher loop reads (the REPL takeover handshake, launcher/protocol.py), so a stray
# one during the half second of imports cannot stop main.py and leave the launcher at the
# REPL with no watchdog. One that came even before this line is pending: it is raised at the
# loop below and kept as the handshake's first half. The same on the unix port (the
# simulator): there kbd_intr(-1) leaves SIGINT to its default action, and the simulator's
# relay then writes a Ctrl-C to the firmware as a byte instead of sending a SIGINT.
ctrl_c = False
try:
    import micropython

    micropython.kbd_intr(-1)
    for _ in range(2):
        pass  # a jump: a KeyboardInterrupt pending from before the line above is raised here
except KeyboardInterrupt:
    import micropython

    micropython.kbd_intr(-1)
    ctrl_c = True

# What started this boot, told before the rest of the firmware loads: a watchdog reboot
# while at the REPL is told from a soft reset there by the clock, which a hard reset
# restarts - read now, its uptime is far below the moment the last boot left to the REPL,
# which came after all of the imports below (launcher/board.py, reset_cause).
from launcher import board  # noqa: E402

cause = board.reset_cause()

from launcher.app import main  # noqa: E402 (after Ctrl-C is a byte: see above)

main(ctrl_c, cause)
