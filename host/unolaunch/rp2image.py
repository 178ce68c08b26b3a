"""A Pico's flash as MicroPython's rp2 port lays it out: the firmware image and its littlefs2
filesystem, read from and written to UF2 files.

Both the flasher (``unolaunch uf2``, ``flash --uf2``) and the emulated RP2040
(``unolaunch.sim.rp2040``) stand on this module, so the emulated chip mounts exactly what a
maker's Pico would.

**Where the layout comes from.** MicroPython's board configuration: for ``RPI_PICO``,
``ports/rp2/boards/RPI_PICO/mpconfigboard.h`` sets ``MICROPY_HW_FLASH_STORAGE_BYTES`` to
1408 KiB, and ``ports/rp2/rp2_flash.c`` puts the storage at the top of the flash
(``MICROPY_HW_FLASH_STORAGE_BASE = PICO_FLASH_SIZE_BYTES - MICROPY_HW_FLASH_STORAGE_BYTES``:
0xA0000 of the Pico's 2 MiB). ``ports/rp2/modules/_boot.py`` mounts it as
``vfs.VfsLfs2(rp2.Flash(), progsize=256)`` (4 KiB blocks, read size and lookahead 32).
Each ``.uf2`` says the same of itself in its binary info (``bi_block_device`` "MicroPython",
the pico-sdk board name, the version): :func:`read_micropython` checks every image against
the table :data:`LAYOUTS` and refuses one whose layout is not there, rather than write a
filesystem where that MicroPython does not look. To add a board: a :class:`Layout` with the
values of its ``mpconfigboard.h``, in :data:`LAYOUTS` under its pico-sdk board name, and a
test that boots its image (docs/architecture.md, "The Pico's flash image").

**A UF2 the RP2040's boot ROM writes right.** The ROM (pico-bootrom ``virtual_disk.c``)
takes blocks of exactly 256 bytes on 256-byte boundaries with the RP2040 family id, and
erases a 4 KiB sector before the first block of each run of 16 *block numbers* it receives.
:func:`image_uf2` therefore writes whole sectors, 16 blocks each, numbered in address order:
every sector it touches is erased once and then holds exactly the image's bytes. It writes
the sectors MicroPython's image occupies and every sector littlefs reads to mount the new
filesystem and read its files (both halves of each metadata pair, even an erased one: left
alone, an old filesystem's block there could be taken for a newer revision). Other sectors
keep what they held; to littlefs they are free blocks, erased before use.
"""

from __future__ import annotations

import re
import struct
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from unolaunch.errors import UnolaunchError

__all__ = [
    "FAMILY_RP2040",
    "FLASH_SIZE",
    "FS_OFFSET",
    "LAYOUTS",
    "RPI_PICO",
    "FlashImageError",
    "Layout",
    "MicroPythonImage",
    "binary_info",
    "build_image",
    "find_micropython_uf2",
    "image_uf2",
    "load_image",
    "read_files",
    "read_micropython",
    "uf2_blocks",
    "uf2_payload",
    "uf2_sectors",
    "write_files",
]

XIP_BASE = 0x10000000
PAGE_SIZE = 256  # a UF2 block's payload for the RP2040 boot ROM, and the flash's page
SECTOR_SIZE = 4096  # the flash's erase unit, and littlefs's block on rp2
UF2_BLOCK = 512
UF2_PAYLOAD_MAX = 476
UF2_MAGIC = (0x0A324655, 0x9E5D5157, 0x0AB16F30)
UF2_FLAG_NOT_MAIN_FLASH = 0x00000001
UF2_FLAG_FAMILY = 0x00002000

FAMILY_RP2040 = 0xE48BFF56
#: UF2 family ids of the Raspberry Pi chips (pico-sdk ``uf2.h``), for messages.
FAMILIES = {
    FAMILY_RP2040: "RP2040",
    0xE48BFF57: "RP2350 (absolute)",
    0xE48BFF58: "RP2350 (data)",
    0xE48BFF59: "RP2350 (Arm)",
    0xE48BFF5A: "RP2350 (RISC-V)",
}

