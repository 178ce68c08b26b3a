"""The table's language machinery (issue 25): choosing a language, the pseudo-locale, the
catalogs complete, and the compiled catalogs in the wheel."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
import threading
import zipfile
from pathlib import Path

import pytest
from conftest import REPO, RunCli, built_wheel
from pseudo import escaped, outside
from unolaunch.i18n import _, choose_language, current, ngettext, set_language, use


def _catalogs_tool():  # type: ignore[no-untyped-def]
    spec = importlib.util.spec_from_file_location("catalogs", REPO / "tools" / "catalogs.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(autouse=True)
def english_after() -> object:
    yield
    set_language("en")


@pytest.mark.parametrize(
    ("asked", "env", "want"),
    [
        ("is", {"LANG": "en_US.UTF-8"}, "is"),
        (None, {"LANG": "is_IS.UTF-8"}, "is"),
        (None, {"LC_MESSAGES": "is_IS", "LANG": "en_GB.UTF-8"}, "is"),
        (None, {"LC_ALL": "C", "LANG": "is_IS.UTF-8"}, "en"),  # the first set variable decides
        (None, {"LC_ALL": "is_IS.UTF-8@euro"}, "is"),
        (None, {"LANG": "de_DE.UTF-8"}, "en"),  # a language we do not have: English
        (None, {}, "en"),
        ("en", {"LANG": "is_IS.UTF-8"}, "en"),
    ],
)
def test_the_language_is_lang_then_the_locale_then_english(
    asked: str | None, env: dict[str, str], want: str
) -> None:
    assert choose_language(asked, env) == want


def test_an_unknown_language_is_refused_with_the_choices() -> None:
    with pytest.raises(ValueError, match="choose one of en, is"):
        set_language("xx")


def test_the_pseudo_locale_wraps_every_string_and_plural() -> None:
    set_language("qps")
    assert _("{who} plays {card}").format(who="Ann", card="r5") == "⟦Ann plays r5⟧"
    assert ngettext("{n} card", "{n} cards", 1).format(n=1) == "⟦1 card⟧"
    assert ngettext("{n} card", "{n} cards", 3).format(n=3) == "⟦3 cards⟧"
    assert escaped(["⟦a ⟦b⟧⟧ 12 ATK-11 Þóra"], allowed=["Þóra"]) == []
    assert escaped(["⟦Ann plays⟧ red 5"]) == ["⟦Ann plays⟧ red 5"]
    assert outside("x⟦a⟦b⟧c⟧y") == "xy"


def test_use_changes_the_language_of_one_thread_only() -> None:
    set_language("en")
    seen: dict[str, str] = {}
    inside = threading.Event()
    leave = threading.Event()

    def phone() -> None:
        with use("qps"):
            seen["phone"] = _("draw")
            inside.set()
            leave.wait(5)
        seen["after"] = current()

    t = threading.Thread(target=phone)
    t.start()
    assert inside.wait(5)
    seen["table"] = _("draw")  # while the phone's block is open in the other thread
    leave.set()
    t.join(5)
    assert seen == {"phone": "⟦draw⟧", "table": "draw", "after": "en"}


def test_the_catalogs_hold_a_translation_of_every_string_of_the_code() -> None:
    """A new string without its Icelandic translation fails here (tools/catalogs.py)."""
    tool = _catalogs_tool()
    template = tool.extract()
    pos = tool.po_files()
    assert [p.parent.parent.name for p in pos] == ["is"]
    problems = [p for po in pos for p in tool.problems(po, template)]
    assert problems == [], "\n".join(problems[:40]) + "\n(run: python tools/catalogs.py update)"


def test_every_translation_keeps_the_fields_of_its_original() -> None:
    """A translation that loses or renames a ``{field}`` would crash or mislead at the table."""
    import string

    from babel.messages.pofile import read_po

    def fields(text: str) -> set[str]:
        return {f for _, f, _, _ in string.Formatter().parse(text) if f is not None}

    bad = []
    for po in _catalogs_tool().po_files():
        with po.open("rb") as f:
            catalog = read_po(f)
        for msg in catalog:
            if not msg.id or not msg.string:
                continue
            ids = msg.id if isinstance(msg.id, tuple) else (msg.id,)
            strs = msg.string if isinstance(msg.string, tuple) else (msg.string,)
            want = fields(ids[-1]) | fields(ids[0])
            for s in strs:
                # a singular form may leave out {n} ("one card"), never add a field
                if not fields(s) <= want or (len(ids) == 1 and fields(s) != want):
                    bad.append(f"{po.parent.parent.name}: {msg.id!r} -> {s!r}")
    assert bad == []


def test_the_wheel_ships_compiled_catalogs_and_speaks_icelandic_outside_the_checkout(
    run_cli: RunCli, tmp_path: Path
) -> None:
    wheel = built_wheel(tmp_path / "dist")
    site = tmp_path / "site"
    with zipfile.ZipFile(wheel) as zf:
        names = set(zf.namelist())
        zf.extractall(site)
    assert "unolaunch/locale/is/LC_MESSAGES/unolaunch.mo" in names
    # Only the compiled catalog may speak: take the .po away.
    (site / "unolaunch/locale/is/LC_MESSAGES/unolaunch.po").unlink(missing_ok=True)
    data = tmp_path / "data"
    env = {**os.environ, "PYTHONPATH": str(site), "LANG": "C.UTF-8"}
    env.pop("LC_ALL", None)

    def history(where: Path, lang: str) -> str:
        run = subprocess.run(
            [sys.executable, "-m", "unolaunch", "history", "--lang", lang, "--data-dir", str(data)],
            capture_output=True,
            text=True,
            env=env if where == site else {**env, "PYTHONPATH": str(REPO / "host")},
            cwd=tmp_path,
            timeout=60,
        )
        assert run.returncode == 0, run.stderr
        return run.stdout

    icelandic = history(site, "is")
    assert icelandic == history(REPO, "is")
    assert icelandic != history(site, "en")
