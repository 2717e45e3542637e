"""A damaged log (docs/log-schema.md, "A damaged log"): every command that opens it ends in
one line, never a traceback; ``log check`` finds the damage SQLite cannot see; ``log recover``
writes a new log of all that can still be read; readers never change the damaged file.

The log is made once per session by short real searches; each test damages its own copy.
"""

from __future__ import annotations

import random
import re
import shutil
import sqlite3
import struct
import subprocess
import sys
from pathlib import Path

import pytest

from dealsearch.cli import main

DEAL = "---AJ--Q---------QAKQJJ-QK/-----A----KJ-K--------A---"
# Every command that opens a log, and whether it writes into it.
READERS = (["records"], ["records", "--cycles"], ["records", "--json", "--game", "durak"],
           ["records", "--verify"], ["status", "--all"], ["status", "--json"],
           ["report", "--out", "{dir}/report"], ["log", "check"],
           ["log", "recover", "{dir}/saved.sqlite"])
WRITERS = (["search", "--resume", "{resume}", "--quiet"],
           ["search", "random", "--deals", "100", "--workers", "1", "--quiet"],
           ["reverse", "--along", "--tricks", "1", DEAL])
WRITERS_NAMES = {argv[0] for argv in WRITERS}


@pytest.fixture(scope="session")
def sound_log(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, int]:
    """A small real log: BMN random and exhaustive runs (wins and cycles), a Durak run, and a
    random run whose search was killed (left ``running``, to resume). Its id comes along."""
    db = tmp_path_factory.mktemp("sound") / "log.sqlite"
    for argv in (["search", "random", "--deals", "3000", "--seed", "1"],
                 ["search", "exhaustive", "--deck", "------JJQQK"],
                 ["search", "random", "--game", "durak", "--deals", "1000", "--seed", "1"],
                 ["search", "random", "--deals", "2000", "--seed", "2"]):
        assert main([*argv, "--workers", "1", "--quiet", "--json", "--db", str(db)]) == 0
    with sqlite3.connect(db) as log:   # what a SIGKILL leaves: the run still 'running'
        log.execute("UPDATE runs SET status = 'running', ended = NULL WHERE id = 4")
    log.close()
    return db, 4


@pytest.fixture
def log_copy(sound_log: tuple[Path, int], tmp_path: Path) -> Path:
    db = tmp_path / "log.sqlite"
    shutil.copy(sound_log[0], db)
    return db


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, list[str]]:
    """Exit status, stdout and the lines of stderr of one command, run in-process."""
    capsys.readouterr()
    status = main(list(argv))
    captured = capsys.readouterr()
    return status, captured.out, captured.err.splitlines()


def overwrite(db: Path, old: bytes, new: bytes) -> None:
    """Overwrite ``old``, found once in the file, with ``new`` (as long), as a bad sector
    would."""
    data = db.read_bytes()
    assert len(old) == len(new) and data.count(old) == 1
    db.write_bytes(data.replace(old, new))


def values(db: Path, table: str, row: int, *columns: str) -> bytes:
    """Text columns of a row, next to each other in its record: bytes found once in the
    file (the columns of an index are also in the index: these are not)."""
    with sqlite3.connect(db) as log:
        found = log.execute(f"SELECT {', '.join(columns)} FROM {table} WHERE rowid = ?",
                            (row,)).fetchone()
    log.close()
    return "".join(found).encode()


def integrity(db: Path) -> str:
    uri = f"{db.resolve().as_uri()}?mode=ro"
    with sqlite3.connect(uri, uri=True) as log:
        result = log.execute("PRAGMA integrity_check").fetchone()[0]
    log.close()
    return str(result)


def test_a_sound_log_is_sound_and_recovers_to_the_same_log(log_copy, tmp_path, capsys):
    status, out, err = run(capsys, "log", "check", "--db", str(log_copy))
    assert (status, err) == (0, [])
    assert out == f"{log_copy} is sound: {_summary(log_copy)}\n"
    saved = tmp_path / "saved.sqlite"
    status, out, err = run(capsys, "log", "recover", "--db", str(log_copy), str(saved))
    assert (status, err) == (0, [])
    assert out == f"recovered {_summary(log_copy)} into {saved}\n"
    # the same, but that the run left running (killed) is interrupted: nobody plays it there
    for argv in (["records", "--json"], ["records", "--json", "--game", "durak"],
                 ["records", "--cycles", "--json"], ["status", "--all", "--json"],
                 ["records", "--all"]):
        assert run(capsys, *argv, "--db", str(saved))[1] == \
            run(capsys, *argv, "--db", str(log_copy))[1].replace(str(log_copy), str(saved)) \
            .replace('"status": "running"', '"status": "interrupted"') \
            .replace("run 4 running:", "run 4 interrupted:")
    assert run(capsys, "log", "check", "--db", str(saved))[0] == 0


