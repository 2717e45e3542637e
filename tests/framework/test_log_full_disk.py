"""A full disk at any moment is one line: a new run's start, a resume's claim, a checkpoint, a
run's end, the factory's start, a recovery's new log. The run, if there is one, keeps every
find it printed, is left ``interrupted`` or ``failed`` (never ``running``), and resumes to
exactly the run left alone.

The disk fills as SQLite meets it when the database cannot grow (``PRAGMA max_page_count``,
or a file system with no block left): from the chosen moment on, every statement that adds a
row fails with ``SQLITE_FULL``, while one that rewrites a row in place (a run's status) still
fits. Injected at the connection, so it runs anywhere CI does (no tmpfs, no root); and,
where the machine allows a mount namespace of its own, on a real tmpfs that fills.
"""

from __future__ import annotations

import json
import shlex
import sqlite3
import subprocess
from pathlib import Path
from typing import Any

import pytest

import dealsearch.log.store as log_module
from dealsearch.cli import main
from dealsearch.log import Find, ManagedRun, RecordLog
from dealsearch.log.schema import LogWriteFailed
from dealsearch.search import runner as runner_module

from conftest import CLI

SEARCH = ["search", "random", "--deals", "3000000", "--seed", "7", "--workers", "1", "--json",
          "--quiet"]
FULL = "cannot write the log {db}: the disk is full (database or disk is full)"


class Disk:
    """Whether the disk is full now, and what fails then (statements that add rows; with
    ``everything``, every write, as when a new file cannot be made at all)."""

    def __init__(self) -> None:
        self.full = False
        self.everything = False

    def refuses(self, sql: str) -> bool:
        words = sql.lstrip().upper()
        every = ("CREATE", "UPDATE", "DELETE", "PRAGMA APPLICATION") if self.everything else ()
        return self.full and words.startswith(("INSERT", "REPLACE", *every))


class _Connection:
    """A connection whose writes a full :class:`Disk` refuses as SQLite does."""

    def __init__(self, db: sqlite3.Connection, disk: Disk) -> None:
        object.__setattr__(self, "_db", db)
        object.__setattr__(self, "_disk", disk)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._db, name)

    def __setattr__(self, name: str, value: Any) -> None:
        setattr(self._db, name, value)

    def _check(self, sql: str) -> None:
        if self._disk.refuses(sql):
            error = sqlite3.OperationalError("database or disk is full")
            error.sqlite_errorcode = sqlite3.SQLITE_FULL
            raise error

    def execute(self, sql: str, *args: Any) -> sqlite3.Cursor:
        self._check(sql)
        return self._db.execute(sql, *args)

    def executemany(self, sql: str, *args: Any) -> sqlite3.Cursor:
        self._check(sql)
        return self._db.executemany(sql, *args)


@pytest.fixture
def disk(monkeypatch: pytest.MonkeyPatch) -> Disk:
    disk = Disk()
    connect = log_module.connect
    monkeypatch.setattr(log_module, "connect",
                        lambda *a, **k: _Connection(connect(*a, **k), disk))
    return disk


def fill_when(monkeypatch: pytest.MonkeyPatch, disk: Disk, owner: Any, name: str,
              call: int = 1) -> None:
    """The disk fills as ``owner.name`` is called for the ``call``-th time."""
    original = getattr(owner, name)
    calls = [0]

    def filling(*args: Any, **kwargs: Any) -> Any:
        calls[0] += 1
        if calls[0] == call:
            disk.full = True
        return original(*args, **kwargs)

    monkeypatch.setattr(owner, name, filling)


def search(capsys: pytest.CaptureFixture[str], db: Path, *argv: str
           ) -> tuple[int, list[dict[str, Any]], list[str]]:
    """Exit status, the JSON lines printed (finds, then a summary) and the lines of stderr."""
    capsys.readouterr()
    status = main([*(argv or SEARCH), "--db", str(db)])
    out, err = capsys.readouterr()
    return status, [json.loads(line) for line in out.splitlines()], err.splitlines()


def deals(db: Path) -> list[str]:
    with RecordLog(db, readonly=True) as log:
        return sorted(find["deal"] for find in log.finds())


@pytest.fixture(scope="module")
def left_alone(tmp_path_factory: pytest.TempPathFactory) -> list[str]:
    """The finds of the search run to its end with nothing in its way."""
    db = tmp_path_factory.mktemp("alone") / "log.sqlite"
    assert main([*SEARCH, "--db", str(db)]) == 0
    return deals(db)


