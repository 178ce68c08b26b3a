"""A guided check of a freshly wired launcher: each part in turn, PASS or FAIL.

Everything goes through the launcher's own serial protocol (version 2, docs/protocol.md):
``hello`` first (version, configuration status), then the firmware itself drives each part
inside its control loop — the watchdog fed, the motor's limits applied, the board never
taken away from the firmware: ``test`` pulses the motor each way, beeps the buzzer and
blinks the LED (a ``tested`` event says when it ended and whether it ran to the end), and
``inputs`` reads the button and the beam (and the cards the sensor has counted). The
launcher is put in hosted mode for the duration, so that the button press asked for never
fires the motor, and is given back in the mode it was in.

Where only a person can tell (did the roller turn? did it beep?), :class:`Person` is asked,
unless ``assume_yes``.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

from unolaunch.flash import firmware_version, resolve_port
from unolaunch.link import LauncherClient, LinkError, open_launcher
from unolaunch.link.errors import (
    CommandError,
    NoReplyError,
    PortBusyError,
    PortNotFoundError,
    PortPermissionError,
)

__all__ = ["Check", "Person", "run_selftest"]

PASS, FAIL, SKIP = "PASS", "FAIL", "SKIP"
PULSE_MS = 300  # a motor pulse: long enough to see the roller turn, too short to jam
HUMAN_TIMEOUT_S = 20.0  # time given to the person to press the button or push a card
POLL_S = 0.05  # between two `inputs` while waiting for the person
SETTLE_S = 0.1  # a card count that holds this long after a pulse is the pulse's (cards_settled)
LINK_TIMEOUT_S = 5.0  # per request (an emulated board answers in a few hundred ms)
SLOW_BOARD_WAITS = 4  # deadlines a part may overrun while the board says it is still testing


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


class _Session:
    """The self-test's state: the launcher, its configuration, the person, the results."""

    def __init__(
        self,
        client: LauncherClient,
        person: Person,
        record: Callable[[str, str, str], None],
        assume_yes: bool,
        timeout_s: float,
        forward_only: bool = False,
    ) -> None:
        self.client = client
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

    def drive(self, part: str, ms: int, count: int = 1) -> dict[str, Any]:
        """Run one ``test`` and wait for its ``tested`` event; return the event."""
        reply = self.client.test(part, ms, count)
        runs_s = int(reply.get("ms", ms)) / 1000

        def tested(e: dict[str, Any]) -> bool:
            return e.get("event") == "tested" and e.get("part") == part

        for _ in range(SLOW_BOARD_WAITS):
            try:
                return self.client.wait_for(tested, timeout=runs_s + LINK_TIMEOUT_S)
            except NoReplyError:
                # A board still testing is slow, not gone (an emulated chip on a loaded
                # machine runs below real time): wait again. If it has finished, its
                # `tested` event came before this reply and the next wait finds it.
                if self.client.status().get("state") != "testing":
                    return self.client.wait_for(tested, timeout=LINK_TIMEOUT_S)
        return self.client.wait_for(tested, timeout=runs_s + LINK_TIMEOUT_S)

    def cards_seen(self) -> int:
        """The cards the sensor has counted since boot (0 without a sensor)."""
        return int(self.client.inputs().get("cards_seen") or 0)

    def cards_settled(self) -> int:
        """:meth:`cards_seen` once the roller has stopped after a pulse: it brakes for the
        config's ``brake_ms`` and a card on its way out leaves meanwhile, so the count is
        read until it holds for SETTLE_S (a second at most). Asked at once, it missed that
        card whenever the firmware answered within the brake (issue 32)."""
        time.sleep(int(self.cfg.get("brake_ms") or 0) / 1000)
        seen = self.cards_seen()
        deadline = time.monotonic() + 1.0
        while time.monotonic() < deadline:
            time.sleep(SETTLE_S)
            now = self.cards_seen()
            if now == seen:
                break
            seen = now
        return seen

    def wait_inputs(
        self, until: Callable[[dict[str, Any]], bool], seconds: float
    ) -> dict[str, Any] | None:
        """Read ``inputs`` until ``until`` holds (that reading) or ``seconds`` pass (None)."""
        deadline = time.monotonic() + seconds
        while True:
            got = self.client.inputs()
            if until(got):
                return got
            if time.monotonic() >= deadline:
                return None
            time.sleep(POLL_S)


