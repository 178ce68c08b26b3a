"""The web pages in the players' language (issue 25): the API and the pages under the
pseudo-locale ``qps`` (every translated string wrapped in ⟦…⟧), a phone's own language,
the pages' catalog for their scripts.

- A whole game of each variant is played from the phones (the seeded family of
  test_web_family.py) with the game in ``qps``: after every action, every text of
  ``/api/state`` that a page shows (and every reply's words) must be wrapped — no string
  escapes translation (pseudo.escaped, the players' names allowed).
- The same game in English with one phone reading ``qps`` (``?lang=qps``, what its page
  asks for after its language button): everything made for that phone is wrapped; the
  game's log lines stay in the game's language (docs/web.md says why).
- The pages: ``<html lang>``, the marked texts of each page, the table view following the
  game whatever a phone chose (its cookie), the catalog the scripts read (the strings
  Babel extracts, Icelandic plural forms).
"""

from __future__ import annotations

import json
import random
import re
import sys
from collections.abc import Iterator
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest
from pseudo import escaped
from test_web_api import PLAYERS, WebGame, _serve
from test_web_family import choose
from unolaunch import i18n
from unolaunch.table.outcome import words
from unolaunch.web import pages

ROOT = Path(__file__).resolve().parent.parent
STATIC = ROOT / "host" / "unolaunch" / "web" / "static"
VARIANTS = ("attack", "mario-kart", "pocket-pizza")


@pytest.fixture
def game_in() -> Iterator[Any]:
    """``game_in(lang)``: make ``lang`` the process language (as ``--lang``) for the test."""
    before = i18n.current()

    def set_to(lang: str) -> None:
        i18n.set_language(lang)

    try:
        yield set_to
    finally:
        i18n.set_language(before)


def shown_texts(state: dict[str, Any], game_language_too: bool = True) -> list[str]:
    """Every text of a state that a page shows as it is (not data: codes, names, counts).
    ``game_language_too``: with the log, the notice and the warning, made once in the
    game's language."""
    out = [state["title"]]
    if state.get("top_name"):
        out.append(state["top_name"])
    out += list((state.get("card_names") or {}).values())
    if state["awaiting"]:
        out.append(state["awaiting"]["doing"])
    out += [p["owes_text"] for p in state["players"] if p["owes_text"]]
    if state["launcher"]:
        out.append(state["launcher"]["status"])
    if state["reminder"]:
        out.append(state["reminder"])
    if game_language_too:
        out += [t for t in (state["notice"], state["warning"]) if t]
        out += list(state["log"])
    return out


def reply_texts(reply: dict[str, Any]) -> list[str]:
    """The words of an action's reply a page shows."""
    out = [reply[k] for k in ("error", "said") if isinstance(reply.get(k), str)]
    return out + [e for e in reply.get("effects", []) if isinstance(e, str)]


def api(game: WebGame, path: str, lang: str | None) -> dict[str, Any]:
    status, _, body = game.request("GET", path + (f"?lang={lang}" if lang else ""))
    assert status == 200, body
    result: dict[str, Any] = json.loads(body)
    return result


def act(game: WebGame, action: dict[str, Any], lang: str | None) -> tuple[int, dict[str, Any]]:
    status, _, body = game.request(
        "POST",
        "/api/action" + (f"?lang={lang}" if lang else ""),
        json.dumps(action).encode(),
        {
            "Content-Type": "application/json",
            "Authorization": f"Bearer {game.secrets[action['by']]}",
        },
    )
    return status, json.loads(body)


def family_move(rng: random.Random, state: dict[str, Any]) -> dict[str, Any]:
    """test_web_family's family, who also answers Mario Kart's Item Box questions."""
    aw = state["awaiting"]
    if aw and aw["choice"] in ("turned", "give"):
        cards = [c for c in state["deck"] if c[0] != "W"]
        return {"by": aw["by"], "choose": {aw["choice"]: rng.choice(cards)}}
    return choose(rng, state)


