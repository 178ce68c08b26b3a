"""The web server of ``--web``: the table view, the player views and the JSON API.

Routes (all same-origin, nothing loaded from elsewhere):

``GET /``
    the table view (read-only, for a tablet or a TV).
``GET /p/SECRET``
    one player's view (their join link); a secret this game does not have gets a page
    (404) saying so and what to do. Any other address: a 404 page.
``GET /api/state``
    the game as JSON (:mod:`unolaunch.web.state`); public, like the table itself.
``GET /api/events``
    server-sent events: the state at once, then again after every change.
``GET /api/me``
    with the player's secret: ``{"player": NAME}``.
``POST /api/action``
    with the player's secret (``Authorization: Bearer SECRET``, checked before the body
    is read; or ``"secret"`` in the body): one action in the scenario format's JSON
    (``{"by": "Ann", "play": "r5"}``). 401 without a secret, 403 with a wrong one or for
    another player, 413 for a body over :data:`MAX_BODY` bytes, 415 for anything but
    JSON, 400 for a malformed action (or JSON nested deeper than :data:`MAX_DEPTH`), 409
    for an action the rules refuse (with the terminal's message); 200 (202 for a press of
    the simulated button) when it was carried out.

Nothing the server does is ever printed over the game's terminal: what goes wrong (a
malformed request, a bug) is answered with a status and one line (400, 413, 421, 431,
500) and written to the server's own log file (:class:`WebServer`'s ``log_path``: the
data folder's ``web.log``, or ``--web-log``). Requests must name this server in their
``Host`` header (an address, ``localhost`` or this computer's name): a page of another
site that rebinds its DNS name to this address cannot read the game.

The server runs aiohttp on an event loop of its own thread (:class:`WebServer`); the game
is changed only through the front end (:mod:`unolaunch.web.front`), in a worker thread,
so the terminal, the launcher and the pages all go through the one session lock.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import hmac
import ipaddress
import json
import logging
import re
import secrets
import socket
import threading
from collections.abc import Awaitable, Callable, Iterator, Mapping, Sequence
from importlib import resources
from pathlib import Path
from typing import Any, Protocol

from aiohttp import web
from aiohttp.http_exceptions import LineTooLong

from unolaunch.errors import UnolaunchError
from unolaunch.i18n import _, current, use
from unolaunch.web import pages
from unolaunch.web.address import is_loopback, lan_address

#: The largest request body accepted (an action is well under 1 KB).
MAX_BODY = 4096
#: The deepest nesting of arrays and objects accepted in a body (an action needs 3).
MAX_DEPTH = 8
#: The most request headers accepted (a browser sends about 15).
MAX_HEADERS = 100
#: Seconds between keep-alive comments on an idle event stream.
PING_S = 15.0
#: Bytes of randomness in a player's secret (128 bits: no guess finds one).
SECRET_BYTES = 16

#: What a secret looks like (token_urlsafe of SECRET_BYTES or more).
_SECRET = re.compile(r"[A-Za-z0-9_-]{22,}")

_STATIC = ("table.js", "player.js", "common.js", "style.css")
#: Headers a request may carry once only: twice is a 400 (which secret, which body?).
_SINGLE_HEADERS = ("Authorization", "Host", "Content-Type", "Content-Length")
_SECURITY_HEADERS = {
    "Content-Security-Policy": (
        "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
        "connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
    ),
    "X-Content-Type-Options": "nosniff",
    "X-Frame-Options": "DENY",
    "Referrer-Policy": "no-referrer",
    "Cross-Origin-Opener-Policy": "same-origin",
    "Cross-Origin-Resource-Policy": "same-origin",
    "Permissions-Policy": (
        "camera=(), microphone=(), geolocation=(), payment=(), usb=(), serial=(), "
        "bluetooth=(), midi=(), display-capture=()"
    ),
}


def _secure(response: web.StreamResponse) -> web.StreamResponse:
    """The same-origin, no-frames, no-sniffing headers of every response; no-store unless
    the response says how it may be cached (the static files)."""
    for k, v in _SECURITY_HEADERS.items():
        response.headers.setdefault(k, v)
    response.headers.setdefault("Cache-Control", "no-store")
    return response


def json_depth(raw: bytes) -> int:
    """How deeply the arrays and objects of the JSON text ``raw`` nest (brackets inside
    strings do not count). Checked before parsing: a body of nested brackets would
    otherwise exhaust the parser's recursion."""
    depth = most = 0
    in_string = escaped = False
    for byte in raw:
        if in_string:
            if escaped:
                escaped = False
            elif byte == 0x5C:  # backslash
                escaped = True
            elif byte == 0x22:
                in_string = False
        elif byte == 0x22:
            in_string = True
        elif byte in (0x5B, 0x7B):  # [ {
            depth += 1
            most = max(most, depth)
        elif byte in (0x5D, 0x7D):
            depth -= 1
    return most


