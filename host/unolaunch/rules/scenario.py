"""Rule scenarios (the replay format): load one from its JSON data, run it, compare.

Pure like the rest of the engine: :func:`load_scenario` takes already-parsed JSON data,
:func:`run_scenario` returns an :class:`Outcome`. Reading files and printing is the job of
``unolaunch replay`` (:mod:`unolaunch.commands.replay`).
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from unolaunch.cards import COLOR_NAMES, parse_card
from unolaunch.rules.actions import VERBS, Action, ActionFormatError
from unolaunch.rules.engine import VARIANTS, Effect, Game
from unolaunch.rules.errors import IllegalMoveError
from unolaunch.rules.launcher import ListLauncher

__all__ = [
    "STATE_KEYS",
    "Outcome",
    "Scenario",
    "ScenarioError",
    "load_scenario",
    "replay_state",
    "run_scenario",
]

#: The keys of the replay ``state`` (and of ``expect``), in FORMAT.md's order.
STATE_KEYS = (
    "hands",
    "hand_sizes",
    "turn",
    "direction",
    "top",
    "color",
    "stock_size",
    "scores",
    "round_winner",
    "round_points",
    "game_winner",
    "awaiting",
)
_PER_PLAYER = ("hands", "hand_sizes", "scores")


class ScenarioError(ValueError):
    """The scenario data is unusable; ``field`` names the offending key (``start.turn``)."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(f"{field}: {message}")
        self.field = field
        self.detail = message


@dataclass
class Scenario:
    """A parsed scenario: the set-up, the actions and what must hold afterwards."""

    name: str
    rules: list[str]
    variant: str
    options: dict[str, Any]
    players: list[str]
    start: dict[str, Any] | None
    deal: dict[str, Any] | None
    launcher: list[int]
    actions: list[Action]
    expect: dict[str, Any] | None
    expect_error: dict[str, Any] | None
    seed: int = 0

    def new_game(self) -> Game:
        """Set up the game of this scenario (``ScenarioError`` for an impossible set-up)."""
        game = self._new_game()
        for i, a in enumerate(self.actions):  # cards of another variant make it unusable
            for key in ("card", "give", "turned"):
                code = getattr(a, key)
                if code is not None and parse_card(code) not in game.composition:
                    field = "play" if key == "card" and a.verb == "play" else key
                    raise ScenarioError(
                        f"actions[{i}].{field}", f"{code} is not a card of {self.variant}"
                    )
        return game

    def _new_game(self) -> Game:
        rng = random.Random(self.seed)
        launcher = ListLauncher(self.launcher)
        try:
            if self.deal is not None:
                d = self.deal
                return Game.from_deal(
                    self.variant,
                    self.players,
                    dealer=d["dealer"],
                    deck=d["deck"],
                    scores=d.get("scores"),
                    options=self.options,
                    rng=rng,
                    launcher=launcher,
                )
            s = self.start or {}
            return Game.from_position(
                self.variant,
                self.players,
                hands=s["hands"],
                discard=s["discard"],
                stock=s["stock"],
                turn=s["turn"],
                direction=s.get("direction", 1),
                color=s.get("color"),
                scores=s.get("scores"),
                dealer=s.get("dealer"),
                options=self.options,
                rng=rng,
                launcher=launcher,
            )
        except ScenarioError:
            raise
        except ValueError as exc:
            msg = str(exc)
            where, sep, rest = msg.partition(": ")
            if sep and (where.startswith(("start", "deal")) or where in ("scores", "player")):
                raise ScenarioError(where, rest) from None
            raise ScenarioError("start" if self.deal is None else "deal", msg) from None


@dataclass
class Outcome:
    """The result of running a scenario."""

    passed: bool
    failures: list[dict[str, Any]]
    state: dict[str, Any]
    error: dict[str, Any] | None
    log: list[tuple[int, Action, list[Effect]]] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        """The ``--json`` object of FORMAT.md."""
        return {
            "passed": self.passed,
            "failures": self.failures,
            "state": self.state,
            "error": self.error,
        }


def _need(data: Mapping[str, Any], key: str, where: str = "") -> Any:
    if key not in data:
        raise ScenarioError(where + key, f"missing key {key!r}")
    return data[key]


def _names(value: Any, field: str, players: list[str]) -> None:
    if not isinstance(value, Mapping):
        raise ScenarioError(field, "must be an object keyed by player name")
    for name in value:
        if name not in players:
            raise ScenarioError(f"{field}.{name}", f"unknown player {name!r}")


def _codes(value: Any, field: str) -> None:
    if not isinstance(value, list):
        raise ScenarioError(field, "must be a list of card codes")
    for i, code in enumerate(value):
        try:
            parse_card(code)
        except ValueError:
            raise ScenarioError(f"{field}[{i}]", f"unknown card code {code!r}") from None


