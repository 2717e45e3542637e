"""A damaged log: what is wrong with it (``dealsearch log check``); :mod:`.logrecover` writes
a new log of all that can still be read (``dealsearch log recover``).

SQLite's own ``PRAGMA integrity_check`` sees damage to its pages, not damage inside the text of
a row (a JSON field cut short, a byte that is not UTF-8): only the log's own rules see that. So
the check reads every row of every table, one at a time, and holds each to the rules of its
table; a row SQLite cannot read is skipped and named, and reading goes on past it.

The damaged file is only ever opened read-only: nothing here changes it.

>>> is_damage(sqlite3.DatabaseError("database disk image is malformed"))
True
"""

from __future__ import annotations

import contextlib
import json
import sqlite3
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .log import (
    MIGRATION_ERRORS,
    READ_ERRORS,
    SCHEMA,
    VERSION,
    LogError,
    _prepare,
    damaged,
    is_damage,
    measures_problem,
)
from .search import STRATEGIES
from .text import count, unit

STATUSES = ("running", "done", "interrupted", "failed")
#: The tables every log has, in the order they are read and recovered (a find needs its run
#: and its cycle first), and the JSON columns of each (each holds an object, or is NULL).
TABLES = ("runs", "cycles", "finds", "find_measures", "histograms", "samples")
JSON_COLUMNS = {"runs": ("options", "outcomes", "checkpoint", "game_options", "totals"),
                "finds": ("game_options", "measures", "entry", "period", "details"),
                "cycles": ("period", "game_options"), "histograms": ("counts",),
                "samples": ("totals",)}
#: Tables made from others (each find's measures, what finds are ranked by): checked against
#: them, made again by a recovery, not counted as rows of their own.
DERIVED = ("find_measures",)
MAX_SQLITE_LINES = 20  # lines of PRAGMA integrity_check shown
_MIN_ROWID, _MAX_ROWID = -(2 ** 63), 2 ** 63 - 1


@dataclass(frozen=True)
class Problem:
    """One thing wrong with a log: where (a table and row, where known) and what."""

    what: str
    table: str | None = None
    row: int | None = None

    def __str__(self) -> str:
        where = "" if self.table is None else (
            f"{self.table}: " if self.row is None else f"{self.table} row {self.row}: ")
        return " ".join((where + self.what).split())   # one line, whatever SQLite said


@dataclass
class Row:
    """A row as read: its rowid, its values (text as bytes until decoded) and the type SQLite
    stored each in (``typeof <column>``), and what is wrong with it."""

    table: str
    rowid: int
    values: dict[str, Any]
    problems: list[str] = field(default_factory=list)


@dataclass
class Reading:
    """Everything read from a log: rows by table (bad ones included), and the problems."""

    path: str
    rows: dict[str, list[Row]] = field(default_factory=dict)
    columns: dict[str, list[str]] = field(default_factory=dict)
    problems: list[Problem] = field(default_factory=list)

    def good(self, table: str) -> list[Row]:
        """The rows of ``table`` that hold to their rules."""
        return [row for row in self.rows.get(table, []) if not row.problems]

    def summary(self) -> str:
        """How many rows of each table were read, e.g. '4 runs, 62 finds, ...'."""
        counts = [f"{count(n)} {unit(t, n)}" for t in TABLES if t not in DERIVED
                  for n in [len(self.rows.get(t, []))]]
        counts += [f"{count(len(rows))} row{'s' * (len(rows) != 1)} of {t}"
                   for t, rows in self.rows.items() if t not in TABLES and rows]
        return ", ".join(counts)

    @property
    def row_problems(self) -> list[Problem]:
        """Every problem: the log's, then each bad row's, in table order."""
        found = list(self.problems)
        for table, rows in self.rows.items():
            for row in rows:
                found.extend(Problem(what, table, row.rowid) for what in row.problems)
        return found


# --- reading a log, read-only, row by row ---------------------------------------------------


def open_damaged(path: str | Path, lenient: bool = False) -> sqlite3.Connection:
    """A read-only connection to a log that may be damaged: text comes back as bytes (so that
    text that is not UTF-8 is a problem of its row, not an error of the whole query).
    ``lenient``: a table or index whose schema SQLite cannot parse is left out, not an error
    of every query."""
    uri = Path(path).resolve().as_uri()
    try:
        db = _connect(f"{uri}?mode=ro", lenient)
    except sqlite3.OperationalError as error:
        if is_damage(error):
            raise
        # Read-only storage: no WAL index can be made beside the log; nobody writes it.
        db = _connect(f"{uri}?immutable=1", lenient)
    return db


