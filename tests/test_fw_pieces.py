"""Issue 20: a reply is never encoded in one long go. The firmware's encoder
(``launcher/protocol.py``, ``_pieces`` and ``Encoder``) turns a message into its JSON line a
few fields per piece, and the loop runs as many pieces as its time slice allows; a request
is parsed a field per piece (``parse_steps``). Checked here by structure, under CPython, over
every reply and event of docs/protocol-examples.jsonl, a full config and random messages:
the pieces join to exactly the line ``encode`` gives (id/event/ok/error/message first, the
rest sorted), and no piece holds more than ``CHUNK`` fields. (How long a piece takes on the
rp2040 board is the firmware's own chip-time figure: tests/test_boards_never_deaf.py.)
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


def fields_in(piece: str) -> int:
    """The plain fields a piece writes: 0 for a bracket, a container's key or a list item."""
    text = piece.removeprefix("{").removeprefix(", ").removesuffix("}")
    if not text or text.endswith(": ") or text in ("[", "]"):
        return 0
    try:
        return len(json.loads("{" + text + "}"))
    except ValueError:
        json.loads("[" + text + "]")  # a list's item (or it is no JSON at all: fail)
        return 0


def check_pieces(msg: dict[str, Any]) -> list[str]:
    pieces = list(protocol._pieces(msg, True))
    line = "".join(pieces)
    assert line == protocol.encode(msg)
    assert json.loads(line) == msg
    first = [k for k in ("id", "event", "ok", "error", "message") if k in msg]
    rest = sorted(k for k in msg if k not in first)
    assert list(json.loads(line)) == first + rest  # the order docs/protocol.md promises
    for piece in pieces:
        assert fields_in(piece) <= protocol.CHUNK, (piece, msg)
    return pieces


def test_the_examples_have_replies_and_events_to_encode() -> None:
    assert len(EXAMPLE_MESSAGES) >= 30
    assert any("event" in m for m in EXAMPLE_MESSAGES)


@pytest.mark.parametrize("msg", EXAMPLE_MESSAGES, ids=lambda m: str(m.get("id", m.get("event"))))
def test_every_example_message_is_encoded_in_pieces_of_a_few_fields(msg: dict[str, Any]) -> None:
    pieces = check_pieces(msg)
    plain = sum(fields_in(p) for p in pieces)
    # a message of more than CHUNK fields takes more than one piece to encode
    assert len(pieces) >= 1 + -(-plain // protocol.CHUNK)


def test_a_config_get_reply_is_not_encoded_in_one_go() -> None:
    reply = {"id": 9, "ok": True, "config": dict(config.DEFAULTS), "restart_needed": []}
    pieces = check_pieces(reply)
    assert len(config.DEFAULTS) > 20
    assert len(pieces) > len(config.DEFAULTS) // protocol.CHUNK
    assert max(len(p) for p in pieces) < 120  # the longest piece is a couple of fields


scalars = st.one_of(st.none(), st.booleans(), st.integers(-(2**31), 2**31), st.text(max_size=12))
values = st.recursive(
    scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=6), inner, max_size=4)
    ),
    max_leaves=12,
)


@settings(max_examples=300, deadline=None)
@given(
    st.dictionaries(st.sampled_from(["id", "event", "ok", "error", "message"]), scalars),
    st.dictionaries(st.text(min_size=1, max_size=8), values, max_size=12),
)
def test_random_messages_join_to_the_encoded_line(
    first: dict[str, Any], rest: dict[str, Any]
) -> None:
    check_pieces({**rest, **first})


def test_a_request_is_parsed_in_pieces_and_parse_agrees() -> None:
    line = b'{"id": 5, "cmd": "arm", "player": "Ann", "presses": 5, "mode": "exact", "cards": 2}'
    steps = list(protocol.parse_steps(line))
    assert steps[:-1] == [None] * (len(steps) - 1)
    assert len(steps) >= 5  # decoded, JSON parsed, then a field a piece
    assert steps[-1] == protocol.parse(line)
    assert steps[-1][0]["player"] == "Ann"
    bad = list(protocol.parse_steps(b'{"id": 5, "cmd": "arm"}'))
    assert bad[-1] == protocol.parse(b'{"id": 5, "cmd": "arm"}')
    assert bad[-1][1]["error"] == "bad_field"
