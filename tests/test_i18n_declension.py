"""Issue 36: names in their Icelandic cases, declined from data (BÍN, the ``islenska``
package: unolaunch.declension), never a wrong case (no ``islenska``, or a name declined two
ways: the nominative phrasing); refusals that quote what was typed; the review table of
every Icelandic sentence (docs/i18n.md) current."""

from __future__ import annotations

import argparse
import contextlib
import importlib.util
import io
import itertools
import re
import string
from collections.abc import Iterator

import pytest
from babel.messages.pofile import read_po
from conftest import REPO
from unolaunch import declension
from unolaunch.commands import apply_language
from unolaunch.i18n import ALTERNATIVE, CASE_FIELD, LOCALE_DIR, _, set_language, use
from unolaunch.table import glossary
from unolaunch.table.parse import Context, ParseError, parse, tokens_of

P = ("Þóra", "Ævar", "Örn")
ATK = Context("attack", P, "Ævar", ("play", "press"), "green", "g3")
MK = Context("mario-kart", P, "Ævar", ("play", "draw"), "red", "r3")


@pytest.fixture
def no_islenska() -> Iterator[None]:
    """A machine without the ``is`` extra."""
    declension.disabled = True
    try:
        yield
    finally:
        declension.disabled = False


def _tool(name: str):  # type: ignore[no-untyped-def]
    spec = importlib.util.spec_from_file_location(name, REPO / "tools" / f"{name}.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_names_are_declined_from_bin() -> None:
    assert declension.forms("Þóra") == {"nf": "Þóra", "þf": "Þóru", "þgf": "Þóru", "ef": "Þóru"}
    assert declension.forms("Örn") == {"nf": "Örn", "þf": "Örn", "þgf": "Erni", "ef": "Arnar"}
    assert declension.decline("Ævar", "þgf") == "Ævari"
    assert declension.decline("Guðrún", "ef") == "Guðrúnar"
    assert declension.decline("þóra", "þf") == "þóru"  # spelt as the name is
    assert declension.decline("Bob", "þgf") == "Bob"  # not an Icelandic name: as typed
    assert declension.forms("Auður") is None  # a woman's (Auði) or a man's (Auð) name
    assert declension.decline("Auður", "þf") is None
    assert declension.readings("Örn") >= {"örn", "erni", "arnar"}


def test_without_islenska_no_name_is_declined(no_islenska: None) -> None:
    assert not declension.available()
    assert declension.decline("Þóra", "þgf") is None
    assert declension.decline("Þóra", "nf") == "Þóra"
    assert declension.readings("Þóra") == {"þóra"}


def _gives(who: str, other: str) -> str:
    with use("is"):
        return _("{who} gives {card} to {other}").format(who=who, card="rautt 5", other=other)


def test_a_sentence_declines_a_name_or_keeps_every_name_in_the_nominative() -> None:
    assert _gives("Þóra", "Örn") == "Þóra gefur Erni rautt 5"
    assert _gives("Örn", "Þóra") == "Örn gefur Þóru rautt 5"
    assert _gives("Þóra", "Bob") == "Þóra gefur Bob rautt 5"
    assert _gives("Þóra", "Auður") == "Þóra gefur rautt 5 og Auður fær það"
    with use("en"):
        assert _("{who} gives {card} to {other}").format(who="Ann", card="red 5", other="Bob") == (
            "Ann gives red 5 to Bob"
        )


def test_without_islenska_every_sentence_keeps_the_names_in_the_nominative(
    no_islenska: None,
) -> None:
    assert _gives("Þóra", "Örn") == "Þóra gefur rautt 5 og Örn fær það"
    with use("is"):
        caught = _("{who} catches {caught} not saying UNO").format(who="Örn", caught="Þóra")
    assert caught == "Þóra sagði ekki UNO og Örn tók eftir því"


def _catalog() -> list[tuple[str, tuple[str, ...], tuple[str, ...]]]:
    with (LOCALE_DIR / "is" / "LC_MESSAGES" / "unolaunch.po").open("rb") as f:
        catalog = read_po(f)
    out = []
    for msg in catalog:
        if msg.id:
            ids = msg.id if isinstance(msg.id, tuple) else (msg.id,)
            strs = msg.string if isinstance(msg.string, tuple) else (msg.string,)
            out.append((msg.context or "", ids, strs))
    return out


def _fields(text: str) -> set[str]:
    return {f for _, f, _, _ in string.Formatter().parse(text) if f is not None}


def test_a_declined_translation_has_its_nominative_phrasing_with_no_new_field() -> None:
    bad = []
    declined = 0
    for _ctx, ids, strs in _catalog():
        for s in strs:
            first, sep, second = s.partition(ALTERNATIVE)
            if not CASE_FIELD.search(s) and not sep:
                continue
            declined += 1
            ok = (
                sep
                and CASE_FIELD.search(first)
                and not CASE_FIELD.search(second)
                and ALTERNATIVE not in second
                and _fields(second) <= _fields(first)
            )
            if not ok:
                bad.append(f"{ids[0]!r} -> {s!r}")
    assert bad == []
    assert declined >= 10  # the mechanism is used, not only possible


def test_the_web_pages_strings_never_decline() -> None:
    """The phones' scripts fill their strings themselves (web/static/common.js)."""
    tool = _tool("catalogs")
    common = {"comment_tags": ("TRANSLATORS:",), "strip_comment_tags": True}
    methods = [(p, tool.extract_html if m == "html" else m) for p, m in tool.WEB_METHODS]
    from babel.messages.extract import extract_from_dir

    found = extract_from_dir(str(REPO), methods, keywords=tool.JS_KEYWORDS, **common)
    web = {m[2] if isinstance(m[2], str) else m[2][0] for m in found}
    assert len(web) > 20
    for _ctx, ids, strs in _catalog():
        if ids[0] in web:
            for s in strs:
                assert not CASE_FIELD.search(s) and ALTERNATIVE not in s, (ids[0], s)


def test_the_parser_reads_a_name_in_its_cases() -> None:
    assert parse("grípa Þóru", ATK) == parse("catch Þóra", ATK)
    assert parse("gríp Erni", ATK) == parse("catch Örn", ATK)
    assert parse("árás blátt á Þóru", ATK) == parse("attack blue Þóra", ATK)


def test_without_islenska_a_declined_name_is_not_read(no_islenska: None) -> None:
    with use("is"), pytest.raises(ParseError, match="áttirðu við 'grípa Þóra'"):
        parse("grípa Þóru", ATK)


def test_lang_is_without_islenska_prints_a_one_line_hint(no_islenska: None) -> None:
    err = io.StringIO()
    try:
        with contextlib.redirect_stderr(err):
            apply_language(argparse.Namespace(lang="is"))
    finally:
        set_language("en")
    assert err.getvalue().count("\n") == 1
    assert "pip install 'unolaunch[is]'" in err.getvalue()


def test_lang_is_with_islenska_prints_no_hint() -> None:
    err = io.StringIO()
    try:
        with contextlib.redirect_stderr(err):
            apply_language(argparse.Namespace(lang="is"))
    finally:
        set_language("en")
    assert err.getvalue() == ""


#: Lines an Icelandic table refuses, each quoting some of what was typed ('...').
_REFUSED = [
    (ATK, "Rauð Fimmaa"),
    (ATK, "rauð blah"),
    (ATK, "GRÆNN Tvistr"),
    (ATK, "tek eitt"),  # no drawing in UNO Attack
    (ATK, "véfengja"),
    (ATK, "legg út Sleppispill"),
    (ATK, "gríp Zed"),
    (MK, "villispil +4 fjólublátt"),
    (MK, "hlutakassi blah"),
    (MK, "blá Nían ojæja"),
    (Context("mario-kart", P, "Þóra", ("choose",), None, None, choice="color"), "Fjólublár"),
    (Context("mario-kart", P, "Þóra", ("choose",), None, None, choice="top"), "Blah Blah"),
    (Context("pocket-pizza", P, "Þóra", ("choose",), None, None, choice="give"), "Ekkert Spil"),
]


@pytest.mark.parametrize(("ctx", "text"), _REFUSED)
def test_a_refusal_never_quotes_a_rewrite_of_what_was_typed(ctx: Context, text: str) -> None:
    """Not the parser's English ('red 5' for 'Rauð Fimmaa'), not lower-cased: the words as
    typed; and a suggestion is a word of the game's language."""
    with use("is"), pytest.raises(ParseError) as err:
        parse(text, ctx)
    message = str(err.value)
    quoted = set(re.findall(r"'([^']*)'", message))
    typed = text.split()
    spans = [" ".join(typed[i:j]) for i, j in itertools.combinations(range(len(typed) + 1), 2)]
    rewrites = {" ".join(tokens_of(span)) for span in spans} | {span.lower() for span in spans}
    assert not quoted & (rewrites - set(spans)), message
    for meant in re.findall(r"áttirðu við '([^']*)'", message):
        assert meant in glossary.TERMS or meant in P, meant


@pytest.mark.parametrize(
    ("ctx", "text", "quote"),
    [
        (ATK, "Rauð Fimmaa", "'Fimmaa'"),
        (ATK, "GRÆNN Tvistr", "'Tvistr'"),
        (ATK, "legg út Sleppispill", "'Sleppispill'"),
        (MK, "blá Nían ojæja", "'ojæja'"),
        (Context("mario-kart", P, "Þóra", ("choose",), None, None, choice="color"), "Fjólublár",
         "'Fjólublár'"),
        (Context("mario-kart", P, "Þóra", ("choose",), None, None, choice="top"), "Blah Blah",
         "'Blah Blah'"),
    ],
)  # fmt: skip
def test_a_refusal_quotes_exactly_what_was_typed(ctx: Context, text: str, quote: str) -> None:
    with use("is"), pytest.raises(ParseError) as err:
        parse(text, ctx)
    assert quote in str(err.value)


def test_the_review_table_of_every_icelandic_sentence_is_current() -> None:
    """docs/i18n.md: regenerate with python tools/i18n_review.py."""
    tool = _tool("i18n_review")
    assert tool.main(["check"]) == 0
    assert "| {who} gives {card} to {other} |" in (REPO / "docs" / "i18n.md").read_text()