def _connect(uri: str, lenient: bool) -> sqlite3.Connection:
    db = sqlite3.connect(uri, uri=True, isolation_level=None, timeout=30)
    try:
        db.text_factory = bytes
        if lenient:  # on a read-only connection: it only makes SQLite skip what it cannot parse
            db.execute("PRAGMA writable_schema = ON")
        db.execute("SELECT count(*) FROM sqlite_master").fetchone()
    except BaseException:
        db.close()
        raise
    return db


def read_log(path: str | Path, integrity: bool = True) -> Reading:
    """Read every row of every table of the log at ``path`` and hold it to its rules."""
    reading = Reading(str(path))
    if Path(path).stat().st_size == 0:   # SQLite reads it as an empty database; no log is
        reading.problems.append(Problem("the file is empty: nothing of a log is left in it"))
        return reading
    try:
        try:
            db = open_damaged(path)
        except READ_ERRORS as error:
            if "schema" not in str(error):
                raise
            reading.problems.append(Problem(f"its schema is damaged: {error}"))
            db = open_damaged(path, lenient=True)
    except READ_ERRORS as error:
        reading.problems.append(Problem(f"SQLite cannot open it: {error}"))
        return reading
    try:
        db.execute("BEGIN")   # one snapshot: a search committing meanwhile is not damage
        _read(db, reading, integrity)
    finally:
        db.close()
    return reading


def _read(db: sqlite3.Connection, reading: Reading, integrity: bool) -> None:
    if integrity:
        reading.problems.extend(_integrity(db))
    try:
        version = db.execute("PRAGMA user_version").fetchone()[0]
        if version > VERSION:
            reading.problems.append(Problem(f"a version {version} log: this dealsearch reads "
                                            f"version {VERSION} and older"))
            return
        if version < VERSION:
            db = _migrated(db)   # an older log is checked as it reads: migrated, in memory
    except (*READ_ERRORS, *MIGRATION_ERRORS, LogError) as error:
        if isinstance(error, READ_ERRORS) and not is_damage(error):
            raise
        reading.problems.append(Problem(f"the older log cannot be migrated: {error}"))
        return
    try:
        tables = [schema_name(name) for (name,) in db.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'"
            " ORDER BY name")]
    except READ_ERRORS as error:
        if not is_damage(error):
            raise
        reading.problems.append(Problem(f"the list of its tables cannot be read: {error}"))
        return
    expected = _expected_columns()
    for table in [t for t in TABLES if t in tables] + [t for t in tables if t not in TABLES]:
        try:
            columns = [row[1].decode() if isinstance(row[1], bytes) else row[1]
                       for row in db.execute(f'PRAGMA table_info("{table}")')]
            missing = [c for c in expected.get(table, ()) if c not in columns]
            if missing:
                reading.problems.append(Problem(f"no column {', '.join(missing)}", table))
                continue
            rows = list(_rows(db, table, columns, reading.problems))
        except READ_ERRORS as error:   # its schema is damaged: nothing of it can be read
            reading.problems.append(Problem(f"cannot be read: {error}", table))
            continue
        reading.columns[table] = columns
        reading.rows[table] = rows
    for table in TABLES:
        if table not in tables:
            reading.problems.append(Problem("the table is missing", table))
    _hold_to_rules(reading)


def schema_name(value: Any) -> str:
    """A name from SQLite's schema as text, whatever damage made of it."""
    if isinstance(value, bytes):
        return value.decode(errors="replace")
    return "" if value is None else str(value)


def _integrity(db: sqlite3.Connection) -> list[Problem]:
    try:
        lines = [line.decode(errors="replace") if isinstance(line, bytes) else str(line)
                 for (line,) in db.execute("PRAGMA integrity_check")]
    except READ_ERRORS as error:
        if not is_damage(error):
            raise
        return [Problem(f"SQLite's integrity check fails: {error}")]
    if lines == ["ok"]:
        return []
    shown = [Problem(f"SQLite's integrity check: {line}") for line in lines[:MAX_SQLITE_LINES]]
    if len(lines) > MAX_SQLITE_LINES:
        shown.append(Problem(f"SQLite's integrity check: and {len(lines) - MAX_SQLITE_LINES} "
                             "more lines"))
    return shown


