"""Issue 35: from a blank Pico to a launcher with one file. ``unolaunch uf2`` writes one
``.uf2`` (MicroPython's image and a littlefs filesystem with the firmware and
``launcher.json``); ``unolaunch flash --uf2`` copies it onto a Pico in BOOTSEL mode and
waits for the launcher.

The emulated RP2040 is the Pico: it boots from a blank flash and only that ``.uf2``, written
as its boot ROM writes it (``sim/rp2040/bootrom.py``); a folder with the ROM's
``INFO_UF2.TXT`` is its drive (``tests/bootsel_pico.py``).
"""

from __future__ import annotations

import errno
import json
import os
import re
import struct
import time
from pathlib import Path
from typing import Any

import pytest
from board_harness import require_board
from bootsel_pico import BootselPico, make_drive
from conftest import RunCli
from unolaunch.errors import UsageError
from unolaunch.flash import (
    BootselDrive,
    FlashError,
    build_files,
    build_uf2,
    choose_drive,
    copy_to_drive,
    firmware_version,
    hello,
)
from unolaunch.flash import bootsel as bootsel_mod
from unolaunch.flash.uf2 import find_micropython
from unolaunch.rp2image import (
    FAMILY_RP2040,
    FLASH_SIZE,
    FS_OFFSET,
    RPI_PICO,
    FlashImageError,
    binary_info,
    build_image,
    image_uf2,
    read_files,
    read_micropython,
    uf2_blocks,
    uf2_payload,
    uf2_sectors,
    write_files,
)
from unolaunch.sim.rp2040.bootrom import copy_uf2

XIP = 0x10000000
# A launcher.json the defaults do not give: every press fires 2 cards (a press under arm
# must fire), and a beep that says it is this file.
CONFIG = {"fire_chance_pct": 100, "burst_weights": [0, 1], "beep_hz": 3100}


def micropython_uf2() -> Path:
    """MicroPython v1.28.0's RPI_PICO .uf2 from UNOLAUNCH_RP2_DIR (skipped without it, failed
    under CI=true, as the rp2040 tier)."""
    try:
        return find_micropython()
    except FlashError as exc:
        if os.environ.get("CI") == "true":
            pytest.fail(f"MicroPython's .uf2 is needed in CI: {exc}", pytrace=False)
        pytest.skip(f"no MicroPython .uf2: {exc}")


def config_file(tmp_path: Path, config: dict[str, Any] = CONFIG) -> Path:
    path = tmp_path / "launcher.json"
    path.write_text(json.dumps(config))
    return path


# --- a fake MicroPython image, for the checks of what an image says of itself -----------------


def fake_micropython(
    board: str = "pico",
    storage: tuple[int, int] = (RPI_PICO.fs_offset, RPI_PICO.fs_size),
    version: str = "v1.28.0",
    family: int = FAMILY_RP2040,
    program: str = "MicroPython",
) -> bytes:
    """A ``.uf2`` whose program declares itself as pico-sdk's binary info does (boot2, the
    header in the program's first 256 bytes, entries pointing at strings)."""
    code = bytearray(8192)
    strings = 0x1800
    entries: list[int] = []

    def put_string(text: str) -> int:
        nonlocal strings
        at = strings
        code[at : at + len(text) + 1] = text.encode() + b"\0"
        strings += len(text) + 1 + (-(len(text) + 1) % 4)
        return XIP + at

    def id_and_string(ident: int, text: str) -> None:
        at = 0x1200 + len(entries) * 32
        struct.pack_into("<HHII", code, at, 6, 0x5052, ident, put_string(text))
        entries.append(XIP + at)

    id_and_string(0x02031C86, program)
    id_and_string(0x11A9BC3A, version)
    id_and_string(0xB63CFFBB, board)
    at = 0x1200 + len(entries) * 32
    struct.pack_into(
        "<HHIIIIH", code, at, 7, 0x504D, put_string("MicroPython"), XIP + storage[0],
        storage[1], 0, 3,
    )  # fmt: skip
    entries.append(XIP + at)
    for i, ptr in enumerate(entries):
        struct.pack_into("<I", code, 0x1000 + 4 * i, ptr)
    struct.pack_into(
        "<5I", code, 0x1D4, 0x7188EBF2, XIP + 0x1000, XIP + 0x1000 + 4 * len(entries), 0,
        0xE71AA390,
    )  # fmt: skip
    return image_uf2(code + bytearray(b"\xff" * (4096 - len(code) % 4096)), [0, 1], _family(family))


