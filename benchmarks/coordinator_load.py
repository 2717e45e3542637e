"""How many reports one coordinator absorbs: the Runner fed synthetic reports, as fast as it can.

A fake backend's futures are done the moment a task is submitted, each holding a report prepared
beforehand from real chunks of the setting (so the finds are realistic: a random BMN chunk of
100,000 deals reports a dozen deals longer than all before them in its chunk, of which the
coordinator keeps the few that beat the run's best; a Durak chunk with the aggressive policy
reports a dozen never-ending deals, every one a find with its cycle named for the catalogue).
The workers cost nothing, so what is measured is the coordinator alone: reports, finds and
commits per second, and its CPU time per report, against a real log on disk (SQLite, WAL,
synchronous=FULL, as a search writes it).

    python benchmarks/coordinator_load.py                      # both settings, 20,000 reports
    python benchmarks/coordinator_load.py --setting bmn --reports 50000 --slots 1000

Without ``--fixed-chunks`` the fake workers report the time a real core would have taken
(WORKER_RATE), so the runner sizes its tasks as it does for real workers.

1,000 fast workers produce (BMN, lanes): 1,000 cores x ~3M deals/s / 100,000 deals per chunk
= 30,000 chunk reports/s; a coordinator keeps up when its reports/s exceed what the workers
send at the chunk size it uses, with CPU to spare.
"""

from __future__ import annotations

import argparse
import copy
import resource
import sys
import tempfile
import time
from concurrent.futures import Future
from pathlib import Path
from typing import Any

from dealsearch.log import RecordLog
from dealsearch.search import runner as runner_module
from dealsearch.search.backends import Backend
from dealsearch.search.base import Report, Task
from dealsearch.search.random_search import CHUNK_DEALS
from dealsearch.search.runner import Runner, run_task
from dealsearch.search.spec import SearchSpec

SETTINGS: dict[str, dict[str, Any]] = {
    "bmn": {"strategy": "random", "game": "beggar", "seed": 7},
    "durak": {"strategy": "random", "game": "durak", "players": 3, "policy": "aggressive",
              "seed": 7},
}
WORKER_RATE = {"bmn": 3.0e6, "durak": 0.5e6}   # deals/s per core, about (see docs/performance)


class Instant(Backend):
    """A backend of ``slots`` infinitely fast workers: each future is done when submitted,
    with a copy of one of the prepared reports, renumbered as the task's own (a task of
    several chunks reports its deals as the real ones would)."""

    name = "instant"

    def __init__(self, slots: int, reports: list[Report], rate: float | None) -> None:
        self._slots = slots
        self.reports = reports
        self.rate = rate   # deals/s a worker reports it played at (None: no time reported)
        self.submitted = 0

    @property
    def slots(self) -> int:
        return self._slots

    def submit(self, fn: Any, *args: Any) -> Future[Any]:
        task: Task = args[1]
        units = task.payload.get("deals", CHUNK_DEALS) / CHUNK_DEALS
        templates = [self.reports[(self.submitted + i) % len(self.reports)]
                     for i in range(max(1, round(units)))]   # a chunk's finds per chunk
        template = templates[0]
        self.submitted += 1
        report = copy.copy(template)
        report.key = task.key
        report.finds = [find for one in templates for find in one.finds]
        if hasattr(report, "cycles"):
            report.cycles = {k: v for one in templates for k, v in one.cycles.items()}
        report.deals = int(task.payload.get("deals", template.deals))
        report.total = int(template.total * units)
        report.outcomes = [int(n * units) for n in template.outcomes]
        if hasattr(report, "seconds"):
            report.seconds = report.deals / self.rate if self.rate else 0.0
        future: Future[Any] = Future()
        future.set_result(report)
        return future

    def describe(self) -> str:
        return f"{self._slots} instant workers"

    def close(self, wait: bool = True) -> None:
        pass

    def wait_for_workers(self) -> None:
        pass