def _own_names() -> frozenset[str]:
    """The names this computer answers to besides its addresses."""
    names = {"localhost"}
    with contextlib.suppress(OSError):
        host = socket.gethostname().lower()
        names |= {host, host + ".local", host + ".lan", socket.getfqdn().lower()}
    return frozenset(n for n in names if n)


def host_allowed(value: str, names: frozenset[str]) -> bool:
    """True when the ``Host`` header ``value`` names this server: an IP address (a DNS
    rebinding page always uses a name of its own) or one of ``names``, with any port."""
    host = value.strip().lower()
    if host.startswith("["):  # [::1]:8080
        host = host[1:].partition("]")[0]
    elif host.count(":") == 1:
        host = host.partition(":")[0]
    if not host:
        return False
    try:
        ipaddress.ip_address(host)
    except ValueError:
        return host.rstrip(".") in names
    return True


def server_log(path: Path | None) -> logging.Logger:
    """The web server's own logger: into the file ``path`` (appended), or nowhere when
    None. Never the terminal: the logger is not part of the logging tree, so nothing
    reaches Python's last-resort handler on stderr."""
    log = logging.Logger("unolaunch.web", logging.INFO)
    handler: logging.Handler = logging.NullHandler()
    if path is not None:
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            handler = logging.FileHandler(path, encoding="utf-8", delay=True)
        except OSError:
            handler = logging.NullHandler()
        handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(message)s"))
    log.addHandler(handler)
    return log


class _PlainResponse(web.Response):
    """An error answer of the HTTP layer, without the ``Server`` header."""

    async def _prepare_headers(self) -> None:
        await super()._prepare_headers()
        self.headers.popall("Server", None)


class _QuietHandler(web.RequestHandler):
    """aiohttp's connection handler whose error answers are one line (431 for a line or
    header too long or too many headers, 400 for another malformed request, 500 for a
    bug) and whose tracebacks go to the server's log only."""

    def handle_error(
        self,
        request: web.BaseRequest,
        status: int = 500,
        exc: BaseException | None = None,
        message: str | None = None,
    ) -> web.StreamResponse:
        self.logger.warning(
            "error handling a request from %s: %s", request.remote, exc or message, exc_info=exc
        )
        if request.writer.output_size > 0:
            raise ConnectionError("the answer was started already")
        text = _("the server could not answer this request (it is in the server's log)")
        if isinstance(exc, LineTooLong) or "Too many headers" in str(exc or message or ""):
            status, text = 431, _("the request's address or headers are too long or too many")
        elif status == 400:
            text = _("this request is not valid HTTP (e.g. a header twice, or a bad line)")
        elif status != 500:
            text = message or text
        resp = _PlainResponse(status=status, text=text + "\n", content_type="text/plain")
        _secure(resp)
        resp.force_close()
        return resp


class _QuietServer(web.Server):
    """aiohttp's low-level server, with :class:`_QuietHandler` for each connection."""

    def __call__(self) -> web.RequestHandler:
        return _QuietHandler(self, loop=self._loop, **self._kwargs)


class _Runner(web.AppRunner):
    """aiohttp's runner of an application, serving it with :class:`_QuietServer`."""

    async def _make_server(self) -> web.Server:
        server = await super()._make_server()
        server.__class__ = _QuietServer
        return server


