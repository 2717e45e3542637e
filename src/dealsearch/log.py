"""The record log: runs and their finds in SQLite (WAL mode, so readers never block the writer).

Only the coordinating process of a search writes. Every find is committed before anyone is told
about it, together with the run's checkpoint, so a crash loses no find that was printed and a
resumed run starts exactly where the log says it stood.

>>> log = RecordLog(":memory:")
>>> run_id = log.start_run("random", {"seed": 1}, 1, 2, game="war", objective="rounds")
>>> log.runs()[0]["strategy"]
'random'
"""

from __future__ import annotations

import contextlib
import functools
import json
import os
import platform
import re
import shutil
import sqlite3
import tempfile
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from . import ownership
from .errors import BadLog, DamagedLog
from .game import (
    DEFAULT_GAME,
    Game,
    GameError,
    LegacyLogs,
    get_game,
    throughput_measure,
    v1_columns,
)
from .ownership import SCHEMA as OWNERS_SCHEMA
from .ownership import Owner, hold

BUSY_TIMEOUT = 30.0  # seconds a writer waits for another writer's lock before giving up
VERSION = 3   # PRAGMA user_version; 0 (never set) is a v1 log, migrated on opening

SCHEMA = """
CREATE TABLE IF NOT EXISTS runs (
    id            INTEGER PRIMARY KEY,
    strategy      TEXT NOT NULL,
    options       TEXT NOT NULL,           -- JSON: the search spec, all it takes to resume
    objective     TEXT NOT NULL,           -- the measure its finds are ranked by
    seed          INTEGER,
    workers       INTEGER NOT NULL,
    machine       TEXT NOT NULL,
    started       REAL NOT NULL,           -- Unix time
    ended         REAL,
    status        TEXT NOT NULL,           -- running | done | interrupted | failed
    seconds       REAL NOT NULL DEFAULT 0, -- time spent searching, over every session
    deals         INTEGER NOT NULL DEFAULT 0,
    totals        TEXT NOT NULL DEFAULT '{}',  -- JSON {measure: total over every game played}
    outcomes      TEXT NOT NULL DEFAULT '{}',
    checkpoint    TEXT NOT NULL DEFAULT '{}',
    game          TEXT NOT NULL DEFAULT '{DEFAULT_GAME}',
    game_options  TEXT NOT NULL DEFAULT '{}',  -- JSON: every option, as the game writes them
    options_key   TEXT NOT NULL DEFAULT ''     -- the game's canonical options text
);
CREATE TABLE IF NOT EXISTS finds (
    id             INTEGER PRIMARY KEY,
    run_id         INTEGER NOT NULL REFERENCES runs(id),
    game           TEXT NOT NULL,
    options_key    TEXT NOT NULL,        -- the options the deal was played under
    game_options   TEXT NOT NULL,        -- JSON of the same
    deal           TEXT NOT NULL,        -- the game's canonical text of the deal
    outcome        TEXT NOT NULL,
    measures       TEXT NOT NULL,        -- JSON {measure: value}: at the first repeat if cycle
    entry          TEXT,                 -- JSON {measure: value}, cycles only
    period         TEXT,                 -- JSON {measure: value}, cycles only
    details        TEXT NOT NULL DEFAULT '{}',  -- JSON: the rest of the result (winner, ...)
    strategy       TEXT NOT NULL,
    found          REAL NOT NULL,
    cycle_id       TEXT REFERENCES cycles(id),
    UNIQUE (game, options_key, deal)
);
CREATE INDEX IF NOT EXISTS finds_by_run ON finds (run_id);
CREATE TABLE IF NOT EXISTS find_measures (  -- each measure of each find: what finds rank by
    find_id   INTEGER NOT NULL REFERENCES finds(id),
    measure   TEXT NOT NULL,             -- a measure of the find's game
    value     INTEGER NOT NULL,          -- as in the find's measures
    PRIMARY KEY (find_id, measure)
);
CREATE INDEX IF NOT EXISTS finds_by_measure ON find_measures (measure, value DESC);
CREATE TABLE IF NOT EXISTS histograms (  -- game lengths of every deal a run played
    run_id     INTEGER NOT NULL REFERENCES runs(id),
    measure    TEXT NOT NULL,            -- a measure of the run's game
    bin_width  INTEGER NOT NULL,
    counts     TEXT NOT NULL,            -- JSON {bin: count}, bin b holds [b*w, (b+1)*w)
    PRIMARY KEY (run_id, measure)
);
CREATE TABLE IF NOT EXISTS samples (     -- throughput over time
    run_id   INTEGER NOT NULL REFERENCES runs(id),
    seconds  REAL NOT NULL,              -- search time since the run began
    deals    INTEGER NOT NULL,
    totals   TEXT NOT NULL               -- JSON {measure: total}, as the run's totals then
);
CREATE TABLE IF NOT EXISTS cycles (      -- the catalogue: one row per distinct cycle
    id           TEXT PRIMARY KEY,       -- cycle_id(game, key, options)
    game         TEXT NOT NULL,
    options_key  TEXT NOT NULL,
    game_options TEXT NOT NULL,          -- JSON: the options, as the game writes them
    key          TEXT NOT NULL,          -- cycle_key: the same for every deal reaching it
    period       TEXT NOT NULL,          -- JSON {measure: value}
    found        REAL NOT NULL
);
""".replace("{DEFAULT_GAME}", DEFAULT_GAME)


@dataclass(frozen=True)
class Find:
    """A deal worth keeping: a new best of its run, or a game that never ends.

    ``measures``, ``entry`` and ``period`` are named by the game's measures (``entry`` and
    ``period`` empty unless the outcome is ``cycle``); ``details`` holds the rest of the
    result (BMN: winner, order out).
    """

    deal: str
    outcome: str
    measures: dict[str, int]
    strategy: str
    run_id: int
    entry: dict[str, int] = field(default_factory=dict)
    period: dict[str, int] = field(default_factory=dict)
    details: dict[str, Any] = field(default_factory=dict)
    cycle_key: str | None = None   # the cycle's canonical form (CycleCatalogue.cycle_key)
    cycle_id: str | None = None
    game: str = DEFAULT_GAME
    options_key: str = ""
    game_options: dict[str, Any] = field(default_factory=dict)

    @property
    def cycle(self) -> dict[str, int] | None:
        """``entry_<measure>`` and ``period_<measure>`` of a cycle, else None."""
        return cycle_json(self.outcome, self.entry, self.period)

    def to_json(self) -> dict[str, Any]:
        """The keys ``--json`` prints for a find: the deal, outcome, measures, cycle, where it
        was found, and the game and options it was played under (and its rank, where an
        exhaustive search found it)."""
        return {"deal": self.deal, "outcome": self.outcome, **self.measures,
                "cycle": self.cycle, "strategy": self.strategy, "run_id": self.run_id,
                "game": self.game, "options": self.game_options, **ranked(self.details)}


