"""The table in the players' language (issue 25): ``play``, ``demo`` and ``history`` in the
pseudo-locale and in Icelandic, how the language is chosen (``--lang``, the locale, a
resumed game's own), and the journal's format 2 (``games.lang``)."""

from __future__ import annotations

import io
import json
import os
import re
import sqlite3
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from babel.messages.pofile import read_po
from conftest import RunCli, cli_env
from pseudo import escaped, outside
from pty_spawn import Spawn
from rich.console import Console
from table_typist import script_game
from unolaunch.i18n import LOCALE_DIR, PSEUDO_CLOSE, PSEUDO_OPEN, ngettext, use
from unolaunch.table.app import Table
from unolaunch.table.journal import DB_NAME, SCHEMA_VERSION, Journal
from unolaunch.table.launcher import FOUL_NOTICE, LinkedLauncher
from unolaunch.table.outcome import CLEAR, Outcome, words
from unolaunch.table.session import Session

PLAYERS = ["Ann", "Bob", "Cy"]
_ANSI = re.compile(r"\x1b(?:\[[0-?]*[ -/]*[@-~]|[@-Z\\-_])")
_TOKEN = re.compile(r"[\w'\u2019-]+")


def _cli(*args: str) -> list[str]:
    return [sys.executable, "-m", "unolaunch", *args]


def _screen_lines(raw: bytes) -> list[str]:
    """What a terminal shows, line by line: escape sequences out, a line redrawn after a
    carriage return counted as what follows it."""
    text = _ANSI.sub("", raw.decode("utf-8", errors="replace"))
    lines = []
    for line in text.replace("\r\n", "\n").split("\n"):
        lines.append(line.rsplit("\r", 1)[-1] if line.rstrip("\r") else "")
    return [line for line in lines if line.strip()]


def _type_in_pty(args: list[str], lines: list[str], timeout: float = 240) -> tuple[bytes, int]:
    """Run ``unolaunch ARGS`` in a pseudo-terminal (prompt_toolkit's line editing, on a
    dumb terminal: table_pty.Player), typing ``lines``; return everything it wrote and its
    exit status. The output is read on a thread while the lines are typed, so neither side
    ever waits on the other.

    The terminal's own echo is off: the lines are typed ahead of their prompts, and a
    terminal echoes type-ahead itself only while no prompt has it in raw mode, so a line's
    newline read after the switch is not echoed and two typed lines ran together on the
    screen ('g9wd4 blue': 4 of 12 tries at load 3). What is checked is what the table
    writes, its prompt's own echo of each line included."""
    child = Spawn(
        sys.executable,
        ["-m", "unolaunch", *args],
        env=cli_env({"COLUMNS": "120", "TERM": "dumb"}),
        dimensions=(60, 120),
        timeout=timeout,
        echo=False,
    )
    out = bytearray()

    def read() -> None:
        while True:
            try:
                chunk = os.read(child.child_fd, 65536)
            except OSError:
                return
            if not chunk:
                return
            out.extend(chunk)

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    try:
        for line in lines:
            os.write(child.child_fd, line.encode() + b"\n")
            time.sleep(0.002)  # a fast typist, not a paste: readline takes each line alone
        deadline = time.monotonic() + timeout
        while child.isalive() and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not child.isalive(), "the game did not end: " + bytes(out[-3000:]).decode()
    finally:
        if child.isalive():
            child.kill(9)
        reader.join(timeout=10)
        child.close()
    return bytes(out), int(child.exitstatus or 0)


def _typed_words(lines: list[str]) -> set[str]:
    return {t.strip("-'\u2019") for line in lines for t in _TOKEN.findall(line)}


# ---------------------------------------------------------------------------- pseudo-locale