class Front(Protocol):
    """What the server needs from a game (see :mod:`unolaunch.web.front`)."""

    players_can_act: bool
    on_change: Callable[[], None]

    @property
    def players(self) -> tuple[str, ...]:
        """Players in seating order."""
        ...

    def state(self) -> dict[str, Any]:
        """The game as JSON."""
        ...

    def act(self, player: str, data: Mapping[str, Any]) -> tuple[int, dict[str, Any]]:
        """One authenticated player's action: (HTTP status, JSON reply)."""
        ...


class Secrets:
    """One secret per player for one game (``secrets.token_urlsafe``): those ``kept`` with
    the game (its journal: a resumed game keeps its links), new ones for the others."""

    def __init__(self, players: Sequence[str], kept: Mapping[str, str] | None = None) -> None:
        kept = kept or {}
        self.by_player = {
            p: kept[p]
            if _SECRET.fullmatch(kept.get(p, ""))
            else secrets.token_urlsafe(SECRET_BYTES)
            for p in players
        }

    def player_of(self, secret: str | None) -> str | None:
        """The player whose secret this is (compared in constant time), else None."""
        if not secret:
            return None
        found = None
        given = secret.encode("utf-8", "replace")
        for player, mine in self.by_player.items():
            if hmac.compare_digest(given, mine.encode()):
                found = player
        return found


class Hub:
    """Counts changes of the game and wakes the event streams (on the server's loop)."""

    def __init__(self) -> None:
        self.version = 0
        self._event = asyncio.Event()
        self.closing = False

    def bump(self) -> None:
        """The game changed (call on the loop's thread)."""
        self.version += 1
        event, self._event = self._event, asyncio.Event()
        event.set()

    async def wait(self, seen: int, timeout: float) -> bool:
        """Wait until the version moves past ``seen``; False after ``timeout``."""
        if self.version != seen or self.closing:
            return True
        try:
            await asyncio.wait_for(self._event.wait(), timeout)
        except TimeoutError:
            return False
        return True


def _in(lang: str, fn: Callable[..., Any], *args: Any) -> Any:
    """``fn(*args)`` with its words in ``lang`` (for a worker thread: the request's
    language does not follow ``run_in_executor``)."""
    with use(lang):
        return fn(*args)