def ranked(details: dict[str, Any]) -> dict[str, int]:
    """``{"rank": N}`` for a find an exhaustive search made (its details hold its rank)."""
    return {"rank": details["rank"]} if "rank" in details else {}


def cycle_json(outcome: str, entry: dict[str, int], period: dict[str, int]
               ) -> dict[str, int] | None:
    """``{entry_<m>: .., period_<m>: ..}`` for a cycle (entries first), None otherwise."""
    if outcome != "cycle":
        return None
    return {f"entry_{m}": v for m, v in entry.items()} | {
        f"period_{m}": v for m, v in period.items()}


class LogError(BadLog):
    """A log that cannot be used (not SQLite, newer than this release): one line."""


def machine() -> str:
    """A short description of this machine for the runs table."""
    return f"{platform.node()} {platform.system()} {platform.machine()} {platform.processor()}"


# --- a damaged log: rows that cannot be read are named, never a traceback --------------------

_Row = TypeVar("_Row")
_F = TypeVar("_F", bound=Callable[..., Any])


class DamagedRow(ValueError):
    """A row of the log that breaks its table's rules: where, and what is wrong."""

    def __init__(self, table: str, row: object, what: str) -> None:
        super().__init__(f"{table} row {row}: {what}")


class _Garbled(str):
    """Text of the log that is not UTF-8 (shown with replacement characters)."""


def text_factory(data: bytes) -> str:
    """The connection's text factory: a damaged byte makes its row bad, not the query."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return _Garbled(data.decode("utf-8", "replace"))


#: What reading a damaged log can raise: SQLite's errors, and text of its schema or of an
#: error message that is not UTF-8.
READ_ERRORS = (sqlite3.DatabaseError, UnicodeDecodeError)
#: What migrating a damaged older log can raise besides (its rows are read as they were
#: written, by the game that wrote them).
MIGRATION_ERRORS = (ValueError, TypeError, KeyError, AttributeError)


def is_damage(error: BaseException) -> bool:
    """Is ``error`` SQLite saying that the file is damaged (not locked, not missing)? A
    table or column of this schema that SQLite cannot find is damage to the schema."""
    if isinstance(error, UnicodeDecodeError):
        return True
    if not isinstance(error, sqlite3.DatabaseError):
        return False
    code = getattr(error, "sqlite_errorcode", None)
    if code is not None and code & 0xFF in (sqlite3.SQLITE_CORRUPT, sqlite3.SQLITE_NOTADB):
        return True
    return any(words in str(error) for words in ("malformed", "not a database",
                                                 "no such column", "no such table",
                                                 "Could not decode"))


def damaged(path: str | Path, what: str) -> DamagedLog:
    """The one line a command ends with on a damaged log: what is wrong, and what to do."""
    what = " ".join(what.split())
    if len(what) > 200:   # SQLite may quote a whole damaged statement of the schema
        what = what[:200] + "..."
    return DamagedLog(f"{path} is damaged ({what}): dealsearch log check --db {path} lists the "
                      f"damage; dealsearch log recover --db {path} NEW.sqlite saves the rest")


def _reads(method: _F) -> _F:
    """A reader of :class:`RecordLog`: SQLite's word that the log is damaged becomes
    :class:`DamagedLog`."""
    @functools.wraps(method)
    def read(self: RecordLog, *args: Any, **kwargs: Any) -> Any:
        try:
            return method(self, *args, **kwargs)
        except READ_ERRORS as error:
            if not is_damage(error):
                raise
            raise damaged(self.path, str(error)) from None
    return read  # type: ignore[return-value]


def _column_types() -> dict[tuple[str, str], tuple[bool, tuple[type, ...]]]:
    """(table, column) -> (may be NULL, the Python types it reads as), from the schema."""
    db = sqlite3.connect(":memory:")
    try:
        for statement in SCHEMA.split(";"):
            db.execute(statement)
        kinds = {"INTEGER": (int,), "REAL": (float, int), "TEXT": (str,)}
        tables = [name for (name,) in db.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table'")]
        return {(table, row[1]): (not row[3] and not row[5], kinds[row[2]])
                for table in tables for row in db.execute(f"PRAGMA table_info({table})")}
    finally:
        db.close()


COLUMN_TYPES = _column_types()


def _typed(table: str, row: sqlite3.Row, whole: bool = True) -> dict[str, Any]:
    """The row as a dict, each value of its column's type (:class:`DamagedRow` if not);
    ``whole``: it holds every column of its table (a damaged schema may lose one)."""
    values = dict(row)
    where = values.get("id", values.get("run_id", "?"))
    if whole:
        missing = [c for (t, c) in COLUMN_TYPES if t == table and c not in values]
        if missing:
            raise DamagedRow(table, where, f"no column {missing[0]}")
    for name, value in values.items():
        nullable, kinds = COLUMN_TYPES.get((table, name), (True, (object,)))
        if isinstance(value, _Garbled):
            raise DamagedRow(table, where, f"{name} is not UTF-8 text")
        if value is None and not nullable:
            raise DamagedRow(table, where, f"{name} is empty (NULL)")
        if value is not None and (not isinstance(value, kinds) or isinstance(value, bool)):
            raise DamagedRow(table, where, f"{name} is not {kinds[0].__name__}")
    return values


def _json(values: dict[str, Any], key: str, table: str) -> dict[str, Any]:
    """A JSON column, which holds an object (:class:`DamagedRow` if it cannot be read)."""
    where = values.get("id", values.get("run_id", "?"))
    try:
        decoded = json.loads(values[key])
    except ValueError as error:
        raise DamagedRow(table, where, f"{key} is not JSON ({error})") from None
    if not isinstance(decoded, dict):
        raise DamagedRow(table, where, f"{key} is not a JSON object")
    return decoded


def _numbers(values: dict[str, Any], key: str, table: str) -> None:
    """A decoded JSON column of counts or measures holds whole numbers only; one of measures
    (``measures``, ``entry``, ``period``) is named by its game's measures."""
    where = values.get("id", values.get("run_id", "?"))
    if not all(isinstance(n, int) and not isinstance(n, bool) for n in values[key].values()):
        raise DamagedRow(table, where, f"{key} holds something other than whole numbers")
    if key in ("measures", "entry", "period", "totals") and values[key]:
        problem = measures_problem(values.get("game"), values[key], every=key != "totals")
        if problem:
            raise DamagedRow(table, where, f"{key} {problem}")


