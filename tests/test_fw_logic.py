"""Fast CPython unit tests of the firmware's logic modules (firmware/launcher/*)."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest
from fw_fakes import FakePin, FakePWM, FakeSensor
from hypothesis import given, settings
from hypothesis import strategies as st
from launcher import config, protocol
from launcher.button import DOWN, UP, Button
from launcher.feedback import Feedback
from launcher.launcher import Launcher
from launcher.motor import ABS_MAX_BURST_MS, Motor
from launcher.pattern import Pattern, Rng, fire_rate
from launcher.sensor import Sensor
from launcher.ticks import ticks_add, ticks_diff

# -- ticks ------------------------------------------------------------------------


def test_ticks_wrap_like_micropython() -> None:
    top = (1 << 30) - 5
    assert ticks_add(top, 10) == 5
    assert ticks_diff(5, top) == 10
    assert ticks_diff(top, 5) == -10


# -- pattern ----------------------------------------------------------------------


def test_rng_same_seed_same_sequence_and_below_in_range() -> None:
    a, b = Rng(7), Rng(7)
    seq = [a.below(13) for _ in range(500)]
    assert seq == [b.below(13) for _ in range(500)]
    assert set(seq) == set(range(13))
    assert [Rng(8).below(13) for _ in range(20)] != seq[:20]
    assert Rng(0).next32() != 0  # seed 0 is a valid seed, not a stuck state


def test_pattern_never_more_than_max_blanks_in_a_row() -> None:
    p = Pattern(Rng(3), fire_chance_pct=5, max_blanks=3)
    streak = longest = 0
    for _ in range(5000):
        cards = p.press()
        streak = streak + 1 if cards == 0 else 0
        longest = max(longest, streak)
        assert p.blanks == streak
    assert longest == 3


def test_pattern_cards_follow_the_weights() -> None:
    p = Pattern(Rng(1), burst_weights=[0, 0, 5, 0, 1])
    got = {p.cards() for _ in range(300)}
    assert got == {3, 5}


def test_pattern_reseed_replays() -> None:
    p = Pattern(Rng(99))
    p.reseed(5)
    first = [p.press() for _ in range(50)]
    p.press()
    p.reseed(5)
    assert [p.press() for _ in range(50)] == first


@pytest.mark.parametrize("seed", range(10))
def test_a_press_drawn_ahead_is_the_press_it_would_have_been(seed: int) -> None:
    """Issue 32: the loop draws a random press's outcome ahead (Pattern.ahead), for the
    press's timer IRQ; the presses are the same, in the same order, and the blanks count
    moves only when the press is made."""
    rng = random.Random(seed)
    plain, ahead = Pattern(Rng(seed)), Pattern(Rng(seed))
    for _ in range(200):
        for _ in range(rng.randrange(3)):
            n = ahead.ahead()
            assert ahead.blanks == plain.blanks and n == ahead.ahead()
        if rng.random() < 0.2:  # a `fire` in random mode, or a new configuration, between
            if rng.random() < 0.5:
                assert ahead.cards() == plain.cards()
            else:
                ahead.configure(config.DEFAULTS)
                plain.configure(config.DEFAULTS)
        assert ahead.press() == plain.press() and ahead.blanks == plain.blanks
    ahead.ahead()
    ahead.reseed(seed)  # a reseed forgets what was drawn
    plain.reseed(seed)
    assert [ahead.press() for _ in range(50)] == [plain.press() for _ in range(50)]


def test_fire_rate_formula() -> None:
    assert fire_rate(100, 3) == 1.0
    assert fire_rate(50, 0) == 1.0  # max_blanks 0: every press fires
    assert fire_rate(22, 3) == pytest.approx(1 / (1 + 0.78 + 0.78**2 + 0.78**3))
    assert 0.33 < fire_rate(22, 3) < 0.37  # the toy's ~35%


# -- button -----------------------------------------------------------------------


def test_button_debounces_bounces_and_stamps_the_first_edge() -> None:
    pin = FakePin(1)
    b = Button(pin, debounce_ms=20)
    assert b.poll(0) == 0
    events = []
    levels = {5: 0, 6: 1, 7: 0, 8: 1, 9: 0}  # contact bounce, then closed from t=9
    for t in range(1, 60):
        if t in levels:
            pin.level = levels[t]
        ev = b.poll(t)
        if ev:
            events.append((ev, t, b.changed_at))
    assert events == [(DOWN, 29, 9)]
    pin.level = 1
    assert [b.poll(t) for t in range(60, 85)].count(UP) == 1


def test_button_held_at_start_is_state_not_a_press() -> None:
    pin = FakePin(0)
    b = Button(pin, debounce_ms=5)
    assert [b.poll(t) for t in range(50)] == [0] * 50
    assert b.down


def test_button_short_glitch_is_ignored() -> None:
    pin = FakePin(1)
    b = Button(pin, debounce_ms=10)
    b.poll(0)
    pin.level = 0
    assert [b.poll(t) for t in range(1, 6)] == [0] * 5
    pin.level = 1
    assert [b.poll(t) for t in range(6, 40)] == [0] * 34


# -- motor ------------------------------------------------------------------------


def test_motor_soft_start_ramps_to_capped_duty() -> None:
    a, b = FakePWM(), FakePWM()
    m = Motor(a, b, duty_pct=90, max_duty_pct=60, ramp_ms=80, burst_max_ms=5000)
    m.start(0)
    for t in range(0, 100):
        assert m.tick(t)
    assert a.history == sorted(a.history[1:]) or a.history[0] == 0
    assert max(a.history) == 60 * 65535 // 100  # max_duty_pct wins over duty_pct
    assert len(set(a.history)) >= 8  # several ramp steps, not a jump
    assert b.duty == 0


def test_motor_burst_limit_stops_it_even_without_anyone_asking() -> None:
    a, b = FakePWM(), FakePWM()
    m = Motor(a, b, burst_max_ms=300)
    m.start(1000)
    assert m.tick(1299)
    assert not m.tick(1300)
    assert a.duty == b.duty and not m.running  # no forward drive: a brake (both inputs high)
    m.tick(1300 + m.brake_ms)
    assert a.duty == b.duty == 0  # then coast
    m.burst_max_ms = 10**9  # even a wild setting is capped by the absolute ceiling
    m.start(0)
    assert not m.tick(ABS_MAX_BURST_MS)


# -- sensor -----------------------------------------------------------------------


def test_sensor_counts_a_card_when_the_beam_clears() -> None:
    pin = FakePin(1)
    s = Sensor(pin, blocked_value=0, min_ms=2)
    for t in range(0, 70_000, 500):  # three cards, each 10 ms in the beam, sampled per 0.5 ms
        pin.level = 0 if (t // 10_000) % 2 and t < 60_000 else 1
        s.poll(t)
    assert s.count == 3
    pin.level = 0
    for t in range(70_000, 73_000, 500):
        s.poll(t)
    assert s.blocked()
    inverted = Sensor(FakePin(0), blocked_value=1)
    assert not inverted.blocked()


# -- feedback ---------------------------------------------------------------------


def test_feedback_sequences_without_blocking_and_quiet_mutes() -> None:
    buzzer, led = FakePWM(), FakePin(0)
    f = Feedback(buzzer, led, beep_hz=2000)
    f.ready(0)
    tones = set()
    for t in range(0, 400, 5):
        f.tick(t)
        tones.add(buzzer.hz if buzzer.duty else 0)
    assert {0, 2700, 3400} <= tones
    assert buzzer.duty == 0
    f.quiet = True
    f.fault(1000)
    for t in range(1000, 3000, 5):
        f.tick(t)
    assert buzzer.duty == 0 and 1 in led.writes


def test_feedback_suspense_speeds_up_with_blanks() -> None:
    def ticks(blanks: int) -> int:
        buzzer = FakePWM()
        f = Feedback(buzzer, None)
        f.suspense(blanks, 0)
        starts = 0
        prev = 0
        for t in range(0, 3000):
            f.tick(t)
            if buzzer.duty and not prev:
                starts += 1
            prev = buzzer.duty
        return starts

    assert ticks(1) < ticks(2) < ticks(3)


# -- protocol ---------------------------------------------------------------------


def test_line_reader_splits_strips_and_resyncs_after_overflow() -> None:
    r = protocol.LineReader(max_len=16)
    assert r.feed(b'{"a"') == []
    assert r.feed(b":1}\r\n\n  \r\n{}\n") == [b'{"a":1}', b"{}"]
    assert r.feed(b"x" * 10) == []
    assert r.feed(b"y" * 10 + b"zz\n" + b"ok\n") == [protocol.TOO_LONG, b"ok"]
    assert r.feed(b"x" * 40 + b"\nfine\n") == [protocol.TOO_LONG, b"fine"]


@pytest.mark.parametrize(
    ("line", "code", "req_id"),
    [
        (b"nope", "bad_json", None),
        (b"\xff\xfe{}", "bad_json", None),
        (b"[1]", "not_object", None),
        (b"3", "not_object", None),
        (b'{"cmd": "hello"}', "bad_id", None),
        (b'{"id": true, "cmd": "hello"}', "bad_id", None),
        (b'{"id": 1.0, "cmd": "hello"}', "bad_id", None),
        (b'{"id": 2147483648, "cmd": "hello"}', "bad_id", None),
        (b'{"id": 4}', "unknown_cmd", 4),
        (b'{"id": 4, "cmd": ["hello"]}', "unknown_cmd", 4),
        (b'{"id": 5, "cmd": "arm"}', "bad_field", 5),
        (b'{"id": 5, "cmd": "arm", "player": ""}', "bad_field", 5),
        (b'{"id": 5, "cmd": "arm", "player": "A", "presses": 51}', "bad_field", 5),
        (b'{"id": 5, "cmd": "arm", "player": "A", "presses": true}', "bad_field", 5),
        (b'{"id": 5, "cmd": "arm", "player": "A", "mode": "loud"}', "bad_field", 5),
        (b'{"id": 5, "cmd": "arm", "player": "A", "mode": ["exact"]}', "bad_field", 5),
        (b'{"id": 5, "cmd": "fire", "cards": 3}', "bad_field", 5),
        (b'{"id": 5, "cmd": "fire", "mode": "until_card"}', "bad_field", 5),
        (b'{"id": 6, "cmd": "seed", "seed": -1}', "bad_field", 6),
        (b'{"id": 6, "cmd": "config_set", "config": [1]}', "bad_field", 6),
        (b'{"id": 6, "cmd": "mode", "mode": "party"}', "bad_field", 6),
    ],
)
def test_parse_rejects_with_the_documented_code(line: bytes, code: str, req_id: Any) -> None:
    req, reply = protocol.parse(line)
    assert req is None and reply is not None
    assert reply["error"] == code and reply["id"] == req_id and reply["ok"] is False
    assert reply["message"]
    if code == "bad_field":
        assert reply["field"]


def test_parse_accepts_and_ignores_unknown_fields() -> None:
    req, reply = protocol.parse(b'{"id": 9, "cmd": "arm", "player": "Ann", "future": 1}')
    assert reply is None and req is not None and req["player"] == "Ann"
    req, _ = protocol.parse(b'{"id": 0, "cmd": "fire", "mode": "exact", "cards": 40}')
    assert req is not None


def test_encode_round_trips_on_one_line() -> None:
    msg = {"ok": True, "z": [1, {"b": None, "a": "é"}], "id": 3}
    text = protocol.encode(msg)
    assert "\n" not in text and json.loads(text) == msg
    assert json.loads(protocol.encode({"t": 1, "event": "x"})) == {"t": 1, "event": "x"}


# -- config -----------------------------------------------------------------------


def test_defaults_are_valid_and_pin_map_matches_the_contract() -> None:
    assert config.check(config.DEFAULTS) == []
    pins = {k: config.DEFAULTS[k] for k in config.PIN_KEYS}
    assert pins == {
        "button_pin": 15,
        "motor_a_pin": 16,
        "motor_b_pin": 17,
        "sensor_pin": 14,
        "buzzer_pin": 18,
        "led_pin": 25,
    }
    assert config.DEFAULTS["motor_pwm_hz"] == 20000


@pytest.mark.parametrize(
    ("changes", "key"),
    [
        ({"motor_pwm_hz": 1000}, "motor_pwm_hz"),  # audible
        ({"motor_duty_pct": 101}, "motor_duty_pct"),
        ({"motor_duty_pct": 90, "motor_max_duty_pct": 70}, "motor_duty_pct"),
        ({"burst_max_ms": 60000}, "burst_max_ms"),
        ({"sensor_pin": 15}, "sensor_pin"),  # taken by the button
        ({"button_pin": None}, "button_pin"),
        ({"led_pin": "LEDS"}, "led_pin"),
        ({"burst_weights": [0, 0]}, "burst_weights"),
        ({"burst_weights": [1, -1]}, "burst_weights"),
        ({"quiet": 1}, "quiet"),
        ({"wdt_ms": 9000}, "wdt_ms"),
        ({"colour": "red"}, "colour"),
    ],
)
def test_config_refuses_out_of_range_with_a_reason(changes: dict[str, Any], key: str) -> None:
    new, errors = config.merged(config.DEFAULTS, changes)
    assert new is None
    assert key in [k for k, _ in errors]
    assert all(reason for _, reason in errors)


def test_config_load_missing_corrupt_invalid_ok(tmp_path: Path) -> None:
    path = str(tmp_path / "launcher.json")
    cfg, status, _ = config.load(path)
    assert (cfg, status) == (config.DEFAULTS, "defaults:missing")
    Path(path).write_text("{not json")
    assert config.load(path)[1] == "defaults:corrupt"
    Path(path).write_text("[1, 2]")
    assert config.load(path)[1] == "defaults:corrupt"
    Path(path).write_bytes(b'{"jam_ms": "\xff\xfe"}')
    assert config.load(path)[1] == "defaults:corrupt"
    Path(path).write_text('{"jam_ms": 900, "pad": "' + "x" * 9000 + '"}')
    cfg, status, errors = config.load(path)
    assert status == "defaults:corrupt" and "larger than" in errors[0][1]
    Path(path).write_text('{"jam_ms": -4}')
    cfg, status, errors = config.load(path)
    assert status == "defaults:invalid" and cfg == config.DEFAULTS and errors[0][0] == "jam_ms"
    Path(path).write_text('{"jam_ms": 900, "retired_key": 1}')
    cfg, status, _ = config.load(path)
    assert status == "ok" and cfg["jam_ms"] == 900 and "retired_key" not in cfg


def test_config_save_is_atomic_and_loads_back(tmp_path: Path) -> None:
    path = str(tmp_path / "launcher.json")
    Path(path).write_text('{"jam_ms": 900}')
    new = dict(config.DEFAULTS, ms_per_card=90)
    config.save(new, path)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["launcher.json"]  # no .tmp left
    assert config.load(path) == (new, "ok", [])


# -- the launcher state machine ---------------------------------------------------


class Rig:
    """A Launcher with fake devices and an event log."""

    def __init__(self, sensor: bool = True, **cfg: Any) -> None:
        self.cfg = dict(config.DEFAULTS, **cfg)
        self.pwm_a, self.pwm_b = FakePWM(), FakePWM()
        self.motor = Motor(self.pwm_a, self.pwm_b)
        self.motor.configure(self.cfg)
        self.sensor = FakeSensor() if sensor else None
        self.pattern = Pattern(Rng(1))
        self.pattern.configure(self.cfg)
        self.out: list[dict[str, Any]] = []
        self.saved: list[dict[str, Any]] = []
        self.t = 0
        info = {"firmware": "t", "protocol": 1, "board": "test", "capabilities": []}
        info.update(config_status="defaults:missing", config_errors=[])
        self.l = Launcher(
            self.cfg,
            self.motor,
            self.sensor,
            Feedback(None, None),
            self.pattern,
            self.out.append,
            info,
            0,
            save=self.saved.append,
        )

    def run(self, ms: int, cards_every: int = 0) -> None:
        for _ in range(ms):
            self.t += 1
            if cards_every and self.sensor and self.motor.running and self.t % cards_every == 0:
                self.sensor.count += 1
            self.l.tick(self.t)

    def req(self, cmd: str, **args: Any) -> dict[str, Any]:
        req, err = protocol.parse(json.dumps({"id": 1, "cmd": cmd, **args}).encode())
        assert err is None, err
        assert req is not None
        return self.l.handle(req, self.t)

    def events(self, name: str) -> list[dict[str, Any]]:
        return [e for e in self.out if e.get("event") == name]


def test_standalone_press_runs_the_pattern_and_counts_cards() -> None:
    rig = Rig()
    rig.l.pattern.reseed(11)
    for _ in range(12):
        rig.l.on_press(rig.t)
        rig.run(3000, cards_every=100)
    ejects = rig.events("eject")
    assert len(ejects) == 12 and len(rig.events("press")) == 12
    assert any(e["cards"] == 0 for e in ejects) and any(e["cards"] > 0 for e in ejects)
    assert all(e["counted"] and "wanted" not in e for e in ejects)
    assert rig.l.cards_out == sum(e["cards"] for e in ejects)
    assert not rig.events("fault")


def test_hosted_foul_when_nobody_owes_and_done_after_last_owed_press() -> None:
    rig = Rig()
    rig.req("mode", mode="hosted")
    rig.l.on_press(0)
    assert rig.events("foul")[-1]["reason"] == "not_armed" and not rig.motor.running
    rig.req("arm", player="Ann", presses=2, mode="exact", cards=2)
    rig.l.on_press(rig.t)
    assert rig.events("press")[-1]["owed"] == 1
    rig.l.on_press(rig.t)  # while the first burst runs
    assert rig.events("foul")[-1]["reason"] == "busy"
    rig.run(1000, cards_every=50)
    rig.l.on_press(rig.t)
    rig.run(1000, cards_every=50)
    assert [e["cards"] for e in rig.events("eject")] == [2, 2]
    assert [e["player"] for e in rig.events("done")] == ["Ann"]
    assert rig.l.state() == "idle"


def test_until_card_blank_presses_do_not_count() -> None:  # ATK Wild Hit Fire
    rig = Rig(fire_chance_pct=1, max_blanks=3)
    rig.req("arm", player="Bo", presses=1, mode="until_card")
    for _ in range(4):
        rig.l.on_press(rig.t)
        rig.run(2000, cards_every=80)
    ejects = rig.events("eject")
    assert [e["cards"] > 0 for e in ejects] == [False, False, False, True]
    assert [e["owed"] for e in ejects] == [1, 1, 1, 0]
    assert len(rig.events("done")) == 1


def test_jam_then_empty_after_cardless_bursts() -> None:
    rig = Rig(jam_ms=300, empty_bursts=2)
    rig.sensor.is_blocked = True  # type: ignore[union-attr]
    rig.req("fire", mode="exact", cards=3)
    rig.run(500)
    assert rig.events("fault")[-1]["code"] == "jam" and rig.pwm_a.duty == 0
    assert "set sensor_pin to null" in rig.events("fault")[-1]["message"]  # never saw a card
    assert rig.req("fire")["error"] == "fault"
    rig.req("stop")
    assert rig.events("cleared")[-1]["code"] == "jam"
    rig.sensor.is_blocked = False  # type: ignore[union-attr]
    for _ in range(2):
        rig.req("fire", mode="exact", cards=3)
        rig.run(500)
        code = rig.events("fault")[-1]["code"]
        rig.req("stop")
    assert code == "empty"
    assert [e["cards"] for e in rig.events("eject")] == [0, 0, 0]


def test_motor_timeout_fault_when_cards_keep_coming_too_slowly() -> None:
    rig = Rig(burst_max_ms=1000, jam_ms=5000)
    rig.req("fire", mode="exact", cards=30)
    rig.run(1200, cards_every=100)
    fault = rig.events("fault")[-1]
    assert fault["code"] == "motor_timeout" and not rig.motor.running
    eject = rig.events("eject")[-1]
    assert eject["wanted"] == 30 and 8 <= eject["cards"] <= 10


def test_open_loop_runs_ms_per_card_and_reports_an_estimate() -> None:
    rig = Rig(sensor=False, ms_per_card=100, ramp_ms=80, burst_max_ms=3000)
    rig.req("fire", mode="exact", cards=4)
    rig.run(435)
    assert rig.motor.running
    rig.run(20)
    e = rig.events("eject")[-1]
    assert e["cards"] == 4 and e["counted"] is False and not rig.motor.running
    too_long = rig.req("fire", mode="exact", cards=40)
    assert too_long["error"] == "bad_field" and too_long["field"] == "cards"


def test_stop_cancels_a_burst_and_reports_what_came_out() -> None:
    rig = Rig()
    rig.req("fire", mode="exact", cards=10)
    rig.run(450, cards_every=100)
    reply = rig.req("stop")
    assert reply["state"] == "idle" and not rig.motor.running
    e = rig.events("eject")[-1]
    assert e["cancelled"] is True and e["cards"] == 4 and e["wanted"] == 10


def test_config_set_validates_saves_and_flags_restart_keys() -> None:
    rig = Rig()
    bad = rig.req("config_set", config={"jam_ms": 1, "debounce_ms": 0})
    assert bad["error"] == "config_invalid"
    assert [r["key"] for r in bad["reasons"]] == ["debounce_ms", "jam_ms"]
    assert rig.saved == []
    good = rig.req("config_set", config={"jam_ms": 700, "sensor_pin": None})
    assert good["ok"] and good["config"]["jam_ms"] == 700
    assert good["restart_needed"] == ["sensor_pin"]
    assert rig.saved[-1]["jam_ms"] == 700
    assert rig.req("hello")["config_status"] == "ok"


def test_config_set_reports_a_flash_write_failure() -> None:
    rig = Rig()

    def broken(cfg: dict[str, Any]) -> None:
        raise OSError(28, "no space")

    rig.l.save = broken
    reply = rig.req("config_set", config={"jam_ms": 700})
    assert reply["error"] == "io_error" and rig.l.cfg["jam_ms"] == config.DEFAULTS["jam_ms"]


def test_standalone_button_clears_a_fault() -> None:
    rig = Rig()
    rig.l.internal_error(RuntimeError("boom"))
    assert rig.l.state() == "fault" and "boom" in rig.events("fault")[-1]["message"]
    rig.l.on_press(rig.t)
    assert rig.l.state() == "idle" and rig.events("cleared")[-1]["by"] == "button"


def test_a_jam_names_the_player_who_pressed() -> None:
    rig = Rig(jam_ms=200)
    rig.req("arm", player="Dee", presses=1, mode="exact", cards=4)
    rig.l.on_press(rig.t)
    rig.run(150, cards_every=100)
    rig.sensor.is_blocked = True  # type: ignore[union-attr]
    rig.run(400)
    fault = rig.events("fault")[-1]
    assert (fault["code"], fault["player"], fault["n"]) == ("jam", "Dee", 1)


def test_a_fault_on_the_last_owed_press_still_ends_the_arming() -> None:
    rig = Rig(jam_ms=200)
    rig.req("arm", player="Eve", presses=1, mode="exact", cards=3)
    rig.l.on_press(rig.t)
    rig.sensor.is_blocked = True  # type: ignore[union-attr]
    rig.run(400)
    assert rig.events("fault")[-1]["code"] == "jam"
    assert [e["player"] for e in rig.events("done")] == ["Eve"]
    rig.req("stop")
    rig.l.on_press(rig.t)  # nobody owes a press any more: a foul, no burst
    assert rig.events("foul")[-1]["reason"] == "not_armed" and not rig.motor.running


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.binary(max_size=40).map(lambda b: b.replace(b"\n", b"")), max_size=30), st.data()
)
def test_line_reader_does_not_care_how_the_stream_is_chunked(
    pieces: list[bytes], data: st.DataObject
) -> None:
    stream = b"\n".join(pieces) + b"\n"
    whole = protocol.LineReader(max_len=32).feed(stream)
    r = protocol.LineReader(max_len=32)
    got: list[object] = []
    i = 0
    while i < len(stream):
        n = data.draw(st.integers(1, 50))
        got += r.feed(stream[i : i + n])
        i += n
    assert got == whole
    expected = []
    for p in pieces:
        if len(p) > 32:
            expected.append(protocol.TOO_LONG)
        elif p.strip():
            expected.append(p.strip())
    assert whole == expected