def make_app(
    front: Front,
    keys: Secrets,
    hub: Hub,
    log: logging.Logger | None = None,
    lang: str | None = None,
) -> web.Application:
    """The aiohttp application for ``front`` (see the module docstring for the routes);
    what goes wrong is written to ``log`` (:func:`server_log`), never printed. ``lang``:
    the game's language (default: the process's); a phone may read its own (the
    ``lang`` query of the API, its page's cookie: :mod:`unolaunch.web.pages`)."""
    log = log or server_log(None)
    names = _own_names()
    game_lang = lang or current()

    def api_lang(request: web.Request) -> str:
        return pages.valid(request.query.get("lang")) or game_lang

    def page_lang(request: web.Request) -> str:
        return pages.valid(request.cookies.get(pages.LANG_COOKIE)) or game_lang

    @web.middleware
    async def headers(
        request: web.Request, handler: Callable[[web.Request], Awaitable[web.StreamResponse]]
    ) -> web.StreamResponse:
        if len(request.raw_headers) > MAX_HEADERS:
            text = _("at most {n} request headers").format(n=MAX_HEADERS)
            return _secure(web.Response(status=431, text=text + "\n"))
        twice = [h for h in _SINGLE_HEADERS if len(request.headers.getall(h, ())) > 1]
        if twice:  # whose secret, which body? ambiguous: refused, nothing read (issue 34)
            log.warning("header %s twice from %s", twice[0], request.remote)
            text = _("this request is not valid HTTP (e.g. a header twice, or a bad line)")
            return _secure(web.Response(status=400, text=text + "\n"))
        if not host_allowed(request.headers.get("Host", ""), names):
            log.warning("refused Host %r from %s", request.headers.get("Host"), request.remote)
            return _secure(
                web.Response(
                    status=421,
                    text=_(
                        "this server answers to its own address only: open the address "
                        "the table printed (e.g. {example})"
                    ).format(example="http://192.168.1.20:8080/")
                    + "\n",
                )
            )
        try:
            response = await handler(request)
        except web.HTTPException as exc:
            _secure(exc)
            raise
        except (asyncio.CancelledError, ConnectionError):
            raise
        except Exception:  # a bug: one line for the browser, the traceback in the log
            log.exception("error answering %s %s", request.method, request.path)
            return _secure(
                web.json_response(
                    {"ok": False, "error": _("the server hit a problem (see its log, web.log)")},
                    status=500,
                )
            )
        return _secure(response)

    async def no_server_header(request: web.Request, response: web.StreamResponse) -> None:
        response.headers.popall("Server", None)

    app = web.Application(middlewares=[headers], client_max_size=MAX_BODY, logger=log)
    app.on_response_prepare.append(no_server_header)
    cache: dict[str, tuple[int, dict[str, Any]]] = {}  # a language's last state
    static_files = {
        name: resources.files("unolaunch.web").joinpath("static", name).read_bytes()
        for name in _STATIC
    }
    versions = {name: hashlib.sha256(body).hexdigest()[:12] for name, body in static_files.items()}

    async def state_now(lang: str) -> dict[str, Any]:
        # made once per change and language: every page of that language shares it
        version, cached = cache.get(lang, (-1, {}))
        if version == hub.version:
            return dict(cached)
        seen = hub.version
        state = await asyncio.get_running_loop().run_in_executor(None, _in, lang, front.state)
        state["version"] = seen
        cache[lang] = (seen, state)
        return dict(state)

    def page(name: str, lang: str, status: int = 200) -> web.Response:
        template = resources.files("unolaunch.web").joinpath("static", name).read_text("utf-8")
        body = pages.render(template, lang, game_lang, versions)
        return web.Response(text=body, content_type="text/html", charset="utf-8", status=status)

    async def table(request: web.Request) -> web.Response:
        return page("table.html", game_lang)  # the table view follows the game

    async def player_page(request: web.Request) -> web.Response:
        if keys.player_of(request.match_info["secret"]) is None:
            return page("link.html", page_lang(request), status=404)  # what to do
        return page("player.html", page_lang(request))

    async def static(request: web.Request) -> web.Response:
        # Cached: for a year at the versioned address the pages use (its content never
        # changes), else revalidated with its ETag.
        name = request.match_info["name"]
        if name not in _STATIC:
            raise web.HTTPNotFound()
        etag = f'"{versions[name]}"'
        cache = (
            "public, max-age=31536000, immutable"
            if request.query.get("v") == versions[name]
            else "no-cache"
        )
        headers = {"ETag": etag, "Cache-Control": cache}
        if etag in request.headers.get("If-None-Match", ""):
            return web.Response(status=304, headers=headers)
        kind = "text/css" if name.endswith(".css") else "text/javascript"
        return web.Response(
            body=static_files[name], content_type=kind, charset="utf-8", headers=headers
        )

    async def api_state(request: web.Request) -> web.Response:
        return web.json_response(await state_now(api_lang(request)))

    async def events(request: web.Request) -> web.StreamResponse:
        response = _secure(
            web.StreamResponse(
                headers={"Content-Type": "text/event-stream", "X-Accel-Buffering": "no"}
            )
        )
        await response.prepare(request)
        seen = -1
        lang = api_lang(request)
        with contextlib.suppress(ConnectionError, asyncio.CancelledError):
            await response.write(b"retry: 1000\n\n")
            while not hub.closing:
                if hub.version != seen:
                    state = await state_now(lang)
                    seen = state["version"]
                    await response.write(b"data: " + json.dumps(state).encode() + b"\n\n")
                    await asyncio.sleep(0.05)  # a burst of changes goes out as one
                elif not await hub.wait(seen, PING_S):
                    await response.write(b": ping\n\n")
        return response

    def secret_of(request: web.Request, body: Mapping[str, Any] | None) -> str | None:
        auth = request.headers.get("Authorization", "")
        if auth.lower().startswith("bearer "):
            return auth[7:].strip()
        if body is not None and isinstance(body.get("secret"), str):
            return str(body["secret"])
        return None

    def denied(status: int, message: str) -> web.Response:
        headers = {"WWW-Authenticate": 'Bearer realm="unolaunch"'} if status == 401 else None
        return web.json_response({"ok": False, "error": message}, status=status, headers=headers)

    def who(request: web.Request, body: Mapping[str, Any] | None) -> str | web.Response:
        secret = secret_of(request, body)
        if not secret:
            return denied(401, _("this needs your player link's secret (Authorization: Bearer …)"))
        player = keys.player_of(secret)
        if player is None:
            return denied(403, _("that secret is not valid for this game; open your join link"))
        return player

    async def me(request: web.Request) -> web.Response:
        with use(api_lang(request)):
            found = who(request, None)
        if isinstance(found, web.Response):
            return found
        return web.json_response({"player": found})

    async def action(request: web.Request) -> web.Response:
        lang = api_lang(request)
        with use(lang):  # the refusals in the phone's language
            return await _action(request, lang)

    async def _action(request: web.Request, lang: str) -> web.Response:
        # The secret of the Authorization header is checked before the body is read: a
        # stranger's request is refused without reading or parsing anything it sent.
        header_player = None
        if request.headers.get("Authorization"):
            found = who(request, None)
            if isinstance(found, web.Response):
                return found
            header_player = found
        too_big = _("a request body is at most {n} bytes").format(n=MAX_BODY)
        example = '{"by": "Ann", "play": "r5"}'
        if (request.content_length or 0) > MAX_BODY:
            return denied(413, too_big)
        if request.content_type != "application/json":
            return denied(415, _("send the action as JSON (Content-Type: application/json)"))
        try:
            raw = await request.read()
        except web.HTTPRequestEntityTooLarge:
            return denied(413, too_big)
        if json_depth(raw) > MAX_DEPTH:
            return denied(
                400, _("the body nests deeper than {n} levels: not an action").format(n=MAX_DEPTH)
            )
        try:
            body = json.loads(raw.decode("utf-8"))
        except (UnicodeDecodeError, ValueError, RecursionError):
            return denied(
                400, _("the body is not JSON; send e.g. {example}").format(example=example)
            )
        if not isinstance(body, dict):
            return denied(
                400, _("an action is a JSON object, e.g. {example}").format(example=example)
            )
        found = header_player if header_player is not None else who(request, body)
        if isinstance(found, web.Response):
            return found
        body.pop("secret", None)
        if body.get("by") != found:
            return denied(
                403,
                _('this link is {player}\'s: {player} can act only as "by": "{player}"').format(
                    player=found
                ),
            )
        if not front.players_can_act:
            return denied(403, _("nobody plays from the web in this game"))
        status, reply = await asyncio.get_running_loop().run_in_executor(
            None, _in, lang, front.act, found, body
        )
        return web.json_response(reply, status=status)

    async def no_icon(request: web.Request) -> web.Response:
        return web.Response(status=204)

    async def not_found(request: web.Request) -> web.Response:
        return page("missing.html", page_lang(request), status=404)

    app.router.add_get("/", table)
    app.router.add_get("/p/{secret}", player_page)
    app.router.add_get("/static/{name}", static)
    app.router.add_get("/api/state", api_state)
    app.router.add_get("/api/events", events)
    app.router.add_get("/api/me", me)
    app.router.add_post("/api/action", action)
    app.router.add_get("/favicon.ico", no_icon)
    app.router.add_route("*", "/{tail:.*}", not_found)
    return app


