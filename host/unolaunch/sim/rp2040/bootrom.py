"""What the RP2040's boot ROM does with a ``.uf2`` copied onto its RPI-RP2 drive, for the
emulated chip (the runner starts the chip at the image and never runs the ROM's USB drive).

As pico-bootrom's ``bootrom/virtual_disk.c`` (``vd_write_block``, ``_update_current_uf2_info``,
``_write_uf2_page``): a block counts only if it carries the RP2040 family id, is meant for
main flash, holds exactly 256 bytes and targets a 256-byte page of the flash; a block whose
``numBlocks`` differs from the transfer's starts a new transfer; the ROM erases the 4 KiB
sector of a block's address before the first block of each run of 16 *block numbers*
(its bitmap is kept per block number, not per address), programs each page once (a NOR
program only clears bits), ignores a repeated block, and restarts the chip when every block
of the transfer has arrived.
"""

from __future__ import annotations

import struct

from unolaunch.rp2image import (
    FAMILY_RP2040,
    PAGE_SIZE,
    SECTOR_SIZE,
    UF2_BLOCK,
    UF2_FLAG_FAMILY,
    UF2_FLAG_NOT_MAIN_FLASH,
    UF2_MAGIC,
    XIP_BASE,
)

__all__ = ["copy_uf2"]


def copy_uf2(flash: bytearray, data: bytes) -> bool:
    """Write the blocks of ``data`` (a ``.uf2`` file's bytes, in the order the host writes
    them) into ``flash`` as the boot ROM does. True when the transfer is complete: the ROM
    would restart the chip now; False leaves a Pico still waiting in BOOTSEL mode."""
    total = 0  # the transfer's numBlocks; 0: no transfer
    valid: set[int] = set()
    erased: set[int] = set()  # runs of 16 block numbers whose sector was erased
    for at in range(0, len(data) - UF2_BLOCK + 1, UF2_BLOCK):
        m0, m1, flags, addr, size, number, blocks, family = struct.unpack_from("<8I", data, at)
        (end,) = struct.unpack_from("<I", data, at + UF2_BLOCK - 4)
        if (m0, m1, end) != UF2_MAGIC:
            continue  # not a UF2 sector (a file system's own write)
        if not (
            flags & UF2_FLAG_FAMILY
            and family == FAMILY_RP2040
            and not flags & UF2_FLAG_NOT_MAIN_FLASH
            and size == PAGE_SIZE
        ):
            continue  # "ignoring write of non Mu UF2 sector"
        offset = addr - XIP_BASE
        if not blocks or offset % PAGE_SIZE or not 0 <= offset <= len(flash) - PAGE_SIZE:
            total = 0  # garbage: the transfer is reset
            continue
        if blocks != total:  # a new transfer
            total, valid, erased = blocks, set(), set()
        if number >= total or number in valid:
            continue
        run = number * PAGE_SIZE // SECTOR_SIZE
        if run not in erased:
            sector = offset - offset % SECTOR_SIZE
            flash[sector : sector + SECTOR_SIZE] = b"\xff" * SECTOR_SIZE
            erased.add(run)
        old = int.from_bytes(flash[offset : offset + PAGE_SIZE])
        new = int.from_bytes(data[at + 32 : at + 32 + PAGE_SIZE])
        flash[offset : offset + PAGE_SIZE] = (old & new).to_bytes(PAGE_SIZE)
        valid.add(number)
    return total > 0 and len(valid) == total
