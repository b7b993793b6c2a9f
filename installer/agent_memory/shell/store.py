"""The derived store: what a search reads of each memory file, kept per digest of its bytes in one
SQLite database, ``agent-memory/store.sqlite3`` in the git folder (``discovery.git_folder``).

A cache, never a source of truth. A file's rows are used only for the exact bytes (sha256) and
tool version they were made from; anything else about the database (missing, cut short, garbage,
another schema, a trigger or view of its own, locked by a concurrent run, on a read-only or full
disk) makes the command read the file itself: no output and no exit code changes. It is opened
so that nothing in it runs (``trusted_schema=OFF``; no extension is loaded) and its schema must
be, row for row, the one this writes, else it is made again. A hit is read again from the file's
own bytes (``recall.verified``): a planted store can change which facts rank first, never what
the agent is shown of one. Rows are keyed by each file's path from the work tree's top (two
enabled folders of one repository keep theirs apart). Outside git, or without FTS5: no store.
"""

from __future__ import annotations

import array
import contextlib
import hashlib
import heapq
import os
import sqlite3
import stat
from collections.abc import Callable, Collection, Sequence
from pathlib import Path
from typing import TypeVar

from .. import resources
from ..core.agents import ranking, recall
from ..parse import facts
from ..parse.footer import TIERS
from .discovery import git_folder, work_tree_top

FOLDER, FILE = "agent-memory", "store.sqlite3"  # in the git folder
NAME = f".git/{FOLDER}/{FILE}"  # where a work tree's own .git folder holds it
SCHEMA = 5  # PRAGMA user_version of the tables and of the reader (5: front matter is opaque)
BUSY_MS = 50  # a hook never waits longer on another run's write: it reads the files instead
T = TypeVar("T")
_KEY = "used, uses, tier, name"  # what ranks near-ties
_TYPED = "AND typeof(used) = 'integer' AND typeof(uses) = 'integer' AND typeof(tier) = 'text' "
_TYPED += "AND typeof(name) = 'text'"
# ``ranking.order`` in SQL: ids are ASCII (``ID_PATTERN``), so SQLite's byte order is Python's
_TIER = " ".join(f"WHEN '{tier}' THEN {n}" for n, tier in enumerate(TIERS))
_ORDER = f"used DESC, uses DESC, CASE tier {_TIER} ELSE {len(TIERS)} END, name, id"
_APART = "\x1f"  # between the ids a fact's footer relates it to (no id holds it)
_FAULTS = (ValueError, TypeError, ArithmeticError, LookupError)  # of a stored value not ours
_NEXT = "SELECT value FROM meta WHERE key = 'next'"
_STALE = 20_000  # ids of files gone, past those of files kept, before the store is emptied
_PACKED = "I"  # lengths and places, packed unsigned: parsing 10,000 numbers cost 2 ms a search
# A file's rows: fact ids from ``base`` (meta's ``next``); ``terms`` a fact's distinct words,
# ``twice`` those it holds twice, ``repeats`` how often one held more often stands in it (a row
# per word held twice cost a first run 20 ms); ``ranks`` each fact's place by ``_ORDER``.
# Each word (``parse.text.words``) one token as it is: the ascii tokenizer splits at no letter of
# any script (unicode61 would make "für" and "fur" one word, where the files' reading does not).
_FTS = "content='', detail=none, columnsize=0, tokenize='ascii'"
_TABLES = (
    "CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
    "CREATE TABLE files (path TEXT PRIMARY KEY, digest TEXT NOT NULL, base INTEGER NOT NULL, "
    "facts INTEGER NOT NULL, words INTEGER NOT NULL, lengths BLOB NOT NULL, ranks BLOB NOT NULL)",
    "CREATE TABLE facts (id INTEGER PRIMARY KEY, name TEXT NOT NULL, tier TEXT NOT NULL, "
    "used INTEGER NOT NULL, uses INTEGER NOT NULL, see TEXT NOT NULL, heading INTEGER NOT NULL, "
    "start INTEGER NOT NULL, end INTEGER NOT NULL)",
    f"CREATE VIRTUAL TABLE terms USING fts5(words, {_FTS})",
    f"CREATE VIRTUAL TABLE twice USING fts5(words, {_FTS})",
    "CREATE TABLE repeats (term TEXT NOT NULL, id INTEGER NOT NULL, n INTEGER NOT NULL, "
    "PRIMARY KEY (term, id)) WITHOUT ROWID",
)


