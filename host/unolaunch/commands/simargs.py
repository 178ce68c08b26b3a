"""The arguments ``simulate`` and ``tune`` share (the table, the launcher, the clock, where
the games are played) and their checking; no command of its own. The simulation itself
is :mod:`unolaunch.simulation`."""

from __future__ import annotations

import argparse
import math
import sys
from collections.abc import Callable
from contextlib import AbstractContextManager
from dataclasses import dataclass
from typing import Any

from unolaunch.bots import BOTS
from unolaunch.errors import UnolaunchError, UsageError
from unolaunch.rules import VARIANTS, resolve_options
from unolaunch.simulation import (
    SECONDS_PER_PLAY,
    SECONDS_PER_PRESS,
    SECONDS_PER_RELOAD,
    Runner,
    Stats,
    TimeModel,
    check_scheduler,
    default_workers,
    open_runner,
)
from unolaunch.simulation.calibrate import PAUSE_S, Calibration

DEFAULT_SECONDS = {
    "play": SECONDS_PER_PLAY,
    "press": SECONDS_PER_PRESS,
    "reload": SECONDS_PER_RELOAD,
}


def add_game_arguments(
    parser: argparse.ArgumentParser,
    variant: str = "mario-kart",
    players: int = 2,
    bot: str = "random",
) -> None:
    """The arguments ``simulate`` and ``tune`` share: the table, the launcher, the clock."""
    parser.add_argument(
        "--variant", choices=VARIANTS, default=variant, help=f"the game (default {variant})"
    )
    parser.add_argument(
        "--players", type=int, default=players, metavar="N", help=f"players (default {players})"
    )
    parser.add_argument("--seed", type=int, default=0, metavar="S", help="random seed (default 0)")
    parser.add_argument(
        "--bot",
        default=bot,
        metavar="BOT[,BOT...]",
        help=f"random or heuristic, or one per seat comma-separated (default {bot})",
    )
    parser.add_argument(
        "--option",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="a variant option, e.g. strict_press=true or target=250 (repeatable)",
    )
    parser.add_argument(
        "--launcher-config",
        metavar="FILE",
        help="UNO Attack: a launcher.json (all of it or some keys; the rest take the "
        "firmware's defaults), checked by the firmware's own config code",
    )
    parser.add_argument(
        "--port",
        metavar="PORT",
        help="UNO Attack: read the configuration of the launcher connected at PORT "
        "(a serial device, 'auto', or a simulator's pty)",
    )
    parser.add_argument(
        "--workers",
        type=int,
        default=None,
        metavar="N",
        help="worker processes (default: every core, here "
        f"{default_workers()}); with --scheduler local, the local cluster's workers",
    )
    parser.add_argument(
        "--scheduler",
        metavar="ADDRESS",
        help="play on a Dask cluster: the scheduler's tcp://HOST:8786, or 'local' for a "
        "cluster on this machine (needs: pip install 'unolaunch[dask]')",
    )
    for name, default, text in (
        ("play", SECONDS_PER_PLAY, "seconds per action that is not a press"),
        ("press", SECONDS_PER_PRESS, "seconds per press, besides the motor's run"),
        ("reload", SECONDS_PER_RELOAD, "seconds to shuffle the discard pile into the launcher "
         "(ATK-22)"),
    ):  # fmt: skip
        parser.add_argument(
            f"--seconds-per-{name}",
            type=float,
            default=None,
            metavar="S",
            help=f"time model: {text} (default {default:g}, or measured with "
            "--calibrate-from-history)",
        )
    parser.add_argument(
        "--calibrate-from-history",
        nargs="?",
        const="same",
        choices=("same", "all", *VARIANTS),
        metavar="VARIANT|all",
        help="time model: measure the seconds per play, press and reload from the finished "
        "games in the data folder (those of --variant, of VARIANT, or 'all'); a figure "
        "with too few samples keeps its default; --seconds-per-* given still win",
    )
    parser.add_argument(
        "--calibrate-pause",
        type=float,
        default=PAUSE_S,
        metavar="S",
        help=f"--calibrate-from-history: leave out gaps longer than S seconds as pauses "
        f"(default {PAUSE_S:g})",
    )
    parser.add_argument(
        "--data-dir",
        metavar="DIR",
        help="--calibrate-from-history: folder of the games file (default: "
        "$UNOLAUNCH_DATA_DIR or your user data folder, as for 'unolaunch play')",
    )


