"""Talking to a launcher over USB serial: the protocol (docs/protocol.md), the client,
finding the port, and what can go wrong.

    from unolaunch.link import open_launcher
    with open_launcher("auto") as launcher:
        launcher.arm("Bob", presses=2)
"""

from __future__ import annotations

from unolaunch.link.client import EventDict, LauncherClient, open_launcher, open_serial
from unolaunch.link.discovery import PortInfo, find_launchers, list_serial_ports, resolve_port
from unolaunch.link.errors import (
    BadReplyError,
    CommandError,
    ConfigInvalidError,
    DisconnectedError,
    EventLogGone,
    FaultError,
    IncompatibleFirmwareError,
    LinkError,
    NoEventError,
    NoReplyError,
    PortBusyError,
    PortNotFoundError,
    PortPermissionError,
    PortReplacedError,
)
from unolaunch.link.protocol import PROTOCOL_VERSION, Event, LineParser, Noise, Reply

__all__ = [
    "PROTOCOL_VERSION",
    "BadReplyError",
    "CommandError",
    "ConfigInvalidError",
    "DisconnectedError",
    "Event",
    "EventDict",
    "EventLogGone",
    "FaultError",
    "IncompatibleFirmwareError",
    "LauncherClient",
    "LineParser",
    "LinkError",
    "NoEventError",
    "NoReplyError",
    "Noise",
    "PortBusyError",
    "PortInfo",
    "PortNotFoundError",
    "PortPermissionError",
    "PortReplacedError",
    "Reply",
    "find_launchers",
    "list_serial_ports",
    "open_launcher",
    "open_serial",
    "resolve_port",
]
