"""One owner per run: a run a live process plays cannot be resumed by another, a run whose
owner died without a word can, two resumes racing for it end with one owner, and an owner
that was taken over writes nothing more. The processes are real ``dealsearch search``
processes; the moments are chosen by hooks and by the processes' own output and exit."""

from __future__ import annotations

import json
import os
import platform
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from dealsearch.cli import main
from dealsearch.log import RecordLog, ownership
from dealsearch.log.ownership import Owner, RunOwned, RunTakenOver, claim, owner_of
from dealsearch.search.hooks import TestHooks
from dealsearch.search.runner import Runner
from dealsearch.search.spec import SearchSpec

from conftest import start_cli

# Many never-ending deals: a held search has told a find within a second.
CYCLES = ["random", "--deck", "--------JJQQKK", "--deals", "5000000", "--workers", "1",
          "--seed", "4"]


def search(db: Path, *argv: str, hold: int = 0) -> subprocess.Popen[str]:
    """A ``dealsearch search --json`` process; with ``hold`` it stops, still owning its run,
    once it has told that many finds (the runner's test hook)."""
    return start_cli("search", *argv, "--json", "--quiet", "--db", str(db),
                     hooks=TestHooks(hold_after_finds=hold) if hold else None)


def held(db: Path, *argv: str) -> subprocess.Popen[str]:
    """A search that has told its first find and holds its run there."""
    process = search(db, *argv, hold=1)
    assert process.stdout is not None
    json.loads(process.stdout.readline())
    return process


def dealsearch(*argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "dealsearch", *argv], capture_output=True,
                          text=True, timeout=120)


def run_row(db: Path) -> dict[str, Any]:
    with RecordLog(db, readonly=True) as log:
        run = log.run(1)
    assert run is not None
    return {key: run[key] for key in ("status", "deals", "totals", "outcomes", "checkpoint")}


def test_a_run_a_live_process_plays_is_not_resumed_and_one_that_died_is_taken_over(
        tmp_path: Path) -> None:
    db = tmp_path / "log.sqlite"
    owner = held(db, *CYCLES)
    try:
        before = run_row(db)
        second = dealsearch("search", "--resume", "1", "--db", str(db), "--quiet")
        assert second.returncode == 2
        (line,) = second.stderr.splitlines()
        assert line.startswith(f"dealsearch: error: run 1 is being played by pid {owner.pid} "
                               f"on {platform.node()} since 20"), line
        assert second.stdout == ""
        assert run_row(db) == before   # the refused process wrote nothing
        status = dealsearch("status", "--db", str(db))
        assert status.stdout.startswith("run 1 running:"), status.stdout
    finally:
        owner.kill()   # SIGKILL: the owner dies without a word
        owner.communicate()
    status = dealsearch("status", "--db", str(db))
    assert status.stdout.startswith("run 1 stale:"), status.stdout
    assert f"its owner, pid {owner.pid} on {platform.node()}" in status.stdout
    figures = json.loads(dealsearch("status", "--db", str(db), "--json").stdout)
    assert figures["status"] == "stale" and figures["owner"]["pid"] == owner.pid
    resumed = dealsearch("search", "--resume", "1", "--db", str(db), "--quiet", "--json")
    assert resumed.returncode == 0, resumed.stderr
    assert run_row(db)["status"] == "done"
    assert json.loads(resumed.stdout.splitlines()[-1])["deals"] == 5_000_000
    assert "no search is running" in dealsearch("status", "--db", str(db)).stdout


def test_two_resumes_racing_for_a_stale_run_leave_it_one_owner(tmp_path: Path) -> None:
    db = tmp_path / "log.sqlite"
    dead = held(db, *CYCLES)
    dead.kill()
    dead.communicate()
    # Both wait for the write lock the test holds, and take the run over as soon as it is
    # free: one wins (and holds the run at its first find), the other is refused.
    lock = sqlite3.connect(db, isolation_level=None)
    lock.execute("BEGIN IMMEDIATE")
    racers = [search(db, "--resume", "1", hold=1) for _ in range(2)]
    lock.execute("ROLLBACK")
    lock.close()
    try:
        refused = None
        while refused is None:   # the loser's own exit says the race is over
            refused = next((r for r in racers if r.poll() is not None), None)
            time.sleep(0.05)
        winner = racers[1 - racers.index(refused)]
        _, err = refused.communicate()
        assert refused.returncode == 2, err
        assert f"run 1 is being played by pid {winner.pid} " in err
        assert winner.poll() is None
        with RecordLog(db, readonly=True) as log:
            assert owner_of(log.db, 1)["pid"] == winner.pid
    finally:
        for racer in racers:
            if racer.poll() is None:
                racer.send_signal(signal.SIGTERM)
            racer.communicate()
    assert winner.returncode == 143
    assert run_row(db)["status"] == "interrupted"