BEGGAR_FINDS = "finds WHERE game = 'beggar'"   # what records shows without --game


def _summary(db: Path) -> str:
    """What log check and log recover count: the rows of each table."""
    return ", ".join(f"{_count(db, t)} {t}" for t in ("runs", "cycles", "finds", "histograms",
                                                          "samples"))


def _count(db: Path, table: str) -> int:
    with sqlite3.connect(db) as log:
        n = log.execute(f"SELECT count(*) FROM {table}").fetchone()[0]
    log.close()
    return int(n)


def test_damage_inside_a_row_is_seen_by_the_check_though_sqlite_says_ok(log_copy, tmp_path,
                                                                        capsys):
    # A JSON field of one find cut short, where SQLite's own check cannot see it.
    with sqlite3.connect(log_copy) as log:
        row, measures, details, strategy, found = log.execute(
            "SELECT id, measures, details, strategy, found FROM finds WHERE outcome != 'cycle'"
            " ORDER BY id LIMIT 1").fetchone()
    log.close()
    # Its record holds these values one after the other (found as an 8-byte float).
    record = f"{measures}{details}{strategy}".encode() + struct.pack(">d", found)
    overwrite(log_copy, record, record.replace(details.encode(), details[:-1].encode() + b"]"))
    assert integrity(log_copy) == "ok"
    before = log_copy.read_bytes()

    status, out, err = run(capsys, "log", "check", "--db", str(log_copy))
    assert status == 1
    assert out.splitlines() == [f"{log_copy}: finds row {row}: details is not JSON "
                                f"(Expecting ',' delimiter: line 1 column {len(details)} "
                                f"(char {len(details) - 1}))"]
    assert err == [f"dealsearch: error: {log_copy} is damaged: 1 problem in "
                   f"{_summary(log_copy)}; save the rest with: dealsearch log recover --db "
                   f"{log_copy} NEW.sqlite"]

    # records lists every other find, then says what it left out: one line, exit 1.
    status, out, err = run(capsys, "records", "--json", "--db", str(log_copy))
    assert status == 1
    assert len(out.splitlines()) == _count(log_copy, BEGGAR_FINDS) - 1   # all but that one
    assert err == [f"dealsearch: error: {log_copy} is damaged (1 row that cannot be read left "
                   f"out, the first: finds row {row}: details is not JSON (Expecting ',' "
                   f"delimiter: line 1 column {len(details)} (char {len(details) - 1}))): "
                   f"dealsearch log check --db {log_copy} lists the damage; dealsearch log "
                   f"recover --db {log_copy} NEW.sqlite saves the rest"]

    saved = tmp_path / "saved.sqlite"
    status, out, err = run(capsys, "log", "recover", "--db", str(log_copy), str(saved))
    assert status == 1 and len(err) == 1
    assert out.splitlines()[0].startswith(f"{log_copy}: finds row {row}: details is not JSON")
    assert log_copy.read_bytes() == before
    assert run(capsys, "log", "check", "--db", str(saved))[0] == 0
    status, out, _ = run(capsys, "records", "--verify", "--db", str(saved))
    kept = _count(saved, BEGGAR_FINDS)
    assert (status, out.splitlines()[-1]) == (0, f"{kept} finds replayed, 0 mismatches")
    assert kept == _count(log_copy, BEGGAR_FINDS) - 1


def test_text_that_is_not_utf8_is_one_line_naming_the_row(log_copy, capsys):
    # The example: a byte of a run's game options that is not UTF-8.
    record = values(log_copy, "runs", 3, "checkpoint", "game", "game_options")   # Durak's
    overwrite(log_copy, record, record.replace(b'"players"', b'"pla\xffers"'))
    for argv in (["records", "--game", "durak"], ["status", "--all"]):
        status, _, err = run(capsys, *argv, "--db", str(log_copy))
        assert status == 1 and len(err) == 1
        assert "runs row 3: game_options is not UTF-8 text" in err[0]
    status, out, _ = run(capsys, "log", "check", "--db", str(log_copy))
    assert status == 1
    assert f"{log_copy}: runs row 3: game_options is not UTF-8 text" in out.splitlines()


