"""Issue 14, faults 2 and 6: the configuration refuses pins the chip cannot honour (shared
PWM slices and channels, GPIOs it does not have, UART pins of another UART) and a bad file
keeps every setting that is valid on its own (firmware/launcher/config.py, under CPython)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from fw_fakes import FIRMWARE  # noqa: F401  (puts firmware/ on sys.path)
from launcher import config


def _errors(changes: dict[str, Any], chip: str | None = "rp2040") -> dict[str, str]:
    new, errors = config.merged(config.DEFAULTS, changes, chip)
    assert (new is None) == bool(errors)
    return dict(errors)


@pytest.mark.parametrize(
    ("changes", "key", "words"),
    [
        # GP0 is slice 0 channel A, like the motor's GP16: same output, one frequency
        ({"buzzer_pin": 0}, "buzzer_pin", ("GPIO 0", "GPIO 16", "slice 0")),
        # GP1 is slice 0 channel B: the motor's slice, the buzzer would retune it
        ({"buzzer_pin": 1}, "buzzer_pin", ("GPIO 1", "GPIO 17", "slice 0")),
        # the two H-bridge inputs on one channel would be one signal
        ({"motor_a_pin": 0, "motor_b_pin": 16}, "motor_b_pin", ("GPIO 16", "GPIO 0", "channel")),
        ({"buzzer_pin": 30}, "buzzer_pin", ("GPIO 30", "0..29")),
        ({"sensor_pin": 29}, "sensor_pin", ("GPIO 29",)),  # VSYS sense on a Pico
        ({"button_pin": 24}, "button_pin", ("GPIO 24",)),  # VBUS sense on a Pico
        ({"uart_id": 0, "uart_tx_pin": 4, "uart_rx_pin": 5}, "uart_tx_pin", ("UART0", "0, 12")),
        ({"uart_id": 1, "uart_tx_pin": 4, "uart_rx_pin": 1}, "uart_rx_pin", ("UART1", "5, 9")),
    ],
)
def test_pins_the_rp2040_cannot_honour_are_refused_naming_both(
    changes: dict[str, Any], key: str, words: tuple[str, ...]
) -> None:
    errors = _errors(changes)
    assert key in errors, errors
    for word in words:
        assert word in errors[key], errors[key]


@pytest.mark.parametrize(
    "changes",
    [
        {"buzzer_pin": 2},  # slice 1: a slice of its own
        {"motor_a_pin": 2, "motor_b_pin": 3, "buzzer_pin": 16},
        {"uart_id": 0, "uart_tx_pin": 12, "uart_rx_pin": 13},
        {"uart_id": 1, "uart_tx_pin": 8, "uart_rx_pin": 9},
        {"led_pin": "LED"},
        {"sensor_pin": None, "buzzer_pin": None, "led_pin": None},
    ],
)
def test_pins_the_rp2040_can_honour_are_accepted(changes: dict[str, Any]) -> None:
    assert _errors(changes) == {}


def test_rp2350b_has_gpio_up_to_47_and_unknown_chips_are_not_narrowed() -> None:
    assert _errors({"buzzer_pin": 40}, "rp2350b") == {}
    assert "buzzer_pin" in _errors({"buzzer_pin": 40}, "rp2350")
    assert _errors({"buzzer_pin": 40}, None) == {}  # the host, not knowing the board
    assert "buzzer_pin" in _errors({"buzzer_pin": 48}, None)


def test_a_bad_file_keeps_every_setting_valid_on_its_own(tmp_path: Path) -> None:
    path = tmp_path / "launcher.json"
    path.write_text(json.dumps({"jam_ms": -4, "beep_hz": 3100, "motor_a_pin": 4, "motor_b_pin": 5}))
    cfg, status, errors = config.load(str(path))
    assert status == "defaults:invalid"
    assert [k for k, _ in errors] == ["jam_ms"]
    # the owner's wiring and pitch stay; only the refused key takes its default
    assert cfg["motor_a_pin"] == 4 and cfg["motor_b_pin"] == 5 and cfg["beep_hz"] == 3100
    assert cfg["jam_ms"] == config.DEFAULTS["jam_ms"]
    assert config.check(cfg) == []


def test_a_pin_conflict_in_the_file_never_falls_back_to_default_pins(tmp_path: Path) -> None:
    path = tmp_path / "launcher.json"
    # wired to other pins, with the buzzer on the motor's slice: no default GPIO may be
    # driven (GP16/17 may be wired to something else on this board)
    path.write_text(json.dumps({"motor_a_pin": 2, "motor_b_pin": 3, "buzzer_pin": 19}))
    cfg, status, errors = config.load(str(path), "rp2040")
    assert status == "defaults:invalid"
    assert cfg["motor_a_pin"] == 2 and cfg["motor_b_pin"] == 3
    assert cfg["buzzer_pin"] is None  # the conflicting optional part is left out
    assert "buzzer_pin" in dict(errors)
    assert config.check(cfg, "rp2040") == []


def test_a_pin_clash_names_the_key_the_request_changed() -> None:
    """Issue 20: {"buzzer_pin": 25} clashes with the LED's GPIO 25; the refusal names
    buzzer_pin (what the request changed), not led_pin."""
    from launcher import config as cfgmod

    new, errors = cfgmod.merged(dict(cfgmod.DEFAULTS), {"buzzer_pin": 25})
    assert new is None
    assert errors == [("buzzer_pin", "GPIO 25 already used by led_pin")]
    # a clash between two keys both changed keeps the later key of the pair
    _, both = cfgmod.merged(dict(cfgmod.DEFAULTS), {"buzzer_pin": 12, "led_pin": 12})
    assert [k for k, _ in both] == ["led_pin"]
