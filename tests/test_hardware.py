"""hardware/: the pin map, schematic, Wokwi diagram and BOM agree with the firmware's DEFAULTS.

The firmware's ``DEFAULTS`` (firmware/launcher/config.py) is the one source of truth for the
pin map. hardware/generate.py writes the documents from it; these tests read DEFAULTS on
their own (with ``ast``, not through the generator) and check every document against it, and
check that the committed generated files are what the generator makes now.
"""

from __future__ import annotations

import ast
import csv
import importlib.util
import json
import re
import subprocess
import sys
import xml.etree.ElementTree as ET
from types import ModuleType
from typing import Any

import pytest
from conftest import REPO

HARDWARE = REPO / "hardware"
PIN_KEYS = ("button_pin", "motor_a_pin", "motor_b_pin", "sensor_pin", "buzzer_pin", "led_pin")
# docs/architecture.md §4: the defaults everyone else builds on.
CONTRACT_PINS = {
    "button_pin": 15,
    "motor_a_pin": 16,
    "motor_b_pin": 17,
    "sensor_pin": 14,
    "buzzer_pin": 18,
    "led_pin": 25,
}


def firmware_defaults() -> dict[str, Any]:
    """DEFAULTS from firmware/launcher/config.py, read as a literal (no code executed)."""
    tree = ast.parse((REPO / "firmware" / "launcher" / "config.py").read_text(encoding="utf-8"))
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == "DEFAULTS" for t in node.targets
        ):
            value = ast.literal_eval(node.value)
            assert isinstance(value, dict)
            return value
    raise AssertionError("firmware/launcher/config.py has no DEFAULTS = {...}")


def gp(value: Any) -> str:
    return value.upper() if isinstance(value, str) else f"GP{value}"


