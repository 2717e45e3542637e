"""The record log: schema v3, and v1 logs (tests/data/v1.sqlite) migrated in place.

``tests/data/v1_expected`` holds what the v1 release printed for the fixture (made by
``tests/data/make_v1.py``); a migrated log must print the same.
"""

from __future__ import annotations

import json
import re
import sqlite3
from pathlib import Path

import pytest

from dealsearch.cli import main
from dealsearch.log import VERSION, LogError, RecordLog

from conftest import OLD_LOGS, cli_output, old_log, old_output, table_rows


@pytest.fixture
def v1_log(tmp_path: Path) -> str:
    """A fresh copy of the v1 fixture (migration rewrites it in place)."""
    return old_log(tmp_path, "v1")


def run_cli(capsys: pytest.CaptureFixture[str], db: str, *argv: str) -> str:
    return cli_output(capsys, db, *argv, statuses=(0, 1))


def expected(name: str) -> str:
    return old_output("v1", name)


def test_the_fixture_is_a_v1_log():
    db = sqlite3.connect(OLD_LOGS / "v1.sqlite")
    assert db.execute("PRAGMA user_version").fetchone()[0] == 0
    columns = {row[1] for row in db.execute("PRAGMA table_info(finds)")}
    assert {"cards", "tricks", "rules", "limits"} <= columns and "game" not in columns


def test_opening_a_v1_log_migrates_it_losing_nothing(v1_log):
    before = sqlite3.connect(v1_log)
    old_finds = before.execute("SELECT id, run_id, deal, outcome, cards, tricks, entry_cards,"
                               " period_tricks, strategy, found, cycle_id, winner FROM finds"
                               " ORDER BY id").fetchall()
    old_runs = before.execute("SELECT * FROM runs ORDER BY id").fetchall()
    old_other = {t: before.execute(f"SELECT * FROM {t}").fetchall()
                 for t in ("histograms", "samples")}
    old_cycles = before.execute("SELECT id, key, period_cards FROM cycles").fetchall()
    before.close()
    log = RecordLog(v1_log)
    assert log.kept == Path(f"{v1_log}.v1.bak")
    log.close()
    kept = sqlite3.connect(f"{v1_log}.v1.bak")   # the copy kept beside it: v1, as it was
    assert kept.execute("PRAGMA user_version").fetchone()[0] == 0
    assert kept.execute("SELECT * FROM runs ORDER BY id").fetchall() == old_runs
    kept.close()
    after = sqlite3.connect(v1_log)
    assert after.execute("PRAGMA user_version").fetchone()[0] == VERSION
    new_finds = after.execute(
        "SELECT id, run_id, deal, outcome, json_extract(measures, '$.cards'),"
        " json_extract(measures, '$.tricks'),"
        " json_extract(entry, '$.cards'), json_extract(period, '$.tricks'), strategy, found,"
        " cycle_id, json_extract(details, '$.winner') FROM finds ORDER BY id").fetchall()
    assert new_finds == old_finds
    ranked = after.execute("SELECT find_id, measure, value FROM find_measures"
                           " ORDER BY find_id, measure").fetchall()
    assert ranked == sorted([(f[0], "cards", f[4]) for f in old_finds]
                            + [(f[0], "tricks", f[5]) for f in old_finds])
    runs = after.execute(
        "SELECT id, strategy, options, json_extract(game_options, '$.rules'), seed, workers,"
        " machine, started, ended, status, seconds, deals, json_extract(totals, '$.cards'),"
        " outcomes, checkpoint FROM runs ORDER BY id").fetchall()
    assert runs == old_runs
    # each run ranks its finds by its spec's objective (run 4 climbed on tricks)
    assert [(json.loads(options)["objective"], game, objective) for options, game, objective
            in after.execute("SELECT options, game, objective FROM runs ORDER BY id")] == [
        (objective, "beggar", objective) for objective in ["cards"] * 3 + ["tricks"]
        + ["cards"] * 5]
    assert after.execute("SELECT * FROM histograms").fetchall() == old_other["histograms"]
    assert after.execute("SELECT run_id, seconds, deals, json_extract(totals, '$.cards')"
                         " FROM samples").fetchall() == old_other["samples"]
    assert after.execute("SELECT id, key, json_extract(period, '$.cards') FROM cycles"
                         ).fetchall() == old_cycles


