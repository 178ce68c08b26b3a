"""A guided check of a freshly wired launcher: each part in turn, PASS or FAIL.

The firmware is asked ``hello`` first (version, configuration status). Then the self-test
takes the board's REPL through mpremote (as ``unolaunch flash`` does, with the same
:class:`~unolaunch.flash.Board`) and drives the pins itself with the *flashed firmware's own
code* — ``launcher.config.load()`` for the pins, ``launcher.board`` to claim them the way the
firmware does, ``launcher.motor.Motor`` for a soft-started pulse — so it tests the wiring,
not a copy of it: the motor turns briefly each way, the sensor must see its beam clear and
then blocked by a card, the button must be pressed, the buzzer beeps and the LED blinks. At
the end the board is soft-reset and must answer ``hello`` again.

Where only a person can tell (did the roller turn? did it beep?), :class:`Person` is asked,
unless ``assume_yes``. Timed waits for the person (push a card, press the button) run on the
board in slices of a few seconds so that mpremote's read timeout never fires.
"""

from __future__ import annotations

import ast
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

from unolaunch.errors import UnolaunchError
from unolaunch.flash import Board, BoardCodeError, FlashError, firmware_version, hello, resolve_port

__all__ = ["Check", "Person", "run_selftest"]

PASS, FAIL, SKIP = "PASS", "FAIL", "SKIP"
PULSE_MS = 300  # a motor pulse: long enough to see the roller turn, too short to jam
WAIT_SLICE_MS = 4000  # longest wait in one board call (mpremote's read timeout is 10 s)
HUMAN_TIMEOUT_S = 20.0  # time given to the person to press the button or push a card


@dataclass(frozen=True)
class Check:
    """The outcome of one item: ``PASS``, ``FAIL`` or ``SKIP`` (not fitted), and why."""

    name: str
    status: str
    detail: str

    @property
    def ok(self) -> bool:
        """True unless the item failed (a part that is not fitted is not a failure)."""
        return self.status != FAIL


class Person(Protocol):
    """The person at the launcher: told what to do, asked what they saw."""

    def tell(self, message: str) -> None:
        """Say something (an instruction, before an action)."""

    def ask(self, question: str) -> bool:
        """A yes/no question about what they saw or heard."""

    def result(self, check: Check) -> None:
        """Report one item's outcome as soon as it is known."""


_LOAD = """\
from launcher import board, config
_cfg, _status, _errors = config.load()
print(repr((_cfg, _status, _errors)))
"""

_PULSE = """\
import time
from launcher.motor import Motor
_pa = board.pwm(_cfg[%(drive)r], _cfg["motor_pwm_hz"])
_pb = board.pwm(_cfg[%(hold)r], _cfg["motor_pwm_hz"])
_m = Motor(_pa, _pb)
_m.configure(_cfg)
_t = time.ticks_ms()
_ok = True
_m.start(_t)
try:
    while time.ticks_diff(time.ticks_ms(), _t) < %(ms)d:
        if not _m.tick(time.ticks_ms()):
            _ok = False
            break
        time.sleep_ms(2)
finally:
    _m.off()
print(repr(_ok))
"""

_WAIT_LEVEL = """\
import time
_p = board.input_pin(%(pin)r)
_t = time.ticks_ms()
_r = None
while time.ticks_diff(time.ticks_ms(), _t) < %(ms)d:
    if _p.value() == %(level)d:
        _r = time.ticks_diff(time.ticks_ms(), _t)
        break
    time.sleep_ms(1)
print(repr(_r))
"""

_LEVEL = """\
print(repr(board.input_pin(%(pin)r).value()))
"""

_BEEP = """\
import time
_bz = board.pwm(%(pin)r, %(hz)d)
for _i in range(3):
    _bz.duty_u16(32768)
    time.sleep_ms(150)
    _bz.duty_u16(0)
    time.sleep_ms(150)
"""

_BLINK = """\
import time
_led = board.led(%(pin)r)
for _i in range(3):
    _led.value(1)
    time.sleep_ms(300)
    _led.value(0)
    time.sleep_ms(300)
"""


