"""Issue 24 part 3: `--calibrate-from-history` measures seconds per play, press and reload
from the journal of finished games: a journal of scripted games with known gaps gives
back those figures, with their sample counts; pauses, undone actions, deals and table-only
entries are left out; too few samples keep the defaults."""

from __future__ import annotations

import json
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from conftest import RunCli
from unolaunch.simulation import TimeModel
from unolaunch.simulation.calibrate import EMPTY_NOTICE, calibrate_from_history, is_empty_note
from unolaunch.table import journal as journal_module
from unolaunch.table.journal import Journal

PLAY_S, PRESS_S, RELOAD_S = 3.5, 1.8, 25.0
#: Offsets around the true figure: three of five exact, so the median is the figure.
WOBBLE = (0.0, -1.5, 0.0, 2.5, 0.0)
MOTOR = TimeModel()  # the firmware's defaults: ramp 80 ms, brake 50 ms, 115 ms a card


def motor_s(cards: int) -> float:
    return (
        0.0
        if cards == 0
        else (MOTOR.ramp_ms / 2 + MOTOR.brake_ms + cards * MOTOR.ms_per_card) / 1000
    )


class Clock:
    """The journal's clock, scripted: each entry is stamped ``advance()`` seconds later."""

    def __init__(self, whole_seconds: bool = False) -> None:
        self.t = datetime(2026, 5, 1, 18, 0, 0, tzinfo=UTC)
        self.whole = whole_seconds

    def advance(self, seconds: float) -> None:
        self.t += timedelta(seconds=seconds)

    def now(self) -> str:
        fmt = "%Y-%m-%d %H:%M:%S" if self.whole else "%Y-%m-%d %H:%M:%S.%f"
        return self.t.strftime(fmt)


class Table:
    """Writes scripted games into a real journal and counts the samples each should give."""

    def __init__(self, folder: Path, monkeypatch: pytest.MonkeyPatch, whole: bool = False):
        self.clock = Clock(whole)
        monkeypatch.setattr(journal_module, "_now", self.clock.now)
        self.journal = Journal.open(folder)
        self.want = {"play": 0, "press": 0, "reload": 0}
        self.pauses = {"play": 0, "press": 0, "reload": 0}
        self.n: dict[str, int] = {}

    def entry(self, gap: float, kind: str, data: dict[str, Any], finished: bool = False) -> None:
        self.clock.advance(gap)
        self.journal.append(self.gid, kind, data, finished=finished)

    def wobble(self, kind: str) -> float:
        self.n[kind] = self.n.get(kind, 0) + 1
        return WOBBLE[self.n[kind] % len(WOBBLE)]

    def game(self, variant: str = "attack", rounds: int = 3, finished: bool = True) -> None:
        self.gid = self.journal.new_game(variant, ["Ann", "Bob", "Cy"], {}, seed=1)
        self.entry(40, "action", {"by": "Ann", "choose": {"top": "r5"}})  # table-only
        for r in range(rounds):
            for i in range(12):
                if i == 0:  # after the start card or the deal: not counted
                    self.entry(PLAY_S, "action", {"by": "Ann", "play": "r7"})
                elif i == 5:  # a long pause: left out, counted as one
                    self.entry(400, "action", {"by": "Bob", "play": "r6"})
                    self.pauses["play"] += 1
                elif variant == "attack" and i == 7 and r == 0:
                    # ATK-22: the launcher reports itself empty; a reload, then the press
                    self.entry(1, "note", {"notice": EMPTY_NOTICE, "warning": "empty"})
                    off = (0.0, -4.0, 6.0)[self.want["reload"] % 3]
                    self.entry(RELOAD_S + off + PRESS_S + motor_s(2), "action",
                               {"by": "Ann", "press": True, "cards": 2})  # fmt: skip
                    self.want["reload"] += 1
                elif i == 9:  # a play taken back, and the one typed after the undo
                    self.entry(50, "action", {"by": "Ann", "play": "b2"})
                    self.entry(2, "undo", {"n": 1})
                    self.entry(9, "action", {"by": "Ann", "play": "b3"})
                elif i == 10:  # a correction is no game action, nor is the one after it
                    self.entry(PLAY_S, "action", {"by": "Bob", "correct": {"Bob": 4}})
                    self.entry(30, "action", {"by": "Bob", "play": "g1"})
                elif variant == "attack" and i % 3 == 1:
                    cards = (0, 1, 2, 0, 3)[self.want["press"] % 5]
                    gap = PRESS_S + self.wobble("press") * 0.4 + motor_s(cards)
                    self.entry(gap, "action", {"by": "Cy", "press": True, "cards": cards})
                    self.want["press"] += 1
                else:
                    self.entry(PLAY_S + self.wobble("play"), "action", {"by": "Bob", "play": "g2"})
                    self.want["play"] += 1
            # the round-end count (table-only), then the deal
            self.entry(60, "action", {"by": "Ann", "choose": {"points": {"Bob": 10}}})
            if r < rounds - 1:
                self.entry(20, "deal", {})
        self.entry(5, "note", {"notice": "the end"}, finished=finished)


