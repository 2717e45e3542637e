"""A new log holding all that a damaged log can still be read for: ``dealsearch log
recover``.

The damaged log is read as :mod:`.check` reads it; where SQLite could not read some of it,
it is read again from copies: once with this release's schema in place of damaged or foreign
schema text (a trigger, a view: dropped from the copy), and once by the ``sqlite3`` tool's
``.recover`` where the tool is installed (run with ``-safe``: the tool then refuses anything
that could reach outside the database). Every row that
holds to the log's rules is written, with its id, into a new log made by
:class:`~dealsearch.log.store.RecordLog`; a line names each thing left behind. The damaged log
itself is only read.
"""

from __future__ import annotations

import contextlib
import shutil
import sqlite3
import subprocess
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .check import Reading, Row, read_log, relations
from .damage import READ_ERRORS
from .rules import installed_game
from .schema import APPLICATION_ID, EXPECTED, LOST, TABLES, VERSION, write_failed
from .store import RecordLog, _transaction

SQLITE_TIMEOUT = 600   # seconds the sqlite3 tool may take to .recover a log


@dataclass
class Recovery:
    """What ``recover`` kept (rows per table) and left behind (one line each)."""

    kept: dict[str, int] = field(default_factory=dict)
    left: list[str] = field(default_factory=list)
    used_sqlite: bool = False


def recover(path: str | Path, out: str | Path) -> Recovery:
    """Write a new log at ``out`` holding every run, find, cycle, histogram and sample of the
    log at ``path`` that can still be read and holds to its rules. The log at ``path`` is only
    read. Where SQLite cannot read some of it and the ``sqlite3`` tool is installed, its
    ``.recover`` reads what it can of the damaged pages too."""
    reading = read_log(path)
    recovery = Recovery()
    if any(problem.row is None for problem in reading.problems):
        # SQLite could not read all of it: read it again, where the schema says how.
        with tempfile.TemporaryDirectory(prefix="dealsearch-recover-") as directory:
            extra = _schema_repaired(path, Path(directory))
            if extra is not None:
                _merge(reading, extra)
            extra = _sqlite_recover(path, Path(directory)) if shutil.which("sqlite3") else None
            if extra is not None:
                recovery.used_sqlite = True
                _merge(reading, extra)
    left = recovery.left
    # What SQLite's integrity check says is in the check; here, only what is lost.
    left.extend(str(p) for p in reading.problems if not p.what.startswith("SQLite's integrity"))
    runs = {row.rowid: row for row in reading.good("runs")}
    bad_runs = {row.rowid: row for row in reading.rows.get("runs", []) if row.problems}
    cycles = {row.values["id"]: row for row in reading.good("cycles")}
    finds: list[Row] = []
    stand_ins: dict[int, Row] = {}
    for row in reading.rows.get("finds", []):
        own = [p for p in row.problems if not p.startswith("its ")]
        if own:
            left.append(f"finds row {row.rowid}: {'; '.join(own)}")
            continue
        run_id = row.values["run_id"]
        if run_id not in runs:
            stand_ins.setdefault(run_id, row)
        if row.values["cycle_id"] is not None and row.values["cycle_id"] not in cycles:
            left.append(f"finds row {row.rowid}: its cycle {row.values['cycle_id']} cannot be "
                        "read: the find is kept without it")
            row.values["cycle_id"] = None
        finds.append(row)
    # A run whose row cannot be read whole is kept as a stand-in (what of it can be read,
    # under strategy 'lost', which nothing resumes), so that its finds, histograms and
    # samples keep their run; one SQLite cannot read at all is made from its first find.
    lost = "kept as a failed run of strategy 'lost', which cannot be resumed"
    for run_id, row in bad_runs.items():
        stand_in = _stand_in(run_id, row, stand_ins.get(run_id))
        if stand_in.values["game"] is None:   # no game to keep it under: nothing of it kept
            left.append(f"runs row {run_id}: {'; '.join(row.problems)}: left behind")
            continue
        left.append(f"runs row {run_id}: {'; '.join(row.problems)}: {lost}")
        runs[run_id] = stand_in
    for run_id, find in stand_ins.items():
        if run_id not in bad_runs:
            left.append(f"runs row {run_id}: cannot be read: {lost}, for its finds")
            runs[run_id] = _stand_in(run_id, None, find)
    for row in runs.values():
        # its process played the damaged file, never this log: here it is only interrupted
        if row.values.get("status") == "running":
            row.values["status"] = "interrupted"
    kept: dict[str, list[Row]] = {"runs": sorted(runs.values(), key=lambda r: r.rowid),
                                  "cycles": list(cycles.values()), "finds": finds}
    for table in ("histograms", "samples"):
        kept[table] = []
        for row in reading.rows.get(table, []):
            own = [p for p in row.problems if not p.startswith("its run")]
            run = runs.get(row.values["run_id"]) if not own else None
            if run is not None and table == "histograms" and \
                    sum(row.values["json counts"].values()) > run.values["deals"]:
                own = [f"it counts more games than its run's {run.values['deals']} deals"]
                run = None
            if run is None:
                why = "; ".join(own) or "its run cannot be read"
                left.append(f"{table} row {row.rowid}: {why}: left behind")
            else:
                kept[table].append(row)
    # who plays a run of the damaged file: not the new log's owner; what finds are ranked
    # by: made again from the finds kept
    left.extend(f"cycles row {row.rowid}: {'; '.join(row.problems)}: left behind"
                for row in reading.rows.get("cycles", []) if row.problems)
    try:
        left.extend(_write(out, kept, reading.columns))
    except BaseException as error:   # a full disk, say: no half-made log is left behind
        for name in (str(out), f"{out}-wal", f"{out}-shm"):
            Path(name).unlink(missing_ok=True)
        if isinstance(error, sqlite3.OperationalError):
            raise write_failed(str(out), error) from None
        raise
    recovery.kept = {table: len(rows) for table, rows in kept.items()}
    return recovery


