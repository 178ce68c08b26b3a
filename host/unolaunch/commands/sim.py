"""``unolaunch sim``: a simulated launcher on a real serial device, driven from stdin."""

from __future__ import annotations

import argparse
import os
import signal
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from types import FrameType
from typing import Any, TextIO

from unolaunch.errors import UsageError
from unolaunch.sim import SEED_MAX, SimBoard, SimError, add_board_arguments, make_launcher

HELP = "start a simulated launcher on a serial device"

DESCRIPTION = """\
Start a simulated launcher: the real firmware, running in MicroPython, behind a real
serial device (a pty) that any serial program can open -- `unolaunch monitor`,
`unolaunch play --port`, mpremote, Thonny, picocom. Two boards: `--board unix` (default)
runs it in MicroPython's unix port with a simulated Pico; `--board rp2040` runs the
MicroPython a Pico runs (its rp2 port) in an emulated RP2040 chip.

Its flash holds the launcher firmware already, as if 'unolaunch flash' had been run (a
--flash-dir keeps it, with any configuration, between runs). With --blank you get a Pico
fresh from MicroPython's .uf2 instead: MicroPython alone, no firmware, nothing answering the
launcher's protocol until you run 'unolaunch flash --port DEVICE' (the first flash of a
board you have just built).

The first line of standard output is the path of the device. Standard error reports what
the simulated hardware does: the motor starting and stopping, cards out, jams, reboots,
the cable (-v adds the motor's speed, the buzzer, the LED and the button).

Standard input takes one command a line:
  press          press and release the launcher's button
  hold MS        hold the button down for MS milliseconds
  down / up      hold the button down until 'up' / let it go
  beam block     something blocks the card sensor's beam (a card, a finger) until
  beam clear       'beam clear' (a card is counted once the beam clears again)
  jam / unjam    jam the card path / clear it (unjam also pulls out a card left in the mouth)
  load N         refill: the magazine now holds N cards
  unplug         pull the USB cable (the board loses power, the device disappears)
  replug         plug it back in (a new device appears; --link follows it)
  reset          press the board's reset button
  stall          the USB host stops reading the board's output (the port stays open)
  unstall        the USB host reads again
  quit           stop the simulator (so does Ctrl-C)

At the end of input on a terminal (Ctrl-D) the simulator stops. When standard input is not a
terminal (a script starting it in the background), it runs on after the end of input, so the
device stays for the script, until Ctrl-C or SIGTERM; stderr says so.
If the firmware starts in safe mode (the button held through a boot), stderr says so.
While 'unolaunch selftest' beeps the buzzer or blinks the LED, stderr shows them without -v.
Before a self-test type 'load 0': it asks for the cards out (the motor pulse shoots one).

Example, in two terminals:
  unolaunch sim --link /tmp/launcher        # terminal 1
  unolaunch monitor --port /tmp/launcher    # terminal 2; then type 'press' in terminal 1
"""

