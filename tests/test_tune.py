"""Issue 11: `unolaunch tune` meets its target, and its output fed back to `simulate
--launcher-config` meets it too (the same seed: the same games)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from conftest import RunCli
from unolaunch.flash import load_config_file
from unolaunch.fwconfig import load_config_module
from unolaunch.simulation.search import shifted


def _tune(run_cli: RunCli, tmp_path: Path, *args: str) -> tuple[dict[str, Any], Path]:
    out = tmp_path / "tuned.json"
    proc = run_cli("tune", *args, "--output", out, "--json", "--workers", "2")
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout), out


def _simulate(run_cli: RunCli, config: Path, *args: str) -> dict[str, Any]:
    proc = run_cli("simulate", "--variant", "attack", *args, "--launcher-config", config,
                   "--json", "--workers", "1")  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    out: dict[str, Any] = json.loads(proc.stdout)
    return out


def _accepted_by_the_firmware(fragment: dict[str, Any], path: Path) -> None:
    # config_set merges a fragment onto the board's configuration; flash --config too.
    module = load_config_module()
    new, errors = module.merged(dict(module.DEFAULTS), fragment)
    assert errors == [] and new is not None
    assert json.loads(load_config_file(path))["fire_chance_pct"] == fragment["fire_chance_pct"]
    assert json.loads(path.read_text()) == fragment


def test_tune_turns_per_round_and_simulate_agree(run_cli: RunCli, tmp_path: Path) -> None:
    table = ("--players", "3", "--bot", "heuristic", "--seed", "5", "--games", "40")
    result, path = _tune(run_cli, tmp_path, *table, "--turns-per-round", "36")
    assert result["target"] == {
        "name": "turns_per_round",
        "value": 36,
        "tolerance": 1.8,
        "statistic": "mean",
    }
    assert abs(result["measured"] - 36) <= 1.8
    assert result["searched"] == "fire_chance_pct" and "max_blanks" in result["held"]
    fragment = result["config"]
    assert set(fragment) == {"fire_chance_pct", "max_blanks", "burst_weights"}
    assert fragment["fire_chance_pct"] < 22  # fewer cards fly, rounds get shorter
    _accepted_by_the_firmware(fragment, path)
    sim = _simulate(run_cli, path, *table)
    assert abs(sim["turns_per_round"] - 36) <= 1.8
    assert sim["turns_per_round"] == round(result["measured"], 2)
    assert result["predicted"]["per_round"] == sim["per_round"]
    assert len(result["trials"]) >= 2


def test_tune_fire_rate_and_simulate_agree(run_cli: RunCli, tmp_path: Path) -> None:
    table = ("--players", "4", "--bot", "heuristic", "--seed", "3", "--games", "150")
    result, path = _tune(run_cli, tmp_path, *table, "--fire-rate", "0.45")
    fragment = result["config"]
    _accepted_by_the_firmware(fragment, path)
    sim = _simulate(run_cli, path, *table)
    assert abs(sim["launcher"]["fire_rate"] - 0.45) <= 0.01
    assert sim["launcher"]["max_blank_streak"] <= fragment["max_blanks"]
    assert sim["launcher"]["presses"] > 10_000


def test_tune_cards_per_press_beyond_fire_chance_shifts_the_bursts() -> None:
    from unolaunch.simulation.search import Search

    base = {"fire_chance_pct": 22, "max_blanks": 3, "burst_weights": [1, 2, 1]}

    def never(settings: dict[str, Any]) -> Any:
        raise AssertionError("a launcher-only target needs one confirming simulation")

    s = Search(never, base, "cards_per_press", 3.9, 0.195)
    # cards per press = fire_rate x mean burst; at most 1 x 2 cards unshifted
    assert not s.reachable(3, 0) and s.reachable(3, 2)
    assert shifted([1, 2, 1], 2) == [0, 0, 1, 2, 1] and shifted([1, 2, 1], -1) == [2, 1]


@pytest.mark.parametrize(
    ("args", "status", "message"),
    [
        (["--players", "3"], 2, "one of the arguments"),
        (["--variant", "mario-kart", "--fire-rate", "0.4"], 2, "--variant attack"),
        (["--fire-rate", "1.5"], 2, "0 < P <= 1"),
        (["--turns-per-round", "-3"], 2, "above 0"),
        (["--fire-rate", "0.01"], 1, "no setting of the pattern gives 0.01 fire rate"),
        (["--cards-per-press", "90"], 1, "no setting of the pattern gives 90 cards per press"),
    ],
)
def test_tune_bad_or_unreachable_targets_are_one_line(
    run_cli: RunCli, args: list[str], status: int, message: str
) -> None:
    proc = run_cli("tune", *args, "--games", "5")
    assert proc.returncode == status, proc.stderr
    assert message in proc.stderr and "Traceback" not in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1 or status == 2


def test_tune_text_prints_the_fragment_and_the_spread(run_cli: RunCli) -> None:
    proc = run_cli("tune", "--players", "3", "--cards-per-press", "2.5", "--games", "30",
                   "--seed", "1", "--workers", "1")  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    at = lines.index("launcher.json fragment (flash --config FILE or config_set take it as it is):")
    fragment = json.loads(lines[at + 1])
    assert fragment["max_blanks"] == 3
    assert "meets the target" in proc.stdout and "minutes per round; sd" in proc.stdout


def test_tune_is_reproducible_whatever_the_workers(run_cli: RunCli) -> None:
    outs = []
    for workers in ("1", "2"):
        proc = run_cli("tune", "--players", "3", "--turns-per-round", "36", "--games", "20",
                       "--seed", "9", "--json", "--workers", workers)  # fmt: skip
        assert proc.returncode == 0, proc.stderr
        outs.append(json.loads(proc.stdout))
    assert outs[0] == outs[1]
    assert len(outs[0]["trials"]) >= 2


def test_tune_median_aims_the_median_round(run_cli: RunCli, tmp_path: Path) -> None:
    table = ("--players", "3", "--bot", "heuristic", "--seed", "5", "--games", "30")
    result, path = _tune(run_cli, tmp_path, *table, "--turns-per-round", "30", "--median")
    assert result["target"]["statistic"] == "median"
    assert abs(result["measured"] - 30) <= 1.5
    sim = _simulate(run_cli, path, *table)
    assert sim["per_round"]["turns"]["p50"] == result["measured"]
    assert sim["turns_per_round"] > sim["per_round"]["turns"]["p50"]  # the long tail
    proc = run_cli("tune", "--fire-rate", "0.4", "--median")
    assert proc.returncode == 2 and "--median: only for" in proc.stderr
