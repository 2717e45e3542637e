"""``reverse --along`` as a run of the run service: through the runner on any workers it finds
the deals the serial walk finds, each once; an interrupted run resumes to the run left alone;
``records`` and ``status`` show it as any run."""

from __future__ import annotations

import json
import signal
import time

import pytest

from dealsearch.cli import main
from dealsearch.games.beggar.notation import STANDARD, parse_deal
from dealsearch.games.beggar.reverse import longer_starts
from dealsearch.games.beggar.reverse_strategy import ReverseStrategy
from dealsearch.log import RecordLog
from dealsearch.search.hooks import TestHooks

from conftest import start_cli

# Two shuffled deals: 96 and 18 longer deals within 8 tricks and 2,000 states a walk.
DEALS = ["------A-J------A-------KKQ/Q-Q----AJ----K-K-AQ-J---J-",
         "-KK---Q------AJ---AA------/J--KQ-------AKJ--J----Q-Q-"]
WALK = ["--tricks", "8", "--max-states", "2000"]


def serial(deal: str) -> list[tuple[str, int]]:
    """What walking back along the deal's game finds, in one process, in print order."""
    return [(text, result.cards) for text, result in
            longer_starts(parse_deal(deal, STANDARD), STANDARD, 8, 2000)]


def printed(capsys: pytest.CaptureFixture[str]) -> list[tuple[str, int]]:
    return [(find["deal"], find["cards"]) for find in
            map(json.loads, capsys.readouterr().out.splitlines())]


def logged(db) -> list[tuple[str, int]]:
    with RecordLog(db, readonly=True) as log:
        return sorted((find["deal"], find["measures"]["cards"]) for find in log.finds())


@pytest.mark.parametrize("deal", DEALS)
def test_the_walk_through_the_runner_finds_what_the_serial_walk_finds_each_once(
        capsys, tmp_path, deal):
    db = tmp_path / "log.sqlite"
    assert main(["reverse", "--along", deal, *WALK, "--workers", "2", "--json",
                 "--db", str(db)]) == 0
    found = printed(capsys)
    assert found == serial(deal) and found   # the same deals, once each, longest first
    assert logged(db) == sorted(found)


def test_an_interrupted_walk_resumes_to_the_walk_left_alone(capsys, tmp_path, monkeypatch):
    deal = DEALS[0]
    alone = tmp_path / "alone.sqlite"
    assert main(["reverse", "--along", deal, *WALK, "--workers", "2", "--json",
                 "--db", str(alone)]) == 0
    whole = printed(capsys)

    stopped = tmp_path / "stopped.sqlite"
    absorb, calls = ReverseStrategy.absorb, []

    def ctrl_c_at_task_four(self, report):
        calls.append(1)
        if len(calls) == 4:
            raise KeyboardInterrupt
        return absorb(self, report)

    monkeypatch.setattr(ReverseStrategy, "absorb", ctrl_c_at_task_four)
    assert main(["reverse", "--along", deal, *WALK, "--workers", "1", "--json",
                 "--db", str(stopped)]) == 130
    monkeypatch.undo()
    before = printed(capsys)
    with RecordLog(stopped, readonly=True) as log:
        (run,) = log.runs()
        assert run["status"] == "interrupted"
        assert 0 < run["checkpoint"]["strategy"]["settled"] < 8
    assert main(["records", "--db", str(stopped)]) == 0
    assert f"continue with: dealsearch reverse --resume 1 --db {stopped}" in \
        capsys.readouterr().out
    assert main(["reverse", "--resume", "1", "--workers", "2", "--json",
                 "--db", str(stopped)]) == 0
    after = printed(capsys)
    # every deal reported once, in one session or the other; the log holds the same
    assert sorted(before + after) == sorted(whole)
    assert logged(stopped) == logged(alone)
    with RecordLog(stopped, readonly=True) as log:
        (run,) = log.runs()
        (left_alone,) = RecordLog(alone, readonly=True).runs()
        assert run["status"] == "done"
        assert (run["deals"], run["outcomes"]) == (left_alone["deals"], left_alone["outcomes"])


def test_records_and_status_show_a_walk_as_any_run(capsys, tmp_path):
    db = tmp_path / "log.sqlite"
    assert main(["reverse", "--along", DEALS[1], *WALK, "--workers", "1", "--db", str(db)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[-1] == f"{len(serial(DEALS[1]))} longer deals, logged as run 1 in {db}"
    assert main(["status", "--all", "--db", str(db)]) == 0
    status = capsys.readouterr().out
    assert "run 1 done: reverse run of beggar (standard rules, 2 players)" in status, status
    assert main(["records", "--db", str(db)]) == 0
    (longest, cards) = serial(DEALS[1])[0]
    assert any(line.split()[1] == str(cards) and line.split()[4:] == ["reverse", longest]
               for line in capsys.readouterr().out.splitlines()[3:])
    assert main(["reverse", "--resume", "1", "--db", str(db)]) == 2
    assert "already done" in capsys.readouterr().err


@pytest.mark.parametrize(("argv", "message"), [
    (["reverse", "--resume", "1", "--tricks", "3"], "--resume continues the walk"),
    (["reverse", "--resume", "1", DEALS[0]], "--resume continues the walk"),
    (["reverse", "--resume", "7"], "no run 7"),
    (["reverse", "--along"], "give the DEAL"),
])
def test_a_bad_resume_is_one_line_and_exit_2(capsys, tmp_path, argv, message):
    db = tmp_path / "log.sqlite"
    assert main(["reverse", "--along", DEALS[1], "--tricks", "1", "--max-states", "50",
                 "--db", str(db)]) == 0
    capsys.readouterr()
    assert main([*argv, "--db", str(db)]) == 2
    err = capsys.readouterr().err
    assert message in err and len(err.strip().splitlines()) == 1, err


def test_a_walk_killed_after_a_find_keeps_what_it_printed_and_resumes(capsys, tmp_path):
    """kill (SIGTERM) a real process held after its first committed find (a test hook):
    interrupted, exit 143, every deal it printed logged; --resume logs what the walk left
    alone logs."""
    deal, alone, killed = DEALS[0], tmp_path / "alone.sqlite", tmp_path / "killed.sqlite"
    # 30 walks of a second or two in all: finds are committed (and held at) before the end
    walk = ["--tricks", "30", "--max-states", "5000"]
    assert main(["reverse", "--along", deal, *walk, "--workers", "2", "--json",
                 "--db", str(alone)]) == 0
    capsys.readouterr()
    process = start_cli("reverse", "--along", deal, *walk, "--workers", "1", "--json",
                        "--db", str(killed), hooks=TestHooks(hold_after_finds=1))
    give_up = time.monotonic() + 120
    while not (killed.exists() and logged(killed)):   # held once its first find is told
        assert process.poll() is None and time.monotonic() < give_up, process.stderr.read()
        time.sleep(0.05)
    process.send_signal(signal.SIGTERM)
    out, err = process.communicate(timeout=60)
    assert process.returncode == 143, err
    told = [(find["deal"], find["cards"]) for find in map(json.loads, out.splitlines())]
    with RecordLog(killed, readonly=True) as log:
        (run,) = log.runs()
        assert run["status"] == "interrupted"
        assert run["checkpoint"]["strategy"]["settled"] < 30
    assert told and set(told) <= set(logged(killed))
    assert main(["reverse", "--resume", "1", "--workers", "1", "--json",
                 "--db", str(killed)]) == 0
    assert logged(killed) == logged(alone)
