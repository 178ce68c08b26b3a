"""The emulated Pico's 2 MiB flash as one file: the MicroPython image and its filesystem.

A Pico's flash holds the MicroPython ``.uf2`` payload from address ``0x10000000`` and, for
MicroPython's RPI_PICO build, a littlefs2 filesystem from offset ``0xA0000`` (1408 KiB in
4 KiB blocks) that MicroPython mounts as ``/``. :func:`build_image` lays out both, the
filesystem made with ``littlefs-python`` (the littlefs C library itself) in the geometry
MicroPython's ``rp2.Flash`` + ``vfs.VfsLfs2(bdev, progsize=256)`` uses, so the emulated chip
mounts it exactly as a Pico mounts the files ``unolaunch flash`` copied.
"""

from __future__ import annotations

import struct
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from unolaunch.errors import UnolaunchError

__all__ = [
    "FLASH_SIZE",
    "FS_OFFSET",
    "FlashImageError",
    "build_image",
    "read_files",
    "uf2_payload",
    "write_files",
]

FLASH_SIZE = 2 * 1024 * 1024  # a Pico's W25Q16
XIP_BASE = 0x10000000
FS_OFFSET = 0xA0000  # MicroPython RPI_PICO: MICROPY_HW_FLASH_STORAGE_BYTES = 1408 KiB
FS_BLOCK_SIZE = 4096
FS_BLOCKS = (FLASH_SIZE - FS_OFFSET) // FS_BLOCK_SIZE

_UF2_MAGIC = (0x0A324655, 0x9E5D5157, 0x0AB16F30)
_UF2_FAMILY_RP2040 = 0xE48BFF56
_UF2_FLAG_FAMILY = 0x00002000
_UF2_FLAG_NOFLASH = 0x00000001


class FlashImageError(UnolaunchError):
    """A ``.uf2`` or flash image that cannot be used; the message says what to do."""


def uf2_payload(data: bytes, name: str = "the .uf2") -> list[tuple[int, bytes]]:
    """The (flash offset, bytes) blocks of an RP2040 ``.uf2`` file.

    Raises :class:`FlashImageError` for a file that is not a UF2 image for an RP2040 flash.
    """
    if len(data) < 512 or len(data) % 512:
        raise FlashImageError(
            f"{name} is not a UF2 image (its size is not a multiple of 512 bytes): download "
            "MicroPython's .uf2 for the Raspberry Pi Pico again"
        )
    blocks: list[tuple[int, bytes]] = []
    for i in range(0, len(data), 512):
        m0, m1, flags, addr, size, _n, _total, family = struct.unpack_from("<8I", data, i)
        end = struct.unpack_from("<I", data, i + 508)[0]
        if (m0, m1, end) != _UF2_MAGIC:
            raise FlashImageError(
                f"{name} is not a UF2 image (bad magic in block {i // 512}): download "
                "MicroPython's .uf2 for the Raspberry Pi Pico again"
            )
        if flags & _UF2_FLAG_NOFLASH:
            continue
        if flags & _UF2_FLAG_FAMILY and family != _UF2_FAMILY_RP2040:
            raise FlashImageError(
                f"{name} is for another chip (UF2 family {family:#x}, an RP2040 is "
                f"{_UF2_FAMILY_RP2040:#x}): use MicroPython's .uf2 for the Raspberry Pi Pico"
            )
        offset = addr - XIP_BASE
        if size > 476 or not 0 <= offset <= FLASH_SIZE - size:
            raise FlashImageError(f"{name}: block {i // 512} lies outside a Pico's 2 MiB flash")
        blocks.append((offset, data[i + 32 : i + 32 + size]))
    if not blocks:
        raise FlashImageError(f"{name} holds nothing to write to flash")
    if blocks[-1][0] + len(blocks[-1][1]) > FS_OFFSET:
        raise FlashImageError(
            f"{name} reaches into the filesystem at {FS_OFFSET:#x}: it is not MicroPython's "
            "RPI_PICO build; use that one"
        )
    return blocks


def _lfs(region: bytearray, mount: bool) -> Any:
    from littlefs import LittleFS
    from littlefs.context import UserContext

    # MicroPython's VfsLfs2 on rp2: read 32, prog 256 (rp2's _boot.py), lookahead 32,
    # block_cycles 100; littlefs on-disk version 2.0, which every littlefs2 reads.
    return LittleFS(
        context=UserContext(buffer=region),
        mount=mount,
        block_size=FS_BLOCK_SIZE,
        block_count=FS_BLOCKS,
        read_size=32,
        prog_size=256,
        lookahead_size=32,
        block_cycles=100,
        disk_version=0x00020000,
    )


def _mount(region: bytearray, create: bool) -> Any:
    from littlefs import LittleFSError

    fs = _lfs(region, mount=False)  # (mount=True would format a blank region silently)
    try:
        fs.mount()
    except LittleFSError:
        if not create:
            raise FlashImageError(
                "the flash image holds no MicroPython filesystem (or a damaged one): "
                "delete the flash folder to start from a fresh flash"
            ) from None
        fs.format()
        fs.mount()
    return fs


def write_files(image: bytearray, files: Mapping[str, bytes]) -> None:
    """Write ``files`` (path on the board -> bytes) into the image's filesystem, formatting
    it first if it holds none; other files stay."""
    region = bytearray(image[FS_OFFSET:FLASH_SIZE])
    fs = _mount(region, create=True)
    for path, data in files.items():
        parent = path.rpartition("/")[0]
        if parent:
            fs.makedirs(parent, exist_ok=True)
        with fs.open(path, "wb") as f:
            f.write(data)
    fs.unmount()
    image[FS_OFFSET:FLASH_SIZE] = region


def read_files(image: bytes | bytearray) -> dict[str, bytes]:
    """Every file in the image's filesystem (path on the board -> bytes)."""
    region = bytearray(image[FS_OFFSET:FLASH_SIZE])
    fs = _mount(region, create=False)
    out: dict[str, bytes] = {}
    for top, _dirs, names in fs.walk("/"):
        for name in names:
            path = f"{top.rstrip('/')}/{name}".lstrip("/")
            with fs.open(path, "rb") as f:
                out[path] = f.read()
    return out


def build_image(uf2: bytes, files: Mapping[str, bytes], uf2_name: str = "the .uf2") -> bytearray:
    """A whole flash: erased, the ``.uf2`` written as a Pico's boot ROM would, and a
    filesystem with ``files`` in it."""
    image = bytearray(b"\xff" * FLASH_SIZE)
    for offset, payload in uf2_payload(uf2, uf2_name):
        image[offset : offset + len(payload)] = payload
    write_files(image, files)
    return image


def load_image(path: Path) -> bytearray:
    """Read a flash image file, checking its size."""
    data = bytearray(path.read_bytes())
    if len(data) != FLASH_SIZE:
        raise FlashImageError(
            f"{path} is not a Pico flash image ({len(data)} bytes, not {FLASH_SIZE}): "
            "delete it to start from a fresh flash"
        )
    return data
