"""``unolaunch tune``: find the launcher settings that give a table the game it wants.

One target — turns per round, minutes per round, cards per press or fire rate — is met by
searching the ejection pattern's settings by simulation (the firmware's own
``launcher/pattern.py``, as in ``simulate``), with a fixed seed so that the same command
always gives the same answer. The result is a ``launcher.json`` fragment: ``config_set``
and ``unolaunch flash --config`` take it as it is.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path
from typing import Any

from unolaunch.commands.simargs import (
    Setup,
    add_game_arguments,
    calibration_lines,
    check_arguments,
    show_progress,
)
from unolaunch.errors import UnolaunchError, UsageError
from unolaunch.simulation import PATTERN_KEYS, Stats, simulate
from unolaunch.simulation.search import MAX_ACTIONS, Search, Trial

HELP = "find launcher settings for a round length or feel"
DESCRIPTION = """\
Give a table (players, bots) and one target; tune searches the launcher's ejection
pattern by simulation until the target is met, and prints the settings as a
launcher.json fragment that 'unolaunch flash --config FILE' and the launcher's
config_set take as they are, with the figures it predicts and their spread.

Targets (one of them) and their tolerance:
  --turns-per-round N     mean turns per round, within 5%
  --minutes-per-round M   mean minutes per round (simulate's time model), within 5%
  --cards-per-press X     mean cards per press, within 5%
  --fire-rate P           share of presses that fire (0..1), within 0.01
With --median, turns or minutes aim at the median round instead of the mean.

What is searched: fire_chance_pct (1..100), with max_blanks and the shape of
burst_weights held as configured (the firmware's defaults, or --launcher-config).
Only when no fire_chance_pct reaches the target: the bursts are shifted (every burst
one card more or one card fewer, the shape kept) and, for a fire rate, max_blanks
changes. The fire rate and cards per press are the pattern's own figures: the firmware's
fire_rate() picks the setting and one simulation at the table confirms it; turns and
minutes per round depend on the table, so they are searched by simulation. A setting
whose games do not end within 20,000 actions counts as too much. Every trial plays the
same --games games with the same --seed (common random numbers), so the search is
reproducible and each step compares like with like.

Examples:
  unolaunch tune --players 4 --bot heuristic --minutes-per-round 10
  unolaunch tune --players 3 --turns-per-round 40 --output launcher.json
  unolaunch tune --players 4 --fire-rate 0.5 --json
  unolaunch tune --players 4 --minutes-per-round 10 --calibrate-from-history
  unolaunch tune --players 4 --minutes-per-round 10 --scheduler tcp://HOST:8786

Trials run on every core (--workers) or on a Dask cluster (--scheduler, as for
simulate); --calibrate-from-history measures the time model at your table (see
'unolaunch simulate --help')."""

TARGETS = {
    # name -> (option, relative tolerance?, tolerance, what it measures)
    "turns_per_round": ("--turns-per-round", True, 0.05, "turns per round"),
    "minutes_per_round": ("--minutes-per-round", True, 0.05, "minutes per round"),
    "cards_per_press": ("--cards-per-press", True, 0.05, "cards per press"),
    "fire_rate": ("--fire-rate", False, 0.01, "fire rate"),
}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Add the tune command's arguments."""
    add_game_arguments(parser, variant="attack", players=4, bot="heuristic")
    group = parser.add_mutually_exclusive_group(required=True)
    group.add_argument("--turns-per-round", type=float, metavar="N")
    group.add_argument("--minutes-per-round", type=float, metavar="M")
    group.add_argument("--cards-per-press", type=float, metavar="X")
    group.add_argument("--fire-rate", type=float, metavar="P")
    parser.add_argument(
        "--median",
        action="store_true",
        help="turns or minutes per round: aim the median round at the target, not the mean "
        "(the mean is pulled up by the rare very long round)",
    )
    parser.add_argument(
        "--games", type=int, default=200, metavar="G", help="games per trial (default 200)"
    )
    parser.add_argument(
        "--output", "-o", metavar="FILE", help="also write the launcher.json fragment to FILE"
    )
    parser.add_argument(
        "--plot", metavar="FILE", help="draw the search into FILE (.svg or .png; 'plot' extra)"
    )
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument(
        "--no-progress", action="store_true", help="no progress bar (it only shows on a terminal)"
    )


def _target(args: argparse.Namespace) -> tuple[str, float, float]:
    for name, (option, relative, tol, _) in TARGETS.items():
        goal = getattr(args, name)
        if goal is None:
            continue
        if not math.isfinite(goal) or goal <= 0:
            raise UsageError(f"{option}: a number above 0")
        if name == "fire_rate" and goal > 1:
            raise UsageError(f"{option}: a share of presses, 0 < P <= 1 (e.g. 0.35)")
        return name, goal, goal * tol if relative else tol
    raise UsageError("name one target: --turns-per-round, --minutes-per-round, ...")


def run(args: argparse.Namespace) -> int:
    """Search the launcher settings for the target; print the fragment (or --json)."""
    if args.variant != "attack":
        raise UsageError("--variant: tune sets the launcher of UNO Attack; use --variant attack")
    if args.games < 1:
        raise UsageError("--games: at least 1")
    target, goal, tolerance = _target(args)
    if args.median and target not in ("turns_per_round", "minutes_per_round"):
        raise UsageError("--median: only for --turns-per-round or --minutes-per-round")
    args.max_actions = MAX_ACTIONS
    setup: Setup = check_arguments(args)
    plot = None
    if args.plot is not None:
        from unolaunch.plot import check_plot_target

        plot = check_plot_target(args.plot)
    if args.output is not None and not Path(args.output).parent.is_dir():
        raise UsageError(f"--output {args.output}: the folder does not exist")
    model = setup.time_model()
    base = {k: setup.config[k] for k in PATTERN_KEYS}
    show = show_progress(args)
    what = ("median " if args.median else "") + TARGETS[target][3]
    with setup.runner(args.games) as runner:

        def run_trial(settings: dict[str, Any]) -> Stats:
            return simulate(
                "attack", args.players, args.games, args.seed, setup.bot_names, setup.options,
                args.max_actions, launcher_config={**setup.config, **settings},
                launcher_source=setup.source, time_model=model, runner=runner,
                count_capped=True,
            )  # fmt: skip

        if show:
            from rich.progress import Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

            with Progress(
                SpinnerColumn(), TextColumn("{task.description}"), TimeElapsedColumn(),
                transient=True,
            ) as bar:  # fmt: skip
                task = bar.add_task(f"tuning for {goal:g} {what}", total=None)

                def note(t: Trial) -> None:
                    bar.update(
                        task,
                        description=f"tuning for {goal:g} {what}: trial {len(search.trials)}, "
                        f"fire_chance_pct {t.fire_chance_pct}, max_blanks {t.max_blanks} "
                        f"-> {t.value:.3g}",
                    )

                search = Search(run_trial, base, target, goal, tolerance, note, args.median)
                found = search.solve()
        else:
            search = Search(run_trial, base, target, goal, tolerance, median=args.median)
            found = search.solve()
    if plot is not None:
        from unolaunch.plot import plot_search

        plot_search([t.to_json() for t in search.trials], what, goal, plot)
    if found is None and not search.trials:
        raise UnolaunchError(
            f"no setting of the pattern gives {goal:g} {what} (within {tolerance:.3g}); "
            "choose a target nearer the default launcher's"
        )
    if found is None:
        b = search.best()
        setting = (
            f"fire_chance_pct {b.fire_chance_pct}, max_blanks {b.max_blanks}"
            f"{f', bursts shifted by {b.shift}' if b.shift else ''}"
        )
        if math.isinf(b.value):
            raise UnolaunchError(
                f"no playable setting gives {goal:g} {what} at this table: with {setting} "
                f"a game does not end within {MAX_ACTIONS:,} actions (hands only grow)"
            )
        raise UnolaunchError(
            f"no setting reaches {goal:g} {what} (within {tolerance:.3g}) for this table; "
            f"the closest, {setting}, gives {b.value:.3g}"
        )
    fragment = search.settings(found.fire_chance_pct, found.max_blanks, found.shift)
    held = ["burst_weights shape"] + ([] if target == "fire_rate" else ["max_blanks"])
    if args.output is not None:
        try:
            Path(args.output).write_text(json.dumps(fragment, indent=2) + "\n", encoding="utf-8")
        except OSError as exc:
            raise UnolaunchError(f"cannot write {args.output}: {exc}") from None
    predicted = found.stats.to_json()
    result = {
        "target": {
            "name": target,
            "value": goal,
            "tolerance": round(tolerance, 6),
            "statistic": "median" if args.median else "mean",
        },
        "config": fragment,
        "measured": round(found.value, 4),
        "predicted": {
            k: predicted[k]
            for k in ("launcher", "turns_per_round", "presses_per_round", "minutes_per_round")
        }
        | {"per_round": predicted["per_round"]},
        "searched": "fire_chance_pct",
        "held": held if found.shift == 0 else ["burst_weights shape (shifted)", "max_blanks"],
        "table": {
            "players": args.players,
            "bots": predicted["bots"],
            "games_per_trial": args.games,
            "seed": args.seed,
            "launcher_config": setup.source,
        },
        "time_model": predicted["time_model"],
        "trials": [t.to_json() for t in search.trials],
    }
    if setup.calibration is not None:
        result["calibration"] = setup.calibration.to_json()
    if args.json:
        json.dump(result, sys.stdout)
        sys.stdout.write("\n")
        return 0
    if setup.calibration is not None:
        print("\n".join(calibration_lines(setup.calibration, setup.seconds)))
    print(
        f"tune: UNO Attack, {args.players} players ({', '.join(setup.bot_names)}), "
        f"target {goal:g} {what} (within {tolerance:.3g}), {args.games} games a trial, "
        f"seed {args.seed}"
    )
    for i, t in enumerate(search.trials, 1):
        shift = f", bursts {t.shift:+d} cards" if t.shift else ""
        print(
            f"  trial {i}: fire_chance_pct {t.fire_chance_pct:3d}, max_blanks {t.max_blanks}"
            f"{shift} -> {t.value:.3f}{'  <- meets the target' if t is found else ''}"
        )
    la = predicted["launcher"]
    pr = predicted["per_round"]
    print("launcher.json fragment (flash --config FILE or config_set take it as it is):")
    print(json.dumps(fragment))
    print("predicted for this table (mean; sd; 10%/50%/90% of rounds):")
    for key, unit in (("turns", "turns"), ("presses", "presses"), ("minutes", "minutes")):
        s = pr[key]
        print(
            f"  {s['mean']:.1f} {unit} per round; sd {s['sd']:.1f}; "
            f"{s['p10']:g} / {s['p50']:g} / {s['p90']:g}"
        )
    print(
        f"  fire rate {la['fire_rate']:.1%}, {la['cards_per_press']:.2f} cards per press, "
        f"longest blank streak {la['max_blank_streak']}, {la['reloads']} reloads"
    )
    if args.output is not None:
        print(f"written to {args.output}")
    if plot is not None:
        print(f"plot: {plot}")
    return 0
