"""`unolaunch simulate`: complete games, the --json keys, determinism, bad arguments."""

from __future__ import annotations

import json

import pytest
from conftest import RunCli
from unolaunch.simulation import simulate

TIMING_KEYS = {
    "seconds", "cpu_seconds", "games_per_second", "actions_per_second", "actions_per_cpu_second",
}  # fmt: skip
REQUIRED = {
    "games", "actions", "seconds", "games_per_second", "actions_per_second",
    "avg_rounds_per_game", "win_rate_by_seat",
}  # fmt: skip


@pytest.mark.parametrize("variant", ["attack", "mario-kart", "pocket-pizza"])
def test_simulate_json_runs_every_variant(run_cli: RunCli, variant: str) -> None:
    proc = run_cli("simulate", "--variant", variant, "--players", "3", "--games", "4",
                   "--seed", "5", "--bot", "heuristic", "--json")  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert set(out) >= REQUIRED
    assert out["games"] == 4 and out["actions"] > 0
    assert out["avg_rounds_per_game"] >= 1
    assert set(out["win_rate_by_seat"]) == {"P1", "P2", "P3"}
    assert abs(sum(out["win_rate_by_seat"].values()) - 1) < 1e-6
    assert out["actions_per_second"] > 0
    if variant == "attack":
        assert out["presses"] > 0 and out["cards_per_press"] >= 0
    else:
        assert "presses" not in out


def test_same_seed_same_output(run_cli: RunCli) -> None:
    args = ("simulate", "--variant", "attack", "--players", "4", "--games", "5", "--seed", "9",
            "--bot", "heuristic,random", "--json")  # fmt: skip
    a, b = (json.loads(run_cli(*args).stdout) for _ in range(2))
    for d in (a, b):
        for k in TIMING_KEYS:
            d.pop(k)
    assert a == b
    c = json.loads(run_cli(*args[:-4], "10", "--bot", "heuristic,random", "--json").stdout)
    assert c["actions"] != a["actions"]


def test_win_rate_by_bot_and_readable_report(run_cli: RunCli) -> None:
    proc = run_cli("simulate", "--variant", "mario-kart", "--players", "2", "--games", "10",
                   "--bot", "heuristic,random", "--seed", "1")  # fmt: skip
    assert proc.returncode == 0
    text = proc.stdout
    assert "games/s" in text and "actions/s" in text and "win rate by bot" in text
    stats = simulate("mario-kart", 2, 10, 1, ["heuristic", "random"])
    js = stats.to_json()
    assert js["win_rate_by_bot"]["heuristic"] > js["win_rate_by_bot"]["random"]
    assert f"{js['actions']:,} actions" in text  # the same games as the CLI's


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--players", "7", "--variant", "pocket-pizza"], "2 to 5 players"),
        (["--games", "0"], "at least 1"),
        (["--bot", "clever"], "unknown bot"),
        (["--option", "strictness=1", "--variant", "attack"], "unknown option"),
        (["--option", "nonsense"], "KEY=VALUE"),
        (["--variant", "uno"], "invalid choice"),
    ],
)
def test_bad_arguments_exit_2_without_traceback(
    run_cli: RunCli, args: list[str], message: str
) -> None:
    proc = run_cli("simulate", *args)
    assert proc.returncode == 2
    assert message in proc.stderr and "Traceback" not in proc.stderr


def test_options_reach_the_games(run_cli: RunCli) -> None:
    proc = run_cli("simulate", "--variant", "pocket-pizza", "--games", "3", "--option", "target=20",
                   "--bot", "heuristic", "--json")  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["avg_rounds_per_game"] < 3


def test_turn_cap_is_a_clear_error(run_cli: RunCli) -> None:
    proc = run_cli("simulate", "--games", "1", "--max-actions", "20")
    assert proc.returncode == 1
    assert "did not end within 20 actions" in proc.stderr and "Traceback" not in proc.stderr
