"""The game journal: every table action stored in SQLite the moment it happens.

One database file (``games.sqlite3``) in the user's data directory (platformdirs), or in
``$UNOLAUNCH_DATA_DIR`` / ``--data-dir`` when given (tests use that). A game is its set-up
(variant, players, options, seed) plus an append-only list of entries: ``action`` (a
scenario-format action dict exactly as the engine accepted it, with the observed card
count of a press), ``deal`` (the next round was dealt) and ``undo`` (take back the last
N actions or deals). Replaying the entries on a
fresh engine gives back the exact position, which is what ``--resume`` does.

Each entry is written in its own transaction together with the game's summary (scores,
winner, status), with ``synchronous=FULL`` in WAL mode: once :meth:`Journal.append` has
returned, a crash, a SIGKILL or a power cut cannot lose it.
"""

from __future__ import annotations

import json
import os
import sqlite3
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import platformdirs

from unolaunch.errors import UnolaunchError

DATA_DIR_ENV = "UNOLAUNCH_DATA_DIR"
DB_NAME = "games.sqlite3"
SCHEMA_VERSION = 1

_SCHEMA = """
CREATE TABLE IF NOT EXISTS games (
    id INTEGER PRIMARY KEY,
    variant TEXT NOT NULL,
    players TEXT NOT NULL,          -- JSON list, seating order
    options TEXT NOT NULL,          -- JSON object (engine options, target)
    seed INTEGER NOT NULL,
    port TEXT,                      -- the launcher it was played with, if any
    dealer TEXT,                    -- the first dealer
    created TEXT NOT NULL,
    updated TEXT NOT NULL,
    status TEXT NOT NULL,           -- playing | finished
    round INTEGER NOT NULL DEFAULT 1,
    scores TEXT NOT NULL,           -- JSON object
    winner TEXT
);
CREATE TABLE IF NOT EXISTS entries (
    game_id INTEGER NOT NULL REFERENCES games(id),
    seq INTEGER NOT NULL,
    kind TEXT NOT NULL,             -- action | undo | deal
    data TEXT NOT NULL,             -- JSON
    at TEXT NOT NULL,
    PRIMARY KEY (game_id, seq)
);
"""


def data_dir(override: str | os.PathLike[str] | None = None) -> Path:
    """Where games are kept: ``override``, else ``$UNOLAUNCH_DATA_DIR``, else the
    platform's user data directory for unolaunch (e.g. ``~/.local/share/unolaunch``)."""
    if override:
        return Path(override).expanduser()
    env = os.environ.get(DATA_DIR_ENV)
    if env:
        return Path(env).expanduser()
    return platformdirs.user_data_path("unolaunch", appauthor=False)


def _now() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%d %H:%M:%S")


@dataclass(frozen=True)
class GameRecord:
    """One game's set-up and summary, as stored."""

    id: int
    variant: str
    players: tuple[str, ...]
    options: dict[str, Any]
    seed: int
    port: str | None
    dealer: str | None
    created: str
    updated: str
    status: str
    round: int
    scores: dict[str, int]
    winner: str | None
    actions: int  # entries stored (actions and undos)


@dataclass(frozen=True)
class Entry:
    """One journal entry: ``kind`` is ``action``, ``deal`` or ``undo``."""

    seq: int
    kind: str
    data: dict[str, Any]
    at: str


