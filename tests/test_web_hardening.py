"""Nothing a stranger on the Wi-Fi sends reaches the game's terminal (issue 23, items 6
and 7): malformed, oversized and deeply nested requests are answered with a status and
one line, their tracebacks go to the server's log file, the secret is checked before the
body is read, requests for another host name are refused (DNS rebinding), and the
responses carry no ``Server`` banner, a ``Permissions-Policy`` and cacheable static files.

The flood is sent twice: to a server in this process (stderr captured: it stays empty)
and to ``unolaunch play --web`` in a pseudo-terminal, whose screen must show nothing of it.
"""

from __future__ import annotations

import http.client
import json
import re
import socket
from collections.abc import Iterator
from pathlib import Path

import pytest
from table_pty import start_web_play
from test_web_api import WebGame, _serve
from unolaunch.web.server import MAX_DEPTH, host_allowed, json_depth

DEEP = ("[" * 1900 + "]" * 1900).encode()  # the issue's 3.8 KB body


@pytest.fixture
def game(tmp_path: Path) -> Iterator[WebGame]:
    yield from _serve(tmp_path, log_path=tmp_path / "web.log")


def raw_request(port: int, data: bytes) -> tuple[int, bytes]:
    """Send ``data`` as it is on a new connection; the status and the whole answer."""
    with socket.create_connection(("127.0.0.1", port), timeout=10) as conn:
        conn.sendall(data)
        got = b""
        while True:
            chunk = conn.recv(65536)
            if not chunk:
                break
            got += chunk
    match = re.match(rb"HTTP/1\.[01] (\d{3})", got)
    assert match, got[:200]
    return int(match.group(1)), got


def flood(port: int) -> dict[str, tuple[int, bytes]]:
    """Each bad request of the issue, with the answers."""
    host = f"127.0.0.1:{port}".encode()
    head = b"Host: " + host + b"\r\nConnection: close\r\n"

    def post(body: bytes, auth: bytes = b"") -> bytes:
        return (
            b"POST /api/action HTTP/1.1\r\n" + head + auth + b"Content-Type: application/json\r\n"
            b"Content-Length: " + str(len(body)).encode() + b"\r\n\r\n" + body
        )

    return {
        "deep, no secret": raw_request(port, post(DEEP)),
        "deep, wrong secret": raw_request(port, post(DEEP, b"Authorization: Bearer nope\r\n")),
        "long url": raw_request(port, b"GET /" + b"a" * 9000 + b" HTTP/1.1\r\n" + head + b"\r\n"),
        "long header": raw_request(
            port, b"GET / HTTP/1.1\r\n" + head + b"X-Long: " + b"a" * 9000 + b"\r\n\r\n"
        ),
        "many headers": raw_request(
            port,
            b"GET / HTTP/1.1\r\n"
            + head
            + b"".join(b"X-H%d: 1\r\n" % i for i in range(120))
            + b"\r\n",
        ),
        "two hosts": raw_request(port, b"GET / HTTP/1.1\r\n" + head + b"Host: evil\r\n\r\n"),
        "two secrets": raw_request(  # which one is it? (issue 34, item 11)
            port, post(b'{"by": "Cy", "pass": true}', b"Authorization: Bearer a\r\n" * 2)
        ),
        "not http": raw_request(port, b"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03\r\n\r\n"),
    }


def check_answers(answers: dict[str, tuple[int, bytes]]) -> None:
    expected = {
        "deep, no secret": 400,  # nested deeper than MAX_DEPTH: refused before parsing
        "deep, wrong secret": 403,  # the secret first: the body is never read
        "long url": 431,
        "long header": 431,
        "many headers": 431,
        "two hosts": 400,
        "two secrets": 400,
        "not http": 400,
    }
    for what, (status, answer) in answers.items():
        assert status == expected[what], (what, answer[:300])
        assert b"Traceback" not in answer and b"aiohttp" not in answer, what
        assert b"\r\nServer:" not in answer, what  # no banner, even on the HTTP layer's 400