def parse_option(text: str) -> tuple[str, Any]:
    """One ``--option KEY=VALUE``: true/false and whole numbers are typed."""
    key, eq, raw = text.partition("=")
    if not eq or not key:
        raise UsageError(f"--option {text!r}: use KEY=VALUE, e.g. --option strict_press=true")
    value: Any = raw
    if raw.lower() in ("true", "false"):
        value = raw.lower() == "true"
    elif raw.isdigit():
        value = int(raw)
    return key, value


@dataclass
class Setup:
    """The checked command line shared by ``simulate`` and ``tune``."""

    bot_names: list[str]
    options: dict[str, Any]
    config: dict[str, Any]
    source: str
    workers: int
    seconds: dict[str, float]
    scheduler: str | None = None
    calibration: Calibration | None = None

    def time_model(self) -> TimeModel:
        """The time model: the launcher's motor, the table's seconds."""
        return TimeModel.for_config(self.config, **self.seconds)

    def runner(self, games: int) -> AbstractContextManager[Runner]:
        """Where the games are played (at most one local worker per game)."""
        return open_runner(min(self.workers, games), self.scheduler)


def check_arguments(args: argparse.Namespace) -> Setup:
    """Check the shared arguments; read the launcher configuration and, with
    ``--calibrate-from-history``, the journal. Raises UsageError."""
    limit = 5 if args.variant == "pocket-pizza" else 10
    if not 2 <= args.players <= limit:
        raise UsageError(f"--players: {args.variant} is for 2 to {limit} players")
    if getattr(args, "max_actions", 1) < 1:
        raise UsageError("--max-actions: at least 1")
    bot_names = [b.strip() for b in args.bot.split(",") if b.strip()]
    for b in bot_names:
        if b not in BOTS:
            raise UsageError(f"--bot: unknown bot {b!r} (use {' or '.join(BOTS)})")
    if not bot_names:
        raise UsageError("--bot: name at least one bot")
    options = dict(parse_option(o) for o in args.option)
    try:
        resolve_options(args.variant, options)
    except ValueError as exc:
        raise UsageError(f"--option: {exc}") from None
    scheduler = None if args.scheduler is None else check_scheduler(args.scheduler)
    if scheduler not in (None, "local") and args.workers is not None:
        raise UsageError(
            "--workers: the cluster's own workers play ('dask worker' starts them); "
            "leave out --workers with --scheduler ADDRESS"
        )
    workers = default_workers() if args.workers is None else args.workers
    if workers < 1:
        raise UsageError("--workers: at least 1")
    given = {
        "play": args.seconds_per_play,
        "press": args.seconds_per_press,
        "reload": args.seconds_per_reload,
    }
    for name, value in given.items():
        if value is not None and not (math.isfinite(value) and value >= 0):
            raise UsageError(f"--seconds-per-{name}: a number of seconds >= 0")
    if args.variant != "attack" and (args.launcher_config or args.port):
        option = "--launcher-config" if args.launcher_config else "--port"
        raise UsageError(f"{option}: only UNO Attack has a launcher; use --variant attack")
    if args.calibrate_from_history is not None and args.variant != "attack":
        raise UsageError(
            "--calibrate-from-history: round lengths (the time model) are UNO Attack's; "
            "use --variant attack"
        )
    if not (math.isfinite(args.calibrate_pause) and args.calibrate_pause > 0):
        raise UsageError("--calibrate-pause: a number of seconds above 0")
    config, source = launcher_config(args.launcher_config, args.port)
    seconds = dict(DEFAULT_SECONDS)
    calibration = None
    if args.calibrate_from_history is not None:
        from unolaunch.simulation.calibrate import calibrate_from_history

        which = args.calibrate_from_history
        variant = None if which == "all" else args.variant if which == "same" else which
        calibration = calibrate_from_history(
            args.data_dir,
            variant,
            TimeModel.for_config(config),
            pause_s=args.calibrate_pause,
        )
        seconds = calibration.seconds(seconds)
    seconds.update({k: v for k, v in given.items() if v is not None})
    return Setup(bot_names, options, config, source, workers, seconds, scheduler, calibration)


