"""Issue 22, "A family that types": seeded games at a simulated physical table (real
decks, real hands, the firmware's launcher pattern) typed into the real table — the
parser and session of ``play`` — with the words people use, typos the table must refuse,
wrong cards taken back with ``undo``, hand sizes typed wrong and corrected, and counts
typed wrong at a round's end. After every action an oracle compares the table's hand
sizes, turn, direction, colour, top card, presses owed, scores and winners with the
physical table's (COM-1..COM-9 and each variant's rules, via the engine that knows every
card). A divergence fails with the seed and every line typed. Thousands more games:
``bench/bench_family.py``."""

from __future__ import annotations

import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from table_family import Divergence, play_family_game

VARIANTS = ("attack", "mario-kart", "pocket-pizza")
CHUNK = 15


@pytest.fixture
def data_dir(tmp_path: Path) -> Iterator[Path]:
    """The journals: in memory-backed /dev/shm when there is one (SQLite's FULL sync on
    every action is the slow part on a busy disk), else the test's own folder."""
    shm = Path("/dev/shm")
    if shm.is_dir():
        with tempfile.TemporaryDirectory(dir=shm) as d:
            yield Path(d)
    else:
        yield tmp_path


@pytest.mark.parametrize("first", [0, CHUNK])
@pytest.mark.parametrize("variant", VARIANTS)
def test_family_plays_whole_rounds_without_divergence(
    data_dir: Path, variant: str, first: int
) -> None:
    """Whole one-round games (target 1: the round's end, its count and the game's end)."""
    for seed in range(first, first + CHUNK):
        record = play_family_game(data_dir / str(seed), variant, seed, target=1, screen=False)
        assert record.finished and record.lines


@pytest.mark.parametrize("first", [1000, 1000 + 2 * CHUNK, 1000 + 4 * CHUNK])
@pytest.mark.parametrize("variant", VARIANTS)
def test_family_plays_short_games_without_divergence(
    data_dir: Path, variant: str, first: int
) -> None:
    """Short games: the first 150 lines of games to 60 points."""
    for seed in range(first, first + 20):
        record = play_family_game(
            data_dir / str(seed), variant, seed, target=60, screen=False, max_lines=150
        )
        assert len(record.lines) >= 150 or record.finished


def test_family_reports_a_divergence_with_the_seed_and_the_lines(data_dir: Path) -> None:
    """The oracle can fail: a table told a wrong hand size is caught, and the report
    holds what to type again."""
    from table_family import Family

    family = Family(data_dir, "pocket-pizza", 7, target=1, screen=False)
    original = family.read_line
    calls = [0]

    def lying(prompt: str) -> str:
        calls[0] += 1
        if calls[0] == 3:
            family.record.lines.append("fix Ann 9")
            return "fix Ann 9"  # the table is told something that did not happen
        return original(prompt)

    family.table.read_line = lying
    with pytest.raises(Divergence) as err:
        family.play()
    text = str(err.value)
    assert "pocket-pizza seed 7" in text and "hand_sizes" in text and "fix Ann 9" in text


@pytest.mark.parametrize("first", [2000, 2030])
def test_family_plays_attack_with_a_launcher_without_divergence(data_dir: Path, first: int) -> None:
    """UNO Attack with a launcher: presses arrive as its events, with jams (the card
    pulled out of the mouth is credited, then 'clear'), fouls, and 'press N' refused
    (ATK-25, ATK-26)."""
    for seed in range(first, first + 25):
        record = play_family_game(
            data_dir / str(seed), "attack", seed, target=1, screen=False, launcher=True
        )
        assert record.finished


@pytest.mark.parametrize("variant", VARIANTS)
def test_family_plays_with_the_screen_laid_out(data_dir: Path, variant: str) -> None:
    """A few short games with rich laying the screen out every time, as 'play' does."""
    for seed in range(3000, 3003):
        record = play_family_game(
            data_dir / str(seed), variant, seed, target=60, screen=True, max_lines=100
        )
        assert len(record.lines) >= 100 or record.finished


AT_ONCE = 12  # seeds a test of the families that act at once


@pytest.mark.parametrize("first", [4000, 4000 + AT_ONCE])
@pytest.mark.parametrize("variant", VARIANTS)
def test_family_terminal_phones_and_launcher_at_once_without_divergence(
    data_dir: Path, variant: str, first: int
) -> None:
    """Issue 34 (d): the terminal, the phones and the launcher act at once. Moves are sent
    from the players' phones and come as the launcher's events while the terminal's prompt
    waits, with a line typed there just before the turn changed (refused, nothing
    recorded); the game and each phone speak English or the pseudo-locale. After every
    step: the physical table's state, who was recorded, the cards in no hand and the
    launcher's counters, and every screen's language. UNO Attack with a launcher on every
    other seed; short games of 120 lines."""
    stale = phones = 0
    for seed in range(first, first + AT_ONCE):
        record = play_family_game(
            data_dir / str(seed),
            variant,
            seed,
            target=60,
            screen=False,
            max_lines=120,
            launcher=variant == "attack" and seed % 2 == 0,
            concurrent=True,
        )
        assert len(record.lines) >= 120 or record.finished
        stale += record.stale_lines
        phones += record.phone_moves + record.launcher_moves
    assert phones > 10 * AT_ONCE and stale > 5 * AT_ONCE  # the races happened, many times


@pytest.mark.parametrize("variant", VARIANTS)
def test_family_at_once_through_whole_rounds(data_dir: Path, variant: str) -> None:
    """The same to a game's end (target 1: a round's end reached from a phone or the
    terminal, its count, the game's end)."""
    for seed in range(5000, 5006):
        record = play_family_game(
            data_dir / str(seed),
            variant,
            seed,
            target=1,
            screen=False,
            launcher=variant == "attack" and seed % 2 == 1,
            concurrent=True,
        )
        assert record.finished
