"""Hatchling build hook: compile the translation catalogs (``.po`` → ``.mo``) with Babel.

The ``.po`` files are the source (in git); the ``.mo`` files are built, never committed.
A wheel gets them in ``unolaunch/locale/<lang>/LC_MESSAGES/``; an editable install writes
them next to their ``.po`` (ignored by git), where the package finds them.
"""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

from hatchling.builders.hooks.plugin.interface import BuildHookInterface


class CatalogBuildHook(BuildHookInterface):  # type: ignore[misc]
    """Compile every ``host/unolaunch/locale/*/LC_MESSAGES/*.po`` into a ``.mo``."""

    PLUGIN_NAME = "catalogs"

    def initialize(self, version: str, build_data: dict[str, Any]) -> None:
        from babel.messages.mofile import write_mo
        from babel.messages.pofile import read_po

        root = Path(self.root) / "host" / "unolaunch" / "locale"
        editable = version == "editable"
        out_root = root if editable else Path(tempfile.mkdtemp(prefix="unolaunch-mo-"))
        for po in sorted(root.glob("*/LC_MESSAGES/*.po")):
            lang = po.parent.parent.name
            with po.open("rb") as f:
                catalog = read_po(f, locale=lang, domain=po.stem)
            rel = po.relative_to(root).with_suffix(".mo")
            mo = out_root / rel
            mo.parent.mkdir(parents=True, exist_ok=True)
            with mo.open("wb") as f:
                write_mo(f, catalog, use_fuzzy=False)
            if not editable:
                build_data["force_include"][str(mo)] = f"unolaunch/locale/{rel.as_posix()}"