def play_whole_game(
    game: WebGame, seed: int, lang: str | None, game_language_too: bool
) -> tuple[list[str], int]:
    """A seeded family game from the phones, each request in ``lang`` (None: the game's);
    the lines that escaped translation (deduplicated) and the number of actions."""
    rng = random.Random(seed)
    bad: dict[str, None] = {}
    state = api(game, "/api/state", lang)
    actions = 0
    for _ in range(800):
        for line in escaped(shown_texts(state, game_language_too), PLAYERS):
            bad[line] = None
        if state["game_winner"]:
            break
        action = family_move(rng, state)
        if "reveal" in action and rng.random() < 0.2:
            action["reveal"] = {next(iter(action["reveal"])): "r5 zz"}  # refused: a bad card
        status, reply = act(game, action, lang)
        actions += 1
        assert status in (200, 400, 409), (action, reply)
        for line in escaped(reply_texts(reply), PLAYERS):
            bad[line] = None
        state = api(game, "/api/state", lang)
    assert state["game_winner"], f"seed {seed}: no winner"
    return list(bad), actions


@pytest.mark.parametrize("variant", VARIANTS)
def test_a_whole_game_in_qps_from_the_phones_has_no_escaped_text(
    tmp_path: Path, game_in: Any, variant: str
) -> None:
    game_in("qps")
    served = _serve(tmp_path, variant, target=60)
    game = next(served)
    try:
        bad, actions = play_whole_game(game, 7, None, game_language_too=True)
    finally:
        served.close()
    assert actions > 20
    assert bad == [], "\n".join(bad)


def test_a_phone_reading_qps_in_an_english_game(tmp_path: Path, game_in: Any) -> None:
    """Everything made for the phone is in its language, the game's log too (issue 34:
    what happened is kept as data and said by each screen in its own language); the table
    view's is English."""
    game_in("en")
    served = _serve(tmp_path, "attack", target=60)
    game = next(served)
    try:
        bad, _ = play_whole_game(game, 3, "qps", game_language_too=True)
        own = api(game, "/api/state", "qps")
        table = api(game, "/api/state", None)  # the table view: the game's language
        assert len(own["log"]) == len(table["log"]) > 0 and own["log"] != table["log"]
        assert escaped(own["log"], PLAYERS) == []  # the phone's log: all in its language
        assert escaped(shown_texts(table), PLAYERS) == shown_texts(table)  # all English
        assert own["title"] == "⟦UNO Attack⟧" and table["title"] == "UNO Attack"
    finally:
        served.close()
    assert bad == [], "\n".join(bad)


def test_the_phone_reads_icelandic_words_it_was_sent(tmp_path: Path, game_in: Any) -> None:
    """``?lang=is``: the API's own words in Icelandic (a refusal, what the awaited player
    does), while the table's state stays in the game's language."""
    game_in("en")
    served = _serve(tmp_path, "attack")
    game = next(served)
    try:
        status, reply = act(game, {"by": "Cy", "deal": True}, "is")
        assert status == 409 and reply["error"] == "borðið gaf þegar í umferð 1"
        status, reply = act(game, {"by": "Cy", "deal": True}, None)
        assert status == 409 and reply["error"] == "the table already dealt round 1"
        status, reply = act(game, {"by": "Ann", "correct": {"Bob": 3}}, "is")
        assert status == 403 and "leiðréttur á tölvunni" in reply["error"]
        assert act(game, {"by": "Cy", "choose": {"top": "r5"}}, "is")[0] == 200
        assert act(game, {"by": "Ann", "play": "r7"}, None)[0] == 200
        status, reply = act(game, {"by": "Ann", "uno": True}, "is")
        assert status == 409 and reply["error"].startswith("Ann getur aðeins sagt UNO")
        assert api(game, "/api/state", None)["title"] == "UNO Attack"
        # the terminal's log line of a phone's action is the game's, whatever the phone reads
        assert words(game.table.log[-1]) == "Ann (web): Ann plays red 7"
    finally:
        served.close()


class _Text(HTMLParser):
    """The visible text of a page (not scripts or data blocks) and its ``<html lang>``."""

    def __init__(self) -> None:
        super().__init__()
        self.lang: str | None = None
        self.texts: list[str] = []
        self.attrs_text: list[str] = []
        self._skip = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = dict(attrs)
        if tag == "html":
            self.lang = values.get("lang")
        if tag in ("script", "style", "title"):
            self._skip += 1
        for name in ("aria-label", "title", "placeholder", "alt"):
            if values.get(name):
                self.attrs_text.append(str(values[name]))

    def handle_endtag(self, tag: str) -> None:
        if tag in ("script", "style", "title"):
            self._skip -= 1

    def handle_data(self, data: str) -> None:
        if not self._skip and data.strip():
            self.texts.append(data.strip())


