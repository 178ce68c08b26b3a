"""The table's words in the players' language: ``gettext`` catalogs, chosen per process or
per request.

Every user-visible string of the table goes through one of::

    _("Ann plays {card}").format(card=...)          # a sentence
    ngettext("{n} card", "{n} cards", n).format(n=n) # a count (plural forms per language)
    N_("red")                                        # marked for the catalog, translated later
    Nn_("{n} card", "{n} cards")                     # a count marked, put in words later

Write whole sentences with named ``{fields}`` (never glue translated pieces, never
``%``-format): a translator must be able to move the words. ``N_`` marks module-level
constants; translate them where they are shown (``_(CONSTANT)``).

The catalogs are ``locale/<lang>/LC_MESSAGES/unolaunch.po`` in this package, extracted and
updated with Babel (see docs/i18n.md); the build hook (``hatch_build.py``) compiles them to
``.mo`` files that ship in the wheel. In a source checkout where a ``.po`` is newer than its
``.mo`` (or no ``.mo`` was built) the catalog is compiled in memory with Babel, so an edited
translation shows at once.

A translation may put a player's name in a case (Icelandic: ``{who:þgf}`` for *Þóru*,
``{who:þf}``, ``{who:ef}``): the name is declined from data (:mod:`unolaunch.declension`).
Such a translation also writes the sentence with every name in the nominative, after
`` ‖ ``: that phrasing is used where a name has no certain form (``islenska`` is not
installed, or BÍN declines the name two ways), so that no name is ever in a wrong case::

    msgstr "{who} gefur {other:þgf} {card} ‖ {who} gefur {card} og {other} fær það"

Languages: ``en`` (the source strings), ``is`` (Icelandic), and ``qps``, a pseudo-locale for
tests that wraps every translated string in ``⟦…⟧`` (a line with text outside the brackets
escaped translation). The process language is set once by the command (``set_language``);
code that renders for someone else (a phone that chose its own language) wraps its work in
``with use(lang):``.
"""

from __future__ import annotations

import contextlib
import gettext as _gettext
import io
import os
import re
import string
from collections.abc import Iterator, Mapping
from contextvars import ContextVar
from pathlib import Path
from typing import Any

__all__ = [
    "ALTERNATIVE",
    "DOMAIN",
    "LANGUAGES",
    "LOCALE_DIR",
    "N_",
    "PSEUDO",
    "PSEUDO_CLOSE",
    "PSEUDO_OPEN",
    "Nn_",
    "Sentence",
    "_",
    "choose_language",
    "current",
    "language_names",
    "ngettext",
    "pgettext",
    "set_language",
    "translations",
    "use",
]

DOMAIN = "unolaunch"
LOCALE_DIR = Path(__file__).resolve().parent / "locale"
#: The languages a player may choose, in the order offered (``qps`` is for tests only).
LANGUAGES = ("en", "is")
PSEUDO = "qps"
PSEUDO_OPEN = "⟦"
PSEUDO_CLOSE = "⟧"

# Each language's name in itself, for a language button.
_NAMES = {"en": "English", "is": "Íslenska", PSEUDO: "⟦pseudo⟧"}


class _Pseudo(_gettext.NullTranslations):
    """Every string wrapped in ⟦…⟧, so a test sees any text that bypassed the catalog."""

    def gettext(self, message: str) -> str:
        return f"{PSEUDO_OPEN}{message}{PSEUDO_CLOSE}"

    def ngettext(self, msgid1: str, msgid2: str, n: int) -> str:
        return self.gettext(msgid1 if n == 1 else msgid2)

    def pgettext(self, context: str, message: str) -> str:
        return self.gettext(message)


_cache: dict[str, _gettext.NullTranslations] = {}
_process: list[str] = ["en"]
_request: ContextVar[str | None] = ContextVar("unolaunch_language", default=None)


def _load(lang: str) -> _gettext.NullTranslations:
    if lang == PSEUDO:
        return _Pseudo()
    if lang == "en":
        return _gettext.NullTranslations()
    folder = LOCALE_DIR / lang / "LC_MESSAGES"
    po, mo = folder / f"{DOMAIN}.po", folder / f"{DOMAIN}.mo"
    if po.exists() and (not mo.exists() or mo.stat().st_mtime < po.stat().st_mtime):
        # A source checkout: the .po is the truth (compiled in memory, nothing written).
        with contextlib.suppress(ImportError):
            from babel.messages.mofile import write_mo
            from babel.messages.pofile import read_po

            with po.open("rb") as f:
                catalog = read_po(f, locale=lang, domain=DOMAIN)
            buf = io.BytesIO()
            write_mo(buf, catalog, use_fuzzy=False)
            buf.seek(0)
            return _gettext.GNUTranslations(buf)
    if mo.exists():
        with mo.open("rb") as f:
            return _gettext.GNUTranslations(f)
    raise LookupError(f"no catalog for language {lang!r} in {folder}")