def test_a_migrated_log_prints_what_v1_printed(v1_log, capsys):
    # Since v1, `records` also ends with a line per unfinished run (how to resume it); since
    # the output issue (#19) it shows a screenful unless --all, with thousands separators.
    # Since #20 it ends with what each setting's random runs project: not part of v1's output.
    # Since #24 finds are ranked by their run's objective: run 4, a climb on tricks, lists
    # its finds in a table of their own, by tricks (and after the rest in --csv and --json).
    # Since #35 each setting (rules, players, deck, limits) is ranked in a table of its own,
    # headed by the setting in words: the rows are v1's.
    listing = run_cli(capsys, v1_log, "records", "--all").split("\nprojection for ")[0] + "\n"
    table, unfinished = listing.split("\nrun 9 interrupted:")
    by_cards, by_tricks = table.split("beggar: standard rules, 3 players (ranked by tricks)\n")
    total = by_tricks.splitlines()[-1]
    old = without_run_4(expected("records.txt"))
    assert table_rows(by_cards) == table_rows(old) and total == old.splitlines()[-1]
    assert [line for line in by_cards.splitlines() if line.startswith("beggar")] == [
        "beggar: standard rules, 2 players", "beggar: italian rules, 3 players",
        "beggar: standard rules, 4 players, stop at 400 cards",
        "beggar: standard rules, 2 players, deck ------JJQQK",
        "beggar: standard rules, 2 players, deck ------JJQQK, stop at 20 tricks",
        "beggar: standard rules, 3 players, deck -------JJQ"]
    assert [line.split()[1:4] for line in by_tricks.splitlines()[1:-1]] == [
        ["2,420", "324", "4"], ["2,004", "285", "4"]]
    assert unfinished.endswith("continue with: dealsearch search --resume 9 --db DB\n")
    csv = run_cli(capsys, v1_log, "records", "--csv")
    assert without_run_4(csv) == without_run_4(expected("records.csv"))
    wins = [line for line in csv.splitlines() if ",win," in line]
    assert wins[-2:] == [line for line in expected("records.csv").splitlines()
                         if ",climb,4," in line]
    # Since #26 the catalogue names each cycle's family (a column after its id) and counts
    # the families: the rest is v1's table.
    cycles = run_cli(capsys, v1_log, "records", "--cycles").splitlines()
    assert cycles[-1] == "3 distinct cycles of 3 families in DB"
    without = [line[:14] + line[28:] for line in cycles[:-1]] + ["3 distinct cycles in DB"]
    assert "\n".join(without) + "\n" == expected("cycles.txt")
    assert run_cli(capsys, v1_log, "records", "--verify") == expected("verify.txt")
    v1_cycles = [json.loads(line) for line in expected("cycles.json").splitlines()]
    cycles = [json.loads(line) for line in
              run_cli(capsys, v1_log, "records", "--cycles", "--json").splitlines()]
    assert [{k: c[k] for k in old} for c, old in zip(cycles, v1_cycles, strict=True)
            ] == v1_cycles


def without_run_4(text: str) -> str:
    """The lines of a listing but those of the v1 fixture's run 4 (a climb on tricks)."""
    return "".join(line for line in text.splitlines(keepends=True)
                   if not re.search(r"(  4  climb |,climb,4,|\"run_id\": 4\b)", line))


def test_records_json_keeps_the_v1_keys_and_adds_the_game_and_options(v1_log, capsys):
    v1_rows = [json.loads(line) for line in without_run_4(expected("records.json")).splitlines()]
    listing = run_cli(capsys, v1_log, "records", "--json")
    rows = [json.loads(line) for line in without_run_4(listing).splitlines()]
    assert [{k: row[k] for k in old} for row, old in zip(rows, v1_rows, strict=True)] == v1_rows
    rows = [json.loads(line) for line in listing.splitlines()]  # run 4's too: by tricks
    runs = {run["id"]: run for run in RecordLog(v1_log).runs()}
    for row in rows:
        spec = runs[row["run_id"]]["options"]
        assert row["game"] == "beggar"
        assert row["options"]["rules"] == spec["rules"]
        assert row["options"]["players"] == spec["players"]
        assert (row["options"]["max_cards"], row["options"]["max_tricks"]) == (
            spec["max_cards"], spec["max_tricks"])
    assert {row["options"]["players"] for row in rows} == {2, 3, 4}


