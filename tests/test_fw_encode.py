"""Issue 32: a reply is made in one go. The firmware's encoder (``launcher/protocol.py``,
``encode`` and ``Encoder``) turns each message into its JSON line with one ``json.dumps`` (on
the rp2040 board a `status` reply took 4.5 ms built a few fields per loop iteration, 0.77 ms
this way), and a request is parsed in one call. Checked here under CPython over every reply
and event of docs/protocol-examples.jsonl, a full config and random messages: each line is
one JSON object equal to its message, the encoder hands lines to their ports in the order the
messages came, a message it cannot encode is dropped (not the loop), and no message is begun
after the deadline but the first. (How long a reply takes on the rp2040 board is measured
in chip time: tests/test_boards_usb_speed.py.)
"""

from __future__ import annotations

import json
from typing import Any

import fw_fakes  # noqa: F401 (puts the firmware on sys.path)
import pytest
from fw_harness import EXAMPLES
from hypothesis import given, settings
from hypothesis import strategies as st
from launcher import config, protocol

EXAMPLE_MESSAGES = [
    msg
    for line in EXAMPLES.read_text().splitlines()
    if line.strip()
    for ex in [json.loads(line)]
    for msg in [ex.get("reply"), *ex.get("events", [])]
    if isinstance(msg, dict)
]


class Port(protocol.Outbox):
    """What the encoder hands lines to: the firmware's Outbox (it ends each line) on a port
    that takes every write whole; ``lines``: what went out, split after each newline."""

    def __init__(self) -> None:
        self.out = bytearray()
        super().__init__(None, self._take, room=lambda: 1 << 20)

    def _take(self, buf: bytes) -> int:
        self.out += buf
        return len(buf)

    @property
    def lines(self) -> list[bytes]:
        return bytes(self.out).splitlines(keepends=True)


def encoded(msg: dict[str, Any]) -> dict[str, Any]:
    port = Port()
    enc = protocol.Encoder()
    enc.jobs.append((msg, (port,)))
    enc.run()
    assert not enc.jobs and len(port.lines) == 1
    line = port.lines[0]
    assert line.endswith(b"\n") and line.count(b"\n") == 1  # one line, whole
    assert enc.made == len(line)
    got = json.loads(line)
    assert isinstance(got, dict)
    return got


def test_the_examples_have_replies_and_events_to_encode() -> None:
    assert len(EXAMPLE_MESSAGES) >= 30
    assert any("event" in m for m in EXAMPLE_MESSAGES)


@pytest.mark.parametrize("msg", EXAMPLE_MESSAGES, ids=lambda m: str(m.get("id", m.get("event"))))
def test_every_example_message_is_one_line_equal_to_it(msg: dict[str, Any]) -> None:
    assert encoded(msg) == msg


def test_a_config_get_reply_is_one_line() -> None:
    reply = {"id": 9, "ok": True, "config": dict(config.DEFAULTS), "restart_needed": []}
    assert encoded(reply) == reply


scalars = st.one_of(st.none(), st.booleans(), st.integers(-(2**31), 2**31), st.text(max_size=12))
values = st.recursive(
    scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=6), inner, max_size=4)
    ),
    max_leaves=12,
)


@settings(max_examples=300, deadline=None)
@given(st.dictionaries(st.text(min_size=1, max_size=8), values, max_size=12))
def test_random_messages_encode_to_themselves(msg: dict[str, Any]) -> None:
    assert encoded(msg) == msg


def test_lines_go_to_their_ports_in_the_order_the_messages_came() -> None:
    usb, uart = Port(), Port()
    enc = protocol.Encoder()
    for i in range(6):
        enc.jobs.append(({"event": "e", "i": i}, (usb, uart) if i % 2 else (usb,)))
    enc.run()
    assert [json.loads(x)["i"] for x in usb.lines] == list(range(6))
    assert [json.loads(x)["i"] for x in uart.lines] == [1, 3, 5]


def test_a_message_it_cannot_encode_is_lost_not_the_ones_after_it() -> None:
    port = Port()
    enc = protocol.Encoder()
    enc.jobs.append(({"id": 1, "bad": object()}, (port,)))
    enc.jobs.append(({"id": 2, "ok": True}, (port,)))
    with pytest.raises(TypeError):
        enc.run()
    enc.run()
    assert [json.loads(x)["id"] for x in port.lines] == [2]


def test_no_message_is_begun_after_the_deadline_but_the_first() -> None:
    clock = iter(range(0, 10_000, 100))
    port = Port()
    enc = protocol.Encoder(lambda: next(clock))
    for i in range(5):
        enc.jobs.append(({"i": i}, (port,)))
    enc.run(until=0)  # the deadline has passed: one message, whole
    assert len(port.lines) == 1 and len(enc.jobs) == 4
    enc.run()
    assert [json.loads(x)["i"] for x in port.lines] == list(range(5))


def test_a_request_is_parsed_in_one_call() -> None:
    line = b'{"id": 5, "cmd": "arm", "player": "Ann", "presses": 5, "mode": "exact", "cards": 2}'
    req, reply = protocol.parse(line)
    assert reply is None and req is not None and req["player"] == "Ann"
    req, reply = protocol.parse(b'{"id": 5, "cmd": "arm"}')
    assert req is None and reply["error"] == "bad_field" and reply["field"] == "player"
