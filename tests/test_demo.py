"""`unolaunch demo`: bots play a whole UNO Attack game through the simulated launcher."""

from __future__ import annotations

import re

from conftest import RunCli
from unolaunch.table.demo import run_demo


def test_demo_plays_a_whole_game_through_the_simulated_launcher(run_cli: RunCli) -> None:
    proc = run_cli("demo", "--seed", "3", "--target", "150", timeout=300)
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    assert "board unix-sim" in out  # the real firmware answered hello over the pty
    assert "Round 1 —" in out
    presses = re.findall(r"presses the launcher → (no card|\d+ cards?) out \((\d+) left", out)
    assert len(presses) > 5
    launched = sum(0 if n == "no card" else int(n.split()[0]) for n, _ in presses)
    summary = re.search(r"(\w+) wins the game after \d+ rounds?: (\d+) presses .*?(\d+) cards", out)
    assert summary is not None, out[-2000:]
    assert int(summary.group(2)) == len(presses)
    assert int(summary.group(3)) == launched
    assert "Final scores:" in out
    # Every card came out of the simulated magazine: its count falls by each press's cards
    # (the firmware's sensor counts them), and only a reload (ATK-22, a new round) refills it.
    magazine = None
    reloads = presses_seen = 0
    for line in out.splitlines():
        loaded = re.search(r"(\d+) cards loaded into the launcher", line)
        pressed = re.search(r"→ (no card|\d+ cards?) out \((\d+) left inside", line)
        if loaded:
            reloads += 1
            magazine = int(loaded.group(1))
        elif pressed:
            presses_seen += 1
            n = 0 if pressed.group(1) == "no card" else int(pressed.group(1).split()[0])
            assert magazine is not None and int(pressed.group(2)) == magazine - n, line
            magazine -= n
    assert reloads >= 1 and presses_seen == len(presses), (reloads, presses_seen)
    winner = summary.group(1)
    final = dict(re.findall(r"^  (\w+)\s+(\d+)$", out, re.M))
    assert int(final[winner]) >= 150 and max(final.values(), key=int) == final[winner]
    # The same seed replays the same game (in-process this time).
    lines: list[str] = []
    result = run_demo(3, 3, 150, lines.append)
    assert result.winner == winner and result.presses == len(presses)
    log_part = out.split("\n\n", 1)[0]  # the running log, before the summary
    same = [ln for ln in log_part.splitlines() if ln.startswith("  ")]
    assert [ln for ln in lines if ln.startswith("  ")] == same


def test_demo_usage_errors(run_cli: RunCli) -> None:
    proc = run_cli("demo", "--players", "1")
    assert proc.returncode == 2 and "2 to 10" in proc.stderr
    proc = run_cli("demo", "--target", "0")
    assert proc.returncode == 2 and "at least 1" in proc.stderr
