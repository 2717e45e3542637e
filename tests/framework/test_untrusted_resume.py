"""``--resume`` trusts the log only within limits: a log may come from anyone, so the spec it
holds is checked as a new run's is, its game and options agree with the run's own columns, and
its worker count starts at most this machine's cores unless the user says otherwise."""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path

import pytest

from dealsearch.cli import main
from dealsearch.log import RecordLog
from dealsearch.search.runner import Runner
from dealsearch.search.spec import SearchSpec

from conftest import ctrl_c_after_first_find

SPEC = {"strategy": "random", "seed": 5, "workers": 1, "deals": 400_000, "game": "spite"}


@pytest.fixture(scope="module")
def interrupted_once(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A log holding run 1: a Spite search interrupted after its first find (made once)."""
    db = tmp_path_factory.mktemp("interrupted") / "log.sqlite"
    with RecordLog(db) as log:
        summary = Runner(SearchSpec.from_json(SPEC), log, on_find=ctrl_c_after_first_find(),
                         progress=False).run()
    assert summary.status == "interrupted"
    return db


@pytest.fixture
def interrupted(interrupted_once: Path, tmp_path: Path) -> Path:
    """A copy of that log for one test to plant in and resume."""
    db = tmp_path / "log.sqlite"
    shutil.copyfile(interrupted_once, db)
    return db


def plant(db: Path, sql: str, *values: object) -> None:
    """Change the log as a stranger could, with sqlite3 directly."""
    with sqlite3.connect(db) as con:
        con.execute(sql, values)


def deals_played(db: Path) -> int:
    with sqlite3.connect(db) as con:
        return con.execute("SELECT deals FROM runs WHERE id = 1").fetchone()[0]


def resume(db: Path, capsys: pytest.CaptureFixture[str], *more: str) -> tuple[int, str, str]:
    status = main(["search", "--resume", "1", "--db", str(db), "--quiet", *more])
    out, err = capsys.readouterr()
    return status, out, err


def test_a_logged_worker_count_starts_at_most_the_cores(interrupted, capsys, monkeypatch):
    plant(interrupted, "UPDATE runs SET options = json_set(options, '$.workers', 24), "
                       "workers = 24 WHERE id = 1")
    monkeypatch.setattr("os.cpu_count", lambda: 2)
    status, out, _ = resume(interrupted, capsys)
    assert status == 0
    assert "resuming run 1: random search, Spite and Malice" in out and ", 2 workers," in out


def test_the_user_may_ask_for_more_workers_than_cores(interrupted, capsys, monkeypatch):
    monkeypatch.setattr("os.cpu_count", lambda: 1)
    status, out, _ = resume(interrupted, capsys, "--workers", "2", "--oversubscribe")
    assert status == 0
    assert ", 2 workers," in out


KEY = "recycle=bottom;side_piles=seed;policies=greedy,greedy;max_turns=none"


@pytest.mark.parametrize(("columns", "logged"), [
    ("game = 'durak', objective = 'cards'", f"durak ({KEY})"),
    ("options_key = 'recycle=shuffle'", "spite (recycle=shuffle)"),
])
def test_a_run_whose_columns_disagree_with_its_search_is_refused_unplayed(
        interrupted, capsys, columns, logged):
    before = deals_played(interrupted)
    plant(interrupted, f"UPDATE runs SET {columns} WHERE id = 1")
    status, out, err = resume(interrupted, capsys)
    assert status == 2 and not out
    assert err == (f"dealsearch: error: run 1 cannot be resumed: it is logged as a run of "
                   f"{logged}, but its search is of spite ({KEY})\n")
    assert deals_played(interrupted) == before


def test_a_run_whose_game_options_disagree_with_its_search_is_refused_unplayed(
        interrupted, capsys):
    before = deals_played(interrupted)   # readers describe its setting by these options
    plant(interrupted, "UPDATE runs SET game_options = json_set(game_options, '$.max_turns', "
                       "1000000000) WHERE id = 1")
    status, out, err = resume(interrupted, capsys)
    assert status == 2 and not out
    assert err == ("dealsearch: error: run 1 cannot be resumed: the game options logged with "
                   f"it are not those of its search ({KEY})\n")
    assert deals_played(interrupted) == before


@pytest.mark.parametrize(("field", "value", "says"), [
    ("workers", 100_000, "workers must be 1 to 4096"),
    ("workers", True, "workers must be a whole number, not True"),
    ("workers", "24", "workers must be a whole number, not '24'"),
    ("deals", 0, "deals must be 1 to"),   # no count at all: the log's rules refuse the row
    ("time", 0, "time must be a number of seconds above 0"),
    ("temperature", "hot", "--temperature is for climb searches"),   # a random run's
    ("seed", 1.5, "seed 1.5: a seed is a whole number"),
    ("stall", [1], "--stall is for climb searches"),
    ("settings", {"stall": 5}, "a random search takes no settings, not stall"),
    ("strategy", {"x": 1}, "strategy must be a name"),
    ("game_options", "deck", "game options must be a mapping"),
])
def test_every_logged_spec_field_is_checked_as_a_new_runs(interrupted, capsys, tmp_path,
                                                           field, value, says):
    before = deals_played(interrupted)
    plant(interrupted, f"UPDATE runs SET options = json_set(options, '$.{field}', json(?)) "
                       "WHERE id = 1", json.dumps(value))
    status, out, err = resume(interrupted, capsys)
    assert status == 2 and not out and err.count("\n") == 1
    assert err.startswith("dealsearch: error: run 1 cannot be resumed: ") and says in err
    assert deals_played(interrupted) == before


@pytest.mark.parametrize(("line", "says"), [
    ("workers = true", "workers must be a whole number, not True"),
    ("temperature = \"hot\"", "--temperature is for climb searches"),
    ("deals = 0", "deals must be 1 to"),
])
def test_a_new_runs_campaign_file_meets_the_same_checks(tmp_path, capsys, line, says):
    config = tmp_path / "campaign.toml"
    config.write_text(f'strategy = "random"\ngame = "spite"\n{line}\n', encoding="utf-8")
    status = main(["search", "--game", "spite", "--config", str(config),
                   "--db", str(tmp_path / "log.sqlite")])
    err = capsys.readouterr().err
    assert status == 2 and err.count("\n") == 1 and says in err
