"""``--web [HOST:]PORT``: where the pages are served, checked before anything starts.

Nothing here needs the ``web`` extra: :func:`web_address` says how to install it when
aiohttp or segno is missing.
"""

from __future__ import annotations

import importlib.util
import ipaddress
import socket

from unolaunch.errors import UnolaunchError, UsageError
from unolaunch.i18n import _

WEB_HELP = (
    "also serve the game to browsers at [HOST:]PORT: the table view for a tablet or TV and "
    "a page per player to play from their phone (127.0.0.1 by default: this computer "
    "only; 0.0.0.0:PORT serves the local network and prints a QR code per player). "
    "Needs: pip install 'unolaunch[web]'"
)

WEB_LOG_HELP = (
    "where the web server writes what went wrong (bad requests, errors): never the "
    "terminal (default: web.log in the data folder)"
)


def parse_bind(text: str) -> tuple[str, int]:
    """``--web [HOST:]PORT`` -> (host, port); the host defaults to 127.0.0.1 (this
    computer only). ``0.0.0.0:8080`` serves the local network; ``[::]:8080`` IPv6."""
    raw = text.strip()
    host, sep, port_text = raw.rpartition(":")
    if not sep:
        host, port_text = "127.0.0.1", raw
    host = host.strip("[]") or "127.0.0.1"
    if not port_text.isdigit() or not 0 <= int(port_text) <= 65535:
        raise UsageError(
            _(
                "--web {given}: give a port (8080) or HOST:PORT (0.0.0.0:8080 for the local "
                "network); the port is a number 0-65535 (0: any free port)"
            ).format(given=repr(text))
        )
    return host, int(port_text)


def web_address(text: str) -> tuple[str, int]:
    """:func:`parse_bind`, after checking the ``web`` extra is installed and that the
    address can be served (before a game is started or resumed for nothing)."""
    host, port = parse_bind(text)
    missing = [m for m in ("aiohttp", "segno") if importlib.util.find_spec(m) is None]
    if missing:
        raise UsageError(
            _(
                "--web needs {modules}: pip install 'unolaunch[web]' (from a checkout: pip "
                "install -e '.[web]')"
            ).format(modules=", ".join(missing))
        )
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
        family, kind, proto, _name, address = infos[0]
        with socket.socket(family, kind, proto) as probe:
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            probe.bind(address)
    except OSError as exc:
        reason = exc.strerror or str(exc)
        raise UnolaunchError(
            _(
                "cannot serve the web pages on {host}:{port} ({reason}); choose another port "
                "or address, e.g. --web {other}"
            ).format(
                host=host, port=port, reason=reason, other=port + 1 if 0 < port < 65535 else 8080
            )
        ) from None
    return host, port


def is_loopback(host: str) -> bool:
    """True when ``host`` is reachable from this computer only."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def lan_address() -> str:
    """This computer's address on the local network (the route to the outside; no packet
    is sent), or 127.0.0.1 when it has none."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        try:
            s.connect(("10.255.255.255", 1))
            return str(s.getsockname()[0])
        except OSError:
            return "127.0.0.1"