def page_of(game: WebGame, path: str, cookie: str | None = None) -> tuple[int, _Text, str]:
    headers = {"Cookie": f"{pages.LANG_COOKIE}={cookie}"} if cookie else {}
    status, _, body = game.request("GET", path, headers=headers)
    text = body.decode()
    parsed = _Text()
    parsed.feed(text)
    return status, parsed, text


def catalog_of(html: str) -> dict[str, Any]:
    found = re.search(r'<script type="application/json" id="i18n">(.*?)</script>', html, re.S)
    assert found, "no catalog in the page"
    result: dict[str, Any] = json.loads(found.group(1))
    return result


def test_pages_follow_the_game_and_a_phone_its_own_choice(tmp_path: Path, game_in: Any) -> None:
    game_in("qps")
    served = _serve(tmp_path, "attack")
    game = next(served)
    try:
        ann = f"/p/{game.secrets['Ann']}"
        for path, status_wanted in (("/", 200), (ann, 200), ("/nowhere", 404), ("/p/x" * 9, 404)):
            status, parsed, html = page_of(game, path)
            assert status == status_wanted
            assert parsed.lang == "qps", path
            texts = parsed.texts + parsed.attrs_text
            assert texts and escaped(texts, ["unolaunch"]) == [], (path, texts)
        # the scripts' catalog: every string of the scripts, wrapped
        cat = catalog_of(page_of(game, "/")[2])
        assert cat["lang"] == "qps" and cat["game"] == "qps"
        assert cat["messages"]["Pass"] == "⟦Pass⟧"
        assert cat["messages"]["{n} card"] == ["⟦{n} card⟧", "⟦{n} cards⟧"]
        # a phone that chose Icelandic (its cookie): its page is Icelandic, the table stays
        status, parsed, html = page_of(game, ann, cookie="is")
        assert status == 200 and parsed.lang == "is"
        assert "Þessi síða þarf JavaScript." in parsed.texts
        cat = catalog_of(html)
        assert cat["lang"] == "is" and cat["game"] == "qps"
        assert cat["messages"]["Draw a card"] == "Draga spil"
        assert cat["names"] == {"en": "English", "is": "Íslenska"}
        status, parsed, html = page_of(game, "/", cookie="is")
        assert parsed.lang == "qps" and catalog_of(html)["lang"] == "qps"
        # an unknown language in the cookie: the game's
        assert page_of(game, ann, cookie="xx")[1].lang == "qps"
        # a link that no longer works, read by a phone that chose Icelandic
        status, parsed, html = page_of(game, "/p/" + "x" * 30, cookie="is")
        assert status == 404 and parsed.lang == "is"
        assert "Þessi hlekkur virkar ekki" in parsed.texts
    finally:
        served.close()


def test_english_pages_keep_their_words(tmp_path: Path, game_in: Any) -> None:
    game_in("en")
    served = _serve(tmp_path, "attack")
    game = next(served)
    try:
        status, parsed, html = page_of(game, "/")
        assert parsed.lang == "en" and "colour to match" in parsed.texts
        assert "discard pile" in parsed.attrs_text
        assert "<title>unolaunch · table</title>" in html
        status, parsed, html = page_of(game, "/p/" + "x" * 30)
        assert status == 404 and "<title>This link does not work" in html
    finally:
        served.close()


def test_the_scripts_catalog_is_what_babel_extracts() -> None:
    """The server's reading of the scripts' strings (web/pages.py) and of the pages' marks
    agrees with Babel's (tools/catalogs.py): what the translators get is what is sent."""
    sys.path.insert(0, str(ROOT / "tools"))
    try:
        import catalogs
    finally:
        sys.path.remove(str(ROOT / "tools"))
    template = catalogs.extract()
    babel_js: set[tuple[str | None, str, str | None]] = set()
    babel_html: set[str] = set()
    for msg in template:
        if not msg.id:
            continue
        places = {Path(f).name for f, _ in msg.locations}
        msgid, plural = (msg.id[0], msg.id[1]) if isinstance(msg.id, tuple) else (msg.id, None)
        if places & set(pages.SCRIPTS):
            babel_js.add((msg.context, msgid, plural))
        if any(p.endswith(".html") for p in places):
            babel_html.add(msgid)
    ours = {m for name in pages.SCRIPTS for m in pages.script_messages((STATIC / name).read_text())}
    assert ours == babel_js
    marks = {m for f in STATIC.glob("*.html") for m in pages.page_marks(f.read_text())}
    assert marks == babel_html and "This page needs JavaScript." in marks


