"""Players' names in the Icelandic cases, from the Database of Icelandic Morphology (BÍN,
the ``islenska`` package): *Þóra* is *Þóru* in the accusative, dative and genitive, *Örn*
is *Erni* in the dative and *Arnar* in the genitive, *Ævar* is *Ævari* in the dative.

No hand-written table: a name BÍN knows as a given name is declined as BÍN declines it; a
name it does not know (*Bob*, *Cy*) stays as typed, as Icelandic writes foreign names. A
name BÍN declines two ways (*Auður*: a woman's and a man's name) has no certain form, nor
has any name when ``islenska`` is not installed (it is the ``is`` extra: about 31 MB to
download, 64 MB installed): then :func:`decline` says so (``None``) and the sentence is
written with every name in the nominative (``unolaunch.i18n``: a translation's second
phrasing). A wrong case is never written.

Used by :mod:`unolaunch.i18n` (a translation's ``{who:þgf}``) and by the table's parser,
which reads a name in any of its cases (``grípa Þóru``).
"""

from __future__ import annotations

import functools
import importlib.util
from typing import Any

__all__ = ["CASES", "available", "decline", "forms", "readings"]

#: The cases, as Icelandic grammar names them: nefnifall, þolfall, þágufall, eignarfall.
CASES = ("nf", "þf", "þgf", "ef")
_BIN = {"þf": "ÞF", "þgf": "ÞGF", "ef": "EF"}

#: Set by tests to play a machine without ``islenska``.
disabled = False


def available() -> bool:
    """Whether names can be declined here (the ``islenska`` package is installed)."""
    return not disabled and importlib.util.find_spec("islenska") is not None


@functools.lru_cache(maxsize=1)
def _bin() -> Any:
    from islenska import Bin  # about 0.2 s the first time: the data are memory-mapped

    return Bin()


def _spelt(name: str, form: str) -> str:
    """``form`` written as ``name`` is: ``þóra`` -> ``þóru``, ``ÞÓRA`` -> ``ÞÓRU``."""
    if name.isupper() and len(name) > 1:
        return form.upper()
    if name[:1].islower():
        return form[:1].lower() + form[1:]
    return form


@functools.lru_cache(maxsize=512)
def _lemmas(name: str) -> tuple[dict[str, tuple[str, ...]], ...]:
    """Each given name of BÍN spelt ``name`` (its nominative): the forms of its cases, the
    usual one first (``Guðrún``: ``þf`` ``Guðrúnu``, ``Guðrúni``)."""
    key = name[:1].upper() + name[1:].lower()
    b = _bin()
    _word, found = b.lookup_ksnid(key)
    ids = sorted({(m.ofl, m.bin_id) for m in found if m.ord == key and m.hluti == "ism"})
    out = []
    for ofl, bin_id in ids:
        cases: dict[str, tuple[str, ...]] = {"nf": (key,)}
        for case, bin_case in _BIN.items():
            variants = b.lookup_variants(key, ofl, (bin_case,), bin_id=bin_id)
            # 'ÞGFET' before 'ÞGFET2': the usual form first; singular, no article
            singular = sorted(
                (v.mark, v.bmynd) for v in variants if v.mark.startswith(bin_case + "ET")
            )
            cases[case] = tuple(dict.fromkeys(f for _m, f in singular)) or (key,)
        out.append(cases)
    return tuple(out)


def forms(name: str) -> dict[str, str] | None:
    """The name in each case (``{"nf": "Örn", "þf": "Örn", "þgf": "Erni", "ef": "Arnar"}``,
    spelt as ``name`` is); ``{}`` for a name BÍN does not know (it stays as typed);
    ``None`` where no form is certain (no ``islenska``, or a name declined two ways)."""
    if not available() or not name:
        return None
    lemmas = _lemmas(name)
    if not lemmas:
        return {}
    out: dict[str, str] = {}
    for case in CASES:
        said = {lemma[case][0] for lemma in lemmas}
        if len(said) != 1:
            return None  # Auður: Auð (a man) or Auði (a woman)
        out[case] = _spelt(name, said.pop())
    return out


def decline(name: str, case: str) -> str | None:
    """``name`` in ``case`` (one of :data:`CASES`): ``decline("Þóra", "þgf")`` is ``Þóru``;
    a name BÍN does not know as it is typed (``Bob``); ``None`` when no form is certain."""
    if case == "nf":
        return name
    found = forms(name)
    if found is None:
        return None
    return found.get(case, name)


def readings(name: str) -> frozenset[str]:
    """Every form of ``name`` in lower case (all cases, the less usual ones too: ``Guðrúni``)
    for reading what players type; only ``name`` itself without ``islenska``."""
    return _readings(name, available())


@functools.lru_cache(maxsize=512)
def _readings(name: str, known: bool) -> frozenset[str]:
    out = {name.lower()}
    if known and name:
        for lemma in _lemmas(name):
            out |= {f.lower() for said in lemma.values() for f in said}
    return frozenset(out)