def test_a_migrated_log_reports_the_same_runs(v1_log, tmp_path, capsys):
    run_cli(capsys, v1_log, "report", "--out", str(tmp_path / "r"))
    page = (tmp_path / "r" / "index.html").read_text(encoding="utf-8")

    def run_table(html: str) -> list[list[str]]:
        table = re.search(r"<table>.*?</table>", html).group(0)
        rows = re.findall(r"<tr>(.*?)</tr>", table)[1:]
        return [re.findall(r"<td>(.*?)</td>", row)[:7] for row in rows]

    # The same runs, strategies, statuses and deal counts; since the output issue (#19) the
    # setting is said in words ("standard rules, 2 players" for v1's "standard") and the
    # columns after the deals changed (seconds with a unit, deals/s).
    ours, theirs = run_table(page), run_table(expected("report.html"))
    assert [[r[0], r[1], r[3], r[4]] for r in ours] == [[r[0], r[1], r[3], r[4]] for r in theirs]
    assert [r[2].split(" rules")[0] for r in ours] == [r[2] for r in theirs]
    cycles = re.findall(r"<td>([0-9a-f]{12})</td>", page)
    assert cycles == re.findall(r"<td>([0-9a-f]{12})</td>", expected("report.html"))


def test_a_v1_random_run_keeps_its_finds_but_the_new_dealer_does_not_continue_it(v1_log,
                                                                                capsys):
    """BMN random search deals from a counter-based generator since the v1 release (the GPU
    engine shares it), so a seed's chunks are other deals than a v1 run began with: resuming
    such a run is refused in one line (exit 2), and its finds stay as they were."""
    run_id = expected("interrupted").strip()
    before = run_cli(capsys, v1_log, "records", "--json", "--run", run_id)
    with RecordLog(v1_log) as log:
        status = log.run(int(run_id))["status"]
    assert main(["search", "--resume", run_id, "--quiet", "--db", v1_log]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "earlier beggar dealer" in err[0] and "new run" in err[0]
    assert run_cli(capsys, v1_log, "records", "--json", "--run", run_id) == before
    # refused after it had claimed the run: the run is left as it was, with no owner
    with RecordLog(v1_log) as log:
        assert log.run(int(run_id))["status"] == status != "running"
        assert log.db.execute("SELECT COUNT(*) FROM owners").fetchone()[0] == 0


def test_a_log_from_a_newer_release_or_not_sqlite_is_one_line(tmp_path, capsys):
    newer = tmp_path / "newer.sqlite"
    sqlite3.connect(newer).execute(f"PRAGMA user_version = {VERSION + 1}")
    with pytest.raises(LogError, match="version"):
        RecordLog(newer)
    junk = tmp_path / "junk.sqlite"
    junk.write_bytes(b"not a database at all" * 100)
    assert main(["records", "--db", str(junk)]) == 2
    assert "not a dealsearch log" in capsys.readouterr().err


def test_a_new_log_is_v3_and_a_failed_migration_leaves_v1_untouched(v1_log, monkeypatch):
    assert RecordLog(":memory:").db.execute("PRAGMA user_version").fetchone()[0] == VERSION
    import dealsearch.games.beggar.log_migrate as migrate

    def broken(db: sqlite3.Connection) -> None:
        db.execute("ALTER TABLE finds RENAME TO finds_v1")
        raise RuntimeError("power cut")

    monkeypatch.setattr(migrate, "migrate_v1", broken)
    with pytest.raises(RuntimeError):
        RecordLog(v1_log)
    assert not Path(f"{v1_log}.v1.bak").exists()   # nothing was migrated: no copy to keep
    db = sqlite3.connect(v1_log)
    assert db.execute("PRAGMA user_version").fetchone()[0] == 0
    assert "cards" in {row[1] for row in db.execute("PRAGMA table_info(finds)")}


def test_migrated_finds_share_keys_with_new_runs(v1_log, capsys):
    """A v1 find and the same deal found again by a new run are one row (same options key)."""
    RecordLog(v1_log).close()
    db = sqlite3.connect(v1_log)
    assert db.execute("SELECT COUNT(*) FROM finds f JOIN runs r ON f.run_id = r.id"
                      " WHERE f.options_key != r.options_key").fetchone()[0] == 0
    best_of_run_1 = db.execute("SELECT deal FROM finds JOIN find_measures ON find_id = id"
                               " WHERE run_id = 1 AND measure = 'cards' ORDER BY value DESC"
                               ).fetchone()[0]
    db.close()
    run_cli(capsys, v1_log, "search", "random", "--deals", "200000", "--seed", "1",
            "--workers", "1", "--quiet", "--json")
    db = sqlite3.connect(v1_log)
    rows = db.execute("SELECT run_id FROM finds WHERE deal = ?", (best_of_run_1,)).fetchall()
    assert rows == [(1,)]
    assert db.execute("SELECT COUNT(*) FROM runs").fetchone()[0] == 10


def test_a_new_log_appears_on_disk_with_its_tables(tmp_path, monkeypatch):
    """A reader opening the file the moment it appears (``records`` while a search starts)
    finds the tables, in WAL mode; no temporary file is left beside it."""
    import os

    import dealsearch.log as log

    seen: list[set[str]] = []
    link = os.link

    def watched(source: str | Path, target: str | Path) -> None:
        link(source, target)
        reader = sqlite3.connect(target)
        seen.append({row[0] for row in reader.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table'")})
        seen.append({reader.execute("PRAGMA journal_mode").fetchone()[0]})
        reader.close()

    monkeypatch.setattr(log.os, "link", watched)
    path = tmp_path / "new.sqlite"
    RecordLog(path).start_run("random", {}, 1, 1)
    assert {"runs", "finds", "cycles"} <= seen[0] and seen[1] == {"wal"}
    assert sorted(p.name for p in tmp_path.iterdir()) in (
        ["new.sqlite"], ["new.sqlite", "new.sqlite-shm", "new.sqlite-wal"])


def test_without_hard_links_the_log_is_made_in_place(tmp_path, monkeypatch):
    import dealsearch.log as log

    def no_links(source: str | Path, target: str | Path) -> None:
        raise PermissionError(1, "Operation not permitted")

    monkeypatch.setattr(log.os, "link", no_links)
    path = tmp_path / "fat.sqlite"
    RecordLog(path).start_run("random", {}, 1, 1)
    assert [run["strategy"] for run in RecordLog(path).runs()] == ["random"]
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".new")]


def test_an_interrupted_creation_leaves_no_file(tmp_path, monkeypatch):
    import dealsearch.log as log

    def interrupted(db: sqlite3.Connection, path: str) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(log, "_prepare", interrupted)
    with pytest.raises(KeyboardInterrupt):
        RecordLog(tmp_path / "never.sqlite")
    assert list(tmp_path.iterdir()) == []


def test_a_log_created_by_another_process_first_is_kept(tmp_path, monkeypatch):
    import dealsearch.log as log

    path = tmp_path / "raced.sqlite"
    create = log._create_file

    def other_process_first(target: Path) -> None:
        create(target)      # theirs, between our exists() check and our link
        theirs = sqlite3.connect(target)
        theirs.execute("INSERT INTO runs (strategy, options, objective, workers, machine,"
                       " started, status) VALUES ('climb', '{}', 'x', 2, 'm', 0, 'running')")
        theirs.commit()
        theirs.close()
        create(target)      # ours: must not replace theirs

    monkeypatch.setattr(log, "_create_file", other_process_first)
    mine = RecordLog(path)
    assert [run["strategy"] for run in mine.runs()] == ["climb"]
