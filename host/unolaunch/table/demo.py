"""``unolaunch demo``: bots play a whole game of UNO Attack through a simulated launcher.

The launcher is the real firmware running in the MicroPython unix port behind a pseudo
terminal (:class:`unolaunch.sim.SimulatedLauncher`), reached through the same serial
client as a real one (:mod:`unolaunch.link`). The rules engine runs with full knowledge
(the bots need their hands); its stock is the launcher's magazine: every press is a press
of the simulated button, after the host armed the launcher for exactly the player and
presses the rules demand, and the number of cards the firmware shoots out is what the
engine deals to the player. When the magazine runs dry the discard pile is loaded back
into it (ATK-22), and each new round loads the fresh stock.

The firmware is tuned for the demo (``DEMO_CONFIG``, set with ``config_set``): the motor
runs at full duty with no soft-start ramp (the simulated roller then shoots about 12
cards a second instead of 9), a shorter debounce, and a jam timeout of 300 ms instead of
1.5 s (the magazine running dry mid-burst ends the burst with a fault, cleared with
``stop``). A game to 500 points then takes about a minute.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from unolaunch.errors import UnolaunchError
from unolaunch.rules import Action, Game
from unolaunch.table.app import effect_text
from unolaunch.table.session import Arming, arming_for

NAMES = ("Ann", "Bob", "Cy", "Dee", "Eve", "Fay", "Gus", "Hal", "Ivy", "Jo")

#: Firmware settings for a quick demo (keys of firmware/launcher/config.py DEFAULTS).
DEMO_CONFIG: dict[str, Any] = {
    "motor_duty_pct": 100,
    "ramp_ms": 0,
    "debounce_ms": 5,
    "jam_ms": 300,
    "quiet": True,
}
PRESS_MS = 30  # how long a bot holds the button
EVENT_TIMEOUT_S = 20.0
PRESS_SEEN_S = 3.0
#: after a burst the firmware brakes the roller (brake_ms, 50 ms by default): a card it
#: still carries out comes as a ``stray`` event, and belongs to this press (issue 14)
BRAKE_SETTLE_S = 0.08


@dataclass
class DemoResult:
    """What the demo game came to."""

    winner: str
    scores: dict[str, int]
    rounds: int
    actions: int
    presses: int
    cards_launched: int
    seconds: float
    missed: int = 0  # button presses the simulated board missed (and were pressed again)


class Demo:
    """One demo game: engine + bots + simulated launcher (see the module docstring)."""

    def __init__(
        self,
        client: Any,
        sim: Any,
        game: Game,
        bots: list[Any],
        log: Callable[[str], None],
    ) -> None:
        self.client = client
        self.sim = sim
        self.game = game
        self.bots = bots
        self.log = log
        self.presses = 0
        self.cards_launched = 0
        self.actions = 0
        self.missed = 0  # button presses the simulated board did not see (pressed again)
        #: Called after every step and round change with (demo, (player, cards) of a press
        #: or None): ``unolaunch demo --web`` shows the game live with it.
        self.watch: Callable[[Demo, tuple[str, int] | None], None] | None = None

    # ------------------------------------------------------------------ the launcher
    def load(self, n: int, why: str) -> None:
        """Put ``n`` cards in the simulated launcher's magazine."""
        self.sim.control(f"load {n}")
        self.log(f"  ⟳ {why}: {n} cards loaded into the launcher")

    def press(self, player: str, want: Arming) -> int:
        """Arm for ``want`` if needed, press the simulated button once, return cards out."""
        armed = self.client.armed
        if (
            not armed
            or armed.get("player") != want.player
            or armed.get("presses") != want.presses
            or (armed.get("mode") or "random") != want.mode
        ):
            self.client.arm(want.player, want.presses, mode=want.mode)
        self.clear_faults()
        g = self.game
        if not g.stock and self.sim.cards == 0 and len(g.discard) > 1:
            # ATK-22: the launcher is empty: the discard pile but its top card goes in.
            self.load(len(g.discard) - 1, "launcher empty (ATK-22), discard pile shuffled in")
        before = self.sim.cards
        self.push_button()
        while True:
            ev = self.client.wait_for(
                lambda e: e.get("event") in ("eject", "foul", "fault"), timeout=EVENT_TIMEOUT_S
            )
            name = ev.get("event")
            if name == "eject":
                cards = int(ev.get("cards") or 0)
                # The board's card reports reach the simulator on another channel than
                # the serial line: give them a moment to be counted.
                settle = time.monotonic() + 0.5
                while self.sim.cards > before - cards and time.monotonic() < settle:
                    time.sleep(0.002)
                if cards:
                    cards += self._strays(player, ev.get("n"))
                self.presses += 1
                self.cards_launched += cards
                wanted = ev.get("wanted")
                if isinstance(wanted, int) and wanted > cards and self.sim.cards == 0:
                    # The magazine ran dry mid-burst: the firmware stops with a fault
                    # (it cannot tell an empty slot from a stuck card); clear it.
                    self.log(f"  (the launcher ran dry after {cards} of {wanted} cards)")
                    self.clear_faults(wait_s=1.0)
                return cards
            if name == "foul":
                raise UnolaunchError(
                    f"the launcher refused {player}'s owed press as a foul ({ev.get('reason')}); "
                    "this is a bug in the demo or the firmware: please report it with the seed"
                )
            raise UnolaunchError(
                f"the simulated launcher reported a fault ({ev.get('code')}: "
                f"{ev.get('message', '')}); please report it with the seed"
            )

    def _strays(self, player: str, n: Any) -> int:
        """Cards the firmware saw leave after this press's ``eject`` (``stray``: the roller
        carried one out while braking): counted into this press, as the table would give
        them to whoever pressed."""
        time.sleep(BRAKE_SETTLE_S)
        extra = 0
        while (ev := self.client.next_event(0)) is not None:
            if ev.get("event") == "stray" and ev.get("n") == n:
                extra += int(ev.get("cards") or 0)
        if extra:
            s = "s" if extra != 1 else ""
            self.log(f"  ({extra} more card{s} fell out as the roller stopped: {player}'s)")
        return extra

    def push_button(self) -> None:
        """Press the simulated button and wait until the firmware saw it (it reports a
        ``press``, or a ``foul``/``fault``). A press the simulated board misses is pressed
        again — only when the firmware's press counter shows it was really not seen."""
        before = self.client.status().get("presses")
        for attempt in range(3):
            self.sim.control(f"press {PRESS_MS}")
            try:
                self.client.wait_for(
                    lambda e: e.get("event") in ("press", "foul", "fault"), timeout=PRESS_SEEN_S
                )
                return
            except UnolaunchError:
                if self.client.status().get("presses") != before:
                    return  # seen after all (a busy machine): its eject will follow
                if attempt == 2:
                    raise
                self.missed += 1

    def clear_faults(self, wait_s: float = 0.0) -> None:
        """Clear a fault the launcher reported (running dry mid-burst) with ``stop``."""
        deadline = time.monotonic() + wait_s
        while True:
            ev = self.client.next_event(max(0.0, deadline - time.monotonic()))
            if ev is None:
                return
            if ev.get("event") == "fault":
                self.client.stop()
                return

    # ------------------------------------------------------------------ the game
    def step(self) -> None:
        """One bot action (a catch of a missed UNO first, as the bots' play_game does)."""
        g = self.game
        moves = g.moves()
        u = g.uno_seat
        action: Action | None = None
        if u >= 0 and len(g.hands[u]) == 1:
            catcher = next((s for s, b in enumerate(self.bots) if b.catches and s != u), -1)
            if catcher >= 0:
                action = Action(g.players[catcher], "catch", target=g.players[u])
        if action is None:
            seat = g.pending[0][1] if g.pending else g.turn
            move = self.bots[seat].choose(g, seat, moves)
            action = g.move_action(move)
        pressed = None
        if action.verb == "press":
            want = arming_for(g)
            assert want is not None and want.player == action.by
            cards = self.press(action.by, want)
            effects = g.apply(dict(action.to_dict(), cards=cards))
            left = self.sim.cards
            out = "no card" if cards == 0 else f"{cards} card{'s' if cards != 1 else ''}"
            self.log(f"  {action.by} presses the launcher → {out} out ({left} left inside)")
            effects = [e for e in effects if e.kind not in ("draw", "press")]
            pressed = (action.by, cards)
        else:
            effects = g.apply(action)
        self.actions += 1
        for e in effects:
            self.log(f"  {effect_text(e)}")
        if self.watch is not None:
            self.watch(self, pressed)

    def play(self) -> DemoResult:
        """Play the whole game; return its result."""
        g = self.game
        started = time.monotonic()
        rounds = 1
        self.round_start(rounds)
        while True:
            while not g.round_over:
                self.step()
                if self.actions > 50_000:
                    raise UnolaunchError("the demo game did not end; please report the seed")
            snap = g.snapshot()
            scores = ", ".join(f"{p} {snap['scores'][p]}" for p in g.players)
            self.log(
                f"Round {rounds}: {snap['round_winner']} goes out and scores "
                f"{snap['round_points']} — {scores}"
            )
            if self.watch is not None:
                self.watch(self, None)
            if g.game_over:
                return DemoResult(
                    winner=str(snap["game_winner"]),
                    scores=dict(snap["scores"]),
                    rounds=rounds,
                    actions=self.actions,
                    presses=self.presses,
                    cards_launched=self.cards_launched,
                    seconds=time.monotonic() - started,
                    missed=self.missed,
                )
            g.next_round()
            rounds += 1
            self.round_start(rounds)

    def round_start(self, n: int) -> None:
        """Announce a round and load its stock into the launcher."""
        g = self.game
        snap = g.snapshot()
        self.log(
            f"Round {n} — {snap['dealer']} deals {g.deal_size} cards each; start card {snap['top']}"
        )
        self.load(len(g.stock), "the rest of the deck goes into the launcher")
        if self.watch is not None:
            self.watch(self, None)