MICROPYTHON_DOWNLOAD = "https://micropython.org/download/RPI_PICO/"
# The .mpy files the flasher compiles (version 6) need MicroPython 1.19 or later.
MICROPYTHON_MIN = (1, 19)

# picotool's binary info (pico-sdk binary_info/defs.h and structure.h)
_BI_MARKER_START = 0x7188EBF2
_BI_MARKER_END = 0xE71AA390
_BI_TYPE_ID_AND_STRING = 6
_BI_TYPE_BLOCK_DEVICE = 7
_BI_TAG_RP = 0x5052  # 'R', 'P'
_BI_TAG_MP = 0x504D  # 'M', 'P'
_BI_ID_PROGRAM_NAME = 0x02031C86
_BI_ID_PROGRAM_VERSION = 0x11A9BC3A
_BI_ID_PICO_BOARD = 0xB63CFFBB


@dataclass(frozen=True)
class Layout:
    """Where one MicroPython board build keeps what (values from its ``mpconfigboard.h``)."""

    board: str  # MicroPython's board name, as on its download page
    pico_board: str  # pico-sdk's PICO_BOARD, as the image's binary info names it
    chip: str
    family: int  # UF2 family id
    flash_size: int
    fs_offset: int  # MICROPY_HW_FLASH_STORAGE_BASE
    fs_size: int  # MICROPY_HW_FLASH_STORAGE_BYTES
    block_size: int = SECTOR_SIZE

    @property
    def fs_blocks(self) -> int:
        """littlefs blocks in the filesystem."""
        return self.fs_size // self.block_size

    @property
    def name(self) -> str:
        """The board as a file name's suffix: ``rpi_pico``."""
        return self.board.lower()


#: The Raspberry Pi Pico (W25Q16, 2 MiB): MicroPython's RPI_PICO.
RPI_PICO = Layout(
    board="RPI_PICO",
    pico_board="pico",
    chip="RP2040",
    family=FAMILY_RP2040,
    flash_size=2 * 1024 * 1024,
    fs_offset=0xA0000,
    fs_size=1408 * 1024,
)

#: The boards whose layout is known and tested, by pico-sdk board name.
LAYOUTS = {RPI_PICO.pico_board: RPI_PICO}

#: Boards makers have that are not in :data:`LAYOUTS` (their storage differs: Pico W
#: 848 KiB of 2 MiB; Pico 2 and Pico 2 W are RP2350s with 4 MiB), by pico-sdk board name.
OTHER_BOARDS = {
    "pico_w": "a Pico W (RPI_PICO_W)",
    "pico2": "a Pico 2 (RPI_PICO2)",
    "pico2_w": "a Pico 2 W (RPI_PICO2_W)",
}

# The one board the emulated chip and the tests use; the simulator's names for it.
FLASH_SIZE = RPI_PICO.flash_size
FS_OFFSET = RPI_PICO.fs_offset


class FlashImageError(UnolaunchError):
    """A ``.uf2`` or flash image that cannot be used; the message says what to do."""


_AGAIN = f"download MicroPython's .uf2 for the Raspberry Pi Pico again ({MICROPYTHON_DOWNLOAD})"


# --- UF2 files ------------------------------------------------------------------------------