class Journal:
    """The SQLite store of games. Thread-safe (the launcher's event thread writes too)."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = Path(path)
        self._lock = threading.RLock()
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise UnolaunchError(
                f"cannot create the games folder {self.path.parent} ({exc.strerror}); "
                f"set {DATA_DIR_ENV} or --data-dir to a writable folder"
            ) from None
        try:
            self._db = sqlite3.connect(
                self.path, isolation_level=None, check_same_thread=False, timeout=10
            )
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=FULL")
            version = self._db.execute("PRAGMA user_version").fetchone()[0]
            if version > SCHEMA_VERSION:
                raise UnolaunchError(
                    f"the games file {self.path} was written by a newer unolaunch "
                    f"(format {version}); upgrade unolaunch to use it"
                )
            self._db.executescript(_SCHEMA)
            self._db.execute(f"PRAGMA user_version={SCHEMA_VERSION}")
        except sqlite3.DatabaseError as exc:
            raise UnolaunchError(
                f"the games file {self.path} is unreadable ({exc}); move it aside "
                f"(e.g. mv '{self.path}' '{self.path}.bad') to start a fresh one"
            ) from None

    @classmethod
    def open(cls, directory: str | os.PathLike[str] | None = None) -> Journal:
        """Open (creating if needed) the journal in :func:`data_dir` ``(directory)``."""
        return cls(data_dir(directory) / DB_NAME)

    def close(self) -> None:
        """Close the database (every entry is already on disk)."""
        with self._lock:
            self._db.close()

    def __enter__(self) -> Journal:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @contextmanager
    def _tx(self) -> Iterator[sqlite3.Connection]:
        with self._lock:
            try:
                self._db.execute("BEGIN IMMEDIATE")
                try:
                    yield self._db
                except BaseException:
                    self._db.execute("ROLLBACK")
                    raise
                self._db.execute("COMMIT")
            except sqlite3.OperationalError as exc:
                raise UnolaunchError(
                    f"cannot write the games file {self.path} ({exc}); check the disk "
                    "is not full and no other program holds the file, then try again"
                ) from None

    def new_game(
        self,
        variant: str,
        players: list[str] | tuple[str, ...],
        options: dict[str, Any],
        seed: int,
        port: str | None = None,
        dealer: str | None = None,
    ) -> int:
        """Store a new game's set-up; returns its id."""
        now = _now()
        with self._tx() as db:
            cur = db.execute(
                "INSERT INTO games (variant, players, options, seed, port, dealer, created,"
                " updated, status, scores) VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'playing', ?)",
                (
                    variant,
                    json.dumps(list(players)),
                    json.dumps(options, sort_keys=True),
                    seed,
                    port,
                    dealer,
                    now,
                    now,
                    json.dumps(dict.fromkeys(players, 0)),
                ),
            )
            game_id = cur.lastrowid
        assert game_id is not None
        return game_id

    def append(
        self,
        game_id: int,
        kind: str,
        data: dict[str, Any],
        *,
        scores: dict[str, int] | None = None,
        round_no: int | None = None,
        winner: str | None = None,
        finished: bool = False,
    ) -> int:
        """Store one entry and the game's new summary in one transaction; returns its seq."""
        return self.append_many(
            game_id,
            [(kind, data)],
            scores=scores,
            round_no=round_no,
            winner=winner,
            finished=finished,
        )

    def append_many(
        self,
        game_id: int,
        items: list[tuple[str, dict[str, Any]]],
        *,
        scores: dict[str, int] | None = None,
        round_no: int | None = None,
        winner: str | None = None,
        finished: bool = False,
    ) -> int:
        """Store several entries (all or none) and the summary; returns the last seq."""
        for kind, _ in items:
            if kind not in ("action", "undo", "deal"):
                raise ValueError(f"unknown journal entry kind {kind!r}")
        now = _now()
        with self._tx() as db:
            row = db.execute(
                "SELECT COALESCE(MAX(seq), 0) FROM entries WHERE game_id = ?", (game_id,)
            ).fetchone()
            seq = int(row[0])
            for kind, data in items:
                seq += 1
                db.execute(
                    "INSERT INTO entries (game_id, seq, kind, data, at) VALUES (?, ?, ?, ?, ?)",
                    (game_id, seq, kind, json.dumps(data, sort_keys=True), now),
                )
            sets = ["updated = ?", "winner = ?", "status = ?"]
            args: list[Any] = [now, winner, "finished" if finished else "playing"]
            if scores is not None:
                sets.append("scores = ?")
                args.append(json.dumps(scores))
            if round_no is not None:
                sets.append("round = ?")
                args.append(round_no)
            db.execute(f"UPDATE games SET {', '.join(sets)} WHERE id = ?", (*args, game_id))
        return seq

    def entries(self, game_id: int) -> list[Entry]:
        """Every entry of a game, in order."""
        with self._lock:
            rows = self._db.execute(
                "SELECT seq, kind, data, at FROM entries WHERE game_id = ? ORDER BY seq",
                (game_id,),
            ).fetchall()
        return [Entry(int(s), str(k), json.loads(d), str(a)) for s, k, d, a in rows]

    def _records(self, where: str, args: tuple[Any, ...]) -> list[GameRecord]:
        with self._lock:
            rows = self._db.execute(
                "SELECT g.id, variant, players, options, seed, port, dealer, created, updated,"
                " status,"
                " round, scores, winner,"
                " (SELECT COUNT(*) FROM entries e WHERE e.game_id = g.id)"
                f" FROM games g {where}",
                args,
            ).fetchall()
        return [
            GameRecord(
                id=int(r[0]),
                variant=str(r[1]),
                players=tuple(json.loads(r[2])),
                options=json.loads(r[3]),
                seed=int(r[4]),
                port=r[5],
                dealer=r[6],
                created=str(r[7]),
                updated=str(r[8]),
                status=str(r[9]),
                round=int(r[10]),
                scores=json.loads(r[11]),
                winner=r[12],
                actions=int(r[13]),
            )
            for r in rows
        ]

    def games(self) -> list[GameRecord]:
        """Every game, newest first."""
        return self._records("ORDER BY g.id DESC", ())

    def game(self, game_id: int) -> GameRecord:
        """One game by id; :class:`UnolaunchError` naming the known ids if there is none."""
        found = self._records("WHERE g.id = ?", (game_id,))
        if not found:
            known = [g.id for g in self.games()[:10]]
            hint = f"known games: {', '.join(map(str, known))}" if known else "no games yet"
            raise UnolaunchError(
                f"no game {game_id} in {self.path} ({hint}); 'unolaunch history' lists them"
            )
        return found[0]

    def latest_unfinished(self) -> GameRecord | None:
        """The most recently updated game still being played, if any."""
        found = self._records("WHERE status = 'playing' ORDER BY updated DESC, g.id DESC", ())
        return found[0] if found else None
