"""Issue 11: `simulate` plays UNO Attack with the firmware's own pattern (ATK-25), reports the
launcher's statistics and the rounds' length, and gives the same figures on any number of
workers."""

from __future__ import annotations

import json
import math
import random
from pathlib import Path

import pytest
from conftest import RunCli
from fw_fakes import FIRMWARE  # noqa: F401  (puts firmware/ on sys.path)
from launcher.config import DEFAULTS
from launcher.pattern import Pattern, Rng, fire_rate
from test_fw_pattern_stats import chi2_sf
from unolaunch.bots import RoundFigures, make_bot, play_game
from unolaunch.rules import Game, ListLauncher, PatternLauncher
from unolaunch.simulation import TimeModel, game_seed, simulate

TIMING_KEYS = {
    "seconds", "cpu_seconds", "games_per_second", "actions_per_second", "actions_per_cpu_second",
    "workers",
}  # fmt: skip
LAUNCHER_KEYS = {
    "presses", "fires", "fire_rate", "cards", "cards_per_press", "cards_per_fire",
    "max_blank_streak", "reloads",
}  # fmt: skip


def test_atk25_default_launcher_over_100k_presses_is_the_firmware_pattern() -> None:
    # The same figures as the firmware's own statistics test, now through simulate.
    stats = simulate("attack", 4, 100, 20260530, ["random"], workers=2)
    assert stats.presses >= 100_000
    expected = fire_rate(22, 3)
    assert abs(expected - 0.349) < 0.001
    sd = math.sqrt(expected * (1 - expected) / stats.presses)
    assert abs(stats.fire_rate - expected) < 5 * sd, (stats.fire_rate, expected)
    assert stats.max_blank_streak == DEFAULTS["max_blanks"] == 3
    weights = DEFAULTS["burst_weights"]
    observed = [stats.cards_hist[k + 1] for k in range(len(weights))]
    assert sum(observed) == stats.fires
    assert set(stats.cards_hist) <= set(range(len(weights) + 1))
    e = [stats.fires * w / sum(weights) for w in weights]
    chi2 = sum((o - x) ** 2 / x for o, x in zip(observed, e, strict=True))
    assert chi2_sf(chi2, len(weights) - 1) > 0.01, (chi2, observed)
    assert stats.cards == sum(k * n for k, n in stats.cards_hist.items())


def test_pattern_launcher_presses_exactly_as_the_firmware_for_a_seed() -> None:
    ours = PatternLauncher(7)
    fw = Pattern(Rng(7))
    fw.configure(DEFAULTS)
    assert [ours.press("Ann") for _ in range(500)] == [fw.press() for _ in range(500)]


def test_pattern_launcher_refuses_what_the_firmware_refuses() -> None:
    with pytest.raises(ValueError, match="fire_chance_pct"):
        PatternLauncher(1, {"fire_chance_pct": 0})
    with pytest.raises(ValueError, match="burst_weights"):
        PatternLauncher(1, {"burst_weights": [0, 0]})


def test_engine_default_launcher_is_the_pattern() -> None:
    g = Game.new("attack", ["Ann", "Bob"], rng=random.Random(3))
    assert isinstance(g.launcher, PatternLauncher)
    assert g.launcher.settings == {k: DEFAULTS[k] for k in g.launcher.settings}


def test_atk22_a_press_the_stock_cannot_cover_counts_one_reload() -> None:
    g = Game.from_position(
        "attack", ["Ann", "Bob"], hands={"Ann": ["r1", "r2"], "Bob": ["y1"]},
        discard=["g5", "g6", "g7", "g8", "y9"], stock=["r5"], turn="Ann",
        launcher=ListLauncher([3]), options={"target": 1},
    )  # fmt: skip
    rng = random.Random(1)
    figures: list[RoundFigures] = []
    # Ann cannot match y9: she presses, 3 cards from a stock of 1 (ATK-22: the discard pile
    # but its top goes in); Bob plays y1 and goes out.
    result = play_game(g, [make_bot("heuristic", rng), make_bot("heuristic", rng)], 100, figures)
    assert result.winner == 1 and result.rounds == 1
    assert figures == [RoundFigures(actions=2, turns=2, presses=1, reloads=1, fires=0, cards=0)]
    assert len(g.hands[0]) == 5


def test_no_reload_while_the_stock_covers_the_press() -> None:
    g = Game.from_position(
        "attack", ["Ann", "Bob"], hands={"Ann": ["r1", "r2"], "Bob": ["y1"]},
        discard=["g5", "y9"], stock=["r5", "r6", "r7"], turn="Ann",
        launcher=ListLauncher([3]), options={"target": 1},
    )  # fmt: skip
    rng = random.Random(1)
    figures: list[RoundFigures] = []
    play_game(g, [make_bot("heuristic", rng), make_bot("heuristic", rng)], 100, figures)
    assert figures[0].reloads == 0 and figures[0].presses == 1