def _stand_in(run_id: int, run: Row | None, find: Row | None) -> Row:
    """A run row standing in for one that cannot be read whole: the values of ``run`` that
    can be read (its counts only if they add up), the game of its first ``find``, nothing
    that would resume it."""
    values: dict[str, Any] = {
        "id": run_id, "options": "{}", "seed": None, "workers": 1, "machine": "",
        "started": find.values["found"] if find else 0.0, "ended": None, "seconds": 0.0,
        "deals": 0, "totals": "{}", "outcomes": "{}", "checkpoint": "{}",
        **({k: find.values[k] for k in ("game", "game_options", "options_key")} if find
           else {"game": None, "game_options": "{}", "options_key": ""})}
    values["objective"] = _first_measure(values["game"])
    if run is not None:
        counts = ("seconds", "deals", "totals", "outcomes")
        for name in values:
            bad = any(p.startswith((f"{name} ", "its outcomes" if name in counts else name))
                      for p in run.problems)
            if not bad and name in run.values:
                values[name] = run.values[name]
    values |= {"strategy": LOST, "status": "failed", "checkpoint": "{}"}
    return Row("runs", run_id, values)


def _first_measure(game: Any) -> str:
    """The game's first measure (a stand-in run's objective): '' if it is not installed."""
    plugin = installed_game(game)
    return "" if plugin is None else plugin.measures[0]


