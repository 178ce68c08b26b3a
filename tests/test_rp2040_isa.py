"""The emulated RP2040's CPU against the ARMv6-M rules: every flag-setting 16-bit Thumb
data-processing instruction, on exhaustive edge operands and every carry/overflow in, run
through MicroPython's inline assembler on the emulated chip and compared with the reference
model in armv6m_model.py (result and NZCV).

Both of the runner's ways of executing an instruction are checked: its fast decoder
(``runner.js`` makeFastCore) and the rp2040js core it falls back to (taken for every
instruction with ``UNOLAUNCH_RP2_CORE=stock``). Stock rp2040js 1.4.1 got 4 families wrong
(issue 26): V of ADCS with Rdn = 0x7FFFFFFF and carry in, V of SBCS with Rm = 0x7FFFFFFF and
no carry in, C of LSLS by register for shifts of 33-255, C of LSRS/ASRS/RORS by register for
a shift of 0.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest
from armv6m_model import C, N, V, Z, add_with_carry, instructions, shift_c
from rp2_plain import plain_board, run_script

EDGE = (0, 1, 0x7FFFFFFF, 0x80000000, 0xFFFFFFFF)
#: Rm of a shift by register: the amount is its bottom byte (0x100 shifts by 0).
SHIFTS = (0, 1, 31, 32, 33, 255, 0x100, 0xFFFFFF20)
#: NZCV in: each carry and overflow in, and N/Z in both ways.
FLAGS_IN = (0, C, V, C | V, N | Z, N | Z | C | V)
SHIFT_BY_REGISTER = {"LSLS", "LSRS", "ASRS", "RORS"}


def _operands(name: str, two: bool) -> tuple[tuple[int, ...], tuple[int, ...]]:
    if name in SHIFT_BY_REGISTER:
        return (*EDGE, 0xAAAAAAAA), SHIFTS
    return EDGE, EDGE if two else (0,)


# The board runs each instruction between an MSR that sets NZCV and an MRS that reads it
# back, given Rdn in r1 and Rm in r2 through an array (no int conversion of arguments).
_PRELUDE = """\
import micropython, array
b = array.array('I', [0, 0, 0, 0, 0])
F = %r
def run(f, X, Y):
    out = []
    for x in X:
        for y in Y:
            for fl in F:
                b[0] = x; b[1] = y; b[2] = fl << 28
                f(b)
                out.append('%%08x%%x' %% (b[3], b[4] >> 28))
    print(''.join(out))
"""
_FUNC = """
@micropython.asm_thumb
def f(r0):
    ldr(r1, [r0, 0])
    ldr(r2, [r0, 4])
    ldr(r3, [r0, 8])
    data(2, 0xf383, 0x8800)
    data(2, 0x%04x)
    data(2, 0xf3ef, 0x8300)
    str(r1, [r0, 12])
    str(r3, [r0, 16])
run(f, %r, %r)
"""


def _flags(f: int) -> str:
    return "".join(ch if f & bit else "-" for ch, bit in zip("NZCV", (N, Z, C, V), strict=True))


def test_the_reference_model_on_the_manuals_examples() -> None:
    # 0x7FFFFFFF + 0 + carry: signed overflow into 0x80000000 (ADCS, the first family)
    assert add_with_carry(0x7FFFFFFF, 0, 1) == (0x80000000, 0, 1)
    # SBCS with Rm = 0x7FFFFFFF, no carry: 0 - 0x7FFFFFFF - 1 = 0x80000000, no overflow
    assert add_with_carry(0, ~0x7FFFFFFF & 0xFFFFFFFF, 0) == (0x80000000, 0, 0)
    assert add_with_carry(0xFFFFFFFF, 1, 0) == (0, 1, 0)
    assert add_with_carry(0x80000000, 0x80000000, 0) == (0, 1, 1)
    assert shift_c("LSL", 0xFFFFFFFF, 32, 0) == (0, 1)
    assert shift_c("LSL", 0xFFFFFFFF, 33, 1) == (0, 0)
    assert shift_c("LSR", 0x80000000, 32, 0) == (0, 1)
    assert shift_c("LSR", 0x80000000, 0, 0) == (0x80000000, 0)
    assert shift_c("ASR", 0x80000000, 255, 0) == (0xFFFFFFFF, 1)
    assert shift_c("ROR", 0x80000001, 32, 0) == (0x80000001, 1)
    assert shift_c("ROR", 0x00000001, 1, 0) == (0x80000000, 1)


@pytest.mark.rp2040
@pytest.mark.parametrize("core", ["fast", "stock"])
def test_flag_setting_instructions_follow_armv6m(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, core: str
) -> None:
    monkeypatch.setenv("UNOLAUNCH_RP2_CORE", core)
    instrs = instructions()
    script = _PRELUDE % (FLAGS_IN,)
    for ins in instrs:
        script += _FUNC % (ins.opcode, *_operands(ins.name, ins.two_operands))
    with plain_board(tmp_path / "flash") as sim:
        lines = run_script(sim.port, script, timeout=300).split()
    assert len(lines) == len(instrs)
    wrong: list[str] = []
    cases = 0
    for ins, line in zip(instrs, lines, strict=True):
        xs, ys = _operands(ins.name, ins.two_operands)
        got = [line[i : i + 9] for i in range(0, len(line), 9)]
        want = [(x, y, f) for x in xs for y in ys for f in FLAGS_IN]
        assert len(got) == len(want), ins.name
        for (x, y, f), g in zip(want, got, strict=True):
            cases += 1
            result, flags = ins.semantics(x, y, f)
            g_result, g_flags = int(g[:8], 16), int(g[8], 16)
            if (g_result, g_flags) != (result, flags):
                wrong.append(
                    f"{ins.name} Rdn={x:#010x} Rm={y:#010x} in {_flags(f)}: "
                    f"{g_result:#010x} {_flags(g_flags)}, ARMv6-M says {result:#010x} "
                    f"{_flags(flags)}"
                )
    assert cases > 3000
    families = Counter(w.split(" Rdn")[0] for w in wrong)
    summary = ", ".join(f"{name} {n}" for name, n in families.items())
    assert not wrong, f"{len(wrong)} of {cases} cases wrong ({summary}):\n" + "\n".join(wrong[:40])