def test_launcher_config_file_reaches_the_games(run_cli: RunCli, tmp_path: Path) -> None:
    cfg = tmp_path / "launcher.json"
    cfg.write_text(json.dumps({"fire_chance_pct": 60, "max_blanks": 1, "burst_weights": [0, 1]}))
    proc = run_cli("simulate", "--variant", "attack", "--players", "3", "--games", "20",
                   "--seed", "2", "--launcher-config", cfg, "--json", "--workers", "1")  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    la = out["launcher"]
    assert set(la) == LAUNCHER_KEYS
    assert la["max_blank_streak"] == 1
    assert la["cards_per_fire"] == {"2": 1.0}
    sd = math.sqrt(0.25 / la["presses"])
    assert abs(la["fire_rate"] - fire_rate(60, 1)) < 5 * sd
    assert out["launcher_config"]["source"] == str(cfg)
    assert out["launcher_config"]["fire_chance_pct"] == 60


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ('{"fire_chance_pct": 0}', "fire_chance_pct: out of range 1..100"),
        ('{"fire_chance": 30}', "fire_chance: unknown key"),
        ("{not json", "is not valid JSON"),
    ],
)
def test_bad_launcher_config_is_one_line_exit_2(
    run_cli: RunCli, tmp_path: Path, content: str, message: str
) -> None:
    cfg = tmp_path / "bad.json"
    cfg.write_text(content)
    proc = run_cli("simulate", "--variant", "attack", "--games", "1", "--launcher-config", cfg)
    assert proc.returncode == 2
    assert message in proc.stderr and "Traceback" not in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1


def test_launcher_config_and_port_together_is_a_usage_error(
    run_cli: RunCli, tmp_path: Path
) -> None:
    cfg = tmp_path / "l.json"
    cfg.write_text("{}")
    proc = run_cli("simulate", "--variant", "attack", "--launcher-config", cfg, "--port", "auto")
    assert proc.returncode == 2 and "not both" in proc.stderr


def test_json_states_the_time_model_and_minutes_follow_it(run_cli: RunCli) -> None:
    proc = run_cli("simulate", "--variant", "attack", "--players", "4", "--games", "30",
                   "--bot", "heuristic", "--seed", "4", "--seconds-per-play", "5",
                   "--seconds-per-reload", "60", "--json")  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    d = json.loads(proc.stdout)
    tm = d["time_model"]
    assert tm["seconds_per_play"] == 5 and tm["seconds_per_reload"] == 60
    assert tm["ms_per_card"] == DEFAULTS["ms_per_card"]
    la = d["launcher"]
    model = TimeModel(5, 2, 60, DEFAULTS["ms_per_card"], DEFAULTS["ramp_ms"], DEFAULTS["brake_ms"])
    secs = model.seconds(d["actions"], la["presses"], la["fires"], la["cards"], la["reloads"])
    assert d["minutes_per_round"] == pytest.approx(secs / d["rounds"] / 60, abs=0.01)
    assert d["presses_per_round"] == pytest.approx(la["presses"] / d["rounds"], abs=0.01)
    pr = d["per_round"]
    for key in ("turns", "presses", "minutes"):
        assert pr[key]["p10"] <= pr[key]["p50"] <= pr[key]["p90"]
    assert pr["turns"]["mean"] == d["turns_per_round"]
    assert abs(pr["minutes"]["mean"] - d["minutes_per_round"]) < 0.05  # whole seconds a round
    # a turn is a play or a press of the player whose turn it is: fewer than the actions
    assert 0 < d["turns_per_round"] < d["avg_actions_per_round"]


def test_text_report_shows_the_launcher_and_the_rounds(run_cli: RunCli) -> None:
    proc = run_cli("simulate", "--variant", "attack", "--players", "3", "--games", "10",
                   "--bot", "heuristic", "--seed", "1")  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    text = proc.stdout
    assert "launcher (firmware defaults): fire_chance_pct 22, max_blanks 3" in text
    assert "fire rate" in text and "longest blank streak" in text and "reloads (ATK-22)" in text
    assert "minutes (sd" in text and "time model:" in text


@pytest.mark.parametrize(
    ("variant", "bots"), [("attack", "heuristic,random"), ("mario-kart", "random")]
)
def test_workers_1_and_2_give_identical_json(run_cli: RunCli, variant: str, bots: str) -> None:
    outs = []
    for workers in ("1", "2"):
        proc = run_cli("simulate", "--variant", variant, "--players", "3", "--games", "24",
                       "--seed", "11", "--bot", bots, "--workers", workers, "--json")  # fmt: skip
        assert proc.returncode == 0, proc.stderr
        d = json.loads(proc.stdout)
        assert d["workers"] == int(workers)
        for k in TIMING_KEYS:
            d.pop(k)
        outs.append(d)
    assert outs[0] == outs[1]


