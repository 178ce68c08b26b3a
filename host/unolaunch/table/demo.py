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
from unolaunch.i18n import _, ngettext
from unolaunch.rules import Action, Game
from unolaunch.table.app import effect_text
from unolaunch.table.screen import card_name
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
#: longest wait, after that, for the reports of cards the magazine has lost
STRAY_WAIT_S = 2.0


class DemoError(UnolaunchError):
    """The demo game cannot go on (the message says why); ``unolaunch demo`` adds the
    command that replays it."""


class DemoStalled(DemoError):
    """The simulated launcher did not send an event the demo waits for."""


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
        magazine: int | None = None,
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
        #: most cards the simulated magazine takes at a time (None: a whole deck); the
        #: rest wait beside it (:attr:`beside`) and go in when it runs dry
        self.magazine = magazine
        self.beside = 0
        self.fault: dict[str, Any] | None = None  # a fault the launcher reported, not cleared
        self._strays: dict[Any, int] = {}  # stray cards by press number, not yet counted
        #: Called after every step and round change with (demo, (player, cards) of a press
        #: or None): ``unolaunch demo --web`` shows the game live with it.
        self.watch: Callable[[Demo, tuple[str, int] | None], None] | None = None
        #: who said UNO with the card before their last one this round (COM-6)
        self.uno_said: set[str] = set()

    # ------------------------------------------------------------------ the launcher
    def load(self, n: int, why: str) -> None:
        """Put ``n`` cards in the simulated launcher's magazine in place of what it held:
        all of them, or as many as it holds (:attr:`magazine`); the rest wait beside it
        and go in when it runs dry."""
        self.beside = n
        self.sim.control("load 0")
        self._top_up(why)

    def _top_up(self, why: str) -> None:
        """Fill the magazine from the cards beside it."""
        inside = self.sim.cards
        room = self.beside if self.magazine is None else self.magazine - inside
        n = min(self.beside, max(0, room))
        if n <= 0:
            return
        self.beside -= n
        self.sim.control(f"load {inside + n}")
        if self.beside:
            text = ngettext(
                "{why}: {n} card loaded into the launcher ({more} more wait beside it)",
                "{why}: {n} cards loaded into the launcher ({more} more wait beside it)",
                n,
            )
        else:
            text = ngettext(
                "{why}: {n} card loaded into the launcher",
                "{why}: {n} cards loaded into the launcher",
                n,
            )
        self.log("  ⟳ " + text.format(why=why, n=n, more=self.beside))

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
        presses = self.clear_faults()
        g = self.game
        if self.sim.cards == 0:
            if self.beside:
                self._top_up(_("the launcher is empty: the cards beside it go in"))
            elif not g.stock and len(g.discard) > 1:
                # ATK-22: the launcher is empty: the discard pile but its top card goes in.
                self.load(
                    len(g.discard) - 1, _("launcher empty (ATK-22), discard pile shuffled in")
                )
        before = self.sim.cards
        n = self.push_button(player, presses)
        ev = self._wait(
            ("eject",), _("the end of {who}'s burst (its 'eject' event)").format(who=player), n=n
        )
        cards = int(ev.get("cards") or 0)
        out = self._settle(player, n, before, cards)
        self.presses += 1
        self.cards_launched += out
        wanted = ev.get("wanted")
        if isinstance(wanted, int) and wanted > cards and self.sim.cards == 0:
            # The magazine ran dry mid-burst: the firmware stops with a fault (it cannot
            # tell an empty slot from a stuck card), cleared before the next press.
            self.log(
                "  "
                + _("(the launcher ran dry after {n} of {wanted} cards)").format(
                    n=cards, wanted=wanted
                )
            )
        return out

    def _settle(self, player: str, n: Any, before: int, cards: int) -> int:
        """After a burst's ``eject``: wait until the roller has stopped and every card that
        left the magazine has been reported (the ``eject``, and any ``stray`` the roller
        carried out while braking: this press's, as the table gives them to whoever
        pressed); return the press's cards."""
        # The board's card reports reach the simulator on another channel than the
        # serial line: give them a moment to be counted.
        settle = time.monotonic() + 0.5
        while self.sim.cards > before - cards and time.monotonic() < settle:
            time.sleep(0.002)
        time.sleep(BRAKE_SETTLE_S)
        deadline = time.monotonic() + STRAY_WAIT_S
        extra = 0
        while True:
            self._barrier()
            extra += self._strays.pop(n, 0)
            left = before - self.sim.cards  # what the magazine lost
            if cards + extra >= left or time.monotonic() >= deadline:
                break
            time.sleep(0.02)
        if extra:
            text = ngettext(
                "({n} more card fell out as the roller stopped: {who}'s)",
                "({n} more cards fell out as the roller stopped: {who}'s)",
                extra,
            )
            self.log("  " + text.format(n=extra, who=player))
        return cards + extra

    def push_button(self, player: str = "", presses: Any = None) -> Any:
        """Press the simulated button and wait until the firmware saw it (its ``press``);
        return the press's number ``n``. A press the simulated board misses is pressed
        again — only when the firmware's press counter (``presses``: its value before, from
        ``status``) shows it was really not seen."""
        before = self.client.status().get("presses") if presses is None else presses
        for attempt in range(3):
            self.sim.control(f"press {PRESS_MS}")
            try:
                ev = self._wait(("press",), f"{player}'s press", timeout=PRESS_SEEN_S)
                return ev.get("n")
            except DemoStalled:
                if self.client.status().get("presses") != before:
                    # seen after all (a busy machine): its press event is on its way
                    ev = self._wait(("press",), f"{player}'s press")
                    return ev.get("n")
                if attempt == 2:
                    raise
                self.missed += 1
        raise AssertionError("unreachable")

    def clear_faults(self) -> Any:
        """Clear a fault the launcher is in (a burst that ran dry) with ``stop``; return
        the launcher's press counter."""
        status = self._barrier()
        if self.fault is not None or status.get("fault"):
            self.client.stop()
            self._wait(("cleared",), "'cleared' event after 'stop' cleared its fault")
        return status.get("presses")

    # Every event the launcher sends is read here, once, and noted: none is thrown away.
    def _note(self, ev: dict[str, Any]) -> None:
        """Take note of one launcher event (faults to clear, stray cards to count)."""
        name = ev.get("event")
        if name == "fault":
            self.fault = ev
        elif name == "cleared":
            self.fault = None
        elif name == "stray":
            n = ev.get("n")
            self._strays[n] = self._strays.get(n, 0) + int(ev.get("cards") or 0)
        elif name == "foul":
            raise DemoError(
                _(
                    "the simulated launcher refused a press as a foul ({reason}): the "
                    "demo and the launcher disagree about who owes a press (a bug)"
                ).format(reason=ev.get("reason"))
            )
        elif name == "boot":
            raise DemoError(
                _(
                    "the simulated launcher restarted in the middle of the game (its firmware "
                    "crashed or was reset)"
                )
            )

    def _barrier(self) -> dict[str, Any]:
        """Ask for ``status`` and note every event the launcher sent before its reply (it
        sends its lines in order: an event of a burst that just ended, such as the fault
        that follows the ``eject`` of a burst that ran dry, is then read); return the
        status."""
        status: dict[str, Any] = self.client.status()
        while (ev := self.client.next_event(0)) is not None:
            self._note(ev)
        return status

    def _wait(
        self, names: tuple[str, ...], what: str, timeout: float = EVENT_TIMEOUT_S, n: Any = None
    ) -> dict[str, Any]:
        """Note events until one named in ``names`` (of press ``n``, if given) comes;
        :class:`DemoStalled` if none comes within ``timeout`` seconds."""
        deadline = time.monotonic() + timeout
        while True:
            ev: dict[str, Any] | None = self.client.next_event(
                max(0.0, deadline - time.monotonic())
            )
            if ev is None:
                raise DemoStalled(
                    _(
                        "the simulated launcher sent no {what} within {seconds} s, and the demo "
                        "cannot go on without it (a bug in the demo or the simulator)"
                    ).format(what=what, seconds=f"{timeout:g}")
                )
            self._note(ev)
            if ev.get("event") in names and (n is None or ev.get("n") == n):
                return ev

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
            if cards == 0:
                text = _("{who} presses the launcher → no card out ({left} left inside)")
            else:
                text = ngettext(
                    "{who} presses the launcher → {n} card out ({left} left inside)",
                    "{who} presses the launcher → {n} cards out ({left} left inside)",
                    cards,
                )
            self.log("  " + text.format(who=action.by, n=cards, left=left))
            effects = [e for e in effects if e.kind not in ("draw", "press")]
            pressed = (action.by, cards)
        else:
            effects = g.apply(action)
        self.actions += 1
        if action.verb == "play":
            (self.uno_said.add if action.uno else self.uno_said.discard)(action.by)
        elif action.verb == "catch" and action.target:
            self.uno_said.discard(str(action.target))
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
                    raise DemoError(_("the demo game did not end after 50,000 actions (a bug)"))
            snap = g.snapshot()
            scores = ", ".join(f"{p} {snap['scores'][p]}" for p in g.players)
            self.log(
                _("Round {n}: {who} goes out and scores {points} — {scores}").format(
                    n=rounds, who=snap["round_winner"], points=snap["round_points"], scores=scores
                )
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
        """Announce a round and its start card, and load its stock into the launcher."""
        g = self.game
        self.uno_said = set()
        snap = g.snapshot()
        self.log(
            ngettext(
                "Round {n} — {dealer} deals {size} card each; start card {card}",
                "Round {n} — {dealer} deals {size} cards each; start card {card}",
                g.deal_size,
            ).format(n=n, dealer=snap["dealer"], size=g.deal_size, card=card_name(str(snap["top"])))
        )
        self.load(len(g.stock), _("the rest of the deck goes into the launcher"))
        want = arming_for(g)
        if want is not None and snap.get("owed"):
            # ATK-4: a Hit 2 turned up: the first player presses twice (the engine notes
            # no effect for the deal itself)
            if want.presses == 1:
                text = _("{who} must press the launcher once (ATK-4)")
            else:
                text = ngettext(
                    "{who} must press the launcher {n} time (ATK-4)",
                    "{who} must press the launcher {n} times (ATK-4)",
                    want.presses,
                )
            self.log("  " + text.format(who=want.player, n=want.presses))
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
    magazine: int | None = None,
) -> DemoResult:
    """Start the simulator and play one game of UNO Attack with bots (see module docs);
    ``watch`` is called after every step (:attr:`Demo.watch`); ``magazine``: most cards
    the launcher takes at a time (:attr:`Demo.magazine`)."""
    from unolaunch.bots import make_bot
    from unolaunch.link import open_launcher
    from unolaunch.sim import make_launcher

    if not 2 <= players <= len(NAMES):
        raise UnolaunchError(
            _("--players must be 2 to {most}, not {n}").format(most=len(NAMES), n=players)
        )
    if magazine is not None and magazine < 1:
        raise UnolaunchError(_("--magazine must be at least 1 card, not {n}").format(n=magazine))
    rng = random.Random(seed)
    options = {"target": target} if target else {}
    game = Game.new("attack", list(NAMES[:players]), options=options, rng=rng)
    bots = [make_bot(bot, random.Random(rng.getrandbits(32))) for _ in range(players)]
    if board == "rp2040":
        log(
            _(
                "Starting the simulated launcher: the real firmware in an emulated RP2040, "
                "behind a serial port…"
            )
        )
    else:
        log(
            _(
                "Starting the simulated launcher: the real firmware in MicroPython, behind a "
                "serial port…"
            )
        )
    # the unix board seeds the pattern at every boot; both get the protocol's seed below
    board_seed = seed if board == "unix" else None
    with make_launcher(board, rp2_dir=rp2_dir, cards=0, seed=board_seed) as sim:
        client = open_launcher(sim.port, timeout=5.0)
        try:
            info = client.info or client.hello()
            client.seed(seed)
            client.config_set(dict(DEMO_CONFIG))
            log(
                _(
                    "Launcher on {port}: firmware {firmware}, protocol {protocol}, board "
                    "{board}; tuned for the demo: motor at full duty, no ramp, 300 ms jam timeout"
                ).format(
                    port=sim.port,
                    firmware=info.get("firmware"),
                    protocol=info.get("protocol"),
                    board=info.get("board"),
                )
            )
            log(
                _("{n} bots play UNO Attack to {target} points (seed {seed}): {names}").format(
                    n=players, target=game.target, seed=seed, names=", ".join(game.players)
                )
            )
            demo = Demo(client, sim, game, bots, log, magazine=magazine)
            demo.watch = watch
            return demo.play()
        finally:
            client.close()
