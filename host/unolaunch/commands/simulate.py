"""``unolaunch simulate``: bots play many complete games; report speed and statistics.

The launcher of UNO Attack is the firmware's own ejection pattern (``launcher/pattern.py``,
through :class:`~unolaunch.rules.PatternLauncher`) with a launcher configuration: the
firmware's defaults, a ``launcher.json`` (``--launcher-config``) or the live configuration
of a connected launcher (``--port``).

Games run in worker processes (``--workers``) or on a Dask cluster (``--scheduler``). Each
game has its own seed, derived from the run's seed and the game's number
(:func:`~unolaunch.simulation.game_seed`), and every figure is an integer sum or an integer
histogram merged across workers, so the same ``--seed`` gives the same games and the same
figures wherever they are played. This module only parses and prints: the simulation is
:mod:`unolaunch.simulation`.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable

from unolaunch.commands.simargs import (
    add_game_arguments,
    calibration_lines,
    check_arguments,
    run_with_progress,
    show_progress,
)
from unolaunch.errors import UsageError
from unolaunch.simulation import Stats, simulate

HELP = "bots play many games; report speed and stats"
DESCRIPTION = """\
Bots play complete games (every round, to the target score) on the rules engine and
the command reports how fast it went and how the games went: games/s, actions/s,
rounds per game, actions per round, win rate by seat and by bot.

UNO Attack: the launcher is the firmware's own ejection pattern (launcher/pattern.py)
with the firmware's default configuration, or --launcher-config FILE (a launcher.json,
checked by the firmware's own config code), or the live configuration of the launcher
on --port. The report adds the launcher's statistics (presses, fire rate, cards per
press and per fire, the longest blank streak, reloads: how often the launcher ran dry
and the discard pile went in, ATK-22) and what a table cares about: turns, presses and
minutes per round, with their spread.

Minutes per round come from a time model (change it with --seconds-per-*):
  seconds = play x (actions that are not presses: plays, colour choices, passes, ...)
          + press x presses
          + (ramp_ms / 2 + brake_ms) / 1000 x firing presses
          + ms_per_card / 1000 x cards shot   (the motor: 1000 / ms_per_card cards per s)
          + reload x reloads
ramp_ms, brake_ms and ms_per_card are the launcher configuration's (defaults 80, 50,
115: about 8.7 cards a second).

One action is one engine action: a play, a draw, a press, a pass, a challenge or
accept, a choice, a catch. A turn is one play, draw or press of the player whose turn
it is (owed presses and the extra play after a Skip or Reverse are not turns).

Games run in --workers processes (default: every core), or on a Dask cluster with
--scheduler tcp://HOST:8786 (several machines: 'dask scheduler' on one, 'dask worker
tcp://HOST:8786' on each; needs pip install 'unolaunch[dask]' on every machine) or
--scheduler local (a cluster of --workers processes on this machine). Each game's seed
comes from --seed and the game's number, so the same --seed gives the same figures
(timings aside) whatever --workers or --scheduler is.

--calibrate-from-history measures the time model's seconds per play, press and reload
from the finished UNO Attack games in the data folder (unolaunch play keeps when each
action happened): the median gap between actions, pauses over --calibrate-pause seconds
left out, the motor's run taken out of a press; it prints each figure and how many
samples it rests on, and keeps the default of a figure with too few.

Bots: 'random' picks uniformly among the legal actions; 'heuristic' plays to win.
--bot takes one name for every seat or a comma-separated list, one per seat
(cycled), e.g. --bot heuristic,random.

Examples:
  unolaunch simulate --variant mario-kart --players 2 --games 200 --seed 1
  unolaunch simulate --variant attack --players 4 --bot heuristic --games 500
  unolaunch simulate --variant attack --players 4 --launcher-config launcher.json --json
  unolaunch simulate --variant attack --players 4 --plot rounds.svg   (needs the 'plot' extra)
  unolaunch simulate --variant attack --players 4 --games 100000 --scheduler tcp://HOST:8786
  unolaunch simulate --variant attack --players 4 --calibrate-from-history"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Add the simulate command's arguments."""
    add_game_arguments(parser)
    parser.add_argument("--games", type=int, default=100, metavar="G", help="games (default 100)")
    parser.add_argument(
        "--max-actions",
        type=int,
        default=2_000_000,
        metavar="N",
        help="give up on a game that has not ended after N actions (default 2000000)",
    )
    parser.add_argument(
        "--plot",
        metavar="FILE",
        help="UNO Attack: draw the cards-per-press distribution and the round-length "
        "histogram into FILE (.svg or .png; needs: pip install 'unolaunch[plot]')",
    )
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument(
        "--no-progress", action="store_true", help="no progress bar (it only shows on a terminal)"
    )


