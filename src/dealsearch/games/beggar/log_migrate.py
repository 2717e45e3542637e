"""Migrate a v1 log (BMN only: ``cards``/``tricks`` columns, no game) to schema v2 in place
(the framework takes it on from v2, :func:`dealsearch.log.migrate_v2`).

Called by :class:`~dealsearch.log.RecordLog` inside the transaction that opens the log, so a
migration either completes or leaves the v1 log untouched. Nothing is lost: every run keeps its
spec and gains its game (``beggar``) and full options; every find keeps its id, run, deal,
counts, strategy, time and cycle, with the counts as named measures; every catalogued cycle
keeps its id (v2 computes BMN cycle ids as v1 did).
"""

from __future__ import annotations

import json
import sqlite3
from typing import Any

from ...game import GameError, get_game

# The v2 tables this migration writes (the framework then migrates v2 to its schema).
V2_FINDS = """
CREATE TABLE finds (
    id             INTEGER PRIMARY KEY,
    run_id         INTEGER NOT NULL REFERENCES runs(id),
    game           TEXT NOT NULL,
    options_key    TEXT NOT NULL,
    game_options   TEXT NOT NULL,
    deal           TEXT NOT NULL,
    outcome        TEXT NOT NULL,
    measure_1      INTEGER NOT NULL,
    measure_2      INTEGER,
    measures       TEXT NOT NULL,
    entry          TEXT,
    period         TEXT,
    details        TEXT NOT NULL DEFAULT '{}',
    strategy       TEXT NOT NULL,
    found          REAL NOT NULL,
    cycle_id       TEXT REFERENCES cycles(id),
    UNIQUE (game, options_key, deal)
)"""
V2_CYCLES = """
CREATE TABLE cycles (
    id           TEXT PRIMARY KEY,
    game         TEXT NOT NULL,
    options_key  TEXT NOT NULL,
    key          TEXT NOT NULL,
    label        TEXT NOT NULL,
    period       TEXT NOT NULL,
    found        REAL NOT NULL
)"""


def _options(spec: dict[str, Any], rules: str) -> tuple[dict[str, Any], str]:
    """A v1 run's BMN options as (full JSON, canonical key); ``rules``: its rules column."""
    beggar = get_game("beggar")
    values = {name: spec.get(name) for name in ("rules", "players", "deck", "max_cards",
                                                "max_tricks")}
    values["rules"] = values["rules"] or rules or "standard"
    try:
        options = beggar.options(**values)
    except GameError:  # a spec v1 accepted and v2 does not: keep what it said
        return {k: v for k, v in values.items()}, json.dumps(values, sort_keys=True)
    return options.to_json(), options.key()


def migrate_v1(db: sqlite3.Connection) -> None:
    """Rewrite the v1 tables as v2 (the caller holds the transaction and creates the rest)."""
    run_columns = {row[1] for row in db.execute("PRAGMA table_info(runs)")}
    for column, default in (("game", "'beggar'"), ("game_options", "'{}'"),
                            ("options_key", "''")):
        if column not in run_columns:
            db.execute(f"ALTER TABLE runs ADD COLUMN {column} TEXT NOT NULL DEFAULT {default}")
    by_run: dict[int, tuple[dict[str, Any], str]] = {}
    for run in db.execute("SELECT id, options, rules FROM runs").fetchall():
        by_run[run[0]] = _options(json.loads(run[1]), run[2])
        db.execute("UPDATE runs SET game = 'beggar', game_options = ?, options_key = ?"
                   " WHERE id = ?", (json.dumps(by_run[run[0]][0]), by_run[run[0]][1], run[0]))
    tables = {row[0] for row in db.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    db.execute("DROP INDEX IF EXISTS finds_by_length")
    if "finds" in tables:
        db.execute("ALTER TABLE finds RENAME TO finds_v1")
    if "cycles" in tables:
        db.execute("ALTER TABLE cycles RENAME TO cycles_v1")
    db.execute(V2_FINDS)
    db.execute(V2_CYCLES)
    cycle_keys: dict[str, str] = {}
    if "finds" in tables:
        _copy_finds(db, by_run, cycle_keys)
        db.execute("DROP TABLE finds_v1")
    if "cycles" in tables:
        cursor = db.execute("SELECT * FROM cycles_v1")
        names = [d[0] for d in cursor.description]
        for row in cursor.fetchall():
            cycle = dict(zip(names, row, strict=True))
            db.execute(
                "INSERT INTO cycles (id, game, options_key, key, label, period, found)"
                " VALUES (?, 'beggar', ?, ?, ?, ?, ?)",
                (cycle["id"], cycle_keys.get(cycle["id"], ""), cycle["key"], cycle["rules"],
                 json.dumps({"cards": cycle["period_cards"], "tricks": cycle["period_tricks"]}),
                 cycle["found"]))
        db.execute("DROP TABLE cycles_v1")


def _copy_finds(db: sqlite3.Connection, by_run: dict[int, tuple[dict[str, Any], str]],
                cycle_keys: dict[str, str]) -> None:
    cursor = db.execute("SELECT * FROM finds_v1 ORDER BY id")
    names = [d[0] for d in cursor.description]
    for values in cursor.fetchall():
        find = dict(zip(names, values, strict=True))
        options, key = _find_options(find, by_run.get(find["run_id"], ({}, "")))
        cycle = find["outcome"] == "cycle"
        entry = period = None
        if cycle:
            entry = json.dumps({"cards": find["entry_cards"], "tricks": find["entry_tricks"]})
            period = json.dumps({"cards": find["period_cards"],
                                 "tricks": find["period_tricks"]})
        cycle_id = find.get("cycle_id")
        if cycle_id is not None:
            cycle_keys.setdefault(cycle_id, key)
        db.execute(
            "INSERT INTO finds (id, run_id, game, options_key, game_options, deal, outcome,"
            " measure_1, measure_2, measures, entry, period, details, strategy, found, cycle_id)"
            " VALUES (?, ?, 'beggar', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (find["id"], find["run_id"], key, json.dumps(options), find["deal"],
             find["outcome"], find["cards"], find["tricks"],
             json.dumps({"cards": find["cards"], "tricks": find["tricks"]}), entry, period,
             json.dumps({"winner": find["winner"]}), find["strategy"], find["found"],
             cycle_id))


def _find_options(find: dict[str, Any], run: tuple[dict[str, Any], str]
                  ) -> tuple[dict[str, Any], str]:
    """The options a v1 find was played under: its own rules and limit, and the players,
    deck and hand sizes of its deal (v1 kept a deal once per rules and limit); the run's
    options if the deal cannot be read."""
    from .notation import DealError, parse_deal
    from .options import get_rules

    limits = dict(part.split("=", 1) for part in (find.get("limits") or "").split(",") if part)
    try:
        deal = parse_deal(find["deal"], get_rules(find.get("rules") or "standard"), "any")
        counts = deal.class_counts(len(get_rules(find.get("rules") or "standard").deck))
        rules = get_rules(find.get("rules") or "standard")
        deck = "".join(rules.symbols[c] * n for c, n in enumerate(counts))
        options = get_game("beggar").options(
            rules=rules.name, players=deal.players, deck=deck, hand_sizes=deal.hand_sizes,
            max_cards=int(limits["max_cards"]) if "max_cards" in limits else None,
            max_tricks=int(limits["max_tricks"]) if "max_tricks" in limits else None)
    except (DealError, GameError, ValueError):
        return run
    return options.to_json(), options.key()
