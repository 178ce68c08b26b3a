"""``unolaunch replay FILE [--json]``: run a rule scenario through the rules engine."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from unolaunch.errors import UsageError
from unolaunch.rules.scenario import Outcome, Scenario, ScenarioError, load_scenario, run_scenario

HELP = "run a rule scenario file through the engine"
DESCRIPTION = """\
Run a rule scenario (a JSON file: a position, a list of actions, what must hold
afterwards) through the rules engine and say whether it passes.

Prints each action and what it caused, then PASS, or FAIL with every mismatch
(expected vs actual). With --json prints one object:
  {"passed": ..., "failures": [...], "state": {...}, "error": null|{...}}

Exit status: 0 the scenario passes, 1 it fails, 2 the file is unusable (bad JSON,
unknown card code, unknown player, missing key) -- with one line naming the file
and the field.

The format (cards, set-up, actions, expect) is printed by 'unolaunch replay --format'.

examples:
  unolaunch replay --format | less     # how to write a scenario
  unolaunch replay my-scenario.json --json"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Add the replay command's arguments."""
    parser.add_argument("file", metavar="FILE", nargs="?", help="the scenario file (JSON)")
    parser.add_argument(
        "--json", action="store_true", help="print one JSON object instead of a readable account"
    )
    parser.add_argument(
        "--format",
        action="store_true",
        help="print the scenario format (Markdown) and exit",
    )


def format_text() -> str:
    """The scenario format, as shipped with the package (``unolaunch/rules/FORMAT.md``)."""
    from importlib.resources import files

    return files("unolaunch.rules").joinpath("FORMAT.md").read_text(encoding="utf-8")


def load_file(path: Path) -> Scenario:
    """Read and check a scenario file; :class:`UsageError` names the file and the field."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise UsageError(f"{path}: no such file") from None
    except IsADirectoryError:
        raise UsageError(f"{path}: is a folder, not a scenario file") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise UsageError(f"{path}: cannot read it ({exc})") from None
    try:
        data: Any = json.loads(text)
    except json.JSONDecodeError as exc:
        raise UsageError(
            f"{path}: not valid JSON (line {exc.lineno}, column {exc.colno}: {exc.msg})"
        ) from None
    try:
        sc = load_scenario(data)
        sc.new_game()  # a position the engine cannot set up is unusable too
    except ScenarioError as exc:
        raise UsageError(f"{path}: field {exc.field}: {exc.detail}") from None
    return sc


def _fmt(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


def print_account(path: Path, sc: Scenario, out: Outcome) -> None:
    """Print the readable account of a run: actions, effects, PASS/FAIL and mismatches."""
    title = sc.name or path.stem
    rules = f" [{', '.join(sc.rules)}]" if sc.rules else ""
    print(f"{path}: {title}{rules}")
    print(f"  {sc.variant}, players {', '.join(sc.players)}")
    for i, action, effects in out.log:
        refused = out.error is not None and out.error["action"] == i
        print(f"  {i:>2}. {action}" + ("   -> refused" if refused else ""))
        for eff in effects:
            if eff.kind != "play":
                print(f"        {eff}")
        if refused and out.error is not None:
            print(f"        {out.error['message']}")
    if out.passed:
        print("PASS")
        return
    print("FAIL")
    for f in out.failures:
        print(f"  {f['key']}: expected {_fmt(f['expected'])}, got {_fmt(f['actual'])}")


def run(args: argparse.Namespace) -> int:
    """Run one scenario file; exit 0 pass, 1 fail, 2 unusable file."""
    if args.format:
        sys.stdout.write(format_text())
        return 0
    if args.file is None:
        raise UsageError("replay needs a scenario FILE (or --format to see how to write one)")
    path = Path(args.file)
    sc = load_file(path)
    try:
        outcome = run_scenario(sc)
    except ScenarioError as exc:
        raise UsageError(f"{path}: field {exc.field}: {exc.detail}") from None
    if args.json:
        json.dump(outcome.to_json(), sys.stdout, ensure_ascii=False)
        sys.stdout.write("\n")
    else:
        print_account(path, sc, outcome)
    return 0 if outcome.passed else 1
