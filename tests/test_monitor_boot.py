"""`unolaunch monitor` describes a reboot with the protocol the firmware speaks (issue 20)."""

from __future__ import annotations

from unolaunch.commands.monitor import describe_event


def test_a_reboot_of_a_protocol_2_firmware_shows_protocol_2() -> None:
    boot = {
        "event": "boot",
        "firmware": "0.1.0",
        "protocol": 1,  # what a host that did not ask gets
        "protocol_max": 2,
        "board": "rp2040",
        "config_status": "ok",
        "mode": "standalone",
    }
    assert "protocol 2," in describe_event(boot)
    older = dict(boot, protocol_max=None)
    del older["protocol_max"]  # a firmware from before protocol 2 says only `protocol`
    assert "protocol 1," in describe_event(older)