class _Session:
    """The self-test's state: the board, its configuration, the person, the results."""

    def __init__(
        self,
        board: Board,
        person: Person,
        record: Callable[[str, str, str], None],
        assume_yes: bool,
        timeout_s: float,
        forward_only: bool = False,
    ) -> None:
        self.board = board
        self.person = person
        self.record = record
        self.assume_yes = assume_yes
        self.timeout_s = timeout_s
        self.forward_only = forward_only
        self.cfg: dict[str, Any] = {}

    def confirm(self, question: str) -> bool | None:
        """The person's answer, or None with ``assume_yes`` (nobody asked)."""
        if self.assume_yes:
            return None
        return self.person.ask(question)

    def run(self, template: str, timeout: float = 10.0, **values: Any) -> Any:
        """Run a snippet on the board and return the Python value it printed last."""
        out = self.board.exec(template % values, timeout=timeout).decode().strip()
        return ast.literal_eval(out.splitlines()[-1]) if out else None

    def wait_level(self, pin: Any, level: int, seconds: float) -> int | None:
        """Wait up to ``seconds`` for ``pin`` to read ``level``; ms it took, or None."""
        deadline = time.monotonic() + seconds
        waited = 0
        while True:
            left_ms = int((deadline - time.monotonic()) * 1000)
            if left_ms <= 0:
                return None
            ms = min(left_ms, WAIT_SLICE_MS)
            got = self.run(_WAIT_LEVEL, timeout=ms / 1000 + 5, pin=pin, level=level, ms=ms)
            if got is not None:
                return waited + int(got)
            waited += ms


def _firmware_check(record: Callable[[str, str, str], None], port: str) -> None:
    """hello: the version running and the configuration status (needs the firmware up)."""
    try:
        reply = hello(port, timeout=5.0)
    except UnolaunchError as exc:
        record(
            "firmware",
            FAIL,
            f"no answer to hello ({exc}); unplug and replug the launcher, or run "
            "'unolaunch flash' if the firmware is missing",
        )
        return
    running = str(reply.get("firmware"))
    shipped = firmware_version()
    note = "" if running == shipped else f"; this unolaunch has {shipped}: run 'unolaunch flash'"
    record(
        "firmware",
        PASS,
        f"{running}, protocol {reply.get('protocol')}, board {reply.get('board')}{note}",
    )
    status = reply.get("config_status")
    if status == "ok":
        record("config", PASS, "launcher.json is valid")
    elif status == "defaults:missing":
        record("config", PASS, "no launcher.json: the firmware uses its defaults")
    else:
        errors = reply.get("config_errors") or []
        why = "; ".join(f"{e.get('key')}: {e.get('reason')}" for e in errors if isinstance(e, dict))
        record(
            "config",
            FAIL,
            f"{status}: the firmware ignored launcher.json{' (' + why + ')' if why else ''}; "
            "fix it with 'unolaunch flash --config FILE'",
        )


def _motor_checks(session: _Session) -> None:
    for direction, drive, hold in (
        ("forward", "motor_a_pin", "motor_b_pin"),
        ("reverse", "motor_b_pin", "motor_a_pin"),
    ):
        name = f"motor {direction}"
        if direction == "reverse" and session.forward_only:
            session.record(name, SKIP, "a one-direction build (--forward-only)")
            continue
        session.person.tell(
            f"Motor {direction}: the roller turns for {PULSE_MS / 1000:g} s. Keep fingers clear"
            + (" (a card may fly out)." if direction == "forward" else ".")
        )
        try:
            completed = session.run(_PULSE, drive=drive, hold=hold, ms=PULSE_MS)
        except BoardCodeError as exc:
            session.record(name, FAIL, f"could not drive the motor pins: {exc}")
            continue
        if not completed:
            session.record(name, FAIL, "the firmware's motor limit stopped the pulse early")
            continue
        answer = session.confirm(f"Did the roller turn {direction}?")
        if answer is None:
            session.record(name, PASS, "pulse sent (not confirmed: --yes)")
        elif answer:
            session.record(name, PASS, "the roller turned")
        else:
            pins = f"GP{session.cfg.get(drive)} drives, GP{session.cfg.get(hold)} held low"
            mosfet = (
                "; a one-direction MOSFET build cannot reverse" if hold == "motor_a_pin" else ""
            )
            session.record(
                name,
                FAIL,
                f"the roller did not turn ({pins}): check the driver's VM supply (batteries in, "
                f"switch on), the common ground, nSLEEP/STBY at 3V3 and the motor wires{mosfet}",
            )


