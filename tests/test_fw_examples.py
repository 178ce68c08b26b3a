"""docs/protocol-examples.jsonl, replayed against the real firmware under MicroPython."""

from __future__ import annotations

import json

from fw_harness import Firmware, load_examples, matches


def test_examples_file_is_well_formed() -> None:
    examples = list(load_examples())
    assert len(examples) >= 20
    commands = set()
    for ex in examples:
        assert ("send" in ex) != ("control" in ex), ex
        if "send" in ex:
            assert "reply" in ex
            try:
                req = json.loads(ex["send"])
            except ValueError:
                continue
            if isinstance(req, dict) and isinstance(req.get("cmd"), str):
                commands.add(req["cmd"])
    # every command of protocol v1 except `reset` (it ends the process) has an example
    assert commands >= {
        "hello", "status", "seed", "arm", "disarm", "fire", "config_get", "config_set",
        "stop", "mode",
    }  # fmt: skip


def test_firmware_answers_every_example_as_documented() -> None:
    with Firmware() as fw:
        fw.wait_event("boot")
        for ex in load_examples():
            if "send" in ex:
                fw.send_raw(ex["send"].encode() + b"\n")
                reply = fw.reply_to(ex["reply"]["id"])
                assert matches(ex["reply"], reply), (ex, reply)
            else:
                fw.control(ex["control"])
            for want in ex.get("events", []):
                got = fw.wait_event(want["event"])
                assert matches(want, got), (ex, got)
        stray = [e for e in fw.drain() if "event" in e and e["event"] != "eject"]
        assert not stray, stray


def test_protocol_doc_describes_every_command_event_error_and_config_key() -> None:
    import re

    from fw_fakes import FIRMWARE
    from launcher import config, protocol

    doc = (FIRMWARE.parent / "docs" / "protocol.md").read_text()
    documented = set(re.findall(r"^\| `([a-z_:]+)`", doc, flags=re.M))
    assert set(protocol.COMMANDS) <= documented
    assert set(config.DEFAULTS) - {"motor_b_pin"} <= documented  # motor_b shares a row
    source = "".join(p.read_text() for p in (FIRMWARE / "launcher").glob("*.py"))
    codes = set(re.findall(r'error\(\s*(?:None|rid|req_id|req\["id"\]),\s*"([a-z_]+)"', source))
    events = set(re.findall(r'_event\(\s*"([a-z_]+)"', source))
    faults = set(re.findall(r'_fault\("([a-z_]+)"|"(jam|empty)"', source))
    assert codes >= {"bad_json", "too_long", "bad_field", "fault", "config_invalid"}
    assert events >= {"boot", "press", "foul", "eject", "done", "fault", "cleared"}
    assert codes <= documented, codes - documented
    assert events <= documented, events - documented
    fault_codes = {c for pair in faults for c in pair if c} | {"motor_timeout", "internal"}
    assert fault_codes <= documented
