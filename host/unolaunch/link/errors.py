"""What can go wrong between the host and a launcher: one hierarchy under
:class:`unolaunch.errors.UnolaunchError`, each message saying what to do about it."""

from __future__ import annotations

from typing import Any

from unolaunch.errors import UnolaunchError
from unolaunch.i18n import N_, _

__all__ = [
    "BadReplyError",
    "CommandError",
    "ConfigInvalidError",
    "DisconnectedError",
    "FaultError",
    "IncompatibleFirmwareError",
    "LinkError",
    "NoReplyError",
    "PortBusyError",
    "PortNotFoundError",
    "PortPermissionError",
    "PortReplacedError",
]

#: What to do about a launcher that says nothing: it is hung, or not running our firmware.
#: (Safe mode is the cure for a firmware that will not let go of the REPL, not for silence.)
#: (Marked for the catalog: translated where shown.)
NO_REPLY_HINT = N_(
    "unplug the launcher and plug it back in; if it stays silent, run 'unolaunch flash'"
)
#: ... and about one that shows MicroPython's prompt instead of answering.
NO_FIRMWARE_HINT = N_("MicroPython answers, but not the launcher firmware: run 'unolaunch flash'")


class LinkError(UnolaunchError):
    """Talking to the launcher failed; ``port`` names the device (when known). ``detail``
    is what went wrong without the advice, for a caller that gives advice of its own
    (``flash``, ``selftest``); for most errors it is the whole message."""

    def __init__(self, message: str, port: str | None = None) -> None:
        super().__init__(message)
        self.port = port
        self.detail = message


class PortNotFoundError(LinkError):
    """No such device, or ``auto`` found no launcher (or several)."""


class PortBusyError(LinkError):
    """Another program holds the port."""

    def __init__(self, port: str) -> None:
        super().__init__(
            _(
                "{port} is busy: is Thonny or mpremote holding {port}? "
                "close it (or its REPL) and try again"
            ).format(port=port),
            port,
        )


class PortPermissionError(LinkError):
    """The user may not open the port."""

    def __init__(self, port: str) -> None:
        super().__init__(
            _(
                "permission denied opening {port}: add yourself to the 'dialout' group "
                "(sudo usermod -aG dialout $USER), then log out and in again"
            ).format(port=port),
            port,
        )


class NoReplyError(LinkError):
    """The board did not answer in time (``detail``: without the advice)."""

    def __init__(self, port: str, what: str, timeout: float, seen: str = "") -> None:
        detail = self._detail(port, what, timeout)
        if seen:
            detail = _("{what} (it printed: {seen})").format(what=detail, seen=seen)
        # a MicroPython prompt: the board runs, but not the launcher firmware
        hint = NO_FIRMWARE_HINT if ">>>" in seen else NO_REPLY_HINT
        hint = _(hint)
        super().__init__(_("{what}: {hint}").format(what=detail, hint=hint), port)
        self.detail = detail
        self.timeout = timeout

    def _detail(self, port: str, what: str, timeout: float) -> str:
        return _("no reply from the launcher on {port} to {what} within {seconds} s").format(
            port=port, what=what, seconds=f"{timeout:g}"
        )


class NoEventError(NoReplyError):
    """An event waited for did not come in time (``what`` names it: "'eject' event")."""

    def _detail(self, port: str, what: str, timeout: float) -> str:
        return _("the launcher on {port} sent no {what} within {seconds} s").format(
            port=port, what=what, seconds=f"{timeout:g}"
        )


class DisconnectedError(LinkError):
    """The device went away (unplugged, reset) and did not come back."""


class PortReplacedError(DisconnectedError):
    """The device path now names another pseudo-terminal: ours is gone for good."""


class IncompatibleFirmwareError(LinkError):
    """The board runs firmware speaking another protocol (or no launcher firmware)."""


class BadReplyError(LinkError):
    """The board answered something that is not a valid reply."""


class CommandError(LinkError):
    """The launcher refused a request (``ok: false``).

    ``code`` is the protocol's error code (``bad_field``, ``bad_state``...), ``field`` the
    argument at fault (for ``bad_field``), ``reply`` the whole reply.
    """

    def __init__(self, cmd: str, reply: dict[str, Any], port: str | None = None) -> None:
        self.cmd = cmd
        self.reply = reply
        self.code = str(reply.get("error") or "error")
        self.field = reply.get("field") if isinstance(reply.get("field"), str) else None
        message = str(reply.get("message") or self.code)
        super().__init__(
            _("the launcher refused {command}: {message}").format(command=cmd, message=message)
            + self._advice(),
            port,
        )

    def _advice(self) -> str:
        if self.code == "bad_field" and self.field:
            return " " + _("(argument {name})").format(name=repr(self.field))
        if self.code == "unknown_cmd":
            return " " + _("(older firmware? run 'unolaunch flash')")
        return ""


class EventLogGone(CommandError):
    """``events since`` asked for events the launcher no longer keeps (``gone``: its ring
    was overwritten); ``oldest`` is the first it still has."""

    @property
    def oldest(self) -> int:
        """The first ``seq`` the launcher still keeps."""
        value = self.reply.get("oldest")
        return value if isinstance(value, int) else 0


class FaultError(CommandError):
    """The launcher is in a fault state (jam, empty magazine...): clear it with ``stop``."""

    def _advice(self) -> str:
        if "stop" in str(self.reply.get("message", "")):
            return ""
        return "; " + _("fix the cause (clear the jam, load cards), then send stop")


class ConfigInvalidError(CommandError):
    """``config_set`` refused; ``reasons`` lists ``{"key", "reason"}``."""

    def __init__(self, cmd: str, reply: dict[str, Any], port: str | None = None) -> None:
        raw = reply.get("reasons")
        self.reasons: list[dict[str, Any]] = (
            [r for r in raw if isinstance(r, dict)] if isinstance(raw, list) else []
        )
        super().__init__(cmd, reply, port)

    def _advice(self) -> str:
        if not self.reasons:
            return ""
        return ": " + "; ".join(f"{r.get('key')}: {r.get('reason')}" for r in self.reasons)
