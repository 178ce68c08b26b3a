"""The firmware's own configuration code, loaded into CPython.

The launcher's configuration (its defaults and its validation) lives in exactly one place:
``firmware/launcher/config.py``, MicroPython code that also runs on the Pico. The host needs
the same facts — ``unolaunch flash --config`` validates a file before putting it on a board,
and ``hardware/generate.py`` documents the default pin map — so it imports that module
instead of keeping a copy. The module is a pure logic module (it imports no ``machine``), so
it runs under CPython too; a tiny ``micropython`` stand-in covers ``const``.
"""

from __future__ import annotations

import importlib
import sys
import types
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from unolaunch import firmware_dir
from unolaunch.errors import UnolaunchError

__all__ = ["config_defaults", "load_config_module"]

_PACKAGE = "launcher"


@contextmanager
def _firmware_on_path(root: Path) -> Iterator[None]:
    """Make ``import launcher.config`` find the firmware under ``root``, then undo it all."""
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
