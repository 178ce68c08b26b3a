"""The host's protocol parser (pure: feed(bytes) -> messages), checked against the example
lines both test suites share (docs/protocol-examples.jsonl) and against hostile input."""

from __future__ import annotations

import json
from typing import Any

import pytest
from fw_harness import load_examples
from hypothesis import given
from hypothesis import strategies as st
from unolaunch.link.protocol import (
    MAX_REQUEST_ID,
    Event,
    LineParser,
    Noise,
    Reply,
    encode_request,
    parse_line,
)


def board_lines() -> list[dict[str, Any]]:
    """Every reply and event the examples say a board sends."""
    out: list[dict[str, Any]] = []
    for ex in load_examples():
        if "reply" in ex:
            out.append(ex["reply"])
        out.extend(ex.get("events", []))
    return out


def test_examples_exist_and_cover_replies_errors_and_events() -> None:
    lines = board_lines()
    assert any(m.get("ok") is True for m in lines)
    assert any(m.get("ok") is False and m.get("id") is None for m in lines)
    assert {m["event"] for m in lines if "event" in m} >= {"press", "eject", "done", "foul"}


@pytest.mark.parametrize("crlf", [False, True])
def test_every_example_parses_to_its_kind_whole_and_byte_by_byte(crlf: bool) -> None:
    lines = board_lines()
    end = b"\r\n" if crlf else b"\n"
    stream = b"".join(json.dumps(m).encode() + end for m in lines)
    whole = LineParser().feed(stream)
    parser = LineParser()
    trickled = [msg for i in range(len(stream)) for msg in parser.feed(stream[i : i + 1])]
    assert whole == trickled
    assert len(whole) == len(lines)
    for want, got in zip(lines, whole, strict=True):
        if "event" in want:
            assert isinstance(got, Event) and got.name == want["event"]
            assert got.fields == want
        else:
            assert isinstance(got, Reply)
            assert got.id == want["id"] and got.ok is want["ok"]
            assert got.error == want.get("error")
            assert got.fields == want


def test_requests_in_the_examples_round_trip_through_the_encoder() -> None:
    checked: set[str] = set()
    for ex in load_examples():
        if "send" not in ex:
            continue
        try:
            req = json.loads(ex["send"])
        except ValueError:
            continue  # the deliberately broken ones
        if not (isinstance(req, dict) and isinstance(req.get("id"), int) and req["id"] >= 0):
            continue
        args = {k: v for k, v in req.items() if k not in ("id", "cmd")}
        line = encode_request(req["id"], req["cmd"], args)
        assert line.endswith(b"\n") and line.count(b"\n") == 1
        assert json.loads(line) == req
        checked.add(req["cmd"])
    # the filters above left examples to check (issue 12: they could have left none)
    assert checked >= {"hello", "status", "arm", "disarm", "fire", "config_set"}, checked


def test_garbage_and_truncated_lines_are_noise_and_the_stream_recovers() -> None:
    parser = LineParser()
    msgs = parser.feed(
        b'{"id": 3, "ok": tr'  # cut short by a reset...
        b"\xff\xfe garbage\n"  # ...and line noise
        b"Traceback (most recent call last):\r\n"
        b"[1, 2]\n"
        b'{"id": "x", "ok": true}\n'
        b'{"ok": "yes"}\n'
        b'{"event": 5}\n'
        b'{"hello": 1}\n'
        b"\n\r\n"
        b'{"id": 4, "ok": true, "state": "idle"}\n'
        b">>> "
    )
    kinds = [type(m).__name__ for m in msgs]
    assert kinds == ["Noise"] * 7 + ["Reply"]
    reasons = [m.reason for m in msgs if isinstance(m, Noise)]
    assert reasons[0] == "not JSON" and "not a JSON object" in reasons
    assert msgs[-1] == Reply(4, True, {"id": 4, "ok": True, "state": "idle"})
    assert parser.pending() == b">>> "
    parser.reset()
    assert parser.pending() == b""


def test_an_endless_line_is_reported_once_and_skipped() -> None:
    parser = LineParser(max_line=100)
    msgs = parser.feed(b"x" * 150)
    msgs += parser.feed(b"y" * 500)
    msgs += parser.feed(b'zzz\n{"event": "press", "t": 1, "n": 1}\n')
    assert [type(m) for m in msgs] == [Noise, Event]
    assert "longer than 100 bytes" in msgs[0].reason  # type: ignore[union-attr]


def test_reply_with_null_id_and_error_fields() -> None:
    msg = parse_line(b'{"id": null, "ok": false, "error": "bad_json", "message": "not JSON"}')
    assert isinstance(msg, Reply)
    assert msg.id is None and not msg.ok and msg.error == "bad_json" and msg.message == "not JSON"
    assert parse_line(b"   ") is None
    event = parse_line(b'{"event": "press", "t": 12, "n": 1}\r')
    assert isinstance(event, Event) and event.t == 12


def test_encoder_refuses_bad_ids_and_clobbering_arguments() -> None:
    with pytest.raises(ValueError, match="out of range"):
        encode_request(MAX_REQUEST_ID + 1, "hello")
    with pytest.raises(ValueError, match="overwrite"):
        encode_request(1, "arm", {"id": 2})
    assert encode_request(7, "arm", {"player": "Zoë"}) == (
        '{"id":7,"cmd":"arm","player":"Zoë"}\n'.encode()
    )


@given(st.lists(st.binary(max_size=40), max_size=30))
def test_parser_never_raises_and_chunking_does_not_matter(chunks: list[bytes]) -> None:
    data = b"".join(chunks)
    one = LineParser(max_line=64).feed(data)
    parser = LineParser(max_line=64)
    many = [m for c in chunks for m in parser.feed(c)]
    assert one == many
    assert all(isinstance(m, Reply | Event | Noise) for m in one)