def _master(db: sqlite3.Connection) -> list[tuple[str, ...]]:
    query = "SELECT type, name, tbl_name, sql FROM main.sqlite_master ORDER BY 2"
    return db.execute(query).fetchall()


def _expected() -> list[tuple[str, ...]] | None:
    """The schema rows of a store this SQLite makes; None without FTS5."""
    try:
        with contextlib.closing(sqlite3.connect(":memory:")) as db:
            for sql in _TABLES:
                db.execute(sql)
            return _master(db)
    except sqlite3.Error:
        return None


class Store:
    """An open store: the rows of each file read this run."""

    def __init__(self, db: sqlite3.Connection, folder: str) -> None:
        self.db = db
        self.folder = folder  # the enabled folder from the work tree's top: rows kept apart

    def index(self, path: str, data: bytes) -> ranking.Index | Stored:
        """The search index of the memory file ``path`` holding ``data``: its stored rows when
        they are of these bytes, else the reader's, then stored (best effort)."""
        digest = hashlib.sha256(data).hexdigest()
        key = self.folder + path
        query = "SELECT base, facts, words, lengths, ranks FROM files WHERE path = ? AND digest = ?"
        try:
            row = self.db.execute(query, (key, digest)).fetchone()
        except sqlite3.Error:
            row = None
        if row is not None:
            return Stored(self, path, data, row)
        made = recall.index(facts.parse(path, data))
        self._save(key, digest, made)
        return made

    def _save(self, path: str, digest: str, made: ranking.Index) -> None:
        try:
            with self.db:
                self.db.execute("BEGIN IMMEDIATE")
                self._drop(path)
                base = _number(self.db.execute(_NEXT).fetchone())
                self.db.executemany(
                    "INSERT INTO facts VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)", _rows(base, made)
                )
                self._words(base, made.terms)
                ranks = self._ranks(base, len(made))
                lengths = array.array(_PACKED, made.lengths).tobytes()
                self.db.execute(
                    "INSERT INTO files VALUES (?, ?, ?, ?, ?, ?, ?)",
                    (path, digest, base, made.counted, made.words, lengths, ranks),
                )
                self.db.execute(
                    "UPDATE meta SET value = ? WHERE key = 'next'", (str(base + len(made)),)
                )
        except sqlite3.Error:
            pass  # busy, read-only, full: this run searches what it read

    def _words(self, base: int, terms: Sequence[list[str]]) -> None:
        """Each fact's words (``terms``, from id ``base``): distinct, held twice, held more."""
        counted = [ranking.counted(held) for held in terms]
        self.db.executemany(
            "INSERT INTO terms (rowid, words) VALUES (?, ?)",
            [(base + n, " ".join(c)) for n, c in enumerate(counted)],
        )
        twice = [(base + n, [t for t, k in c.items() if k == 2]) for n, c in enumerate(counted)]
        self.db.executemany(
            "INSERT INTO twice (rowid, words) VALUES (?, ?)",
            [(row, " ".join(held)) for row, held in twice if held],
        )
        self.db.executemany(
            "INSERT INTO repeats VALUES (?, ?, ?)",
            [(t, base + n, k) for n, c in enumerate(counted) for t, k in c.items() if k > 2],
        )

    def _ranks(self, base: int, count: int) -> bytes:
        """Each of a file's facts' place in the near-tie order, packed (sorted by SQLite)."""
        ranks = array.array(_PACKED, bytes(count * array.array(_PACKED).itemsize))
        query = f"SELECT id FROM facts WHERE id BETWEEN ? AND ? ORDER BY {_ORDER}"
        for place, (row,) in enumerate(self.db.execute(query, (base, base + count - 1))):
            ranks[row - base] = place
        return ranks.tobytes()

    def _drop(self, path: str) -> None:
        """Takes out a file's rows; its words stay in ``terms`` and ``twice`` (contentless: a row
        of them cannot be deleted), under ids no file has any more, until ``purged``."""
        old = self.db.execute("SELECT base, facts FROM files WHERE path = ?", (path,)).fetchone()
        if old is not None:
            span = (old[0], old[0] + old[1] - 1)
            for table in ("facts", "repeats"):
                self.db.execute(f"DELETE FROM {table} WHERE id BETWEEN ? AND ?", span)
            self.db.execute("DELETE FROM files WHERE path = ?", (path,))

    def purged(self) -> Store:
        """The store, emptied first when the words of files gone outnumber the rest (and a
        first run's worth): done on opening, before any of its rows is read."""
        live = _number(self.db.execute("SELECT count(*) FROM facts").fetchone())
        if _number(self.db.execute(_NEXT).fetchone()) - 1 - live > live + _STALE:
            with self.db:
                self.db.execute("BEGIN IMMEDIATE")
                for table in ("files", "facts", "repeats"):
                    self.db.execute(f"DELETE FROM {table}")
                for table in ("terms", "twice"):
                    self.db.execute(f"INSERT INTO {table} ({table}) VALUES ('delete-all')")
                self.db.execute("UPDATE meta SET value = '1' WHERE key = 'next'")
        return self

    def postings(
        self, term: str, base: int, count: int, among: Collection[str] = ()
    ) -> list[tuple[int, int]]:
        """(fact, occurrences) of each of a file's facts (ids from ``base``) whose words hold
        ``term`` (and one of ``among``, when given), in order. The ids come as one string: a
        row each, for a word most facts hold, cost twice as much."""
        match = f'"{term}"'  # letters and digits: one token
        if among:
            match += " AND (" + " OR ".join(f'"{other}"' for other in sorted(among)) + ")"
        span = (base, base + count - 1)
        entries = self._rows_of("terms", match, base, span)
        twice = set(self._rows_of("twice", f'"{term}"', base, span))
        query = "SELECT id - ?, n FROM repeats WHERE term = ? AND id BETWEEN ? AND ?"
        more = dict(self.db.execute(query, (base, term, *span)))
        return [(e, more.get(e, 2 if e in twice else 1)) for e in entries]

    def _rows_of(self, table: str, match: str, base: int, span: tuple[int, int]) -> list[int]:
        """The facts of a file (ids from ``base``) that ``match`` finds in ``table``, in order."""
        query = f"SELECT group_concat(rowid - ?, ' ') FROM {table} WHERE {table} MATCH ? "
        held = self.db.execute(f"{query} AND rowid BETWEEN ? AND ?", (base, match, *span))
        return sorted(map(int, str(held.fetchone()[0] or "").split()))

    def count(self, term: str, base: int, count: int) -> int:
        """How many of a file's facts hold ``term``."""
        query = "SELECT count(*) FROM terms WHERE terms MATCH ? AND rowid BETWEEN ? AND ?"
        return _int(self.db.execute(query, (f'"{term}"', base, base + count - 1)).fetchone()[0])

    def rows(
        self, columns: str, base: int, count: int, where: str = "", *args: str
    ) -> list[tuple[object, ...]]:
        """``columns`` of a file's fact rows, in its order (``where``: a further condition)."""
        query = f"SELECT {columns} FROM facts WHERE id BETWEEN ? AND ? {where} ORDER BY id"
        return self.db.execute(query, (base, base + count - 1, *args)).fetchall()


