"""``unolaunch simulate``: bots play many complete games; report speed and statistics.

The launcher of UNO Attack is the firmware's own ejection pattern (``launcher/pattern.py``,
through :class:`~unolaunch.rules.PatternLauncher`) with a launcher configuration: the
firmware's defaults, a ``launcher.json`` (``--launcher-config``) or the live configuration
of a connected launcher (``--port``).

Games run in worker processes (``--workers``). Each game has its own seed, derived from the
run's seed and the game's number (:func:`game_seed`), and every figure is an integer sum or
an integer histogram merged across workers, so the same ``--seed`` gives the same games and
the same figures whatever the number of workers.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import multiprocessing
import os
import random
import signal
import sys
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from multiprocessing.pool import Pool
from typing import Any

from unolaunch.bots import BOTS, Bot, RoundFigures, make_bot, play_game
from unolaunch.errors import UnolaunchError, UsageError
from unolaunch.rules import VARIANTS, Game, PatternLauncher, TurnCapError, resolve_options

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

Games run in --workers processes (default: every core). Each game's seed comes from
--seed and the game's number, so the same --seed gives the same figures (timings aside)
whatever --workers is.

Bots: 'random' picks uniformly among the legal actions; 'heuristic' plays to win.
--bot takes one name for every seat or a comma-separated list, one per seat
(cycled), e.g. --bot heuristic,random.

Examples:
  unolaunch simulate --variant mario-kart --players 2 --games 200 --seed 1
  unolaunch simulate --variant attack --players 4 --bot heuristic --games 500
  unolaunch simulate --variant attack --players 4 --launcher-config launcher.json --json
  unolaunch simulate --variant attack --players 4 --plot rounds.svg   (needs the 'plot' extra)"""

#: The time model's defaults, seconds per action (see DESCRIPTION).
SECONDS_PER_PLAY = 4.0
SECONDS_PER_PRESS = 2.0
SECONDS_PER_RELOAD = 30.0


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
        help=f"worker processes (default: every core, here {os.cpu_count() or 1})",
    )
    parser.add_argument(
        "--seconds-per-play",
        type=float,
        default=SECONDS_PER_PLAY,
        metavar="S",
        help=f"time model: seconds per action that is not a press (default {SECONDS_PER_PLAY:g})",
    )
    parser.add_argument(
        "--seconds-per-press",
        type=float,
        default=SECONDS_PER_PRESS,
        metavar="S",
        help="time model: seconds per press, besides the motor's run "
        f"(default {SECONDS_PER_PRESS:g})",
    )
    parser.add_argument(
        "--seconds-per-reload",
        type=float,
        default=SECONDS_PER_RELOAD,
        metavar="S",
        help="time model: seconds to shuffle the discard pile into the launcher (ATK-22; "
        f"default {SECONDS_PER_RELOAD:g})",
    )


def _parse_option(text: str) -> tuple[str, Any]:
    key, eq, raw = text.partition("=")
    if not eq or not key:
        raise UsageError(f"--option {text!r}: use KEY=VALUE, e.g. --option strict_press=true")
    value: Any = raw
    if raw.lower() in ("true", "false"):
        value = raw.lower() == "true"
    elif raw.isdigit():
        value = int(raw)
    return key, value