def test_scripted_journal_gives_back_its_figures(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    table = Table(tmp_path, monkeypatch)
    for _ in range(3):
        table.game()
    want, pauses = dict(table.want), dict(table.pauses)
    table.game(finished=False)  # a game still being played: not read
    table.game("mario-kart")  # another variant: not read for attack
    table.journal.close()
    cal = calibrate_from_history(tmp_path, "attack", MOTOR)
    assert cal.games == 3
    assert cal.play.median == pytest.approx(PLAY_S, abs=1e-3)
    assert cal.press.median == pytest.approx(PRESS_S, abs=1e-3)
    assert cal.reload.median == pytest.approx(RELOAD_S, abs=1e-3)
    assert (cal.play.samples, cal.press.samples, cal.reload.samples) == (
        want["play"], want["press"], want["reload"],
    )  # fmt: skip
    assert want["play"] >= 20 and want["press"] >= 20 and want["reload"] == 3
    assert cal.play.pauses == pauses["play"] == 9
    assert all(f.usable for f in cal.figures)
    assert cal.seconds({"play": 4.0, "press": 2.0, "reload": 30.0}) == {
        "play": PLAY_S, "press": PRESS_S, "reload": RELOAD_S,
    }  # fmt: skip
    # every variant: the Mario Kart game's plays count too (it has no presses)
    every = calibrate_from_history(tmp_path, None, MOTOR)
    assert every.games == 4 and every.press.samples == want["press"]
    assert every.play.samples > want["play"]


def test_whole_second_stamps_as_the_journal_writes_them(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The journal stamps whole seconds: whole-second gaps come back exactly.
    here = sys.modules[__name__]
    monkeypatch.setattr(here, "PLAY_S", 4.0)
    monkeypatch.setattr(here, "WOBBLE", (0.0, -1.0, 0.0, 2.0, 0.0))
    table = Table(tmp_path, monkeypatch, whole=True)
    for _ in range(3):
        table.game("mario-kart")
    table.journal.close()
    cal = calibrate_from_history(tmp_path, "mario-kart")
    assert cal.play.median == 4.0 and cal.play.samples == table.want["play"]
    assert cal.press.samples == 0 and not cal.press.usable


def _cli_journal(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, games: int) -> Path:
    folder = tmp_path / "data"
    table = Table(folder, monkeypatch)
    for _ in range(games):
        table.game()
    table.journal.close()
    return folder


def test_simulate_uses_and_prints_the_measured_figures(
    run_cli: RunCli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = _cli_journal(tmp_path, monkeypatch, 3)
    args = ("simulate", "--variant", "attack", "--players", "3", "--games", "6", "--seed", "2",
            "--workers", "1", "--calibrate-from-history", "--data-dir", folder)  # fmt: skip
    proc = run_cli(*args, "--json")
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    tm = out["time_model"]
    assert (tm["seconds_per_play"], tm["seconds_per_press"], tm["seconds_per_reload"]) == (
        PLAY_S, PRESS_S, RELOAD_S,
    )  # fmt: skip
    cal = out["calibration"]
    assert cal["games"] == 3 and cal["variant"] == "attack"
    assert cal["press"]["used"] and cal["press"]["seconds"] == PRESS_S
    assert cal["reload"]["samples"] == 3 and cal["play"]["pauses_left_out"] == 9
    # the same games with the stated figures given by hand: the same minutes per round
    by_hand = run_cli("simulate", "--variant", "attack", "--players", "3", "--games", "6",
                      "--seed", "2", "--workers", "1", "--seconds-per-play", str(PLAY_S),
                      "--seconds-per-press", str(PRESS_S), "--seconds-per-reload",
                      str(RELOAD_S), "--json")  # fmt: skip
    assert json.loads(by_hand.stdout)["per_round"] == out["per_round"]
    text = run_cli(*args)
    assert text.returncode == 0, text.stderr
    assert "calibrated from 3 finished attack games" in text.stdout
    assert f"{PRESS_S:.2f} s, median of {cal['press']['samples']} samples" in text.stdout
    assert "time model: 3.5 s a play, 1.8 s a press" in text.stdout
    # a figure given on the command line wins over the measured one
    given = run_cli(*args, "--seconds-per-press", "9", "--json")
    assert json.loads(given.stdout)["time_model"]["seconds_per_press"] == 9


def test_too_few_samples_say_so_and_keep_the_defaults(
    run_cli: RunCli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = _cli_journal(tmp_path, monkeypatch, 1)  # one game: 1 reload, < 20 presses
    proc = run_cli("simulate", "--variant", "attack", "--games", "2", "--workers", "1",
                   "--calibrate-from-history", "--data-dir", folder)  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert "a reload (ATK-22): 25.00 s, median of 1 sample; too few samples (at least 3): " \
        "keeping 30 s" in proc.stdout  # fmt: skip
    assert "too few samples (at least 20): keeping 2 s" in proc.stdout  # 8 presses
    assert "time model: 4 s a play, 2 s a press" in proc.stdout
    empty = run_cli("simulate", "--variant", "attack", "--games", "2", "--workers", "1",
                    "--calibrate-from-history", "--data-dir", tmp_path / "none",
                    "--json")  # fmt: skip
    assert empty.returncode == 0, empty.stderr
    out = json.loads(empty.stdout)
    assert out["calibration"]["games"] == 0 and not out["calibration"]["play"]["used"]
    assert out["time_model"]["seconds_per_play"] == 4.0
    assert out["time_model"]["seconds_per_reload"] == 30.0


def test_tune_calibrates_too(
    run_cli: RunCli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = _cli_journal(tmp_path, monkeypatch, 3)
    proc = run_cli("tune", "--players", "3", "--games", "10", "--fire-rate", "0.5",
                   "--workers", "1", "--calibrate-from-history", "--data-dir", folder,
                   "--json")  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert out["time_model"]["seconds_per_play"] == PLAY_S
    assert out["calibration"]["reload"]["seconds"] == RELOAD_S


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--variant", "mario-kart", "--calibrate-from-history"], "use --variant attack"),
        (["--variant", "attack", "--calibrate-from-history", "uno"], "invalid choice"),
        (["--variant", "attack", "--calibrate-pause", "0"], "--calibrate-pause"),
    ],
)
def test_bad_calibration_arguments_exit_2(run_cli: RunCli, args: list[str], message: str) -> None:
    proc = run_cli("simulate", *args)
    assert proc.returncode == 2 and message in proc.stderr


def test_the_table_journals_an_empty_launcher_as_the_note_calibration_reads(
    tmp_path: Path,
) -> None:
    # ATK-22 at a real table: the launcher reports a cardless burst with a clear beam and
    # the table counts nothing inside; the table's front end keeps the warning as a note.
    import io

    from rich.console import Console
    from test_table_launcher_faults import FakeLink, burst
    from unolaunch.table.app import Table as TableApp
    from unolaunch.table.launcher import LinkedLauncher
    from unolaunch.table.session import Session

    with Journal.open(tmp_path) as journal:
        session = Session.start(journal, "attack", ["Ann", "Bob", "Cy"], {}, seed=1, dealer="Cy")
        session.apply({"by": "Cy", "choose": {"top": "r5"}})
        app = TableApp(session, console=Console(file=io.StringIO()))
        launcher = LinkedLauncher(FakeLink(), session, app.remember)
        launcher.sync()
        stock = int(session.snapshot()["stock_size"])
        session.apply({"by": "Ann", "correct": {"Ann": 7 + stock}})  # every card is out
        launcher.handle(burst("Bob", 1, 0, 0, wanted=1))
        launcher.handle({"event": "fault", "code": "jam", "message": "...", "n": 1,
                         "player": "Bob", "beam": "clear"})  # fmt: skip
        notes = [e.data for e in journal.entries(session.id) if e.kind == "note"]
    assert any(is_empty_note(n) for n in notes), notes