def load_scenario(data: Any) -> Scenario:
    """Check and parse a scenario's JSON data; raise :class:`ScenarioError` naming the field."""
    if not isinstance(data, Mapping):
        raise ScenarioError("scenario", "a scenario is a JSON object")
    known = {
        "name", "rules", "variant", "options", "players", "start", "deal", "launcher",
        "actions", "expect", "expect_error", "seed", "description", "notes",
    }  # fmt: skip
    for key in data:
        if key not in known:
            raise ScenarioError(key, f"unknown key {key!r}")
    variant = _need(data, "variant")
    if variant not in VARIANTS:
        raise ScenarioError(
            "variant", f"unknown variant {variant!r} (one of {', '.join(VARIANTS)})"
        )
    players = _need(data, "players")
    if (
        not isinstance(players, list)
        or not all(isinstance(p, str) and p for p in players)
        or len(set(players)) != len(players)
    ):
        raise ScenarioError("players", "must be a list of different player names")
    options = data.get("options", {})
    if not isinstance(options, Mapping):
        raise ScenarioError("options", "must be an object")
    if ("start" in data) == ("deal" in data):
        raise ScenarioError("start", "missing key 'start' (or 'deal'; exactly one of them)")
    start = deal = None
    if "start" in data:
        start = data["start"]
        if not isinstance(start, Mapping):
            raise ScenarioError("start", "must be an object")
        hands = _need(start, "hands", "start.")
        _names(hands, "start.hands", players)
        for p, cards in hands.items():
            _codes(cards, f"start.hands.{p}")
        _codes(_need(start, "discard", "start."), "start.discard")
        _codes(_need(start, "stock", "start."), "start.stock")
        turn = _need(start, "turn", "start.")
        if turn not in players:
            raise ScenarioError("start.turn", f"unknown player {turn!r}")
        if "dealer" in start and start["dealer"] not in players:
            raise ScenarioError("start.dealer", f"unknown player {start['dealer']!r}")
        if "scores" in start:
            _names(start["scores"], "start.scores", players)
        if "color" in start and start["color"] not in COLOR_NAMES:
            raise ScenarioError("start.color", f"unknown colour {start['color']!r}")
        start = dict(start)
    else:
        deal = data["deal"]
        if not isinstance(deal, Mapping):
            raise ScenarioError("deal", "must be an object")
        dealer = _need(deal, "dealer", "deal.")
        if dealer not in players:
            raise ScenarioError("deal.dealer", f"unknown player {dealer!r}")
        _codes(_need(deal, "deck", "deal."), "deal.deck")
        if "scores" in deal:
            _names(deal["scores"], "deal.scores", players)
        deal = dict(deal)
    launcher = data.get("launcher", [])
    if not isinstance(launcher, list) or not all(
        isinstance(k, int) and not isinstance(k, bool) and k >= 0 for k in launcher
    ):
        raise ScenarioError("launcher", "must be a list of whole numbers >= 0")
    raw_actions = _need(data, "actions")
    if not isinstance(raw_actions, list):
        raise ScenarioError("actions", "must be a list of action objects")
    actions = []
    for i, raw in enumerate(raw_actions):
        try:
            a = Action.from_dict(raw)
        except ActionFormatError as exc:
            raise ScenarioError(f"actions[{i}].{exc.field}", str(exc).split(": ", 1)[-1]) from None
        for key, name in (("by", a.by), ("target", a.target)):
            if name is not None and name not in players:
                k = "catch" if a.verb == "catch" and key == "target" else key
                raise ScenarioError(f"actions[{i}].{k}", f"unknown player {name!r}")
        actions.append(a)
    expect = data.get("expect")
    expect_error = data.get("expect_error")
    if expect is None and expect_error is None:
        raise ScenarioError("expect", "missing key 'expect' (or 'expect_error')")
    if expect is not None:
        if not isinstance(expect, Mapping):
            raise ScenarioError("expect", "must be an object")
        for key, value in expect.items():
            if key not in STATE_KEYS:
                raise ScenarioError(
                    f"expect.{key}", f"unknown key (one of {', '.join(STATE_KEYS)})"
                )
            if key in _PER_PLAYER:
                _names(value, f"expect.{key}", players)
            if key == "hands":
                for p, cards in value.items():
                    _codes(cards, f"expect.hands.{p}")
            if key == "top" and value is not None:
                _codes([value], "expect.top")
            if key == "awaiting" and value is not None:
                _awaiting(value, players)
            if (
                key in ("turn", "round_winner", "game_winner")
                and value is not None
                and (value not in players)
            ):
                raise ScenarioError(f"expect.{key}", f"unknown player {value!r}")
        expect = dict(expect)
    if expect_error is not None:
        if not isinstance(expect_error, Mapping):
            raise ScenarioError("expect_error", "must be an object {action, rule}")
        n = _need(expect_error, "action", "expect_error.")
        if not isinstance(n, int) or isinstance(n, bool) or not 0 <= n < len(actions):
            raise ScenarioError(
                "expect_error.action", f"must be an action index 0..{len(actions) - 1}"
            )
        if not isinstance(_need(expect_error, "rule", "expect_error."), str):
            raise ScenarioError("expect_error.rule", "must be a rule id such as 'COM-2'")
        expect_error = dict(expect_error)
    seed = data.get("seed", 0)
    if not isinstance(seed, int) or isinstance(seed, bool):
        raise ScenarioError("seed", "must be a whole number")
    name = data.get("name", "")
    rules = data.get("rules", [])
    if not isinstance(rules, list):
        raise ScenarioError("rules", "must be a list of rule ids")
    return Scenario(
        name=str(name),
        rules=[str(r) for r in rules],
        variant=variant,
        options=dict(options),
        players=list(players),
        start=start,
        deal=deal,
        launcher=list(launcher),
        actions=actions,
        expect=expect,
        expect_error=expect_error,
        seed=seed,
    )