def _print_report(stats: Stats) -> None:
    d = stats.to_json()
    bots = ", ".join(f"{k} {v}" for k, v in d["bots"].items())
    print(f"{d['variant']}, {d['players']} players ({bots}), seed {d['seed']}")
    print(
        f"  {d['games']} games, {d['actions']:,} actions in {d['seconds']:.2f} s on "
        f"{d['workers']} worker{'s' * (d['workers'] != 1)}: "
        f"{d['games_per_second']:,.1f} games/s, {d['actions_per_second']:,.0f} actions/s"
    )
    print(
        f"  {d['avg_rounds_per_game']:.2f} rounds per game, "
        f"{d['avg_actions_per_round']:.1f} actions per round"
    )
    seats = "  ".join(f"{k} {v:.1%}" for k, v in d["win_rate_by_seat"].items())
    print(f"  win rate by seat: {seats}")
    by_bot = "  ".join(f"{k} {v:.1%}" for k, v in d["win_rate_by_bot"].items())
    print(f"  win rate by bot (per seat): {by_bot}")
    if "launcher" in d:
        lc, la, pr = d["launcher_config"], d["launcher"], d["per_round"]
        print(
            f"  launcher ({lc['source']}): fire_chance_pct {lc['fire_chance_pct']}, "
            f"max_blanks {lc['max_blanks']}, burst_weights {lc['burst_weights']}"
        )
        print(
            f"    {la['presses']:,} presses ({d['presses_per_game']:.1f} per game), "
            f"{la['fires']:,} fired: fire rate {la['fire_rate']:.1%}; "
            f"{la['cards_per_press']:.2f} cards per press; "
            f"longest blank streak {la['max_blank_streak']}; {la['reloads']:,} reloads (ATK-22)"
        )
        per_fire = "  ".join(f"{k}:{v:.0%}" for k, v in la["cards_per_fire"].items())
        print(f"    cards per fire: {per_fire}")
        for key, unit in (("turns", "turns"), ("presses", "presses"), ("minutes", "minutes")):
            s = pr[key]
            print(
                f"  per round: {s['mean']:.1f} {unit} (sd {s['sd']:.1f}; 10%/50%/90%: "
                f"{s['p10']:g} / {s['p50']:g} / {s['p90']:g})"
            )
        tm = d["time_model"]
        print(
            f"  time model: {tm['seconds_per_play']:g} s a play, {tm['seconds_per_press']:g} s "
            f"a press + the motor ({tm['cards_per_second']:g} cards/s), "
            f"{tm['seconds_per_reload']:g} s a reload"
        )


def run(args: argparse.Namespace) -> int:
    """Run the simulation and print the report (or --json)."""
    if args.games < 1:
        raise UsageError("--games: at least 1")
    setup = check_arguments(args)
    plot = None
    if args.plot is not None:
        if args.variant != "attack":
            raise UsageError("--plot: draws UNO Attack's launcher and rounds; use --variant attack")
        from unolaunch.plot import check_plot_target

        plot = check_plot_target(args.plot)
    model = setup.time_model()
    # The runner first: its processes start before the progress bar's thread does.
    with setup.runner(args.games) as runner:

        def work(tick: Callable[[int], None] | None) -> Stats:
            return simulate(
                args.variant, args.players, args.games, args.seed, setup.bot_names,
                setup.options, args.max_actions, tick, launcher_config=setup.config,
                launcher_source=setup.source, time_model=model, runner=runner,
            )  # fmt: skip

        stats = run_with_progress(f"{args.variant}: playing", args.games, work, show_progress(args))
    if plot is not None:
        from unolaunch.plot import plot_simulation

        plot_simulation(stats, plot)
    if args.json:
        out = stats.to_json()
        if setup.calibration is not None:
            out["calibration"] = setup.calibration.to_json()
        json.dump(out, sys.stdout)
        sys.stdout.write("\n")
    else:
        if setup.calibration is not None:
            print("\n".join(calibration_lines(setup.calibration, setup.seconds)))
        _print_report(stats)
        if plot is not None:
            print(f"  plot: {plot}")
    return 0