def test_game_seeds_depend_on_run_seed_and_game_number() -> None:
    seeds = {game_seed(s, i) for s in range(3) for i in range(100)}
    assert len(seeds) == 300
    assert game_seed(5, 7) == game_seed(5, 7)


def test_workers_zero_is_a_usage_error(run_cli: RunCli) -> None:
    proc = run_cli("simulate", "--workers", "0")
    assert proc.returncode == 2 and "--workers" in proc.stderr


def test_a_launcher_config_for_a_variant_without_launcher_is_a_usage_error(
    run_cli: RunCli, tmp_path: Path
) -> None:
    cfg = tmp_path / "l.json"
    cfg.write_text("{}")
    proc = run_cli("simulate", "--variant", "mario-kart", "--launcher-config", cfg)
    assert proc.returncode == 2 and "only UNO Attack has a launcher" in proc.stderr


def test_plot_without_matplotlib_or_with_a_bad_name_is_one_line(
    run_cli: RunCli, tmp_path: Path
) -> None:
    proc = run_cli("simulate", "--variant", "attack", "--games", "2", "--plot", tmp_path / "x.gif")
    assert proc.returncode == 2 and ".svg or .png" in proc.stderr
    proc = run_cli("simulate", "--variant", "mario-kart", "--games", "2", "--plot", "x.svg")
    assert proc.returncode == 2 and "--variant attack" in proc.stderr


def test_port_reads_the_live_configuration_of_a_launcher(run_cli: RunCli) -> None:
    from unolaunch.link import open_launcher
    from unolaunch.sim import SimulatedLauncher

    with SimulatedLauncher(cards=112, seed=3) as sim:
        with open_launcher(sim.link, timeout=3.0) as client:
            client.config_set({"fire_chance_pct": 30, "max_blanks": 2})
        proc = run_cli("simulate", "--variant", "attack", "--players", "3", "--games", "10",
                       "--bot", "heuristic", "--port", sim.link, "--json")  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert out["launcher_config"]["source"] == f"launcher at {sim.link}"
    assert out["launcher_config"]["fire_chance_pct"] == 30
    assert out["launcher"]["max_blank_streak"] == 2


def test_port_without_a_launcher_is_one_line(run_cli: RunCli, tmp_path: Path) -> None:
    proc = run_cli("simulate", "--variant", "attack", "--port", tmp_path / "ttyNONE")
    assert proc.returncode == 1 and "Traceback" not in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1


def test_plan_jobs_run_anywhere_and_merge_to_the_same_figures() -> None:
    # The distributed path (README "More than one machine"): any executor's map over the
    # planned jobs, merged in any order, gives simulate's figures.
    from concurrent.futures import ProcessPoolExecutor

    from unolaunch.simulation import plan, play_games

    def figures(d: dict[str, object]) -> dict[str, object]:
        return {k: v for k, v in d.items() if k not in TIMING_KEYS}

    want = simulate("attack", 3, 30, 8, ["heuristic"], workers=1).to_json()
    stats, jobs = plan("attack", 3, 30, 8, ["heuristic"], chunk=7)
    assert len(jobs) == 5
    with ProcessPoolExecutor(2) as ex:
        parts = list(ex.map(play_games, jobs))
    for part in reversed(parts):
        stats.merge(part)
    assert figures(stats.to_json()) == figures(want)


def test_ctrl_c_stops_the_workers_without_a_traceback() -> None:
    import os
    import signal
    import subprocess
    import sys
    import time

    from conftest import cli_env

    proc = subprocess.Popen(
        [sys.executable, "-m", "unolaunch", "simulate", "--variant", "attack", "--players", "4",
         "--bot", "heuristic", "--games", "100000", "--workers", "2"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=cli_env(),
        start_new_session=True,
    )  # fmt: skip
    time.sleep(4)  # the pool is up and playing
    os.killpg(proc.pid, signal.SIGINT)  # as a terminal's Ctrl-C: the whole process group
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130
    assert err == "unolaunch: interrupted\n"


def test_issue19_workers_do_not_fork_from_a_threaded_process() -> None:
    # Python 3.12+ warns (DeprecationWarning) when a process with threads forks: a thread
    # Python's threading module does not list (a C library's) counts too.
    import _thread

    from unolaunch.simulation.runners import pool_context

    lock = _thread.allocate_lock()
    lock.acquire()
    _thread.start_new_thread(lock.acquire, ())
    try:
        assert pool_context().get_start_method() != "fork"
        two = simulate("mario-kart", 2, 16, 3, ["random"], workers=2).to_json()
    finally:
        lock.release()
    one = simulate("mario-kart", 2, 16, 3, ["random"], workers=1).to_json()
    assert {k: v for k, v in two.items() if k not in TIMING_KEYS} == {
        k: v for k, v in one.items() if k not in TIMING_KEYS
    }