@pytest.mark.parametrize(
    ("variant", "seed"), [("attack", 5), ("mario-kart", 3), ("pocket-pizza", 2)]
)
def test_pseudo_locale_whole_game_no_string_escapes(
    tmp_path: Path, variant: str, seed: int
) -> None:
    """A whole scripted game of each variant typed at the terminal with ``--lang qps``:
    every word a player reads is inside ⟦…⟧ (translated) but the players' names and what
    was typed, echoed back."""
    script = script_game(tmp_path / "ref", variant, PLAYERS, seed=seed, target=60, max_lines=900)
    total = max(script.keys)
    assert script.states[total]["game_winner"] is not None, "the script plays a whole game"
    args = [*script.args, "--lang", "qps", "--data-dir", str(tmp_path / "qps")]
    raw, status = _type_in_pty(args, script.lines)
    assert status == 0
    lines = _screen_lines(raw)
    text = "\n".join(lines)
    assert PSEUDO_OPEN in text
    with Journal.open(tmp_path / "qps") as journal:  # the same game, to its end
        assert Session.resume(journal, 1).game.state_key() == script.keys[total]
        assert journal.game(1).lang == "qps"
    allowed = {*PLAYERS, *_typed_words(script.lines), "unolaunch"}
    assert escaped(_carry_brackets(lines), allowed) == []


def _carry_brackets(lines: list[str]) -> list[str]:
    """A translated sentence the screen wrapped over several lines (inside its box) is
    translated on each of them: an unclosed ⟦ carries over to the next line."""
    out, depth = [], 0
    for line in lines:
        text = PSEUDO_OPEN * depth + line
        depth = max(0, depth + line.count(PSEUDO_OPEN) - line.count(PSEUDO_CLOSE))
        out.append(text + PSEUDO_CLOSE * depth)
    return out


# ---------------------------------------------------------------------------- Icelandic


def _english_lines() -> list[re.Pattern[str]]:
    """Each English sentence of the catalog whose Icelandic differs, as a pattern of a
    whole line ({fields}: anything)."""
    with (LOCALE_DIR / "is" / "LC_MESSAGES" / "unolaunch.po").open("rb") as f:
        catalog = read_po(f, locale="is")
    found = []
    for m in catalog:
        ids = m.id if isinstance(m.id, tuple) else (m.id,)
        strings = m.string if isinstance(m.string, tuple) else (m.string,)
        for msgid in ids:
            words = re.sub(r"\{\w*\}", " ", msgid).split()
            if len(words) < 3 or msgid in strings:
                continue
            pattern = ".+?".join(re.escape(p) for p in re.split(r"\{\w*\}", msgid.strip()))
            found.append(re.compile(pattern))
    assert len(found) > 200
    return found


def _english_in(lines: list[str]) -> list[str]:
    patterns = _english_lines()
    bare = [line.strip(" ·⟳✗⚠🏆│") for line in lines]
    return [line for line in bare if any(p.fullmatch(line) for p in patterns)]


def test_demo_in_icelandic_says_no_english_sentence_of_the_catalog(run_cli: RunCli) -> None:
    """``demo --lang is``: a whole game of UNO Attack on the simulated launcher, told in
    Icelandic — its lines are the catalog's Icelandic, none its English."""
    proc = run_cli("demo", "--lang", "is", "--seed", "7", "--target", "60", timeout=300)
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert any(line.startswith("Ræsi hermda skotvél") for line in lines)
    assert any(line.startswith("Skotvél á ") and "fastbúnaður" in line for line in lines)
    assert any(line.startswith("Umferð 1 — ") and "byrjunarspil" in line for line in lines)
    assert any("ýtir á skotvélina →" in line for line in lines)
    assert any(re.match(r"Umferð \d+: \w+ klárar og fær \d+ stig", line) for line in lines)
    assert any(" vinnur leikinn eftir " in line for line in lines)
    assert "Lokastaða:" in lines
    assert any(line.startswith("(spilaðu þennan leik aftur með: unolaunch demo") for line in lines)
    assert _english_in(lines) == []
    # ...and the same game in English says those lines in English (the check can fail)
    english = run_cli("demo", "--lang", "en", "--seed", "7", "--target", "60", timeout=300)
    assert english.returncode == 0, english.stderr
    assert len(_english_in(english.stdout.splitlines())) > 10