def run_demo(
    seed: int,
    players: int,
    target: int | None,
    log: Callable[[str], None],
    bot: str = "heuristic",
    board: str = "unix",
    rp2_dir: str | None = None,
    watch: Callable[[Demo, tuple[str, int] | None], None] | None = None,
) -> DemoResult:
    """Start the simulator and play one game of UNO Attack with bots (see module docs);
    ``watch`` is called after every step (:attr:`Demo.watch`)."""
    from unolaunch.bots import make_bot
    from unolaunch.link import open_launcher
    from unolaunch.sim import make_launcher

    if not 2 <= players <= len(NAMES):
        raise UnolaunchError(f"--players must be 2 to {len(NAMES)}, not {players}")
    rng = random.Random(seed)
    options = {"target": target} if target else {}
    game = Game.new("attack", list(NAMES[:players]), options=options, rng=rng)
    bots = [make_bot(bot, random.Random(rng.getrandbits(32))) for _ in range(players)]
    where = "an emulated RP2040" if board == "rp2040" else "MicroPython"
    log(f"Starting the simulated launcher: the real firmware in {where}, behind a serial port…")
    # the unix board seeds the pattern at every boot; both get the protocol's seed below
    board_seed = seed if board == "unix" else None
    with make_launcher(board, rp2_dir=rp2_dir, cards=len(game.stock), seed=board_seed) as sim:
        client = open_launcher(sim.port, timeout=5.0)
        try:
            info = client.info or client.hello()
            client.seed(seed)
            client.config_set(dict(DEMO_CONFIG))
            log(
                f"Launcher on {sim.port}: firmware {info.get('firmware')}, protocol "
                f"{info.get('protocol')}, board {info.get('board')}; tuned for the demo: "
                "motor at full duty, no ramp, 300 ms jam timeout"
            )
            log(
                f"{players} bots play UNO Attack to {game.target} points (seed {seed}): "
                f"{', '.join(game.players)}"
            )
            demo = Demo(client, sim, game, bots, log)
            demo.watch = watch
            return demo.play()
        finally:
            client.close()
