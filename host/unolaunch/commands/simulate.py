"""``unolaunch simulate``: bots play many complete games; report speed and statistics."""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from unolaunch.bots import BOTS, Bot, make_bot, play_game
from unolaunch.errors import UnolaunchError, UsageError
from unolaunch.rules import VARIANTS, Game, TurnCapError, resolve_options

HELP = "bots play many games; report speed and stats"
DESCRIPTION = """\
Bots play complete games (every round, to the target score) on the rules engine and
the command reports how fast it went and how the games went: games/s, actions/s,
rounds per game, actions per round, win rate by seat and by bot, and for UNO Attack
the launcher presses and cards per press.

One action is one engine action: a play, a draw, a press, a pass, a challenge or
accept, a choice, a catch. The same --seed gives the same games and the same
figures (timings aside).

Bots: 'random' picks uniformly among the legal actions; 'heuristic' plays to win.
--bot takes one name for every seat or a comma-separated list, one per seat
(cycled), e.g. --bot heuristic,random.

Examples:
  unolaunch simulate --variant mario-kart --players 2 --games 200 --seed 1
  unolaunch simulate --variant attack --players 4 --bot heuristic,random --json"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Add the simulate command's arguments."""
    parser.add_argument("--variant", choices=VARIANTS, default="mario-kart")
    parser.add_argument("--players", type=int, default=2, metavar="N", help="players (default 2)")
    parser.add_argument("--games", type=int, default=100, metavar="G", help="games (default 100)")
    parser.add_argument("--seed", type=int, default=0, metavar="S", help="random seed (default 0)")
    parser.add_argument(
        "--bot",
        default="random",
        metavar="BOT[,BOT...]",
        help="random or heuristic, or one per seat comma-separated (default random)",
    )
    parser.add_argument(
        "--option",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="a variant option, e.g. strict_press=true or target=250 (repeatable)",
    )
    parser.add_argument(
        "--max-actions",
        type=int,
        default=2_000_000,
        metavar="N",
        help="give up on a game that has not ended after N actions (default 2000000)",
    )
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument(
        "--no-progress", action="store_true", help="no progress bar (it only shows on a terminal)"
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


@dataclass
class Stats:
    """What a simulation run measured."""

    variant: str
    players: int
    bots: list[str]
    seed: int
    games: int = 0
    actions: int = 0
    rounds: int = 0
    seconds: float = 0.0
    cpu_seconds: float = 0.0
    wins_by_seat: Counter[int] = field(default_factory=Counter)
    wins_by_bot: Counter[str] = field(default_factory=Counter)
    presses: int = 0
    press_cards: int = 0

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
            # CPU time of this process: steadier than wall time on a busy machine.
            "cpu_seconds": round(self.cpu_seconds, 4),
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
        return out


def simulate(
    variant: str,
    players: int,
    games: int,
    seed: int,
    bot_names: list[str],
    options: dict[str, Any] | None = None,
    max_actions: int = 2_000_000,
    progress: Any = None,
) -> Stats:
    """Play ``games`` games; return the statistics. Deterministic for a given seed."""
    rng = random.Random(seed)
    bots: list[Bot] = [make_bot(bot_names[i % len(bot_names)], rng) for i in range(players)]
    names = [f"P{i + 1}" for i in range(players)]
    stats = Stats(variant, players, [b.name for b in bots], seed)
    start = time.perf_counter()
    cpu_start = time.process_time()
    for i in range(games):
        game = Game.new(variant, names, options=options, rng=rng)
        try:
            result = play_game(game, bots, max_actions=max_actions)
        except TurnCapError as exc:
            raise UnolaunchError(f"game {i + 1} (seed {seed}): {exc}") from None
        stats.games += 1
        stats.actions += result.actions
        stats.rounds += result.rounds
        stats.wins_by_seat[result.winner] += 1
        stats.wins_by_bot[bots[result.winner].name] += 1
        stats.presses += game.presses
        stats.press_cards += game.press_cards
        if progress is not None:
            progress(i + 1)
    stats.seconds = time.perf_counter() - start
    stats.cpu_seconds = time.process_time() - cpu_start
    return stats


def _print_report(stats: Stats) -> None:
    d = stats.to_json()
    bots = ", ".join(f"{k} {v}" for k, v in d["bots"].items())
    print(f"{d['variant']}, {d['players']} players ({bots}), seed {d['seed']}")
    print(
        f"  {d['games']} games, {d['actions']:,} actions in {d['seconds']:.2f} s: "
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
    if "presses" in d:
        print(
            f"  launcher: {d['presses']:,} presses ({d['presses_per_game']:.1f} per game), "
            f"{d['cards_per_press']:.2f} cards per press"
        )


def run(args: argparse.Namespace) -> int:
    """Run the simulation and print the report (or --json)."""
    limit = 5 if args.variant == "pocket-pizza" else 10
    if not 2 <= args.players <= limit:
        raise UsageError(f"--players: {args.variant} is for 2 to {limit} players")
    if args.games < 1:
        raise UsageError("--games: at least 1")
    if args.max_actions < 1:
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
    show = not args.no_progress and sys.stderr.isatty()
    if show:
        from rich.progress import Progress

        with Progress(transient=True) as bar:
            task = bar.add_task(f"{args.variant}: playing", total=args.games)

            def tick(done: int) -> None:
                bar.update(task, completed=done)

            stats = simulate(
                args.variant, args.players, args.games, args.seed, bot_names, options,
                args.max_actions, tick,
            )  # fmt: skip
    else:
        stats = simulate(
            args.variant, args.players, args.games, args.seed, bot_names, options,
            args.max_actions,
        )  # fmt: skip
    if args.json:
        json.dump(stats.to_json(), sys.stdout)
        sys.stdout.write("\n")
    else:
        _print_report(stats)
    return 0