def measures_problem(game: Any, measures: dict[str, Any], every: bool = True) -> str | None:
    """What is wrong with the names of ``measures`` of a find or cycle of ``game``: None if
    they are the game's measures (``every``: all of them, else some; or the game is not
    installed here, so cannot tell)."""
    plugin = installed_game(game)
    names = None if plugin is None else plugin.measures
    if measures and names is not None and (set(measures) != set(names) if every
                                           else not set(measures) <= set(names)):
        return f"names {', '.join(sorted(measures))}, not the measures of {game}"
    return None


class RecordLog:
    """A SQLite record log. ``path`` is created if missing; ``:memory:`` for tests.

    ``readonly`` opens an existing log only to read it (``records``, ``report``): no write
    lock is taken, so a reader never waits for a search, and a log on read-only storage can
    still be read.

    An older log is migrated on opening, in one transaction: a v1 log (written before games
    were plug-ins) by the default game (:class:`~dealsearch.game.LegacyLogs`), then a v2 log
    (BMN-shaped columns) by :func:`migrate_v2`. A writer migrates the file in place and keeps
    a copy of it as it was beside it (:attr:`kept`); a reader migrates a copy in memory.
    """

    def __init__(self, path: str | Path, readonly: bool = False) -> None:
        self.path = str(path)
        self.skipped: list[str] = []   # rows of a damaged log the readers left out
        self.kept: Path | None = None  # the copy of an older log kept before migrating it
        if readonly:
            try:
                self.db = _open_reader(self.path)
            except (LogError, *READ_ERRORS) as error:
                cause = error if isinstance(error, READ_ERRORS) else error.__context__
                if cause is None or not is_damage(cause):
                    raise
                raise damaged(self.path, str(cause)) from None
            except MIGRATION_ERRORS as error:   # an older log, migrated as it is read
                raise damaged(self.path, f"it cannot be migrated: {error}") from None
            self.db.text_factory = text_factory
            return
        if self.path != ":memory:":
            _check_writable(Path(self.path))
        if self.path != ":memory:" and not Path(self.path).exists():
            _create_file(Path(self.path))
        # A reader opened while a search writes waits briefly instead of failing.
        self.db = sqlite3.connect(self.path, timeout=BUSY_TIMEOUT, isolation_level=None)
        self.db.row_factory = sqlite3.Row
        try:
            self.kept = _keep_older(self.db, self.path)
            _prepare(self.db, self.path, in_place=True)
        except READ_ERRORS as error:
            self.db.close()
            _drop(self.kept)
            if is_damage(error):
                raise damaged(self.path, str(error)) from None
            raise LogError(f"{self.path} is not a dealsearch log ({error})") from None
        except BaseException:
            self.db.close()
            _drop(self.kept)
            raise
        # FULL: a commit survives a power cut, not only a crash of this process.
        self.db.execute("PRAGMA synchronous=FULL")
        self.db.text_factory = text_factory

    def close(self) -> None:
        """Close the connection."""
        self.db.close()

    def __enter__(self) -> RecordLog:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    def start_run(self, strategy: str, options: dict[str, Any], seed: int | None,
                  workers: int, game: str = DEFAULT_GAME,
                  game_options: dict[str, Any] | None = None, options_key: str = "",
                  owner: Owner | None = None, objective: str | None = None) -> int:
        """Record a new run; returns its id. Its finds are ranked by ``objective`` (default:
        the game's first measure). ``owner``, if given, owns it from the start
        (:mod:`dealsearch.ownership`), in the same transaction."""
        objective = objective or get_game(game).measures[0]
        with _transaction(self.db):
            cursor = self.db.execute(
                "INSERT INTO runs (strategy, options, objective, seed, workers, machine,"
                " started, status, game, game_options, options_key)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, 'running', ?, ?, ?)",
                (strategy, json.dumps(options), objective, seed, workers, machine(),
                 time.time(), game, json.dumps(game_options or {}), options_key),
            )
            run_id = int(cursor.lastrowid or 0)
            if owner is not None:
                now = time.time()
                self.db.execute(
                    "INSERT INTO owners (run_id, token, pid, host, process_start, since,"
                    " lease_until) VALUES (?, ?, ?, ?, ?, ?, ?)",
                    (run_id, owner.token, owner.pid, owner.host, owner.process_start, now,
                     now + ownership.LEASE_SECONDS))
        if owner is not None:
            ownership.hold_here(owner.token)
        return run_id

    @_reads
    def run(self, run_id: int) -> dict[str, Any] | None:
        """One run as a dict (options, outcomes and checkpoint decoded), or None."""
        row = self.db.execute("SELECT * FROM runs WHERE id = ?", (run_id,)).fetchone()
        try:
            return None if row is None else decode_run(row)
        except DamagedRow as error:
            raise damaged(self.path, str(error)) from None

    @_reads
    def runs(self) -> list[dict[str, Any]]:
        """Every run, oldest first (on a damaged log, those that can be read)."""
        return self._decoded(decode_run, self.db.execute("SELECT * FROM runs ORDER BY id"))

    def _decoded(self, decode: Callable[[sqlite3.Row], _Row], rows: Iterable[sqlite3.Row]
                 ) -> list[_Row]:
        """Each row decoded; a damaged row is left out and noted in :attr:`skipped`."""
        decoded = []
        for row in rows:
            try:
                decoded.append(decode(row))
            except DamagedRow as error:
                if str(error) not in self.skipped:   # read twice (finds, then cycles): once
                    self.skipped.append(str(error))
        return decoded

    def raise_skipped(self) -> None:
        """After reading: raise :class:`DamagedLog` if damaged rows were left out."""
        if self.skipped:
            rows = f"{len(self.skipped)} row" + "s" * (len(self.skipped) > 1)
            raise damaged(self.path, f"{rows} that cannot be read left out, the first: "
                                     f"{self.skipped[0]}")

    def refuse_damage(self, run_id: int | None = None) -> None:
        """Raise :class:`DamagedLog` if the log fails the check before writing (SQLite's
        quick check, and the log's rules on the rows of ``run_id``, the run to resume, if
        any; :func:`dealsearch.logcheck.check_before_writing`): called before a run is
        written into it."""
        if self.path != ":memory:":
            from .logcheck import refuse_damaged
            refuse_damaged(self.path, run_id)

    def save(self, run_id: int, finds: Iterable[Find], progress: dict[str, Any],
             status: str = "running",
             histograms: dict[str, tuple[int, dict[int, int]]] | None = None,
             sample: bool = False, owner: str | None = None) -> None:
        """Commit finds and the run's progress in one transaction.

        A deal already in the log (same game and options) keeps its first entry.
        ``histograms`` maps a measure to (bin width, {bin: count}) for the whole run so far;
        ``progress`` holds ``seconds``, ``deals``, ``totals`` ({measure: total}), ``outcomes``
        and ``checkpoint``; ``sample`` also records its throughput point (seconds, deals,
        totals).
        ``owner`` (a token of :mod:`dealsearch.ownership`) writes only while it still owns
        the run, renewing its lease (or giving the run up with any status but running).
        """
        with _transaction(self.db):
            if owner is not None:
                hold(self.db, run_id, owner, release=status != "running")
            for measure, (width, counts) in (histograms or {}).items():
                self.db.execute(
                    "INSERT OR REPLACE INTO histograms (run_id, measure, bin_width, counts)"
                    " VALUES (?, ?, ?, ?)", (run_id, measure, width, json.dumps(counts)))
            if sample:
                self.db.execute("INSERT INTO samples (run_id, seconds, deals, totals)"
                                " VALUES (?, ?, ?, ?)",
                                (run_id, progress["seconds"], progress["deals"],
                                 json.dumps(progress["totals"])))
            for find in finds:
                self._insert_find(run_id, find)
            self.db.execute(
                "UPDATE runs SET seconds = ?, deals = ?, totals = ?, outcomes = ?,"
                " checkpoint = ?, status = ?, ended = ? WHERE id = ?",
                (progress["seconds"], progress["deals"], json.dumps(progress["totals"]),
                 json.dumps(progress["outcomes"]), json.dumps(progress["checkpoint"]), status,
                 None if status == "running" else time.time(), run_id),
            )

    def set_status(self, run_id: int, status: str, owner: str | None = None) -> None:
        """Only the run's status: what can still be written when a whole save cannot (by
        ``owner`` only while it owns the run)."""
        ended = None if status == "running" else time.time()
        if owner is None:
            self.db.execute("UPDATE runs SET status = ?, ended = ? WHERE id = ?",
                            (status, ended, run_id))
        else:
            self.db.execute("UPDATE runs SET status = ?, ended = ? WHERE id = ? AND EXISTS"
                            " (SELECT 1 FROM owners WHERE run_id = ? AND token = ?)",
                            (status, ended, run_id, run_id, owner))

    def renew(self, run_id: int, owner: str) -> None:
        """Renew ``owner``'s lease of the run (:func:`dealsearch.ownership.hold`)."""
        with _transaction(self.db):
            hold(self.db, run_id, owner)

    def _insert_find(self, run_id: int, find: Find) -> None:
        now = time.time()
        options = json.dumps(find.game_options)
        if find.cycle_id is not None and find.outcome == "cycle":
            self.db.execute(
                "INSERT OR IGNORE INTO cycles (id, game, options_key, game_options, key, period,"
                " found) VALUES (?, ?, ?, ?, ?, ?, ?)",
                (find.cycle_id, find.game, find.options_key, options, find.cycle_key,
                 json.dumps(find.period), now))
        cycle = find.outcome == "cycle"
        cursor = self.db.execute(
            "INSERT OR IGNORE INTO finds (run_id, game, options_key, game_options, deal, outcome,"
            " measures, entry, period, details, strategy, found, cycle_id)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (run_id, find.game, find.options_key, options, find.deal, find.outcome,
             json.dumps(find.measures), json.dumps(find.entry) if cycle else None,
             json.dumps(find.period) if cycle else None, json.dumps(find.details),
             find.strategy, now, find.cycle_id))
        if cursor.rowcount:   # a new find (a deal found again keeps its first entry)
            self.db.executemany(
                "INSERT INTO find_measures (find_id, measure, value) VALUES (?, ?, ?)",
                [(cursor.lastrowid, measure, value) for measure, value in find.measures.items()])

    @_reads
    def finds(self, run_ids: Iterable[int] = (), game: str | None = None
              ) -> list[dict[str, Any]]:
        """Finds, best first (longest terminating games), then every cycle, decoded: the
        JSON columns as dicts, plus each measure, ``entry_<m>``/``period_<m>``,
        ``objective`` (the measure its run ranks by) and, for a game with logs from before
        plug-ins, its v1 columns (:class:`~dealsearch.game.LegacyLogs`) as keys of their own.

        Each find is ranked by its run's objective, the longest first (ties: by the game's
        measures in order, then in the order found); finds ranked by one measure come
        together, those of the game's first measure first. Finds ranked by different
        measures are not comparable: a reader that lists them groups them by ``objective``
        (``records`` gives each its own table)."""
        ids = list(run_ids)
        where: list[str] = []
        args: list[Any] = []
        if ids:
            where.append(f"f.run_id IN ({', '.join('?' * len(ids))})")
            args.extend(ids)
        if game is not None:
            where.append("f.game = ?")
            args.append(game)
        clause = f"WHERE {' AND '.join(where)}" if where else ""
        rows = self.db.execute(
            "SELECT f.*, r.objective AS objective FROM finds f"
            f" LEFT JOIN runs r ON r.id = f.run_id {clause} ORDER BY f.id", args)
        finds = self._decoded(decode_find, rows)
        # The ranking (a stable sort of finds in the order found): finds ranked by each measure
        # together (in the game's order of measures), and ties in the objective to the longer
        # in the game's measures in order.
        order = {name: _measure_order(name) for name in {f["game"] for f in finds}}
        finds.sort(key=lambda f: (f["outcome"] == "cycle",
                                  order[f["game"]].get(f["objective"], len(order[f["game"]])),
                                  -f["measures"].get(f["objective"], 0),
                                  *(-v for v in f["measures"].values())))
        return finds

    @_reads
    def histogram(self, run_ids: Iterable[int], measure: str
                  ) -> tuple[int, dict[int, int]]:
        """The merged length histogram of some runs: (bin width, {bin: count})."""
        ids = list(run_ids)
        rows = self.db.execute(
            f"SELECT rowid AS id, bin_width, counts FROM histograms WHERE measure = ? AND "
            f"run_id IN ({', '.join('?' * len(ids))})", (measure, *ids)).fetchall()
        width, merged = 0, {}
        for row in self._decoded(_decode_histogram, rows):
            if width and row["bin_width"] != width:
                raise ValueError("these runs' histograms have different bins")
            width = row["bin_width"]
            for key, count in row["counts"].items():
                merged[key] = merged.get(key, 0) + count
        return width, merged

    @_reads
    def samples(self, run_id: int) -> list[dict[str, Any]]:
        """Throughput samples of a run, in time order: ``seconds``, ``deals`` and ``totals``
        ({measure: total})."""
        return [{k: v for k, v in row.items() if k != "id"} for row in self._decoded(
            _decode_sample, self.db.execute(
                "SELECT rowid AS id, run_id, seconds, deals, totals FROM samples"
                " WHERE run_id = ? ORDER BY seconds", (run_id,)))]

    @_reads
    def cycles(self, game: str | None = None, run_ids: Iterable[int] | None = None
               ) -> list[dict[str, Any]]:
        """The cycle catalogue: each distinct cycle (``id, key, period_<m>...``, and a legacy
        game's v1 columns), how many logged deals reach it and the shortest entry among them
        (``entry_<m>``), with its ``game_options``, most
        reached first. With ``run_ids``, only cycles that those runs' finds reach, counted
        over those runs."""
        where = "" if game is None else "WHERE game = ?"
        cycles = self._decoded(_decode_cycle, self.db.execute(
            f"SELECT * FROM cycles {where} ORDER BY rowid", () if game is None else (game,)))
        ids = None if run_ids is None else list(run_ids)
        runs = "" if ids is None else f" AND run_id IN ({', '.join('?' * len(ids))})"
        reach: dict[str, list[dict[str, int]]] = {}
        for row in self._decoded(_decode_reach, self.db.execute(
                f"SELECT id, game, cycle_id, entry FROM finds WHERE cycle_id IS NOT NULL{runs}",
                ids or ())):
            reach.setdefault(row["cycle_id"], []).append(row["entry"])
        table = []
        for cycle in cycles:
            period = cycle["period"]
            entries = reach.get(cycle["id"], [])
            if ids is not None and not entries:
                continue
            entry = {f"entry_{m}": min((e[m] for e in entries if m in e), default=None)
                     for m in period}
            table.append({"id": cycle["id"], "key": cycle["key"],
                          **_v1_columns(cycle["game"], cycle["game_options"]),
                          **{f"period_{m}": v for m, v in period.items()},
                          "deals": len(entries), **entry, "game": cycle["game"],
                          "options_key": cycle["options_key"],
                          "game_options": cycle["game_options"]})
        # Most reached first; then the shorter period by the last measure (BMN: tricks).
        table.sort(key=lambda c: (-c["deals"], *[c[k] for k in reversed(list(c))
                                                 if k.startswith("period_")]))
        return table


