"""A damaged log: what is wrong with it (``dealsearch log check``); :mod:`.recover` writes
a new log of all that can still be read (``dealsearch log recover``).

SQLite's own ``PRAGMA integrity_check`` sees damage to its pages, not damage inside the text of
a row (a JSON field cut short, a byte that is not UTF-8): only the log's own rules
(:mod:`dealsearch.log.rules`, the rules every reader applies) see that. So the check compares
the schema with this release's (a trigger, a view, a generated or an extra column is named),
then reads every row of every table of this release, one at a time, and holds each to the
rules of its table; a row SQLite cannot read is skipped and named, and reading goes on past
it. Only this release's columns of this release's tables are read: never a view, a generated
column or a table this release does not make.

The damaged file is only ever opened read-only (and defensively, as every log is): nothing
here changes it.

>>> is_damage(sqlite3.DatabaseError("database disk image is malformed"))
True
"""

from __future__ import annotations

import contextlib
import sqlite3
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..strategies import counts_games
from ..text import counted
from .damage import READ_ERRORS, damaged, is_damage, is_locked, locked
from .rules import judge, text_factory
from .schema import APPLICATION_ID, TABLES, VERSION, LogError, columns, connect, identify
from .schema import schema_problems as _schema_problems

#: Tables made from others (each find's measures, what finds are ranked by; who plays a run):
#: checked against them, made again by a recovery (or not kept), not counted as rows.
DERIVED = ("find_measures", "owners")
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
    """A row as read: its rowid, its values (as SQLite returns them; each JSON column also
    decoded, as ``json <column>``), and what is wrong with it."""

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
        sizes = {t: len(self.rows.get(t, [])) for t in TABLES if t not in DERIVED}
        return ", ".join(counted(n, t) for t, n in sizes.items())

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
    """A read-only connection to a log that may be damaged (text that is not UTF-8 is a
    problem of its row, not an error of the whole query). ``lenient``: a table or index whose
    schema SQLite cannot parse is left out, not an error of every query."""
    uri = Path(path).resolve().as_uri()
    try:
        db = _connect(f"{uri}?mode=ro", lenient)
    except sqlite3.OperationalError as error:
        if is_damage(error) or "locked" in str(error):
            raise
        # Read-only storage: no WAL index can be made beside the log; nobody writes it.
        db = _connect(f"{uri}?immutable=1", lenient)
    return db


def _connect(uri: str, lenient: bool) -> sqlite3.Connection:
    db = connect(uri, uri=True)
    try:
        db.text_factory = text_factory
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
        if is_locked(error):   # held by another process past the wait: not damage
            raise locked(path) from None
        reading.problems.append(Problem(f"SQLite cannot open it: {error}"))
        return reading
    try:
        db.execute("BEGIN")   # one snapshot: a search committing meanwhile is not damage
        _read(db, reading, integrity)
    except sqlite3.OperationalError as error:
        if is_locked(error):
            raise locked(path) from None
        raise
    finally:
        db.close()
    return reading


def _read(db: sqlite3.Connection, reading: Reading, integrity: bool) -> None:
    if integrity:
        reading.problems.extend(_integrity(db))
    try:
        problem = _identity(db, reading.path)
        if problem is not None:
            reading.problems.append(problem)
            return
        reading.problems.extend(Problem(f"its schema has {p}") for p in _schema_problems(db))
        present = readable_tables(db, reading.problems)
    except READ_ERRORS as error:
        if not is_damage(error):
            raise
        reading.problems.append(Problem(f"the list of its tables cannot be read: {error}"))
        return
    for table in present:
        try:
            rows = list(_rows(db, table, columns(table), reading.problems))
        except READ_ERRORS as error:   # its schema is damaged: nothing of it can be read
            if not is_damage(error):
                raise
            reading.problems.append(Problem(f"cannot be read: {error}", table))
            continue
        reading.columns[table] = columns(table)
        reading.rows[table] = rows
    _hold_to_rules(reading)


def _identity(db: sqlite3.Connection, path: str) -> Problem | None:
    """What is wrong with the file being a log of this release at all (its application id
    and version), if anything: then nothing else of it is read."""
    application = db.execute("PRAGMA application_id").fetchone()[0]
    version = db.execute("PRAGMA user_version").fetchone()[0]
    if application == APPLICATION_ID and version == VERSION:
        return None
    try:
        kind = identify(db, path)
    except LogError as error:
        return Problem(str(error).removeprefix(f"{path} "))
    return Problem("it is an empty database, not a log") if kind == "new" else None


def refuse_foreign(path: str | Path) -> None:
    """Raise :class:`LogError` (one line, exit 2, as every command says it) if the file is
    another application's SQLite database: not a log's application id, and none of a log's
    tables. There is no damage in it to name and nothing of a log to save. A log whose
    header is damaged still names its tables, and a file SQLite cannot read is the check's
    to report: both pass."""
    if Path(path).stat().st_size == 0:
        return
    try:
        db = open_damaged(path)
        try:
            application = db.execute("PRAGMA application_id").fetchone()[0]
            names = {str(name) for (name,) in db.execute("SELECT name FROM sqlite_master")}
        finally:
            db.close()
    except READ_ERRORS:
        return
    if application != APPLICATION_ID and names and not names & set(TABLES):
        raise LogError(f"{path} is not a dealsearch log (an SQLite database of another "
                       f"application): it is left alone")


