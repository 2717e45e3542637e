"""A run that cannot be resumed says so everywhere, and no command suggests resuming it.

``log recover`` keeps a run whose row it cannot read whole as a failed run of strategy
``lost`` (its finds keep their run), without what would resume it: ``records``, ``search
--resume`` and ``factory --resume`` used to send the user from one to the other, and
``status`` said nothing of it but "best so far: none yet".
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from dealsearch.cli import main
from dealsearch.log import LOST


@pytest.fixture
def log_with_a_lost_run(tmp_path: Path) -> str:
    """A log whose run 1 is what ``log recover`` keeps of a factory run it could not read
    whole (the options it could read: their way to resume; no checkpoint)."""
    db = str(tmp_path / "log.sqlite")
    assert main(["search", "random", "--deals", "1000", "--workers", "1", "--quiet",
                 "--json", "--db", db]) == 0
    with sqlite3.connect(db) as log:
        log.execute("UPDATE runs SET strategy = ?, status = 'failed', options = ?, "
                    "checkpoint = '{}' WHERE id = 1",
                    (LOST, json.dumps({"resume": "dealsearch factory --resume"})))
    log.close()
    return db


@pytest.mark.parametrize("command", [["records"], ["status", "--all"], ["search", "--resume", "1"],
                                     ["factory", "--resume", "1"]])
def test_a_lost_run_says_it_cannot_be_resumed(
        log_with_a_lost_run: str, capsys: pytest.CaptureFixture[str],
        command: list[str]) -> None:
    capsys.readouterr()
    status = main([*command, "--db", log_with_a_lost_run])
    captured = capsys.readouterr()
    said = captured.out + captured.err
    assert status == (0 if command[0] in ("records", "status") else 2)
    assert "run 1" in said and "cannot be resumed" in said, said
    assert "--resume" not in said and "continue with" not in said, said
    assert "none yet" not in said, said   # its finds are kept: records lists them


def test_factory_resume_of_a_search_run_names_the_search(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = str(tmp_path / "log.sqlite")
    assert main(["search", "random", "--time", "0.2s", "--workers", "1", "--quiet", "--json",
                 "--db", db]) == 0
    with sqlite3.connect(db) as log:
        log.execute("UPDATE runs SET status = 'interrupted'")
    log.close()
    capsys.readouterr()
    assert main(["factory", "--resume", "1", "--db", db]) == 2
    (line,) = capsys.readouterr().err.splitlines()
    assert "run 1 is a random run, not a factory run" in line
    assert f"continue with: dealsearch search --resume 1 --db {db}" in line