COMMANDS_HELP = (
    "commands: press, hold MS, jam, unjam, load N, unplug, replug, reset, stall, unstall, "
    "quit "
    "(also: down, up, beam block, beam clear)"
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of ``unolaunch sim``."""
    parser.add_argument(
        "--seed",
        type=int,
        metavar="S",
        help="seed the firmware's ejection pattern with S (0-4294967295) at every boot: the "
        "same seed and the same presses give the same cards out (default: a random pattern, "
        "as on a real launcher)",
    )
    parser.add_argument(
        "--cards", type=int, default=112, metavar="N", help="cards in the magazine (112)"
    )
    parser.add_argument(
        "--no-sensor",
        action="store_true",
        help='simulate a launcher built without the card sensor; sets "sensor_pin": null in '
        "the flash's launcher.json (other settings kept) unless it names a pin of its own, so "
        "bursts run open loop (eject events say counted: false) instead of faulting as jams",
    )
    parser.add_argument(
        "--link",
        metavar="PATH",
        help="also make PATH a symlink to the device; it follows the device across unplug/replug",
    )
    parser.add_argument(
        "-v",
        "--verbose",
        action="store_true",
        help="also report every motor speed change, the buzzer and the LED",
    )
    parser.add_argument(
        "--flash-dir",
        metavar="DIR",
        help="keep the board's flash (firmware, config) in DIR between runs (the rp2040 "
        "board keeps its whole flash image there, DIR/flash.bin); default: a fresh "
        "temporary copy of the firmware",
    )
    parser.add_argument(
        "--blank",
        action="store_true",
        help="a Pico fresh from MicroPython's .uf2: no launcher firmware on its flash until "
        "'unolaunch flash' copies it (default: the firmware is there already); with "
        "--flash-dir, a new or empty folder",
    )
    parser.add_argument(
        "--uf2",
        metavar="FILE",
        help="with --board rp2040: start as a Pico that had FILE copied onto its RPI-RP2 "
        "drive in BOOTSEL mode (e.g. the file 'unolaunch uf2' writes): a blank flash, or "
        "--flash-dir's, written as the Pico's boot ROM writes it, and nothing else",
    )
    parser.add_argument(
        "--uart",
        type=int,
        choices=(0, 1),
        metavar="ID",
        help="also wire UART ID's pins (0 or 1) to a second serial device, printed on the "
        "second line of output: the firmware speaks the protocol there too when its "
        'launcher.json sets "uart_id" to ID (as a USB-serial adapter on a Pico\'s pins would)',
    )
    add_board_arguments(parser)


def _read_uf2(args: argparse.Namespace) -> bytes | None:
    """The bytes of ``--uf2 FILE`` (None without it); a usage error on the unix board."""
    if args.uf2 is None:
        return None
    if args.board != "rp2040":
        raise UsageError("--uf2 needs --board rp2040 (the unix board has no flash chip)")
    if args.blank:
        raise UsageError("--uf2 and --blank do not go together: the .uf2 is the flash")
    try:
        return Path(args.uf2).read_bytes()
    except OSError as exc:
        raise UsageError(f"--uf2 {args.uf2}: {exc.strerror or exc}") from None


def describe(ev: dict[str, Any]) -> str:
    """One readable line for a hardware report (docs/architecture.md §3) or a simulator event."""
    kind = ev.get("hw")
    if kind == "motor":
        duty = float(ev.get("duty", 0) or 0)
        direction = ev.get("dir", 0)
        if ev.get("brake"):
            return "motor brake"
        if duty <= 0 or direction == 0:
            return "motor off"
        way = "forward" if direction == 1 else "reverse"
        return f"motor on {way} at {duty:.0%}"
    if kind == "card":
        return f"card out ({ev.get('left')} left)"
    if kind == "jammed":
        return "card path jammed"
    if kind == "buzzer":
        freq = ev.get("freq", 0)
        return f"buzzer {freq} Hz" if freq else "buzzer off"
    if kind == "led":
        return "LED on" if ev.get("on") else "LED off"
    if kind == "button":
        return "button pressed" if ev.get("down") else "button released"
    if kind == "reset":
        return "board reset (watchdog)" if ev.get("cause") == "wdt" else "board reset"
    if kind == "boot":
        cause = {
            "power_on": "power on",
            "soft_reset": "soft reset",
            "reset": "reset",
            "wdt": "watchdog reset",
        }.get(str(ev.get("cause")), str(ev.get("cause")))
        where = ", raw REPL" if ev.get("raw_repl") else ""
        return f"board boots ({cause}{where})"
    if kind == "safe_mode":
        return (
            "the firmware started in safe mode (the button was held through the boot): the "
            "launcher is idle, the REPL free; with the button released ('up' if you held "
            "it), type 'reset' to start the launcher"
        )
    if kind == "selftest":
        part = ev.get("part")
        if not part:
            return "self-test: that part is done"
        name = {"led": "LED", "motor_forward": "motor (forward)"}.get(str(part), str(part))
        name = {"motor_reverse": "motor (reverse)"}.get(str(part), name)
        return f"self-test: the firmware drives the {name}"
    if kind == "usb":
        if ev.get("connected"):
            return f"USB plugged in: {ev.get('port')}"
        return "USB unplugged: the device is gone and the board has no power"
    if kind == "garbled":
        return f"unreadable report from the board: {ev.get('line')!r}"
    rest = ", ".join(f"{k}={v}" for k, v in ev.items() if k != "hw")
    return f"{kind}: {rest}" if rest else str(kind)


class _Reporter:
    """Hardware reports on stderr: by default the motor starting and stopping, cards, jams,
    reboots and the cable, and the buzzer and the LED while a self-test drives them (the
    person is asked whether they beeped and blinked); ``verbose`` adds every motor speed
    change and the buzzer and LED at any time."""

    def __init__(self, stream: TextIO, verbose: bool = False) -> None:
        self.stream = stream
        self.verbose = verbose
        self.t0 = time.monotonic()
        self.lock = threading.Lock()
        self.motor = "off"  # "off", "on" or "brake": what was said last
        self.testing: str | None = None  # the part a self-test drives now
        # what the person was last told of the buzzer and the LED: a self-test that first
        # silences a ready chime they never saw is not news (an "off" without an "on")
        self.told = {"buzzer": "buzzer off", "led": "LED off"}

    def __call__(self, ev: dict[str, Any]) -> None:
        kind = ev.get("hw")
        if kind == "selftest":
            self.testing = ev.get("part") or None
        elif kind == "boot":
            self.testing = None  # a reboot ends a test
        if not self.verbose:
            if kind == "button":
                return
            if kind == "selftest" and self.testing not in ("buzzer", "led"):
                return  # only the buzzer and the LED are shown differently meanwhile
            if kind in ("buzzer", "led"):
                if self.testing != kind:
                    return
                text = describe(ev)
                if self.told[kind] == text:
                    return
                self.told[kind] = text
            if kind == "motor":
                said = describe(ev)
                state = "brake" if ev.get("brake") else ("off" if said == "motor off" else "on")
                full = float(ev.get("duty", 0) or 0) >= 0.99
                if state == "on" and self.motor == "brake" and ev.get("dir") == -1 and full:
                    # the brake letting go: IN1 drops before IN2, so the bridge passes through
                    # (low, high) for microseconds - not a reverse run (issue 20)
                    self.motor = "coast"
                    return
                if state == self.motor:
                    return  # the ramp: only say when it starts and stops
                self.motor = state
                if state == "on":
                    way = "forward" if ev.get("dir") == 1 else "reverse"
                    self.say(f"motor on ({way})")
                    return
        self.say(describe(ev))

    def say(self, text: str) -> None:
        with self.lock:
            try:
                self.stream.write(f"[{time.monotonic() - self.t0:9.3f}] {text}\n")
                self.stream.flush()
            except (OSError, ValueError):
                pass  # stderr closed: the simulation goes on


#: What a command that the simulated hardware does not report itself did (issue 19: every
#: command answers, so a person typing sees it was taken).
DONE = {
    "stall": "the USB host stopped reading the board's output ('unstall' to read again)",
    "unstall": "the USB host reads the board's output again",
    "down": "button held down ('up' to release it)",
    "up": "button released",
    "beam block": "the card beam is blocked ('beam clear' to clear it)",
    "beam clear": "the card beam is clear",
}


def handle(sim: SimBoard, line: str, say: Callable[[str], None] | None = None) -> bool:
    """Carry out one stdin command; return False for ``quit``. Raises SimError (with the
    list of commands) for a line it does not understand. ``say`` hears what a command did
    when the simulated hardware does not report it (``load``, ``stall``, ``down`` …)."""
    words = line.split()
    if not words:
        return True
    verb, args = words[0].lower(), words[1:]
    if verb in ("quit", "exit") and not args:
        return False
    if not args and verb in ("unplug", "replug", "reset", "press", "stall", "unstall"):
        if verb == "unplug" and not sim.plugged:
            raise SimError("already unplugged; type 'replug' to plug it back in")
        if verb == "replug" and sim.plugged:
            raise SimError("already plugged in")
        if verb in ("reset", "press", "stall", "unstall") and not sim.plugged:
            raise SimError(f"the board has no power (unplugged): {verb} does nothing; 'replug'")
    if verb == "hold" and len(args) == 1 and args[0].isdigit():
        sim.control(f"press {args[0]}")
    elif verb == "unplug" and not args:
        sim.unplug()
    elif verb == "replug" and not args:
        sim.replug()
    elif verb == "reset" and not args:
        sim.reset()
    elif verb == "stall" and not args:
        sim.stall()
    elif verb == "unstall" and not args:
        sim.unstall()
    elif verb in ("help", "?"):
        raise SimError(COMMANDS_HELP)
    else:
        try:
            sim.control(" ".join([verb, *args]))
        except SimError:
            raise SimError(f"unknown command {line.strip()!r}; {COMMANDS_HELP}") from None
    said = " ".join([verb, *args])
    if say is not None:
        if verb == "load" and len(args) == 1:
            n = int(args[0])
            say(f"magazine loaded: it holds {n} card{'s' if n != 1 else ''} now")
        elif said in DONE:
            say(DONE[said])
    return True


def _terminate(signum: int, frame: FrameType | None) -> None:
    raise KeyboardInterrupt


def run(args: argparse.Namespace) -> int:
    """Run the simulator until ``quit``, end of input on a terminal, or a signal."""
    if args.cards < 0 or args.cards > 500:
        raise UsageError(f"--cards must be between 0 and 500, not {args.cards}")
    if args.seed is not None and not 0 <= args.seed <= SEED_MAX:
        raise UsageError(f"--seed must be between 0 and {SEED_MAX}, not {args.seed}")
    if args.link:
        link = Path(args.link)
        if link.exists() and not link.is_symlink():
            raise UsageError(f"--link {link}: a file is already there; choose another path")
        if link.is_symlink() and link.exists():  # a live device: another simulator's link
            raise UsageError(
                f"--link {link} already points at {os.path.realpath(link)} (another simulator "
                "running?): stop it or choose another path"
            )
    uf2 = _read_uf2(args)
    reporter = _Reporter(sys.stderr, args.verbose)
    signal.signal(signal.SIGTERM, _terminate)
    signal.signal(signal.SIGHUP, _terminate)
    sim = make_launcher(
        args.board,
        rp2_dir=args.rp2_dir,
        flash_dir=args.flash_dir,
        cards=args.cards,
        sensor=not args.no_sensor,
        seed=args.seed,
        link=args.link,
        on_hw=reporter,
        uart=args.uart,
        blank=args.blank,
        **({"uf2": uf2} if uf2 is not None else {}),
    )
    with sim:
        print(sim.port, flush=True)
        if args.uart is not None:
            print(sim.uart_port, flush=True)
            reporter.say(f"UART{args.uart}'s pins are wired to {sim.uart_port}")
        if args.link:
            reporter.say(f"device {sim.port}, also at {sim.link}")
        if args.blank:
            reporter.say(
                "a blank Pico (MicroPython only): 'unolaunch flash --port "
                f"{sim.link if args.link else sim.port}' puts the launcher firmware on it"
            )
        reporter.say(f"simulated launcher running; {COMMANDS_HELP}")
        interactive = sys.stdin.isatty()
        try:
            while True:
                line = sys.stdin.readline()
                if not line:
                    if interactive:
                        break
                    # Input closed (e.g. started from a script): keep running until a signal.
                    reporter.say(
                        "end of input: the simulator runs on until Ctrl-C or SIGTERM "
                        f"(kill {os.getpid()})"
                    )
                    while True:
                        time.sleep(3600)
                try:
                    if not handle(sim, line, reporter.say):
                        break
                except SimError as exc:
                    reporter.say(str(exc))
        except KeyboardInterrupt:
            pass
        reporter.say("simulator stopped")
    return 0
