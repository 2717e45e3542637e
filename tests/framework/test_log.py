"""The record log: only logs of this release are read (older development logs, newer logs and
other applications' SQLite files are refused in one line), every log is opened defensively, and
a new log appears on disk whole."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from dealsearch.cli import main
from dealsearch.log import RecordLog
from dealsearch.log.schema import APPLICATION_ID, LIMITS, VERSION, LogError


def _old_log(path: Path, version: int) -> None:
    """A log as a development version before 0.1.0 left it: no application id, and (from
    version 2 on) its version number."""
    db = sqlite3.connect(path)
    db.execute("CREATE TABLE runs (id INTEGER PRIMARY KEY, strategy TEXT, cards INTEGER)")
    db.execute("INSERT INTO runs (strategy, cards) VALUES ('random', 40)")
    if version > 1:
        db.execute(f"PRAGMA user_version = {version}")
    db.commit()
    db.close()


@pytest.mark.parametrize("version", [1, 2, 3])
@pytest.mark.parametrize("command", [["records"], ["status"], ["search", "random",
                                                                 "--deals", "10"]])
def test_an_older_development_log_is_refused_in_one_line_and_left_alone(
        tmp_path, capsys, version, command):
    path = tmp_path / "old.sqlite"
    _old_log(path, version)
    before = path.read_bytes()
    assert main([*command, "--db", str(path)]) == 2
    err = capsys.readouterr().err.splitlines()
    assert err == [f"dealsearch: error: {path} is a log of a development version of dealsearch "
                   f"before 0.1.0 (schema version {version}): this release reads only its own "
                   f"logs (version {VERSION}) and does not convert older ones"]
    assert path.read_bytes() == before


def test_a_log_from_a_newer_release_or_not_sqlite_is_one_line(tmp_path, capsys):
    newer = tmp_path / "newer.sqlite"
    RecordLog(newer).close()
    db = sqlite3.connect(newer)
    db.execute(f"PRAGMA user_version = {VERSION + 1}")
    db.close()
    with pytest.raises(LogError, match=f"version {VERSION + 1} dealsearch log"):
        RecordLog(newer)
    junk = tmp_path / "junk.sqlite"
    junk.write_bytes(b"not a database at all" * 100)
    assert main(["records", "--db", str(junk)]) == 2
    assert "not a dealsearch log" in capsys.readouterr().err


def _foreign(path: Path) -> bytes:
    db = sqlite3.connect(path)
    db.execute("CREATE TABLE foo (x)")
    db.execute("INSERT INTO foo VALUES (1)")
    db.commit()
    db.close()
    return path.read_bytes()


@pytest.mark.parametrize("command", [["records"], ["status"], ["records", "--cycles"],
                                     ["search", "random", "--deals", "10", "--quiet"],
                                     ["log", "check"]])
def test_another_applications_sqlite_file_is_refused_and_left_alone(tmp_path, capsys,
                                                                     command):
    path = tmp_path / "other.sqlite"
    before = _foreign(path)
    status = main([*command, "--db", str(path)])
    out, err = capsys.readouterr()
    assert "0 finds" not in out
    assert status in (1, 2) and "not a dealsearch log (an SQLite database of another " \
        "application)" in (out + err)
    assert path.read_bytes() == before
    assert [name for (name,) in sqlite3.connect(path).execute(
        "SELECT name FROM sqlite_master")] == ["foo"]


@pytest.mark.parametrize("action", [["check"], ["recover", "{dir}/saved.sqlite"]])
def test_log_check_and_recover_refuse_another_applications_file_in_one_line(
        tmp_path, capsys, action):
    """Not "damaged: save the rest with log recover", nor an empty new log "recovered"
    from it: there is no log in it to check or save."""
    path = tmp_path / "other.sqlite"
    before = _foreign(path)
    argv = ["log", *(a.format(dir=tmp_path) for a in action), "--db", str(path)]
    capsys.readouterr()
    assert main(argv) == 2
    out, err = capsys.readouterr()
    assert not out
    assert err.splitlines() == [f"dealsearch: error: {path} is not a dealsearch log (an SQLite "
                                "database of another application): it is left alone"]
    assert path.read_bytes() == before and not (tmp_path / "saved.sqlite").exists()


def test_an_empty_file_is_a_new_log_and_is_marked_as_one(tmp_path, capsys):
    path = tmp_path / "empty.sqlite"
    path.touch()
    assert main(["records", "--db", str(path)]) == 0
    assert "0 finds" in capsys.readouterr().out
    RecordLog(path).close()
    db = sqlite3.connect(path)
    assert db.execute("PRAGMA application_id").fetchone()[0] == APPLICATION_ID
    assert db.execute("PRAGMA user_version").fetchone()[0] == VERSION


def test_every_log_is_opened_defensively(tmp_path):
    log = RecordLog(tmp_path / "log.sqlite")
    db = log.db
    assert db.execute("PRAGMA trusted_schema").fetchone()[0] == 0
    assert db.execute("PRAGMA cell_size_check").fetchone()[0] == 1
    assert db.execute("PRAGMA mmap_size").fetchone()[0] == 0
    for limit, value in LIMITS.items():
        assert db.getlimit(limit) == value
    with pytest.raises(sqlite3.DataError):   # no value longer than the limit is ever built
        db.execute("SELECT zeroblob(500000000)").fetchone()


@pytest.mark.parametrize(("hostile", "named"), [
    ("CREATE TRIGGER wipe AFTER INSERT ON finds BEGIN DELETE FROM finds; END",
     "a trigger wipe on finds, which this release does not make"),
    ("CREATE VIEW v AS WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r)"
     " SELECT n FROM r", "a view v, which this release does not make"),
    ("ALTER TABLE runs ADD COLUMN extra TEXT",
     "a table runs that is not this release's (a column extra this release does not make)"),
    ("ALTER TABLE finds ADD COLUMN big BLOB GENERATED ALWAYS AS (zeroblob(500000000)) VIRTUAL",
     "a table finds that is not this release's (a generated column big)"),
    ("CREATE INDEX more ON runs (machine)",
     "an index more on runs, which this release does not make"),
])
def test_a_log_whose_schema_is_not_this_releases_is_refused_and_named(tmp_path, capsys,
                                                                       hostile, named):
    path = tmp_path / "hostile.sqlite"
    RecordLog(path).close()
    db = sqlite3.connect(path)
    db.execute(hostile)
    db.commit()
    db.close()
    for command in (["records"], ["status"], ["search", "random", "--deals", "10", "--quiet"]):
        assert main([*command, "--db", str(path)]) == 2
        err = capsys.readouterr().err.splitlines()
        assert len(err) == 1 and f"its schema is not this release's: {named}" in err[0], err
    assert main(["log", "check", "--db", str(path)]) == 1
    assert f"its schema has {named}" in capsys.readouterr().out


def test_a_locked_log_is_named_locked(tmp_path, monkeypatch, capsys):
    import dealsearch.log.schema as schema

    path = tmp_path / "log.sqlite"
    RecordLog(path).close()
    holder = sqlite3.connect(path, isolation_level=None)
    holder.execute("BEGIN EXCLUSIVE")
    monkeypatch.setattr(schema, "BUSY_TIMEOUT", 0.1)
    try:
        assert main(["search", "random", "--deals", "10", "--quiet", "--db", str(path)]) == 2
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 1 and "is locked by another process" in err[0], err


@pytest.mark.parametrize("argv", [["records"], ["status"], ["log", "check"],
                                  ["log", "recover", "new.sqlite"], ["report", "--out", "r"],
                                  ["search", "random", "--deals", "10", "--quiet"]],
                         ids=" ".join)
def test_a_log_locked_to_readers_too_is_named_locked_by_every_command(
        tmp_path, monkeypatch, capsys, argv):
    import dealsearch.log.schema as schema

    monkeypatch.chdir(tmp_path)
    RecordLog("log.sqlite").close()
    holder = sqlite3.connect("log.sqlite", isolation_level=None)
    holder.execute("PRAGMA locking_mode = EXCLUSIVE")   # no reader gets in either
    holder.execute("BEGIN EXCLUSIVE")
    holder.execute("UPDATE runs SET seed = seed")
    monkeypatch.setattr(schema, "BUSY_TIMEOUT", 0.1)
    try:
        assert main([*argv, "--db", "log.sqlite"]) == 2
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 1 and "log.sqlite is locked by another process" in err[0], err


def test_a_new_log_appears_on_disk_with_its_tables(tmp_path, monkeypatch):
    """A reader opening the file the moment it appears (``records`` while a search starts)
    finds the tables, in WAL mode; no temporary file is left beside it."""
    import os

    import dealsearch.log.store as log

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
    RecordLog(path).start_run("random", {}, 1, 1, "beggar")
    assert {"runs", "finds", "cycles"} <= seen[0] and seen[1] == {"wal"}
    assert sorted(p.name for p in tmp_path.iterdir()) in (
        ["new.sqlite"], ["new.sqlite", "new.sqlite-shm", "new.sqlite-wal"])


def test_without_hard_links_the_log_is_made_in_place(tmp_path, monkeypatch):
    import dealsearch.log.store as log

    def no_links(source: str | Path, target: str | Path) -> None:
        raise PermissionError(1, "Operation not permitted")

    monkeypatch.setattr(log.os, "link", no_links)
    path = tmp_path / "fat.sqlite"
    RecordLog(path).start_run("random", {}, 1, 1, "beggar")
    assert [run["strategy"] for run in RecordLog(path).runs()] == ["random"]
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".new")]


def test_an_interrupted_creation_leaves_no_file(tmp_path, monkeypatch):
    import dealsearch.log.store as log

    def interrupted(db: sqlite3.Connection) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(log, "create", interrupted)
    with pytest.raises(KeyboardInterrupt):
        RecordLog(tmp_path / "never.sqlite")
    assert list(tmp_path.iterdir()) == []


def test_a_log_created_by_another_process_first_is_kept(tmp_path, monkeypatch):
    import dealsearch.log.store as log

    path = tmp_path / "raced.sqlite"
    create = log._create_file

    def other_process_first(target: Path) -> None:
        create(target)      # theirs, between our exists() check and our link
        theirs = sqlite3.connect(target)
        theirs.execute("INSERT INTO runs (strategy, options, objective, workers, machine,"
                       " started, status, game)"
                       " VALUES ('climb', '{}', 'cards', 2, 'm', 0, 'running', 'beggar')")
        theirs.commit()
        theirs.close()
        create(target)      # ours: must not replace theirs

    monkeypatch.setattr(log, "_create_file", other_process_first)
    mine = RecordLog(path)
    assert [run["strategy"] for run in mine.runs()] == ["climb"]


def test_a_random_run_dealt_by_an_earlier_dealer_keeps_its_finds_but_is_not_continued(
        tmp_path, capsys):
    path = str(tmp_path / "log.sqlite")
    assert main(["search", "random", "--deals", "300000", "--seed", "1", "--workers", "1",
                 "--quiet", "--json", "--db", path]) == 0
    raw = sqlite3.connect(path)
    raw.execute("UPDATE runs SET status = 'interrupted', checkpoint = json_set("
                "checkpoint, '$.strategy.dealer', 'an earlier one')")
    raw.commit()
    raw.close()
    capsys.readouterr()
    before = RecordLog(path, readonly=True).finds()
    assert main(["search", "--resume", "1", "--quiet", "--db", path]) == 2
    assert capsys.readouterr().err.splitlines() == [
        "dealsearch: error: this run was dealt by an earlier beggar dealer, which this version "
        "no longer has (its seed now gives other deals): start a new run"]
    with RecordLog(path, readonly=True) as log:
        assert log.finds() == before and log.run(1)["status"] == "interrupted"