def stale_run(db: Path, host: str = "elsewhere", lease: float = -1.0, strategy: str = "random",
              options: dict[str, Any] | None = None) -> None:
    """A log with run 1 'running', owned by a process on ``host`` whose lease ends
    ``lease`` seconds from now."""
    with RecordLog(db) as log:
        run_id = log.start_run(strategy, options or {"strategy": "random", "deals": 1000,
                                                     "seed": 1, "workers": 1}, 1, 1, "beggar")
        now = time.time()
        log.db.execute("INSERT INTO owners VALUES (?, ?, ?, ?, ?, ?, ?)",
                       (run_id, "theirs", 4242, host, None, now - 60, now + lease))


def test_two_claims_racing_in_the_window_between_look_and_write_leave_one_owner(
        tmp_path: Path) -> None:
    db = tmp_path / "log.sqlite"
    stale_run(db)
    with RecordLog(db) as first, RecordLog(db) as second:
        ours, theirs = Owner.this_process(), Owner.this_process()

        def the_other_claims_first() -> None:  # both have judged the old owner gone
            claim(second.db, 1, theirs)

        with pytest.raises(RunOwned, match=f"run 1 is being played by pid {os.getpid()} "):
            claim(first.db, 1, ours, checked=the_other_claims_first)
        assert owner_of(first.db, 1)["token"] == theirs.token
        ownership.let_go(theirs.token)


def test_an_owner_on_another_machine_is_gone_only_when_its_lease_has_run_out(
        tmp_path: Path) -> None:
    live, gone = tmp_path / "live.sqlite", tmp_path / "gone.sqlite"
    stale_run(live, lease=+60.0)
    stale_run(gone, lease=-1.0)
    with RecordLog(live) as log, pytest.raises(
            RunOwned, match="run 1 is being played by pid 4242 on elsewhere since"):
        claim(log.db, 1, Owner.this_process())
    with RecordLog(gone) as log:
        mine = Owner.this_process()
        claim(log.db, 1, mine)
        assert owner_of(log.db, 1)["token"] == mine.token
        ownership.let_go(mine.token)


def test_an_owner_that_was_taken_over_stops_without_writing(tmp_path: Path,
                                                              monkeypatch: Any) -> None:
    monkeypatch.setattr("dealsearch.search.runner.COMMIT_SECONDS", 0.0)   # a commit a report
    monkeypatch.setattr("dealsearch.search.runner.MAX_UNITS", 1)
    spec = SearchSpec.from_json({"game": "beggar", "strategy": "random", "seed": 3, "workers": 1,
                                 "deals": 2_000_000})
    db = tmp_path / "log.sqlite"
    with RecordLog(db) as log:
        runner = Runner(spec, log, progress=False)
        save, saves = log.save, {"n": 0}

        def save_then_lose(*args: Any, **kwargs: Any) -> None:
            save(*args, **kwargs)
            saves["n"] += 1
            if saves["n"] == 3:  # the machine slept past its lease: another took the run
                log.db.execute("UPDATE owners SET token = 'another', pid = 4242,"
                               " host = 'elsewhere'")
                saves["deals"] = log.run(1)["deals"]

        log.save = save_then_lose  # type: ignore[method-assign]
        with pytest.raises(RunTakenOver, match=r"run 1 was taken over by pid 4242 on "
                                               r"elsewhere since .*without writing"):
            runner.run()
    after = run_row(db)
    assert after["status"] == "running", "the run is the new owner's: its status too"
    assert 0 < after["deals"] == saves["deals"] < 2_000_000
    with RecordLog(db, readonly=True) as log:
        assert owner_of(log.db, 1)["token"] == "another"


@pytest.mark.parametrize(("strategy", "options", "then"), [
    ("random", None, "continue with: dealsearch search --resume 1 --db {db}"),
    ("factory", None, "continue with: dealsearch factory --resume 1 --db {db}"),
    ("reverse", None, "continue with: dealsearch reverse --resume 1 --db {db}"),
])
def test_status_says_how_to_continue_a_stale_run_as_records_does(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], strategy: str,
        options: dict[str, Any] | None, then: str) -> None:
    db = tmp_path / "log.sqlite"
    stale_run(db, strategy=strategy, options=options)
    assert main(["status", "--db", str(db)]) == 0
    stale = capsys.readouterr().out.splitlines()[1]
    assert stale.startswith("  its owner, pid 4242 on elsewhere since"), stale
    assert stale.endswith(f", is gone: {then.format(db=db)}"), stale
