"""Schema v3, a log of measures: no column names a game's option or measure; a find keeps every
measure of its game by name and is ranked by its run's objective; a v2 log
(``tests/data/v2.sqlite``, made by ``tests/data/make_v2.py``) reads as the v2 release read it,
and a writer migrates it keeping a copy of the old file beside it."""

from __future__ import annotations

import json
import random
import re
import sqlite3
from pathlib import Path
from typing import ClassVar

import pytest

from dealsearch.cli import main
from dealsearch.examples.war import War
from dealsearch.game import GAMES, game_names
from dealsearch.log import VERSION, Find, RecordLog
from dealsearch.logcheck import check

from conftest import cli_output, old_log, old_output

# Option and measure names of the default game, and the v2 columns named after them.
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
    assert log.db.execute("PRAGMA user_version").fetchone()[0] == VERSION == 3


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
    assert headings == [f"war4: {WAR_KEY}"] + [f"war4: {WAR_KEY} (ranked by {m})"
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


# --- v2 logs ---------------------------------------------------------------------------------


@pytest.fixture
def v2_log(tmp_path: Path) -> str:
    return old_log(tmp_path, "v2")


def expected(name: str) -> str:
    return old_output("v2", name)


def without_run_2(text: str) -> str:
    """The lines of a listing but those of the fixture's run 2 (a climb on tricks)."""
    return "".join(line for line in text.splitlines(keepends=True)
                   if not re.search(r"(  2  climb |,climb,2,|\"run_id\": 2\b)", line))


def json_lines(text: str) -> list[dict]:
    return [json.loads(line) for line in text.splitlines()]


def same_keys(new: list[dict], old: list[dict]) -> bool:
    """v3 may add keys (a cycle's options, a run's objective); those v2 printed are the same."""
    return [{k: row[k] for k in was} for row, was in zip(new, old, strict=True)] == old


def read_as_v2_did(capsys: pytest.CaptureFixture[str], db: str) -> None:
    """Every reader prints what the v2 release printed, but that the finds of run 2, a climb
    on tricks, are ranked by tricks: in a table of their own, and after the rest in JSON and
    CSV."""
    listing = cli_output(capsys, db, "records", "--all").split("\nprojection for ")[0] + "\n"
    by_cards, by_tricks = listing.split("beggar (ranked by tricks)\n")
    _, *lines = by_tricks.splitlines(keepends=True)
    rows = [line for line in lines if "  2  climb " in line]
    assert by_cards + "".join(line for line in lines if line not in rows) == \
        without_run_2(expected("records.txt")).split("\nprojection for ")[0] + "\n"
    tricks = [int(line.split()[2]) for line in rows]
    run_2 = [line for line in expected("records.txt").splitlines() if "  2  climb " in line]
    assert len(tricks) == len(run_2) > 1 and tricks == sorted(tricks, reverse=True)
    rows = cli_output(capsys, db, "records", "--json")
    assert same_keys(json_lines(without_run_2(rows)),
                     json_lines(without_run_2(expected("records.json"))))
    assert sorted(rows.splitlines()) == sorted(expected("records.json").splitlines())
    assert without_run_2(cli_output(capsys, db, "records", "--csv")) == \
        without_run_2(expected("records.csv"))
    assert same_keys(json_lines(cli_output(capsys, db, "records", "--cycles", "--json")),
                     json_lines(expected("cycles.json")))
    assert cli_output(capsys, db, "records", "--json", "--game", "durak") == expected("durak.json")
    assert cli_output(capsys, db, "records", "--all", "--game", "spite") == expected("spite.txt")
    assert cli_output(capsys, db, "records", "--verify") == expected("verify.txt")
    status = json_lines(cli_output(capsys, db, "status", "--all", "--json"))
    assert same_keys(status, json_lines(expected("status.json")))
    assert [run["objective"] for run in status] == ["cards", "tricks", "cards", "bouts",
                                                    "turns"]


def test_the_fixture_is_a_v2_log(v2_log):
    db = sqlite3.connect(f"file:{v2_log}?mode=ro", uri=True)
    assert db.execute("PRAGMA user_version").fetchone()[0] == 2
    assert {"rules", "cards"} <= {row[1] for row in db.execute("PRAGMA table_info(runs)")}


def test_readers_read_a_v2_log_as_v2_did_and_never_change_it(v2_log, capsys):
    before = Path(v2_log).read_bytes()
    read_as_v2_did(capsys, v2_log)
    assert check(v2_log) == []   # log check reads it through its migration too
    assert Path(v2_log).read_bytes() == before
    assert sorted(p.name for p in Path(v2_log).parent.iterdir() if ".bak" in p.name) == []
    with RecordLog(v2_log, readonly=True) as log:
        assert log.kept is None


def _tables(db: str) -> dict[str, list[tuple]]:
    """What v2 held, in v2's terms, of a v2 or v3 log."""
    raw = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    v2 = raw.execute("PRAGMA user_version").fetchone()[0] == 2
    cards = "cards" if v2 else "json_extract(totals, '$.cards')"
    tables = {
        "runs": raw.execute(f"SELECT id, strategy, options, seed, workers, machine, started,"
                            f" ended, status, seconds, deals, {cards}, outcomes, checkpoint,"
                            " game, game_options, options_key FROM runs ORDER BY id").fetchall(),
        "finds": raw.execute("SELECT id, run_id, game, options_key, game_options, deal,"
                             " outcome, measures, entry, period, details, strategy, found,"
                             " cycle_id FROM finds ORDER BY id").fetchall(),
        "cycles": raw.execute("SELECT id, game, options_key, key, period, found FROM cycles"
                              " ORDER BY id").fetchall(),
        "histograms": raw.execute("SELECT * FROM histograms ORDER BY run_id, measure"
                                  ).fetchall(),
        "samples": raw.execute(f"SELECT run_id, seconds, deals, {cards} FROM samples"
                               " ORDER BY rowid").fetchall()}
    raw.close()
    return tables


def test_a_writer_migrates_a_v2_log_keeping_a_copy_and_every_row(v2_log, capsys):
    old = _tables(v2_log)
    assert main(["search", "random", "--deals", "3000", "--seed", "11", "--workers", "1",
                 "--quiet", "--db", v2_log]) == 0
    err = capsys.readouterr().err.splitlines()
    copy = f"{v2_log}.v2.bak"
    assert err == [f"{v2_log} was an older log: migrated to version 3, the old file kept as "
                   f"{copy}"]
    assert _tables(copy) == old   # the copy: the v2 log as it was
    assert sqlite3.connect(copy).execute("PRAGMA user_version").fetchone()[0] == 2
    new = _tables(v2_log)
    assert sqlite3.connect(v2_log).execute("PRAGMA user_version").fetchone()[0] == VERSION
    for table, rows in old.items():
        # every run, find, cycle, histogram and sample kept (and the new run's after them)
        assert new[table][:len(rows)] == rows, table
    raw = sqlite3.connect(v2_log)
    assert raw.execute("SELECT COUNT(*) FROM cycles WHERE game_options = '{}'"
                       ).fetchone()[0] == 0
    ranked = {(f, m): v for f, m, v in raw.execute("SELECT * FROM find_measures")}
    assert ranked == {(f, m): v for f, measures in raw.execute(
        "SELECT id, measures FROM finds") for m, v in json.loads(measures).items()}
    raw.close()
    assert check(v2_log) == []


def test_a_v2_log_with_runs_of_a_game_not_installed_is_not_migrated_in_place(v2_log, capsys):
    # The migration names a run's totals (v2's ``cards``) by its game's measure: without the
    # game they would be lost, so the writer refuses, naming the game, and changes nothing.
    raw = sqlite3.connect(v2_log)
    with raw:
        raw.execute("UPDATE runs SET game = 'nosuchgame' WHERE id = (SELECT MAX(id) FROM runs)")
    raw.close()
    before = Path(v2_log).read_bytes()
    capsys.readouterr()
    assert main(["search", "random", "--deals", "100", "--seed", "1", "--workers", "1",
                 "--quiet", "--db", v2_log]) == 2
    err = capsys.readouterr().err.splitlines()
    assert err == [f"dealsearch: error: {v2_log} is a version 2 log with runs of nosuchgame, "
                   "not installed here: install it to migrate the log (its runs' totals are "
                   "named by the game's measures)"]
    assert Path(v2_log).read_bytes() == before
    assert [p.name for p in Path(v2_log).parent.iterdir() if ".bak" in p.name] == []


def test_a_migrated_v2_log_reads_as_it_did(v2_log, capsys):
    RecordLog(v2_log).close()
    read_as_v2_did(capsys, v2_log)