def _rows(base: int, made: ranking.Index) -> list[tuple[object, ...]]:
    """The fact rows of a file's index, its facts' ids from ``base``."""
    if any(_APART in fact_id for see in made.sees for fact_id in see):
        raise sqlite3.DataError("an id of a relation holds the separator")  # not stored
    see = [_APART.join(ids) for ids in made.sees]
    columns = zip(made.ids, made.tiers, made.recency, see, made.places, strict=True)
    return [(base + n, i, t, *r, s, *p) for n, (i, t, r, s, p) in enumerate(columns)]


class Stored:
    """The stored index of one file, searched as ``ranking.Index`` is; a fact's fields are read
    only for the facts a search ranks, its hit again from the file's bytes."""

    def __init__(self, store: Store, path: str, data: bytes, row: tuple[object, ...]) -> None:
        self.store, self.path, self.data = store, path, data
        self.base, self.counted, self.words = (_int(value) for value in row[:3])
        self._span = (self.base, self.counted)
        if not 0 <= self.counted <= self.words:  # each fact holds its id: a word at least
            raise sqlite3.DatabaseError(f"the stored counts of {self.path} are not its")
        self._lengths, self._ranks = row[3], row[4]
        self._norms: tuple[float, list[float]] | None = None
        self._keys: dict[int, tuple[int, int, str, str]] = {}
        self._file = recall.File(path, data)
        self._postings: dict[str, list[tuple[int, int]]] = {}

    def __len__(self) -> int:
        return self.counted

    def postings(self, term: str) -> list[tuple[int, int]]:
        found = self._postings.get(term)
        if found is None:
            found = self._postings[term] = self.store.postings(term, *self._span)
        return found

    def counts(
        self, term: str, among: Collection[str], entries: Collection[int]
    ) -> list[tuple[int, int]]:
        if term in self._postings:
            return [(e, n) for e, n in self._postings[term] if e in entries]
        return self.store.postings(term, *self._span, among)

    def frequency(self, term: str) -> int:
        if term in self._postings:
            return len(self._postings[term])
        return self.store.count(term, *self._span)

    def prime(self, wanted: object) -> None:  # nothing to do: a term's postings are one query
        pass

    def norms_for(self, average: float) -> list[float]:
        if self._norms is None or self._norms[0] != average:
            lengths = self._packed(self._lengths, "lengths")
            norms = {n: ranking.norm(n, average) for n in set(lengths)}  # lengths repeat
            self._norms = (average, [norms[n] for n in lengths])
        return self._norms[1]

    def _packed(self, value: object, what: str) -> array.array[int]:  # one number per fact
        numbers = array.array(_PACKED)
        if type(value) is not bytes or len(value) != self.counted * numbers.itemsize:
            raise sqlite3.DatabaseError(f"the stored {what} of {self.path} are not its")
        numbers.frombytes(value)
        return numbers

    def key(self, entry: int) -> tuple[int, int, str, str]:
        """A fact's ranking key, read alone: a search asks it of the few facts it lists."""
        if entry not in self._keys:
            found = self.store.rows(_KEY, self.base + entry, 1, _TYPED)
            if len(found) != 1:
                raise sqlite3.DatabaseError(f"a stored key of {self.path} is not one")
            self._keys[entry] = found[0]  # type: ignore[assignment]
        return self._keys[entry]

    def first(self, entries: Collection[int], count: int) -> list[int]:
        """As ``ranking.Index.first``, by each fact's place in the file's near-tie order (sorted
        in SQL when its rows were made): a common word's band may hold thousands."""
        return heapq.nsmallest(count, entries, key=self._packed(self._ranks, "ranks").__getitem__)

    def seeing(self) -> dict[str, tuple[str, ...]]:
        found = self.store.rows("name, see", self.base, self.counted, "AND see != ''")
        if sum(len(str(see)) for _, see in found) > len(self.data):  # each is a footer's
            raise sqlite3.DatabaseError(f"the stored relations of {self.path} are not its")
        return {str(name): tuple(str(see).split(_APART)) for name, see in found}

    def found(self, ids: Collection[str]) -> dict[str, int]:
        found = self.store.rows("name, id", self.base, self.counted)  # one query, not one an id
        return {str(name): _int(key) - self.base for name, key in found if name in ids}

    def hit(self, entry: int, score: float) -> ranking.Hit:
        found = self.store.rows("name, heading, start, end", self.base + entry, 1)
        if len(found) != 1:
            raise sqlite3.DatabaseError(f"a stored fact of {self.path} is gone")
        name, *where = found[0]
        hit = recall.verified(self._file, str(name), where, score)
        if hit is None:
            raise sqlite3.DatabaseError(f"a stored fact of {self.path} is not in it")
        return hit


