"""The log's schema, and how every log is opened: as SQLite advises for a database file from a
stranger (sqlite.org, "Defense Against the Dark Arts").

A log is a file people send each other, so nothing in it is trusted until checked:

- every connection is opened by :func:`connect`: ``PRAGMA trusted_schema=OFF`` (no function
  of the schema runs with the caller's rights), ``cell_size_check`` (a damaged page is an
  error, not a wild read), no memory mapping (an I/O error is an error, not a ``SIGBUS``),
  SQLite's defensive flag where Python offers it (``Connection.setconfig``, Python 3.12+;
  Python 3.11 has no way to set it, which costs little here: dealsearch never runs SQL taken
  from a log), and limits on the length of a value, of a statement and on the depth of an
  expression (:data:`LIMITS`), so no row can make SQLite build a gigabyte;
- a file is a dealsearch log when its ``PRAGMA application_id`` is :data:`APPLICATION_ID`; a
  log of this release (``PRAGMA user_version`` :data:`VERSION`) is read only if its schema is
  exactly this release's tables, indexes and columns (:func:`schema_problems`): a trigger, a
  view, a generated or an extra column is refused before anything is read or written.

Logs of development versions before 0.1.0 (no application id) are refused, never converted.

>>> db = connect(":memory:")
>>> create(db); identify(db, "new.sqlite")
'log'
>>> db.execute("CREATE TRIGGER t AFTER INSERT ON finds BEGIN DELETE FROM finds; END")
... # doctest: +ELLIPSIS
<sqlite3.Cursor object at ...>
>>> schema_problems(db)
['a trigger t on finds, which this release does not make']
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable

from ..errors import BadLog, DealsearchError

VERSION = 4   # PRAGMA user_version of this release's logs
APPLICATION_ID = 0x64534C47   # PRAGMA application_id of every dealsearch log: "dSLG"
#: The strategy of a run ``log recover`` kept without what resumes it (:mod:`.recover`).
LOST = "lost"
BUSY_TIMEOUT = 30.0  # seconds a writer waits for another writer's lock before giving up

#: SQLite's limits on every connection to a log: no value over 4 MiB (the longest a log of
#: this release writes is a few kilobytes of JSON), no statement over 1 MB (a long list of run
#: ids), no deep expression, no attached database.
LIMITS = {sqlite3.SQLITE_LIMIT_LENGTH: 1 << 22, sqlite3.SQLITE_LIMIT_SQL_LENGTH: 1 << 20,
          sqlite3.SQLITE_LIMIT_EXPR_DEPTH: 100, sqlite3.SQLITE_LIMIT_COLUMN: 100,
          sqlite3.SQLITE_LIMIT_COMPOUND_SELECT: 4, sqlite3.SQLITE_LIMIT_FUNCTION_ARG: 8,
          sqlite3.SQLITE_LIMIT_ATTACHED: 0, sqlite3.SQLITE_LIMIT_LIKE_PATTERN_LENGTH: 100,
          sqlite3.SQLITE_LIMIT_TRIGGER_DEPTH: 1}

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
    game          TEXT NOT NULL,
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
    seconds        REAL NOT NULL,        -- its run's search time then (as in samples)
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
CREATE TABLE IF NOT EXISTS owners (      -- the process playing each run (none once it ends)
    run_id       INTEGER PRIMARY KEY REFERENCES runs(id),
    token        TEXT NOT NULL,          -- this owner, unique: what a take-over compares
    pid          INTEGER NOT NULL,
    host         TEXT NOT NULL,          -- platform.node()
    process_start TEXT,                  -- the process's start (Linux: boot id and ticks)
    since        REAL NOT NULL,          -- Unix time it took the run
    lease_until  REAL NOT NULL           -- Unix time it is gone by, unless renewed
);
"""

#: The tables of a log, in the order they are read and recovered (a find needs its run and
#: its cycle first).
TABLES = ("runs", "cycles", "finds", "find_measures", "histograms", "samples", "owners")