def calibration_lines(cal: Calibration, seconds: dict[str, float]) -> list[str]:
    """The report of ``--calibrate-from-history``: each figure, what it rests on, and the
    seconds used (the measured ones, a default, or one given on the command line)."""
    which = f"{cal.variant} games" if cal.variant else "games of every variant"
    lines = [
        f"calibrated from {cal.games} finished {which} in {cal.source} "
        f"(gaps over {cal.pause_s:g} s left out as pauses):"
    ]
    what = {"play": "a play (any action but a press)", "press": "a press (without the motor)",
            "reload": "a reload (ATK-22)"}  # fmt: skip
    for f in cal.figures:
        used = seconds[f.name]
        paused = f", {f.pauses} pause{'s' * (f.pauses != 1)} left out" if f.pauses else ""
        if f.median is None:
            measured = "no samples"
        else:
            measured = f"{f.median:.2f} s, median of {f.samples} sample{'s' * (f.samples != 1)}"
        if f.usable and f.median is not None and round(f.median, 2) == used:
            lines.append(f"  {what[f.name]}: {measured}{paused}; used")
        elif not f.usable:
            lines.append(
                f"  {what[f.name]}: {measured}{paused}; too few samples (at least {f.minimum}): "
                f"keeping {used:g} s"
            )
        else:
            lines.append(
                f"  {what[f.name]}: {measured}{paused}; --seconds-per-{f.name} {used:g} used "
                "instead"
            )
    return lines


def run_with_progress(
    label: str, total: int, work: Callable[[Callable[[int], None] | None], Stats], show: bool
) -> Stats:
    """Run ``work`` with a rich progress bar on a terminal (``show``), else plainly."""
    if not show:
        return work(None)
    from rich.progress import Progress

    with Progress(transient=True) as bar:
        task = bar.add_task(label, total=total)

        def tick(done: int) -> None:
            bar.update(task, completed=done)

        return work(tick)


def show_progress(args: argparse.Namespace) -> bool:
    """Whether to draw a progress bar: on a terminal, unless ``--no-progress``."""
    return not args.no_progress and sys.stderr.isatty()


def launcher_config(path: str | None, port: str | None) -> tuple[dict[str, Any], str]:
    """The launcher configuration to simulate, and where it came from."""
    from unolaunch.fwconfig import config_defaults, read_config_file

    if path is not None and port is not None:
        raise UsageError("--launcher-config and --port: give one of them, not both")
    if path is not None:
        return read_config_file(path), path
    if port is not None:
        from unolaunch.link import open_launcher

        with open_launcher(port, timeout=2.0) as client:
            config = client.config_get()
        defaults = config_defaults()
        merged = {**defaults, **{k: v for k, v in config.items() if k in defaults}}
        from unolaunch.fwconfig import pattern_settings

        try:
            pattern_settings(merged)
        except ValueError as exc:
            raise UnolaunchError(
                f"the launcher at {port} reports a configuration the firmware refuses "
                f"({exc}); run 'unolaunch selftest'"
            ) from None
        return merged, f"launcher at {port}"
    return config_defaults(), "firmware defaults"
