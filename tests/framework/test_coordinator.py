"""The coordinator at scale: the search's own clock, a --time budget's end, tasks sized by the
workers' speed without changing a result, and commits batched both-or-neither.

Timing is simulated (a fake clock and backends whose futures are done when submitted), so no
assertion depends on how fast this machine is.
"""

from __future__ import annotations

import sqlite3
from concurrent.futures import Future
from pathlib import Path
from typing import Any

import pytest

from dealsearch.game import GameResult, cycle_id
from dealsearch.log import RecordLog
from dealsearch.search import runner as runner_module
from dealsearch.search.backends import Backend
from dealsearch.search.base import ChunkSet, NumberedSearch, Report, Task
from dealsearch.search.random_search import CHUNK_DEALS
from dealsearch.search.runner import Runner, run_task
from dealsearch.search.spec import SearchSpec

RATE = 3.0e6   # deals/s of a simulated worker (BMN with lanes)
UNIT_SECONDS = CHUNK_DEALS / RATE


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


class Simulated(Backend):
    """One worker that plays a task in deals / RATE seconds of the fake clock. ``start_up``:
    seconds its warm-up takes. Each report gets one cycle find, named as a worker names it,
    whose deal tells its task (``deal-<key>``)."""

    name = "simulated"

    def __init__(self, clock: Clock, start_up: float = 0.0) -> None:
        self.clock = clock
        self.start_up = start_up
        self.submitted: list[tuple[float, Task]] = []

    @property
    def slots(self) -> int:
        return 1

    def warm_up(self, first: Any) -> None:
        self.clock.now += self.start_up

    def submit(self, fn: Any, *args: Any) -> Future[Any]:
        task: Task = args[1]
        self.submitted.append((self.clock.now, task))
        deals = task.payload["deals"]
        report = Report(task.key, deals=deals, total=300 * deals, outcomes=[deals, 0, 0],
                        seconds=deals / RATE)
        deal = f"deal-{task.key}"
        report.finds.append((deal, GameResult("cycle", {"cards": 9, "tricks": 1},
                                              {"cards": 1, "tricks": 0},
                                              {"cards": 8, "tricks": 1})))
        report.cycles[deal] = (f"key-{task.key}", f"id-{task.key}")
        self.clock.now += report.seconds
        future: Future[Any] = Future()
        future.set_result(report)
        return future

    def describe(self) -> str:
        return "simulated"

    def close(self, wait: bool = True) -> None:
        pass

    def wait_for_workers(self) -> None:
        pass


def test_the_search_clock_starts_when_the_workers_are_up(tmp_path: Path) -> None:
    clock = Clock()
    backend = Simulated(clock, start_up=30.0)
    spec = SearchSpec("random", game="beggar", seed=1, workers=1, deals=50 * CHUNK_DEALS)
    with RecordLog(tmp_path / "log.sqlite") as log:
        summary = Runner(spec, log, progress=False, backend=backend, clock=clock).run()
        run = log.runs()[0]
    searched = 50 * UNIT_SECONDS
    assert summary.seconds == pytest.approx(searched)       # not the 30 s of start-up
    assert summary.wall == pytest.approx(30.0 + searched)   # which the wall time shows
    assert run["seconds"] == pytest.approx(searched)
    assert "wall_seconds" in summary.to_json()


def test_a_time_budget_stops_submitting_at_its_end_and_overruns_by_one_chunk_at_most(
        tmp_path: Path) -> None:
    clock = Clock()
    backend = Simulated(clock, start_up=5.0)
    spec = SearchSpec("random", game="beggar", seed=1, workers=1, time=20.0)
    with RecordLog(tmp_path / "log.sqlite") as log:
        summary = Runner(spec, log, progress=False, backend=backend, clock=clock).run()
    started = 1000.0 + 5.0
    submitted = [(at - started, task.payload["deals"]) for at, task in backend.submitted]
    assert all(at < 20.0 for at, _ in submitted), "a task was submitted after the deadline"
    # Tasks grow to about TASK_SECONDS of a worker's time, and shrink to one chunk at the end.
    biggest = max(deals for _, deals in submitted)
    assert biggest == int(RATE * runner_module.TASK_SECONDS / CHUNK_DEALS) * CHUNK_DEALS
    assert submitted[-1][1] == CHUNK_DEALS
    # Every task in flight at the deadline was absorbed; together they overran by a chunk.
    assert summary.deals == sum(deals for _, deals in submitted)
    assert 20.0 <= summary.seconds <= 20.0 + UNIT_SECONDS + 1e-9
    # The next session continues from the committed seconds: the budget is already spent.
    with RecordLog(tmp_path / "log.sqlite") as log:
        again = Runner(spec, log, 1, progress=False, backend=Simulated(clock),
                       clock=clock).run()
    assert again.deals == summary.deals


