"""What people read is readable (issue 35 item 8): settings in words where the start line says
them so, each setting ranked in a table of its own, budgets and times as they were, numbers
formatted alike everywhere."""

from __future__ import annotations

import re
import sqlite3

import pytest

from dealsearch.cli import main
from dealsearch.log import RecordLog
from dealsearch.search.runner import Runner
from dealsearch.search.spec import SearchSpec

from conftest import ctrl_c_after_first_find


def out(capsys: pytest.CaptureFixture[str], *argv: str, status: int = 0) -> str:
    capsys.readouterr()
    assert main(list(argv)) == status
    return capsys.readouterr().out


@pytest.fixture(scope="module")
def two_settings(tmp_path_factory: pytest.TempPathFactory) -> str:
    """A log with BMN finds of an 11-card deck and of Italian rules, with budgets."""
    db = str(tmp_path_factory.mktemp("log") / "log.sqlite")
    for setting in (["--deck", "------JJQQK", "--deals", "20000"],
                    ["--rules", "italian", "--time", "0.3s"]):
        assert main(["search", "random", *setting, "--seed", "1", "--workers", "1", "--quiet",
                     "--json", "--db", db]) == 0
    return db


def test_status_says_the_setting_in_words(two_settings, capsys):
    listing = out(capsys, "status", "--all", "--db", two_settings)
    assert "random search of beggar (standard rules, 2 players, deck ------JJQQK)" in listing
    assert "rules=" not in listing


def test_records_ranks_each_setting_in_a_table_headed_by_it(two_settings, capsys):
    listing = out(capsys, "records", "--db", two_settings)
    assert sorted(re.findall(r"^beggar: .*$", listing, flags=re.M)) == [
        "beggar: italian rules, 2 players",
        "beggar: standard rules, 2 players, deck ------JJQQK"]
    assert "No budget" not in listing and "So far (" in listing


def test_a_tiny_run_says_milliseconds_and_an_exhaustive_one_no_seed(tmp_path, capsys):
    listing = out(capsys, "search", "exhaustive", "--deck", "------JJQQK", "--workers", "1",
                  "--quiet", "--db", str(tmp_path / "log.sqlite"))
    assert "seed" not in listing.splitlines()[0]
    assert " 0.0 s" not in listing and re.search(r"deals in (\d+ ms|[\d.]+ s) \(", listing), listing


def test_a_resumed_runs_summary_says_which_figures_are_this_sessions(tmp_path, capsys):
    db = tmp_path / "log.sqlite"
    spec = SearchSpec.from_json({"game": "beggar", "strategy": "random", "deals": 300_000,
                                 "seed": 1, "workers": 1})
    with RecordLog(db) as log:   # Ctrl-C after the first find
        stopped = Runner(spec, log, on_find=ctrl_c_after_first_find(), progress=False).run()
    assert stopped.status == "interrupted"
    summary = next(line for line in out(capsys, "search", "--resume", "1", "--quiet",
                                        "--db", str(db)).splitlines()
                   if line.startswith("run 1"))
    assert re.fullmatch(r"run 1 done: 300,000 deals in .* in all \(.*\); this session .* wall",
                        summary), summary


def test_the_factory_formats_its_numbers_like_every_command(tmp_path, capsys):
    last = out(capsys, "factory", "--nodes", "5", "--workers", "1", "--quiet", "--db",
               str(tmp_path / "log.sqlite")).splitlines()[-1]
    played = re.search(r"([\d,]+) games played", last)
    assert played and "," in played.group(1), last
    # text.duration: "0.6 s", and "1 s" where the tenths are 0 (a fast machine's run)
    assert re.match(r"\d+(\.\d)? s, ", last), last


def test_a_factory_runs_node_budget_is_said_at_the_start_and_by_status(tmp_path, capsys):
    """``--nodes`` is the factory's budget (a setting of its strategy): said as a search's is,
    never "no budget"."""
    db = str(tmp_path / "log.sqlite")
    first = out(capsys, "factory", "--nodes", "5", "--time", "10m", "--workers", "1", "--db",
                db).splitlines()[0]
    assert "; budget 10 min or 5 cycles to expand, whichever comes first; log " in first, first
    listing = out(capsys, "status", "--all", "--db", db)
    assert "; budget 10 min or 5 cycles to expand" in listing and "no budget" not in listing
    # a budget a log holds that is no count (a crafted log) is not shown, and no traceback
    with sqlite3.connect(db) as con:
        con.execute("UPDATE runs SET options = json_set(options, '$.settings.max_nodes', 'x')")
    con.close()
    crafted = out(capsys, "status", "--all", "--db", db)
    assert "cycles to expand" not in crafted and "budget 10 min" in crafted, crafted
    # it counts no outcomes and keeps no best game: status says where its finds are instead
    assert "outcomes:" not in listing and "best so far" not in listing, listing
    assert f"dealsearch records --run 1 --db {db} lists what it found" in listing, listing
