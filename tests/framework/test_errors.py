"""Every failure a user can meet, through the real command line: one line, its exit status, and
no run left 'running' in the log. The README's table "Errors and exit status" is this file."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from dealsearch.cli import main
from dealsearch.errors import BadInput, DealsearchError, NotATextFile, RunFailed
from dealsearch.search import runner
from dealsearch.search.random_search import RandomSearch

from deals import RECORD

SEED_RANGE = "a seed is a whole number from 0 to 9223372036854775807"


def statuses(db: Path) -> list[str]:
    """The status of every run in the log (none if there is no log)."""
    if not db.exists():
        return []
    return [row[0] for row in sqlite3.connect(db).execute("SELECT status FROM runs ORDER BY id")]


def one_line(capsys: pytest.CaptureFixture[str], argv: list[str]) -> tuple[int, str]:
    status = main(argv)
    err = capsys.readouterr().err
    lines = err.splitlines()
    assert len(lines) == 1, err
    return status, lines[0]


def test_the_error_types_carry_their_exit_status():
    assert issubclass(NotATextFile, BadInput) and issubclass(RunFailed, DealsearchError)
    assert BadInput("x").exit_status == 2 and RunFailed("x").exit_status == 1
    from dealsearch.commandline.options import BadInput as FromOptions
    assert FromOptions is BadInput


@pytest.mark.parametrize(("argv", "line"), [
    (["search", "random", "--seed", "-5"], f"argument --seed: '-5': {SEED_RANGE}"),
    (["search", "random", "--seed", "12345678901234567890123"],
     f"argument --seed: '12345678901234567890123': {SEED_RANGE}"),
    (["search", "climb", "--seed", "-12"], f"argument --seed: '-12': {SEED_RANGE}"),
    (["search", "random", "--seed", "18446744073709551615"],  # a uint64, but not a SQLite int
     f"argument --seed: '18446744073709551615': {SEED_RANGE}"),
    (["bench", "--seed", "-1"], f"argument --seed: '-1': {SEED_RANGE}"),
])
def test_a_seed_out_of_range_is_refused_when_the_options_are_read(capsys, tmp_path, argv, line):
    db = tmp_path / "log.sqlite"
    status, err = one_line(capsys, [*argv, "--deals", "1000", "--workers", "1", "--db", str(db)]
                           if argv[0] == "search" else argv)
    assert (status, err) == (2, f"dealsearch: error: {line}")
    assert not db.exists()


def test_a_seed_in_a_campaign_file_is_checked_too(capsys, tmp_path):
    config = tmp_path / "campaign.toml"
    config.write_text('strategy = "random"\nseed = -5\ndeals = 1000\n', encoding="utf-8")
    db = tmp_path / "log.sqlite"
    status, err = one_line(capsys, ["search", "--config", str(config), "--db", str(db)])
    assert (status, err) == (2, f"dealsearch: error: seed -5: {SEED_RANGE}")
    assert not db.exists()


@pytest.fixture()
def not_a_log(tmp_path: Path) -> Path:
    path = tmp_path / "notes.sqlite"
    path.write_text("these are my notes, not a database\n", encoding="utf-8")
    return path


@pytest.mark.parametrize("command", [
    ["records"], ["records", "--cycles"], ["report", "--out", "report"],
    ["search", "random", "--deals", "1000", "--workers", "1"], ["search", "--resume", "1"],
    ["reverse", "--along", "--tricks", "1", RECORD],
])
def test_a_log_that_is_not_sqlite_is_one_line(capsys, monkeypatch, tmp_path, not_a_log,
                                              command):
    monkeypatch.chdir(tmp_path)
    status, err = one_line(capsys, [*command, "--db", str(not_a_log)])
    assert (status, err) == (
        2, f"dealsearch: error: {not_a_log} is not a dealsearch log (not a SQLite database)")
    assert not_a_log.read_text(encoding="utf-8").startswith("these are my notes")


def test_a_log_in_a_missing_directory_is_refused_before_any_worker_starts(capsys, tmp_path,
                                                                          monkeypatch):
    def no_backend(*args: object) -> None:
        raise AssertionError("a backend was started")

    monkeypatch.setattr("dealsearch.commandline.service.open_backend", no_backend)
    db = tmp_path / "missing" / "dir" / "x.sqlite"
    status, err = one_line(capsys, ["search", "random", "--deals", "1000", "--db", str(db)])
    assert (status, err) == (
        2, f"dealsearch: error: no directory {db.parent} for the log {db}")
    assert not (tmp_path / "missing").exists()


@pytest.mark.parametrize("command", [["records"], ["search", "random", "--deals", "10"]])
def test_a_log_path_that_is_a_directory_is_one_line(capsys, tmp_path, monkeypatch, command):
    monkeypatch.setattr("dealsearch.commandline.service.open_backend", None)  # never reached
    status, err = one_line(capsys, [*command, "--db", str(tmp_path)])
    assert (status, err) == (2, f"dealsearch: error: {tmp_path} is a directory, not a log")


def test_verify_says_what_is_wrong_with_a_file(capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    Path("deals.bin").write_bytes(bytes(range(256)))
    Path("nul.txt").write_bytes(b"---A\0")
    Path("folder").mkdir()
    cases = {"deals.bin": "deals.bin is not a text file (not UTF-8 text)",
             "nul.txt": "nul.txt is not a text file (not UTF-8 text)",
             "folder": "folder is a directory, not a file of deals",
             "deals.txt": "no such file: deals.txt",
             "deals": "no such file: deals",
             "data/published_deals.csv": "no such file: data/published_deals.csv"}
    for argument, line in cases.items():
        assert one_line(capsys, ["verify", argument]) == (2, f"dealsearch: error: {line}")
    # Something that can only be a deal is still reported as one.
    assert one_line(capsys, ["verify", "--Z-/---"]) == (
        2, "dealsearch: error: hand 1, position 3: unknown card 'Z'")
    assert one_line(capsys, ["verify", "KH 4C QX / 2D AS"]) == (
        2, "dealsearch: error: hand 1, position 4: unknown card 'X'")


def _fail_on_purpose(spec: object, task: object) -> None:
    raise RuntimeError("failed on purpose")


@pytest.fixture()
def failing_random_search(monkeypatch: pytest.MonkeyPatch) -> None:
    """Random-search tasks raise in the worker. Local workers are forked from this process
    (and Dask workers in threads run in it), so they see the patched strategy."""
    monkeypatch.setattr(RandomSearch, "work", staticmethod(_fail_on_purpose))


def test_a_worker_that_raises_fails_the_run_and_resume_finishes_it(capsys, tmp_path,
                                                                   monkeypatch,
                                                                   failing_random_search):
    db = tmp_path / "log.sqlite"
    status, err = one_line(capsys, ["search", "random", "--deals", "250000", "--workers", "1",
                                    "--seed", "4", "--db", str(db)])
    assert (status, err) == (
        1, "dealsearch: error: run 1 failed: a worker raised RuntimeError: failed on purpose; "
           f"continue with: dealsearch search --resume 1 --db {db}")
    assert statuses(db) == ["failed"]
    assert main(["records", "--db", str(db)]) == 0
    assert (f"run 1 failed: random search, 0 deals; continue with: dealsearch search --resume 1 "
            f"--db {db}") in capsys.readouterr().out

    monkeypatch.undo()  # the worker is mended: the run resumes to its budget
    assert main(["search", "--resume", "1", "--db", str(db), "--json", "--quiet"]) == 0
    summary = json.loads(capsys.readouterr().out.splitlines()[-1])
    assert summary["deals"] == 250000 == sum(summary["outcomes"].values())
    assert statuses(db) == ["done"]


def test_a_failed_run_prints_its_summary_before_the_error(capsys, tmp_path,
                                                          failing_random_search):
    db = tmp_path / "log.sqlite"
    assert main(["search", "random", "--deals", "1000", "--workers", "1", "--seed", "4",
                 "--db", str(db), "--json"]) == 1
    captured = capsys.readouterr()
    assert json.loads(captured.out.splitlines()[-1])["run_id"] == 1
    assert captured.err.startswith("dealsearch: error: run 1 failed: a worker raised")
    assert statuses(db) == ["failed"]


def test_a_dask_worker_that_raises_fails_the_run(capsys, tmp_path, failing_random_search):
    distributed = pytest.importorskip("distributed")
    db = tmp_path / "log.sqlite"
    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=False,
                                  dashboard_address=":0") as cluster:
        status, err = one_line(capsys, ["search", "random", "--deals", "1000", "--seed", "4",
                                        "--scheduler", cluster.scheduler_address,
                                        "--db", str(db)])
    assert (status, err) == (
        1, "dealsearch: error: run 1 failed: a worker raised RuntimeError: failed on purpose; "
           f"continue with: dealsearch search --resume 1 --db {db} --backend dask "
           f"--scheduler {cluster.scheduler_address}")
    assert statuses(db) == ["failed"]


def test_dask_workers_that_keep_dying_fail_the_run_in_one_line(capsys, tmp_path, monkeypatch):
    pytest.importorskip("distributed")
    import dask

    from dealsearch.search.backends import DaskBackend

    def die(self: DaskBackend, fn: object, *args: object) -> object:
        return self.executor.submit(os._exit, 1)  # the worker process dies at once

    monkeypatch.setattr(DaskBackend, "submit", die)
    db = tmp_path / "log.sqlite"
    # One death is enough for KilledWorker (the default, 3, only makes the test slower).
    with dask.config.set({"distributed.scheduler.allowed-failures": 0}):
        status, err = one_line(capsys, ["search", "random", "--deals", "1000", "--workers", "1",
                                        "--backend", "dask", "--db", str(db)])
    assert (status, err) == (
        1, "dealsearch: error: run 1 failed: the Dask workers running one task died again and "
           "again (KilledWorker): see the workers' logs; continue with: dealsearch search "
           f"--resume 1 --db {db} --backend dask")
    assert statuses(db) == ["failed"]


def test_a_failure_in_the_coordinator_never_leaves_the_run_running(capsys, tmp_path,
                                                                   monkeypatch):
    def broken(self: object, *args: object) -> None:
        raise RuntimeError("a bug in absorbing a report")

    monkeypatch.setattr(runner.Runner, "_absorb", broken)
    db = tmp_path / "log.sqlite"
    with pytest.raises(RuntimeError, match="a bug in absorbing"):  # a bug keeps its traceback
        main(["search", "random", "--deals", "1000", "--workers", "1", "--db", str(db)])
    assert statuses(db) == ["failed"]


def dealsearch_script() -> str:
    return str(Path(sys.executable).with_name("dealsearch"))


@pytest.mark.parametrize(("argv", "line"), [
    (["search", "random", "--seed", "-5", "--deals", "1000"], f"argument --seed: '-5': "
                                                              f"{SEED_RANGE}"),
    (["records"], "{db} is not a dealsearch log (not a SQLite database)"),
])
def test_the_console_script_prints_one_line_and_exits_2(tmp_path, argv, line):
    db = tmp_path / "log.sqlite"
    if argv == ["records"]:
        db.write_bytes(b"\x89PNG\r\n\x1a\n" + bytes(100))
    done = subprocess.run([dealsearch_script(), *argv, "--db", str(db)], capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == 2
    assert done.stderr.splitlines() == [f"dealsearch: error: {line.format(db=db)}"]
    if argv[0] == "search":
        assert not db.exists(), "no run is started"


def test_binary_standard_input_is_one_line(capsys, monkeypatch):
    import io

    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(b"\xff\xfe---A\n"),
                                                      encoding="utf-8"))
    assert one_line(capsys, ["verify", "-"]) == (
        2, "dealsearch: error: standard input is not text (not UTF-8 text)")


POSITION_B = ('{"payoff": ["85", "47"], "hand": ["A7342", ""], "side": [["","","",""], '
              '["","","",""]], "centre": ["","","",""], "stock": "QK5TJ689", "turn": TURN}')


@pytest.mark.parametrize(("argv", "line"), [
    (["verify", "--game", "spite", '{"payoff":["85","47"]}'], "position: missing key 'hand'"),
    (["verify", "--game", "durak", "hands=9C/8C;trump=X"], "bad trump suit 'X'"),
    (["verify", "--game", "spite", POSITION_B.replace("TURN", "1.0")],
     "position: 'turn' must be 1 or 2, not 1.0"),
    (["verify", "--game", "durak", "--max-bouts", "9" * 20, "hands=8D/8C; trump=H"],
     f"max_bouts {'9' * 20} is out of range"),
    (["verify", "--game", "spite", "--max-turns", "9" * 20, POSITION_B.replace("TURN", "1")],
     f"max-turns: {'9' * 20} is out of range"),
    (["search", "random", "--game", "durak", "--max-bouts", "9" * 20, "--deals", "10"],
     f"max_bouts {'9' * 20} is out of range"),
])
def test_bad_input_of_other_games_is_one_line_naming_it(capsys, tmp_path, monkeypatch, argv,
                                                         line):
    """A malformed position is not taken for a misspelt file name; a limit past what the
    engine counts is refused when read, before any run is logged."""
    monkeypatch.chdir(tmp_path)
    status, err = one_line(capsys, argv)
    assert status == 2 and line in err, err
    assert statuses(tmp_path / "dealsearch.sqlite") == []