def test_commits_are_batched_and_a_failed_batch_commits_neither_finds_nor_state(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # Reports come every UNIT_SECONDS (33 ms); commits at most every COMMIT_SECONDS.
    monkeypatch.setattr(runner_module, "MAX_UNITS", 1)
    clock = Clock()
    spec = SearchSpec("random", game="beggar", seed=1, workers=1, deals=100 * CHUNK_DEALS)
    with RecordLog(tmp_path / "ok.sqlite") as log:
        runner = Runner(spec, log, progress=False, backend=Simulated(clock), clock=clock)
        summary = runner.run()
        assert summary.deals == 100 * CHUNK_DEALS
        assert len(log.finds()) == 100
        assert runner.commits <= 100 * UNIT_SECONDS / runner_module.COMMIT_SECONDS + 2

    with RecordLog(tmp_path / "failed.sqlite") as log:
        runner = Runner(spec, log, progress=False, backend=Simulated(clock), clock=clock)
        save, calls = log.save, {"n": 0}

        def fail_third(*args: Any, **kwargs: Any) -> None:
            calls["n"] += 1
            if calls["n"] == 3:
                raise sqlite3.OperationalError("disk I/O error")
            save(*args, **kwargs)

        log.save = fail_third  # type: ignore[method-assign]
        with pytest.raises(sqlite3.OperationalError):
            runner.run()
        log.save = save  # type: ignore[method-assign]
        run = log.runs()[0]
        chunks = ChunkSet(None, run["checkpoint"]["strategy"]["chunks"])
        done = [k for k in range(100) if k < chunks.prefix or k in chunks.extra]
        assert run["status"] == "failed" and 0 < len(done) < 100
        assert run["deals"] == len(done) * CHUNK_DEALS
        # exactly the finds of the committed reports: none of the failed batch
        assert sorted(f["deal"] for f in log.finds()) == sorted(f"deal-{k}" for k in done)


def test_a_chunk_set_resumes_exactly_from_runs_of_chunks_done_out_of_order() -> None:
    chunks = ChunkSet(None)
    runs = [chunks.take_run(n) for n in (3, 5, 1, 4, 2)]
    assert runs == [(0, 3), (3, 5), (8, 1), (9, 4), (13, 2)]
    for first, count in (runs[1], runs[3]):   # finished out of order
        chunks.finish(first, count)
    resumed = ChunkSet(None, chunks.checkpoint())
    assert resumed.checkpoint() == chunks.checkpoint()
    redo = [resumed.take_run(10) for _ in range(4)]
    assert redo == [(0, 3), (8, 1), (13, 10), (23, 10)]


def test_a_gpu_takes_runs_of_a_power_of_two_chunks_the_cpu_any_run() -> None:
    # a GPU plays its next task ahead, which serves only if it is the same size
    gpu, cpu = NumberedSearch(100, {}), NumberedSearch(100, {})
    assert [gpu.take_run(n, gpu=True) for n in (1, 3, 12, 64)] == [
        (0, 1), (1, 2), (3, 8), (11, 64)]
    assert [cpu.take_run(n, gpu=False) for n in (1, 3, 12, 90)] == [
        (0, 1), (1, 3), (4, 12), (16, 84)]


class Inline(Backend):
    """Runs each task in this process when submitted (the real run_task)."""

    name = "inline"

    @property
    def slots(self) -> int:
        return 2

    def submit(self, fn: Any, *args: Any) -> Future[Any]:
        future: Future[Any] = Future()
        future.set_result(fn(*args))
        return future

    def describe(self) -> str:
        return "inline"

    def close(self, wait: bool = True) -> None:
        pass

    def wait_for_workers(self) -> None:
        pass


@pytest.mark.slow
@pytest.mark.parametrize("setting", [
    {"deals": 1_200_000},
    {"deals": 450_000, "game": "durak", "game_options": {"players": 3, "policy": "aggressive"}},
])
def test_tasks_of_any_size_find_the_same_deals(tmp_path: Path,
                                               monkeypatch: pytest.MonkeyPatch,
                                               setting: dict[str, Any]) -> None:
    spec = SearchSpec.from_json({"strategy": "random", "game": "beggar", "seed": 5, "workers": 2,
                                 **setting})

    def run(name: str) -> tuple[Any, ...]:
        with RecordLog(tmp_path / f"{name}.sqlite") as log:
            runner = Runner(spec, log, progress=False, backend=Inline())
            summary = runner.run()
            finds = [(f["deal"], f["outcome"], f["cycle_id"]) for f in log.finds()]
            histogram = log.histogram([runner.run_id], next(iter(runner.widths)))
        return summary.deals, summary.total, summary.outcomes, summary.best, finds, histogram

    monkeypatch.setattr(runner_module, "MAX_UNITS", 1)
    one_chunk = run("one")
    monkeypatch.setattr(runner_module, "MAX_UNITS", 256)
    monkeypatch.setattr(runner_module, "TASK_SECONDS", 1000.0)  # as big as the budget allows
    big = run("big")
    assert big == one_chunk
    assert big[0] == spec.deals
    if "game" in setting:
        assert sum(1 for f in big[4] if f[1] == "cycle") >= 5


def test_workers_name_their_cycles_as_the_coordinator_would() -> None:
    spec = SearchSpec.from_json({"strategy": "random", "seed": 5, "game": "durak",
                                 "game_options": {"players": 3, "policy": "aggressive"}})
    report = run_task(spec, Task(0, {"deals": 50_000}))
    game, options = spec.plugin, spec.options
    cycles = [deal for deal, result in report.finds if result.outcome == "cycle"]
    assert cycles and set(report.cycles) == set(cycles)
    for deal in cycles:
        key = game.cycle_key(game.parse(deal, options), options)
        assert report.cycles[deal] == (key, cycle_id(game, key, options))
    assert report.seconds > 0
