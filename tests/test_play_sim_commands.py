"""Issue 22: every simulator control from the table. With ``play --port sim`` the table
forwards ``sim jam``, ``sim unjam``, ``sim load N``, ``sim unplug``... to its simulated
launcher (the commands of ``unolaunch sim``); the launcher's faults then show as with a
real one (ATK-25). The launcher's own faults are tested in test_table_launcher_faults."""

from __future__ import annotations

from pathlib import Path

from table_pty import Player


def test_atk25_sim_commands_are_forwarded_to_the_simulated_launcher(tmp_path: Path) -> None:
    p = Player(
        tmp_path, "play", "--variant", "attack", "--players", "Ann,Bob,Cy", "--dealer", "Cy",
        "--port", "sim",
    )  # fmt: skip
    try:
        p.type("Cy> ", "r5")
        p.expect("90 cards inside")
        p.type("Ann> ", "sim load 40")
        p.expect("(simulated launcher: load 40)")
        p.expect("40 cards inside")
        p.type("Ann> ", "sim unplug")
        p.expect("(simulated launcher: unplug)")
        p.expect("the launcher is disconnected")
        p.type("Ann> ", "sim replug")
        p.expect("(simulated launcher: replug)")
        p.type("Ann> ", "sim fly")
        p.expect("unknown command 'fly'")
        p.type("Ann> ", "clear")
        p.type("Ann> ", "quit")
        p.expect("is saved")
    finally:
        p.close()
