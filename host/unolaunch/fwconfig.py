"""The firmware's own configuration code, loaded into CPython.

The launcher's configuration (its defaults and its validation) lives in exactly one place:
``firmware/launcher/config.py``, MicroPython code that also runs on the Pico. The host needs
the same facts — ``unolaunch flash --config`` validates a file before putting it on a board,
and ``hardware/generate.py`` documents the default pin map — so it imports that module
instead of keeping a copy. The module is a pure logic module (it imports no ``machine``), so
it runs under CPython too; a tiny ``micropython`` stand-in covers ``const``.
"""

from __future__ import annotations

import functools
import importlib
import json
import sys
import threading
import types
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from unolaunch import firmware_dir
from unolaunch.errors import UnolaunchError, UsageError

__all__ = [
    "config_defaults",
    "load_config_module",
    "load_pattern_module",
    "pattern_settings",
    "read_config_file",
]

_PACKAGE = "launcher"


# sys.modules and sys.path are the process's: one firmware import at a time (threads, e.g.
# several demos at once, would otherwise remove each other's modules mid-import).
_IMPORTING = threading.RLock()


@contextmanager
def _firmware_on_path(root: Path) -> Iterator[None]:
    """Make ``import launcher.config`` find the firmware under ``root``, then undo it all."""
    with _IMPORTING:
        yield from _on_path(root)


def _on_path(root: Path) -> Iterator[None]:
    saved = {
        name: mod
        for name, mod in sys.modules.items()
        if name == _PACKAGE or name.startswith(_PACKAGE + ".") or name == "micropython"
    }
    for name in saved:
        del sys.modules[name]
    if "micropython" not in saved:
        shim = types.ModuleType("micropython")
        shim.const = lambda value: value  # type: ignore[attr-defined]
        sys.modules["micropython"] = shim
    sys.path.insert(0, str(root))
    try:
        yield
    finally:
        sys.path.remove(str(root))
        for name in [n for n in sys.modules if n == _PACKAGE or n.startswith(_PACKAGE + ".")]:
            del sys.modules[name]
        sys.modules.pop("micropython", None)
        sys.modules.update(saved)


def load_config_module(firmware: Path | None = None) -> types.ModuleType:
    """Import ``launcher/config.py`` from ``firmware`` (default: :func:`unolaunch.firmware_dir`).

    The module is loaded fresh and not left in ``sys.modules``. Raises
    :class:`~unolaunch.errors.UnolaunchError` when the firmware tree is missing or broken.
    """
    root = Path(firmware) if firmware is not None else firmware_dir()
    source = root / _PACKAGE / "config.py"
    if not source.is_file():
        raise UnolaunchError(
            f"the firmware's configuration module {source} is missing; "
            "reinstall unolaunch (or restore firmware/ in your checkout)"
        )
    with _firmware_on_path(root):
        try:
            return importlib.import_module(f"{_PACKAGE}.config")
        except Exception as exc:  # a broken firmware tree, not the user's input
            raise UnolaunchError(
                f"cannot load the firmware's configuration code {source}: "
                f"{type(exc).__name__}: {exc}"
            ) from exc


def config_defaults(firmware: Path | None = None) -> dict[str, Any]:
    """Return a copy of the firmware's ``DEFAULTS`` (the configuration a fresh board uses)."""
    module = load_config_module(firmware)
    defaults = getattr(module, "DEFAULTS", None)
    if not isinstance(defaults, dict):
        raise UnolaunchError(f"{module.__file__} has no DEFAULTS dict; the firmware is broken")
    return dict(defaults)


@functools.cache
def load_pattern_module(firmware: Path | None = None) -> types.ModuleType:
    """Import the firmware's ejection pattern, ``launcher/pattern.py`` (once per process).

    The host's model of the launcher is this very module (it runs unchanged under CPython),
    never a copy of it. Raises :class:`~unolaunch.errors.UnolaunchError` when it is missing.
    """
    root = Path(firmware) if firmware is not None else firmware_dir()
    source = root / _PACKAGE / "pattern.py"
    if not source.is_file():
        raise UnolaunchError(
            f"the firmware's pattern module {source} is missing; "
            "reinstall unolaunch (or restore firmware/ in your checkout)"
        )
    with _firmware_on_path(root):
        try:
            return importlib.import_module(f"{_PACKAGE}.pattern")
        except Exception as exc:  # a broken firmware tree, not the user's input
            raise UnolaunchError(
                f"cannot load the firmware's pattern code {source}: {type(exc).__name__}: {exc}"
            ) from exc


#: The configuration keys the ejection pattern reads (``Pattern.configure``).
PATTERN_KEYS = ("fire_chance_pct", "max_blanks", "burst_weights")


@functools.cache
def _default_pattern() -> tuple[int, int, tuple[int, ...]]:
    d = config_defaults()
    return d["fire_chance_pct"], d["max_blanks"], tuple(d["burst_weights"])


@functools.cache
def _config_module() -> types.ModuleType:
    return load_config_module()


def pattern_settings(config: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """The pattern's keys of ``config`` (default: the firmware's ``DEFAULTS``, cached), each
    checked by the firmware's own ``check_value``; a key ``config`` lacks takes its default.

    Raises ``ValueError`` naming the key for a value the firmware would refuse.
    """
    chance, blanks, weights = _default_pattern()
    out: dict[str, Any] = {
        "fire_chance_pct": chance, "max_blanks": blanks, "burst_weights": list(weights)
    }  # fmt: skip
    if config is None:
        return out
    module = _config_module()
    for key in PATTERN_KEYS:
        if key in config:
            value = config[key]
            reason = module.check_value(key, value)
            if reason:
                raise ValueError(f"{key}: {reason}")
            out[key] = list(value) if key == "burst_weights" else value
    return out


def read_config_file(
    path: str | Path, firmware: Path | None = None, *, chip: str | None = None
) -> dict[str, Any]:
    """Read a ``launcher.json`` (the file the firmware reads, or a fragment of it) and return
    the whole configuration it gives: its keys over ``DEFAULTS``, validated by the firmware's
    own ``merged`` (so the host accepts exactly what ``config_set`` accepts), for ``chip``
    (``rp2040``...) when the board's chip is known.

    Raises :class:`~unolaunch.errors.UsageError` with a one-line reason.
    """
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise UsageError(f"cannot read the config file {path}: {exc}") from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise UsageError(
            f"{path} is not valid JSON (line {exc.lineno}, column {exc.colno}: {exc.msg}); "
            "fix the file and try again"
        ) from None
    module = load_config_module(firmware)
    new, errors = module.merged(dict(module.DEFAULTS), data, chip)
    if errors:
        reasons = "; ".join(f"{key}: {reason}" for key, reason in errors)
        raise UsageError(f"{path} is not a valid launcher config ({reasons})")
    return dict(new)