def _family(family: int) -> Any:
    from dataclasses import replace

    return replace(RPI_PICO, family=family)


def test_a_fake_image_reads_as_the_real_one_does() -> None:
    info = binary_info(bytearray(b"".join(p for _, p in uf2_payload(fake_micropython()))))
    assert info == {
        "program": "MicroPython", "version": "v1.28.0", "pico_board": "pico",
        "storage": (0xA0000, 1408 * 1024),
    }  # fmt: skip
    assert read_micropython(fake_micropython()).layout is RPI_PICO


# --- the layout and the file ------------------------------------------------------------------


def test_the_rpi_pico_layout_is_what_micropython_declares() -> None:
    """MicroPython v1.28.0's ports/rp2/boards/RPI_PICO/mpconfigboard.h: 1408 KiB of storage at
    the top of the Pico's 2 MiB (rp2_flash.c); the image's binary info says the same."""
    assert (RPI_PICO.flash_size - RPI_PICO.fs_size, RPI_PICO.fs_size) == (0xA0000, 0x160000)
    path = micropython_uf2()
    mp = read_micropython(path.read_bytes(), str(path))
    assert mp.layout is RPI_PICO and mp.version == "v1.28.0"
    code = bytearray(b"\xff" * FS_OFFSET)
    for offset, payload in mp.blocks:
        code[offset : offset + len(payload)] = payload
    info = binary_info(code)
    assert info["pico_board"] == "pico" and info["storage"] == (0xA0000, 1408 * 1024)


def test_the_uf2_holds_micropython_and_the_firmware_as_flash_writes_them(tmp_path: Path) -> None:
    mp = micropython_uf2()
    uf2 = build_uf2(mp, config_file=config_file(tmp_path))
    flash = bytearray(b"\xff" * FLASH_SIZE)
    assert copy_uf2(flash, uf2.data)  # every block arrived: the ROM restarts the chip
    for offset, payload in uf2_payload(mp.read_bytes()):
        assert flash[offset : offset + len(payload)] == payload
    files = read_files(flash)
    want = {f.path: f.data for f in build_files(compile=True, mpy_version=6)}
    assert {k: v for k, v in files.items() if k != "launcher.json"} == want  # flash's own
    assert json.loads(files["launcher.json"]) == {**json.loads(_defaults()), **CONFIG}
    assert uf2.default_name == f"unolaunch-{firmware_version()}-rpi_pico.uf2"
    blocks = [struct.unpack_from("<8I", uf2.data, i) for i in range(0, len(uf2.data), 512)]
    # what the RP2040's boot ROM takes: its family, 256 bytes a block, in address order,
    # numbered 0..n-1, each run of 16 block numbers one whole 4 KiB sector
    assert {(b[2], b[4], b[6], b[7]) for b in blocks} == {(0x2000, 256, len(blocks), FAMILY_RP2040)}
    assert [b[5] for b in blocks] == list(range(len(blocks)))
    addresses = [b[3] for b in blocks]
    assert addresses == sorted(addresses) and len(set(addresses)) == len(addresses)
    for run in range(0, len(blocks), 16):
        assert addresses[run] % 4096 == 0
        assert addresses[run : run + 16] == list(range(addresses[run], addresses[run] + 4096, 256))
    assert len(uf2.data) < 1024 * 1024  # not the whole 4 MiB of a full flash


def _defaults() -> str:
    from unolaunch.flash import load_config_file

    return load_config_file(None).decode()


def test_the_same_inputs_give_the_same_bytes(run_cli: RunCli, tmp_path: Path) -> None:
    mp = micropython_uf2()
    cfg = config_file(tmp_path)
    first = build_uf2(mp, config_file=cfg).data
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    out = run_cli("uf2", "--micropython", mp, "--config", cfg, cwd=tmp_path / "a")
    assert out.returncode == 0, out.stderr
    name = f"unolaunch-{firmware_version()}-rpi_pico.uf2"
    assert f"wrote {name} ({len(first):,} bytes): MicroPython v1.28.0" in out.stdout
    assert "replaces everything on the Pico's flash" in out.stdout
    time.sleep(1.1)  # a second later: any time stamp in the file would differ
    out = run_cli("uf2", "--micropython", mp, "--config", cfg, "--output", tmp_path / "b")
    assert out.returncode == 0, out.stderr
    assert (tmp_path / "a" / name).read_bytes() == (tmp_path / "b" / name).read_bytes() == first
    assert sorted(p.name for p in (tmp_path / "a").iterdir()) == [name]  # no leftovers
    # a different config is a different file
    assert build_uf2(mp, config_file=config_file(tmp_path, {"beep_hz": 3000})).data != first


