"""Keep the translation catalogs in step with the code (Babel).

    python tools/catalogs.py update   # extract the strings, update every .po (new ones empty)
    python tools/catalogs.py check    # list what a language lacks; exit 1 if anything

``update`` writes ``host/unolaunch/locale/unolaunch.pot`` and merges it into each
``locale/<lang>/LC_MESSAGES/unolaunch.po``: new strings arrive untranslated, changed ones
fuzzy, removed ones are dropped. Translate, then ``check`` (the test suite runs it too:
tests/test_i18n.py). To add a language: ``pybabel init -D unolaunch -i
host/unolaunch/locale/unolaunch.pot -d host/unolaunch/locale -l LANG`` and see docs/i18n.md.
"""

from __future__ import annotations

import datetime
import itertools
import re
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from babel.messages.catalog import Catalog
from babel.messages.extract import extract_from_dir
from babel.messages.pofile import read_po, write_po

ROOT = Path(__file__).resolve().parent.parent
LOCALE = ROOT / "host" / "unolaunch" / "locale"
POT = LOCALE / "unolaunch.pot"
DOMAIN = "unolaunch"
METHODS = [("host/unolaunch/**.py", "python")]
FIXED_DATE = datetime.datetime(2026, 12, 1, tzinfo=datetime.UTC)
KEYWORDS = {
    "_": None,
    "gettext": None,
    "ngettext": (1, 2),
    "pgettext": ((1, "c"), 2),
    "N_": None,
    "Nn_": (1, 2),
}
#: The web pages' scripts mark their strings with t/tn/tc/tp/tnp (web/static/common.js);
#: their pages mark text as {{_:...}} (web/pages.py).
WEB_METHODS = [
    ("host/unolaunch/web/static/**.js", "javascript"),
    ("host/unolaunch/web/static/**.html", "html"),
]
JS_KEYWORDS = {"t": None, "tp": None, "tn": (1, 2), "tnp": (1, 2), "tc": ((1, "c"), 2)}


def extract_html(
    fileobj: Any, keywords: Any, comment_tags: Any, options: Any
) -> Iterator[tuple[int, str, str, list[str]]]:
    """Babel extractor of a web page's ``{{_:...}}`` marks (whitespace as one space)."""
    text = fileobj.read().decode("utf-8")
    for m in re.finditer(r"\{\{_:(.*?)\}\}", text, re.S):
        yield text.count("\n", 0, m.start()) + 1, "t", " ".join(m.group(1).split()), []


def extract() -> Catalog:
    """Every marked string of the code, as a template catalog."""
    catalog = Catalog(project="unolaunch", domain=DOMAIN, charset="utf-8")
    common = {"comment_tags": ("TRANSLATORS:",), "strip_comment_tags": True}
    web_methods = [(p, extract_html if m == "html" else m) for p, m in WEB_METHODS]
    found = itertools.chain(
        extract_from_dir(str(ROOT), METHODS, keywords=KEYWORDS, **common),  # type: ignore[arg-type]
        extract_from_dir(str(ROOT), web_methods, keywords=JS_KEYWORDS, **common),  # type: ignore[arg-type]
    )
    for filename, lineno, message, comments, context in found:
        catalog.add(message, None, [(filename, lineno)], auto_comments=comments, context=context)
    return catalog


def po_files() -> list[Path]:
    """Each language's catalog."""
    return sorted(LOCALE.glob(f"*/LC_MESSAGES/{DOMAIN}.po"))


def _write(path: Path, catalog: Catalog) -> None:
    # A fixed date and no locations: an update changes the file only where strings changed.
    catalog.creation_date = catalog.revision_date = FIXED_DATE
    catalog.fuzzy = False
    with path.open("wb") as f:
        write_po(f, catalog, width=100, no_location=True, sort_output=True, omit_header=False)


def update() -> None:
    """Write the template and merge it into every language's catalog."""
    template = extract()
    _write(POT, template)
    for po in po_files():
        lang = po.parent.parent.name
        with po.open("rb") as f:
            catalog = read_po(f, locale=lang, domain=DOMAIN)
        catalog.update(template, no_fuzzy_matching=False)
        catalog.obsolete.clear()
        _write(po, catalog)
        print(f"{po.relative_to(ROOT)}: {len(catalog)} strings")


def problems(po: Path, template: Catalog | None = None) -> list[str]:
    """What ``po`` lacks against the code: strings missing, untranslated or fuzzy."""
    template = template or extract()
    lang = po.parent.parent.name
    with po.open("rb") as f:
        catalog = read_po(f, locale=lang, domain=DOMAIN)
    found: list[str] = []
    for msg in template:
        if not msg.id:
            continue
        have = catalog.get(msg.id if isinstance(msg.id, str) else msg.id[0], context=msg.context)
        if have is None:
            found.append(f"{lang}: missing (run tools/catalogs.py update): {msg.id!r}")
        elif have.fuzzy:
            found.append(f"{lang}: fuzzy: {msg.id!r}")
        elif not have.string or (isinstance(have.string, tuple) and not all(have.string)):
            found.append(f"{lang}: untranslated: {msg.id!r}")
    return found


def main(argv: list[str]) -> int:
    """``update`` or ``check``."""
    if argv == ["update"]:
        update()
        return 0
    if argv == ["check"]:
        template = extract()
        found = [p for po in po_files() for p in problems(po, template)]
        for line in found:
            print(line)
        print(f"{len(found)} problems in {len(po_files())} catalogs")
        return 1 if found else 0
    print(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
