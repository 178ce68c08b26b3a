"""Checks for the pseudo-locale (``--lang qps``): every translated string is wrapped in
⟦…⟧, so text left outside the brackets escaped translation (issue 25)."""

from __future__ import annotations

import re
from collections.abc import Iterable

from unolaunch.i18n import PSEUDO_CLOSE, PSEUDO_OPEN

# Tokens that may stand outside the brackets: numbers and rule ids are data.
_DATA = re.compile(r"^(?:\d+|[A-Z]{2,3}-\d+)$")
_TOKEN = re.compile(r"[\w'\u2019-]+")
_LETTER = re.compile(r"[^\W\d_]")


def outside(text: str) -> str:
    """``text`` with every ⟦…⟧ (nested too) removed."""
    out: list[str] = []
    depth = 0
    for ch in text:
        if ch == PSEUDO_OPEN:
            depth += 1
        elif ch == PSEUDO_CLOSE:
            depth = max(0, depth - 1)
        elif depth == 0:
            out.append(ch)
    return "".join(out)


def escaped(lines: Iterable[str], allowed: Iterable[str] = ()) -> list[str]:
    """The lines that hold a word outside ⟦…⟧ that is not data (numbers, rule ids)
    nor one of ``allowed`` (player names, typed input echoed back...)."""
    ok = {a.casefold() for a in allowed}
    bad = []
    for line in lines:
        for token in _TOKEN.findall(outside(line)):
            word = token.strip("-'\u2019")
            if _LETTER.search(word) and word.casefold() not in ok and not _DATA.match(word):
                bad.append(line)
                break
    return bad
