"""Nothing lost: a search stopped by Ctrl-C, ``kill`` or a hang-up at any moment, with or without
its standard output, and resumed to the end holds exactly what the same search left alone
holds; no worker outlives its coordinator.

The property test drives real ``dealsearch search`` processes. A test hook (``save_pause``,
:class:`dealsearch.search.hooks.TestHooks`) widens the window between absorbing a report and
committing it, where an interrupt used to lose finds, so many interrupts land there. A longer
soak of the same property is ``benchmarks/soak_interrupts.py`` (its figures are in the docs'
search page).
"""

from __future__ import annotations

import json
import os
import random
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from backends import Stuck

from dealsearch.log import RecordLog
from dealsearch.log import schema as log_schema
from dealsearch.log import store as log_module
from dealsearch.search.hooks import TestHooks
from dealsearch.search.runner import Runner
from dealsearch.search.spec import SearchSpec

from conftest import start_cli

# Settings with many never-ending deals, so the finds compared are many: BMN on the
# specialised loops (a small deck), Durak on the generic ones.
SETTINGS = {
    "beggar": ["random", "--deck", "--------JJQQKK", "--deals", "60000000"],
    "durak": ["random", "--game", "durak", "--players", "3", "--policy", "aggressive",
              "--deals", "6000000"],  # long enough for the interrupts to land
}


def start(db: Path, *argv: str, hooks: TestHooks | None = None,
          closed_stdout: bool = False) -> subprocess.Popen[str]:
    """A ``dealsearch search`` process in its own process group (as a shell runs a job),
    with the run's test ``hooks`` if given; with ``closed_stdout`` its standard output is a
    pipe nobody reads any more."""
    stdout: Any = subprocess.PIPE
    if closed_stdout:
        read, stdout = os.pipe()
        os.close(read)
    try:
        return start_cli("search", *argv, "--json", "--quiet", "--db", str(db), hooks=hooks,
                         stdout=stdout)
    finally:
        if closed_stdout:
            os.close(stdout)


def wait_for_run(db: Path, process: subprocess.Popen[str], timeout: float = 60.0) -> bool:
    """Wait until the process runs its search: the run is logged as 'running' (the signal
    handlers are in place by then; a resumed run is 'running' again from its first save).
    False if it ended first."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            return False
        if db.exists():
            with RecordLog(db, readonly=True) as log:
                if any(run["status"] == "running" for run in log.runs()):
                    return True
        time.sleep(0.05)
    raise AssertionError("the search never logged its run")


def logged(db: Path) -> dict[str, Any]:
    """What a user relies on: the run's counters and best, and every never-ending deal."""
    with RecordLog(db, readonly=True) as log:
        (run,) = log.runs()
        cycles = sorted((f["deal"], f["cycle_id"], json.dumps(f["measures"]))
                        for f in log.finds() if f["outcome"] == "cycle")
        best = run["checkpoint"]["best"]
        finished = {f["deal"] for f in log.finds() if f["outcome"] != "cycle"}
    assert best is None or best["deal"] in finished, "the best deal is not among the finds"
    return {"status": run["status"], "deals": run["deals"], "totals": run["totals"],
            "outcomes": run["outcomes"], "best": best, "cycles": cycles}


def interrupted_to_the_end(db: Path, argv: list[str], rng: random.Random,
                           interrupts: int) -> tuple[list[int], int]:
    """Run ``argv``, stop it ``interrupts`` times at random moments (SIGINT to the process
    group, as Ctrl-C does, SIGTERM to the coordinator, as ``kill`` does, and SIGHUP to the
    group, as a closed terminal does, in turn; every other session with its standard output
    closed, as after ``| head``), resume it each time, until it ends. The exit statuses of
    the stopped processes, and the run id."""
    statuses: list[int] = []
    command = argv
    run_id = 0
    sessions = 0
    while True:
        closed = sessions % 2 == 1
        sessions += 1
        process = start(db, *command, hooks=TestHooks(save_pause=0.1), closed_stdout=closed)
        started = wait_for_run(db, process)
        if started and len(statuses) < interrupts:
            time.sleep(rng.uniform(0.0, 0.6))
            turn = len(statuses) % 3
            if turn == 0:
                os.killpg(process.pid, signal.SIGINT)
            elif turn == 1:
                os.kill(process.pid, signal.SIGTERM)
            else:
                os.killpg(process.pid, signal.SIGHUP)
        out, err = process.communicate(timeout=300)
        assert "Traceback" not in err, err
        if not run_id:
            with RecordLog(db, readonly=True) as log:
                run_id = log.runs()[0]["id"]
        if process.returncode == 0:
            if not closed:
                summary = json.loads(out.splitlines()[-1])
                assert summary["run_id"] == run_id
            assert logged(db)["status"] == "done"
            return statuses, run_id
        statuses.append(process.returncode)
        status = logged(db)["status"]
        if status == "done":  # the signal came after the last commit: nothing left to do
            return statuses, run_id
        assert status == "interrupted", err
        command = ["--resume", str(run_id)]