def _sensor_check(session: _Session) -> None:
    pin = session.cfg.get("sensor_pin")
    if pin is None:
        session.record("card sensor", SKIP, "no sensor configured (sensor_pin is null)")
        return
    blocked = int(session.cfg.get("sensor_blocked_value", 0))
    clear = 1 - blocked
    # A card may still be settling after the motor pulse: give it a moment to clear.
    if session.run(_LEVEL, pin=pin) != clear and session.wait_level(pin, clear, 2.0) is None:
        session.record(
            "card sensor",
            FAIL,
            f"the beam reads blocked with nothing in it (GP{pin} = {blocked}): check that "
            "the emitter is powered and faces the receiver, and that no card is stuck",
        )
        return
    session.person.tell(
        f"Card sensor: beam clear. Now push a card through the launcher's mouth, "
        f"through the beam (within {session.timeout_s:g} s)."
    )
    if session.wait_level(pin, blocked, session.timeout_s) is None:
        session.record(
            "card sensor",
            FAIL,
            f"the beam was never seen blocked (GP{pin} stayed {clear}): check the receiver's "
            "OUT wire, its 10 kΩ pull-up to 3V3, and that the card passes between the two",
        )
        return
    if session.wait_level(pin, clear, 5.0) is None:
        session.record("card sensor", FAIL, "the beam was blocked but never cleared again")
        return
    session.record("card sensor", PASS, "beam clear, blocked by the card, clear again")


def _button_check(session: _Session) -> None:
    pin = session.cfg["button_pin"]
    if session.run(_LEVEL, pin=pin) != 1:
        session.record(
            "button",
            FAIL,
            f"GP{pin} reads pressed while nobody touches the button: it is shorted to GND "
            "or wired to the wrong pin",
        )
        return
    session.person.tell(
        f"Button: press the launcher's button now (within {session.timeout_s:g} s)."
    )
    if session.wait_level(pin, 0, session.timeout_s) is None:
        session.record(
            "button",
            FAIL,
            f"no press seen on GP{pin}: check that the button connects GP{pin} to GND",
        )
        return
    if session.wait_level(pin, 1, 5.0) is None:
        session.record("button", FAIL, "pressed but never released: is it stuck?")
        return
    session.record("button", PASS, "pressed and released")


def _output_check(
    session: _Session,
    name: str,
    key: str,
    template: str,
    question: str,
    confirmed: str,
    **values: Any,
) -> None:
    pin = session.cfg.get(key)
    if pin is None:
        session.record(name, SKIP, f"no {name} configured ({key} is null)")
        return
    try:
        session.run(template, pin=pin, **values)
    except BoardCodeError as exc:
        session.record(name, FAIL, f"could not drive {key}: {exc}")
        return
    answer = session.confirm(question)
    if answer is None:
        session.record(name, PASS, "signal sent (not confirmed: --yes)")
    elif answer:
        session.record(name, PASS, confirmed)
    else:
        session.record(name, FAIL, f"nothing on {key} = {pin}: check its wiring and polarity")


def run_selftest(
    port: str,
    person: Person,
    *,
    assume_yes: bool = False,
    timeout_s: float = HUMAN_TIMEOUT_S,
    forward_only: bool = False,
) -> list[Check]:
    """Check the launcher on ``port`` (``"auto"``: find it) item by item; return the results.

    ``forward_only`` is for a launcher whose motor can only run one way (a MOSFET instead of
    an H-bridge): the reverse pulse is skipped.

    Raises :class:`~unolaunch.flash.FlashError` when there is no usable board at all (no
    port, busy port, no MicroPython).
    """
    device = resolve_port(port)
    results: list[Check] = []

    def record(name: str, status: str, detail: str) -> None:
        check = Check(name, status, detail)
        results.append(check)
        person.result(check)

    _firmware_check(record, device)
    with Board(device) as board:
        session = _Session(board, person, record, assume_yes, timeout_s, forward_only)
        try:
            cfg, _status, _errors = session.run(_LOAD)
        except BoardCodeError as exc:
            record(
                "firmware files",
                FAIL,
                f"the launcher firmware is not on this board ({exc}): run 'unolaunch flash'",
            )
            return results
        session.cfg = dict(cfg)
        _motor_checks(session)
        _sensor_check(session)
        _button_check(session)
        _output_check(
            session, "buzzer", "buzzer_pin", _BEEP, "Did you hear three beeps?", "you heard it",
            hz=int(session.cfg.get("beep_hz", 2700)),
        )  # fmt: skip
        _output_check(
            session, "LED", "led_pin", _BLINK, "Did the LED blink three times?", "you saw it"
        )
        board.soft_reset()
    try:
        reply = hello(device, timeout=15.0)
        record("restart", PASS, f"the launcher runs again ({reply.get('firmware')})")
    except FlashError as exc:
        record("restart", FAIL, f"the launcher did not come back: {exc}")
    return results
