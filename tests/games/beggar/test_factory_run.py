"""The factory as a run: a round's outcome does not depend on the workers, a checkpoint
continues a run exactly, an interrupted command resumes to the run left alone, and every
whole-deck cycle it reports is in the log."""

from __future__ import annotations

import json
import os
import platform
import signal
import sqlite3
import subprocess
import sys

import pytest

from dealsearch.cli import main
from dealsearch.games.beggar.factory import find_loop
from dealsearch.games.beggar.factory_run import Factory, Node, Settings, expand_node, task_args
from dealsearch.games.beggar.notation import STANDARD, parse_deal
from dealsearch.log import RecordLog
from dealsearch.search.hooks import TestHooks

from conftest import run_cli, start_cli
from deals import CASELLA_LESS_A_JACK

SMALL = Settings("standard", seed=5, max_nodes=6, width=2, samples=96, max_states=2000)


def seeds() -> list[Node]:
    return [Node.of(find_loop(parse_deal(CASELLA_LESS_A_JACK, deck="any")), STANDARD)]


def run_alone(settings: Settings = SMALL) -> tuple[list[str], dict]:
    factory = Factory(settings, seeds())
    found = [child.node.key for child in factory.run_serial()]
    return found, factory.checkpoint()


def test_a_checkpoint_continues_the_run_exactly_as_the_run_left_alone():
    found, final = run_alone()
    assert found, "the small run builds whole-deck cycles"
    factory = Factory(SMALL, seeds())
    first = []
    for _ in range(2):  # two rounds, then stop between rounds
        first += [c.node.key for c in factory.absorb(
            [expand_node(*task_args(SMALL, task)) for task in factory.next_round()])]
    saved = json.loads(json.dumps(factory.checkpoint()))  # as the log stores it
    resumed = Factory(SMALL, seeds(), saved)
    rest = [child.node.key for child in resumed.run_serial()]
    assert first + rest == found
    ours = resumed.checkpoint()
    for part in ("frontier", "seen", "yielded", "rng", "best", "expanded"):
        assert ours[part] == final[part], part
    assert {k: v for k, v in ours["stats"].items() if k != "seconds"} == \
        {k: v for k, v in final["stats"].items() if k != "seconds"}


def test_a_round_is_the_same_whatever_the_order_its_tasks_finish_in():
    """Reports are taken in task order: a worker finishing first changes nothing."""
    factory = Factory(SMALL, seeds())
    tasks = factory.next_round()
    reports = [expand_node(*task_args(SMALL, task)) for task in reversed(tasks)][::-1]
    again = [expand_node(*task_args(SMALL, task)) for task in tasks]
    assert [[c.node for c in children] for children, _ in reports] == \
        [[c.node for c in children] for children, _ in again]


def finds_of(db) -> list[tuple[str, str]]:
    with RecordLog(db, readonly=True) as log:
        return sorted((find["deal"], find["cycle_id"]) for find in log.finds())


ARGS = ["factory", "--start", CASELLA_LESS_A_JACK, "--seed", "5", "--nodes", "6",
        "--width", "2", "--samples", "96", "--max-states", "2000", "--json"]


def test_an_interrupted_run_resumes_to_the_run_left_alone(capsys, tmp_path, monkeypatch):
    alone = tmp_path / "alone.sqlite"
    assert main([*ARGS, "--workers", "2", "--db", str(alone)]) == 0
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    summary = lines[-1]
    reported = {line["cycle_id"] for line in lines[:-1]}
    assert summary["full"] == len(reported) > 0
    with RecordLog(alone, readonly=True) as log:  # every find it reported is logged
        assert reported <= {find["cycle_id"] for find in log.finds()}

    stopped = tmp_path / "stopped.sqlite"
    absorb, rounds = Factory.absorb, []

    def ctrl_c_in_round_three(self, reports):
        rounds.append(1)
        if len(rounds) == 3:
            raise KeyboardInterrupt
        return absorb(self, reports)

    monkeypatch.setattr(Factory, "absorb", ctrl_c_in_round_three)
    assert main([*ARGS, "--workers", "1", "--db", str(stopped)]) == 130
    monkeypatch.undo()
    capsys.readouterr()
    with RecordLog(stopped, readonly=True) as log:
        (run,) = log.runs()
        assert run["status"] == "interrupted"
    assert main(["records", "--db", str(stopped)]) == 0
    assert f"continue with: dealsearch factory --resume 1 --db {stopped}" in \
        capsys.readouterr().out
    assert main(["factory", "--resume", "1", "--workers", "2", "--json",
                 "--db", str(stopped)]) == 0
    resumed = json.loads(capsys.readouterr().out.splitlines()[-1])
    for key in ("nodes", "played", "cycles", "nearest", "full", "with_starts", "periods"):
        assert resumed[key] == summary[key], key
    assert finds_of(stopped) == finds_of(alone)
    with RecordLog(stopped, readonly=True) as log:
        assert [run["status"] for run in log.runs()] == ["done"]


