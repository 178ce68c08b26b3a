"""Finding a launcher: a Raspberry Pi Pico running MicroPython enumerates as USB
VID:PID 2E8A:0005 (the rp2 port's CDC serial)."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from unolaunch.link.errors import PortNotFoundError

__all__ = ["PICO_MICROPYTHON", "PortInfo", "find_launchers", "list_serial_ports", "resolve_port"]

#: (vendor id, product id) of MicroPython on an RP2040.
PICO_MICROPYTHON = (0x2E8A, 0x0005)


@dataclass(frozen=True)
class PortInfo:
    """A serial port as the system reports it."""

    device: str
    vid: int | None = None
    pid: int | None = None
    serial_number: str | None = None
    description: str = ""

    def is_launcher(self) -> bool:
        """True for a Pico running MicroPython (VID:PID 2E8A:0005)."""
        return (self.vid, self.pid) == PICO_MICROPYTHON

    def describe(self) -> str:
        """``/dev/ttyACM0 (2E8A:0005 Board in FS mode, serial E6614...)``."""
        bits = []
        if self.vid is not None and self.pid is not None:
            bits.append(f"{self.vid:04X}:{self.pid:04X}")
        if self.description and self.description != "n/a":
            bits.append(self.description)
        if self.serial_number:
            bits.append(f"serial {self.serial_number}")
        return f"{self.device} ({', '.join(bits)})" if bits else self.device


def list_serial_ports() -> list[PortInfo]:
    """Every serial port pyserial's ``list_ports`` sees, sorted by device."""
    from serial.tools import list_ports

    ports: Iterable[Any] = list_ports.comports()
    found = [
        PortInfo(
            device=str(p.device),
            vid=p.vid,
            pid=p.pid,
            serial_number=p.serial_number,
            description=str(p.description or ""),
        )
        for p in ports
    ]
    return sorted(found, key=lambda p: p.device)


def find_launchers(ports: Iterable[PortInfo] | None = None) -> list[PortInfo]:
    """The ports that look like a launcher (a Pico with MicroPython)."""
    return [p for p in (list_serial_ports() if ports is None else ports) if p.is_launcher()]


def resolve_port(port: str, lister: Callable[[], list[PortInfo]] = list_serial_ports) -> str:
    """Turn ``auto`` into the one launcher's device; anything else is returned as given.

    With no launcher or several, raises :class:`PortNotFoundError` listing what was found.
    """
    if port != "auto":
        return port
    ports = lister()
    launchers = find_launchers(ports)
    if len(launchers) == 1:
        return launchers[0].device
    vidpid = "{:04X}:{:04X}".format(*PICO_MICROPYTHON)
    if not launchers:
        seen = "; ".join(p.describe() for p in ports) or "none"
        raise PortNotFoundError(
            f"no launcher found (looking for a Pico with MicroPython, USB {vidpid}); "
            f"serial ports seen: {seen}. Plug it in (a data cable, not charge-only), "
            "or name the port with --port"
        )
    names = "; ".join(p.describe() for p in launchers)
    raise PortNotFoundError(
        f"{len(launchers)} launchers found: {names}. Choose one with --port "
        f"(e.g. --port {launchers[0].device})"
    )
