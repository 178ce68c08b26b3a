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

One game, one process: ``unolaunch play`` holds a game with :meth:`Journal.claim` (a row
of the ``claims`` table naming its process); a second process is refused at once, and a
claim left by a process that no longer runs is taken over. As a second guard, a Journal
remembers the last entry of each game it has seen and refuses to append to a game that
someone else has extended since (:class:`JournalConflict`).

Every SQLite failure becomes one :class:`UnolaunchError` naming its real cause: a damaged
file, a read-only folder, a full disk, a failing disk, a file held by another program.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import socket
import sqlite3
import sys
import threading
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import platformdirs

from unolaunch import crashpoint
from unolaunch.errors import UnolaunchError
from unolaunch.i18n import _

DATA_DIR_ENV = "UNOLAUNCH_DATA_DIR"
DB_NAME = "games.sqlite3"
#: 1: the first games file; 2: ``games.lang``, the table's language (issue 25). A file of
#: an older format is brought up to date when opened for writing (:func:`_migrate`).
SCHEMA_VERSION = 2

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
    status TEXT NOT NULL,           -- playing | finished | abandoned
    round INTEGER NOT NULL DEFAULT 1,
    scores TEXT NOT NULL,           -- JSON object
    winner TEXT,
    lang TEXT                       -- the table's language (en, is...), format 2
);
CREATE TABLE IF NOT EXISTS entries (
    game_id INTEGER NOT NULL REFERENCES games(id),
    seq INTEGER NOT NULL,
    kind TEXT NOT NULL,             -- action | undo | deal
    data TEXT NOT NULL,             -- JSON
    at TEXT NOT NULL,
    PRIMARY KEY (game_id, seq)
);
CREATE TABLE IF NOT EXISTS claims (  -- the process playing a game (Journal.claim)
    game_id INTEGER PRIMARY KEY,
    pid INTEGER NOT NULL,
    host TEXT NOT NULL,
    pstart TEXT NOT NULL,           -- the process's start time where known (pid reuse)
    token TEXT NOT NULL,
    since TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS links (  -- each player's web join secret (Journal.web_links)
    game_id INTEGER NOT NULL REFERENCES games(id),
    player TEXT NOT NULL,
    secret TEXT NOT NULL,
    made TEXT NOT NULL,
    PRIMARY KEY (game_id, player)
);
"""

# SQLite's primary result codes (sqlite3.Error.sqlite_errorcode & 0xFF).
_BUSY, _LOCKED, _READONLY, _IOERR, _CORRUPT, _FULL, _CANTOPEN, _NOTADB = 5, 6, 8, 10, 11, 13, 14, 26


#: Columns added to ``games`` after format 1, with their SQL type (see :func:`_migrate`).
_ADDED_COLUMNS = {"lang": "TEXT"}


def _migrate(db: sqlite3.Connection) -> None:
    """Bring a games file of an older format up to date: the columns added since are
    added (empty for the games already there; every older reader ignores them)."""
    have = {str(r[1]) for r in db.execute("PRAGMA table_info(games)")}
    for column, kind in _ADDED_COLUMNS.items():
        if column not in have:
            db.execute(f"ALTER TABLE games ADD COLUMN {column} {kind}")


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


class JournalConflict(UnolaunchError):
    """The game was extended by another writer since this Journal last saw it."""


class DiskFull(UnolaunchError):
    """The disk holding the games file is full: nothing of the failed write was stored;
    the same write succeeds once space is freed (a table keeps the game in memory meanwhile,
    :meth:`unolaunch.table.session.Session.save`)."""


class GameInUse(UnolaunchError):
    """Another running process holds the game (:meth:`Journal.claim`)."""


def _writable(path: Path) -> bool:
    return os.access(path, os.W_OK)


def _read_only_disk(folder: Path) -> bool:
    """Whether ``folder`` is on a file system mounted read-only (POSIX)."""
    try:
        return bool(os.statvfs(folder).f_flag & os.ST_RDONLY)
    except (OSError, AttributeError):  # Windows has no statvfs
        return False


def storage_error(exc: sqlite3.Error, path: Path) -> UnolaunchError:
    """A failure of the games file ``path`` as one line naming the real cause and what to
    do: damaged, read-only, disk full, disk failing, held by another program."""
    code = getattr(exc, "sqlite_errorcode", None)
    primary = code & 0xFF if isinstance(code, int) else None
    text = str(exc)
    folder = path.parent
    if primary == _FULL or "disk is full" in text:
        return DiskFull(
            _(
                "the disk holding {folder} is full (SQLite: {text}); free some space and try "
                "again — the games already saved are intact"
            ).format(folder=folder, text=text)
        )
    unwritable = not _writable(folder) or (path.exists() and not _writable(path))
    if primary == _READONLY or "readonly" in text or (primary == _CANTOPEN and unwritable):
        elsewhere = _("use another folder with --data-dir or ${env}").format(env=DATA_DIR_ENV)
        if _read_only_disk(folder):
            return UnolaunchError(
                _(
                    "the games folder {folder} is on a read-only disk (SQLite: {text}); make "
                    "that disk writable (remount it, unlock the card) or {elsewhere}"
                ).format(folder=folder, text=text, elsewhere=elsewhere)
            )
        target = folder if not _writable(folder) else path
        if target == folder:
            text = _(
                "the games folder {target} is read-only (SQLite: {text}); make it writable (e.g. "
                "chmod u+w '{target}') or {elsewhere}"
            )
        else:
            text = _(
                "the games file {target} is read-only (SQLite: {text}); make it writable (e.g. "
                "chmod u+w '{target}') or {elsewhere}"
            )
        return UnolaunchError(text.format(target=target, text=str(exc), elsewhere=elsewhere))
    decode = "Could not decode" in text
    if primary in (_CORRUPT, _NOTADB) or decode or "malformed" in text:
        column = re.search(r"column '(\w+)'", text) if decode else None
        if column:
            detail = _("a stored text is not valid UTF-8, in column {column}").format(
                column=column.group(1)
            )
        else:
            detail = _("a stored text is not valid UTF-8") if decode else text
        return damaged(path, detail)
    if primary == _IOERR:
        return UnolaunchError(
            _(
                "the disk holding {path} fails to read or write (SQLite: {text}); check the disk "
                "(still plugged in? errors in the system log?), then try again"
            ).format(path=path, text=text)
        )
    if primary in (_BUSY, _LOCKED):
        return UnolaunchError(
            _(
                "the games file {path} is held by another program (SQLite: {text}); close it "
                "(another unolaunch, an SQLite browser) and try again"
            ).format(path=path, text=text)
        )
    if primary == _CANTOPEN:
        return UnolaunchError(
            _(
                "cannot open the games file {path} (SQLite: {text}); check that it is a file you "
                "may read and write, or use another folder with --data-dir or ${env}"
            ).format(path=path, text=text, env=DATA_DIR_ENV)
        )
    return UnolaunchError(f"cannot use the games file {path} (SQLite: {text})")


def damaged(path: Path, detail: str) -> UnolaunchError:
    """The games file is damaged: say so, and how to go on without losing its games."""
    return UnolaunchError(
        _(
            "the games file {path} is damaged and unreadable in places ({detail}); to go on "
            "without losing its games, move it aside with 'unolaunch history --recover': it "
            "keeps the file as '{name}.bad' and copies every game it can still read into a fresh "
            "one"
        ).format(path=path, detail=detail, name=path.name)
    )


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
    lang: str | None = None  # the table's language (None: a game from before issue 25)


@dataclass(frozen=True)
class Entry:
    """One journal entry: ``kind`` is ``action``, ``deal``, ``undo`` or ``note`` (what the
    launcher reported at the table: no game state)."""

    seq: int
    kind: str
    data: dict[str, Any]
    at: str


class Journal:
    """The SQLite store of games. Thread-safe (the launcher's event thread writes too)."""

    def __init__(self, path: str | os.PathLike[str], *, read_only: bool = False) -> None:
        """Open (creating it and its folder if needed) the games file ``path``; with
        ``read_only`` open an existing one without writing anything (a listing)."""
        self.path = Path(path)
        self._lock = threading.RLock()
        self._seen: dict[int, int] = {}  # game -> the last entry this Journal has seen
        if read_only:
            self._open_read_only()
            return
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise UnolaunchError(
                _(
                    "cannot create the games folder {folder} ({error}); set {env} or --data-dir "
                    "to a writable folder"
                ).format(folder=self.path.parent, error=exc.strerror, env=DATA_DIR_ENV)
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
                    _(
                        "the games file {path} was written by a newer unolaunch (format "
                        "{version}); upgrade unolaunch to use it"
                    ).format(path=self.path, version=version)
                )
            self._db.executescript(_SCHEMA)
            _migrate(self._db)
            self._db.execute(f"PRAGMA user_version={SCHEMA_VERSION}")
            self._columns = {str(r[1]) for r in self._db.execute("PRAGMA table_info(games)")}
            # Damaged pages: say so before a game is written into them (quick_check reads
            # every page; a few milliseconds for a file of a thousand games).
            problems = [str(r[0]) for r in self._db.execute("PRAGMA quick_check(3)")]
        except sqlite3.Error as exc:
            with contextlib.suppress(sqlite3.Error, AttributeError):
                self._db.close()
            raise storage_error(exc, self.path) from None
        if problems != ["ok"]:
            self._db.close()
            check = " ".join(problems[0].replace("*** in database main ***", "").split())
            raise damaged(
                self.path,
                _("database disk image is malformed; SQLite's check: {check}").format(check=check),
            )

    def _open_read_only(self) -> None:
        # mode=rw, not ro: never creates the file; and only a connection that may write can
        # remove the -wal/-shm files of a WAL database when it closes (mode=ro leaves them).
        # In a read-only folder nobody can be writing the file: read it as immutable.
        folder = self.path.parent
        fixed = not _writable(folder) or _read_only_disk(folder)
        uri = self.path.resolve().as_uri() + ("?mode=ro&immutable=1" if fixed else "?mode=rw")
        try:
            self._db = sqlite3.connect(
                uri, uri=True, isolation_level=None, check_same_thread=False, timeout=10
            )
            self._db.execute("PRAGMA query_only=ON")  # any write is refused
            version = self._db.execute("PRAGMA user_version").fetchone()[0]
            tables = self._db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")
            if "games" not in {row[0] for row in tables}:  # an empty file: no games
                self._db.close()
                self._db = sqlite3.connect(":memory:", check_same_thread=False)
                self._db.executescript(_SCHEMA)
            # an older format is read as it is (nothing is written): its games have no lang
            self._columns = {str(r[1]) for r in self._db.execute("PRAGMA table_info(games)")}
        except sqlite3.Error as exc:
            raise storage_error(exc, self.path) from None
        if version > SCHEMA_VERSION:
            raise UnolaunchError(
                _(
                    "the games file {path} was written by a newer unolaunch (format {version}); "
                    "upgrade unolaunch to use it"
                ).format(path=self.path, version=version)
            )

    @classmethod
    def open(
        cls, directory: str | os.PathLike[str] | None = None, *, read_only: bool = False
    ) -> Journal:
        """Open (creating if needed) the journal in :func:`data_dir` ``(directory)``;
        ``read_only``: an existing one, writing nothing."""
        return cls(data_dir(directory) / DB_NAME, read_only=read_only)

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
                    self._db.execute("COMMIT")
                except BaseException:
                    # (SQLite rolls back by itself after some errors — a full disk — and a
                    # ROLLBACK then would hide the cause: issue 33)
                    if self._db.in_transaction:
                        self._db.execute("ROLLBACK")
                    raise
            except sqlite3.Error as exc:
                raise storage_error(exc, self.path) from None
            crashpoint.step("journal")  # committed: durable (issue 33)

    @contextmanager
    def _reading(self) -> Iterator[sqlite3.Connection]:
        with self._lock:
            try:
                yield self._db
            except sqlite3.Error as exc:
                raise storage_error(exc, self.path) from None

    def new_game(
        self,
        variant: str,
        players: list[str] | tuple[str, ...],
        options: dict[str, Any],
        seed: int,
        port: str | None = None,
        dealer: str | None = None,
        lang: str | None = None,
    ) -> int:
        """Store a new game's set-up (``lang``: the table's language); returns its id."""
        now = _now()
        with self._tx() as db:
            cur = db.execute(
                "INSERT INTO games (variant, players, options, seed, port, dealer, created,"
                " updated, status, scores, lang) VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'playing', ?, ?)",
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
                    lang,
                ),
            )
            game_id = cur.lastrowid
        assert game_id is not None
        self._seen[game_id] = 0
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
        """Store several entries (all or none) and the summary; returns the last seq.

        Refused with :class:`JournalConflict` (nothing stored) when the game has entries
        this Journal has not seen: another process wrote to it since."""
        for kind, _data in items:
            if kind not in ("action", "undo", "deal", "note"):
                raise ValueError(f"unknown journal entry kind {kind!r}")
        now = _now()
        with self._tx() as db:
            row = db.execute(
                "SELECT COALESCE(MAX(seq), 0) FROM entries WHERE game_id = ?", (game_id,)
            ).fetchone()
            seq = int(row[0])
            seen = self._seen.get(game_id)
            if seen is not None and seq != seen:
                raise JournalConflict(
                    _(
                        "game {game_id} was changed by another unolaunch (it now has {seq} "
                        "entries, this one saw {seen}); nothing more was saved here — continue "
                        "in one place only: 'unolaunch play --resume {game_id}'"
                    ).format(game_id=game_id, seq=seq, seen=seen)
                )
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
        self._seen[game_id] = seq
        return seq

    def entries(self, game_id: int) -> list[Entry]:
        """Every entry of a game, in order (the first read of a game is what this Journal
        has seen of it: see :meth:`append_many`)."""
        with self._reading() as db:
            rows = db.execute(
                "SELECT seq, kind, data, at FROM entries WHERE game_id = ? ORDER BY seq",
                (game_id,),
            ).fetchall()
            self._seen.setdefault(game_id, int(rows[-1][0]) if rows else 0)
        out = []
        for s, k, d, a in rows:
            try:
                data = json.loads(d)
            except (ValueError, TypeError):
                data = None
            if not isinstance(data, dict):
                raise damaged(
                    self.path,
                    _("entry {entry} of game {game} is not a valid record").format(
                        entry=s, game=game_id
                    ),
                )
            out.append(Entry(int(s), str(k), data, str(a)))
        return out

    def _records(self, where: str, args: tuple[Any, ...]) -> list[GameRecord]:
        with self._reading() as db:
            rows = db.execute(
                "SELECT g.id, variant, players, options, seed, port, dealer, created, updated,"
                " status,"
                " round, scores, winner,"
                " (SELECT COUNT(*) FROM entries e WHERE e.game_id = g.id),"
                f" {'lang' if 'lang' in self._columns else 'NULL'}"
                f" FROM games g {where}",
                args,
            ).fetchall()
        try:
            return [self._record(r) for r in rows]
        except (ValueError, TypeError, KeyError) as exc:
            raise damaged(
                self.path, _("a game's stored set-up is not valid ({error})").format(error=exc)
            ) from None

    @staticmethod
    def _record(r: Any) -> GameRecord:
        return GameRecord(
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
            lang=r[14] if isinstance(r[14], str) else None,
        )

    def games(self) -> list[GameRecord]:
        """Every game, newest first."""
        return self._records("ORDER BY g.id DESC", ())

    def game(self, game_id: int) -> GameRecord:
        """One game by id; :class:`UnolaunchError` naming the known ids if there is none."""
        found = self._records("WHERE g.id = ?", (game_id,))
        if not found:
            known = [g.id for g in self.games()[:10]]
            hint = (
                _("known games: {games}").format(games=", ".join(map(str, known)))
                if known
                else _("no games yet")
            )
            raise UnolaunchError(
                _("no game {game_id} in {path} ({hint}); 'unolaunch history' lists them").format(
                    game_id=game_id, path=self.path, hint=hint
                )
            )
        return found[0]

    def discard_unplayed(self, game_id: int) -> bool:
        """Delete game ``game_id`` if nothing was ever played in it (no entry): a game that
        could not start (its launcher unreachable) must not clutter the history. True when
        it was deleted; a game with entries is kept."""
        with self._tx() as db:
            if db.execute("SELECT 1 FROM entries WHERE game_id = ?", (game_id,)).fetchone():
                return False
            db.execute("DELETE FROM claims WHERE game_id = ?", (game_id,))
            db.execute("DELETE FROM games WHERE id = ?", (game_id,))
        return True

    def web_links(self, game_id: int) -> dict[str, str]:
        """The players' web join secrets kept with game ``game_id`` (empty: none yet), so
        that a resumed game keeps its links and QR codes."""
        with self._reading() as db:
            rows = db.execute(
                "SELECT player, secret FROM links WHERE game_id = ? ORDER BY player", (game_id,)
            ).fetchall()
        return {str(p): str(k) for p, k in rows}

    def set_web_links(self, game_id: int, links: dict[str, str]) -> None:
        """Keep ``links`` (player -> secret) as game ``game_id``'s join secrets, in place
        of any kept before (those stop working: ``--new-links``)."""
        now = _now()
        with self._tx() as db:
            db.execute("DELETE FROM links WHERE game_id = ?", (game_id,))
            db.executemany(
                "INSERT INTO links (game_id, player, secret, made) VALUES (?, ?, ?, ?)",
                [(game_id, p, k, now) for p, k in links.items()],
            )

    @staticmethod
    def recover(directory: str | os.PathLike[str] | None = None) -> tuple[int, int, Path]:
        """Copy every game a damaged games file still holds readable into a fresh file that
        takes its place; the damaged file is kept beside it as ``games.sqlite3.bad``.
        Returns (games saved whole, games lost or cut short, the damaged file's new path).
        A game whose log cannot be read to its end keeps the entries before the damage."""
        path = data_dir(directory) / DB_NAME
        if not path.exists():
            raise UnolaunchError(_("there is no games file to recover ({path})").format(path=path))
        bad = path.with_name(path.name + ".bad")
        if bad.exists():
            raise UnolaunchError(_("{path} is there already: move it away first").format(path=bad))
        fresh = path.with_name(path.name + ".recovering")
        fresh.unlink(missing_ok=True)
        src = sqlite3.connect(path.resolve().as_uri() + "?mode=ro", uri=True)
        saved = lost = 0
        try:
            dst = sqlite3.connect(fresh, isolation_level=None)
            dst.executescript(_SCHEMA)
            dst.execute(f"PRAGMA user_version={SCHEMA_VERSION}")
            try:
                ids = [int(r[0]) for r in src.execute("SELECT id FROM games ORDER BY id")]
            except sqlite3.Error:
                ids = []
            for gid in ids:
                try:
                    cur = src.execute("SELECT * FROM games WHERE id = ?", (gid,))
                    row = cur.fetchone()
                    names = [str(d[0]) for d in cur.description]  # a file of an older format
                except sqlite3.Error:
                    lost += 1
                    continue
                whole = True
                entries: list[tuple[Any, ...]] = []
                try:
                    for e in src.execute(
                        "SELECT game_id, seq, kind, data, at FROM entries WHERE game_id = ? "
                        "ORDER BY seq",
                        (gid,),
                    ):
                        json.loads(e[3])
                        entries.append(tuple(e))
                except (sqlite3.Error, ValueError):
                    whole = False
                links: list[tuple[Any, ...]] = []
                with contextlib.suppress(sqlite3.Error):  # the web join links (kept if readable)
                    links = [
                        tuple(r)
                        for r in src.execute(
                            "SELECT game_id, player, secret, made FROM links WHERE game_id = ?",
                            (gid,),
                        )
                    ]
                dst.execute("BEGIN")
                dst.execute(
                    f"INSERT INTO games ({', '.join(names)}) VALUES ({', '.join('?' * len(row))})",
                    row,
                )
                dst.executemany("INSERT INTO entries VALUES (?, ?, ?, ?, ?)", entries)
                dst.executemany("INSERT INTO links VALUES (?, ?, ?, ?)", links)
                dst.execute("COMMIT")
                saved += whole
                lost += not whole
            dst.close()
        finally:
            src.close()
        for suffix in ("", "-wal", "-shm"):
            part = path.with_name(path.name + suffix)
            if part.exists():
                part.rename(path.with_name(bad.name + suffix))
        fresh.rename(path)
        return saved, lost, bad

    def set_lang(self, game_id: int, lang: str) -> None:
        """Keep ``lang`` as the language game ``game_id`` is played in (``play --resume
        --lang``): a later ``--resume`` without ``--lang`` speaks it."""
        with self._tx() as db:
            db.execute("UPDATE games SET lang = ? WHERE id = ?", (lang, game_id))

    def set_status(self, game_id: int, status: str) -> None:
        """Set a game's status (``abandoned``: closed unfinished); the next entry appended
        sets it back to ``playing`` or ``finished``."""
        with self._tx() as db:
            db.execute("UPDATE games SET status = ? WHERE id = ?", (status, game_id))

    def latest_unfinished(self) -> GameRecord | None:
        """The most recently updated game still being played, if any."""
        found = self._records("WHERE status = 'playing' ORDER BY updated DESC, g.id DESC", ())
        return found[0] if found else None

    # ------------------------------------------------------------------ one game, one process
    @contextmanager
    def claim(self, game_id: int) -> Iterator[None]:
        """Hold game ``game_id`` for this process while the ``with`` block runs.

        :class:`GameInUse` naming the other process when a running one holds it; a claim
        left by a process that has ended (killed, crashed, power cut) is taken over."""
        self.game(game_id)  # "no game N" first
        token = uuid.uuid4().hex
        me = os.getpid()
        with self._tx() as db:
            row = db.execute(
                "SELECT pid, host, pstart, token, since FROM claims WHERE game_id = ?",
                (game_id,),
            ).fetchone()
            if row is not None and _holds(int(row[0]), str(row[1]), str(row[2]), str(row[3])):
                pid, since = int(row[0]), str(row[4])
                raise GameInUse(
                    _(
                        "game {game_id} is already open in another unolaunch (process {pid}, "
                        "since {since} UTC); one game is played in one place: go on there, or "
                        "quit it there first (if it hangs: kill {pid})"
                    ).format(game_id=game_id, pid=pid, since=since)
                )
            db.execute(
                "INSERT OR REPLACE INTO claims (game_id, pid, host, pstart, token, since)"
                " VALUES (?, ?, ?, ?, ?, ?)",
                (game_id, me, socket.gethostname(), _process_start(me), token, _now()),
            )
        _LIVE_CLAIMS.add(token)
        try:
            yield
        finally:
            _LIVE_CLAIMS.discard(token)
            try:
                with self._tx() as db:
                    db.execute(
                        "DELETE FROM claims WHERE game_id = ? AND token = ?", (game_id, token)
                    )
            except UnolaunchError:
                pass  # left behind, it is taken over: this process no longer runs then


#: The claims this process holds now (a claim row with our own pid but another token is
#: left over from an earlier process that had the same pid).
_LIVE_CLAIMS: set[str] = set()


def _holds(pid: int, host: str, pstart: str, token: str) -> bool:
    """Is the process that wrote this claim still running (and still holding it)?"""
    if host != socket.gethostname():
        # SQLite's WAL mode cannot share a file between computers: a claim from another
        # one is left over in a folder that was copied or synced here.
        return False
    if pid == os.getpid():
        return token in _LIVE_CLAIMS
    if not _running(pid):
        return False
    now = _process_start(pid)
    return not (pstart and now and now != pstart)  # the pid was reused by another process


def _running(pid: int) -> bool:
    """Whether process ``pid`` exists (and is not a zombie)."""
    if pid <= 0:
        return False
    if sys.platform == "win32":
        import ctypes

        kernel32 = ctypes.windll.kernel32
        handle = kernel32.OpenProcess(0x1000, False, pid)  # QUERY_LIMITED_INFORMATION
        if not handle:
            return False
        code = ctypes.c_ulong()
        try:
            ok = kernel32.GetExitCodeProcess(handle, ctypes.byref(code))
            return bool(ok) and code.value == 259  # STILL_ACTIVE
        finally:
            kernel32.CloseHandle(handle)
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # someone else's process
    stat = _proc_stat(pid)
    return not (stat and stat[0] in ("Z", "X"))  # a zombie has ended


def _proc_stat(pid: int) -> list[str] | None:
    """Fields of ``/proc/PID/stat`` after the command name (Linux), else None."""
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii", errors="replace") as f:
            text = f.read()
    except OSError:
        return None
    return text[text.rfind(")") + 2 :].split()


def _process_start(pid: int) -> str:
    """When process ``pid`` started (clock ticks since boot, Linux), '' where unknown."""
    stat = _proc_stat(pid)
    return stat[19] if stat and len(stat) > 19 else ""