def uf2_blocks(data: bytes, name: str = "the .uf2") -> list[tuple[int, int, bytes]]:
    """``(family, flash offset, payload)`` of every block of a UF2 file meant for main flash.

    The file must be whole: a size that is not a multiple of 512, a block without UF2's
    magic numbers, or fewer blocks than the blocks say the file holds is an error (a
    download or a copy cut short). Raises :class:`FlashImageError`.
    """
    if not data or len(data) % UF2_BLOCK:
        raise FlashImageError(
            f"{name} is not a UF2 image (its size, {len(data)} bytes, is not a multiple of "
            f"512: cut short?): {_AGAIN}"
        )
    blocks: list[tuple[int, int, bytes]] = []
    declared = 0
    for i in range(0, len(data), UF2_BLOCK):
        m0, m1, flags, addr, size, _no, total, family = struct.unpack_from("<8I", data, i)
        (end,) = struct.unpack_from("<I", data, i + UF2_BLOCK - 4)
        if (m0, m1, end) != UF2_MAGIC:
            raise FlashImageError(
                f"{name} is not a UF2 image (block {i // UF2_BLOCK} is not a UF2 block): {_AGAIN}"
            )
        declared = max(declared, total)
        if flags & UF2_FLAG_NOT_MAIN_FLASH:
            continue
        if size > UF2_PAYLOAD_MAX:
            raise FlashImageError(f"{name}: block {i // UF2_BLOCK} is damaged: {_AGAIN}")
        family = family if flags & UF2_FLAG_FAMILY else 0
        blocks.append((family, addr - XIP_BASE, data[i + 32 : i + 32 + size]))
    if len(data) // UF2_BLOCK < declared:
        raise FlashImageError(
            f"{name} is cut short: it holds {len(data) // UF2_BLOCK} of the {declared} blocks "
            f"it says it has: {_AGAIN}"
        )
    if not blocks:
        raise FlashImageError(f"{name} holds nothing to write to flash: {_AGAIN}")
    return blocks


def _family_name(family: int) -> str:
    known = FAMILIES.get(family)
    return f"{known}, UF2 family {family:#x}" if known else f"UF2 family {family:#x}"


def uf2_payload(
    data: bytes, name: str = "the .uf2", layout: Layout = RPI_PICO
) -> list[tuple[int, bytes]]:
    """The ``(flash offset, bytes)`` blocks of a ``.uf2`` for ``layout``'s chip, checked to
    lie in its flash below the filesystem. Raises :class:`FlashImageError`."""
    out: list[tuple[int, bytes]] = []
    for family, offset, payload in uf2_blocks(data, name):
        if family not in (0, layout.family):
            raise FlashImageError(
                f"{name} is for another chip ({_family_name(family)}), not the "
                f"{layout.chip} of the Raspberry Pi Pico: use MicroPython's {layout.board} "
                f".uf2 ({MICROPYTHON_DOWNLOAD})"
            )
        if not 0 <= offset <= layout.flash_size - len(payload):
            raise FlashImageError(
                f"{name}: a block lies outside the Pico's {layout.flash_size // 1024} KiB "
                f"flash: it is not for a Raspberry Pi Pico; use MicroPython's {layout.board} "
                f".uf2 ({MICROPYTHON_DOWNLOAD})"
            )
        out.append((offset, payload))
    if max(o + len(p) for o, p in out) > layout.fs_offset:
        raise FlashImageError(
            f"{name} reaches into the filesystem at {layout.fs_offset:#x}: it is not "
            f"MicroPython's {layout.board} build; use that one ({MICROPYTHON_DOWNLOAD})"
        )
    return out


def image_uf2(image: bytes | bytearray, sectors: Iterable[int], layout: Layout = RPI_PICO) -> bytes:
    """A UF2 file that writes ``sectors`` (4 KiB sector numbers) of ``image`` onto a Pico.

    Every sector is written whole, 16 blocks of 256 bytes, all blocks numbered in address
    order (see the module's text for why); the blocks carry ``layout``'s family id.
    """
    order = sorted(set(sectors))
    per_sector = SECTOR_SIZE // PAGE_SIZE
    total = len(order) * per_sector
    out = bytearray()
    number = 0
    for sector in order:
        for page in range(per_sector):
            offset = sector * SECTOR_SIZE + page * PAGE_SIZE
            payload = bytes(image[offset : offset + PAGE_SIZE])
            out += struct.pack(
                "<8I",
                UF2_MAGIC[0],
                UF2_MAGIC[1],
                UF2_FLAG_FAMILY,
                XIP_BASE + offset,
                PAGE_SIZE,
                number,
                total,
                layout.family,
            )
            out += payload.ljust(UF2_PAYLOAD_MAX, b"\0")
            out += struct.pack("<I", UF2_MAGIC[2])
            number += 1
    return bytes(out)