def game_seed(seed: int, number: int) -> int:
    """The seed of game ``number`` (0-based) of a run seeded ``seed``: a 64-bit hash of both,
    the same in every process and on every platform."""
    digest = hashlib.blake2b(f"unolaunch:{seed}:{number}".encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big")


# ---------------------------------------------------------------------------- time model
@dataclass(frozen=True)
class TimeModel:
    """Seconds a table spends on a round (see the command's help for the formula)."""

    play: float = SECONDS_PER_PLAY
    press: float = SECONDS_PER_PRESS
    reload: float = SECONDS_PER_RELOAD
    ms_per_card: int = 115
    ramp_ms: int = 80
    brake_ms: int = 50

    @classmethod
    def for_config(cls, config: Mapping[str, Any], **seconds: float) -> TimeModel:
        """The model with the motor figures of a launcher configuration."""
        return cls(
            ms_per_card=int(config["ms_per_card"]),
            ramp_ms=int(config["ramp_ms"]),
            brake_ms=int(config["brake_ms"]),
            **seconds,
        )

    def seconds(
        self, actions: int, presses: int, fires: int, cards: int, reloads: int
    ) -> float:  # fmt: skip
        """The estimated seconds of a stretch of play with these counts."""
        return (
            (actions - presses) * self.play
            + presses * self.press
            + fires * (self.ramp_ms / 2 + self.brake_ms) / 1000
            + cards * self.ms_per_card / 1000
            + reloads * self.reload
        )

    def to_json(self) -> dict[str, Any]:
        """The model as stated in ``--json``."""
        return {
            "seconds_per_play": self.play,
            "seconds_per_press": self.press,
            "seconds_per_reload": self.reload,
            "ms_per_card": self.ms_per_card,
            "cards_per_second": round(1000 / self.ms_per_card, 2),
            "ramp_ms": self.ramp_ms,
            "brake_ms": self.brake_ms,
            "formula": "play*(actions-presses) + press*presses + (ramp_ms/2+brake_ms)/1000*fires"
            " + ms_per_card/1000*cards + reload*reloads",
        }


# ---------------------------------------------------------------------------- statistics
def _spread(hist: Counter[int], scale: float = 1.0, digits: int = 2) -> dict[str, float]:
    """Mean, standard deviation and the 10th/50th/90th percentiles of an integer histogram."""
    n = sum(hist.values())
    if not n:
        return {"mean": 0.0, "sd": 0.0, "p10": 0.0, "p50": 0.0, "p90": 0.0}
    mean = sum(k * c for k, c in hist.items()) / n
    var = sum(c * (k - mean) ** 2 for k, c in hist.items()) / n
    cuts: dict[str, float] = {}
    seen = 0
    wanted = [("p10", 0.1), ("p50", 0.5), ("p90", 0.9)]
    for k in sorted(hist):
        seen += hist[k]
        while wanted and seen >= wanted[0][1] * n:
            cuts[wanted.pop(0)[0]] = round(k * scale, digits)
    return {
        "mean": round(mean * scale, digits),
        "sd": round(math.sqrt(var) * scale, digits),
        **cuts,
    }


@dataclass
class Stats:
    """What a simulation run measured (integer sums and histograms: merged exactly)."""

    variant: str
    players: int
    bots: list[str]
    seed: int
    games: int = 0
    actions: int = 0
    rounds: int = 0
    seconds: float = 0.0
    cpu_seconds: float = 0.0
    workers: int = 1
    wins_by_seat: Counter[int] = field(default_factory=Counter)
    wins_by_bot: Counter[str] = field(default_factory=Counter)
    presses: int = 0
    press_cards: int = 0
    # UNO Attack: the launcher (its own counts) and the rounds.
    fires: int = 0
    cards: int = 0
    cards_hist: Counter[int] = field(default_factory=Counter)  # cards per press -> presses
    max_blank_streak: int = 0
    reloads: int = 0
    capped: int = 0  # games given up at the action cap (only with count_capped)
    turns: int = 0
    turns_hist: Counter[int] = field(default_factory=Counter)  # per round
    presses_hist: Counter[int] = field(default_factory=Counter)  # per round
    round_seconds_hist: Counter[int] = field(default_factory=Counter)  # per round, whole s
    launcher_config: dict[str, Any] | None = None
    launcher_source: str = ""
    time_model: TimeModel | None = None

    def merge(self, other: Stats) -> None:
        """Add another part of the same run (the order does not matter)."""
        self.games += other.games
        self.actions += other.actions
        self.rounds += other.rounds
        self.cpu_seconds += other.cpu_seconds
        self.wins_by_seat.update(other.wins_by_seat)
        self.wins_by_bot.update(other.wins_by_bot)
        self.presses += other.presses
        self.press_cards += other.press_cards
        self.fires += other.fires
        self.cards += other.cards
        self.cards_hist.update(other.cards_hist)
        self.max_blank_streak = max(self.max_blank_streak, other.max_blank_streak)
        self.reloads += other.reloads
        self.capped += other.capped
        self.turns += other.turns
        self.turns_hist.update(other.turns_hist)
        self.presses_hist.update(other.presses_hist)
        self.round_seconds_hist.update(other.round_seconds_hist)

    @property
    def fire_rate(self) -> float:
        """Fraction of presses that shot at least one card."""
        return self.fires / self.presses if self.presses else 0.0

    @property
    def minutes_per_round(self) -> float:
        """The time model's estimate of a round's length, in minutes (mean)."""
        if self.time_model is None or not self.rounds:
            return 0.0
        total = self.time_model.seconds(
            self.actions, self.presses, self.fires, self.cards, self.reloads
        )
        return total / self.rounds / 60

    def launcher_json(self) -> dict[str, Any]:
        """The ``launcher`` object of ``--json``."""
        fires = max(self.fires, 1)
        return {
            "presses": self.presses,
            "fires": self.fires,
            "fire_rate": round(self.fire_rate, 4),
            "cards": self.cards,
            "cards_per_press": round(self.cards / max(self.presses, 1), 3),
            "cards_per_fire": {
                str(k): round(self.cards_hist[k] / fires, 4) for k in sorted(self.cards_hist) if k
            },
            "max_blank_streak": self.max_blank_streak,
            "reloads": self.reloads,
        }

    def to_json(self) -> dict[str, Any]:
        """The --json object."""
        g = max(self.games, 1)
        secs = self.seconds or 1e-9
        seat_names = [f"P{i + 1}" for i in range(self.players)]
        bot_seats = Counter(self.bots)
        out: dict[str, Any] = {
            "variant": self.variant,
            "players": self.players,
            "bots": dict(zip(seat_names, self.bots, strict=True)),
            "seed": self.seed,
            "games": self.games,
            "actions": self.actions,
            "rounds": self.rounds,
            "seconds": round(self.seconds, 4),
            # CPU time of the processes that played: steadier than wall time on a busy machine.
            "cpu_seconds": round(self.cpu_seconds, 4),
            "workers": self.workers,
            "games_per_second": round(self.games / secs, 2),
            "actions_per_second": round(self.actions / secs, 1),
            "actions_per_cpu_second": round(self.actions / (self.cpu_seconds or 1e-9), 1),
            "avg_rounds_per_game": round(self.rounds / g, 3),
            "avg_actions_per_round": round(self.actions / max(self.rounds, 1), 2),
            "avg_actions_per_game": round(self.actions / g, 2),
            "win_rate_by_seat": {
                name: round(self.wins_by_seat[i] / g, 4) for i, name in enumerate(seat_names)
            },
            # Per bot kind: the share of games won by seats of that kind, divided by the
            # number of such seats (so a fair table gives every bot 1/players).
            "win_rate_by_bot": {
                b: round(self.wins_by_bot[b] / g / n, 4) for b, n in sorted(bot_seats.items())
            },
        }
        if self.variant == "attack":
            out["presses"] = self.presses
            out["cards_per_press"] = round(self.press_cards / max(self.presses, 1), 3)
            out["presses_per_game"] = round(self.presses / g, 2)
            out["launcher"] = self.launcher_json()
            rounds = max(self.rounds, 1)
            out["turns_per_round"] = round(self.turns / rounds, 2)
            out["presses_per_round"] = round(self.presses / rounds, 2)
            out["minutes_per_round"] = round(self.minutes_per_round, 2)
            out["per_round"] = {
                "turns": _spread(self.turns_hist),
                "presses": _spread(self.presses_hist),
                "minutes": _spread(self.round_seconds_hist, 1 / 60),
            }
            if self.time_model is not None:
                out["time_model"] = self.time_model.to_json()
            if self.launcher_config is not None:
                out["launcher_config"] = {
                    "source": self.launcher_source,
                    **{k: self.launcher_config[k] for k in PATTERN_KEYS},
                }
        return out


PATTERN_KEYS = ("fire_chance_pct", "max_blanks", "burst_weights")


# ---------------------------------------------------------------------------- playing
@dataclass(frozen=True)
class Job:
    """Games ``start`` to ``stop - 1`` of a run: everything a worker needs (picklable)."""

    variant: str
    players: int
    bot_names: tuple[str, ...]
    options: dict[str, Any]
    max_actions: int
    seed: int
    start: int
    stop: int
    launcher_config: dict[str, Any] | None
    time_model: TimeModel | None
    count_capped: bool = False


def play_games(job: Job) -> Stats:
    """Play the games of ``job`` in this process; return their statistics."""
    cpu_start = time.process_time()
    names = [f"P{i + 1}" for i in range(job.players)]
    kinds = [job.bot_names[i % len(job.bot_names)] for i in range(job.players)]
    stats = Stats(job.variant, job.players, kinds, job.seed)
    attack = job.variant == "attack"
    model = job.time_model
    for i in range(job.start, job.stop):
        rng = random.Random(game_seed(job.seed, i))
        bots: list[Bot] = [make_bot(k, rng) for k in kinds]
        launcher = PatternLauncher(rng.getrandbits(32), job.launcher_config) if attack else None
        game = Game.new(job.variant, names, options=job.options, rng=rng, launcher=launcher)
        figures: list[RoundFigures] | None = [] if attack else None
        try:
            result = play_game(game, bots, max_actions=job.max_actions, round_figures=figures)
        except TurnCapError as exc:
            if job.count_capped:
                stats.capped += 1  # one is enough to call the setting too much
                break
            raise UnolaunchError(f"game {i + 1} (seed {job.seed}): {exc}") from None
        stats.games += 1
        stats.actions += result.actions
        stats.rounds += result.rounds
        stats.wins_by_seat[result.winner] += 1
        stats.wins_by_bot[kinds[result.winner]] += 1
        stats.presses += game.presses
        stats.press_cards += game.press_cards
        if launcher is not None and figures is not None:
            stats.fires += launcher.fires
            stats.cards += launcher.cards
            stats.cards_hist.update(dict(enumerate(launcher.histogram)))
            stats.max_blank_streak = max(stats.max_blank_streak, launcher.max_blank_streak)
            for f in figures:
                stats.reloads += f.reloads
                stats.turns += f.turns
                stats.turns_hist[f.turns] += 1
                stats.presses_hist[f.presses] += 1
                if model is not None:
                    secs = model.seconds(f.actions, f.presses, f.fires, f.cards, f.reloads)
                    stats.round_seconds_hist[round(secs)] += 1
    stats.cards_hist = +stats.cards_hist  # without the burst sizes that never came
    stats.cpu_seconds = time.process_time() - cpu_start
    return stats


def default_workers() -> int:
    """Every core this process may use."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def _worker_init() -> None:
    # Ctrl-C is the parent's to handle (it stops the pool): no traceback from each worker.
    signal.signal(signal.SIGINT, signal.SIG_IGN)


@contextmanager
def worker_pool(workers: int) -> Iterator[Pool | None]:
    """A pool of ``workers`` processes (None for one: games then run in this process)."""
    if workers <= 1:
        yield None
        return
    # Linux: fork starts at once, and is safe while this process has one thread (the CLI
    # makes the pool before its progress bar's thread); otherwise spawn (a job carries
    # everything a worker needs).
    fork = sys.platform.startswith("linux") and threading.active_count() == 1
    ctx = multiprocessing.get_context("fork" if fork else "spawn")
    pool = ctx.Pool(workers, initializer=_worker_init)
    try:
        yield pool
    finally:
        pool.terminate()
        pool.join()


def plan(
    variant: str,
    players: int,
    games: int,
    seed: int,
    bot_names: Sequence[str],
    options: dict[str, Any] | None = None,
    max_actions: int = 2_000_000,
    *,
    launcher_config: Mapping[str, Any] | None = None,
    launcher_source: str = "firmware defaults",
    time_model: TimeModel | None = None,
    chunk: int = 200,
    count_capped: bool = False,
) -> tuple[Stats, list[Job]]:
    """Split a run into jobs of at most ``chunk`` games; return the empty statistics to merge
    their results into (in any order) and the jobs.

    Jobs are picklable and :func:`play_games` plays one anywhere — a worker process here, or
    a distributed engine's worker (README: "More than one machine")::

        stats, jobs = plan("attack", 4, 1_000_000, 1, ["heuristic"])
        for part in executor.map(play_games, jobs):
            stats.merge(part)
    """
    from unolaunch.fwconfig import config_defaults

    config = dict(config_defaults())
    if launcher_config is not None:
        config.update(launcher_config)
    model = time_model if time_model is not None else TimeModel.for_config(config)
    kinds = [bot_names[i % len(bot_names)] for i in range(players)]
    chunk = max(1, chunk)
    jobs = [
        Job(variant, players, tuple(bot_names), dict(options or {}), max_actions, seed,
            start, min(start + chunk, games), config, model, count_capped)
        for start in range(0, games, chunk)
    ]  # fmt: skip
    stats = Stats(variant, players, kinds, seed)
    stats.launcher_config = config
    stats.launcher_source = launcher_source
    stats.time_model = model
    return stats, jobs


def simulate(
    variant: str,
    players: int,
    games: int,
    seed: int,
    bot_names: Sequence[str],
    options: dict[str, Any] | None = None,
    max_actions: int = 2_000_000,
    progress: Callable[[int], None] | None = None,
    *,
    launcher_config: Mapping[str, Any] | None = None,
    launcher_source: str = "firmware defaults",
    time_model: TimeModel | None = None,
    workers: int = 1,
    pool: Pool | None = None,
    count_capped: bool = False,
) -> Stats:
    """Play ``games`` games; return the statistics. Deterministic for a given seed, whatever
    ``workers`` is (or the ``pool`` given: a :func:`worker_pool`).

    ``launcher_config`` (UNO Attack) is a launcher configuration (default: the firmware's
    defaults); ``time_model`` defaults to :class:`TimeModel` with its motor figures.
    ``progress`` is called with the number of games done so far. A game that reaches
    ``max_actions`` raises :class:`UnolaunchError`, or with ``count_capped`` is counted in
    ``Stats.capped`` and left out of every other figure.
    """
    workers = max(workers, 1)
    stats, jobs = plan(
        variant, players, games, seed, bot_names, options, max_actions,
        launcher_config=launcher_config, launcher_source=launcher_source,
        time_model=time_model, chunk=min(200, games // (workers * 8) or 1),
        count_capped=count_capped,
    )  # fmt: skip
    stats.workers = workers
    start = time.perf_counter()
    with worker_pool(workers) if pool is None else _same(pool) as p:
        parts: Iterator[Stats] = map(play_games, jobs) if p is None else p.imap(play_games, jobs)
        for part in parts:
            stats.merge(part)
            if progress is not None:
                progress(stats.games + stats.capped)
    stats.seconds = time.perf_counter() - start
    return stats


@contextmanager
def _same(pool: Pool) -> Iterator[Pool]:
    yield pool


# ---------------------------------------------------------------------------- the command
@dataclass
class Setup:
    """The checked command line shared by ``simulate`` and ``tune``."""

    bot_names: list[str]
    options: dict[str, Any]
    config: dict[str, Any]
    source: str
    workers: int
    seconds: dict[str, float]


def check_arguments(args: argparse.Namespace) -> Setup:
    """Check the shared arguments; read the launcher configuration. Raises UsageError."""
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
    options = dict(_parse_option(o) for o in args.option)
    try:
        resolve_options(args.variant, options)
    except ValueError as exc:
        raise UsageError(f"--option: {exc}") from None
    workers = default_workers() if args.workers is None else args.workers
    if workers < 1:
        raise UsageError("--workers: at least 1")
    seconds = {
        "play": args.seconds_per_play,
        "press": args.seconds_per_press,
        "reload": args.seconds_per_reload,
    }
    for name, value in seconds.items():
        if not (math.isfinite(value) and value >= 0):
            raise UsageError(f"--seconds-per-{name}: a number of seconds >= 0")
    if args.variant != "attack" and (args.launcher_config or args.port):
        option = "--launcher-config" if args.launcher_config else "--port"
        raise UsageError(f"{option}: only UNO Attack has a launcher; use --variant attack")
    config, source = launcher_config(args.launcher_config, args.port)
    return Setup(bot_names, options, config, source, workers, seconds)


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
    model = TimeModel.for_config(setup.config, **setup.seconds)
    show = not args.no_progress and sys.stderr.isatty()
    workers = min(setup.workers, args.games)
    # The pool first: its processes start before the progress bar's thread does.
    with worker_pool(workers) as pool:

        def work(tick: Callable[[int], None] | None) -> Stats:
            return simulate(
                args.variant, args.players, args.games, args.seed, setup.bot_names,
                setup.options, args.max_actions, tick, launcher_config=setup.config,
                launcher_source=setup.source, time_model=model, workers=workers, pool=pool,
            )  # fmt: skip

        stats = run_with_progress(f"{args.variant}: playing", args.games, work, show)
    if plot is not None:
        from unolaunch.plot import plot_simulation

        plot_simulation(stats, plot)
    if args.json:
        json.dump(stats.to_json(), sys.stdout)
        sys.stdout.write("\n")
    else:
        _print_report(stats)
        if plot is not None:
            print(f"  plot: {plot}")
    return 0
