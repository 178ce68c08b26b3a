"""A reference model of the ARMv6-M rules for the flag-setting Thumb instructions.

Written from the ARMv6-M Architecture Reference Manual's pseudocode (``AddWithCarry``,
``Shift_C`` with ``LSL_C``/``LSR_C``/``ASR_C``/``ROR_C``, ``DecodeImmShift``), not from any
emulator, so that tests/test_rp2040_isa.py can judge the emulated RP2040's CPU by it. Pure:
every function maps values to values. Flags are a 4-bit NZCV number (N = 8, Z = 4, C = 2,
V = 1), as in the top nibble of the APSR.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

MASK = 0xFFFFFFFF
N, Z, C, V = 8, 4, 2, 1


def _sint(x: int) -> int:
    return x - (1 << 32) if x & 0x80000000 else x


def add_with_carry(x: int, y: int, carry_in: int) -> tuple[int, int, int]:
    """``AddWithCarry(x, y, carry_in)``: (result, carry_out, overflow)."""
    unsigned_sum = x + y + carry_in
    signed_sum = _sint(x) + _sint(y) + carry_in
    result = unsigned_sum & MASK
    return result, int(result != unsigned_sum), int(_sint(result) != signed_sum)


def shift_c(kind: str, value: int, amount: int, carry_in: int) -> tuple[int, int]:
    """``Shift_C(value, type, amount, carry_in)`` for LSL, LSR, ASR, ROR: (result, carry)."""
    if amount == 0:
        return value, carry_in
    if kind == "LSL":
        extended = value << amount
        return extended & MASK, (extended >> 32) & 1
    if kind == "LSR":
        return (value >> amount) & MASK, (value >> (amount - 1)) & 1
    if kind == "ASR":
        signed = _sint(value)
        return (signed >> amount) & MASK, (signed >> (amount - 1)) & 1
    if kind == "ROR":
        m = amount % 32
        result = ((value >> m) | (value << (32 - m))) & MASK
        return result, result >> 31
    raise ValueError(f"no shift {kind!r}")


def _nz(result: int, c: int, v: int) -> int:
    return (N if result & 0x80000000 else 0) | (Z if result == 0 else 0) | (c << 1) | v


#: An instruction's semantics: (Rdn, Rm, NZCV in) -> (Rdn after, NZCV after).
Semantics = Callable[[int, int, int], tuple[int, int]]


def _arith(fn: Callable[[int, int, int], tuple[int, int, int]], writes: bool) -> Semantics:
    def run(x: int, y: int, flags: int) -> tuple[int, int]:
        result, c, v = fn(x, y, (flags >> 1) & 1)
        return (result if writes else x), _nz(result, c, v)

    return run


def _shift_reg(kind: str) -> Semantics:
    # the shift amount is the bottom byte of Rm; V is unchanged
    def run(x: int, y: int, flags: int) -> tuple[int, int]:
        result, c = shift_c(kind, x, y & 0xFF, (flags >> 1) & 1)
        return result, _nz(result, c, flags & V)

    return run


def _shift_imm(kind: str, imm5: int) -> Semantics:
    # DecodeImmShift: LSR/ASR #0 encode a shift by 32; LSL #0 is MOVS (flags C, V kept)
    amount = 32 if imm5 == 0 and kind != "LSL" else imm5

    def run(x: int, y: int, flags: int) -> tuple[int, int]:
        result, c = shift_c(kind, x, amount, (flags >> 1) & 1)
        return result, _nz(result, c, flags & V)

    return run


def _logic(fn: Callable[[int, int], int], writes: bool = True) -> Semantics:
    # no shift in the 16-bit encodings: C and V are unchanged
    def run(x: int, y: int, flags: int) -> tuple[int, int]:
        result = fn(x, y) & MASK
        return (result if writes else x), _nz(result, (flags >> 1) & 1, flags & V)

    return run


@dataclass(frozen=True)
class Instr:
    """One 16-bit Thumb instruction with Rdn = r1 and Rm = r2 (or an immediate)."""

    name: str
    opcode: int
    semantics: Semantics
    two_operands: bool = True  # False: Rm unused (immediate forms)


def _dp(opc: int) -> int:
    """Data-processing (register) encoding T1, Rdn = r1, Rm = r2."""
    return 0x4000 | (opc << 6) | (2 << 3) | 1


def instructions() -> list[Instr]:
    """Every flag-setting ARMv6-M 16-bit data-processing instruction, with edge
    immediates for the immediate forms."""

    def add(x: int, y: int, c: int) -> tuple[int, int, int]:
        return add_with_carry(x, y, 0)

    def sub(x: int, y: int, c: int) -> tuple[int, int, int]:
        return add_with_carry(x, ~y & MASK, 1)

    out = [
        Instr("ADCS", _dp(5), _arith(lambda x, y, c: add_with_carry(x, y, c), True)),
        Instr("SBCS", _dp(6), _arith(lambda x, y, c: add_with_carry(x, ~y & MASK, c), True)),
        Instr("ADDS", 0x1800 | (2 << 6) | (1 << 3) | 1, _arith(add, True)),
        Instr("SUBS", 0x1A00 | (2 << 6) | (1 << 3) | 1, _arith(sub, True)),
        Instr("CMP", _dp(10), _arith(sub, False)),
        Instr("CMN", _dp(11), _arith(add, False)),
        Instr("RSBS", _dp(9), _arith(lambda x, y, c: add_with_carry(~y & MASK, 0, 1), True)),
        Instr("LSLS", _dp(2), _shift_reg("LSL")),
        Instr("LSRS", _dp(3), _shift_reg("LSR")),
        Instr("ASRS", _dp(4), _shift_reg("ASR")),
        Instr("RORS", _dp(7), _shift_reg("ROR")),
        Instr("ANDS", _dp(0), _logic(lambda x, y: x & y)),
        Instr("EORS", _dp(1), _logic(lambda x, y: x ^ y)),
        Instr("TST", _dp(8), _logic(lambda x, y: x & y, writes=False)),
        Instr("ORRS", _dp(12), _logic(lambda x, y: x | y)),
        Instr("MULS", _dp(13), _logic(lambda x, y: x * y)),
        Instr("BICS", _dp(14), _logic(lambda x, y: x & ~y)),
        Instr("MVNS", _dp(15), _logic(lambda x, y: ~y)),
    ]
    for imm5 in (0, 1, 31):
        for kind, base in (("LSL", 0x0000), ("LSR", 0x0800), ("ASR", 0x1000)):
            op = base | (imm5 << 6) | (1 << 3) | 1
            out.append(Instr(f"{kind}S #{imm5}", op, _shift_imm(kind, imm5), False))
    for imm in (0, 1, 7):
        out.append(Instr(f"ADDS #{imm}(3)", 0x1C00 | (imm << 6) | 9, _imm(add, imm, True)))
        out.append(Instr(f"SUBS #{imm}(3)", 0x1E00 | (imm << 6) | 9, _imm(sub, imm, True)))
    for imm in (0, 1, 0x7F, 0x80, 0xFF):
        out.append(Instr(f"ADDS #{imm}(8)", 0x3100 | imm, _imm(add, imm, True)))
        out.append(Instr(f"SUBS #{imm}(8)", 0x3900 | imm, _imm(sub, imm, True)))
        out.append(Instr(f"CMP #{imm}", 0x2900 | imm, _imm(sub, imm, False)))
        out.append(Instr(f"MOVS #{imm}", 0x2100 | imm, _logic(lambda x, y, i=imm: i), False))
    return out


def _imm(fn: Callable[[int, int, int], tuple[int, int, int]], imm: int, writes: bool) -> Semantics:
    sem = _arith(fn, writes)

    def run(x: int, y: int, flags: int) -> tuple[int, int]:
        return sem(x, imm, flags)

    return run