def _awaiting(value: Any, players: list[str]) -> None:
    """Check ``expect.awaiting``: null or ``{"by": PLAYER, "verbs": [VERB, ...]}``."""
    if not isinstance(value, Mapping):
        raise ScenarioError("expect.awaiting", 'must be null or {"by": PLAYER, "verbs": [...]}')
    by = _need(value, "by", "expect.awaiting.")
    if by not in players:
        raise ScenarioError("expect.awaiting.by", f"unknown player {by!r}")
    verbs = _need(value, "verbs", "expect.awaiting.")
    if not isinstance(verbs, list):
        raise ScenarioError("expect.awaiting.verbs", "must be a list of verbs")
    for i, verb in enumerate(verbs):
        if verb not in VERBS:  # (a non-string is no verb either)
            raise ScenarioError(
                f"expect.awaiting.verbs[{i}]", f"unknown verb {verb!r} (one of {', '.join(VERBS)})"
            )


def replay_state(game: Game) -> dict[str, Any]:
    """The replay ``state``: exactly the FORMAT.md keys of the game's snapshot."""
    snap = game.snapshot()
    return {k: snap[k] for k in STATE_KEYS}


def _compare(expect: Mapping[str, Any], state: Mapping[str, Any]) -> list[dict[str, Any]]:
    failures = []
    for key, want in expect.items():
        got = state[key]
        if key == "hands":
            for p, cards in want.items():
                if sorted(cards) != sorted(got[p]):
                    failures.append({"key": f"hands.{p}", "expected": cards, "actual": got[p]})
        elif key in ("hand_sizes", "scores"):
            for p, v in want.items():
                if got[p] != v:
                    failures.append({"key": f"{key}.{p}", "expected": v, "actual": got[p]})
        elif key == "awaiting":
            same = (want is None and got is None) or (
                isinstance(want, Mapping)
                and got is not None
                and want.get("by") == got["by"]
                and sorted(want.get("verbs", [])) == sorted(got["verbs"])
            )
            if not same:
                failures.append({"key": key, "expected": want, "actual": got})
        elif got != want:
            failures.append({"key": key, "expected": want, "actual": got})
    return failures


def run_scenario(sc: Scenario) -> Outcome:
    """Play the scenario's actions and check ``expect`` / ``expect_error``."""
    game = sc.new_game()
    failures: list[dict[str, Any]] = []
    error: dict[str, Any] | None = None
    log: list[tuple[int, Action, list[Effect]]] = []
    want_err = sc.expect_error
    for i, action in enumerate(sc.actions):
        try:
            effects = game.apply(action)
        except IllegalMoveError as exc:
            error = {"action": i, "rule": exc.rule, "message": str(exc)}
            log.append((i, action, []))
            break
        log.append((i, action, effects))
        if want_err is not None and want_err["action"] == i:
            break
    if want_err is not None:
        if error is None:
            failures.append(
                {
                    "key": "expect_error",
                    "expected": want_err,
                    "actual": f"action {want_err['action']} was carried out",
                }
            )
        elif error["action"] != want_err["action"] or error["rule"] != want_err["rule"]:
            failures.append(
                {
                    "key": "expect_error",
                    "expected": {"action": want_err["action"], "rule": want_err["rule"]},
                    "actual": {"action": error["action"], "rule": error["rule"]},
                }
            )
    elif error is not None:
        failures.append({"key": "error", "expected": None, "actual": error["message"]})
    state = replay_state(game)
    if sc.expect is not None:
        failures.extend(_compare(sc.expect, state))
    return Outcome(not failures, failures, state, error, log)