def _prepare(db: sqlite3.Connection, path: str, in_place: bool = False) -> None:
    """Bring the log on ``db`` to this release's schema in one transaction (an older log is
    migrated inside it: v1 to v2 by the default game, v2 to v3 by :func:`migrate_v2`), then
    switch it to WAL. ``in_place``: the log file itself is migrated (not a copy in memory to
    read), which is refused while a run's game is not installed here: the migration names a
    run's totals by its game's measure, and would lose them."""
    with _transaction(db):
        version = db.execute("PRAGMA user_version").fetchone()[0]
        if version > VERSION:
            raise LogError(f"{path} is a version {version} log: this dealsearch "
                           f"reads version {VERSION} and older")
        if version < VERSION:
            if "runs" in _tables(db):
                if version < 2:  # a v1 log: the default game's, before games were plug-ins
                    game = get_game(DEFAULT_GAME)
                    if not isinstance(game, LegacyLogs):
                        raise LogError(f"{path} is a version {version} log, which "
                                       f"{game.name} cannot read")
                    game.migrate_v1(db)
                if in_place and (missing := _games_not_installed(db)):
                    raise LogError(
                        f"{path} is a version {version} log with runs of "
                        f"{', '.join(missing)}, not installed here: install it to migrate "
                        f"the log (its runs' totals are named by the game's measures)")
                migrate_v2(db)
            _create(db)
            db.execute(f"PRAGMA user_version = {VERSION}")
        # Added beside version 2 (a release that does not know it leaves it alone).
        db.execute(OWNERS_SCHEMA)
    db.execute("PRAGMA journal_mode=WAL")


