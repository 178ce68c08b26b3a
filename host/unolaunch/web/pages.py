"""The web pages in the language of whoever reads them (issue 25).

A page is an HTML file of ``web/static`` with three kinds of marks, filled per request:

``{{lang}}``
    the page's language (``<html lang="is">``);
``{{_:Some words}}``
    a text of the page, translated (whitespace inside is one space: the catalog's msgid;
    ``tools/catalogs.py`` extracts these marks);
``{{catalog}}``
    the catalog the page's scripts read: ``<script type="application/json" id="i18n">``
    with every string the scripts mark (``t("...")``, ``tn("...", "...", n)``,
    ``tc("context", "...")``, ``tp``, ``tnp`` in ``static/*.js``) in the page's language,
    the plural form of each count 0..199 and the languages a phone may choose. A data
    block, never run: the Content-Security-Policy (no inline scripts) is unchanged.

Which language: the table view follows the game (the process language set by ``--lang``);
a player's page is in the language that phone chose (its ``unolaunch_lang`` cookie, set by
the page's language button for its own link's path), else the game's.
"""

from __future__ import annotations

import html
import json
import re
from collections.abc import Iterable, Mapping
from functools import cache
from importlib import resources
from typing import Any

from unolaunch.i18n import LANGUAGES, PSEUDO, _, language_names, translations, use

#: The cookie a phone's language button sets (for its own link's path).
LANG_COOKIE = "unolaunch_lang"
#: The languages a page may be asked for (the pseudo-locale too: tests).
PAGE_LANGUAGES = (*LANGUAGES, PSEUDO)
#: Counts whose plural form is sent; a larger n uses 100 + n % 100 (see common.js).
PLURAL_SPAN = 200

_MARK = re.compile(r"\{\{_:(.*?)\}\}", re.S)
_JS_STRING = r'"((?:[^"\\\n]|\\.)*)"'
_JS_CALL = re.compile(
    r"(?:(?<=\.\.\.)|(?<![\w.$]))(tnp|tn|tc|tp|t)\(\s*"
    + _JS_STRING
    + r"(?:\s*,\s*"
    + _JS_STRING
    + r")?"
)
#: The scripts whose strings the pages' catalog holds.
SCRIPTS = ("common.js", "table.js", "player.js")

#: A script's message: (context or None, msgid, plural msgid or None).
Message = tuple[str | None, str, str | None]


def valid(lang: str | None) -> str | None:
    """``lang`` when a page may be in it, else None."""
    return lang if lang in PAGE_LANGUAGES else None


def one_line(text: str) -> str:
    """A marked text of a page as its msgid (runs of whitespace are one space)."""
    return " ".join(text.split())


def page_marks(text: str) -> list[str]:
    """The msgids of a page's ``{{_:...}}`` marks, in order."""
    return [one_line(m.group(1)) for m in _MARK.finditer(text)]


def script_messages(source: str) -> list[Message]:
    """The strings a script marks for translation (what Babel extracts with the keywords
    of tools/catalogs.py), in order: double-quoted literals, as the scripts write them."""
    out: list[Message] = []
    for m in _JS_CALL.finditer(source):
        name, first, second = m.group(1), json.loads(f'"{m.group(2)}"'), m.group(3)
        second = json.loads(f'"{second}"') if second is not None else None
        if name == "tc":
            if second is not None:
                out.append((first, second, None))
        elif name in ("tn", "tnp"):
            if second is not None:
                out.append((None, first, second))
        else:
            out.append((None, first, None))
    return out


def _plural_of(lang: str) -> Any:
    found = getattr(translations(lang), "plural", None)
    return found if callable(found) else (lambda n: int(n != 1))


def catalog(lang: str, messages: Iterable[Message]) -> dict[str, Any]:
    """What a page's scripts need to speak ``lang``: ``messages`` translated (a plural
    message as its list of forms; one with a context under ``context\\x04msgid``), the
    plural form of 0..199 and the language names for a language button."""
    tr = translations(lang)
    plural = _plural_of(lang)
    table = [int(plural(n)) for n in range(PLURAL_SPAN)]
    sample = {i: table.index(i) for i in sorted(set(table))}  # a count of each form
    out: dict[str, Any] = {}
    for context, msgid, msgid_plural in messages:
        if context is not None:
            out[f"{context}\x04{msgid}"] = tr.pgettext(context, msgid)
        elif msgid_plural is not None:
            out[msgid] = [tr.ngettext(msgid, msgid_plural, n) for n in sample.values()]
        else:
            out[msgid] = tr.gettext(msgid)
    return {"lang": lang, "messages": out, "plural": table, "names": language_names()}


@cache
def _scripts_messages() -> tuple[Message, ...]:
    folder = resources.files("unolaunch.web").joinpath("static")
    found: dict[Message, None] = {}
    for name in SCRIPTS:
        for msg in script_messages(folder.joinpath(name).read_text("utf-8")):
            found[msg] = None
    return tuple(found)


@cache
def catalog_json(lang: str, game: str) -> str:
    """The ``{{catalog}}`` block for a page in ``lang`` of a game in ``game``."""
    data = catalog(lang, _scripts_messages())
    data["game"] = game
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
    # inside <script> only "</" could end the block early
    text = text.replace("<", "\\u003c")
    return f'<script type="application/json" id="i18n">{text}</script>'


def render(template: str, lang: str, game: str, versions: Mapping[str, str] | None = None) -> str:
    """The page ``template`` in ``lang`` (marks filled; the static files' addresses
    versioned by ``versions``, a new content being a new address)."""
    with use(lang):
        body = _MARK.sub(lambda m: html.escape(_(one_line(m.group(1)))), template)
    body = body.replace("{{lang}}", lang).replace("{{catalog}}", catalog_json(lang, game))
    for asset, version in (versions or {}).items():
        body = body.replace(f'"/static/{asset}"', f'"/static/{asset}?v={version}"')
    return body