class LogError(BadLog):
    """A file that is not a log this release can use (not SQLite, another application's
    database, another version's log, a schema not this release's): one line, exit 2."""


class LogWriteFailed(DealsearchError):
    """The log could not be written (a full disk, a lock held past the wait, an I/O error):
    one line, exit 1. What was being written is rolled back whole."""


def write_failed(db: sqlite3.Connection | str, error: BaseException) -> LogWriteFailed:
    """The one line for a write to the log on ``db`` (or at a path) that SQLite refused."""
    path = db if isinstance(db, str) else next(
        (row[2] for row in db.execute("PRAGMA database_list") if row[1] == "main"), "")
    code = getattr(error, "sqlite_errorcode", 0) & 0xFF
    if code == sqlite3.SQLITE_FULL or "disk is full" in str(error):
        why = "the disk is full"
    elif code in (sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED) or "locked" in str(error):
        why = f"another process held its lock for over {BUSY_TIMEOUT:g} s"
    else:
        why = "SQLite refused the write"
    return LogWriteFailed(f"cannot write the log {path or ':memory:'}: {why} ({error})")


def connect(target: str, uri: bool = False) -> sqlite3.Connection:
    """A connection to a log, opened defensively (see the module's notes), in autocommit
    mode, waiting up to :data:`BUSY_TIMEOUT` for another writer's lock; the file's schema is
    not yet read."""
    db = sqlite3.connect(target, uri=uri, timeout=BUSY_TIMEOUT, isolation_level=None)
    try:
        for limit, value in LIMITS.items():
            db.setlimit(limit, value)
        defensive = getattr(sqlite3, "SQLITE_DBCONFIG_DEFENSIVE", None)
        if defensive is not None and hasattr(db, "setconfig"):   # Python 3.12+
            db.setconfig(defensive, True)
        db.execute("PRAGMA trusted_schema = OFF")
        db.execute("PRAGMA cell_size_check = ON")
        db.execute("PRAGMA mmap_size = 0")
    except BaseException:
        db.close()
        raise
    return db


def create(db: sqlite3.Connection) -> None:
    """This release's tables and indexes, the application id and version, on a connection
    inside the caller's transaction (statement by statement: executescript would commit it)."""
    for statement in SCHEMA.split(";"):
        if statement.strip():
            db.execute(statement)
    db.execute(f"PRAGMA application_id = {APPLICATION_ID}")
    db.execute(f"PRAGMA user_version = {VERSION}")


def _expected() -> set[tuple[str, str, str, str | None]]:
    db = sqlite3.connect(":memory:")
    try:
        create(db)
        return set(db.execute("SELECT type, name, tbl_name, sql FROM sqlite_master"))
    finally:
        db.close()


#: Every entry of this release's ``sqlite_master``: (type, name, table, SQL text).
EXPECTED = frozenset(_expected())


def _text(value: object) -> str:
    if isinstance(value, bytes):
        return value.decode(errors="replace")
    return "" if value is None else str(value)


def schema_problems(db: sqlite3.Connection) -> list[str]:
    """How the schema on ``db`` differs from this release's, one line each: an entry of
    another kind (trigger, view) or name, or a table or index whose text is not this
    release's (another column, a generated one, another type or constraint). Empty: the
    schema is exactly this release's."""
    # a damaged sqlite_master may hold NULLs where SQLite writes text: named as empty
    found = {(_text(kind), _text(name), _text(table), None if sql is None else _text(sql))
             for kind, name, table, sql in db.execute(
                 "SELECT type, name, tbl_name, sql FROM sqlite_master")}
    problems = []
    names = {(kind, name): sql for kind, name, _, sql in EXPECTED}
    for kind, name, table, sql in sorted(found - EXPECTED, key=lambda e: (e[0], e[1])):
        article = "an" if kind[:1] in "aeiou" else "a"
        what = f"{article} {kind} {_short(name)}" + (f" on {_short(table)}"
                                                     if table != name else "")
        if (kind, name) in names:
            columns = _column_differences(db, name) if kind == "table" else ""
            problems.append(f"{what} that is not this release's ("
                            f"{columns or _short(sql or '', 80)})")
        else:
            problems.append(f"{what}, which this release does not make")
    for kind, name, _, _ in sorted(EXPECTED - found, key=lambda e: (e[0], e[1])):
        if not any((k, n) == (kind, name) for k, n, _, _ in found):
            problems.append(f"no {kind} {name}")
    return problems