def test_a_full_disk_at_a_new_runs_start_is_one_line_and_no_run(tmp_path, capsys, disk,
                                                                 monkeypatch):
    db = tmp_path / "log.sqlite"
    RecordLog(db).close()
    fill_when(monkeypatch, disk, RecordLog, "start_run")
    status, out, err = search(capsys, db)
    assert (status, out) == (1, [])
    assert err == [f"dealsearch: error: {FULL.format(db=db)}"]
    with RecordLog(db, readonly=True) as log:
        assert log.runs() == []


def test_a_full_disk_at_the_claim_of_a_resume_leaves_the_run_as_it_was(tmp_path, capsys,
                                                                       disk, monkeypatch,
                                                                       left_alone):
    db = tmp_path / "log.sqlite"
    fill_when(monkeypatch, disk, runner_module.Runner, "_commit", call=2)
    assert search(capsys, db)[0] == 1
    disk.full = False
    with sqlite3.connect(db) as raw:   # as a run that ended and let its owner row go
        raw.execute("DELETE FROM owners")
    raw.close()
    disk.full = True
    status, out, err = search(capsys, db, "search", "--resume", "1", "--quiet", "--json")
    assert (status, out) == (1, [])
    assert err == [f"dealsearch: error: {FULL.format(db=db)}"]
    disk.full = False
    with RecordLog(db, readonly=True) as log:
        assert log.run(1)["status"] == "failed" and log.owner(1) is None
    assert search(capsys, db, "search", "--resume", "1", "--quiet", "--json")[0] == 0
    assert deals(db) == left_alone


@pytest.mark.parametrize("commit", [1, 2, 3])
def test_a_full_disk_at_a_checkpoint_fails_the_run_in_one_line_keeping_every_printed_find(
        tmp_path, capsys, disk, monkeypatch, left_alone, commit):
    db = tmp_path / "log.sqlite"
    fill_when(monkeypatch, disk, runner_module.Runner, "_commit", call=commit)
    status, out, err = search(capsys, db)
    assert status == 1
    *printed, summary = out
    assert summary["run_id"] == 1   # the summary first (standard output) ...
    assert err == [f"dealsearch: error: run 1 failed: {FULL.format(db=db)}; continue with: "
                   f"dealsearch search --resume 1 --db {db}"]   # ... then one line
    disk.full = False
    assert {find["deal"] for find in printed} <= set(deals(db))
    with RecordLog(db, readonly=True) as log:
        assert log.run(1)["status"] == "failed"
    assert search(capsys, db, "search", "--resume", "1", "--quiet", "--json")[0] == 0
    assert deals(db) == left_alone


def test_a_full_disk_at_a_runs_end_leaves_it_done_or_failed_never_running(
        tmp_path, capsys, disk, monkeypatch, left_alone):
    db = tmp_path / "log.sqlite"
    fill_when(monkeypatch, disk, runner_module.Runner, "_end")
    status, out, err = search(capsys, db)
    disk.full = False
    with RecordLog(db, readonly=True) as log:
        ended = log.run(1)["status"]
    assert {find["deal"] for find in out[:-1]} <= set(deals(db))
    if status == 0:   # every report was committed: only the last sample was lost
        assert (ended, err) == ("done", [])
    else:
        assert (status, ended, len(err)) == (1, "failed", 1)
        assert err[0].endswith(f"continue with: dealsearch search --resume 1 --db {db}")
        assert search(capsys, db, "search", "--resume", "1", "--quiet", "--json")[0] == 0
    assert deals(db) == left_alone


def test_a_run_that_cannot_even_write_its_status_reads_stale_and_resumes(tmp_path, capsys,
                                                                         disk, monkeypatch,
                                                                         left_alone):
    db = tmp_path / "log.sqlite"
    fill_when(monkeypatch, disk, runner_module.Runner, "_commit", call=2)
    disk.everything = True
    status, _, err = search(capsys, db)
    assert status == 1 and len(err) == 1 and "continue with:" in err[0]
    disk.full = False
    capsys.readouterr()
    assert main(["status", "--all", "--json", "--db", str(db)]) == 0
    (run,) = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert run["status"] == "stale"   # its owner (this process's run) is gone
    assert search(capsys, db, "search", "--resume", "1", "--quiet", "--json")[0] == 0
    assert deals(db) == left_alone


