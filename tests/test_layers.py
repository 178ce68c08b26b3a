"""Issue 24: the host package's layers. Commands sit on top (only the CLI imports them),
the simulation is a library below them, and the rules package has no import cycle (the
variants register with the engine; the base game imports none of them). Every import
counts, also one inside a function or under TYPE_CHECKING: a lazy import back up the
layers is still a cycle."""

from __future__ import annotations

import ast
import random
from pathlib import Path

import pytest
from conftest import HOST

PACKAGE = HOST / "unolaunch"


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(HOST).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _modules() -> dict[str, Path]:
    out = {}
    for path in PACKAGE.rglob("*.py"):
        if path.relative_to(PACKAGE).parts[:2] == ("sim", "board"):
            continue  # the simulated board is MicroPython code, not host code
        out[_module_name(path)] = path
    return out


MODULES = _modules()


def _imports(path: Path) -> set[str]:
    """Every unolaunch module ``path`` imports, anywhere in it (a name imported from a
    package counts as its submodule when there is one)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module)
            found.update(
                f"{node.module}.{a.name}"
                for a in node.names
                if f"{node.module}.{a.name}" in MODULES
            )
    return {m for m in found if m in MODULES}


GRAPH = {name: _imports(path) for name, path in MODULES.items()}


def _cycle_through(start: str, graph: dict[str, set[str]]) -> list[str] | None:
    """A chain of imports from ``start`` back to ``start``, if there is one."""
    stack = [(start, [start])]
    seen: set[str] = set()
    while stack:
        node, chain = stack.pop()
        for nxt in sorted(graph.get(node, ())):
            if nxt == start:
                return [*chain, start]
            if nxt not in seen:
                seen.add(nxt)
                stack.append((nxt, [*chain, nxt]))
    return None


def test_the_graph_is_read() -> None:
    # The checks below pass trivially on an empty graph: see that the known edges are there.
    assert "unolaunch.simulation.runners" in GRAPH["unolaunch.commands.simulate"] or (
        "unolaunch.simulation" in GRAPH["unolaunch.commands.simulate"]
    )
    assert "unolaunch.rules.game" in GRAPH["unolaunch.rules.attack"]
    assert "unolaunch.simulation.stats" in GRAPH["unolaunch.plot"] or (
        "unolaunch.simulation" in GRAPH["unolaunch.plot"]
    )
    # A cycle is found where there is one (the old game.py <-> attack.py).
    fake = {
        **GRAPH,
        "unolaunch.rules.game": GRAPH["unolaunch.rules.game"] | {"unolaunch.rules.attack"},
    }
    assert _cycle_through("unolaunch.rules.game", fake) is not None


def test_no_module_below_commands_imports_commands() -> None:
    offenders = {
        name: sorted(
            m for m in deps if m == "unolaunch.commands" or m.startswith("unolaunch.commands.")
        )
        for name, deps in GRAPH.items()
        if name != "unolaunch.cli"
        and name != "unolaunch.commands"
        and not name.startswith("unolaunch.commands.")
    }
    assert {k: v for k, v in offenders.items() if v} == {}


@pytest.mark.parametrize("module", sorted(m for m in MODULES if m.startswith("unolaunch.rules")))
def test_rules_package_has_no_import_cycle(module: str) -> None:
    assert _cycle_through(module, GRAPH) is None


@pytest.mark.parametrize(
    "module",
    [*sorted(m for m in MODULES if m.startswith("unolaunch.simulation")), "unolaunch.plot"],
)
def test_simulation_library_has_no_import_cycle(module: str) -> None:
    assert _cycle_through(module, GRAPH) is None


def test_variants_register_with_the_engine() -> None:
    from unolaunch.rules import VARIANTS, AttackGame, Game, MarioKartGame, PocketPizzaGame
    from unolaunch.rules.game import _VARIANT_CLASSES

    want = {"attack": AttackGame, "mario-kart": MarioKartGame, "pocket-pizza": PocketPizzaGame}
    assert want == _VARIANT_CLASSES
    assert set(_VARIANT_CLASSES) == set(VARIANTS)
    for name, cls in _VARIANT_CLASSES.items():
        assert type(Game.new(name, ["Ann", "Bob"], rng=random.Random(1))) is cls
    with pytest.raises(ValueError, match="unknown variant 'uno'"):
        Game.new("uno", ["Ann", "Bob"])
    with pytest.raises(ValueError, match="not one of"):
        type("Bogus", (Game,), {"variant": "bogus"})
    assert "bogus" not in _VARIANT_CLASSES


def _reaches(start: str, graph: dict[str, set[str]]) -> set[str]:
    """Every module ``start`` imports, directly or through others."""
    seen: set[str] = set()
    stack = [start]
    while stack:
        for nxt in graph.get(stack.pop(), ()):
            if nxt not in seen:
                seen.add(nxt)
                stack.append(nxt)
    return seen


@pytest.mark.parametrize(
    "module",
    [*sorted(m for m in MODULES if m.startswith("unolaunch.flash")), "unolaunch.rp2image"],
)
def test_the_flasher_and_the_image_layout_do_not_import_the_simulator(module: str) -> None:
    """Issue 35: the flash image's layout sits below both the flasher and the emulated
    RP2040; the flasher reaches it without the simulator."""
    assert "unolaunch.rp2image" in _reaches("unolaunch.flash.uf2", GRAPH)  # the scan works
    assert "unolaunch.rp2image" in _reaches("unolaunch.sim.rp2040", GRAPH)
    sim = sorted(m for m in _reaches(module, GRAPH) if m.startswith("unolaunch.sim"))
    assert sim == []