def test_the_uf2_replaces_a_used_picos_filesystem() -> None:
    """A Pico that held an older launcher, the owner's files and a config rewritten many
    times (its metadata at a high revision): after the .uf2 only the new files are there."""
    mp = micropython_uf2()
    old_files = {"main.py": b"print('old')\n", "notes.txt": b"mine\n", "launcher/x.mpy": b"M"}
    flash = build_image(mp.read_bytes(), old_files)
    for i in range(300):
        write_files(flash, {"launcher.json": b'{"beep_hz": %d}' % (2000 + i)})
    uf2 = build_uf2(mp)
    assert copy_uf2(flash, uf2.data)
    assert read_files(flash) == {f.path: f.data for f in uf2.files}


def test_the_uf2_writes_every_block_littlefs_reads() -> None:
    """Both halves of each metadata pair, even an erased one (an old filesystem's block
    left there could be read as a newer revision), and nothing else of the filesystem."""
    mp = micropython_uf2()
    files = {f.path: f.data for f in build_files(compile=True, mpy_version=6)}
    image = build_image(mp.read_bytes(), files)
    sectors = set(uf2_sectors(image, 0))
    first = FS_OFFSET // 4096
    used = {
        s
        for s in range(first, FLASH_SIZE // 4096)
        if image[s * 4096 : (s + 1) * 4096] != b"\xff" * 4096
    }
    assert {first, first + 1} <= sectors and used <= sectors
    assert len(sectors) <= len(used) + 4  # not the rest of the 352 (a blank pair half or two)
    # an image whose second superblock copy is erased still gets it written
    image[(first + 1) * 4096 : (first + 2) * 4096] = b"\xff" * 4096
    assert first + 1 in uf2_sectors(image, 0)


def test_the_boot_rom_model_needs_every_block_and_erases_each_sector_once() -> None:
    image = bytearray(b"\x00" * FLASH_SIZE)  # a flash full of old data
    source = bytearray(b"\xff" * FLASH_SIZE)
    source[0x2000:0x2100] = b"\x5a" * 256
    uf2 = image_uf2(source, [2, 5])
    assert not copy_uf2(image, uf2[: 512 * 31])  # one block short: the Pico waits
    assert copy_uf2(image, uf2[512 * 31 :] + uf2[: 512 * 31])  # any order, once each
    assert image[0x2000:0x2100] == b"\x5a" * 256
    assert image[0x2100:0x3000] == b"\xff" * 0xF00  # erased, then programmed with 0xff
    assert image[0x3000:0x5000] == b"\x00" * 0x2000  # not in the file: untouched
    # a block of another chip or another size is ignored, as the ROM does
    other = bytearray(uf2)
    struct.pack_into("<I", other, 28, 0xE48BFF59)
    assert not copy_uf2(bytearray(FLASH_SIZE), bytes(other[:512]) * 32)


# --- bad inputs: one line each, nothing written -------------------------------------------------


def test_a_uf2_for_another_chip_a_cut_one_or_another_board_is_refused(
    run_cli: RunCli, tmp_path: Path
) -> None:
    mp = micropython_uf2()
    data = mp.read_bytes()
    cases = {
        "pico2.uf2": (fake_micropython(family=0xE48BFF59), r"is for another chip \(RP2350 \(Arm\)"),
        "cut.uf2": (data[: 512 * 100], r"is cut short: it holds 100 of the 1327 blocks"),
        "torn.uf2": (data[:1000], r"not a UF2 image \(its size, 1000 bytes"),
        "picow.uf2": (fake_micropython(board="pico_w", storage=(0x12C000, 848 * 1024)),
                      r"is MicroPython for a Pico W \(RPI_PICO_W\), whose flash is laid out"),
        "moved.uf2": (fake_micropython(storage=(0x100000, 1024 * 1024)),
                      r"with its filesystem at 0x100000 \(1024 KiB\), not at 0xa0000"),
        "old.uf2": (fake_micropython(version="v1.18"),
                    r"MicroPython v1\.18; .* needs MicroPython 1\.19"),
        "cpython.uf2": (fake_micropython(program="blink"), r"is not MicroPython \(.*names blink\)"),
    }  # fmt: skip
    for name, (content, message) in cases.items():
        given = tmp_path / name
        given.write_bytes(content)
        out = run_cli("uf2", "--micropython", given, "--output", tmp_path / "out.uf2")
        assert out.returncode == 1, (name, out.stdout)
        assert out.stderr.count("\n") == 1 and out.stderr.startswith("unolaunch: "), out.stderr
        assert re.search(message, out.stderr), (name, out.stderr)
        assert "micropython.org/download" in out.stderr or "unolaunch flash" in out.stderr
        assert not (tmp_path / "out.uf2").exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(cases)  # nothing else written


def test_without_micropython_it_says_where_to_get_which_file(
    run_cli: RunCli, tmp_path: Path
) -> None:
    env = {"UNOLAUNCH_RP2_DIR": ""}
    out = run_cli("uf2", env=env, cwd=tmp_path)
    assert out.returncode == 1 and out.stderr.count("\n") == 1
    assert "https://micropython.org/download/RPI_PICO/" in out.stderr
    assert "--micropython FILE" in out.stderr and "UNOLAUNCH_RP2_DIR" in out.stderr
    out = run_cli("uf2", "--micropython", tmp_path / "nope.uf2", cwd=tmp_path)
    assert out.returncode == 1 and "no such file" in out.stderr
    assert list(tmp_path.iterdir()) == []


def test_a_config_the_firmware_refuses_writes_nothing(run_cli: RunCli, tmp_path: Path) -> None:
    mp = micropython_uf2()
    good = tmp_path / "good.uf2"
    assert run_cli("uf2", "--micropython", mp, "--output", good).returncode == 0
    before = good.read_bytes()
    for config, reason in (
        ({"button_pin": 15, "buzzer_pin": 15}, "buzzer_pin: GPIO 15 already used by button_pin"),
        ({"sensor_pin": 40}, r"sensor_pin: GPIO 40: must be a GPIO number 0\.\.29 on the rp2040"),
        ({"no_such_key": 1}, "no_such_key: unknown key"),
    ):
        out = run_cli("uf2", "--micropython", mp, "--config", config_file(tmp_path, config),
                      "--output", good)  # fmt: skip
        assert out.returncode == 2 and out.stderr.count("\n") == 1, out.stderr
        assert re.search(reason, out.stderr), out.stderr
    assert good.read_bytes() == before  # the good file is still the good file
    assert sorted(p.name for p in tmp_path.iterdir()) == ["good.uf2", "launcher.json"]


def test_an_output_that_cannot_be_written_leaves_nothing(run_cli: RunCli, tmp_path: Path) -> None:
    mp = micropython_uf2()
    out = run_cli("uf2", "--micropython", mp, "--output", tmp_path / "no" / "such" / "x.uf2")
    assert out.returncode == 1 and out.stderr.count("\n") == 1
    assert "cannot write" in out.stderr and "--output" in out.stderr
    assert list(tmp_path.iterdir()) == []
    drive = make_drive(tmp_path / "RPI-RP2")
    out = run_cli("uf2", "--micropython", mp, "--output", drive)
    assert out.returncode == 2 and out.stderr.count("\n") == 1
    assert f"is on a Pico's BOOTSEL drive: 'unolaunch flash --uf2 --drive {drive}'" in out.stderr
    assert sorted(p.name for p in drive.iterdir()) == ["INDEX.HTM", "INFO_UF2.TXT"]


# --- the BOOTSEL drive: finding it, copying onto it ---------------------------------------------


def test_no_drive_two_picos_a_pico_2_or_a_drive_not_mounted_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    found: list[BootselDrive] = []
    monkeypatch.setattr(bootsel_mod, "find_bootsel_drives", lambda: found)
    with pytest.raises(FlashError, match=r"no Pico in BOOTSEL mode found: hold .* --drive"):
        choose_drive()
    found[:] = [BootselDrive(f"/media/ann/RPI-RP2{n}", "RP2040") for n in ("", "1")]
    with pytest.raises(FlashError, match=r"2 Picos are in BOOTSEL mode .*unplug all but"):
        choose_drive()
    found[:] = [BootselDrive("/media/ann/RP2350", "RP2350")]
    with pytest.raises(FlashError, match=r"is an RP2350 \(a Pico 2.*RPI_PICO2 \.uf2"):
        choose_drive()
    found[:] = [BootselDrive("USB device 1-1 (drive not mounted)", "RP2040", mounted=False)]
    with pytest.raises(FlashError, match="drive is not mounted"):
        choose_drive()
    found[:] = [BootselDrive("/media/ann/RPI-RP2", "RP2040")]
    assert choose_drive() == Path("/media/ann/RPI-RP2")
    # --drive: checked by its INFO_UF2.TXT
    with pytest.raises(FlashError, match=r"is not a Pico's BOOTSEL drive \(it has no INFO_UF2"):
        choose_drive(tmp_path)
    info = "UF2 Bootloader v1.0\nModel: Raspberry Pi RP2350\nBoard-ID: RP2350\n"
    pico2 = make_drive(tmp_path / "RP2350", info)
    with pytest.raises(FlashError, match="is an RP2350"):
        choose_drive(pico2)
    assert choose_drive(make_drive(tmp_path / "RPI-RP2")) == tmp_path / "RPI-RP2"


def test_a_drive_that_goes_away_mid_copy_or_fails_leaves_nothing_half_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    data = bytes(range(256)) * 1024  # 256 KiB: four pieces
    drive = make_drive(tmp_path / "RPI-RP2")
    done: list[int] = []

    def unplug_after_the_first(n: int, name: str) -> None:
        done.append(n)
        if len(done) == 1:
            (drive / "INFO_UF2.TXT").unlink()  # the drive goes (its files with it)
            (drive / "INDEX.HTM").unlink()

    with pytest.raises(FlashError) as err:
        copy_to_drive(data, drive, "x.uf2", unplug_after_the_first)
    assert re.fullmatch(
        r"the RPI-RP2 drive .* went away during the copy \(65,536 of 262,144 bytes\): the Pico "
        r"keeps an incomplete \.uf2 to itself .*run 'unolaunch flash --uf2' again",
        str(err.value),
    )
    assert list(drive.iterdir()) == []  # what was written is gone

    # the device fails a write (an I/O error) while its drive is still there
    drive = make_drive(tmp_path / "RPI-RP2b")
    real_fsync = os.fsync
    calls: list[int] = []

    def failing_fsync(fd: int) -> None:
        calls.append(fd)
        if len(calls) == 3:
            raise OSError(errno.EIO, "Input/output error")
        real_fsync(fd)

    monkeypatch.setattr(bootsel_mod.os, "fsync", failing_fsync)
    failed = r"writing x\.uf2 onto the drive .* failed after 131,072 of 262,144 bytes \(Input/"
    with pytest.raises(FlashError, match=failed):
        copy_to_drive(data, drive, "x.uf2", lambda n, name: None)
    assert sorted(p.name for p in drive.iterdir()) == ["INDEX.HTM", "INFO_UF2.TXT"]


def test_a_read_only_drive_is_one_line_and_nothing_is_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # (a drive mounted read-only answers EROFS; the tests run as root, whom a folder's
    # permissions do not stop, so the error is the operating system's, given here)
    drive = make_drive(tmp_path / "RPI-RP2")

    def read_only(path: Any, mode: str = "r", *args: Any, **kwargs: Any) -> Any:
        raise OSError(errno.EROFS, "Read-only file system", str(path))

    monkeypatch.setattr(bootsel_mod, "open", read_only, raising=False)
    with pytest.raises(FlashError) as err:
        copy_to_drive(b"x" * 512, drive, "x.uf2", lambda n, name: None)
    assert re.fullmatch(
        r"the drive \S+ is read-only \(Read-only file system\): mount the RPI-RP2 drive for "
        r"writing .*'unolaunch uf2' onto it yourself",
        str(err.value),
    )
    assert sorted(p.name for p in drive.iterdir()) == ["INDEX.HTM", "INFO_UF2.TXT"]


def test_the_port_is_waited_for(monkeypatch: pytest.MonkeyPatch) -> None:
    from unolaunch.link import PortInfo, discovery

    ports = [PortInfo("/dev/ttyACM0", 0x2E8A, 0x0005)]  # another launcher, there before
    start = time.monotonic()

    def listing() -> list[PortInfo]:
        if time.monotonic() - start > 0.5:  # the new Pico enumerates
            return [*ports, PortInfo("/dev/ttyACM1", 0x2E8A, 0x0005)]
        return ports

    monkeypatch.setattr(discovery, "list_serial_ports", listing)
    assert bootsel_mod._wait_for_port("auto", {"/dev/ttyACM0"}) == "/dev/ttyACM1"
    assert time.monotonic() - start >= 0.5
    monkeypatch.setattr(bootsel_mod, "PORT_APPEARS_S", 0.3)
    monkeypatch.setattr(discovery, "list_serial_ports", lambda: ports)
    with pytest.raises(FlashError, match="no Pico with MicroPython appeared within 0 s"):
        bootsel_mod._wait_for_port("auto", {"/dev/ttyACM0"})


def test_flash_uf2_dry_run_and_options_that_do_not_go_together(
    run_cli: RunCli, tmp_path: Path
) -> None:
    mp = micropython_uf2()
    drive = make_drive(tmp_path / "RPI-RP2")
    out = run_cli("flash", "--uf2", "--dry-run", "--drive", drive, "--micropython", mp)
    assert out.returncode == 0, out.stderr
    assert re.search(
        r"dry run: would copy unolaunch-\S+-rpi_pico\.uf2 \([\d,]+ bytes\) onto", out.stdout
    )
    assert "replacing the Pico's whole filesystem; nothing was changed" in out.stdout
    assert sorted(p.name for p in drive.iterdir()) == ["INDEX.HTM", "INFO_UF2.TXT"]
    out = run_cli("flash", "--drive", drive)
    assert out.returncode == 2 and "--drive goes with --uf2" in out.stderr
    out = run_cli("flash", "--uf2", "--no-compile", "--drive", drive)
    assert out.returncode == 2 and "--no-compile does not go with --uf2" in out.stderr
    out = run_cli("flash", "--uf2", "--drive", tmp_path, "--micropython", mp)
    assert out.returncode == 1 and "is not a Pico's BOOTSEL drive" in out.stderr
    out = run_cli("uf2", "--help")
    assert "REPLACES THE PICO'S WHOLE FILESYSTEM" in out.stdout
    out = run_cli("flash", "--help")
    assert "THIS REPLACES THE PICO'S\nWHOLE FILESYSTEM" in out.stdout


# --- on the emulated RP2040 ---------------------------------------------------------------------


@pytest.mark.rp2040
def test_a_blank_pico_given_only_the_uf2_is_a_launcher(run_cli: RunCli, tmp_path: Path) -> None:
    """The one file, as a maker gets it, on a blank chip: no file reaches the flash any
    other way. One boot for every check; then `unolaunch flash` right after copies nothing."""
    from board_harness import Link, ScriptedPerson
    from unolaunch.selftest import PASS, run_selftest
    from unolaunch.sim.rp2040 import Rp2040Launcher

    require_board("rp2040")
    mp = micropython_uf2()
    made = run_cli("uf2", "--micropython", mp, "--config", config_file(tmp_path), cwd=tmp_path)
    assert made.returncode == 0, made.stderr
    (path,) = tmp_path.glob("unolaunch-*.uf2")
    version = firmware_version()
    with Rp2040Launcher(flash_dir=tmp_path / "flash", uf2=path.read_bytes()) as sim:
        link = Link(sim)  # (request ids of its own: no late reply is taken for another's)
        try:
            reply = link.hello(timeout=90)
            assert reply["firmware"] == version and reply["board"] == "rp2040"
            assert reply["config_status"] == "ok" and reply["reset_cause"] == "power_on"
            config = link.request("config_get", timeout=30)["config"]
            assert config == {**json.loads(_defaults()), **CONFIG}
            # a press under arm fires (every press fires with this config: 2 cards)
            assert link.request("arm", player="Ann", presses=1, mode="random")["ok"]
            sim.control("press")
            eject = link.wait_event("eject", timeout=30)
            assert eject["player"] == "Ann" and eject["cards"] == 2, eject
            assert link.request("mode", mode="standalone")["ok"]
        finally:
            link.close()

        checks = run_selftest(sim.port, ScriptedPerson(sim), timeout_s=20)
        assert [c.status for c in checks] == [PASS] * 8, checks

        again = run_cli("flash", "--port", sim.port, timeout=180)
        assert again.returncode == 0, again.stderr
        assert re.search(r"copied 0 of \d+ files \(0 bytes\), removed 0", again.stdout), (
            again.stdout
        )
        assert "kept         launcher.json" in again.stdout


@pytest.mark.rp2040
def test_flash_uf2_onto_a_bootsel_drive_end_to_end(run_cli: RunCli, tmp_path: Path) -> None:
    """`flash --uf2` against a drive whose Pico is the emulated chip started from what was
    copied: the copy, the drive going, the wait for the port, hello with the new version."""
    mp = micropython_uf2()
    port = tmp_path / "ttyACM0"
    pico = BootselPico(tmp_path / "media" / "RPI-RP2", port, tmp_path / "flash")
    try:
        cfg = config_file(tmp_path)
        out = run_cli("flash", "--uf2", "--drive", pico.drive, "--port", port,
                      "--micropython", mp, "--config", cfg, timeout=240)  # fmt: skip
        finished = time.monotonic()
        assert out.returncode == 0, out.stderr
        version = firmware_version()
        assert f"Pico in BOOTSEL mode: {pico.drive}" in out.stdout
        assert "copied; waiting for the Pico to restart" in out.stdout
        assert f"flashed {version} with MicroPython v1.28.0 through {pico.drive}" in out.stdout
        assert f"the launcher is on {port}" in out.stdout
        assert f"hello: firmware {version}, protocol 3, board rp2040, config ok" in out.stdout
        # the Pico got exactly the file `unolaunch uf2` writes, under its default name
        assert pico.copied == build_uf2(mp, config_file=cfg).data
        assert pico.name == f"unolaunch-{version}-rpi_pico.uf2"
        assert not pico.drive.exists() and pico.launcher is not None
        # it waited: the port appeared only after the drive had gone
        assert finished - pico.restarted_at > 1.5
        assert hello(str(port))["firmware"] == version
        assert (
            pico.launcher.flash_files()["launcher.json"]
            == build_uf2(mp, config_file=cfg).files[-1].data
        )
    finally:
        pico.close()


@pytest.mark.parametrize("bad", ["cut", "config"])
def test_flash_uf2_with_bad_inputs_copies_nothing(
    run_cli: RunCli, tmp_path: Path, bad: str
) -> None:
    mp = micropython_uf2()
    drive = make_drive(tmp_path / "RPI-RP2")
    if bad == "cut":
        cut = tmp_path / "cut.uf2"
        cut.write_bytes(mp.read_bytes()[: 512 * 7])
        args: tuple[Any, ...] = ("--micropython", cut)
    else:
        args = ("--micropython", mp, "--config", config_file(tmp_path, {"led_pin": 23}))
    out = run_cli("flash", "--uf2", "--drive", drive, *args)
    assert out.returncode in (1, 2) and out.stderr.count("\n") == 1, out.stderr
    assert (
        "cut short" if bad == "cut" else "led_pin: GPIO 23 is used by the Pico board"
    ) in out.stderr
    assert sorted(p.name for p in drive.iterdir()) == ["INDEX.HTM", "INFO_UF2.TXT"]


def test_a_refused_config_is_a_usage_error_in_the_library_too(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match="nothing was flashed"):
        build_uf2(micropython_uf2(), config_file=config_file(tmp_path, {"wdt_ms": 1}))
    with pytest.raises(FlashImageError, match="not a UF2 image"):
        uf2_blocks(b"")


def test_sim_uf2_starts_the_emulated_pico_from_a_file_or_says_why_not(
    run_cli: RunCli, tmp_path: Path
) -> None:
    cut = tmp_path / "cut.uf2"
    cut.write_bytes(image_uf2(bytearray(b"\xff" * 8192), [0, 1])[: 512 * 20])
    out = run_cli("sim", "--uf2", cut, input="", timeout=60)
    assert out.returncode == 2 and "--uf2 needs --board rp2040" in out.stderr
    out = run_cli("sim", "--board", "rp2040", "--blank", "--uf2", cut, input="", timeout=60)
    assert out.returncode == 2 and "--uf2 and --blank do not go together" in out.stderr
    out = run_cli("sim", "--board", "rp2040", "--uf2", tmp_path / "nope.uf2", input="")
    assert out.returncode == 2 and out.stderr.startswith("unolaunch: --uf2 ")
    require_board("rp2040")
    out = run_cli("sim", "--board", "rp2040", "--uf2", cut, input="", timeout=60)
    assert out.returncode == 1 and out.stderr.count("\n") == 1, out.stderr
    assert "incomplete or not for an RP2040: a Pico would stay in BOOTSEL mode" in out.stderr