def prepare(setting: str, chunks: int) -> tuple[SearchSpec, list[Report]]:
    """Real reports of the setting's first ``chunks`` chunks (played here, once, as a worker
    plays them: since the batched coordinator, workers also name their cycles)."""
    spec = SearchSpec.from_json(SETTINGS[setting])
    reports = [run_task(spec, Task(k, {"deals": CHUNK_DEALS})) for k in range(chunks)]
    return spec, reports


def measure(setting: str, reports: int, slots: int, prepared: int, sized: bool
            ) -> dict[str, Any]:
    """Run the Runner on ``reports`` chunks of instant reports; its throughput and CPU."""
    spec, templates = prepare(setting, prepared)
    spec = SearchSpec.from_json({**spec.to_json(), "deals": reports * CHUNK_DEALS,
                                 "workers": slots})
    commits = 0
    original = RecordLog.save

    def counting_save(self: RecordLog, *args: Any, **kwargs: Any) -> None:
        nonlocal commits
        commits += 1
        original(self, *args, **kwargs)

    RecordLog.save = counting_save  # type: ignore[method-assign]
    finds = 0

    def on_find(find: Any) -> None:
        nonlocal finds
        finds += 1

    with tempfile.TemporaryDirectory() as tmp:
        log = RecordLog(Path(tmp) / "load.sqlite")
        backend = Instant(slots, templates, WORKER_RATE[setting] if sized else None)
        runner = Runner(spec, log, on_find=on_find, progress=False, backend=backend)
        cpu0, wall0 = time.process_time(), time.perf_counter()
        summary = runner.run()
        cpu, wall = time.process_time() - cpu0, time.perf_counter() - wall0
        log.close()
    RecordLog.save = original  # type: ignore[method-assign]
    assert summary.deals == reports * CHUNK_DEALS, summary.deals
    tasks = backend.submitted
    return {"setting": setting, "chunks": reports, "tasks": tasks, "finds": finds,
            "commits": commits, "wall": wall, "cpu": cpu,
            "chunks/s": reports / wall, "tasks/s": tasks / wall, "finds/s": finds / wall,
            "commits/s": commits / wall, "cpu ms/chunk": 1000 * cpu / reports,
            "cpu ms/task": 1000 * cpu / tasks,
            "needed chunks/s (1,000 cores)": 1000 * WORKER_RATE[setting] / CHUNK_DEALS,
            "maxrss MB": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--setting", choices=[*SETTINGS, "all"], default="all")
    parser.add_argument("--reports", type=int, default=20_000,
                        help="chunks of 100,000 deals to absorb (default 20,000)")
    parser.add_argument("--slots", type=int, default=1000, help="workers (default 1,000)")
    parser.add_argument("--prepared", type=int, default=8,
                        help="real chunks played beforehand, reused in turn (default 8)")
    parser.add_argument("--fixed-chunks", action="store_true",
                        help="workers report no time, so every task stays one chunk")
    args = parser.parse_args()
    print(f"runner: {runner_module.__file__}", file=sys.stderr)
    settings = list(SETTINGS) if args.setting == "all" else [args.setting]
    header = ("| setting | chunks | tasks | finds | commits | wall s | chunks/s | finds/s "
              "| commits/s | CPU ms/chunk | 1,000 cores send chunks/s |")
    print(header)
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for setting in settings:
        m = measure(setting, args.reports, args.slots, args.prepared, not args.fixed_chunks)
        print(f"| {m['setting']} | {m['chunks']:,} | {m['tasks']:,} | {m['finds']:,} "
              f"| {m['commits']:,} | {m['wall']:.2f} | {m['chunks/s']:,.0f} "
              f"| {m['finds/s']:,.0f} | {m['commits/s']:,.0f} | {m['cpu ms/chunk']:.3f} "
              f"| {m['needed chunks/s (1,000 cores)']:,.0f} |", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