def _migrated(db: sqlite3.Connection) -> sqlite3.Connection:
    """A copy of an older log in memory, migrated as :class:`RecordLog` migrates it."""
    memory = sqlite3.connect(":memory:", isolation_level=None)
    try:
        db.backup(memory)
        _prepare(memory, "log")
    except BaseException:
        memory.close()
        raise
    finally:
        db.close()
    memory.text_factory = bytes
    return memory


def _expected_columns() -> dict[str, list[str]]:
    """The columns of each table of this release's schema."""
    db = sqlite3.connect(":memory:")
    try:
        for statement in SCHEMA.split(";"):
            db.execute(statement)
        return {t: [row[1] for row in db.execute(f"PRAGMA table_info({t})")] for t in TABLES}
    finally:
        db.close()


def _rows(db: sqlite3.Connection, table: str, columns: list[str], problems: list[Problem],
          where: str = "1", args: tuple[Any, ...] = ()) -> Iterator[Row]:
    """Every row SQLite can still read (of those ``where`` selects), in rowid order. Where it
    cannot read on, the problem is noted and reading goes on at the next row it can reach."""
    selected = ", ".join(f'"{c}", typeof("{c}")' for c in columns)
    query = (f'SELECT rowid, {selected} FROM "{table}" WHERE ({where}) AND rowid >= ?'
             " ORDER BY rowid")
    start: int | None = _MIN_ROWID
    while start is not None:
        try:
            for values in db.execute(query, (*args, start)):
                if values[0] < start:   # out of order on a damaged page: read already
                    continue
                row = Row(table, values[0], {})
                for i, column in enumerate(columns):
                    row.values[column] = values[1 + 2 * i]
                    row.values[f"typeof {column}"] = values[2 + 2 * i].decode()
                yield row
                if values[0] == _MAX_ROWID:
                    return
                start = values[0] + 1
            return
        except READ_ERRORS as error:
            if not is_damage(error):
                raise
            problems.append(Problem(f"rows from rowid {start} on cannot be read ({error}); "
                                    "reading goes on at the next row SQLite can reach", table))
            start = _next_readable(db, table, start)


def _next_readable(db: sqlite3.Connection, table: str, start: int) -> int | None:
    """The first rowid after ``start`` that SQLite can seek to, trying ever further."""
    step = 1
    while start + step <= _MAX_ROWID:
        with contextlib.suppress(sqlite3.DatabaseError):
            found = db.execute(f'SELECT rowid FROM "{table}" WHERE rowid >= ? ORDER BY rowid '
                               "LIMIT 1", (start + step,)).fetchone()
            return None if found is None else int(found[0])
        step *= 2
    return None


# --- the log's own rules --------------------------------------------------------------------


def _hold_to_rules(reading: Reading) -> None:
    """Note in each row what breaks its table's rules: its types, its JSON, its references
    and its counts. Rows of tables this release does not know are held to their types."""
    for rows in reading.rows.values():
        for row in rows:
            _decode(row)
            if not row.problems:
                _values(row)
    relations(reading)


def relations(reading: Reading) -> None:
    """Each find, histogram and sample has its run, each find's cycle is catalogued, each
    find's measures are its rows of ``find_measures`` (what finds are ranked by), and each
    run's counts add up (problems of this kind start with "its")."""
    runs = {row.rowid: row for row in reading.rows.get("runs", [])}
    for run in runs.values():   # a search counts its games; other runs (factory) count else
        if not run.problems and run.values["strategy"] in STRATEGIES:
            total = sum(run.values["json outcomes"].values())
            if total != run.values["deals"]:
                run.problems.append(f"its outcomes add up to {total} games, not its "
                                    f"{run.values['deals']} deals")
    cycles = {row.values.get("id") for row in reading.rows.get("cycles", []) if not row.problems}
    for table in ("finds", "histograms", "samples"):
        for row in reading.rows.get(table, []):
            if row.problems:
                continue
            run = runs.get(row.values["run_id"])
            if run is None:
                row.problems.append(f"its run {row.values['run_id']} is not in the log")
            elif run.problems:
                row.problems.append(f"its run {row.values['run_id']} cannot be read")
            cycle = row.values.get("cycle_id")
            if table == "finds" and cycle is not None and cycle not in cycles:
                row.problems.append(f"its cycle {cycle} is not in the log")
    _histogram_counts(reading, runs)
    _ranked(reading)


