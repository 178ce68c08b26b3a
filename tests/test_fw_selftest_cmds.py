"""Protocol v2's self-test commands (issue 14, fault 8), on the firmware's logic under CPython:
``test`` pulses the motor either way, sounds the buzzer, lights the LED — all inside the
launcher loop, without the REPL —, ``inputs`` reads the button and the beam, and ``hello``
negotiates the version so that a v1 host keeps working (docs/protocol.md, "Versions")."""

from __future__ import annotations

import json
from typing import Any

from fw_fakes import FakePin, FakePWM
from launcher import protocol
from launcher.button import Button
from launcher.feedback import Feedback
from test_fw_logic import Rig


def unnumbered(event: dict[str, Any]) -> dict[str, Any]:
    """An event without its log number (v3 `seq`, `boot`: tests/test_play_catch_up.py)."""
    assert isinstance(event.pop("seq"), int) and "boot" in event
    event.pop("boot")
    return event


def test_hello_answers_v1_to_a_v1_host_and_v2_to_a_host_that_asks() -> None:
    rig = Rig()
    bare = rig.req("hello")
    assert bare["protocol"] == 1 and bare["protocol_max"] == protocol.PROTOCOL == 3
    assert rig.req("hello", protocol=2)["protocol"] == 2
    assert rig.req("hello", protocol=3)["protocol"] == 3
    assert rig.req("hello", protocol=7)["protocol"] == 3  # a newer host gets what we speak


def test_the_motor_pulses_forward_then_reverse_and_stops_by_itself() -> None:
    rig = Rig()
    reply = rig.req("test", part="motor_forward", ms=300)
    assert reply["ok"] and reply["part"] == "motor_forward"
    assert rig.pwm_a.duty > 0 and rig.pwm_b.duty == 0 and rig.l.state() == "testing"
    rig.run(299)
    assert rig.motor.running and not rig.events("tested")
    rig.run(1)
    assert not rig.motor.running
    assert [unnumbered(e) for e in rig.events("tested")] == [
        {"event": "tested", "t": 300, "part": "motor_forward", "ms": 300, "completed": True}
    ]
    rig.run(200)  # the brake ends in a coast
    assert rig.pwm_a.duty == rig.pwm_b.duty == 0 and rig.l.state() == "idle"

    rig.req("test", part="motor_reverse", ms=100)
    assert rig.pwm_b.duty > 0 and rig.pwm_a.duty == 0  # IN2 drives, IN1 held low
    rig.run(200)
    assert rig.events("tested")[-1]["completed"] and rig.pwm_a.duty == rig.pwm_b.duty == 0


def test_the_motor_limit_still_applies_to_a_test_pulse() -> None:
    rig = Rig(burst_max_ms=200)
    rig.req("test", part="motor_forward", ms=1000)
    rig.run(400)
    ev = rig.events("tested")[-1]
    assert ev["completed"] is False and ev["ms"] == 200 and not rig.motor.running


def test_no_test_while_armed_firing_in_fault_or_testing_and_no_press_fires_during_one() -> None:
    rig = Rig()
    rig.req("arm", player="Ann")
    assert rig.req("test", part="led")["error"] == "bad_state"
    rig.req("disarm")
    rig.req("test", part="motor_forward", ms=500)
    assert rig.req("test", part="motor_reverse")["error"] == "bad_state"
    assert rig.req("fire")["error"] == "bad_state"
    rig.l.on_press(rig.t)  # the person presses during the pulse: a foul, no burst
    assert rig.events("foul")[-1]["reason"] == "busy" and rig.l.burst is None
    rig.req("stop")  # stop ends a test too
    ev = rig.events("tested")[-1]
    assert ev["completed"] is False and ev["cancelled"] is True and not rig.motor.running


def test_parts_not_fitted_and_a_disabled_motor_are_refused_with_absent() -> None:
    rig = Rig()  # Feedback(None, None): no buzzer, no LED
    err = rig.req("test", part="buzzer")
    assert err["error"] == "absent" and "buzzer_pin" in err["message"]
    rig.l.info["motor"] = "disabled"
    assert rig.req("test", part="motor_forward")["error"] == "absent"


def test_buzzer_and_led_pulse_count_times_and_the_buzzer_sounds_even_when_quiet() -> None:
    rig = Rig(quiet=True)
    buzzer, led = FakePWM(), FakePin(0)
    rig.l.feedback = fb = Feedback(buzzer, led)
    fb.configure(rig.cfg)
    assert rig.req("test", part="buzzer", ms=150, count=3)["ok"]
    rig.run(1000)
    assert [d for d in buzzer.history if d] == [32768] * 3 and buzzer.hz == rig.cfg["beep_hz"]
    assert unnumbered(rig.events("tested")[-1]) == {
        "event": "tested", "t": 900, "part": "buzzer", "ms": 900, "completed": True,
    }  # fmt: skip
    rig.req("test", part="led", ms=300, count=3)
    rig.run(2000)
    assert led.writes[-6:] == [1, 0, 1, 0, 1, 0]
    assert buzzer.history[-1] == 0 and rig.l.state() == "idle"


def test_inputs_reads_the_button_and_the_beam() -> None:
    rig = Rig()
    pin = FakePin(1)
    rig.l.button = Button(pin)
    got: dict[str, Any] = rig.req("inputs")
    assert got["button"] == "up" and got["beam"] == "clear" and got["cards_seen"] == 0
    pin.level = 0
    assert rig.sensor is not None
    rig.sensor.is_blocked = True
    rig.sensor.count = 4
    got = rig.req("inputs")
    assert got["button"] == "down" and got["beam"] == "blocked" and got["cards_seen"] == 4
    open_loop = Rig(sensor=False)
    got = open_loop.req("inputs")
    assert got["beam"] is None and got["cards_seen"] is None and got["button"] is None


def test_test_fields_are_validated() -> None:
    rig = Rig()
    for bad in ({"part": "motor"}, {"part": "led", "ms": 0}, {"part": "led", "count": 11}):
        req, err = protocol.parse(json.dumps({"id": 3, "cmd": "test", **bad}).encode())
        assert req is None and err is not None and err["error"] == "bad_field", bad
    assert rig.req("test", part="motor_forward", count=2)["error"] == "bad_field"