def test_item6_a_flood_of_bad_requests_prints_nothing_and_is_logged(
    game: WebGame, tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    before = (game.journal_actions(), game.session.version)
    check_answers(flood(game.server.port))
    assert game.state()["awaiting"]["by"] == "Cy"  # still serving, nothing changed
    assert (game.journal_actions(), game.session.version) == before
    out, err = capfd.readouterr()
    assert out == "" and err == "", (out, err)
    assert game.out.getvalue() == ""  # the terminal's table printed nothing either
    log = (tmp_path / "web.log").read_text()
    assert "Duplicate 'Host'" in log and "LineTooLong" in log  # the details are kept here


def test_item6_the_secret_is_checked_before_the_body_and_depth_is_bounded(
    game: WebGame,
) -> None:
    assert json_depth(DEEP) == 1900 and json_depth(b'{"a": "[[[[[[[[[[[[["}') == 1
    assert json_depth(b'{"by": "Ann", "reveal": {"Bob": "r5 \\"[["}}') == 2
    key = game.secrets["Cy"]
    auth = {"Content-Type": "application/json", "Authorization": f"Bearer {key}"}
    nested = ("[" * (MAX_DEPTH + 1) + "]" * (MAX_DEPTH + 1)).encode()
    status, _, body = game.request("POST", "/api/action", nested, auth)
    assert status == 400 and "deeper" in json.loads(body)["error"]
    # a wrong secret with a body too big is refused for the secret, unread
    status, _, _ = game.request(
        "POST",
        "/api/action",
        b"x" * 10_000,
        {"Content-Type": "application/json", "Authorization": "Bearer nope"},
    )
    assert status == 403
    assert game.act({"by": "Cy", "choose": {"top": "r5"}})[0] == 200  # the right one works


def test_issue34_item11_two_authorization_headers_get_400_as_the_docs_say(game: WebGame) -> None:
    """docs/web.md: a header twice is a 400. Two ``Authorization`` headers (the same
    secret twice, or two players') were accepted: the first one decided."""
    body = json.dumps({"by": "Cy", "choose": {"top": "r5"}}).encode()
    port = game.server.port
    for second in (game.secrets["Cy"], game.secrets["Ann"]):
        request = (
            b"POST /api/action HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nConnection: close\r\n"
            b"Authorization: Bearer %s\r\nAuthorization: Bearer %s\r\n"
            b"Content-Type: application/json\r\nContent-Length: %d\r\n\r\n"
            % (port, game.secrets["Cy"].encode(), second.encode(), len(body))
        ) + body
        status, answer = raw_request(port, request)
        assert status == 400, answer[:300]
    assert game.journal_actions() == []  # nothing was done
    assert game.act({"by": "Cy", "choose": {"top": "r5"}})[0] == 200  # one header: taken


def test_item7_host_header_must_name_this_server(game: WebGame) -> None:
    port = game.server.port
    for host in (f"127.0.0.1:{port}", f"localhost:{port}", f"[::1]:{port}", "192.168.1.20"):
        status, _, _ = game.request("GET", "/api/state", headers={"Host": host})
        assert status == 200, host
    for host in (f"evil.example:{port}", "rebind.attacker.test", "127.0.0.1.evil.test"):
        status, _, body = game.request("GET", "/api/state", headers={"Host": host})
        assert status == 421 and b"address" in body, host
    names = frozenset({"localhost", "gamebox", "gamebox.local"})
    assert host_allowed("GameBox.local:8080", names)
    assert not host_allowed("", names) and not host_allowed("gamebox.evil:80", names)


def test_item7_no_server_banner_permissions_policy_and_cached_static_files(
    game: WebGame,
) -> None:
    status, headers, page = game.request("GET", "/")
    assert status == 200 and "server" not in headers
    assert "camera=()" in headers["permissions-policy"]
    assert headers["cache-control"] == "no-store"  # the page itself: always fresh
    assets = re.findall(r'src="(/static/[^"]+)"', page.decode())
    assert assets and all(re.search(r"\?v=[0-9a-f]{12}$", a) for a in assets)
    status, headers, _ = game.request("GET", assets[0])
    assert status == 200 and "server" not in headers
    assert (
        "max-age=31536000" in headers["cache-control"] and "immutable" in headers["cache-control"]
    )
    etag = headers["etag"]
    status, headers, body = game.request(
        "GET", assets[0].split("?")[0], headers={"If-None-Match": etag}
    )
    assert status == 304 and body == b"" and headers["cache-control"] == "no-cache"
    status, headers, _ = game.request("GET", "/api/state")
    assert headers["cache-control"] == "no-store" and "server" not in headers


def test_item6_play_web_terminal_shows_nothing_of_a_flood(tmp_path: Path) -> None:
    p, url, _links = start_web_play(tmp_path / "data", ("Ann", "Bob", "Cy"), "Cy", timeout=30)
    try:
        port = int(url.rsplit(":", 1)[1].strip("/"))
        p.at("Cy> ")
        check_answers(flood(port))
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
        conn.request("GET", "/api/state")
        assert conn.getresponse().status == 200
        conn.close()
        # what the terminal printed between the prompt and the screen 'show' draws
        p.type("Cy> ", "show")
        shown = p.at("Cy> ")
        for word in ("Traceback", "Error handling", "aiohttp", "RecursionError", "LineTooLong"):
            assert word not in shown, shown
        assert shown.lstrip().startswith("show")  # the echo of what was typed, then the screen
    finally:
        p.close()
    log = (tmp_path / "data" / "web.log").read_text()
    assert "LineTooLong" in log and "Duplicate 'Host'" in log