def _games_not_installed(db: sqlite3.Connection) -> list[str]:
    """The games the runs of a v2 log name that are not installed here."""
    names = {bytes(name).decode(errors="replace") for (name,) in db.execute(
        "SELECT DISTINCT CAST(game AS BLOB) FROM runs WHERE game IS NOT NULL")}
    return sorted(name for name in names if installed_game(name) is None)


def _tables(db: sqlite3.Connection) -> set[str]:
    return {row[0] for row in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}


def _create(db: sqlite3.Connection, only: Iterable[str] | None = None) -> None:
    """This release's tables and indexes (``only``: of these tables), where missing.
    Statement by statement: executescript would commit the open transaction."""
    for statement in SCHEMA.split(";"):
        table = re.search(r"(?:EXISTS|ON)\s+(\w+)\s*\(", statement)
        if table and (only is None or table.group(1) in only):
            db.execute(statement)


#: The v2 log's tables that v3 changed (BMN-shaped columns); histograms and owners stay.
_V2_CHANGED = ("runs", "finds", "samples", "cycles")


def migrate_v2(db: sqlite3.Connection) -> None:
    """Rewrite a v2 log's tables to schema v3 inside the caller's transaction.

    v2 ranked finds by ``measure_1``/``measure_2`` whatever the run's objective and kept the
    total of the game's throughput measure in ``runs.cards`` and ``samples.cards``, and BMN's
    rules in ``runs.rules`` and ``cycles.label``. v3 keeps every row with its id: a run gains
    its ``objective`` (its spec's, else its game's first measure) and ``totals`` (``cards``
    under the name of its game's throughput measure), as does each sample; each find gains a
    ``find_measures`` row per measure; each cycle gains the options of the finds reaching it
    (else of a run of its setting). What v2 read from a damaged row is carried as it was, for
    the log's rules to judge.
    """
    db.execute("DROP INDEX IF EXISTS finds_by_length")
    db.execute("DROP INDEX IF EXISTS finds_by_run")
    # Old names for the old tables, without rewriting what other tables reference by name.
    db.execute("PRAGMA legacy_alter_table = ON")
    try:
        present = [t for t in _V2_CHANGED if t in _tables(db)]
        for table in present:
            db.execute(f"ALTER TABLE {table} RENAME TO {table}_v2")
        _create(db, (*_V2_CHANGED, "find_measures"))
    finally:
        db.execute("PRAGMA legacy_alter_table = OFF")
    if "runs" in present:
        # As bytes: a damaged row is carried as it is, not an error of the whole migration.
        for rowid, options, name in db.execute(
                "SELECT rowid, CAST(options AS BLOB), CAST(game AS BLOB) FROM runs_v2"
                " ORDER BY rowid").fetchall():
            game = installed_game(None if name is None else bytes(name).decode(errors="replace"))
            try:
                objective = json.loads(bytes(options).decode(errors="replace"))["objective"]
            except (ValueError, TypeError, KeyError):
                objective = None
            if not isinstance(objective, str) or not objective:
                objective = "" if game is None else game.measures[0]
            measure = "" if game is None else throughput_measure(game)
            db.execute(
                "INSERT INTO runs (id, strategy, options, objective, seed, workers, machine,"
                " started, ended, status, seconds, deals, totals, outcomes, checkpoint, game,"
                " game_options, options_key) SELECT id, strategy, options, ?, seed, workers,"
                " machine, started, ended, status, seconds, deals,"
                " CASE WHEN ? = '' THEN '{}' ELSE json_object(?, cards) END,"
                " outcomes, checkpoint, game, game_options, options_key FROM runs_v2"
                " WHERE rowid = ?", (objective, measure, measure, rowid))
    if "samples" in present:
        db.execute(
            "INSERT INTO samples (rowid, run_id, seconds, deals, totals)"
            " SELECT s.rowid, s.run_id, s.seconds, s.deals, COALESCE("
            "  (SELECT json_object(j.key, s.cards) FROM runs r, json_each(r.totals) j"
            "   WHERE r.id = s.run_id), '{}') FROM samples_v2 s ORDER BY s.rowid")
    if "cycles" in present:
        db.execute(
            "INSERT INTO cycles (rowid, id, game, options_key, game_options, key, period, found)"
            " SELECT c.rowid, c.id, c.game, c.options_key, COALESCE("
            "  (SELECT f.game_options FROM finds_v2 f WHERE f.cycle_id = c.id"
            "   AND f.options_key = c.options_key LIMIT 1),"
            "  (SELECT r.game_options FROM runs r WHERE r.game = c.game"
            "   AND r.options_key = c.options_key LIMIT 1), '{}'),"
            " c.key, c.period, c.found FROM cycles_v2 c ORDER BY c.rowid")
    if "finds" in present:
        db.execute(
            "INSERT INTO finds (id, run_id, game, options_key, game_options, deal, outcome,"
            " measures, entry, period, details, strategy, found, cycle_id)"
            " SELECT id, run_id, game, options_key, game_options, deal, outcome, measures,"
            " entry, period, details, strategy, found, cycle_id FROM finds_v2 ORDER BY id")
        # A find whose measures cannot be read gets no row here: the log's rules name it.
        db.execute(
            "INSERT INTO find_measures (find_id, measure, value)"
            " SELECT f.id, j.key, j.value FROM finds f, json_each(f.measures) j"
            " WHERE json_valid(f.measures) AND json_type(f.measures) = 'object'"
            " AND j.type = 'integer'")
    for table in present:
        db.execute(f"DROP TABLE {table}_v2")