def test_resume_refuses_to_write_into_a_damaged_log(sound_log, log_copy, capsys):
    record = values(log_copy, "runs", sound_log[1], "outcomes", "checkpoint")
    overwrite(log_copy, record, record.replace(b'"cycle": ', b'"cycle":[', 1))
    before = log_copy.read_bytes()
    status, _, err = run(capsys, "search", "--resume", str(sound_log[1]), "--quiet",
                         "--db", str(log_copy))
    assert status == 1 and len(err) == 1
    assert "nothing is written into a damaged log" in err[0]
    assert f"runs row {sound_log[1]}: outcomes is not JSON" in err[0]
    assert err[0].endswith(f"dealsearch log recover --db {log_copy} NEW.sqlite saves the rest")
    assert log_copy.read_bytes() == before


def test_resume_refuses_a_log_whose_run_histograms_are_damaged(sound_log, log_copy, capsys):
    with sqlite3.connect(log_copy) as log:
        (rowid,) = log.execute("SELECT rowid FROM histograms WHERE run_id = ? LIMIT 1",
                               (sound_log[1],)).fetchone()
    log.close()
    record = values(log_copy, "histograms", rowid, "counts")
    overwrite(log_copy, record, record[:-1] + b"[")
    before = log_copy.read_bytes()
    status, _, err = run(capsys, "search", "--resume", str(sound_log[1]), "--quiet",
                         "--db", str(log_copy))
    assert status == 1 and len(err) == 1
    assert f"histograms row {rowid}: counts is not JSON" in err[0]
    assert log_copy.read_bytes() == before


def test_before_writing_only_the_rows_the_run_touches_are_checked(sound_log, log_copy,
                                                                  capsys):
    """The check before a run writes reads the rows the run reads, besides SQLite's integrity
    check: a damaged find of another run is left to log check."""
    record = values(log_copy, "finds", 1, "deal", "outcome", "measures", "details")
    overwrite(log_copy, record, record[:-1] + b"[")
    status, _, err = run(capsys, "search", "--resume", str(sound_log[1]), "--quiet",
                         "--db", str(log_copy))
    assert (status, err) == (0, [])
    assert run(capsys, "search", "random", "--deals", "500", "--seed", "3", "--workers", "1",
               "--quiet", "--db", str(log_copy))[::2] == (0, [])
    status, out, _ = run(capsys, "log", "check", "--db", str(log_copy))
    assert status == 1 and f"{log_copy}: finds row 1: details is not JSON" in out.splitlines()[0]


@pytest.mark.parametrize("writer", [
    ["search", "random", "--deals", "500", "--seed", "3"],
    ["factory", "--nodes", "1", "--width", "1", "--samples", "16"],
    ["reverse", "--along", "--tricks", "1", DEAL],
], ids=["search", "factory", "reverse"])
def test_a_log_whose_pages_sqlite_cannot_read_is_never_written(log_copy, capsys, writer):
    data = bytearray(log_copy.read_bytes())
    page = 4096
    data[2 * page: 2 * page + 16] = b"\xff" * 16   # a page header: SQLite's integrity check sees it
    log_copy.write_bytes(bytes(data))
    before = log_copy.read_bytes()
    status, _, err = run(capsys, *writer, "--workers", "1", "--quiet", "--db", str(log_copy))
    assert status == 1 and len(err) == 1 and "integrity check" in err[0]
    assert log_copy.read_bytes() == before


def test_an_index_that_disagrees_with_its_table_is_never_written(log_copy, capsys):
    """A search relies on the finds' indexes (a deal found again is looked up in one): an
    index entry pointing at no row, which SQLite's quick check does not see, is refused by the
    check before writing as by log check."""
    with sqlite3.connect(log_copy) as raw:
        (root,) = raw.execute("SELECT rootpage FROM sqlite_master WHERE name = 'finds_by_run'"
                              ).fetchone()
        (size,) = raw.execute("PRAGMA page_size").fetchone()
        raw.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    raw.close()
    data = bytearray(log_copy.read_bytes())
    page = (root - 1) * size
    cell = page + int.from_bytes(data[page + 8: page + 10], "big")  # the first entry
    assert data[cell + 1: cell + 4] == b"\x03\x09\x09"   # (run 1, find 1), both stored as 1
    data[cell + 3] = 8                               # (run 1, find 0): a row that is not there
    log_copy.write_bytes(bytes(data))
    with sqlite3.connect(log_copy) as raw:
        assert raw.execute("PRAGMA quick_check").fetchall() == [("ok",)]
    raw.close()
    before = log_copy.read_bytes()
    status, _, err = run(capsys, "search", "random", "--deals", "500", "--seed", "3",
                         "--workers", "1", "--quiet", "--db", str(log_copy))
    assert status == 1 and len(err) == 1
    assert "integrity check: row 1 missing from index finds_by_run" in err[0]
    assert log_copy.read_bytes() == before
    status, out, _ = run(capsys, "log", "check", "--db", str(log_copy))
    assert status == 1 and "row 1 missing from index finds_by_run" in out