# --- MicroPython's image ------------------------------------------------------------------


@dataclass(frozen=True)
class MicroPythonImage:
    """A MicroPython ``.uf2`` checked against :data:`LAYOUTS`."""

    layout: Layout
    version: str  # "v1.28.0"
    blocks: list[tuple[int, bytes]]  # (flash offset, bytes)

    @property
    def end(self) -> int:
        """The flash offset just past the image."""
        return max(o + len(p) for o, p in self.blocks)


def binary_info(code: bytes | bytearray) -> dict[str, Any]:
    """What a pico-sdk program says of itself (picotool's binary info): ``program``,
    ``version``, ``pico_board`` (strings) and ``storage`` (MicroPython's block device:
    flash offset and size), each present when the image declares it.

    ``code`` is the flash from offset 0 (boot2, then the program, whose first 256 bytes
    hold the binary info header).
    """

    blob = bytes(code)

    def word(addr: int) -> int:
        offset = addr - XIP_BASE
        if not 0 <= offset <= len(blob) - 4:
            raise ValueError("outside the image")
        return int(struct.unpack_from("<I", blob, offset)[0])

    def text(addr: int) -> str:
        offset = addr - XIP_BASE
        end = blob.find(b"\0", offset, offset + 256) if offset >= 0 else -1
        if end < 0:
            raise ValueError("outside the image")
        return blob[offset:end].decode("utf-8", "replace")

    found: dict[str, Any] = {}
    for at in range(0x100, 0x200, 4):
        if at + 20 > len(blob) or struct.unpack_from("<I", blob, at)[0] != _BI_MARKER_START:
            continue
        start, end, _copy, marker_end = struct.unpack_from("<4I", blob, at + 4)
        if marker_end != _BI_MARKER_END:
            continue
        try:
            for entry in range(start, end, 4):
                ptr = word(entry)
                kind, tag = word(ptr) & 0xFFFF, word(ptr) >> 16
                if kind == _BI_TYPE_ID_AND_STRING and tag == _BI_TAG_RP:
                    key = {
                        _BI_ID_PROGRAM_NAME: "program",
                        _BI_ID_PROGRAM_VERSION: "version",
                        _BI_ID_PICO_BOARD: "pico_board",
                    }.get(word(ptr + 4))
                    if key:
                        found[key] = text(word(ptr + 8))
                elif (
                    kind == _BI_TYPE_BLOCK_DEVICE
                    and tag == _BI_TAG_MP
                    and text(word(ptr + 4)) == "MicroPython"
                ):
                    found["storage"] = (word(ptr + 8) - XIP_BASE, word(ptr + 12))
        except (ValueError, struct.error):
            return {}
        break
    return found