class WebServer:
    """The web pages of one game, served from a thread of their own.

    ``WebServer(front, host, port).start()`` binds (port 0: any free port), prints nothing
    and returns; :attr:`url` and :meth:`join_links` say where to go; :meth:`close` stops.
    What goes wrong while serving is written to ``log_path`` (nowhere when None), never
    to the terminal. ``kept``: the players' secrets kept with the game (new ones for the
    players without one).
    """

    def __init__(
        self,
        front: Front,
        host: str = "127.0.0.1",
        port: int = 8080,
        log_path: Path | None = None,
        kept: Mapping[str, str] | None = None,
    ) -> None:
        self.front = front
        self.host = host
        self.port = port
        self.log_path = log_path
        self.log = server_log(log_path)
        self.keys = Secrets(front.players if front.players_can_act else (), kept)
        self._loop: asyncio.AbstractEventLoop | None = None
        self._hub: Hub | None = None
        self._runner: web.AppRunner | None = None
        self._thread = threading.Thread(target=self._serve, name="web", daemon=True)
        self._ready = threading.Event()
        self._error: BaseException | None = None
        self._stopped = threading.Event()

    # ------------------------------------------------------------------ life
    def start(self) -> WebServer:
        """Bind and serve; ``UnolaunchError`` when the address cannot be used."""
        self.front.on_change = self.changed
        self._thread.start()
        if not self._ready.wait(15):
            raise UnolaunchError(_("the web server did not start within {n} s").format(n=15))
        if self._error is not None:
            err = self._error
            reason = err.strerror if isinstance(err, OSError) and err.strerror else str(err)
            raise UnolaunchError(
                _(
                    "cannot serve the web pages on {host}:{port} ({reason}); choose another "
                    "port, e.g. --web {other}"
                ).format(host=self.host, port=self.port, reason=reason, other=8081)
            )
        return self

    def _serve(self) -> None:
        loop = asyncio.new_event_loop()
        self._loop = loop
        asyncio.set_event_loop(loop)
        loop.set_exception_handler(
            lambda _loop, context: self.log.error(
                "%s", context.get("message"), exc_info=context.get("exception")
            )
        )
        try:
            self._hub = Hub()
            self._runner = _Runner(
                make_app(self.front, self.keys, self._hub, self.log),
                access_log=None,
                shutdown_timeout=1.0,
                logger=self.log,
                max_headers=MAX_HEADERS,
            )
            loop.run_until_complete(self._runner.setup())
            site = web.TCPSite(self._runner, self.host, self.port, reuse_address=True)
            loop.run_until_complete(site.start())
            server = getattr(site, "_server", None)
            sockets = getattr(server, "sockets", None) or []
            if sockets:
                self.port = int(sockets[0].getsockname()[1])
        except BaseException as exc:  # reported by start()
            self._error = exc
            self._ready.set()
            loop.close()
            return
        self._ready.set()
        try:
            loop.run_forever()
        finally:
            loop.run_until_complete(self._runner.cleanup())
            loop.close()
            self._stopped.set()

    def changed(self) -> None:
        """The game may have changed (any thread): wake the event streams."""
        loop, hub = self._loop, self._hub
        if loop is not None and hub is not None and not loop.is_closed():
            with contextlib.suppress(RuntimeError):  # the loop is closing
                loop.call_soon_threadsafe(hub.bump)

    def close(self) -> None:
        """Stop serving (the event streams end; the pages reconnect to nothing)."""
        loop, hub = self._loop, self._hub
        if loop is None or loop.is_closed() or not self._thread.is_alive():
            return

        def stop() -> None:
            if hub is not None:
                hub.closing = True
                hub.bump()
            loop.call_later(0.1, loop.stop)

        with contextlib.suppress(RuntimeError):
            loop.call_soon_threadsafe(stop)
        self._thread.join(timeout=5)

    def __enter__(self) -> WebServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ------------------------------------------------------------------ addresses
    @property
    def public_host(self) -> str:
        """The host to put in links: this computer's LAN address when serving every
        interface, else the host given."""
        if self.host in ("0.0.0.0", "::", ""):
            return lan_address()
        return self.host

    @property
    def url(self) -> str:
        """The table view's address."""
        host = self.public_host
        if ":" in host:
            host = f"[{host}]"
        return f"http://{host}:{self.port}/"

    def join_links(self) -> dict[str, str]:
        """Each player's join link (their view, with their secret)."""
        return {p: f"{self.url}p/{s}" for p, s in self.keys.by_player.items()}

    @property
    def on_lan(self) -> bool:
        """True when other devices can reach the pages."""
        return not is_loopback(self.host)


