"""``unolaunch monitor``: a live, readable log of everything a launcher reports."""

from __future__ import annotations

import argparse
import json
import signal
import sys
from datetime import datetime
from types import FrameType
from typing import Any, TextIO

from unolaunch.commands import add_port_argument, seconds
from unolaunch.link import LauncherClient

HELP = "show everything a launcher reports, live"

DESCRIPTION = """\
Connect to a launcher and print everything it reports, one line each with the time:
presses, bursts (cards out), fouls, faults, reboots, and anything it prints that is not
part of the protocol (a traceback, a REPL banner). It only listens: it does not arm or fire.

If the launcher is unplugged or restarts, the monitor says so and waits for it to come back.
Stop it with Ctrl-C.

Try it without hardware, in two terminals:
  unolaunch sim --link /tmp/launcher        # then type 'press' there
  unolaunch monitor --port /tmp/launcher
"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of ``unolaunch monitor``."""
    add_port_argument(parser)
    parser.add_argument(
        "--json",
        action="store_true",
        help="print each event as one JSON object (with a 'time' field) for scripts",
    )
    parser.add_argument(
        "--timeout",
        type=seconds,
        default=2.0,
        metavar="S",
        help="seconds to wait for the launcher's replies (default 2)",
    )


def _press(ev: dict[str, Any]) -> str:
    return f"press #{ev.get('n')}" if ev.get("n") is not None else "fire"


def describe_event(ev: dict[str, Any]) -> str:
    """One readable line for a launcher event (docs/protocol.md) or a ``link`` event."""
    name = ev.get("event")
    player = ev.get("player")
    if name == "press":
        text = f"press #{ev.get('n')}"
        if player:
            owed = ev.get("owed")
            text += f" by {player}"
            if isinstance(owed, int):
                text += f" ({owed} more owed)" if owed else " (the last one owed)"
        else:
            text += f" ({ev.get('mode', 'random')} pattern)"
        return text
    if name == "eject":
        cards = ev.get("cards")
        how = "counted" if ev.get("counted") else "estimated, no sensor"
        what = f"{cards} card{'s' if cards != 1 else ''}" if cards else "blank, no card"
        wanted = ev.get("wanted")
        if isinstance(wanted, int) and wanted != cards:
            what += f" of {wanted} wanted"
        target = f" for {player}" if player else ""
        return f"eject: {what} ({how}){target}, {_press(ev)}"
    if name == "done":
        return f"done: {player} has had every press owed"
    if name == "foul":
        reason = {"not_armed": "nobody owes a press", "busy": "still firing"}.get(
            str(ev.get("reason")), str(ev.get("reason"))
        )
        return f"foul: press #{ev.get('n')} ignored ({reason})"
    if name == "fault":
        return f"FAULT {ev.get('code')}: {ev.get('message', '')}".rstrip(": ")
    if name == "cleared":
        by = f" by {ev.get('by')}" if ev.get("by") else ""
        code = f" ({ev.get('code')})" if ev.get("code") else ""
        return f"fault cleared{code}{by}"
    if name == "boot":
        # the boot line says `protocol: 1` (what a bare hello gets); what the firmware
        # speaks is `protocol_max` (docs/protocol.md, Versions)
        speaks = ev.get("protocol_max", ev.get("protocol"))
        cause = f", after {ev['reset_cause']}" if ev.get("reset_cause") else ""
        return (
            f"boot: firmware {ev.get('firmware')}, protocol {speaks}, "
            f"board {ev.get('board')}, config {ev.get('config_status')}, mode {ev.get('mode')}"
            f"{cause}"
        )
    if name == "stray":
        cards = ev.get("cards")
        what = f"{cards} card{'s' if cards != 1 else ''}"
        whose = (
            f"{player}'s, from press #{ev.get('n')}"
            if player
            else (f"after press #{ev.get('n')}" if ev.get("n") is not None else "no press yet")
        )
        return f"stray: {what} came out between bursts ({whose})"
    if name == "tested":
        how = "done" if ev.get("completed") else "cut short"
        if ev.get("cancelled"):
            how = "cancelled"
        return f"tested: {ev.get('part')} ran {ev.get('ms')} ms ({how})"
    if name == "heartbeat":
        who = f" for {player}, {ev.get('owed')} owed" if player else ""
        return f"heartbeat: {ev.get('state')}{who}"
    if name == "link":
        return f"link {ev.get('state')}: {ev.get('message')}"
    if name == "safe_mode":
        return f"safe mode: {ev.get('message', '')}"
    rest = ", ".join(f"{k}={v}" for k, v in ev.items() if k not in ("event", "t"))
    return f"{name}: {rest}" if rest else str(name)


class _Printer:
    def __init__(self, out: TextIO, as_json: bool) -> None:
        self.out = out
        self.as_json = as_json

    def line(self, text: str, record: dict[str, Any]) -> None:
        now = datetime.now()
        if self.as_json:
            record = {"time": now.isoformat(timespec="milliseconds"), **record}
            self.out.write(json.dumps(record) + "\n")
        else:
            self.out.write(f"{now:%H:%M:%S.%f}"[:-3] + f"  {text}\n")
        self.out.flush()

    def event(self, ev: dict[str, Any]) -> None:
        self.line(describe_event(ev), ev)

    def noise(self, text: str) -> None:
        self.line(f"(not protocol) {text.rstrip()}", {"noise": text})


def _terminate(signum: int, frame: FrameType | None) -> None:
    raise KeyboardInterrupt


def run(args: argparse.Namespace) -> int:
    """Connect, print the launcher's identity, then every event until Ctrl-C."""
    signal.signal(signal.SIGTERM, _terminate)
    printer = _Printer(sys.stdout, args.json)
    client = LauncherClient(
        args.port,
        args.timeout,
        reconnect=True,
        reconnect_timeout=float("inf"),
        on_event=printer.event,
        on_noise=printer.noise,
        on_wait=lambda text: print(text, file=sys.stderr, flush=True),
    )
    with client:
        info = client.info
        caps = ", ".join(info.get("capabilities") or []) or "none"
        printer.line(
            f"connected to {client.port}: firmware {info.get('firmware')}, protocol "
            f"{info.get('protocol')}, board {info.get('board')}, capabilities {caps}, "
            f"config {info.get('config_status')}, mode {info.get('mode')}",
            {"event": "connected", "port": client.port, "hello": info},
        )
        try:
            while True:
                # Events are printed by the callback as they are read.
                client.next_event(timeout=3600)
        except KeyboardInterrupt:
            pass
        finally:
            if not args.json:
                sys.stdout.write(f"{datetime.now():%H:%M:%S}  monitor stopped\n")
                sys.stdout.flush()
    return 0