def read_micropython(data: bytes, name: str = "the .uf2") -> MicroPythonImage:
    """Check that ``data`` is MicroPython for a board in :data:`LAYOUTS`, with the storage
    that table says, and new enough for the firmware's ``.mpy`` files.

    Raises :class:`FlashImageError` that says which file to use instead.
    """
    blocks = uf2_blocks(data, name)
    families = {family for family, _, _ in blocks} - {0}
    family = families.pop() if len(families) == 1 else 0
    layout = next((lay for lay in LAYOUTS.values() if lay.family == family), RPI_PICO)
    payload = uf2_payload(data, name, layout)
    code = bytearray(b"\xff" * layout.fs_offset)
    for offset, chunk in payload:
        code[offset : offset + len(chunk)] = chunk
    info = binary_info(code)
    if info.get("program") != "MicroPython":
        raise FlashImageError(
            f"{name} is not MicroPython (its binary info names "
            f"{info.get('program') or 'no program'}): use MicroPython's {RPI_PICO.board} "
            f".uf2 ({MICROPYTHON_DOWNLOAD})"
        )
    board = str(info.get("pico_board", ""))
    layout = LAYOUTS.get(board, layout)
    if board not in LAYOUTS:
        what = OTHER_BOARDS.get(board, f"the board {board!r}" if board else "an unknown board")
        raise FlashImageError(
            f"{name} is MicroPython for {what}, whose flash is laid out otherwise: a single "
            f"launcher .uf2 can be made for the Raspberry Pi Pico ({RPI_PICO.board}) only. On "
            f"that board copy this .uf2 onto its drive and run 'unolaunch flash' (through "
            f"the serial port) instead"
        )
    if info.get("storage") != (layout.fs_offset, layout.fs_size):
        raise FlashImageError(
            f"{name} is MicroPython for the {layout.board} with its filesystem at "
            f"{_storage(info.get('storage'))}, not at {layout.fs_offset:#x} "
            f"({layout.fs_size // 1024} KiB) as unolaunch knows it: copy this .uf2 onto the "
            "Pico and run 'unolaunch flash' (through the serial port) instead"
        )
    version = str(info.get("version", ""))
    numbers = tuple(int(n) for n in re.findall(r"\d+", version)[:2])
    if len(numbers) < 2 or numbers < MICROPYTHON_MIN:
        raise FlashImageError(
            f"{name} is MicroPython {version or '(no version)'}; the launcher firmware needs "
            f"MicroPython {'.'.join(map(str, MICROPYTHON_MIN))} or later: download a current "
            f"one ({MICROPYTHON_DOWNLOAD})"
        )
    return MicroPythonImage(layout, version, payload)


def _storage(storage: Any) -> str:
    if not storage:
        return "a place it does not declare"
    offset, size = storage
    return f"{offset:#x} ({size // 1024} KiB)"


def find_micropython_uf2(folder: str | Path, *, need: str) -> Path:
    """The one ``.uf2`` in ``folder`` (MicroPython for the Pico, as ``UNOLAUNCH_RP2_DIR``
    holds it). ``need`` says what wants it, for the messages. Raises
    :class:`FlashImageError`."""
    path = Path(folder)
    uf2s = sorted(p for p in path.glob("*.uf2") if p.is_file())
    if not uf2s:
        raise FlashImageError(
            f"no MicroPython .uf2 in {path}: download the Raspberry Pi Pico (RP2040) "
            f"firmware from {MICROPYTHON_DOWNLOAD} into that folder ({need})"
        )
    if len(uf2s) > 1:
        names = ", ".join(p.name for p in uf2s)
        raise FlashImageError(
            f"more than one .uf2 in {path} ({names}): keep only the one to use ({need})"
        )
    return uf2s[0]


# --- the filesystem -------------------------------------------------------------------------


def _tracing_context(buffer: bytearray, read_blocks: set[int]) -> Any:
    """littlefs's block device over ``buffer`` that adds every block it reads to
    ``read_blocks``."""
    from littlefs.context import UserContext

    class Tracing(UserContext):
        def read(self, cfg: Any, block: int, off: int, size: int) -> bytearray:
            read_blocks.add(block)
            data: bytearray = super().read(cfg, block, off, size)
            return data

    return Tracing(buffer=buffer)


def _lfs(context: Any, layout: Layout) -> Any:
    from littlefs import LittleFS

    # MicroPython's VfsLfs2 on rp2: read 32, prog 256 (rp2's _boot.py), lookahead 32,
    # block_cycles 100; littlefs on-disk version 2.0, which every littlefs2 reads.
    return LittleFS(
        context=context,
        mount=False,  # (mount=True would format a blank region silently)
        block_size=layout.block_size,
        block_count=layout.fs_blocks,
        read_size=32,
        prog_size=256,
        lookahead_size=32,
        block_cycles=100,
        disk_version=0x00020000,
    )


