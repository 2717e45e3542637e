"""The record log: runs and their finds in SQLite (WAL mode, so readers never block the writer).

Only the coordinating process of a search writes. Every find is committed before anyone is told
about it, together with the run's checkpoint, so a crash loses no find that was printed and a
resumed run starts exactly where the log says it stood.

>>> log = RecordLog(":memory:")
>>> run_id = log.start_run("random", {"seed": 1}, "standard", 1, 2)
>>> log.runs()[0]["strategy"]
'random'
"""

from __future__ import annotations

import json
import platform
import sqlite3
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .result import Cycle

SCHEMA = """
CREATE TABLE IF NOT EXISTS runs (
    id          INTEGER PRIMARY KEY,
    strategy    TEXT NOT NULL,
    options     TEXT NOT NULL,           -- JSON: everything needed to resume the run
    rules       TEXT NOT NULL,
    seed        INTEGER,
    workers     INTEGER NOT NULL,
    machine     TEXT NOT NULL,
    started     REAL NOT NULL,           -- Unix time
    ended       REAL,
    status      TEXT NOT NULL,           -- running | done | interrupted | failed
    seconds     REAL NOT NULL DEFAULT 0, -- time spent searching, over every session
    deals       INTEGER NOT NULL DEFAULT 0,
    cards       INTEGER NOT NULL DEFAULT 0,
    outcomes    TEXT NOT NULL DEFAULT '{}',
    checkpoint  TEXT NOT NULL DEFAULT '{}'
);
CREATE TABLE IF NOT EXISTS finds (
    id             INTEGER PRIMARY KEY,
    run_id         INTEGER NOT NULL REFERENCES runs(id),
    deal           TEXT NOT NULL,        -- compact notation: the canonical form of a deal
    rules          TEXT NOT NULL,
    outcome        TEXT NOT NULL,
    winner         INTEGER,
    cards          INTEGER NOT NULL,
    tricks         INTEGER NOT NULL,
    entry_cards    INTEGER,
    entry_tricks   INTEGER,
    period_cards   INTEGER,
    period_tricks  INTEGER,
    strategy       TEXT NOT NULL,
    found          REAL NOT NULL,
    limits         TEXT NOT NULL DEFAULT '',  -- the agreed limit the counts were made under
    cycle_id       TEXT REFERENCES cycles(id),
    UNIQUE (deal, rules, limits)
);
CREATE INDEX IF NOT EXISTS finds_by_length ON finds (outcome, cards DESC);
CREATE TABLE IF NOT EXISTS histograms (  -- game lengths of every deal a run played
    run_id     INTEGER NOT NULL REFERENCES runs(id),
    measure    TEXT NOT NULL,            -- cards | tricks
    bin_width  INTEGER NOT NULL,
    counts     TEXT NOT NULL,            -- JSON {bin: count}; bin b holds [b*w, (b+1)*w)
    PRIMARY KEY (run_id, measure)
);
CREATE TABLE IF NOT EXISTS samples (     -- throughput over time
    run_id   INTEGER NOT NULL REFERENCES runs(id),
    seconds  REAL NOT NULL,              -- search time since the run began
    deals    INTEGER NOT NULL,
    cards    INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS cycles (      -- the catalogue: one row per distinct cycle
    id             TEXT PRIMARY KEY,     -- see dealsearch.catalogue
    key            TEXT NOT NULL,
    rules          TEXT NOT NULL,
    period_cards   INTEGER NOT NULL,
    period_tricks  INTEGER NOT NULL,
    found          REAL NOT NULL
);
"""


@dataclass(frozen=True)
class Find:
    """A deal worth keeping: a new best of its run, or a game that never ends."""

    deal: str
    outcome: str
    winner: int | None
    cards: int
    tricks: int
    cycle: Cycle | None
    strategy: str
    run_id: int
    cycle_key: str | None = None   # the cycle's canonical form (dealsearch.catalogue)
    cycle_id: str | None = None

    def to_json(self) -> dict[str, Any]:
        """The keys ``--json`` prints for a find."""
        cycle = None if self.cycle is None else self.cycle.__dict__
        return {"deal": self.deal, "outcome": self.outcome, "cards": self.cards,
                "tricks": self.tricks, "cycle": cycle, "strategy": self.strategy,
                "run_id": self.run_id}