def readable_tables(db: sqlite3.Connection, problems: list[Problem]) -> list[str]:
    """This release's tables on ``db`` that can be read: a table, not a view, with every
    column of this release, none of them generated. Each table that cannot be read is noted
    in ``problems``."""
    kinds = dict(db.execute("SELECT name, type FROM sqlite_master"))
    readable = []
    for table in TABLES:
        if kinds.get(table) != "table":
            what = "the table is missing" + (f" (a {kinds[table]} has its name)"
                                             if table in kinds else "")
            problems.append(Problem(what, table))
            continue
        info = {row[1]: row[6] for row in db.execute(f'PRAGMA table_xinfo("{table}")')}
        missing = [c for c in columns(table) if c not in info]
        generated = [c for c in columns(table) if info.get(c, 0) != 0]
        if missing:
            problems.append(Problem(f"no column {', '.join(missing)}", table))
        elif generated:
            problems.append(Problem(f"column {', '.join(generated)} is generated: not read",
                                    table))
        else:
            readable.append(table)
    return readable


def _integrity(db: sqlite3.Connection) -> list[Problem]:
    try:
        lines = [str(line) for (line,) in db.execute("PRAGMA integrity_check")]
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


def _rows(db: sqlite3.Connection, table: str, columns: list[str], problems: list[Problem],
          where: str = "1", args: tuple[Any, ...] = ()) -> Iterator[Row]:
    """Every row SQLite can still read (of those ``where`` selects), in rowid order. Where it
    cannot read on, the problem is noted and reading goes on at the next row it can reach."""
    selected = ", ".join(f'"{c}"' for c in columns)
    query = (f'SELECT rowid, {selected} FROM "{table}" WHERE ({where}) AND rowid >= ?'
             " ORDER BY rowid")
    start: int | None = _MIN_ROWID
    while start is not None:
        try:
            for values in db.execute(query, (*args, start)):
                if values[0] < start:   # out of order on a damaged page: read already
                    continue
                yield Row(table, values[0], dict(zip(columns, values[1:], strict=True)))
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
    """Note in each row what breaks its table's rules (:func:`dealsearch.log.rules.judge`),
    then its references and its counts."""
    for table, rows in reading.rows.items():
        for row in rows:
            decoded, problems = judge(table, row.values)
            row.problems.extend(problems)
            row.values.update({f"json {name}": value for name, value in decoded.items()})
    relations(reading)


def relations(reading: Reading) -> None:
    """Each find, histogram and sample has its run, each find's cycle is catalogued, each
    find's measures are its rows of ``find_measures`` (what finds are ranked by), and each
    run's counts add up (problems of this kind start with "its")."""
    runs = {row.rowid: row for row in reading.rows.get("runs", [])}
    for run in runs.values():   # most strategies count every game; some (factory) count else
        if not run.problems and counts_games(run.values["strategy"]):
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


def _histogram_counts(reading: Reading, runs: dict[int, Row]) -> None:
    """No histogram of a search run counts more games than the run played."""
    for row in reading.rows.get("histograms", []):
        run = runs.get(row.values.get("run_id"))  # type: ignore[arg-type]
        if row.problems or run is None or run.problems or \
                not counts_games(run.values["strategy"]):
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
    ``PRAGMA integrity_check`` (every page, b-tree and index of the file, indexes matched to
    their tables: what the run's inserts rely on; a log holds finds and summaries, not every
    deal, so this takes milliseconds), this release's application id, version and exact
    schema, and the log's rules on the rows the run reads (a resumed run's ``run_id``: its
    run row with its counts and checkpoint, its histograms and its owner). Rows the run does
    not read (another run's) are the full check's (:func:`check`, ``dealsearch log check``),
    which holds every row of every table to the rules."""
    if Path(path).stat().st_size == 0:
        return [Problem("the file is empty: nothing of a log is left in it")]
    try:
        db = open_damaged(path)
    except READ_ERRORS as error:
        if is_locked(error):
            raise locked(path) from None
        return [Problem(f"SQLite cannot open it: {error}")]
    try:
        db.execute("BEGIN")
        reading = Reading(str(path))
        try:
            found = _integrity(db)
            if found:
                return found
            problem = _identity(db, reading.path)
            if problem is not None:
                return [problem]
            reading.problems.extend(Problem(f"its schema has {p}")
                                    for p in _schema_problems(db))
            present = readable_tables(db, reading.problems)
        except READ_ERRORS as error:
            if not is_damage(error):
                raise
            return [Problem(f"SQLite cannot read its schema: {error}")]
        touched = {"runs": "rowid = ?", "histograms": "run_id = ?", "owners": "run_id = ?"}
        for table in present:
            if run_id is not None and table in touched:
                try:
                    reading.rows[table] = list(_rows(db, table, columns(table),
                                                     reading.problems, touched[table],
                                                     (run_id,)))
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
        count = counted(len(problems), "problems")
        raise damaged(path, f"{count}, nothing is written into a damaged log; the first: "
                            f"{problems[0]}")