def _mount(region: bytearray, create: bool, layout: Layout, context: Any = None) -> Any:
    from littlefs import LittleFSError
    from littlefs.context import UserContext

    fs = _lfs(context or UserContext(buffer=region), layout)
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


def _fs_region(image: bytes | bytearray, layout: Layout) -> bytearray:
    return bytearray(image[layout.fs_offset : layout.fs_offset + layout.fs_size])


def write_files(
    image: bytearray, files: Mapping[str, bytes], layout: Layout = RPI_PICO, *, fresh: bool = False
) -> None:
    """Write ``files`` (path on the board -> bytes) into the image's filesystem, formatting
    it first if it holds none (or, with ``fresh``, whatever it holds); other files stay."""
    region = _fs_region(image, layout)
    if fresh:
        region[:] = b"\xff" * len(region)
    fs = _mount(region, True, layout)
    for path, data in sorted(files.items()):
        parent = path.rpartition("/")[0]
        if parent:
            fs.makedirs(parent, exist_ok=True)
        with fs.open(path, "wb") as f:
            f.write(data)
    fs.unmount()
    image[layout.fs_offset : layout.fs_offset + layout.fs_size] = region


def _walk(fs: Any) -> dict[str, bytes]:
    out: dict[str, bytes] = {}
    for top, _dirs, names in fs.walk("/"):
        for name in names:
            path = f"{top.rstrip('/')}/{name}".lstrip("/")
            with fs.open(path, "rb") as f:
                out[path] = f.read()
    return out


def read_files(image: bytes | bytearray, layout: Layout = RPI_PICO) -> dict[str, bytes]:
    """Every file in the image's filesystem (path on the board -> bytes)."""
    return _walk(_mount(_fs_region(image, layout), False, layout))


def build_image(
    uf2: bytes,
    files: Mapping[str, bytes],
    uf2_name: str = "the .uf2",
    layout: Layout = RPI_PICO,
) -> bytearray:
    """A whole flash: erased, the ``.uf2`` written as a Pico's boot ROM would, and a fresh
    filesystem with ``files`` in it."""
    image = bytearray(b"\xff" * layout.flash_size)
    for offset, payload in uf2_payload(uf2, uf2_name, layout):
        image[offset : offset + len(payload)] = payload
    write_files(image, files, layout)
    return image


def uf2_sectors(image: bytes | bytearray, code_end: int, layout: Layout = RPI_PICO) -> list[int]:
    """The 4 KiB sectors a UF2 of ``image`` must write: those of the code (up to flash
    offset ``code_end``) and every sector littlefs reads to mount the filesystem and read
    all its files (see the module's text)."""
    region = _fs_region(image, layout)
    read_blocks: set[int] = set()
    fs = _mount(region, False, layout, _tracing_context(region, read_blocks))
    _walk(fs)
    fs.unmount()
    per_block = layout.block_size // SECTOR_SIZE
    first = layout.fs_offset // SECTOR_SIZE
    code = range((code_end + SECTOR_SIZE - 1) // SECTOR_SIZE)
    data = {first + b * per_block + s for b in read_blocks for s in range(per_block)}
    written = {
        first + i
        for i in range(layout.fs_size // SECTOR_SIZE)
        if region[i * SECTOR_SIZE : (i + 1) * SECTOR_SIZE].count(0xFF) != SECTOR_SIZE
    }
    return sorted(set(code) | data | written)


def load_image(path: Path, layout: Layout = RPI_PICO) -> bytearray:
    """Read a flash image file, checking its size."""
    data = bytearray(path.read_bytes())
    if len(data) != layout.flash_size:
        raise FlashImageError(
            f"{path} is not a Pico flash image ({len(data)} bytes, not {layout.flash_size}): "
            "delete it to start from a fresh flash"
        )
    return data
