"""A game registered from outside the package runs through everything, with no framework
change: the contract, search (random and climb), the log, records, status and the report.

The game is ``dealsearch.examples.war.War``, a cut-down War in pure Python (see its module).
"""

from __future__ import annotations

import json

import pytest

from dealsearch.cli import main
from dealsearch.examples.war import register_war
from dealsearch.game import game_names
from dealsearch.log import RecordLog
from dealsearch.testing import CHECKS, Subject, climb_resumes_exactly

WAR = register_war()
CYCLE = "02313100/22311203"   # a deal that never ends (ties send cards back round and round)


@pytest.mark.parametrize("check", [  # a pure-Python climb of 3,000 games is slow
    pytest.param(check, marks=pytest.mark.slow) if check is climb_resumes_exactly else check
    for check in CHECKS], ids=lambda check: check.__name__)
def test_the_example_game_keeps_the_contract(check):
    check(Subject(WAR, ({}, {"values": 3, "max_rounds": 50}, {"values": 2}), (({}, CYCLE),),
                  rows=100))


@pytest.mark.slow
def test_the_example_game_runs_through_search_log_records_and_report(capsys, tmp_path):
    assert "war" in game_names()
    db = str(tmp_path / "log.sqlite")
    for strategy in ("random", "climb"):
        assert main(["search", strategy, "--game", "war", "--values", "4", "--deals", "1000",
                     "--workers", "1", "--seed", "2", "--db", db, "--json", "--quiet"]) == 0
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    summaries = [line for line in lines if "strategy" in line and "deals" in line
                 and "outcomes" in line]
    assert [s["deals"] for s in summaries] == [1000, 1000]
    with RecordLog(db, readonly=True) as log:
        runs = log.runs()
        finds = log.finds(game="war")
        cycles = log.cycles("war")
    assert {run["game"] for run in runs} == {"war"}
    assert any(f["outcome"] == "cycle" for f in finds)
    assert any(f["outcome"] == "win" for f in finds)
    assert not cycles  # War has no cycle catalogue: its cycles are finds, not named

    assert main(["records", "--game", "war", "--db", db]) == 0
    out = capsys.readouterr().out
    best = max(f["rounds"] for f in finds if f["outcome"] == "win")
    assert f"{best}" in out and "{'" not in out
    assert main(["verify", "--game", "war", CYCLE]) == 0
    assert "cycle" in capsys.readouterr().out
    assert main(["status", "--all", "--db", db]) == 0
    assert "war" in capsys.readouterr().out
    assert main(["bench", "--game", "war"]) == 2  # no yardstick, no speed table: one line
    assert "war has neither" in capsys.readouterr().err
    pytest.importorskip("matplotlib")
    assert main(["report", "--game", "war", "--db", db, "--out", str(tmp_path / "r")]) == 0
    page = (tmp_path / "r" / "index.html").read_text(encoding="utf-8")
    assert "4 values, at most 2,000 rounds" in page