def _play(
    run_cli: RunCli, data: Path, *args: str, typed: list[str], env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    return run_cli("play", *args, "--data-dir", str(data), input="\n".join(typed) + "\n", env=env)


def test_history_in_icelandic(run_cli: RunCli, tmp_path: Path) -> None:
    """``history --lang is``: the listing's columns and statuses and a game's log in
    Icelandic (dates stay ISO); ``--json`` is data and stays as it is."""
    # UNO Attack without a launcher: the start card, a press with its cards, a play, undo
    typed = ["r5", "press 2", "undo", "press 1", "b5", "quit"]
    proc = _play(
        run_cli,
        tmp_path,
        "--variant",
        "attack",
        "--players",
        "Ann,Bob",
        "--dealer",
        "Bob",
        "--seed",
        "1",
        "--port",
        "none",
        "--lang",
        "is",
        typed=typed,
    )
    assert proc.returncode == 0, proc.stderr
    assert "Leikur 1 er vistaður. Haltu áfram með: unolaunch play --resume 1" in proc.stdout
    listing = run_cli("history", "--lang", "is", "--data-dir", str(tmp_path))
    assert listing.returncode == 0, listing.stderr
    head = next(line for line in listing.stdout.splitlines() if "leikur" in line)
    for column in ("leikur", "hófst", "útgáfa", "umferð", "staða", "sigurvegari", "stig"):
        assert column in head
    assert "í gangi" in listing.stdout and "playing" not in listing.stdout
    assert f"leikir í {tmp_path}" in listing.stdout.replace("\n", "")
    log = run_cli("history", "1", "--lang", "is", "--data-dir", str(tmp_path))
    assert log.returncode == 0, log.stderr
    out = log.stdout
    assert out.startswith("leikur 1: UNO Attack, Ann, Bob — hófst ")
    assert "stig: Ann 0, Bob 0 (umferð 1)" in out
    assert "Bob snýr upp byrjunarspilinu: " in out
    assert "Ann ýtir á skotvélina: 2 spil komu út" in out
    assert "afturkallað: tók til baka 'Ann ýtir á skotvélina: 2 spil komu út'" in out
    assert "Ann ýtir á skotvélina: 1 spil kom út" in out
    assert re.search(r"\d{4}-\d\d-\d\d \d\d:\d\d", out)  # ISO dates
    english = run_cli("history", "1", "--lang", "en", "--data-dir", str(tmp_path))
    assert "Ann presses the launcher: 2 cards came out" in english.stdout
    data = run_cli("history", "1", "--json", "--lang", "is", "--data-dir", str(tmp_path))
    assert json.loads(data.stdout)["status"] == "playing"
    assert _english_in(listing.stdout.splitlines()) == []


def test_lang_from_the_locale_and_lc_all_wins(run_cli: RunCli, tmp_path: Path) -> None:
    """No --lang: LANG=is_IS.UTF-8 speaks Icelandic; LC_ALL=C (set, so it decides) wins
    over it; LC_MESSAGES comes before LANG."""
    where = ["--data-dir", str(tmp_path)]
    icelandic = run_cli("history", *where, env={"LANG": "is_IS.UTF-8"})
    assert icelandic.stdout.startswith("Engir leikir enn (leitað í "), icelandic.stdout
    c = run_cli("history", *where, env={"LANG": "is_IS.UTF-8", "LC_ALL": "C"})
    assert c.stdout.startswith("No games yet (looked in "), c.stdout
    messages = run_cli("history", *where, env={"LANG": "C.UTF-8", "LC_MESSAGES": "is_IS.UTF-8"})
    assert messages.stdout.startswith("Engir leikir enn"), messages.stdout
    flag = run_cli("history", *where, "--lang", "en", env={"LANG": "is_IS.UTF-8"})
    assert flag.stdout.startswith("No games yet"), flag.stdout
    # play at the table too: the prompt's question and the goodbye
    game = ["--variant", "mario-kart", "--players", "Ann,Bob", "--dealer", "Bob"]
    play = _play(run_cli, tmp_path, *game, typed=["quit"], env={"LANG": "is_IS.UTF-8"})
    assert "Bob gefur: hvaða spili var snúið upp" in play.stdout
    assert "Leikur 1 er vistaður." in play.stdout
    play = _play(
        run_cli, tmp_path / "c", *game, typed=["quit"], env={"LANG": "is_IS.UTF-8", "LC_ALL": "C"}
    )
    assert "Bob deals: which card was turned up" in play.stdout
    # a usage error (said by the CLI as "unolaunch: ...") is in the language too
    bad = run_cli("play", "--data-dir", str(tmp_path), env={"LANG": "is_IS.UTF-8"})
    assert bad.returncode == 2
    assert bad.stderr.startswith("unolaunch: hvaða leikur? --variant attack"), bad.stderr


def test_a_resumed_game_keeps_its_language_unless_lang_says_so(run_cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """The language a game was started in is kept with it (journal format 2): '--resume'
    without --lang speaks it whatever the locale; '--resume --lang en' switches, and the
    next resume keeps English."""
    game = ["--variant", "mario-kart", "--players", "Ann,Bob", "--dealer", "Bob"]
    start = _play(run_cli, tmp_path, *game, "--lang", "is", typed=["r5", "quit"])
    assert "Leikur 1 er vistaður." in start.stdout
    with Journal.open(tmp_path) as journal:
        assert journal.game(1).lang == "is"
    again = _play(run_cli, tmp_path, "--resume", typed=["quit"])  # LANG=C.UTF-8 here
    assert "Ann: spilaðu út spili (t.d. r5, 'villispil +4 blátt') eða dragðu" in again.stdout
    assert "Leikur 1 er vistaður." in again.stdout
    switched = _play(run_cli, tmp_path, "--resume", "--lang", "en", typed=["quit"])
    assert "Ann: play a card (e.g. r5, 'wd4 blue') or draw" in switched.stdout
    with Journal.open(tmp_path) as journal:
        assert journal.game(1).lang == "en"
    later = _play(run_cli, tmp_path, "--resume", typed=["quit"], env={"LANG": "is_IS.UTF-8"})
    assert "Game 1 is saved." in later.stdout


# ---------------------------------------------------------------------------- the journal


def _format_1_file(folder: Path) -> Path:
    """A games file as unolaunch wrote it before issue 25 (format 1: no games.lang)."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / DB_NAME
    with Journal(path) as journal:
        journal.new_game("mario-kart", ["Ann", "Bob"], {}, 4, dealer="Bob")
    db = sqlite3.connect(path)
    db.execute("ALTER TABLE games DROP COLUMN lang")
    db.execute("PRAGMA user_version=1")
    db.commit()
    db.close()
    return path


def test_a_format_1_games_file_is_read_as_it_is_and_migrated_when_written(tmp_path: Path) -> None:
    path = _format_1_file(tmp_path / "old")
    with Journal(path, read_only=True) as journal:  # history: nothing written
        assert journal.game(1).lang is None
    db = sqlite3.connect(path)
    assert db.execute("PRAGMA user_version").fetchone()[0] == 1
    db.close()
    with Journal(path) as journal:
        assert journal.game(1).lang is None
        journal.set_lang(1, "is")
        assert journal.game(1).lang == "is"
    db = sqlite3.connect(path)
    assert db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION == 2
    db.close()


def test_recover_copies_a_format_1_file(tmp_path: Path) -> None:
    """'history --recover' of a file of the older format (its games have fewer columns)."""
    _format_1_file(tmp_path)
    saved, lost, _bad = Journal.recover(tmp_path)
    assert (saved, lost) == (1, 0)
    with Journal.open(tmp_path) as journal:
        g = journal.game(1)
        assert (g.variant, g.players, g.lang) == ("mario-kart", ("Ann", "Bob"), None)


# ---------------------------------------------------------------------------- fouls


class _Client:
    """A launcher client that takes every request and says nothing."""

    def arm(self, player: str, presses: int, mode: str = "random") -> None:
        """Arming is taken."""

    def disarm(self) -> None:
        """Disarming is taken."""

    def stop(self) -> None:
        """A fault is cleared."""


def test_pseudo_locale_launcher_lines_are_all_translated(tmp_path: Path) -> None:
    """What the table says about the launcher (its line on the screen, presses, fouls,
    faults, stray cards, a lost cable) in the pseudo-locale: nothing escapes translation
    but the players' names and the port."""
    said: list[str] = []
    outcomes: list[Outcome] = []  # said in words at the end: outcomes are data
    with Journal.open(tmp_path) as journal, use("qps"):
        session = Session.start(journal, "attack", ["Ann", "Bob"], seed=3, dealer="Bob")
        session.apply({"by": "Bob", "choose": {"top": "r5"}})
        launcher = LinkedLauncher(
            _Client(),
            session,
            lambda n, w: outcomes.extend(x for x in (n, w) if x is not None and x != CLEAR),
            port="ttyACM0",
        )
        said.append(launcher.status())
        launcher.sync()
        said += [launcher.status(), launcher.next_press(), launcher.virtual_press()]
        for ev in (
            {"event": "foul", "reason": "busy"},
            {"event": "eject", "player": "Ann", "cards": 2},
            {"event": "foul"},
            {"event": "stray", "player": "Bob", "cards": 1},
            {"event": "stray", "player": None, "cards": 3},
            {"event": "eject", "player": None, "cards": 1},
            {"event": "fault", "code": "jam", "player": "Bob", "beam": "blocked"},
            {"event": "foul", "reason": "fault"},
        ):
            launcher.handle(ev)
        said.append(launcher.status())
        outcomes.append(launcher.clear())
        for fault in (
            {"code": "jam", "player": "Bob"},
            {"code": "jam", "player": "Bob", "beam": "clear"},
            {"code": "empty"},
            {"code": "motor_timeout"},
            {"code": "config"},
        ):
            launcher.handle({"event": "fault", **fault})
            said.append(launcher.status())
        launcher._on_link_event({"event": "link", "state": "lost", "burst": {"player": "Ann"}})
        launcher._on_link_event({"event": "link", "state": "lost"})
        said.append(launcher.status())
        launcher.handle({"event": "boot"})
    with use("qps"):
        said += [words(o) for o in outcomes]
    assert len(said) > 25
    assert escaped(said, {"Ann", "Bob", "ttyACM0"}) == []
    with use("is"):  # the same outcomes in another language, from the same data
        icelandic = [words(Outcome.from_json(o.to_json())) for o in outcomes]
    assert "brot: ýting sem enginn átti" in icelandic and "⟦" not in "".join(icelandic)


def test_a_foul_said_in_icelandic_is_counted_on_resume(tmp_path: Path) -> None:
    """ATK-26: a foul's note is marked as one, so --resume counts it whatever language the
    table spoke; a note of an older journal (English, unmarked) still counts; other notes
    said in Icelandic do not."""
    with Journal.open(tmp_path) as journal:
        session = Session.start(journal, "attack", ["Ann", "Bob"], seed=3, dealer="Bob")
        table = Table(session, Console(file=io.StringIO()))
        launcher = LinkedLauncher(_Client(), session, table.remember)
        with use("is"):
            # a foul's note is journaled by the launcher's driver, with its event (issue 33)
            launcher.handle({"event": "foul", "reason": "not_armed"})
            table.remember(Outcome("restarted"), Outcome("restarted_away_warning"))
        session.note({"notice": FOUL_NOTICE, "warning": "FOUL (ATK-26): ..."})  # before issue 25
        notes = [e.data for e in journal.entries(session.id) if e.kind == "note"]
        assert [bool(n.get("foul")) for n in notes] == [True, False, False]
        # kept as data, not as the words of the language spoken when it happened
        assert notes[0]["outcome"] == {"outcome": "foul", "args": {}}
        assert notes[1]["outcome"] == {"outcome": "restarted", "args": {}}
        launcher = LinkedLauncher(_Client(), session, lambda n, w: None)
        launcher.restore_counts()
        assert launcher.fouls == 2


def test_pseudo_helpers_find_words_outside_the_brackets() -> None:
    """The helpers the pseudo-locale test leans on."""
    assert outside("⟦a ⟦b⟧ c⟧ d") == " d"
    assert escaped(["⟦x⟧ Ann", "⟦x⟧ Zed"], {"Ann"}) == ["⟦x⟧ Zed"]


@pytest.mark.parametrize("lang", ["en", "is", "qps"])
def test_outcomes_are_data_said_in_words_only_at_the_edge(lang: str) -> None:
    """Issue 34 (c): an outcome is a kind and its parameters, kept as data (its JSON round
    trip is itself); its words are made by whoever shows it, in that screen's language —
    a press said in Icelandic names the cards in Icelandic, the same data in English in
    English. Nothing recognises an outcome by its words (there is no parser of them)."""
    import unolaunch.table.launcher as launcher_module

    assert not hasattr(launcher_module, "press_outcome")  # the old reader of notices' words
    pressed = Outcome("press", {"who": "Ann", "cards": 3})
    assert Outcome.from_json(json.loads(json.dumps(pressed.to_json()))) == pressed
    with use(lang):
        said = words(pressed)
        want = ngettext("{who} presses: {n} card out", "{who} presses: {n} cards out", 3)
    assert said == want.format(who="Ann", n=3)
    if lang == "is":
        assert said == "Ann ýtir: 3 spil út"
