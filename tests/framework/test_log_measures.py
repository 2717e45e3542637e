"""A log of measures: no column names a game's option or measure; a find keeps every measure of
its game by name and is ranked by its run's objective."""

from __future__ import annotations

import random
import re
import sqlite3
from pathlib import Path
from typing import ClassVar

import pytest

from dealsearch.cli import main
from dealsearch.examples.war import War
from dealsearch.game import GAMES, game_names
from dealsearch.log import Find, RecordLog
from dealsearch.log.check import check
from dealsearch.log.schema import VERSION

# Option and measure names of the default game, and columns once named after them.
BMN_NAMES = {"rules", "players", "deck", "hand_sizes", "max_cards", "max_tricks", "cards",
             "tricks", "measure_1", "measure_2", "label"}
FOUR = ("rounds", "battles", "ties", "swaps")
WAR_OPTIONS = {"values": 4, "max_rounds": 2000}
WAR_KEY = "values=4;max_rounds=2000"


class FourWar(War):
    """War counted four ways (only its log is used here: nothing is played)."""

    name: ClassVar[str] = "war4"
    title: ClassVar[str] = "War, four ways"
    measures: ClassVar[tuple[str, ...]] = FOUR


@pytest.fixture
def four(monkeypatch: pytest.MonkeyPatch) -> FourWar:
    game_names()   # the built-in games first, then this one beside them
    game = FourWar()
    monkeypatch.setitem(GAMES, game.name, game)
    return game


def test_a_new_log_has_no_column_naming_an_option_or_measure(tmp_path):
    log = RecordLog(tmp_path / "new.sqlite")
    tables = [name for (name,) in log.db.execute(
        "SELECT name FROM sqlite_master WHERE type = 'table'")]
    assert {"runs", "finds", "find_measures", "cycles", "histograms", "samples",
            "owners"} <= set(tables)
    for table in tables:
        columns = {row[1] for row in log.db.execute(f"PRAGMA table_info({table})")}
        assert not columns & BMN_NAMES, table
    assert log.db.execute("PRAGMA user_version").fetchone()[0] == VERSION == 4


def four_way_log(path: Path, rng: random.Random) -> tuple[RecordLog, dict[str, int],
                                                          dict[str, list[dict[str, int]]]]:
    """A log of four runs of war4, one per objective, each of twelve finds whose measures
    are shuffled apart (each measure orders them differently)."""
    log = RecordLog(path)
    runs, found = {}, {}
    for objective in FOUR:
        runs[objective] = log.start_run("climb", {"objective": objective}, 1, 1, "war4",
                                        WAR_OPTIONS, WAR_KEY, objective=objective)
        columns = {m: rng.sample(range(1, 1000), 12) for m in FOUR}
        found[objective] = [{m: columns[m][i] for m in FOUR} for i in range(12)]
        finds = [Find(f"{objective}{i}/0", "win", measures, "climb", runs[objective],
                      game="war4", options_key=WAR_KEY, game_options=WAR_OPTIONS)
                 for i, measures in enumerate(found[objective])]
        log.save(runs[objective], finds, {"seconds": 1.0, "deals": 12,
                                          "totals": {"rounds": 100}, "outcomes": {"win": 12},
                                          "checkpoint": {}})
    return log, runs, found


def test_a_game_with_four_measures_ranks_its_finds_by_each(four, tmp_path):
    log, runs, found = four_way_log(tmp_path / "four.sqlite", random.Random(24))
    for objective, run_id in runs.items():
        finds = log.finds([run_id])
        assert {f["objective"] for f in finds} == {objective}
        assert [f["measures"] for f in finds] == sorted(
            found[objective], key=lambda m: -m[objective])
        # the same order from SQL alone, through the index on (measure, value)
        ranked = [deal for (deal,) in log.db.execute(
            "SELECT deal FROM find_measures JOIN finds ON id = find_id"
            " WHERE measure = ? AND run_id = ? ORDER BY value DESC", (objective, run_id))]
        assert ranked == [f["deal"] for f in finds]
    plan = " ".join(str(row[-1]) for row in log.db.execute(
        "EXPLAIN QUERY PLAN SELECT find_id FROM find_measures WHERE measure = 'ties'"
        " ORDER BY value DESC"))
    assert "finds_by_measure" in plan
    # every run's finds together: never ranked across objectives
    assert [f["objective"] for f in log.finds()] == [m for m in FOUR for _ in range(12)]
    log.close()
    assert check(tmp_path / "four.sqlite") == []


def test_records_lists_each_objectives_finds_in_a_table_of_its_own(four, tmp_path, capsys):
    db = tmp_path / "four.sqlite"
    four_way_log(db, random.Random(27))[0].close()
    assert main(["records", "--all", "--game", "war4", "--db", str(db)]) == 0
    out = capsys.readouterr().out
    tables = re.split(r"^war4: .*$", out, flags=re.M)[1:]
    headings = re.findall(r"^war4: .*$", out, flags=re.M)
    setting = "4 values, at most 2,000 rounds"   # the setting in words, as the start line
    assert headings == [f"war4: {setting}"] + [f"war4: {setting} (ranked by {m})"
                                               for m in FOUR[1:]]
    for objective, table in zip(FOUR, tables, strict=True):
        lines = [line.split() for line in table.strip().splitlines()]
        column = lines[0].index(objective)
        values = [int(line[column].replace(",", "")) for line in lines[1:13]]
        assert len(values) == 12 and values == sorted(values, reverse=True)


def test_the_check_sees_a_find_whose_ranking_rows_disagree(four, tmp_path):
    db = tmp_path / "four.sqlite"
    four_way_log(db, random.Random(3))[0].close()
    with sqlite3.connect(db) as raw:
        raw.execute("UPDATE find_measures SET value = value + 1 WHERE find_id = 5"
                    " AND measure = 'ties'")
    problems = [str(p) for p in check(db)]
    assert problems == ["finds row 5: its rows of find_measures (what it is ranked by) are "
                        "not its measures"]