@pytest.mark.parametrize(("argv", "message"), [
    (["factory", "--resume", "1", "--nodes", "3"], "--resume continues the run"),
    (["factory", "--resume", "7"], "no run 7"),
])
def test_a_bad_resume_is_one_line_and_exit_2(capsys, tmp_path, argv, message):
    db = tmp_path / "log.sqlite"
    assert main([*ARGS, "--nodes", "1", "--db", str(db)]) == 0
    capsys.readouterr()
    assert main([*argv, "--db", str(db)]) == 2
    err = capsys.readouterr().err
    assert message in err and len(err.strip().splitlines()) == 1


def test_a_done_run_is_not_resumed(capsys, tmp_path):
    db = tmp_path / "log.sqlite"
    assert main([*ARGS, "--nodes", "1", "--db", str(db)]) == 0
    capsys.readouterr()
    assert main(["factory", "--resume", "1", "--db", str(db)]) == 2
    assert "already done" in capsys.readouterr().err


def test_a_dask_cluster_builds_what_one_local_worker_builds(capsys, tmp_path):
    pytest.importorskip("distributed")
    summaries = []
    for backend in (["--workers", "1"], ["--backend", "dask", "--workers", "2"]):
        db = tmp_path / f"{backend[1]}.sqlite"
        assert main([*ARGS, *backend, "--db", str(db)]) == 0
        summaries.append(json.loads(capsys.readouterr().out.splitlines()[-1]))
        summaries[-1].pop("seconds")
    assert summaries[0] == summaries[1]
    assert finds_of(tmp_path / "1.sqlite") == finds_of(tmp_path / "dask.sqlite")


def test_a_run_killed_after_a_find_keeps_it_and_resumes_to_the_run_left_alone(capsys, tmp_path):
    """kill (SIGTERM) a real process once it has printed a find (it holds there: a test
    hook), then --resume on other workers: the same finds and summary as the run alone."""
    alone, killed = tmp_path / "alone.sqlite", tmp_path / "killed.sqlite"
    argv = [*ARGS[:6], "12", *ARGS[7:]]  # 12 nodes: rounds left after the first find
    assert main([*argv, "--workers", "1", "--db", str(alone)]) == 0
    summary = json.loads(capsys.readouterr().out.splitlines()[-1])
    process = start_cli(*argv, "--workers", "2", "--db", str(killed), stderr=None,
                        hooks=TestHooks(hold_after_finds=1))
    first = json.loads(process.stdout.readline())  # printed: so committed
    process.send_signal(signal.SIGTERM)
    assert process.wait(timeout=60) == 143
    process.stdout.close()
    with RecordLog(killed, readonly=True) as log:
        (run,) = log.runs()
        assert run["status"] == "interrupted"
        assert first["cycle_id"] in {find["cycle_id"] for find in log.finds()}
        assert run["checkpoint"]["strategy"]["factory"]["stats"]["nodes"] < summary["nodes"]
    assert main(["factory", "--resume", "1", "--workers", "1", "--json",
                 "--db", str(killed)]) == 0
    resumed = json.loads(capsys.readouterr().out.splitlines()[-1])
    for key in ("nodes", "played", "cycles", "nearest", "full", "with_starts", "closest"):
        assert resumed[key] == summary[key], key
    assert finds_of(killed) == finds_of(alone)