def join_lines(server: WebServer, qr: bool | None = None, kept: bool = False) -> list[str]:
    """What the terminal prints when the pages are served: the table's address, each
    player's link and, on the local network (``qr`` None), a QR code of each link;
    ``kept``: the links are the game's from before (a resumed game)."""
    lines = [
        _("Table view: {url}  (read-only: show it on a tablet or a TV)").format(url=server.url)
    ]
    links = server.join_links()
    if not links:
        return lines
    if kept:
        lines.append(
            _(
                "The players' links are the same as before (open pages reconnect by "
                "themselves); if a link got out, start with --new-links to make new ones."
            )
        )
    show_qr = server.on_lan if qr is None else qr
    if not server.on_lan:
        lines.append(
            _("Player views (this computer only; serve the local network with --web 0.0.0.0:PORT):")
        )
    else:
        lines.append(
            _(
                "Player views: each player scans their own code (or opens their link) on "
                "their phone; a link is that player's key, show it to them only:"
            )
        )
    for player, link in links.items():
        lines.append(f"  {player}: {link}")
        if show_qr:
            lines.extend("    " + row for row in qr_text(link).splitlines())
    return lines


def qr_text(data: str) -> str:
    """A QR code of ``data`` drawn with block characters for a terminal."""
    import io

    import segno

    out = io.StringIO()
    segno.make(data, error="m", micro=False).terminal(out=out, compact=True, border=2)
    return out.getvalue()