def test_a_full_disk_at_the_factorys_start_is_one_line(tmp_path, capsys, disk, monkeypatch):
    db = tmp_path / "log.sqlite"
    RecordLog(db).close()
    fill_when(monkeypatch, disk, ManagedRun, "start")
    start = "-----KA-J-/---AA--J--------K---------Q-Q-K---Q-KAQJ-"
    capsys.readouterr()
    status = main(["factory", "--start", start, "--nodes", "1", "--width", "1", "--samples",
                   "16", "--workers", "1", "--quiet", "--db", str(db)])
    assert status == 1
    assert capsys.readouterr().err.splitlines() == [f"dealsearch: error: {FULL.format(db=db)}"]


def test_a_full_disk_as_recover_makes_its_new_log_is_one_line_and_no_file(tmp_path, capsys,
                                                                          disk):
    db = tmp_path / "log.sqlite"
    assert main([*SEARCH[:3], "3000", *SEARCH[4:], "--db", str(db)]) == 0
    saved = tmp_path / "saved.sqlite"
    disk.full = disk.everything = True
    capsys.readouterr()
    assert main(["log", "recover", "--db", str(db), str(saved)]) == 1
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 1 and "the disk is full" in err[0], err
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith("saved")] == []


def test_a_log_that_cannot_grow_refuses_a_save_whole(tmp_path):
    """SQLite's own SQLITE_FULL (``max_page_count``): the save is rolled back whole and the
    run's status still fits."""
    log = RecordLog(tmp_path / "log.sqlite")
    run_id = log.start_run("random", {}, 1, 1, "beggar")
    pages = log.db.execute("PRAGMA page_count").fetchone()[0]
    log.db.execute(f"PRAGMA max_page_count = {pages}")
    finds = [Find(f"deal {i:05} " + "-" * 200, "win", {"cards": i, "tricks": 1},
                             "random", run_id, game="beggar") for i in range(200)]
    progress = {"seconds": 1.0, "deals": 200, "totals": {"cards": 1}, "outcomes": {"win": 200},
                "checkpoint": {}}
    with pytest.raises(LogWriteFailed, match="the disk is full"):
        log.save(run_id, finds, progress)
    assert log.finds() == [] and log.run(run_id)["deals"] == 0
    log.set_status(run_id, "failed")
    assert log.run(run_id)["status"] == "failed"


@pytest.mark.slow
@pytest.mark.parametrize("size", ["100k", "200k", "260k"])
def test_a_log_on_a_small_file_system_fails_in_one_line_and_resumes_elsewhere(
        tmp_path, capsys, left_alone, size):
    """The same, on a real file system that fills (a tmpfs of ``size``, in a user and mount
    namespace of its own, where the machine allows one): as small as the log cannot even be
    made, or fills at a checkpoint mid-run, or holds the whole run."""
    if subprocess.run(["unshare", "-rm", "true"], capture_output=True).returncode != 0:
        pytest.skip("cannot mount a small file system here (unshare -rm)")
    small, saved = tmp_path / "small", tmp_path / "saved"
    small.mkdir()
    saved.mkdir()
    db = small / "log.sqlite"
    done = subprocess.run(
        ["unshare", "-rm", "sh", "-c",
         f"mount -t tmpfs -o size={size} tmpfs {small} && {shlex.join([*CLI, *SEARCH])} "
         f"--db {db}; status=$?; cp {small}/* {saved}/ 2>/dev/null; exit $status"],
        capture_output=True, text=True, timeout=300)
    err = done.stderr.splitlines()
    assert done.returncode in (0, 1) and len(err) == (done.returncode == 1), err
    copy = saved / "log.sqlite"
    runs = []
    if copy.exists() and copy.stat().st_size:
        with RecordLog(copy, readonly=True) as log:
            runs = log.runs()
    if not runs:   # the log could not take the run's start: no run, and one line says so
        assert err == [f"dealsearch: error: {FULL.format(db=db)}"]
        return
    (run,) = runs
    *printed, _ = [json.loads(line) for line in done.stdout.splitlines()]
    assert {find["deal"] for find in printed} <= set(deals(copy))   # every printed find
    if done.returncode == 1:
        assert run["status"] == "failed"
        assert err[0] == (f"dealsearch: error: run 1 failed: {FULL.format(db=db)}; continue "
                          f"with: dealsearch search --resume 1 --db {db}")
        assert search(capsys, copy, "search", "--resume", "1", "--quiet", "--json")[0] == 0
    assert deals(copy) == left_alone