def test_a_factory_run_has_one_owner_and_a_group_sigterm_ends_it_interrupted(tmp_path):
    """A live owner's run is refused to a second --resume in one line naming it (exit 2);
    one killed outright shows stale and is taken over by a --resume, whose run another
    --resume is refused; SIGTERM to the taker's whole process group (its workers die with
    it, mid-round) ends it interrupted, exit 143, no traceback, its run let go."""
    db = tmp_path / "log.sqlite"
    # 10 minutes: a budget no step of this test reaches; 16 a round on 1 worker: tasks queued
    argv = [*ARGS[:5], "--time", "10m", "--width", "16", *ARGS[11:13], "--workers", "1",
            "--db", str(db)]
    first = start_cli(*argv, "--json", hooks=TestHooks(hold_after_finds=1))
    try:
        json.loads(first.stdout.readline())     # told its first find, and holds there
        refused = run_cli("factory", "--resume", "1", "--db", str(db))
        assert refused.returncode == 2
        assert len(refused.stderr.splitlines()) == 1
        assert refused.stderr.startswith(f"dealsearch: error: run 1 is being played by pid "
                                         f"{first.pid} on {platform.node()} since 20")
        assert run_cli("status", "--db", str(db)).stdout.startswith(
            "run 1 running: factory run of beggar")
    finally:
        first.kill()   # SIGKILL: the owner dies without a word
        first.communicate()
    status = run_cli("status", "--db", str(db)).stdout
    assert status.startswith("run 1 stale: factory run of beggar"), status
    assert f"continue with: dealsearch factory --resume 1 --db {db}" in status, status
    assert "left of 10 min" in status, status      # the factory's own budget

    taker = start_cli("factory", "--resume", "1", "--workers", "1", "--db", str(db))
    try:
        assert taker.stdout.readline().startswith("resuming run 1: factory")   # it owns it
        second = run_cli("factory", "--resume", "1", "--db", str(db))
        assert second.returncode == 2, second.stderr
        assert second.stderr.startswith(f"dealsearch: error: run 1 is being played by pid "
                                        f"{taker.pid} on ")
        assert len(second.stderr.splitlines()) == 1
    finally:
        os.killpg(taker.pid, signal.SIGTERM)   # as `timeout` or a service manager stops it
        out, err = taker.communicate(timeout=120)
    assert taker.returncode == 143, err
    assert "Traceback" not in err and "InvalidStateError" not in err, err
    assert f"continue with: dealsearch factory --resume 1 --db {db}" in out
    with sqlite3.connect(db) as log:
        assert log.execute("SELECT status FROM runs").fetchall() == [("interrupted",)]
        assert log.execute("SELECT count(*) FROM owners").fetchone() == (0,)   # let go
    log.close()


def closed_pipe() -> int:
    """The writing end of a pipe whose reader is gone (as after ``| true``)."""
    read, write = os.pipe()
    os.close(read)
    return write


FACTORY = [sys.executable, "-m", "dealsearch", *ARGS[:-1], "--workers", "1"]


def run_status(db) -> tuple[str, int]:
    with sqlite3.connect(db) as log:
        row = log.execute("SELECT status, json_extract(checkpoint, "
                          "'$.strategy.factory.stats.nodes') FROM runs").fetchone()
    log.close()
    return row


@pytest.mark.parametrize("stream", ["stdout", "both"])
def test_a_closed_output_never_fails_a_factory_run_it_goes_on_to_its_budget(tmp_path, stream):
    db = tmp_path / "log.sqlite"
    write = closed_pipe()
    err = (tmp_path / "err.txt").open("w")
    done = subprocess.run([*FACTORY, "--db", str(db)], stdout=write,
                          stderr=write if stream == "both" else err, timeout=300)
    os.close(write)
    err.close()
    assert done.returncode == 0
    assert run_status(db) == ("done", 6)
    assert (tmp_path / "err.txt").read_text() == ""


def test_a_factory_run_piped_into_head_plays_its_budget(tmp_path):
    db = tmp_path / "log.sqlite"
    # a time budget: its summary is written long after the reader is gone
    timed = [*FACTORY[:3], *ARGS[:5], "--time", "2s", *ARGS[7:-1], "--workers", "1"]
    factory = subprocess.Popen([*timed, "--db", str(db)],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    first = factory.stdout.readline()     # head -1, then gone
    factory.stdout.close()
    err = factory.stderr.read()
    assert factory.wait(timeout=300) == 0, err
    assert first.startswith("starting run 1: factory")
    assert run_status(db)[0] == "done"
    assert err == ""


@pytest.mark.parametrize("every_core", ["0", "auto"])
def test_workers_0_or_auto_is_every_core(capsys, tmp_path, every_core):
    db = tmp_path / "log.sqlite"
    assert main([*ARGS[:-1], "--workers", every_core, "--quiet", "--db", str(db)]) == 0
    assert f"{os.cpu_count()} workers" in capsys.readouterr().out.splitlines()[0]