def _ranked(reading: Reading) -> None:
    """Each find's measures are its rows of ``find_measures``, and each row there is of a
    find (they are what finds are ranked by)."""
    finds = {row.rowid: row for row in reading.rows.get("finds", [])}
    ranked: dict[int, dict[str, Any]] = {}
    for row in reading.rows.get("find_measures", []):
        if row.problems:
            continue
        find = finds.get(row.values["find_id"])
        if find is None:
            row.problems.append(f"its find {row.values['find_id']} is not in the log")
        else:
            ranked.setdefault(find.rowid, {})[row.values["measure"]] = row.values["value"]
    if "find_measures" not in reading.rows:
        return
    for find in finds.values():
        if not find.problems and ranked.get(find.rowid, {}) != find.values["json measures"]:
            find.problems.append("its rows of find_measures (what it is ranked by) are not "
                                 "its measures")


def _decode(row: Row) -> None:
    """Text to str (it must be UTF-8), JSON columns parsed, each value of its column's type."""
    names = [c for c in row.values if not c.startswith("typeof ")]
    for name in names:
        kind, value = row.values[f"typeof {name}"], row.values[name]
        problem = None
        if kind == "text":
            try:
                value = row.values[name] = value.decode("utf-8")
            except UnicodeDecodeError:
                problem = f"{name} is not UTF-8 text"
        declared = _DECLARED.get((row.table, name))
        if problem is None and declared is not None:
            nullable, wanted = declared
            if kind == "null" and not nullable:
                problem = f"{name} is empty (NULL)"
            elif kind != "null" and kind not in wanted:
                problem = f"{name} is {kind}, not {' or '.join(wanted)}"
        if problem is None and value is not None and name in JSON_COLUMNS.get(row.table, ()):
            try:
                parsed = json.loads(value)
            except ValueError as error:
                problem = f"{name} is not JSON ({error})"
            else:
                if isinstance(parsed, dict):
                    row.values[f"json {name}"] = parsed
                else:
                    problem = f"{name} is not a JSON object"
        if problem is not None:
            row.problems.append(problem)


def _declared() -> dict[tuple[str, str], tuple[bool, tuple[str, ...]]]:
    """(table, column) -> (may be NULL, the storage classes it may hold), from the schema."""
    db = sqlite3.connect(":memory:")
    try:
        for statement in SCHEMA.split(";"):
            db.execute(statement)
        kinds = {"INTEGER": ("integer",), "REAL": ("real", "integer"), "TEXT": ("text",)}
        return {(t, row[1]): (not row[3] and not row[5], kinds.get(row[2], ("integer", "real",
                                                                             "text", "blob")))
                for t in TABLES for row in db.execute(f"PRAGMA table_info({t})")}
    finally:
        db.close()


_DECLARED = _declared()