def machine() -> str:
    """A short description of this machine for the runs table."""
    return f"{platform.node()} {platform.system()} {platform.machine()} {platform.processor()}"


class RecordLog:
    """A SQLite record log. ``path`` is created if missing; ``:memory:`` for tests."""

    def __init__(self, path: str | Path) -> None:
        self.path = str(path)
        # A reader opened while a search writes waits briefly instead of failing.
        self.db = sqlite3.connect(self.path, timeout=30, isolation_level=None)
        self.db.row_factory = sqlite3.Row
        self.db.execute("PRAGMA journal_mode=WAL")
        # FULL: a commit survives a power cut, not only a crash of this process.
        self.db.execute("PRAGMA synchronous=FULL")
        self.db.executescript(SCHEMA)
        columns = {row["name"] for row in self.db.execute("PRAGMA table_info(finds)")}
        if "cycle_id" not in columns:  # a log written before the cycle catalogue existed
            self.db.execute("ALTER TABLE finds ADD COLUMN cycle_id TEXT REFERENCES cycles(id)")

    def close(self) -> None:
        """Close the connection."""
        self.db.close()

    def start_run(self, strategy: str, options: dict[str, Any], rules: str, seed: int | None,
                  workers: int) -> int:
        """Record a new run; returns its id."""
        cursor = self.db.execute(
            "INSERT INTO runs (strategy, options, rules, seed, workers, machine, started, status)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, 'running')",
            (strategy, json.dumps(options), rules, seed, workers, machine(), time.time()),
        )
        return int(cursor.lastrowid or 0)

    def run(self, run_id: int) -> dict[str, Any] | None:
        """One run as a dict (options, outcomes and checkpoint decoded), or None."""
        row = self.db.execute("SELECT * FROM runs WHERE id = ?", (run_id,)).fetchone()
        return None if row is None else _decode_run(row)

    def runs(self) -> list[dict[str, Any]]:
        """Every run, oldest first."""
        return [_decode_run(row) for row in self.db.execute("SELECT * FROM runs ORDER BY id")]

    def save(self, run_id: int, rules: str, finds: Iterable[Find], progress: dict[str, Any],
             status: str = "running", limits: str = "",
             histograms: dict[str, tuple[int, dict[int, int]]] | None = None,
             sample: bool = False) -> None:
        """Commit finds and the run's progress in one transaction.

        A deal already in the log (under the same rules and limit) keeps its first entry.
        ``histograms`` maps a measure to (bin width, {bin: count}) for the whole run so far;
        ``sample`` also records the throughput point (seconds, deals, cards) of ``progress``.
        """
        with _transaction(self.db):
            for measure, (width, counts) in (histograms or {}).items():
                self.db.execute(
                    "INSERT OR REPLACE INTO histograms (run_id, measure, bin_width, counts)"
                    " VALUES (?, ?, ?, ?)", (run_id, measure, width, json.dumps(counts)))
            if sample:
                self.db.execute("INSERT INTO samples (run_id, seconds, deals, cards)"
                                " VALUES (?, ?, ?, ?)",
                                (run_id, progress["seconds"], progress["deals"],
                                 progress["cards"]))
            for find in finds:
                if find.cycle_id is not None and find.cycle is not None:
                    self.db.execute(
                        "INSERT OR IGNORE INTO cycles (id, key, rules, period_cards,"
                        " period_tricks, found) VALUES (?, ?, ?, ?, ?, ?)",
                        (find.cycle_id, find.cycle_key, rules, find.cycle.period_cards,
                         find.cycle.period_tricks, time.time()))
                cycle = find.cycle or Cycle(None, None, None, None)  # type: ignore[arg-type]
                self.db.execute(
                    "INSERT OR IGNORE INTO finds (run_id, deal, rules, outcome, winner, cards,"
                    " tricks, entry_cards, entry_tricks, period_cards, period_tricks, strategy,"
                    " found, limits, cycle_id)"
                    " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    (run_id, find.deal, rules, find.outcome, find.winner,
                     find.cards, find.tricks, cycle.entry_cards, cycle.entry_tricks,
                     cycle.period_cards, cycle.period_tricks, find.strategy, time.time(),
                     limits, find.cycle_id),
                )
            self.db.execute(
                "UPDATE runs SET seconds = ?, deals = ?, cards = ?, outcomes = ?,"
                " checkpoint = ?, status = ?, ended = ? WHERE id = ?",
                (progress["seconds"], progress["deals"], progress["cards"],
                 json.dumps(progress["outcomes"]), json.dumps(progress["checkpoint"]), status,
                 None if status == "running" else time.time(), run_id),
            )

    def finds(self, run_ids: Iterable[int] = ()) -> list[dict[str, Any]]:
        """Finds, best first (longest terminating games), then every cycle."""
        ids = list(run_ids)
        where = f"WHERE run_id IN ({', '.join('?' * len(ids))})" if ids else ""
        rows = self.db.execute(
            f"SELECT * FROM finds {where} "
            "ORDER BY outcome = 'cycle', cards DESC, tricks DESC, id", ids)
        return [dict(row) for row in rows]


    def histogram(self, run_ids: Iterable[int], measure: str = "cards"
                  ) -> tuple[int, dict[int, int]]:
        """The merged length histogram of some runs: (bin width, {bin: count})."""
        ids = list(run_ids)
        rows = self.db.execute(
            f"SELECT bin_width, counts FROM histograms WHERE measure = ? AND run_id IN "
            f"({', '.join('?' * len(ids))})", (measure, *ids)).fetchall()
        width, merged = 0, {}
        for row in rows:
            if width and row["bin_width"] != width:
                raise ValueError("these runs' histograms have different bins")
            width = row["bin_width"]
            for key, count in json.loads(row["counts"]).items():
                merged[int(key)] = merged.get(int(key), 0) + count
        return width, merged

    def samples(self, run_id: int) -> list[dict[str, Any]]:
        """Throughput samples of a run, in time order."""
        return [dict(row) for row in self.db.execute(
            "SELECT seconds, deals, cards FROM samples WHERE run_id = ? ORDER BY seconds",
            (run_id,))]

    def cycles(self) -> list[dict[str, Any]]:
        """The cycle catalogue: each distinct cycle, how many logged deals reach it and the
        shortest entry among them."""
        return [dict(row) for row in self.db.execute(
            "SELECT c.id, c.key, c.rules, c.period_cards, c.period_tricks, COUNT(f.id) AS deals,"
            " MIN(f.entry_cards) AS entry_cards, MIN(f.entry_tricks) AS entry_tricks"
            " FROM cycles c LEFT JOIN finds f ON f.cycle_id = c.id"
            " GROUP BY c.id ORDER BY deals DESC, c.period_tricks")]


def _decode_run(row: sqlite3.Row) -> dict[str, Any]:
    run = dict(row)
    for key in ("options", "outcomes", "checkpoint"):
        run[key] = json.loads(run[key])
    return run


class _transaction:
    """BEGIN IMMEDIATE ... COMMIT, rolled back on error (autocommit mode is used otherwise)."""

    def __init__(self, db: sqlite3.Connection) -> None:
        self.db = db

    def __enter__(self) -> None:
        self.db.execute("BEGIN IMMEDIATE")

    def __exit__(self, kind: object, *_: object) -> None:
        self.db.execute("ROLLBACK" if kind else "COMMIT")


def iter_lines(rows: Iterable[dict[str, Any]]) -> Iterator[dict[str, Any]]:
    """Finds from :meth:`RecordLog.finds` in the ``--json`` shape of a find."""
    for row in rows:
        cycle = None
        if row["outcome"] == "cycle":
            cycle = {k: row[k] for k in ("entry_cards", "entry_tricks", "period_cards",
                                         "period_tricks")}
        yield {"deal": row["deal"], "outcome": row["outcome"], "cards": row["cards"],
               "tricks": row["tricks"], "cycle": cycle, "strategy": row["strategy"],
               "run_id": row["run_id"]}