def _write(out: str | Path, kept: dict[str, list[Row]], columns: dict[str, list[str]]
           ) -> list[str]:
    """The kept rows into a new log at ``out`` (its schema made by :class:`RecordLog`), in one
    transaction, each with its rowid (run ids and find ids stay what they were). A row the
    new log refuses (damage made it a second copy of a unique key) is left out of ``kept``;
    returns a line for each."""
    refused = []
    with contextlib.closing(RecordLog(out)) as log:
        made = {name for (name,) in log.db.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table'")}
        with _transaction(log.db):
            for table, rows in kept.items():
                if table not in made:
                    continue
                target = {row[1] for row in log.db.execute(f'PRAGMA table_info("{table}")')}
                names = [c for c in columns.get(table, list(target)) if c in target]
                quoted = ", ".join(f'"{c}"' for c in names)
                sql = f'INSERT INTO "{table}" (rowid, {quoted}) VALUES (?{", ?" * len(names)})'
                for row in list(rows):
                    try:
                        log.db.execute(sql, (row.rowid, *(row.values.get(c) for c in names)))
                    except sqlite3.IntegrityError as error:
                        refused.append(f"{table} row {row.rowid}: {error}: left behind")
                        rows.remove(row)
            # what each find is ranked by, from its measures (a find kept holds to its rules)
            log.db.execute("INSERT INTO find_measures (find_id, measure, value)"
                           " SELECT f.id, j.key, j.value FROM finds f, json_each(f.measures) j")
    return refused


def _copy(path: str | Path, directory: Path, name: str) -> Path:
    """A copy of the log (and its WAL) to work on: the damaged log itself is only read."""
    copy = directory / name
    shutil.copyfile(path, copy)
    wal = Path(f"{path}-wal")
    if wal.exists():
        shutil.copyfile(wal, Path(f"{copy}-wal"))
    return copy


def _schema_repaired(path: str | Path, directory: Path) -> Reading | None:
    """A log whose schema is damaged or not this release's, read with this release's schema:
    in a copy, the text that describes each table of the log is replaced by this release's
    (the table's pages are still where the schema says), and every other entry (an index
    whose text is damaged, a trigger, a view, a table this release does not make) is dropped
    from it. None if there is nothing to repair, or it cannot be done."""
    copy = _copy(path, directory, "schema.sqlite")
    try:
        db = _raw(copy)
        try:
            if db.execute("PRAGMA application_id").fetchone()[0] != APPLICATION_ID or \
                    db.execute("PRAGMA user_version").fetchone()[0] != VERSION:
                return None   # not a log of this release: nothing to repair it to
            repaired = _as_this_release(db)
        finally:
            db.close()
    except READ_ERRORS:
        return None
    return read_log(copy, integrity=False) if repaired else None


def _raw(path: Path) -> sqlite3.Connection:
    """A connection to a copy this module rewrites: its schema text may be edited, and
    nothing in it runs (``trusted_schema`` off)."""
    db = sqlite3.connect(path, isolation_level=None)
    db.text_factory = bytes
    db.execute("PRAGMA trusted_schema = OFF")
    db.execute("PRAGMA writable_schema = ON")
    return db


def _as_this_release(db: sqlite3.Connection) -> int:
    """Make the schema on ``db`` this release's: each of its tables' text replaced by this
    release's, every other entry dropped. Returns how many entries were changed."""
    expected = {name: sql.encode() for kind, name, _, sql in EXPECTED if sql is not None}
    repaired = 0
    for rowid, kind, name, sql in db.execute(
            "SELECT rowid, type, name, sql FROM sqlite_master").fetchall():
        table = next((t for t in TABLES if sql and sql.startswith(
            f"CREATE TABLE {t} ".encode())), bytes(name or b"").decode(errors="replace"))
        if kind == b"table" and table in expected and sql != expected[table]:
            db.execute("UPDATE sqlite_master SET name = ?, tbl_name = ?, sql = ?"
                       " WHERE rowid = ?", (table, table, expected[table], rowid))
            repaired += 1
        elif (kind != b"table" and sql is not None and sql != expected.get(table)) or \
                (kind == b"table" and table not in expected):
            db.execute("DELETE FROM sqlite_master WHERE rowid = ?", (rowid,))
            repaired += 1
    return repaired


def _sqlite_recover(path: str | Path, directory: Path) -> Reading | None:
    """What the ``sqlite3`` tool's ``.recover`` reads of a copy of the log, or None if it
    fails. The tool runs with ``-safe``; what it rebuilds is given this release's schema and
    identity, then read and held to the rules as any log."""
    copy = _copy(path, directory, "damaged.sqlite")
    rebuilt = directory / "recovered.sqlite"
    try:
        dump = subprocess.run(["sqlite3", "-safe", str(copy), ".recover"], capture_output=True,
                              timeout=SQLITE_TIMEOUT, check=False)
        if dump.returncode != 0:
            return None
        load = subprocess.run(["sqlite3", "-safe", str(rebuilt)], input=dump.stdout,
                              capture_output=True, timeout=SQLITE_TIMEOUT, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return None
    if load.returncode != 0 or not rebuilt.exists():
        return None
    try:
        db = _raw(rebuilt)
        try:
            _as_this_release(db)
            db.execute(f"PRAGMA application_id = {APPLICATION_ID}")
            db.execute(f"PRAGMA user_version = {VERSION}")
        finally:
            db.close()
    except READ_ERRORS:
        return None
    return read_log(rebuilt, integrity=False)


def _merge(reading: Reading, extra: Reading) -> None:
    """Add to ``reading`` the sound rows of ``extra`` (the same log read another way) that it
    could not read itself, and keep the better of the two readings of each row."""
    for table, rows in extra.rows.items():
        if table not in reading.rows and table in TABLES:   # a table only the other could read
            reading.rows[table] = []
            reading.columns[table] = extra.columns[table]
        if table not in reading.rows:
            continue
        mine = {row.rowid: row for row in reading.rows[table]}
        for row in rows:
            if row.problems:
                continue
            if row.rowid not in mine or mine[row.rowid].problems:
                mine[row.rowid] = row
        reading.rows[table] = sorted(mine.values(), key=lambda r: r.rowid)
    for rows in reading.rows.values():   # references and counts again, over the merged rows
        for row in rows:
            row.problems = [p for p in row.problems if not p.startswith("its ")]
    relations(reading)
