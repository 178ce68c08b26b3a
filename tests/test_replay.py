"""`unolaunch replay`: every scenario through the real CLI and through the API (FORMAT.md)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import RunCli
from unolaunch.commands.replay import load_file
from unolaunch.rules.scenario import STATE_KEYS, load_scenario, run_scenario

SCENARIOS = Path(__file__).parent / "scenarios"
FILES = sorted(SCENARIOS.glob("*.json"))


def test_there_are_scenarios() -> None:
    assert len(FILES) >= 10


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.stem)
def test_scenario_passes_through_the_api(path: Path) -> None:
    sc = load_scenario(json.loads(path.read_text()))
    out = run_scenario(sc)
    assert out.passed, out.failures
    if sc.expect_error is not None:
        assert out.error is not None and out.error["rule"] == sc.expect_error["rule"]


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.stem)
def test_scenario_passes_through_the_cli(run_cli: RunCli, path: Path) -> None:
    proc = run_cli("replay", path, "--json")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    out = json.loads(proc.stdout)
    assert out["passed"] is True and out["failures"] == []
    assert set(out["state"]) == set(STATE_KEYS)
    sc = load_file(path)
    if sc.expect_error is not None:
        assert out["error"]["action"] == sc.expect_error["action"]
        assert out["error"]["rule"] == sc.expect_error["rule"]
        assert out["error"]["message"].startswith(sc.expect_error["rule"] + ":")
    else:
        assert out["error"] is None


def test_readable_account_names_actions_and_says_pass(run_cli: RunCli) -> None:
    proc = run_cli("replay", SCENARIOS / "attack-hit2.json")
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[-1] == "PASS"
    assert any("Ann: play rH2" in line for line in lines)
    assert any("Bob takes 3 cards g2 g3 g4" in line for line in lines)


def test_refused_action_is_shown_with_its_rule(run_cli: RunCli) -> None:
    proc = run_cli("replay", SCENARIOS / "attack-illegal-colour.json")
    assert proc.returncode == 0
    assert "refused" in proc.stdout and "COM-2:" in proc.stdout
    assert proc.stdout.rstrip().endswith("PASS")


def _write(tmp_path: Path, data: object, name: str = "s.json") -> Path:
    p = tmp_path / name
    p.write_text(json.dumps(data) if not isinstance(data, str) else data)
    return p


def _base() -> dict:
    return json.loads((SCENARIOS / "attack-hit2.json").read_text())


def test_failing_scenario_exits_1_and_lists_every_mismatch(run_cli: RunCli, tmp_path: Path) -> None:
    data = _base()
    data["expect"]["turn"] = "Bob"
    data["expect"]["stock_size"] = 3
    p = _write(tmp_path, data)
    proc = run_cli("replay", p)
    assert proc.returncode == 1
    assert "FAIL" in proc.stdout
    assert 'turn: expected "Bob", got "Cy"' in proc.stdout
    assert "stock_size: expected 3, got 1" in proc.stdout
    proc = run_cli("replay", p, "--json")
    assert proc.returncode == 1
    out = json.loads(proc.stdout)
    assert out["passed"] is False
    assert {f["key"] for f in out["failures"]} == {"turn", "stock_size"}


def test_expected_error_that_does_not_happen_fails(run_cli: RunCli, tmp_path: Path) -> None:
    data = _base()
    del data["expect"]
    data["expect_error"] = {"action": 0, "rule": "COM-2"}
    proc = run_cli("replay", _write(tmp_path, data), "--json")
    assert proc.returncode == 1
    assert json.loads(proc.stdout)["failures"][0]["key"] == "expect_error"


def test_wrong_rule_in_expect_error_fails(run_cli: RunCli, tmp_path: Path) -> None:
    data = json.loads((SCENARIOS / "attack-illegal-colour.json").read_text())
    data["expect_error"]["rule"] = "ATK-5"
    proc = run_cli("replay", _write(tmp_path, data), "--json")
    assert proc.returncode == 1
    out = json.loads(proc.stdout)
    assert out["error"]["rule"] == "COM-2"


def _bad(data: dict, path: list, value: object) -> dict:
    node = data
    for key in path[:-1]:
        node = node[key]
    if value is KeyError:
        del node[path[-1]]
    else:
        node[path[-1]] = value
    return data


BAD_INPUT = [
    ("bad-json", None, "not valid JSON"),
    ("unknown-card", (["start", "hands", "Ann"], ["rH2", "x9"]), "start.hands.Ann[1]"),
    ("unknown-card-in-action", (["actions", 0, "play"], "rH9"), "actions[0].play"),
    ("unknown-player-in-action", (["actions", 1, "by"], "Zed"), "actions[1].by"),
    ("unknown-player-in-hands", (["start", "hands", "Zed"], ["r1"]), "start.hands.Zed"),
    ("unknown-turn", (["start", "turn"], "Zed"), "start.turn"),
    ("missing-start-key", (["start", "discard"], KeyError), "start.discard"),
    ("missing-actions", (["actions"], KeyError), "actions"),
    ("missing-variant", (["variant"], KeyError), "variant"),
    ("unknown-variant", (["variant"], "uno-flip"), "variant"),
    ("missing-by", (["actions", 0, "by"], KeyError), "actions[0].by"),
    ("card-not-in-variant", (["start", "hands", "Bob"], ["W+4"]), "start.hands.Bob"),
    ("bad-colour", (["start", "color"], "purple"), "start.color"),
    ("unknown-expect-key", (["expect", "winner"], "Ann"), "expect.winner"),
    ("bad-launcher", (["launcher"], [1, -2]), "launcher"),
    ("action-card-of-another-variant", (["actions", 0, "play"], "W+4"), "actions[0].play"),
    # issue 12: a non-string verb was `internal error: TypeError` (exit 1)
    (
        "awaiting-verb-not-a-string",
        (["expect", "awaiting"], {"by": "Cy", "verbs": ["play", 1]}),
        "expect.awaiting.verbs[1]",
    ),
    ("awaiting-unknown-verb", (["expect", "awaiting"], {"by": "Cy", "verbs": ["fly"]}), "verbs[0]"),
    ("awaiting-verbs-not-a-list", (["expect", "awaiting"], {"by": "Cy", "verbs": "play"}), "verbs"),
    ("awaiting-not-an-object", (["expect", "awaiting"], ["Cy"]), "expect.awaiting"),
    ("awaiting-unknown-player", (["expect", "awaiting"], {"by": "Zed", "verbs": []}), "by"),
]


@pytest.mark.parametrize(("label", "change", "field"), BAD_INPUT, ids=[b[0] for b in BAD_INPUT])
def test_unusable_file_exit_2_one_line_naming_file_and_field(
    run_cli: RunCli, tmp_path: Path, label: str, change: tuple | None, field: str
) -> None:
    if change is None:
        p = _write(tmp_path, '{"name": "broken", "variant": ', name=f"{label}.json")
    else:
        p = _write(tmp_path, _bad(_base(), *change), name=f"{label}.json")
    for extra in ([], ["--json"]):
        proc = run_cli("replay", p, *extra)
        assert proc.returncode == 2, proc.stdout + proc.stderr
        assert "Traceback" not in proc.stderr
        lines = proc.stderr.strip().splitlines()
        assert len(lines) == 1, proc.stderr
        assert str(p) in lines[0]
        assert field in lines[0]
        assert proc.stdout == ""


def test_the_format_is_printed_by_the_command_itself(run_cli: RunCli) -> None:
    """Issue 12: `replay --help` pointed to tests/scenarios/FORMAT.md, which an installed
    user does not have; `replay --format` prints it from the package."""
    proc = run_cli("replay", "--format")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("# Rule scenarios: the replay format")
    for section in ("## Cards", "### `expect`", "expect_error", "## What `unolaunch replay`"):
        assert section in proc.stdout
    helped = run_cli("replay", "--help")
    assert "--format" in helped.stdout and "tests/scenarios" not in helped.stdout
    bare = run_cli("replay")
    assert bare.returncode == 2 and "FILE" in bare.stderr and "--format" in bare.stderr


def test_missing_file_is_exit_2(run_cli: RunCli, tmp_path: Path) -> None:
    proc = run_cli("replay", tmp_path / "nope.json")
    assert proc.returncode == 2
    assert "nope.json" in proc.stderr and "no such file" in proc.stderr


SHARED = ("../shared", "/work/shared")


def _names_shared_material(path: Path, text: str) -> bool:
    """Whether ``text`` (the file ``path``) points code at the shared folder: a Python string
    that is not a docstring, or anything outside comments in other files."""
    import ast
    import re

    if path.suffix == ".py":
        tree = ast.parse(text)
        docstrings = {
            id(node.body[0].value)
            for node in ast.walk(tree)
            if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
            and node.body
            and isinstance(node.body[0], ast.Expr)
            and isinstance(node.body[0].value, ast.Constant)
        }
        return any(
            isinstance(node, ast.Constant)
            and isinstance(node.value, str)
            and id(node) not in docstrings
            and any(s in node.value for s in SHARED)
            for node in ast.walk(tree)
        )
    if path.suffix in (".js", ".mjs"):
        text = re.sub(r"/\*.*?\*/|//[^\n]*", "", text, flags=re.S)
    return any(s in text for s in SHARED)


def test_the_project_does_not_read_shared_material() -> None:
    """Only .ci/run may name the shared folder (the rules and the rp2 toolchain live there for
    the developers; a user has neither): no code, test, doc or scenario points at it."""
    repo = SCENARIOS.parents[1]
    skip = {".git", ".venv", ".cache", "node_modules", "__pycache__"}
    checked = []
    for path in sorted(repo.rglob("*")):
        rel = path.relative_to(repo)
        if any(part in skip or part.endswith("_cache") for part in rel.parts):
            continue
        if not path.is_file() or rel.as_posix() == ".ci/run" or path == Path(__file__):
            continue
        if path.suffix not in (".py", ".js", ".mjs", ".md", ".json", ".jsonl", ".toml", ".sh"):
            continue
        checked.append(rel.as_posix())
        assert not _names_shared_material(path, path.read_text(errors="replace")), rel
    # the walk really covered the project (not an empty glob)
    for must in ("host/unolaunch/cli.py", "tests/conftest.py", "README.md", "pyproject.toml"):
        assert must in checked
    assert sum(c.startswith("tests/scenarios/") for c in checked) >= len(FILES)
    # and the check itself can fail
    assert _names_shared_material(Path("x.py"), 'open("../shared/rules/attack.md")\n')
    assert _names_shared_material(Path("x.js"), 'load("/work/shared/rp2/x.uf2");\n')
    assert not _names_shared_material(Path("x.js"), "// see /work/shared/rp2/README.md\n")


# Rules a single-round scenario cannot express, with the test that covers them instead.
NOT_IN_SCENARIOS = {
    "MK-7": "test_rules_game.py::test_com4_mk7_deal_passes_left_and_scores_accumulate"
}


def test_every_rule_id_has_a_scenario() -> None:
    import re

    ids: set[str] = set()
    for md in (SCENARIOS / "rules").glob("*.md"):
        ids |= set(re.findall(r"\b(?:COM|ATK|MK|PP)-\d+\b", md.read_text()))
    assert len(ids) == 79
    cited: set[str] = set()
    for path in FILES:
        cited |= set(json.loads(path.read_text()).get("rules", []))
    assert cited <= ids, cited - ids  # no scenario cites a rule that does not exist
    assert ids - cited == set(NOT_IN_SCENARIOS)
