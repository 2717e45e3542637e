"""More workers than cores only when asked for, and a --time budget kept whatever the workers.

``--workers 300`` on a 2-core machine used to start 301 processes, and a ``--time 12s`` run
took 25 s: the first tasks, sized before any speed was measured, kept the workers busy long
past the deadline and were waited for.
"""

from __future__ import annotations

import itertools
import threading
from pathlib import Path
from typing import Any

import pytest
from backends import Stuck

from dealsearch.cli import main
from dealsearch.commandline.options import cores
from dealsearch.log import RecordLog
from dealsearch.search.runner import Runner
from dealsearch.search.spec import SearchSpec


@pytest.mark.parametrize("command", [["search", "random", "--deals", "1000"],
                                     ["factory", "--nodes", "1"]])
def test_more_workers_than_cores_is_refused_in_one_line(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], command: list[str]) -> None:
    db = tmp_path / "log.sqlite"
    too_many = str(cores() + 1)
    assert main([*command, "--workers", too_many, "--db", str(db)]) == 2
    (line,) = capsys.readouterr().err.splitlines()
    assert f"--workers {too_many} is more than this machine's {cores()} core" in line
    assert line.endswith("add --oversubscribe to insist")
    assert not db.exists()


def test_bench_refuses_more_workers_than_cores_in_one_line(
        capsys: pytest.CaptureFixture[str]) -> None:
    too_many = str(cores() + 1)
    assert main(["bench", "--deals", "10", "--workers", too_many]) == 2
    (line,) = capsys.readouterr().err.splitlines()
    assert f"--workers {too_many} is more than this machine's {cores()} core" in line
    assert line.endswith("add --oversubscribe to insist")
    # Insisting passes the check: a game with a speed table then says it times one core.
    assert main(["bench", "--game", "durak", "--workers", too_many, "--oversubscribe"]) == 2
    assert "times one core" in capsys.readouterr().err


def test_oversubscribe_insists(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = tmp_path / "log.sqlite"
    assert main(["search", "random", "--deals", "1000", "--workers", str(cores() + 1),
                 "--oversubscribe", "--quiet", "--db", str(db)]) == 0
    assert f"{cores() + 1} workers" in capsys.readouterr().out


def test_the_time_budget_ends_the_run_though_tasks_still_run(tmp_path: Path) -> None:
    spec = SearchSpec.from_json({"game": "beggar", "strategy": "random", "time": 2.0, "seed": 1,
                                 "workers": 4})
    ticks = itertools.count()
    backend = Stuck(slots=4)
    summaries: list[Any] = []

    def search() -> None:   # in a thread, which a run that never ends cannot hold
        with RecordLog(tmp_path / "log.sqlite") as log:
            runner = Runner(spec, log, progress=False, backend=backend,
                            clock=lambda: next(ticks) * 0.05)  # 50 ms a look at the clock
            summaries.append(runner.run())

    thread = threading.Thread(target=search, daemon=True)
    thread.start()
    thread.join(30)
    assert summaries, "the run waited for its tasks past its --time budget"
    assert summaries[0].status == "done"
    assert backend.closed == [False], "the tasks still running must be stopped"


def test_a_campaign_files_worker_count_is_named_as_the_file_writes_it(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """No --workers was typed: the line names the file's ``workers``, not an option."""
    campaign = tmp_path / "campaign.toml"
    campaign.write_text(f'strategy = "random"\ndeals = 1000\nworkers = {cores() + 1}\n',
                        encoding="utf-8")
    db = tmp_path / "log.sqlite"
    assert main(["search", "--config", str(campaign), "--db", str(db)]) == 2
    (line,) = capsys.readouterr().err.splitlines()
    assert f"workers = {cores() + 1} (in {campaign}) is more than this machine's" in line, line
    assert "--workers" not in line and line.endswith("add --oversubscribe to insist")
    assert not db.exists()