def _measure_order(game: str) -> dict[str, int]:
    """Each measure of the game by its place (none for a game not installed here)."""
    plugin = installed_game(game)
    return {} if plugin is None else {m: i for i, m in enumerate(plugin.measures)}


def installed_game(name: object) -> Game[Any] | None:
    """The game called ``name``, or None if it is not installed here (or ``name`` is not a
    game's name: a damaged row's)."""
    try:
        return get_game(name) if isinstance(name, str) else None
    except GameError:
        return None


def _keep_older(db: sqlite3.Connection, path: str) -> Path | None:
    """Before a writer migrates an older log in place: a copy of it as it is, beside it
    (``NAME.v2.bak``; ``NAME.v2.1.bak`` and on if that is taken), made by SQLite's backup
    (a consistent copy, its WAL included). None for a log of this version, or a new one."""
    version = db.execute("PRAGMA user_version").fetchone()[0]
    if path == ":memory:" or version >= VERSION or "runs" not in _tables(db):
        return None
    original = Path(path)
    name = f"v{max(version, 1)}"
    copy, n = original.with_name(f"{original.name}.{name}.bak"), 0
    while copy.exists():
        n += 1
        copy = original.with_name(f"{original.name}.{name}.{n}.bak")
    target = sqlite3.connect(copy)
    try:
        db.backup(target)
    except BaseException:
        target.close()
        copy.unlink(missing_ok=True)
        raise
    target.close()
    return copy


