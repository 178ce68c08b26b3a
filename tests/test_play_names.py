"""Player names cannot crash or take over the screen (issue 10, item 5): control and
invisible characters are refused with a clear message, names are compared after NFKC and
case folding, nothing typed is rich markup, and games stored with such names before still
list (`history`) and resume, shown escaped."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import RunCli
from table_pty import Player
from unolaunch.table.journal import Journal
from unolaunch.table.names import check_names, shown
from unolaunch.table.session import Session

NEW = ["play", "--variant", "pocket-pizza", "--dealer", "Ann"]


@pytest.mark.parametrize(
    ("players", "says"),
    [
        ("Ann,Bob\x1b[2J", "U+001B ESCAPE"),
        ("Ann,Bob\x1b]0;owned\x07", "U+001B ESCAPE"),
        ("Ann,Bo\x07b", "U+0007 BELL"),
        ("Ann,Bob\nCy", "U+000A LINE FEED"),
        ("Ann,Bob\tCy", "U+0009 TAB"),
        ("Ann,\u202ebob", "U+202E RIGHT-TO-LEFT OVERRIDE"),
        ("Ann,Bob\u2066", "U+2066 LEFT-TO-RIGHT ISOLATE"),
        ("Ann,Bob\u200b", "U+200B ZERO WIDTH SPACE"),
        ("Ann,Bo\u200db", "U+200D ZERO WIDTH JOINER"),
        ("Ann,Bob\ufeff", "U+FEFF ZERO WIDTH NO-BREAK SPACE"),
        ("Ann,\u3164", "U+3164 HANGUL FILLER"),
        ("Ann,Bob\u00a0Cy", "a space (U+00A0 NO-BREAK SPACE)"),
        ("Ann,\uff41\uff4e\uff4e", "same name ('Ann' and '\uff41\uff4e\uff4e')"),  # NFKC
        ("Ann,Bob,\ufb01x,fix", "same name"),  # the fi ligature is "fi"
        ("Ann,STRASSE,stra\u00dfe", "same name"),  # case folding: ß is ss
    ],
)
def test_bad_names_are_refused_with_a_clear_message(
    run_cli: RunCli, tmp_path: Path, players: str, says: str
) -> None:
    proc = run_cli(*NEW, "--players", players, "--data-dir", tmp_path, input="")
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert says in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1
    assert all(c == "\n" or c.isprintable() for c in proc.stderr), repr(proc.stderr)
    with Journal.open(tmp_path) as j:
        assert j.games() == []


def test_names_are_stored_composed_and_the_dealer_found_by_its_key(
    run_cli: RunCli, tmp_path: Path
) -> None:
    assert check_names("Jose\u0301,Bob") == ["Jos\u00e9", "Bob"]  # NFC
    proc = run_cli(*NEW[:3], "--players", "Ann,Bob", "--dealer", "bob", "--data-dir", tmp_path)
    assert proc.returncode == 0, proc.stderr
    with Journal.open(tmp_path) as j:
        assert j.game(1).dealer == "Bob"


def test_markup_in_names_is_shown_as_typed(run_cli: RunCli, tmp_path: Path) -> None:
    players = "[/],[red]Bob,[bold]Cy[/bold]"
    proc = run_cli(
        "play",
        "--variant",
        "pocket-pizza",
        "--players",
        players,
        "--dealer",
        "[/]",
        "--data-dir",
        tmp_path,
        input="y3\ny4\n",
    )
    assert proc.returncode == 0, proc.stderr
    assert "internal error" not in proc.stderr
    assert "[red]Bob: play a card" in proc.stdout  # the prompt line, not a red "Bob"
    assert "│ ▶   [bold]Cy[/bold]      5      0" in proc.stdout  # the table row, as typed
    assert "D   [/]" in proc.stdout
    proc = run_cli("history", "--data-dir", tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert "[/] 0, [red]Bob 0, [bold]Cy[/bold] 0" in proc.stdout
    proc = run_cli("history", "1", "--data-dir", tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert "[red]Bob plays yellow 4" in proc.stdout  # as typed, in the game screen's words


HOSTILE = ["Ann\x1b[2J", "[/]", "Bob\u202e", "Cy\u200b"]


def _stored_before_the_checks(tmp_path: Path) -> int:
    """A game stored with names the checks now refuse (as older versions allowed)."""
    with Journal.open(tmp_path) as j:
        s = Session.start(j, "pocket-pizza", HOSTILE, {}, seed=1, dealer=HOSTILE[0])
        s.apply({"by": HOSTILE[0], "choose": {"top": "y3"}})
        return s.id


def test_games_stored_with_such_names_still_list_and_resume(
    run_cli: RunCli, tmp_path: Path
) -> None:
    gid = _stored_before_the_checks(tmp_path)
    for args in (["history"], ["history", str(gid)], ["play", "--resume", str(gid)]):
        proc = run_cli(*args, "--data-dir", tmp_path, input="y4\n")
        assert proc.returncode == 0, (args, proc.stderr)
        assert "\x1b" not in proc.stdout and "\u202e" not in proc.stdout, args
        assert "\u200b" not in proc.stdout, args
        assert "Ann\\x1b[2J" in proc.stdout and "[/]" in proc.stdout, (args, proc.stdout)
        assert "Bob\\u202e" in proc.stdout and "Cy\\u200b" in proc.stdout, args
    with Journal.open(tmp_path) as j:  # the resumed game went on, under the stored names
        assert [e.data for e in j.entries(gid)][-1] == {"by": "[/]", "play": "y4"}


def test_resume_in_a_terminal_draws_stored_names_escaped(tmp_path: Path) -> None:
    gid = _stored_before_the_checks(tmp_path)
    p = Player(tmp_path, "play", "--resume", str(gid))
    try:
        screen = p.at("[/]> ")
        assert "Ann\\x1b[2J" in screen and "Bob\\u202e" in screen and "Cy\\u200b" in screen
        assert "\x1b[2J" not in screen and "\u202e" not in screen and "\u200b" not in screen
        p.type("[/]> ", "y4")
        screen = p.at("Bob\\u202e> ")
        assert "\x1b[2J" not in screen and "\u202e" not in screen
    finally:
        p.close()
    assert p.state(gid)["awaiting"]["by"] == "Bob\u202e"


def test_shown_escapes_only_what_acts_on_the_terminal() -> None:
    assert shown("Zoë [red]x 🎉") == "Zoë [red]x 🎉"
    assert shown("a\x1bb\u202ec\u200bd\ne") == "a\\x1bb\\u202ec\\u200bd\\x0ae"
    assert shown("a\nb", lines=True) == "a\nb"