@pytest.fixture(scope="module")
def generator() -> ModuleType:
    spec = importlib.util.spec_from_file_location("hw_generate", HARDWARE / "generate.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


def readme_pin_rows() -> dict[str, str]:
    """config key -> default pin, parsed from the table between the pins markers."""
    text = (HARDWARE / "README.md").read_text(encoding="utf-8")
    block = text.split("<!-- pins:begin", 1)[1].split("<!-- pins:end -->", 1)[0]
    rows = {}
    for line in block.splitlines():
        m = re.match(r"\|[^|]*\| `(\w+)` \| \*\*([^*]+)\*\* \|", line)
        if m:
            rows[m.group(1)] = m.group(2)
    return rows


def test_firmware_defaults_keep_the_contract_pins() -> None:
    defaults = firmware_defaults()
    assert {k: defaults[k] for k in CONTRACT_PINS} == CONTRACT_PINS
    assert defaults["motor_pwm_hz"] == 20000


def test_readme_pin_table_matches_firmware_defaults() -> None:
    defaults = firmware_defaults()
    rows = readme_pin_rows()
    assert set(rows) == set(PIN_KEYS)
    for key in PIN_KEYS:
        assert rows[key] == gp(defaults[key]), key
    readme = (HARDWARE / "README.md").read_text(encoding="utf-8")
    assert f"`motor_pwm_hz` = **{defaults['motor_pwm_hz']}**" in readme
    assert f"`burst_max_ms` = **{defaults['burst_max_ms']}**" in readme


def test_generated_files_are_up_to_date() -> None:
    """schematic.svg, wokwi/diagram.json and the README table are what generate.py makes now."""
    proc = subprocess.run(
        [sys.executable, str(HARDWARE / "generate.py"), "--check"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_generator_follows_defaults_when_a_pin_moves(generator: ModuleType) -> None:
    moved = {**firmware_defaults(), "button_pin": 13, "sensor_pin": None, "led_pin": "LED"}
    table = generator.pin_table(moved)
    assert "| `button_pin` | **GP13** | 17 |" in table
    assert "| `sensor_pin` | **not fitted** |" in table
    assert "| `led_pin` | **LED** | on board |" in table
    diagram = generator.wokwi_diagram(moved)
    assert ["pico:GP13", "btn_launch:1.l", "green", []] in diagram["connections"]


def test_header_pins_and_pwm_slices(generator: ModuleType) -> None:
    assert generator.header_pin(0) == "1"
    assert generator.header_pin(15) == "20"
    assert generator.header_pin(16) == "21"
    assert generator.header_pin(28) == "34"
    assert generator.header_pin(25) == "on board"
    assert generator.pwm_slice(16) == "0A"
    assert generator.pwm_slice(17) == "0B"
    assert generator.pwm_slice(18) == "1A"
    with pytest.raises(ValueError):
        generator.header_pin(23)  # GP23 drives the Pico's regulator; it has no header pin


def test_wokwi_diagram_wires_each_signal_to_its_default_pin() -> None:
    defaults = firmware_defaults()
    diagram = json.loads((HARDWARE / "wokwi" / "diagram.json").read_text(encoding="utf-8"))
    assert diagram["version"] == 1
    parts = {p["id"]: p for p in diagram["parts"]}
    assert parts["pico"]["type"] == "wokwi-pi-pico"
    assert parts["pico"]["attrs"]["env"].startswith("micropython-")
    assert parts["bz1"]["type"] == "wokwi-buzzer"
    assert parts["btn_launch"]["type"] == "wokwi-pushbutton"
    wires: dict[str, set[str]] = {}
    for conn in diagram["connections"]:
        a, b, _color, route = conn
        assert isinstance(route, list)
        for end in (a, b):
            part, _, pin = end.partition(":")
            assert pin, end
            assert part == "$serialMonitor" or part in parts, f"unknown part in {end}"
            if part == "pico":
                assert re.fullmatch(r"GP([0-9]|1[0-9]|2[0-8])|GND\.[1-8]|3V3|VSYS|VBUS", pin), end
        wires.setdefault(a, set()).add(b)
        wires.setdefault(b, set()).add(a)

    def pico(key: str) -> set[str]:
        return wires.get(f"pico:{gp(defaults[key])}", set())

    assert "btn_launch:1.l" in pico("button_pin")
    assert "btn_beam:1.r" in pico("sensor_pin")
    assert "bz1:2" in pico("buzzer_pin")
    assert "r_in1:1" in pico("motor_a_pin")
    assert "r_in2:1" in pico("motor_b_pin")
    # The other side of each button, the buzzer and both LEDs goes to ground.
    for end in ("btn_launch:2.l", "btn_beam:2.r", "bz1:1", "led_fwd:C", "led_rev:C"):
        assert any(w.startswith("pico:GND.") for w in wires[end]), end
    used = [c[0] for c in diagram["connections"] if c[0].startswith("pico:GP")]
    assert len(used) == len(set(used)), "a GPIO is wired twice"


def test_schematic_svg_names_every_default_pin_and_net() -> None:
    defaults = firmware_defaults()
    root = ET.parse(HARDWARE / "schematic.svg").getroot()
    assert root.tag.endswith("svg")
    texts = " ".join("".join(el.itertext()) for el in root.iter() if el.tag.endswith("text"))
    for key in PIN_KEYS:
        assert gp(defaults[key]) in texts, key
    for net in ("BUTTON", "SENSOR", "BUZZER", "MOTOR_IN1", "MOTOR_IN2", "VMOT", "VSYS"):
        assert net in texts
    for part in ("DRV8833", "470 µF", "1N5819", "10 kΩ", "IR"):
        assert part in texts, part


def test_bom_lists_the_parts_the_issue_names() -> None:
    with (HARDWARE / "bom.csv").open(encoding="utf-8", newline="") as f:
        reader = csv.DictReader(f)
        assert reader.fieldnames == [
            "part",
            "quantity",
            "example part number",
            "approx unit price (USD)",
            "build",
            "notes",
        ]
        rows = list(reader)
    for row in rows:
        assert int(row["quantity"]) >= 1, row
        assert 0 < float(row["approx unit price (USD)"]) < 50, row
        assert row["build"] in {"both", "scratch", "option"}, row
        assert row["example part number"].strip(), row
    everything = " ".join(" ".join(r.values()) for r in rows).lower()
    for needle in (
        "pico 2",
        "drv8833",
        "tb6612fng",
        "mosfet",
        "flyback",
        "motor",
        "ir break",
        "button",
        "piezo",
        "led",
        "10 kω",
        "470 µf",
        "battery",
    ):
        assert needle in everything, needle


def test_readme_has_both_builds_and_power_notes_with_numbers() -> None:
    readme = (HARDWARE / "README.md").read_text(encoding="utf-8")
    assert "## Build 1: rescue an original UNO Attack launcher" in readme
    assert "## Build 2: from scratch" in readme
    for fact in (
        "3V3",
        "common ground",
        "470 µF",
        "2.2 A",  # stall current of a typical 130 motor
        "2 A peak",  # the DRV8833's limit
        "VSYS accepts 1.8–5.5 V",
        "burst_max_ms",
        "Never 4 × alkaline AA",
    ):
        assert fact in readme, fact