def _drop(copy: Path | None) -> None:
    """The copy :func:`_keep_older` made, when the migration it was kept for failed (the
    log is as it was)."""
    if copy is not None:
        copy.unlink(missing_ok=True)


class ManagedRun:
    """One run of any kind (a search, the factory, a reverse walk) from its start to its end.

    Every kind of run opens, saves, finishes and fails through this one class, so each ends
    ``done``, ``interrupted`` or ``failed``, never left ``running`` by an exception::

        with ManagedRun.start(log, "factory", options, again="dealsearch factory ...") as run:
            run.save(finds, progress)          # each commit: finds and progress together
            run.progress = progress            # what the last status is saved with
        # left normally: done; by Ctrl-C or kill: interrupted; by any other exception: failed

    ``again`` is the command that starts a run over when it cannot be resumed (searches and
    factory runs resume: ``dealsearch search --resume ID``, ``dealsearch factory --resume
    ID``); ``records`` suggests it.
    """

    def __init__(self, log: RecordLog, run_id: int, owner: str | None = None) -> None:
        self.log = log
        self.run_id = run_id
        self.owner = owner   # the token this process owns the run by, if it keeps one
        self.progress: dict[str, Any] | None = None
        self.status: str | None = None   # the status the run ended with, once it has

    @classmethod
    def start(cls, log: RecordLog, strategy: str, options: dict[str, Any],
              seed: int | None = None, workers: int = 1, game: str = DEFAULT_GAME,
              game_options: dict[str, Any] | None = None, options_key: str = "",
              again: str | None = None, owner: Owner | None = None,
              objective: str | None = None) -> ManagedRun:
        """Log a new run (``again``, if given, is kept with its options), owned by ``owner``
        if given, its finds ranked by ``objective`` (default: the game's first measure)."""
        stored = options if again is None else {**options, "again": again}
        log.refuse_damage()
        run_id = log.start_run(strategy, stored, seed, workers, game, game_options,
                               options_key, owner, objective)
        return cls(log, run_id, None if owner is None else owner.token)

    def save(self, finds: Iterable[Find], progress: dict[str, Any], **extra: Any) -> None:
        """Commit finds with the run's progress (see :meth:`RecordLog.save`)."""
        self.log.save(self.run_id, finds, progress, owner=self.owner, **extra)
        self.progress = progress

    def renew(self) -> None:
        """Renew the owner's lease, if the run has an owner (:mod:`dealsearch.ownership`)."""
        if self.owner is not None:
            self.log.renew(self.run_id, self.owner)

    def finish(self, status: str, progress: dict[str, Any] | None = None,
               **extra: Any) -> None:
        """End the run: its last progress and its status. If the log cannot take the whole
        save (a full disk, a lock held too long), at least its status is written, and the
        error is raised unless the run is failing anyway."""
        self.status = status
        progress = progress if progress is not None else self.progress
        try:
            if progress is None:
                self.log.set_status(self.run_id, status, self.owner)
            else:
                self.log.save(self.run_id, [], progress, status=status,
                              owner=self.owner, **extra)
        except sqlite3.Error:
            with contextlib.suppress(sqlite3.Error):
                self.log.set_status(self.run_id, status, self.owner)
            if status != "failed":
                raise

    def __enter__(self) -> ManagedRun:
        return self

    def __exit__(self, kind: type[BaseException] | None, *_: object) -> None:
        if self.status is not None:
            return
        if kind is None:
            self.finish("done")
        elif issubclass(kind, KeyboardInterrupt):
            self.finish("interrupted")
        else:
            with contextlib.suppress(sqlite3.Error):
                self.finish("failed")


def _check_writable(path: Path) -> None:
    """Raise :class:`LogError` if a search could not write the log at ``path``: the file, or
    its folder (where SQLite keeps the log's ``-wal`` and ``-shm`` files), is read-only."""
    folder = path.parent
    if path.exists() and not os.access(path, os.W_OK):
        raise LogError(f"cannot write the log {path}: the file is read-only")
    if folder.is_dir() and not os.access(folder, os.W_OK):
        raise LogError(f"cannot write the log {path}: its folder {folder} is read-only "
                       f"(SQLite writes its journal beside the log)")


def _open_reader(path: str) -> sqlite3.Connection:
    """A read-only connection to the log at ``path`` (see :class:`RecordLog`)."""
    uri = Path(path).resolve().as_uri()
    try:
        db = _connect_reader(f"{uri}?mode=ro")
    except sqlite3.OperationalError:
        # Read-only storage: SQLite cannot make the WAL index beside the log. No search can
        # be writing where nothing can be written, so the log is read as a file nobody
        # writes; but that reading ignores a -wal file, which holds the last commits of a
        # search that was not closed (or a copy made while one ran): such a log is read
        # from a copy of it and its -wal where SQLite can write.
        wal = Path(f"{path}-wal")
        if wal.exists() and wal.stat().st_size > 0:
            db = _read_copy(Path(path), wal)
        else:
            db = _connect_reader(f"{uri}?immutable=1")
    try:
        version = db.execute("PRAGMA user_version").fetchone()[0]
        if version > VERSION:
            raise LogError(f"{path} is a version {version} log: this dealsearch "
                           f"reads version {VERSION} and older")
        if version < VERSION:  # an older log is read through a migrated copy in memory
            memory = sqlite3.connect(":memory:", isolation_level=None)
            memory.row_factory = sqlite3.Row
            db.backup(memory)
            db.close()
            db = memory
            _prepare(db, path)
    except sqlite3.DatabaseError as error:
        db.close()
        raise LogError(f"{path} is not a dealsearch log ({error})") from None
    except BaseException:
        db.close()
        raise
    return db