def _number(row: tuple[object, ...] | None) -> int:
    """The one number a query's row holds, as text or as an integer."""
    if row is None or not str(row[0]).isascii() or not str(row[0]).isdigit():
        raise sqlite3.DatabaseError("a stored number is not one")
    return int(str(row[0]))


def _int(value: object) -> int:
    if type(value) is not int:
        raise sqlite3.DatabaseError("a stored number is not one")
    return value


def open_store(repo: Path) -> Store | None:
    """The store of the repo at ``repo`` (its folder made if need be); None when it keeps none
    or it cannot be opened now."""
    expected = _expected()
    top = work_tree_top(repo)
    if expected is None or top is None:
        return None
    try:
        found = git_folder(top)
        # the enabled folder from the top, as work_tree_top resolved it
        folder = repo.resolve().relative_to(top).as_posix()
        if found is None:
            return None
        path = found / FOLDER / FILE
        with contextlib.suppress(FileExistsError):
            path.parent.mkdir(mode=0o700)
        for name in (path.parent, path, Path(f"{path}-journal")):
            mode = os.lstat(name).st_mode if name.exists() or name.is_symlink() else None
            if mode is not None and not (
                stat.S_ISDIR(mode) if name == path.parent else stat.S_ISREG(mode)
            ):
                return None  # a link or a FIFO: not followed, not waited on
        return _opened(path, expected, "" if folder == "." else folder + "/")
    except (OSError, RuntimeError, ValueError, sqlite3.Error):  # a loop; a folder elsewhere
        return None


