"""The emulated RP2040 board's parts: the binaries it is told about, the flash image, the
pinned emulator, and `unolaunch sim --board rp2040` as a user runs it."""

from __future__ import annotations

import os
import struct
import subprocess
import sys
import time
import tomllib
from pathlib import Path

import pytest
from board_harness import require_board
from conftest import REPO, RunCli, cli_env
from unolaunch.rp2image import (
    FLASH_SIZE,
    FS_OFFSET,
    FlashImageError,
    build_image,
    read_files,
    uf2_payload,
    write_files,
)
from unolaunch.sim import SimError
from unolaunch.sim.rp2040 import RP2040JS_VERSION, find_rp2_files


def _uf2(blocks: list[tuple[int, bytes]], family: int = 0xE48BFF56) -> bytes:
    out = b""
    for i, (addr, data) in enumerate(blocks):
        head = struct.pack(
            "<8I", 0x0A324655, 0x9E5D5157, 0x2000, addr, len(data), i, len(blocks), family
        )
        out += head + data.ljust(476, b"\0") + struct.pack("<I", 0x0AB16F30)
    return out


def test_the_emulator_pin_is_the_one_in_pyproject() -> None:
    data = tomllib.loads((REPO / "pyproject.toml").read_text())
    assert data["tool"]["unolaunch"]["rp2040js"] == f"rp2040js@{RP2040JS_VERSION}"


def test_missing_rp2_files_say_what_is_needed_and_where_from(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("UNOLAUNCH_RP2_DIR", raising=False)
    with pytest.raises(SimError, match=r"--rp2-dir DIR or UNOLAUNCH_RP2_DIR.*uf2.*bootrom"):
        find_rp2_files()
    with pytest.raises(SimError, match=r"no MicroPython \.uf2 in .*micropython\.org"):
        find_rp2_files(tmp_path)
    (tmp_path / "RPI_PICO-v1.28.0.uf2").write_bytes(_uf2([(0x10000000, b"x" * 256)]))
    with pytest.raises(SimError, match=r"no RP2040 boot ROM .*rp2040-bootrom-b1\.bin"):
        find_rp2_files(tmp_path)
    (tmp_path / "rp2040-bootrom-b1.bin").write_bytes(b"\0" * 100)
    with pytest.raises(SimError, match="not a 16384-byte RP2040 boot ROM"):
        find_rp2_files(tmp_path)
    (tmp_path / "rp2040-bootrom-b1.bin").write_bytes(b"\0" * 16384)
    files = find_rp2_files(tmp_path)
    assert files.uf2.name == "RPI_PICO-v1.28.0.uf2"


def test_a_uf2_for_another_chip_or_not_a_uf2_is_refused() -> None:
    with pytest.raises(FlashImageError, match="another chip"):
        uf2_payload(_uf2([(0x10000000, b"x")], family=0xE48BFF59))
    with pytest.raises(FlashImageError, match="not a UF2"):
        uf2_payload(b"\0" * 1024)
    with pytest.raises(FlashImageError, match="filesystem"):
        uf2_payload(_uf2([(0x10000000 + FS_OFFSET, b"x" * 256)]))


def test_flash_image_holds_the_uf2_and_a_littlefs_with_the_files() -> None:
    image = build_image(
        _uf2([(0x10000000, b"\x11" * 256), (0x10000100, b"\x22" * 256)]),
        {"main.py": b"print(1)\n", "launcher/app.mpy": b"M\x06"},
    )
    assert len(image) == FLASH_SIZE
    assert image[:256] == b"\x11" * 256 and image[256:512] == b"\x22" * 256
    assert image[512:FS_OFFSET] == b"\xff" * (FS_OFFSET - 512)
    assert read_files(image) == {"main.py": b"print(1)\n", "launcher/app.mpy": b"M\x06"}
    write_files(image, {"launcher.json": b"{}"})
    assert set(read_files(image)) == {"main.py", "launcher/app.mpy", "launcher.json"}
    with pytest.raises(FlashImageError, match="no MicroPython filesystem"):
        read_files(bytearray(b"\xff" * FLASH_SIZE))


def test_sim_board_rp2040_without_its_files_is_one_clear_line(
    run_cli: RunCli, tmp_path: Path
) -> None:
    env = {"UNOLAUNCH_RP2_DIR": str(tmp_path)}
    out = run_cli("sim", "--board", "rp2040", input="", env=env, timeout=60)
    assert out.returncode == 1
    assert out.stderr.count("\n") == 1 and out.stderr.startswith("unolaunch: no MicroPython")


def test_seed_on_the_rp2040_board_says_to_use_the_protocol(run_cli: RunCli) -> None:
    out = run_cli("sim", "--board", "rp2040", "--seed", "5", input="", timeout=60)
    assert out.returncode == 1 and "seed command" in out.stderr


@pytest.mark.rp2040
def test_sim_board_rp2040_is_a_launcher_mpremote_opens(tmp_path: Path) -> None:
    require_board("rp2040")
    proc = subprocess.Popen(
        [sys.executable, "-m", "unolaunch", "sim", "--board", "rp2040", "-v"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=cli_env({"UNOLAUNCH_CACHE_DIR": os.environ["UNOLAUNCH_CACHE_DIR"]}),
    )
    try:
        assert proc.stdout is not None and proc.stdin is not None
        device = proc.stdout.readline().strip()
        assert device.startswith("/dev/pts/")
        deadline = time.monotonic() + 60
        while True:
            out = subprocess.run(
                [sys.executable, "-m", "mpremote", "connect", device, "exec", "print(6*7)"],
                capture_output=True,
                text=True,
                timeout=60,
            )
            if out.returncode == 0 or time.monotonic() > deadline:
                break
            time.sleep(1)
        assert "42" in out.stdout, out.stderr
        proc.stdin.write("stall\nunstall\npress\nquit\n")
        proc.stdin.flush()
        _, err = proc.communicate(timeout=60)
        assert proc.returncode == 0
        assert "board boots (power on)" in err and "simulator stopped" in err
        assert "unknown command" not in err
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


@pytest.mark.parametrize("board", ["unix", "rp2040"])
def test_sim_flash_dir_that_is_a_file_is_one_clear_line(
    run_cli: RunCli, tmp_path: Path, board: str
) -> None:
    afile = tmp_path / "flash"
    afile.write_text("not a folder")
    out = run_cli("sim", "--board", board, "--flash-dir", str(afile), input="", timeout=60)
    assert out.returncode == 1
    want = f"unolaunch: --flash-dir {afile} is a file, not a folder: choose a folder\n"
    assert out.stderr == want
