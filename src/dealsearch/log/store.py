"""The record log's store: runs and their finds in SQLite (WAL mode, so readers never block the
writer).

Only the coordinating process of a search writes. Every find is committed before anyone is told
about it, together with the run's checkpoint, so a crash loses no find that was printed and a
resumed run starts exactly where the log says it stood. Every log is opened as
:mod:`dealsearch.log.schema` says (defensively, and only if it is a log of this release), and
every row read is held to the rules of :mod:`dealsearch.log.rules`.

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
import shutil
import sqlite3
import tempfile
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any, TypeVar

from ..game import get_game
from ..text import counted
from .check import refuse_damaged
from .damage import READ_ERRORS, damaged, is_damage, is_locked, locked
from .finds import Find, decode_find
from .ownership import LEASE_SECONDS, Owner, hold, hold_here, owner_of
from .rules import DamagedRow, decode, installed_game, text_factory
from .schema import LogError, connect, create, identify, write_failed

MAX_SAMPLES = 2_000   # throughput samples of a run a reader reads (evenly spread)


def machine() -> str:
    """A short description of this machine for the runs table."""
    return f"{platform.node()} {platform.system()} {platform.machine()} {platform.processor()}"


# --- a damaged log: rows that cannot be read are named, never a traceback --------------------

_Row = TypeVar("_Row")
_F = TypeVar("_F", bound=Callable[..., Any])

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


def _writes(method: _F) -> _F:
    """A writer of :class:`RecordLog`: a write SQLite refuses (a full disk, a lock held past
    the wait) is rolled back whole and becomes :class:`~dealsearch.log.schema.LogWriteFailed`,
    one line; damage met while writing is :class:`DamagedLog`."""
    @functools.wraps(method)
    def write(self: RecordLog, *args: Any, **kwargs: Any) -> Any:
        try:
            return method(self, *args, **kwargs)
        except READ_ERRORS as error:
            if is_damage(error):
                raise damaged(self.path, str(error)) from None
            raise write_failed(self.path, error) from None
    return write  # type: ignore[return-value]


class RecordLog:
    """A SQLite record log. ``path`` is created if missing; ``:memory:`` for tests.

    ``readonly`` opens an existing log only to read it (``records``, ``report``): no write
    lock is taken, so a reader never waits for a search, and a log on read-only storage can
    still be read.

    A file that is not a log of this release is refused with one line
    (:func:`dealsearch.log.schema.identify`); so is a log another process keeps locked.
    """

    def __init__(self, path: str | Path, readonly: bool = False) -> None:
        self.path = str(path)
        self.skipped: list[str] = []   # rows of a damaged log the readers left out
        try:
            self.db = _open_reader(self.path) if readonly else _open_writer(self.path)
        except READ_ERRORS as error:
            if is_locked(error):
                raise locked(self.path) from None
            if is_damage(error):
                raise damaged(self.path, str(error)) from None
            if not readonly and isinstance(error, sqlite3.OperationalError):
                raise write_failed(self.path, error) from None   # a full disk, say
            raise LogError(f"cannot open the log {self.path} ({error})") from None
        self.db.text_factory = text_factory

    def close(self) -> None:
        """Close the connection."""
        self.db.close()

    def __enter__(self) -> RecordLog:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    @_writes
    def start_run(self, strategy: str, options: dict[str, Any], seed: int | None,
                  workers: int, game: str,
                  game_options: dict[str, Any] | None = None, options_key: str = "",
                  owner: Owner | None = None, objective: str | None = None) -> int:
        """Record a new run; returns its id. Its finds are ranked by ``objective`` (default:
        the game's first measure). ``owner``, if given, owns it from the start
        (:mod:`dealsearch.log.ownership`), in the same transaction."""
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
                     now + LEASE_SECONDS))
        if owner is not None:
            hold_here(owner.token)
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
            rows = counted(len(self.skipped), "rows")
            raise damaged(self.path, f"{rows} that cannot be read left out, the first: "
                                     f"{self.skipped[0]}")

    @_reads
    def owner(self, run_id: int) -> dict[str, Any] | None:
        """The run's owner row (:func:`dealsearch.log.ownership.owner_of`), or None: none, or one
        that breaks the log's rules (left out and noted in :attr:`skipped`)."""
        try:
            return owner_of(self.db, run_id)
        except DamagedRow as error:
            if str(error) not in self.skipped:
                self.skipped.append(str(error))
            return None

    def refuse_damage(self, run_id: int | None = None) -> None:
        """Raise :class:`DamagedLog` if the log fails the check before writing (SQLite's
        integrity check, this release's schema, and the log's rules on the rows of
        ``run_id``, the run to resume, if any; :func:`dealsearch.log.check.check_before_writing`):
        called before a run is written into it."""
        if self.path != ":memory:":
            refuse_damaged(self.path, run_id)

    @_writes
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
        ``owner`` (a token of :mod:`dealsearch.log.ownership`) writes only while it still owns
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
                self._insert_find(run_id, find, progress["seconds"])
            self.db.execute(
                "UPDATE runs SET seconds = ?, deals = ?, totals = ?, outcomes = ?,"
                " checkpoint = ?, status = ?, ended = ? WHERE id = ?",
                (progress["seconds"], progress["deals"], json.dumps(progress["totals"]),
                 json.dumps(progress["outcomes"]), json.dumps(progress["checkpoint"]), status,
                 None if status == "running" else time.time(), run_id),
            )

    @_writes
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

    @_writes
    def renew(self, run_id: int, owner: str) -> None:
        """Renew ``owner``'s lease of the run (:func:`dealsearch.log.ownership.hold`)."""
        with _transaction(self.db):
            hold(self.db, run_id, owner)

    def _insert_find(self, run_id: int, find: Find, seconds: float) -> None:
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
            " measures, entry, period, details, strategy, found, cycle_id, seconds)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (run_id, find.game, find.options_key, options, find.deal, find.outcome,
             json.dumps(find.measures), json.dumps(find.entry) if cycle else None,
             json.dumps(find.period) if cycle else None, json.dumps(find.details),
             find.strategy, now, find.cycle_id, seconds))
        if cursor.rowcount:   # a new find (a deal found again keeps its first entry)
            self.db.executemany(
                "INSERT INTO find_measures (find_id, measure, value) VALUES (?, ?, ?)",
                [(cursor.lastrowid, measure, value) for measure, value in find.measures.items()])

    @_reads
    def finds(self, run_ids: Iterable[int] = (), game: str | None = None
              ) -> list[dict[str, Any]]:
        """Finds, best first (longest terminating games), then every cycle, decoded: the
        JSON columns as dicts, plus each measure, ``entry_<m>``/``period_<m>``,
        and ``objective`` (the measure its run ranks by).

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
    def samples(self, run_id: int, most: int = MAX_SAMPLES) -> list[dict[str, Any]]:
        """Throughput samples of a run, in time order: ``seconds``, ``deals`` and ``totals``
        ({measure: total}). At most ``most``, evenly spread, the first and last among them: a
        run samples every few seconds, so a long one (or a log made to) holds more samples than
        a figure has pixels, and reading each would cost a reader seconds."""
        (total,) = self.db.execute("SELECT count(*) FROM samples WHERE run_id = ?",
                                   (run_id,)).fetchone()
        # every step-th sample and the last: at most ``most`` (all of them if no more)
        step = max(1, -(-(total - 1) // max(most - 1, 1)))
        return [{k: v for k, v in row.items() if k not in ("id", "n")} for row in self._decoded(
            functools.partial(decode, "samples", whole=False), self.db.execute(
                "SELECT * FROM (SELECT rowid AS id, run_id, seconds, deals, totals,"
                " row_number() OVER (ORDER BY seconds, rowid) AS n FROM samples"
                " WHERE run_id = ?) WHERE (n - 1) % ? = 0 OR n = ? ORDER BY n",
                (run_id, step, total)))]

    @_reads
    def cycles(self, game: str | None = None, run_ids: Iterable[int] | None = None
               ) -> list[dict[str, Any]]:
        """The cycle catalogue: each distinct cycle (``id, key, period_<m>...``), how many
        logged deals reach it and the shortest entry among them (``entry_<m>``), with its
        ``game_options``, most reached first. With ``run_ids``, only cycles that those runs'
        finds reach, counted over those runs."""
        where = "" if game is None else "WHERE game = ?"
        cycles = self._decoded(functools.partial(decode, "cycles"), self.db.execute(
            f"SELECT * FROM cycles {where} ORDER BY rowid", () if game is None else (game,)))
        ids = None if run_ids is None else list(run_ids)
        runs = "" if ids is None else f" AND run_id IN ({', '.join('?' * len(ids))})"
        reach: dict[str, list[dict[str, int]]] = {}
        for row in self._decoded(functools.partial(decode, "finds", whole=False), self.db.execute(
                f"SELECT id, game, cycle_id, entry FROM finds WHERE cycle_id IS NOT NULL{runs}",
                ids or ())):
            reach.setdefault(row["cycle_id"], []).append(row["entry"] or {})
        table = []
        for cycle in cycles:
            period = cycle["period"]
            entries = reach.get(cycle["id"], [])
            if ids is not None and not entries:
                continue
            entry = {f"entry_{m}": min((e[m] for e in entries if m in e), default=None)
                     for m in period}
            table.append({"id": cycle["id"], "key": cycle["key"],
                          **{f"period_{m}": v for m, v in period.items()},
                          "deals": len(entries), **entry, "game": cycle["game"],
                          "options_key": cycle["options_key"],
                          "game_options": cycle["game_options"]})
        # Most reached first; then the shorter period by the last measure (BMN: tricks).
        table.sort(key=lambda c: (-c["deals"], *[c[k] for k in reversed(list(c))
                                                 if k.startswith("period_")]))
        return table


def _measure_order(game: str) -> dict[str, int]:
    """Each measure of the game by its place (none for a game not installed here)."""
    plugin = installed_game(game)
    return {} if plugin is None else {m: i for i, m in enumerate(plugin.measures)}


def _check_writable(path: Path) -> None:
    """Raise :class:`LogError` if a search could not write the log at ``path``: the file, or
    its folder (where SQLite keeps the log's ``-wal`` and ``-shm`` files), is read-only."""
    folder = path.parent
    if path.exists() and not os.access(path, os.W_OK):
        raise LogError(f"cannot write the log {path}: the file is read-only")
    if folder.is_dir() and not os.access(folder, os.W_OK):
        raise LogError(f"cannot write the log {path}: its folder {folder} is read-only "
                       f"(SQLite writes its journal beside the log)")


def _open_writer(path: str) -> sqlite3.Connection:
    """A connection that may write the log at ``path``: made if missing (an empty file is a
    new log too), refused unless it is a log of this release."""
    if path != ":memory:":
        _check_writable(Path(path))
        if not Path(path).exists():
            _create_file(Path(path))
    db = connect(path)
    db.row_factory = sqlite3.Row
    try:
        with _transaction(db):   # the write lock: one process makes a new log's tables
            if identify(db, path) == "new":
                create(db)
        db.execute("PRAGMA journal_mode=WAL")
        # FULL: a commit survives a power cut, not only a crash of this process.
        db.execute("PRAGMA synchronous=FULL")
    except BaseException:
        db.close()
        raise
    return db


def _open_reader(path: str) -> sqlite3.Connection:
    """A read-only connection to the log at ``path`` (see :class:`RecordLog`); an empty
    database reads as a log with nothing in it."""
    uri = Path(path).resolve().as_uri()
    try:
        db = _connect_reader(f"{uri}?mode=ro")
    except sqlite3.OperationalError as error:
        if is_locked(error):
            raise
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
        if identify(db, path) == "new":
            db.close()
            db = connect(":memory:")
            create(db)
    except BaseException:
        db.close()
        raise
    db.row_factory = sqlite3.Row
    return db


def _read_copy(path: Path, wal: Path) -> sqlite3.Connection:
    """The log at ``path`` with its ``wal`` applied, in memory, read from a temporary copy
    (the original is never touched)."""
    with tempfile.TemporaryDirectory(prefix="dealsearch-") as folder:
        copy = Path(folder, "log.sqlite")
        shutil.copyfile(path, copy)
        shutil.copyfile(wal, Path(f"{copy}-wal"))
        source = connect(str(copy))
        memory = connect(":memory:")
        try:
            source.backup(memory)
        except BaseException:
            memory.close()
            raise
        finally:
            source.close()
    return memory


def _connect_reader(uri: str) -> sqlite3.Connection:
    db = connect(uri, uri=True)
    try:
        db.execute("SELECT count(*) FROM sqlite_master").fetchone()  # fails here, not later
    except BaseException:
        db.close()
        raise
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
        db = connect(str(temp))
        try:
            with _transaction(db):
                create(db)
            db.execute("PRAGMA journal_mode=WAL")
        finally:
            db.close()
        os.link(temp, path)
    except FileExistsError:
        pass  # another process created it first: open theirs
    except OSError:
        pass  # no hard links here (FAT, some network file systems): SQLite makes it in place
    finally:
        temp.unlink(missing_ok=True)


def decode_run(row: sqlite3.Row) -> dict[str, Any]:
    """A runs row with its JSON decoded (:class:`DamagedRow` if it breaks the log's rules)."""
    return decode("runs", row)


def _decode_histogram(row: sqlite3.Row) -> dict[str, Any]:
    histogram = decode("histograms", row, whole=False)
    histogram["counts"] = {int(key): count for key, count in histogram["counts"].items()}
    return histogram


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
