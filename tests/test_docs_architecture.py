"""docs/architecture.md is where a module's job and its neighbours are found (issue 12): it
names every module, and every reference to its contracts (§1-§4) names a section it has."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

from conftest import HOST, REPO

DOC = REPO / "docs" / "architecture.md"


def _tracked() -> list[Path]:
    out = subprocess.run(
        ["git", "ls-files", "-z"], cwd=REPO, capture_output=True, timeout=60, check=True
    ).stdout
    return [REPO / p for p in out.decode().split("\0") if p]


def test_every_module_is_named() -> None:
    text = DOC.read_text()
    package = HOST / "unolaunch"
    modules = [p.stem for p in package.glob("*.py") if p.stem not in ("__init__", "__main__")]
    packages = [p.name for p in package.iterdir() if (p / "__init__.py").is_file()]
    firmware = [p.name for p in (REPO / "firmware" / "launcher").glob("*.py")]
    firmware.remove("__init__.py")
    assert len(modules) > 5 and len(packages) > 4 and len(firmware) > 10  # found them
    missing = [m for m in modules if f"{m}.py" not in text]
    missing += [p for p in packages if f"{p}/" not in text and f"unolaunch.{p}" not in text]
    missing += [f for f in firmware if f.removesuffix(".py") not in text]
    assert not missing, f"docs/architecture.md does not say what these do: {missing}"


def test_references_point_to_sections_that_exist() -> None:
    sections = set(re.findall(r"^## §(\d)", DOC.read_text(), flags=re.M))
    assert sections == {"1", "2", "3", "4"}
    cited: dict[str, list[str]] = {}
    for path in _tracked():
        if path == Path(__file__) or not path.is_file() or path.suffix in (".png", ".svg"):
            continue
        try:
            text = path.read_text()
        except UnicodeDecodeError:
            continue
        assert "CONTRACTS" + ".md" not in text, f"{path} refers to a file that does not exist"
        for n in re.findall(r"architecture\.md §(\d)", text):
            cited.setdefault(n, []).append(path.name)
    assert cited, "nothing refers to the contracts: the scan is broken"
    assert set(cited) <= sections, cited


def test_the_engine_keeps_each_variant_in_its_own_module() -> None:
    """As docs/architecture.md §1 says (issue 12: one 2,200-line engine.py held all three)."""
    from unolaunch.rules import VARIANTS, Game, engine

    for variant, module in zip(VARIANTS, ("attack", "mario_kart", "pocket_pizza"), strict=True):
        cls = type(Game.new(variant, ["Ann", "Bob"]))
        assert cls.__module__ == f"unolaunch.rules.{module}", cls
        assert getattr(engine, cls.__name__) is cls
    assert Game.__module__ == "unolaunch.rules.game"