def _read_copy(path: Path, wal: Path) -> sqlite3.Connection:
    """The log at ``path`` with its ``wal`` applied, in memory, read from a temporary copy
    (the original is never touched)."""
    with tempfile.TemporaryDirectory(prefix="dealsearch-") as folder:
        copy = Path(folder, "log.sqlite")
        shutil.copyfile(path, copy)
        shutil.copyfile(wal, Path(f"{copy}-wal"))
        source = sqlite3.connect(copy, isolation_level=None)
        memory = sqlite3.connect(":memory:", isolation_level=None)
        memory.row_factory = sqlite3.Row
        try:
            source.backup(memory)
        except BaseException:
            memory.close()
            raise
        finally:
            source.close()
    return memory


def _connect_reader(uri: str) -> sqlite3.Connection:
    db = sqlite3.connect(uri, uri=True, timeout=BUSY_TIMEOUT, isolation_level=None)
    db.row_factory = sqlite3.Row
    db.execute("SELECT count(*) FROM sqlite_master").fetchone()  # fails here, not later
    return db


def _create_file(path: Path) -> None:
    """Create a new log at ``path`` that appears on disk complete or not at all.

    SQLite makes the file before its first transaction commits, and a reader opening it then
    (``records`` while a search starts) would find no tables; so the log is built in a fresh
    temporary file beside its place and hard-linked into it, which also loses no race against
    another process creating it. Where that cannot be done (no hard links on the file system,
    no right to write the directory) SQLite makes the file in place, as it did before, and
    reports what it cannot do itself.
    """
    try:
        handle, name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".new", dir=path.parent)
    except OSError:
        return
    os.close(handle)
    temp = Path(name)
    try:
        db = sqlite3.connect(temp, isolation_level=None)
        try:
            _prepare(db, str(path))
        finally:
            db.close()
        os.link(temp, path)
    except FileExistsError:
        pass  # another process created it first: open theirs
    except OSError:
        pass  # no hard links here (FAT, some network file systems): SQLite makes it in place
    finally:
        temp.unlink(missing_ok=True)


def decode_find(row: sqlite3.Row) -> dict[str, Any]:
    """A finds row with its JSON decoded and each measure, entry, period and detail as a key
    (:class:`DamagedRow` if it cannot be)."""
    find = _typed("finds", row)
    for key in ("game_options", "measures", "entry", "period", "details"):
        find[key] = _json(find, key, "finds") if find[key] is not None else {}
    for key in ("measures", "entry", "period"):
        _numbers(find, key, "finds")
    if not find["measures"]:
        raise DamagedRow("finds", find["id"], "measures is empty")
    find |= find["measures"]
    for name in ("entry", "period"):
        for m in find["measures"]:
            find[f"{name}_{m}"] = find[name].get(m)
    return find | _v1_columns(find["game"], find["game_options"])


def _v1_columns(game: str, values: dict[str, Any]) -> dict[str, Any]:
    """The v1 columns of a find or cycle of a game with logs from before plug-ins
    (:class:`~dealsearch.game.LegacyLogs`): none for another game, or one not installed."""
    plugin = installed_game(game)
    return {} if plugin is None else v1_columns(plugin, values)


def decode_run(row: sqlite3.Row) -> dict[str, Any]:
    """A runs row with its JSON decoded (:class:`DamagedRow` if it cannot be)."""
    run = _typed("runs", row)
    for key in ("options", "outcomes", "checkpoint", "game_options", "totals"):
        run[key] = _json(run, key, "runs")
    _numbers(run, "outcomes", "runs")
    _numbers(run, "totals", "runs")
    return run


def _decode_sample(row: sqlite3.Row) -> dict[str, Any]:
    sample = _typed("samples", row, whole=False)
    sample["totals"] = _json(sample, "totals", "samples")
    _numbers(sample, "totals", "samples")
    return sample


def _decode_histogram(row: sqlite3.Row) -> dict[str, Any]:
    histogram = _typed("histograms", row, whole=False)
    counts = _json(histogram, "counts", "histograms")
    try:
        histogram["counts"] = {int(key): count for key, count in counts.items()}
    except ValueError:
        raise DamagedRow("histograms", histogram["id"], "counts is not a histogram") from None
    _numbers(histogram, "counts", "histograms")
    return histogram


def _decode_cycle(row: sqlite3.Row) -> dict[str, Any]:
    cycle = _typed("cycles", row)
    cycle["period"] = _json(cycle, "period", "cycles")
    cycle["game_options"] = _json(cycle, "game_options", "cycles")
    _numbers(cycle, "period", "cycles")
    return cycle


def _decode_reach(row: sqlite3.Row) -> dict[str, Any]:
    """A find's cycle and entry (:meth:`RecordLog.cycles`)."""
    reach = _typed("finds", row, whole=False)
    reach["entry"] = _json(reach, "entry", "finds") if reach["entry"] is not None else {}
    _numbers(reach, "entry", "finds")
    return reach


class _transaction:
    """BEGIN IMMEDIATE ... COMMIT, rolled back on error (autocommit mode is used otherwise)."""

    def __init__(self, db: sqlite3.Connection) -> None:
        self.db = db

    def __enter__(self) -> None:
        self.db.execute("BEGIN IMMEDIATE")

    def __exit__(self, kind: object, *_: object) -> None:
        if not kind:
            try:
                self.db.execute("COMMIT")
                return
            except BaseException:
                self._rollback()
                raise
        self._rollback()

    def _rollback(self) -> None:
        if self.db.in_transaction:
            # SQLite may already have rolled back (a full disk, an interrupted statement):
            # a second ROLLBACK would fail and hide the error that caused it.
            with contextlib.suppress(sqlite3.Error):
                self.db.execute("ROLLBACK")


def iter_lines(rows: Iterable[dict[str, Any]]) -> Iterator[dict[str, Any]]:
    """Finds from :meth:`RecordLog.finds` in the ``--json`` shape of a find."""
    for row in rows:
        yield {"deal": row["deal"], "outcome": row["outcome"], **row["measures"],
               "cycle": cycle_json(row["outcome"], row["entry"], row["period"]),
               "strategy": row["strategy"], "run_id": row["run_id"], "game": row["game"],
               "options": row["game_options"], **ranked(row["details"])}