def test_the_catalog_has_icelandic_plurals() -> None:
    """Icelandic: one form for 1, 21, 31... (not 11), the other for the rest; the pages'
    scripts pick the form from the table sent (0..199, then 100 + n % 100)."""
    cat = pages.catalog("is", [(None, "{n} press", "{n} presses"), ("colour", "red", None)])
    forms = cat["messages"]["{n} press"]
    assert forms == ["{n} ýting", "{n} ýtingar"]
    table = cat["plural"]
    for n in (1, 21, 31, 101, 121):
        assert table[n if n < 200 else 100 + n % 100] == 0, n
    for n in (0, 2, 11, 12, 111, 25):
        assert table[n] == 1, n
    assert cat["messages"]["colour\x04red"] == "rauður"
    english = pages.catalog("en", [(None, "{n} press", "{n} presses")])
    assert english["messages"]["{n} press"] == ["{n} press", "{n} presses"]
    assert english["plural"][:3] == [1, 0, 1]


def test_the_page_marks_are_escaped_and_the_catalog_cannot_end_its_block() -> None:
    html = pages.render("<p>{{_:Pass}}</p>{{catalog}}<i>{{lang}}</i>", "qps", "en")
    assert html.startswith("<p>⟦Pass⟧</p>") and html.endswith("<i>qps</i>")
    assert html.count("</script>") == 1  # nothing in the catalog closes the data block
    assert pages.valid("is") == "is" and pages.valid("../x") is None


# -- a phone says the terminal's commands in words, in every language ----------------------

_TERMINAL_COMMAND = {
    "en": re.compile(r"'fix \S+ N'|type '(undo|clear)'"),
    "is": re.compile(
        r"'\S+ er með N'|'leiðrétta \S+ N'|[Ss]láðu (svo |fyrst )?inn '(afturkalla|hreinsa)'"
    ),
}


def _command_messages() -> list[tuple[str, str]]:
    """Every catalog message (msgid, Icelandic msgstr; each plural form) that tells the
    table to type 'fix NAME N', 'undo' or 'clear'."""
    from babel.messages.pofile import read_po

    po = Path(i18n.__file__).parent / "locale" / "is" / "LC_MESSAGES" / "unolaunch.po"
    with po.open("rb") as f:
        catalog = read_po(f)
    found = []
    for m in catalog:
        ids = m.id if isinstance(m.id, tuple) else (m.id,)
        strs = m.string if isinstance(m.string, tuple) else (m.string,)
        if (
            m.id
            and _TERMINAL_COMMAND["en"].search(ids[0])
            and "TRANSLATORS: a pattern" not in (" ".join(m.auto_comments))
        ):
            found.extend((ids[min(i, len(ids) - 1)], s) for i, s in enumerate(strs))
    return found


class _Fields(dict[str, str]):
    def __missing__(self, key: str) -> str:
        return "Bob"


@pytest.mark.parametrize("lang", ["en", "is"])
def test_a_phone_never_reads_a_terminal_command_in_any_language(lang: str) -> None:
    """Issue 25, left over: a refusal shown on a phone says what the table does ("first the
    table corrects Bob's card count"), not what to type at the terminal - in Icelandic too,
    where the rewrite used to read only English messages and Icelandic phones were told to
    type 'leiðrétta Bob N'. Every catalog message with such a command, in each language."""
    from unolaunch.web.front import phone_words

    messages = _command_messages()
    assert len(messages) >= 15
    with i18n.use(lang):
        for english, icelandic in messages:
            text = (english if lang == "en" else icelandic).format_map(_Fields())
            said = phone_words(text)
            assert not _TERMINAL_COMMAND[lang].search(said), (text, said)
            assert said != text, text
        clause = i18n.ngettext(
            "if {who} does not hold {n} card, type 'fix {who} N' first (N: the real count)",
            "if {who} does not hold {n} cards, type 'fix {who} N' first (N: the real count)",
            2,
        ).format(who="Bob", n=2)
        wanted = {"en": "first the table corrects Bob's card count", "is": "fyrst leiðréttir"}
        assert wanted[lang] in phone_words(clause), phone_words(clause)
        # a quoted word that is not a table command is left alone
        other = {"en": "type 'yes' to end", "is": "sláðu inn 'já' til að ljúka"}[lang]
        assert phone_words(other) == other