def translations(lang: str | None = None) -> _gettext.NullTranslations:
    """The catalog of ``lang`` (default: the current language), loaded once."""
    lang = lang or current()
    found = _cache.get(lang)
    if found is None:
        found = _cache[lang] = _load(lang)
    return found


def current() -> str:
    """The language strings are translated into here and now."""
    return _request.get() or _process[0]


def set_language(lang: str) -> None:
    """Make ``lang`` the process's language (the command's ``--lang``, or the locale's)."""
    if lang not in LANGUAGES and lang != PSEUDO:
        raise ValueError(f"unknown language {lang!r}: choose one of {', '.join(LANGUAGES)}")
    translations(lang)  # fail here, not at the first string
    _process[0] = lang


@contextlib.contextmanager
def use(lang: str) -> Iterator[None]:
    """Translate into ``lang`` inside the block (this thread/task only)."""
    translations(lang)
    token = _request.set(lang)
    try:
        yield
    finally:
        _request.reset(token)


def choose_language(asked: str | None, environ: Mapping[str, str] | None = None) -> str:
    """``--lang`` if given, else the first of ``LC_ALL``, ``LC_MESSAGES``, ``LANG`` that
    names a language we have (``is_IS.UTF-8`` → ``is``), else English.

    ``asked`` must be a known language (the command's parser checks it). As with gettext,
    the first variable that is set decides: ``LC_ALL=C`` means English even if ``LANG`` is
    Icelandic.
    """
    if asked:
        return asked
    env = os.environ if environ is None else environ
    for var in ("LC_ALL", "LC_MESSAGES", "LANG"):
        value = env.get(var, "")
        if not value:
            continue
        code = value.split(".")[0].split("@")[0].split("_")[0].lower()
        return code if code in LANGUAGES or code == PSEUDO else "en"
    return "en"


def language_names() -> dict[str, str]:
    """Each offered language's name in that language (``{"is": "Íslenska", ...}``)."""
    return {lang: _NAMES[lang] for lang in LANGUAGES}


#: Between a translation with declined names and the same sentence with every name in the
#: nominative (see the module's docstring).
ALTERNATIVE = " ‖ "
#: A field put in a case: ``{who:þgf}``.
CASE_FIELD = re.compile(r"\{[^{}:]*:(?:nf|þf|þgf|ef)\}")


class _Undeclined(Exception):
    """A name in a case has no certain form here."""


class _Cases(string.Formatter):
    """``str.format`` that also reads a case after a field (``{who:þgf}``)."""

    def __init__(self, strict: bool) -> None:
        self.strict = strict  # no certain form: raise (else the name as it is)

    def format_field(self, value: Any, format_spec: str) -> Any:
        from unolaunch import declension

        if format_spec in declension.CASES:
            form = declension.decline(str(value), format_spec)
            if form is None and self.strict:
                raise _Undeclined
            return form if form is not None else str(value)
        return super().format_field(value, format_spec)


class Sentence(str):
    """A translated string whose :meth:`format` declines the names a translation puts in a
    case, or takes the translation's nominative phrasing (after :data:`ALTERNATIVE`)."""

    def format(self, /, *args: Any, **kwargs: Any) -> str:
        """The sentence with its fields filled (``str.format``), names in their cases."""
        text = str(self)
        if ALTERNATIVE not in text and not CASE_FIELD.search(text):
            return text.format(*args, **kwargs)
        declined, _sep, nominative = text.partition(ALTERNATIVE)
        try:
            return _Cases(strict=True).format(declined, *args, **kwargs)
        except _Undeclined:
            # no alternative (a translation should give one): the names as they are typed
            return _Cases(strict=False).format(nominative or declined, *args, **kwargs)


def _(message: str) -> str:
    """``message`` in the current language."""
    return Sentence(translations().gettext(message))


def ngettext(singular: str, plural: str, n: int) -> str:
    """The form of ``singular``/``plural`` that fits ``n`` in the current language."""
    return Sentence(translations().ngettext(singular, plural, n))


def pgettext(context: str, message: str) -> str:
    """``message`` in the current language, told apart from the same English word used
    elsewhere by ``context`` (``pgettext("card", "Skip")`` vs a command)."""
    return Sentence(translations().pgettext(context, message))


def N_(message: str) -> str:
    """Mark ``message`` for the catalog without translating it (translate where shown)."""
    return message


def Nn_(singular: str, plural: str) -> tuple[str, str]:
    """Mark a count's ``singular``/``plural`` for the catalog without translating them:
    a message kept as data and put in words later (``ngettext(*ids, n)`` where shown)."""
    return singular, plural