# The soak (benchmarks/soak_interrupts.py) sets more interrupts, and the budget grows with them.
INTERRUPTS = int(os.environ.get("DEALSEARCH_SOAK_INTERRUPTS") or 6)


@pytest.mark.slow
@pytest.mark.parametrize("game", sorted(SETTINGS))
def test_interrupted_and_resumed_equals_left_alone(tmp_path: Path, game: str) -> None:
    argv = [*SETTINGS[game], "--workers", "2", "--seed", "11"]
    deals = argv.index("--deals") + 1
    argv[deals] = str(int(argv[deals]) * max(1, INTERRUPTS // 6))
    alone = start(tmp_path / "alone.sqlite", *argv)
    alone.communicate(timeout=300)
    assert alone.returncode == 0
    expected = logged(tmp_path / "alone.sqlite")
    assert len(expected["cycles"]) >= 20, "the setting must surely exercise cycle finds"

    statuses, _ = interrupted_to_the_end(tmp_path / "stopped.sqlite", argv,
                                         random.Random(game), interrupts=INTERRUPTS)
    # Ctrl-C exits 130, kill 143 and a hang-up 129, as shells and schedulers expect.
    assert statuses[0::3] == [130] * len(statuses[0::3])
    assert statuses[1::3] == [143] * len(statuses[1::3])
    assert statuses[2::3] == [129] * len(statuses[2::3])
    assert len(statuses) >= min(2, INTERRUPTS), "too few interrupts landed to test anything"
    print(f"{game}: {len(statuses)} interrupts, {len(expected['cycles'])} cycle finds, "
          f"{expected['deals']:,} deals: all kept")
    assert logged(tmp_path / "stopped.sqlite") == expected


def test_a_killed_coordinator_takes_its_workers_with_it(tmp_path: Path) -> None:
    db = tmp_path / "log.sqlite"
    search = start(db, "random", "--workers", "2", "--seed", "5",
                   hooks=TestHooks(hold_after_finds=1))
    assert search.stdout is not None
    json.loads(search.stdout.readline())  # a find told: the workers are up, the coordinator holds
    workers = children(search.pid)
    assert len(workers) == 2
    os.kill(search.pid, signal.SIGKILL)
    search.wait()
    deadline = time.monotonic() + 10
    while alive(workers) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not alive(workers), "a worker outlived its coordinator"


def children(pid: int) -> list[int]:
    """The pids whose parent is ``pid`` (Linux /proc)."""
    if not Path("/proc").is_dir():
        pytest.skip("needs /proc to find the worker processes")
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
                found.append(int(entry.name))
    return found


def alive(pids: list[int]) -> bool:
    """Any of ``pids`` still running (a zombie waiting for its reaper has ended)."""
    for pid in pids:
        try:
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if state != "Z":
            return True
    return False


# ------------------------------------------------------------------ in-process, under faults

def test_a_second_ctrl_c_stops_at_once_and_the_run_is_still_interrupted(tmp_path: Path) -> None:
    spec = SearchSpec.from_json({"game": "beggar", "strategy": "random", "deals": 10**9,
                                 "seed": 1, "workers": 1})
    with RecordLog(tmp_path / "log.sqlite") as log:
        runner = Runner(spec, log, progress=False, backend=Stuck())
        # The first Ctrl-C lands while the runner waits for tasks; the second while it
        # drains them (they never end): without the second, run() would never return.
        for delay in (0.3, 0.6):
            timer = threading_timer(delay, os.kill, os.getpid(), signal.SIGINT)
            timer.start()
        summary = runner.run()
        assert summary.status == "interrupted" and summary.signal == signal.SIGINT
        assert log.run(runner.run_id)["status"] == "interrupted"


def threading_timer(delay: float, fn: Any, *args: Any) -> Any:
    import threading

    return threading.Timer(delay, fn, args)


SMALL_RUNS = {  # a second or two each, with many never-ending deals to lose
    "beggar": {"deals": 2_000_000, "game_options": {"deck": "------JJQQK"}},
    "durak": {"deals": 1_000_000, "game_options": {"players": 3, "policy": "aggressive"}},
}


def small_run(tmp_path: Path, name: str, game: str = "beggar") -> tuple[SearchSpec, Path]:
    spec = SearchSpec.from_json({"strategy": "random", "seed": 3, "workers": 1, "game": game,
                                 **SMALL_RUNS[game]})
    return spec, tmp_path / f"{name}.sqlite"


def left_alone(tmp_path: Path, game: str = "beggar") -> dict[str, Any]:
    spec, db = small_run(tmp_path, "alone", game)
    with RecordLog(db) as log:
        assert Runner(spec, log, progress=False).run().status == "done"
    return logged(db)


@pytest.mark.slow
def test_a_full_disk_fails_the_run_keeps_its_finds_and_resumes_once_space_is_back(
        tmp_path: Path) -> None:
    expected = left_alone(tmp_path, "durak")
    spec, db = small_run(tmp_path, "full", "durak")
    with RecordLog(db) as log:
        runner = Runner(spec, log, progress=False)
        calls = {"n": 0}
        save = log.save

        def save_then_fill(*args: Any, **kwargs: Any) -> None:
            calls["n"] += 1
            if calls["n"] == 3:  # the disk fills up: no page more than the log has now
                pages = log.db.execute("PRAGMA page_count").fetchone()[0]
                log.db.execute(f"PRAGMA max_page_count = {pages}")
            save(*args, **kwargs)

        log.save = save_then_fill  # type: ignore[method-assign]
        summary = runner.run()   # one line: the run failed, and why
        assert summary.status == "failed" and "the disk is full" in summary.error
        run_id = runner.run_id
    stopped = logged(db)
    assert stopped["status"] == "failed" and 0 < stopped["deals"] < spec.deals
    assert set(stopped["cycles"]) <= set(expected["cycles"])
    with RecordLog(db) as log:   # space is back
        assert Runner(spec, log, run_id, progress=False).run().status == "done"
    assert logged(db) == expected


@pytest.mark.slow
def test_a_log_locked_past_the_busy_timeout_fails_the_save_and_loses_nothing(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    expected = left_alone(tmp_path)
    spec, db = small_run(tmp_path, "locked")
    monkeypatch.setattr(log_schema, "BUSY_TIMEOUT", 0.2)
    monkeypatch.setattr("dealsearch.search.runner.COMMIT_SECONDS", 0.0)  # a commit per report
    monkeypatch.setattr("dealsearch.search.runner.MAX_UNITS", 1)  # of one chunk: 20 commits
    with RecordLog(db) as log:
        runner = Runner(spec, log, progress=False)
        other = sqlite3.connect(db, isolation_level=None)
        calls = {"n": 0}
        save = log.save

        def save_then_lock(*args: Any, **kwargs: Any) -> None:
            calls["n"] += 1
            if calls["n"] == 5:  # another writer takes the log and keeps it
                other.execute("BEGIN IMMEDIATE")
            save(*args, **kwargs)

        log.save = save_then_lock  # type: ignore[method-assign]
        summary = runner.run()
        assert summary.status == "failed" and "held its lock" in summary.error
        other.execute("ROLLBACK")
        other.close()
        run_id = runner.run_id
    with RecordLog(db) as log:
        assert Runner(spec, log, run_id, progress=False).run().status == "done"
    assert logged(db) == expected


def test_a_failed_rollback_does_not_hide_the_error_that_caused_it(tmp_path: Path) -> None:
    with RecordLog(tmp_path / "log.sqlite") as log, pytest.raises(ZeroDivisionError), \
            log_module._transaction(log.db):
        log.db.execute("ROLLBACK")  # SQLite gave up the transaction already
        raise ZeroDivisionError


@pytest.mark.slow
def test_readers_do_not_wait_for_a_writer(tmp_path: Path) -> None:
    spec, db = small_run(tmp_path, "log")
    with RecordLog(db) as log:
        Runner(spec, log, progress=False).run()
    writer = sqlite3.connect(db, isolation_level=None)
    writer.execute("BEGIN IMMEDIATE")   # a search in the middle of a save
    try:
        for command in (["records"], ["report", "--out", str(tmp_path / "report")]):
            done = subprocess.run([sys.executable, "-m", "dealsearch", *command, "--db", str(db)],
                                  capture_output=True, text=True, timeout=20)
            assert done.returncode == 0, done.stderr
    finally:
        writer.execute("ROLLBACK")


@pytest.mark.slow
def test_a_log_on_read_only_storage_can_be_listed_and_reported(tmp_path: Path) -> None:
    spec, db = small_run(tmp_path, "log")
    with RecordLog(db) as log:
        Runner(spec, log, progress=False).run()
    storage, mounted, out = tmp_path / "storage", tmp_path / "mounted", tmp_path / "out"
    for folder in (storage, mounted, out):
        folder.mkdir()
    (storage / "log.sqlite").write_bytes(db.read_bytes())
    before = (storage / "log.sqlite").read_bytes()
    # A read-only bind mount, in a user and mount namespace of its own (no root needed).
    if subprocess.run(["unshare", "-rm", "true"], capture_output=True).returncode != 0:
        pytest.skip("cannot make a read-only mount here (unshare -rm)")
    for command in ("records", f"report --out {out / 'report'}"):
        done = subprocess.run(
            ["unshare", "-rm", "sh", "-c",
             f"mount --bind -o ro {storage} {mounted} && touch {mounted}/x 2>/dev/null; "
             f"test ! -e {mounted}/x && {sys.executable} -m dealsearch {command} "
             f"--db {mounted}/log.sqlite"],
            capture_output=True, text=True, timeout=60, cwd=out)
        assert done.returncode == 0, done.stderr
        assert "dealsearch: error" not in done.stderr
    assert (storage / "log.sqlite").read_bytes() == before
    assert sorted(p.name for p in storage.iterdir()) == ["log.sqlite"]


@pytest.mark.slow
def test_a_full_disk_is_one_line_exit_1_and_the_run_resumes_once_space_is_back(
        tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    from dealsearch import log as log_package
    from dealsearch.cli import main

    class FillingLog(RecordLog):
        """A log whose disk fills up at its third save (SQLite's own error)."""

        def save(self, *args: Any, **kwargs: Any) -> None:
            self.saves = getattr(self, "saves", 0) + 1
            if self.saves == 3:
                pages = self.db.execute("PRAGMA page_count").fetchone()[0]
                self.db.execute(f"PRAGMA max_page_count = {pages}")
            super().save(*args, **kwargs)

    db = str(tmp_path / "log.sqlite")
    search = ["search", "random", "--game", "durak", "--players", "3", "--policy",
              "aggressive", "--deals", "1000000", "--workers", "1", "--seed", "3", "--quiet"]
    monkeypatch.setattr(log_package, "RecordLog", FillingLog)   # as the command opens it
    monkeypatch.setattr("dealsearch.search.runner.COMMIT_SECONDS", 0.0)   # a commit a report
    monkeypatch.setattr("dealsearch.search.runner.MAX_UNITS", 1)
    assert main([*search, "--db", db]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "cannot write the log" in err[0] and "full" in err[0], err
    assert logged(Path(db))["status"] == "failed"
    monkeypatch.undo()   # space is back
    assert main(["search", "--resume", "1", "--db", db, "--quiet"]) == 0
    capsys.readouterr()
    resumed = logged(Path(db))
    assert main([*search, "--db", str(tmp_path / "alone.sqlite")]) == 0
    assert resumed == logged(tmp_path / "alone.sqlite")