def _firmware_check(record: Callable[[str, str, str], None], info: dict[str, Any]) -> bool:
    """hello: the version running, its protocol and the configuration status. False when
    the firmware is too old for the rest of the self-test."""
    running = str(info.get("firmware"))
    shipped = firmware_version()
    proto = info.get("protocol")
    if not isinstance(proto, int) or proto < 2:
        record(
            "firmware",
            FAIL,
            f"{running} speaks protocol {proto}, which has no self-test commands: "
            "run 'unolaunch flash' to update it",
        )
        return False
    note = "" if running == shipped else f"; this unolaunch has {shipped}: run 'unolaunch flash'"
    record("firmware", PASS, f"{running}, protocol {proto}, board {info.get('board')}{note}")
    status = info.get("config_status")
    if status == "ok":
        record("config", PASS, "launcher.json is valid")
    elif status == "defaults:missing":
        record("config", PASS, "no launcher.json: the firmware uses its defaults")
    else:
        errors = info.get("config_errors") or []
        why = "; ".join(f"{e.get('key')}: {e.get('reason')}" for e in errors if isinstance(e, dict))
        record(
            "config",
            FAIL,
            f"{status}: the firmware ignored launcher.json{' (' + why + ')' if why else ''}; "
            "fix it with 'unolaunch flash --config FILE'",
        )
    return True


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
        before = session.cards_seen()
        try:
            done = session.drive(f"motor_{direction}", PULSE_MS)
        except CommandError as exc:
            session.record(name, FAIL, f"the firmware could not drive the motor: {exc}")
            continue
        shot = session.cards_settled() - before
        if shot > 0:
            # the magazine was not empty (on the simulator it is full unless told 'load 0')
            session.person.tell(
                f"{shot} card{'s' if shot != 1 else ''} flew out during the pulse: the "
                "magazine is not empty. Take the cards out before a self-test (on "
                "'unolaunch sim' type 'load 0')."
            )
        if not done.get("completed"):
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
    first = session.wait_inputs(lambda i: i.get("beam") == "clear", 2.0)
    if first is None:
        # the forward pulse can stop with a card part way out, in the beam
        session.person.tell(
            "Card sensor: the beam is blocked. If a card sticks out of the launcher's mouth "
            "(the motor pulse can push one part way out), pull it out "
            f"(within {session.timeout_s:g} s)."
        )
        first = session.wait_inputs(lambda i: i.get("beam") == "clear", session.timeout_s)
    if first is None:
        session.record(
            "card sensor",
            FAIL,
            f"the beam reads blocked with nothing in it (GP{pin} = {blocked}): check that "
            "the emitter is powered and faces the receiver, and that no card is stuck",
        )
        return
    seen = int(first.get("cards_seen") or 0)
    session.person.tell(
        f"Card sensor: beam clear. Now push a card through the launcher's mouth, "
        f"through the beam (within {session.timeout_s:g} s)."
    )
    # The firmware counts a card once the beam was blocked and then clear again, each for
    # sensor_min_ms: a card through the beam between two readings is not missed.
    blocked_seen = False

    def passed(i: dict[str, Any]) -> bool:
        nonlocal blocked_seen
        blocked_seen = blocked_seen or i.get("beam") == "blocked"
        return int(i.get("cards_seen") or 0) > seen

    counted = session.wait_inputs(passed, session.timeout_s) is not None
    if not counted and blocked_seen:  # a card is in the beam: give it time to come out
        counted = session.wait_inputs(passed, 5.0) is not None
    if counted:
        session.record("card sensor", PASS, "beam clear, blocked by the card, clear again")
    elif not blocked_seen:
        session.record(
            "card sensor",
            FAIL,
            f"the beam was never seen blocked (GP{pin} stayed {clear}): check the receiver's "
            "OUT wire, its 10 kΩ pull-up to 3V3, and that the card passes between the two",
        )
    else:
        session.record("card sensor", FAIL, "the beam was blocked but never cleared again")


def _button_check(session: _Session) -> None:
    pin = session.cfg["button_pin"]
    now = session.client.inputs()
    if now.get("button") != "up":
        session.record(
            "button",
            FAIL,
            f"GP{pin} reads pressed while nobody touches the button: it is shorted to GND "
            "or wired to the wrong pin",
        )
        return
    presses = int(now.get("presses") or 0)
    session.person.tell(
        f"Button: press the launcher's button now (within {session.timeout_s:g} s)."
    )
    # a press the firmware's own debounce counted (hosted and unarmed: it fires nothing)
    if (
        session.wait_inputs(lambda i: int(i.get("presses") or 0) > presses, session.timeout_s)
        is None
    ):
        session.record(
            "button",
            FAIL,
            f"no press seen on GP{pin}: check that the button connects GP{pin} to GND",
        )
        return
    if session.wait_inputs(lambda i: i.get("button") == "up", 5.0) is None:
        session.record("button", FAIL, "pressed but never released: is it stuck?")
        return
    session.record("button", PASS, "pressed and released")


def _output_check(
    session: _Session, name: str, part: str, ms: int, question: str, confirmed: str
) -> None:
    key = f"{part}_pin"
    pin = session.cfg.get(key)
    if pin is None:
        session.record(name, SKIP, f"no {name} configured ({key} is null)")
        return
    try:
        session.drive(part, ms, count=3)
    except CommandError as exc:
        session.record(name, FAIL, f"the firmware could not drive {key}: {exc}")
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

    Raises :class:`~unolaunch.flash.FlashError` or a port error
    (:class:`~unolaunch.link.LinkError`) when there is no usable serial device at all, and
    :class:`~unolaunch.link.LinkError` when the launcher goes away during the test.
    """
    device = resolve_port(port)
    results: list[Check] = []

    def record(name: str, status: str, detail: str) -> None:
        check = Check(name, status, detail)
        results.append(check)
        person.result(check)

    try:
        client = open_launcher(device, timeout=LINK_TIMEOUT_S)
    except (PortNotFoundError, PortBusyError, PortPermissionError):
        raise  # not the launcher's fault: the CLI says what to do with the port
    except LinkError as exc:
        record(
            "firmware",
            FAIL,
            f"no answer to hello ({exc.detail}); unplug and replug the launcher, or run "
            "'unolaunch flash' if the firmware is missing",
        )
        return results
    with client:
        if not _firmware_check(record, client.info):
            return results
        was = str(client.info.get("mode") or "standalone")
        # hosted and unarmed: the press asked for below is counted but fires nothing
        client.set_mode("hosted")
        client.disarm()
        try:
            session = _Session(client, person, record, assume_yes, timeout_s, forward_only)
            session.cfg = client.config_get()
            _motor_checks(session)
            _sensor_check(session)
            _button_check(session)
            _output_check(
                session, "buzzer", "buzzer", 150, "Did you hear three beeps?", "you heard it"
            )
            _output_check(
                session, "LED", "led", 300, "Did the LED blink three times?", "you saw it"
            )
        finally:
            # nothing left running (a test cut short by Ctrl-C), the mode as it was; a
            # launcher that went away says so through the exception already on its way
            with contextlib.suppress(LinkError):
                client.stop()
                client.set_mode(was)
    return results