def _opened(path: Path, expected: Sequence[tuple[str, ...]], folder: str) -> Store | None:
    for _ in range(2):  # a store that is not one this makes is made again, once
        db = sqlite3.connect(path, timeout=BUSY_MS / 1000, isolation_level=None)
        db.execute("PRAGMA trusted_schema = OFF")
        try:
            ours = db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA
            ours = ours and _master(db) == list(expected)
            version = ours and db.execute("SELECT value FROM meta WHERE key = 'version'").fetchone()
            if version == (resources.version(),):
                return Store(db, folder).purged()
        except sqlite3.DatabaseError as exc:
            if isinstance(exc, sqlite3.OperationalError) and "locked" in str(exc):
                db.close()
                return None
        db.close()
        path.unlink()
        _made(path)
    return None


def _made(path: Path) -> None:
    with contextlib.closing(sqlite3.connect(path, isolation_level=None)) as db:
        db.execute("BEGIN IMMEDIATE")
        for sql in _TABLES:
            db.execute(sql)
        db.execute("INSERT INTO meta VALUES ('version', ?)", (resources.version(),))
        db.execute("INSERT INTO meta VALUES ('next', '1')")
        db.execute(f"PRAGMA user_version = {SCHEMA}")
        db.execute("COMMIT")


def searched(
    repo: Path,
    files: Sequence[tuple[str, bytes]],
    extra: Sequence[ranking.Searched],
    search: Callable[[list[ranking.Searched]], T],
) -> T:
    """``search`` over the indexes of ``files`` (path, bytes), then ``extra``: the store's when
    the repo at ``repo`` keeps one, else the reader's. A store that fails on the way (locked,
    or saying what its file does not) is left, and the search made again from the files."""
    store = open_store(repo)
    if store is not None:
        with contextlib.closing(store.db):
            try:
                return search([*(store.index(path, data) for path, data in files), *extra])
            except (sqlite3.Error, *_FAULTS):  # what the store's rows may hold, or a lie
                pass
    return search([*(recall.read(path, data) for path, data in files), *extra])