def _is_count(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def _values(row: Row) -> None:
    """The rules of a known table beyond types: what its values must hold."""
    v, problems = row.values, row.problems
    if row.table == "runs":
        if v["status"] not in STATUSES:
            problems.append(f"status is {v['status']!r}, not one of {', '.join(STATUSES)}")
        if v["deals"] < 0:
            problems.append("deals is negative")
        for name in ("outcomes", "totals"):
            if not all(_is_count(n) for n in v[f"json {name}"].values()):
                problems.append(f"{name} holds something other than counts")
        for name, measures in (("totals", v["json totals"]), ("objective", {v["objective"]: 0})):
            problem = measures_problem(v["game"], measures, every=False)
            if problem:
                problems.append(f"{name} {problem}")
    elif row.table == "finds":
        measures = v["json measures"]
        values = list(measures.values())
        if not values or not all(isinstance(n, int) for n in values):
            problems.append("measures holds something other than whole numbers")
        if v["outcome"] == "cycle" and (v.get("json entry") is None
                                        or v.get("json period") is None):
            problems.append("a cycle without its entry and period")
        for name in ("measures", "entry", "period"):
            problem = measures_problem(v["game"], v.get(f"json {name}") or {})
            if problem:
                problems.append(f"{name} {problem}")
    elif row.table == "samples":
        if not all(_is_count(n) for n in v["json totals"].values()):
            problems.append("totals holds something other than counts")
    elif row.table == "histograms":
        counts = v["json counts"]
        if v["bin_width"] < 1 or not all(
                key.lstrip("-").isdigit() and _is_count(n) for key, n in counts.items()):
            problems.append("counts is not a histogram ({bin: count})")
    elif row.table == "cycles":
        if not all(isinstance(n, int) for n in v["json period"].values()):
            problems.append("period holds something other than whole numbers")
        problem = measures_problem(v["game"], v["json period"])
        if problem:
            problems.append(f"period {problem}")


def _histogram_counts(reading: Reading, runs: dict[int, Row]) -> None:
    """No histogram of a run counts more games than the run played (a log written before
    games were plug-ins may count fewer: its histograms were saved apart from its counts)."""
    for row in reading.rows.get("histograms", []):
        run = runs.get(row.values.get("run_id"))  # type: ignore[arg-type]
        if row.problems or run is None or run.problems or \
                run.values["strategy"] not in STRATEGIES:
            continue
        total = sum(row.values["json counts"].values())
        if total > run.values["deals"]:
            row.problems.append(f"its {row.values['measure']} histogram counts {total} games, "
                                f"more than its run's {run.values['deals']} deals")


# --- check -----------------------------------------------------------------------------------


def check(path: str | Path) -> list[Problem]:
    """Everything wrong with the log at ``path``: SQLite's integrity check, then every row of
    every table held to its rules. An empty list: the log is sound."""
    return read_log(path).row_problems


def check_before_writing(path: str | Path, run_id: int | None = None) -> list[Problem]:
    """What a run about to be written into the log at ``path`` must not meet: SQLite's
    ``PRAGMA quick_check`` (it reads every page and b-tree of the file, so it takes longer as
    the log grows, but it does not match indexes to their tables as ``integrity_check``
    does), this release's tables and columns, and the log's rules on only the rows the run
    reads or touches (a resumed run's ``run_id``: its run row, with its counts and
    checkpoint, and its histograms). The full check (:func:`check`, ``dealsearch log
    check``) holds every row of every table to the rules."""
    if Path(path).stat().st_size == 0:
        return [Problem("the file is empty: nothing of a log is left in it")]
    try:
        db = open_damaged(path)
    except READ_ERRORS as error:
        return [Problem(f"SQLite cannot open it: {error}")]
    try:
        db.execute("BEGIN")
        try:
            lines = [line.decode(errors="replace") if isinstance(line, bytes) else str(line)
                     for (line,) in db.execute("PRAGMA quick_check")]
            if db.execute("PRAGMA user_version").fetchone()[0] != VERSION:
                return check(path)   # an older log, read as migrated: the full check
        except READ_ERRORS as error:
            if not is_damage(error):
                raise
            return [Problem(f"SQLite's quick check fails: {error}")]
        if lines != ["ok"]:
            return [Problem(f"SQLite's quick check: {line}") for line in lines[:MAX_SQLITE_LINES]]
        reading = Reading(str(path))
        expected = _expected_columns()
        touched = {"runs": "rowid = ?", "histograms": "run_id = ?"}
        for table in TABLES:
            try:
                columns = [schema_name(row[1]) for row in db.execute(
                    f'PRAGMA table_info("{table}")')]
                missing = [c for c in expected[table] if c not in columns]
                if not columns:
                    reading.problems.append(Problem("the table is missing", table))
                elif missing:
                    reading.problems.append(Problem(f"no column {', '.join(missing)}", table))
                elif run_id is not None and table in touched:
                    reading.rows[table] = list(_rows(db, table, columns, reading.problems,
                                                     touched[table], (run_id,)))
            except READ_ERRORS as error:
                if not is_damage(error):
                    raise
                reading.problems.append(Problem(f"cannot be read: {error}", table))
        _hold_to_rules(reading)
        return reading.row_problems
    finally:
        db.close()


def refuse_damaged(path: str | Path, run_id: int | None = None) -> None:
    """Raise :class:`~dealsearch.errors.DamagedLog` if the log at ``path`` fails the check
    before writing (:func:`check_before_writing`) for a new run, or for resuming ``run_id``:
    nothing is written into a damaged log."""
    problems = check_before_writing(path, run_id)
    if problems:
        count = f"{len(problems)} problem" + "s" * (len(problems) > 1)
        raise damaged(path, f"{count}, nothing is written into a damaged log; the first: "
                            f"{problems[0]}")