@pytest.mark.parametrize("content", [b"", b"my notes\n"])   # a file of any kind is kept
def test_recover_writes_a_new_log_only(log_copy, tmp_path, capsys, content):
    taken = tmp_path / "taken.sqlite"
    taken.write_bytes(content)
    assert run(capsys, "log", "recover", "--db", str(log_copy), str(taken))[:3:2] == (
        2, [f"dealsearch: error: {taken} exists: recover writes a new log"])
    assert taken.read_bytes() == content


def test_a_truncated_log_recovers_what_its_pages_still_hold(log_copy, tmp_path, capsys):
    data = log_copy.read_bytes()
    log_copy.write_bytes(data[:len(data) * 2 // 3])
    status, _, err = run(capsys, "log", "check", "--db", str(log_copy))
    assert status == 1 and len(err) == 1
    saved = tmp_path / "saved.sqlite"
    status, _, err = run(capsys, "log", "recover", "--db", str(log_copy), str(saved))
    assert status in (0, 1) and len(err) == status
    assert run(capsys, "log", "check", "--db", str(saved))[0] == 0
    assert run(capsys, "records", "--verify", "--db", str(saved))[0] == 0


def test_a_log_cut_short_is_malformed_to_readers_and_recover_says_what_it_left(
        log_copy, tmp_path, capsys):
    data = log_copy.read_bytes()
    log_copy.write_bytes(data[:len(data) // 2])
    status, _, err = run(capsys, "records", "--db", str(log_copy))
    assert (status, err) == (1, [
        f"dealsearch: error: {log_copy} is damaged (database disk image is malformed): "
        f"dealsearch log check --db {log_copy} lists the damage; "
        f"dealsearch log recover --db {log_copy} NEW.sqlite saves the rest"])
    saved = tmp_path / "saved.sqlite"
    status, out, err = run(capsys, "log", "recover", "--db", str(log_copy), str(saved))
    assert status == 1 and len(err) == 1
    said = re.fullmatch(rf"dealsearch: error: (\d+) things? of {re.escape(str(log_copy))} could "
                        rf"not be recovered \(listed above\); {re.escape(str(saved))} holds "
                        r"the rest", err[0])
    assert said and 1 <= int(said[1]) <= len(out.splitlines())   # each was listed above


def test_a_log_cut_to_nothing_is_not_sound(log_copy, capsys):
    log_copy.write_bytes(b"")   # what a sync tool that failed mid-copy can leave
    status, out, err = run(capsys, "log", "check", "--db", str(log_copy))
    assert status == 1 and len(err) == 1 and "the file is empty" in out
    assert log_copy.read_bytes() == b""


def damaged_copies(data: bytes, seed: int) -> bytes:
    """The log with 1 to 20 random bytes overwritten, or (one seed in four) cut short."""
    chance = random.Random(seed)
    if seed % 4 == 0:
        return data[:chance.randrange(len(data))]
    damaged = bytearray(data)
    for _ in range(chance.randint(1, 20)):
        damaged[chance.randrange(len(damaged))] = chance.randrange(256)
    return bytes(damaged)


def _argv(argv: list[str], directory: Path, resume: int) -> list[str]:
    return [a.format(dir=directory, resume=resume) for a in argv]


@pytest.mark.parametrize("seeds", [
    range(0, 12),
    *(pytest.param(range(start, start + 12), marks=pytest.mark.slow)
      for start in range(12, 72, 12)),
], ids=lambda seeds: f"seeds-{seeds.start}-{seeds.stop - 1}")
def test_every_command_on_a_damaged_log_ends_in_one_line(sound_log, tmp_path, capsys, seeds):
    db, resume = sound_log
    data = db.read_bytes()
    failures = []
    for seed in seeds:
        damaged = damaged_copies(data, seed)
        for i, argv in enumerate(READERS + WRITERS):
            directory = tmp_path / f"{seed}-{i}"
            directory.mkdir()
            copy = directory / "log.sqlite"
            copy.write_bytes(damaged)
            args = _argv(argv, directory, resume)
            status, out, err = run(capsys, *args, "--db", str(copy))
            verify_mismatch = argv == ["records", "--verify"] and status == 1 and \
                out.endswith(" mismatches\n")
            # Any command that fails says why in one line; a search that could run may print
            # its own note; records --verify's mismatches are its output (and rows it left
            # out, its one line).
            lines = ((0, 1) if verify_mismatch or (status == 0 and argv[0] in WRITERS_NAMES)
                     else (int(status != 0),))
            if status not in (0, 1, 2) or len(err) not in lines:
                failures.append((seed, args, status, err))
            if (argv in READERS or status != 0) and copy.read_bytes() != damaged:
                failures.append((seed, args, status, "the damaged log was changed"))
    assert failures == []


def test_the_console_script_on_damaged_logs_prints_one_line(sound_log, tmp_path):
    """A few of the damaged logs through the real console script: no traceback."""
    data = sound_log[0].read_bytes()
    script = str(Path(sys.executable).with_name("dealsearch"))
    for seed in (1, 2, 4):
        copy = tmp_path / f"log-{seed}.sqlite"
        copy.write_bytes(damaged_copies(data, seed))
        for argv in (["records"], ["log", "check"]):
            done = subprocess.run([script, *argv, "--db", str(copy)], capture_output=True,
                                  text=True, timeout=120, check=False)
            assert done.returncode in (0, 1, 2)
            assert "Traceback" not in done.stderr
            assert len(done.stderr.splitlines()) == (done.returncode != 0), done.stderr


def test_check_names_a_table_it_does_not_know_and_reads_none_of_it(log_copy, tmp_path,
                                                                   capsys):
    # A table this release does not make is a schema that is not this release's: named, not
    # read, and not copied by a recovery (which keeps the rows that hold to the rules).
    with sqlite3.connect(log_copy) as log:
        log.execute("CREATE TABLE notes (id INTEGER PRIMARY KEY, text TEXT NOT NULL)")
        log.execute("INSERT INTO notes (text) VALUES ('a note \x1b]0;owned\x07')")
    log.close()
    status, out, _ = run(capsys, "log", "check", "--db", str(log_copy))
    assert status == 1
    assert out.splitlines() == [f"{log_copy}: its schema has a table notes, which this release "
                                "does not make"]
    saved = tmp_path / "saved.sqlite"
    run(capsys, "log", "recover", "--db", str(log_copy), str(saved))
    assert run(capsys, "log", "check", "--db", str(saved))[0] == 0


def test_a_damaged_schema_is_read_with_this_releases_schema(sound_log, log_copy, tmp_path,
                                                              capsys):
    # The text describing the finds table in SQLite's schema is damaged: SQLite cannot read
    # the table at all, though its pages are intact.
    overwrite(log_copy, b"UNIQUE (game, options_key, deal)", b"UNIQUE (game, options_key, deal(")
    status, _, err = run(capsys, "records", "--db", str(log_copy))
    assert status == 1 and len(err) == 1
    assert err[0].startswith(f"dealsearch: error: {log_copy} is damaged (malformed database "
                             "schema (finds)")
    status, out, _ = run(capsys, "log", "check", "--db", str(log_copy))
    assert status == 1
    assert out.splitlines()[0].startswith(f"{log_copy}: its schema is damaged: malformed "
                                          "database schema (finds)")
    saved = tmp_path / "saved.sqlite"
    run(capsys, "log", "recover", "--db", str(log_copy), str(saved))
    assert run(capsys, "log", "check", "--db", str(saved))[0] == 0
    assert _summary(saved) == _summary(sound_log[0])   # every find, run and cycle is saved
    status, out, _ = run(capsys, "records", "--verify", "--db", str(saved))
    assert (status, out.splitlines()[-1]) == (
        0, f"{_count(saved, BEGGAR_FINDS)} finds replayed, 0 mismatches")


def test_a_factory_resume_refuses_to_write_into_a_damaged_log(log_copy, capsys):
    start = "-----KA-J-/---AA--J--------K---------Q-Q-K---Q-KAQJ-"   # a never-ending deal
    assert run(capsys, "factory", "--start", start, "--nodes", "1", "--width", "1",
               "--samples", "16", "--workers", "1", "--quiet", "--db", str(log_copy))[0] == 0
    with sqlite3.connect(log_copy) as log:   # what a SIGKILL leaves: the run still 'running'
        (factory,) = log.execute("SELECT max(id) FROM runs").fetchone()
        log.execute("UPDATE runs SET status = 'running', ended = NULL WHERE id = ?", (factory,))
    log.close()
    record = values(log_copy, "runs", factory, "totals", "outcomes")
    overwrite(log_copy, record, record.replace(b'"cycle": ', b'"cycle":[', 1))
    before = log_copy.read_bytes()
    status, _, err = run(capsys, "factory", "--resume", str(factory), "--workers", "1",
                         "--quiet", "--db", str(log_copy))
    assert status == 1 and len(err) == 1, err
    assert "nothing is written into a damaged log" in err[0]
    assert log_copy.read_bytes() == before
