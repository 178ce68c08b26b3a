"""Issue 24 part 2: `simulate --scheduler` and `tune --scheduler` play on a Dask cluster
(the dask extra) with the same JSON as `--workers 1` for the same seed; a scheduler that
does not answer, a bad address or a missing Dask is one clear line."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
from typing import Any

import pytest
from conftest import RunCli, cli_env
from unolaunch.errors import UnolaunchError
from unolaunch.simulation import DaskRunner, open_runner, simulate

TIMING_KEYS = {
    "seconds", "cpu_seconds", "games_per_second", "actions_per_second", "actions_per_cpu_second",
    "workers",
}  # fmt: skip


def _figures(out: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in out.items() if k not in TIMING_KEYS}


@pytest.mark.parametrize(
    ("variant", "players", "bot"),
    [("attack", "3", "heuristic,random"), ("pocket-pizza", "4", "heuristic")],
)
def test_local_cluster_of_two_gives_the_json_of_one_worker(
    run_cli: RunCli, variant: str, players: str, bot: str
) -> None:
    table = ("simulate", "--variant", variant, "--players", players, "--bot", bot,
             "--games", "30", "--seed", "11", "--json")  # fmt: skip
    dask = run_cli(*table, "--scheduler", "local", "--workers", "2")
    assert dask.returncode == 0, dask.stderr
    assert dask.stderr == ""  # Dask's own log lines stay out
    one = run_cli(*table, "--workers", "1")
    assert one.returncode == 0, one.stderr
    a, b = json.loads(dask.stdout), json.loads(one.stdout)
    assert a["workers"] == 2 and b["workers"] == 1  # the two workers of the cluster played
    assert a["games"] == 30 and a["actions"] > 0
    assert _figures(a) == _figures(b)


def test_tune_on_a_local_cluster_finds_what_one_worker_finds(run_cli: RunCli) -> None:
    table = ("tune", "--players", "3", "--bot", "heuristic", "--seed", "5", "--games", "20",
             "--turns-per-round", "36", "--json")  # fmt: skip
    dask = run_cli(*table, "--scheduler", "local", "--workers", "2")
    assert dask.returncode == 0, dask.stderr
    one = run_cli(*table, "--workers", "1")
    assert one.returncode == 0, one.stderr
    a, b = json.loads(dask.stdout), json.loads(one.stdout)
    assert a == b and len(a["trials"]) >= 2


def test_library_runner_on_a_local_cluster_and_a_game_that_never_ends() -> None:
    want = simulate("mario-kart", 2, 12, 4, ["random"]).to_json()
    with open_runner(2, "local") as runner:
        assert isinstance(runner, DaskRunner) and runner.workers == 2
        got = simulate("mario-kart", 2, 12, 4, ["random"], runner=runner).to_json()
        assert _figures(got) == _figures(want)
        # A game's own error comes back from the worker as it is (not "a worker failed").
        with pytest.raises(UnolaunchError, match="did not end within 20 actions"):
            simulate("attack", 4, 4, 1, ["random"], max_actions=20, runner=runner)


def _dead_address() -> str:
    with socket.socket() as s:  # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    return f"tcp://127.0.0.1:{port}"


@pytest.mark.parametrize("command", ["simulate", "tune"])
def test_a_scheduler_that_does_not_answer_is_one_clear_line(run_cli: RunCli, command: str) -> None:
    address = _dead_address()
    target = ("--fire-rate", "0.5") if command == "tune" else ()
    # Dask itself would retry for 30 s; the guard below is far above the 5 s we wait.
    proc = run_cli(command, *target, "--scheduler", address, timeout=25)
    assert proc.returncode == 1
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, proc.stderr
    assert lines[0].startswith(f"unolaunch: --scheduler {address}: no Dask scheduler answers")
    assert "within 5 s" in lines[0] and "dask scheduler" in lines[0]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--scheduler", "nowhere"], "give the address 'dask scheduler' prints"),
        (["--scheduler", "tcp://host:99999"], "give the address"),
        (["--scheduler", "tcp://10.0.0.1:8786", "--workers", "2"], "leave out --workers"),
    ],
)
def test_bad_scheduler_arguments_exit_2(run_cli: RunCli, args: list[str], message: str) -> None:
    proc = run_cli("simulate", *args)
    assert proc.returncode == 2
    assert message in proc.stderr and len(proc.stderr.strip().splitlines()) == 1


def test_without_dask_the_scheduler_says_what_to_install() -> None:
    # The core install: Dask cannot be imported (None in sys.modules makes import fail).
    code = (
        "import sys\n"
        "sys.modules['dask'] = sys.modules['dask.distributed'] = None\n"
        "from unolaunch.cli import main\n"
        "raise SystemExit(main(sys.argv[1:]))\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code, "simulate", "--scheduler", "local", "--games", "2"],
        capture_output=True, text=True, timeout=60, env=cli_env(),
    )  # fmt: skip
    assert proc.returncode == 1
    assert proc.stderr == (
        "unolaunch: --scheduler needs Dask: pip install 'unolaunch[dask]' "
        "(or pip install 'dask[distributed]')\n"
    )


def test_progress_bar_on_a_terminal() -> None:
    import pexpect

    child = pexpect.spawn(
        sys.executable,
        ["-m", "unolaunch", "simulate", "--variant", "mario-kart", "--games", "60",
         "--scheduler", "local", "--workers", "2"],
        encoding="utf-8", timeout=120, dimensions=(24, 120), env=cli_env(),
    )  # fmt: skip
    child.expect(pexpect.EOF)
    child.close()
    out = child.before
    assert child.exitstatus == 0, out
    assert "mario-kart: playing" in out and "100%" in out  # the bar, to its end
    assert "60 games" in out and "on 2 workers" in out  # then the report


def test_the_docs_recipe_a_scheduler_and_workers_then_one_command(run_cli: RunCli) -> None:
    # docs/rules-engine.md: 'dask scheduler' on one machine, 'dask worker ADDRESS' on each,
    # then simulate --scheduler ADDRESS. Here all on this machine, as separate processes.
    import time

    address = _dead_address()
    port = address.rsplit(":", 1)[1]
    env = cli_env()
    started = []
    try:
        started.append(subprocess.Popen(
            [sys.executable, "-m", "distributed.cli.dask_scheduler", "--host", "127.0.0.1",
             "--port", port, "--no-dashboard"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env,
        ))  # fmt: skip
        started.append(subprocess.Popen(
            [sys.executable, "-m", "distributed.cli.dask_worker", address, "--nworkers", "2",
             "--nthreads", "1", "--no-dashboard"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env,
        ))  # fmt: skip
        table = ("simulate", "--variant", "attack", "--players", "4", "--bot", "heuristic",
                 "--games", "24", "--seed", "3", "--json")  # fmt: skip
        deadline = time.monotonic() + 90
        while True:  # until both workers have joined
            assert started[0].poll() is None, "the scheduler did not start"
            proc = run_cli(*table, "--scheduler", address)
            if proc.returncode == 0 and json.loads(proc.stdout)["workers"] == 2:
                break
            if time.monotonic() > deadline:
                break
            time.sleep(1)
        assert proc.returncode == 0, proc.stderr
        a = json.loads(proc.stdout)
        assert a["workers"] == 2
        one = run_cli(*table, "--workers", "1")
        assert _figures(a) == _figures(json.loads(one.stdout))
    finally:
        for p in reversed(started):
            p.terminate()
        for p in started:
            try:
                p.wait(timeout=20)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()


def _children(pid: int) -> list[int]:
    """The processes ``pid`` started (each of its threads keeps its own list)."""
    from pathlib import Path

    found = []
    for task in Path(f"/proc/{pid}/task").glob("*"):
        try:
            found += [int(c) for c in (task / "children").read_text().split()]
        except OSError:
            continue  # a thread that ended meanwhile
    return found


@pytest.mark.parametrize("when", ["cluster starting", "playing"])
def test_ctrl_c_stops_the_cluster_without_a_traceback(when: str) -> None:
    """Ctrl-C (SIGINT to the whole process group, as a terminal sends it) ends a local
    cluster's simulation with one line, whenever it comes. Typed while the cluster was
    starting (its first worker process just begun), it was dropped: the parent ignored
    SIGINT so that its workers would, and multiprocessing's resource tracker had undone
    the block that was to keep it (issue 31: the 'playing' case hung under load, its Ctrl-C
    having come before the cluster was up)."""
    import os
    import signal
    import time

    proc = subprocess.Popen(
        [sys.executable, "-m", "unolaunch", "simulate", "--variant", "attack", "--players", "4",
         "--bot", "heuristic", "--games", "100000", "--scheduler", "local", "--workers", "2"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=cli_env(),
        start_new_session=True,
    )  # fmt: skip
    try:
        deadline = time.monotonic() + 120
        if when == "cluster starting":
            while not _children(proc.pid):  # the first process of the cluster's start
                assert proc.poll() is None and time.monotonic() < deadline
                time.sleep(0.01)
        else:
            # the workers are up and playing: they use the CPU (3 processes at least: the
            # resource tracker and two workers)
            while len(_children(proc.pid)) < 3:
                assert proc.poll() is None and time.monotonic() < deadline
                time.sleep(0.05)
            time.sleep(2)
        os.killpg(proc.pid, signal.SIGINT)  # as a terminal's Ctrl-C: the whole process group
        _, err = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:  # never left playing
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    assert proc.returncode == 130
    assert err == "unolaunch: interrupted\n"  # nothing from Dask's workers either