#: The server's log file in the data folder (``--web-log`` puts it elsewhere).
LOG_NAME = "web.log"


@contextlib.contextmanager
def serve_table(
    table: Any, host: str, port: int, log_path: Path | None = None, new_links: bool = False
) -> Iterator[Any]:
    """``unolaunch play --web``: serve ``table``'s game (a :class:`~.front.TableFront`),
    print the addresses (and QR codes on the local network) on the terminal, yield the
    front (its ``notify`` is the launcher's), stop serving at the end. The server logs to
    ``log_path``, by default ``web.log`` beside the games file. The players' secrets are
    kept with the game, so a resumed game keeps its links; ``new_links`` makes new ones
    (the old stop working)."""
    from unolaunch.web.front import TableFront

    front = TableFront(table)
    session = table.session
    if log_path is None:
        log_path = Path(session.journal.path).parent / LOG_NAME
    kept = {} if new_links else session.journal.web_links(session.id)
    server = WebServer(front, host, port, log_path, kept)
    if server.keys.by_player != kept:  # kept with the game: --resume keeps the links
        session.journal.set_web_links(session.id, server.keys.by_player)
    try:
        server.start()
    except UnolaunchError as exc:
        gid = table.session.id
        raise UnolaunchError(
            _("{error} — game {id} is saved: 'unolaunch play --resume {id} --web PORT'").format(
                error=exc, id=gid
            )
        ) from None
    try:
        for line in join_lines(server, kept=bool(kept) and server.keys.by_player == kept):
            table.say(line)
        yield front
    finally:
        server.close()
        front.close()


@contextlib.contextmanager
def serve_demo(
    players: Sequence[str],
    host: str,
    port: int,
    say: Callable[[str], None],
    pace: float,
    log_path: Path | None = None,
) -> Iterator[Any]:
    """``unolaunch demo --web``: serve the bots' game read-only (a
    :class:`~.front.DemoFront`, ``pace`` seconds a step), print its address with ``say``,
    yield the front, stop serving at the end (the server logs to ``log_path``)."""
    from unolaunch.web.front import DemoFront

    front = DemoFront(tuple(players), pace=pace)
    with WebServer(front, host, port, log_path) as server:
        for line in join_lines(server):
            say(line)
        yield front