def _column_differences(db: sqlite3.Connection, table: str) -> str:
    """How the columns of ``table`` on ``db`` differ from this release's, in words (a
    generated column, a column this release does not make, one it lacks, one of another
    type); empty if they do not (the difference is elsewhere in the table's text)."""
    try:
        found = {_text(row[1]): (_text(row[2]), row[6]) for row in
                 db.execute("SELECT * FROM pragma_table_xinfo(?)", (table,))}
    except sqlite3.DatabaseError:
        return ""
    wanted = {column: kind for (t, column), (_, kind) in DECLARED.items() if t == table}
    words = []
    for column, (kind, hidden) in found.items():
        if hidden:   # 2 and 3: a generated column (virtual, stored); 1: of a virtual table
            words.append(f"a generated column {_short(column)}")
        elif column not in wanted:
            words.append(f"a column {_short(column)} this release does not make")
        elif kind.upper() != wanted[column]:
            words.append(f"column {_short(column)} of type {_short(kind) or 'none'}, "
                         f"not {wanted[column]}")
    words.extend(f"no column {column}" for column in wanted if column not in found)
    return "; ".join(words)


def _short(text: str, most: int = 40) -> str:
    """Schema text quoted in a line: one line, at most ``most`` characters, its control
    characters escaped."""
    text = " ".join(text.split())
    text = text if len(text) <= most else text[:most] + "..."
    return text.encode("unicode_escape").decode("ascii") if not text.isprintable() else text


def identify(db: sqlite3.Connection, path: str) -> str:
    """What the file on ``db`` is: ``'new'`` (an empty database, no table in it) or ``'log'``
    (a log of this release). Anything else is refused with one line (:class:`LogError`): an
    older development log, a newer log, another application's database, a log whose schema is
    not this release's."""
    application = db.execute("PRAGMA application_id").fetchone()[0]
    version = db.execute("PRAGMA user_version").fetchone()[0]
    entries = [_text(name) for (name,) in db.execute("SELECT name FROM sqlite_master")]
    if application != APPLICATION_ID:
        if not entries and not application and not version:
            return "new"
        if not application and "runs" in entries:
            raise LogError(f"{path} is a log of a development version of dealsearch before "
                           f"0.1.0 (schema version {max(version, 1)}): this release reads only "
                           f"its own logs (version {VERSION}) and does not convert older ones")
        raise LogError(f"{path} is not a dealsearch log (an SQLite database of another "
                       f"application): it is left alone")
    if version != VERSION:
        raise LogError(f"{path} is a version {version} dealsearch log: this release reads only "
                       f"version {VERSION}")
    problems = schema_problems(db)
    if problems:
        more = f" and {len(problems) - 1} more" if len(problems) > 1 else ""
        raise LogError(f"{path} is refused: its schema is not this release's: {problems[0]}"
                       f"{more} (dealsearch log check --db {path} lists them; dealsearch log "
                       f"recover --db {path} NEW.sqlite copies what holds to the rules)")
    return "log"


def declared(tables_: Iterable[str] = TABLES) -> dict[tuple[str, str], tuple[bool, str]]:
    """(table, column) -> (may be NULL, its declared type), from this release's schema."""
    db = sqlite3.connect(":memory:")
    try:
        create(db)
        return {(t, row[1]): (not row[3] and not row[5], row[2])
                for t in tables_ for row in db.execute(f"PRAGMA table_info({t})")}
    finally:
        db.close()


def columns(table: str) -> list[str]:
    """The columns of ``table`` in this release's schema, in order."""
    return [c for (t, c) in DECLARED if t == table]


DECLARED = declared()
