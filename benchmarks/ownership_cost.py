"""What owning a run costs the coordinator: the same random search with the owner's lease
renewed in every commit (as shipped) and without an owner, interleaved, CPU seconds of the
coordinator (its per-commit work) and wall seconds, best of each; a commit after every report
(the most commits a run can make), so the cost shows if there is one.

    python benchmarks/ownership_cost.py [ROUNDS]
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

from dealsearch.log import RecordLog
from dealsearch.search import runner as runner_module
from dealsearch.search.backends import LocalBackend
from dealsearch.search.runner import Runner
from dealsearch.search.spec import SearchSpec

SPEC = {"strategy": "random", "game": "beggar", "seed": 1, "workers": 1, "deals": 10_000_000,
        "game_options": {"deck": "------JJQQK"}}
# The worst case for per-commit work: a commit after every report of one chunk.
runner_module.COMMIT_SECONDS = 0.0
runner_module.MAX_UNITS = 1


def one(owned: bool, backend: LocalBackend, folder: Path, n: int) -> tuple[float, float, int]:
    with RecordLog(folder / f"{owned}-{n}.sqlite") as log:
        runner = Runner(SearchSpec.from_json(SPEC), log, progress=False, backend=backend)
        if not owned:
            runner.managed.owner = None
        cpu, wall = time.process_time(), time.perf_counter()
        runner.run()
        return time.process_time() - cpu, time.perf_counter() - wall, runner.commits


def main() -> None:
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 5
    best: dict[bool, list[float]] = {True: [1e9, 1e9], False: [1e9, 1e9]}
    commits = 0
    with tempfile.TemporaryDirectory() as folder, LocalBackend(1) as backend:
        backend.warm_up(runner_module.warm_worker)
        for n in range(rounds):
            for owned in (n % 2 == 0, n % 2 != 0):
                cpu, wall, commits = one(owned, backend, Path(folder), n)
                best[owned] = [min(best[owned][0], cpu), min(best[owned][1], wall)]
    for owned, (cpu, wall) in best.items():
        print(f"{'owned' if owned else 'no owner':9} coordinator CPU {cpu * 1000:7.1f} ms, "
              f"wall {wall * 1000:7.1f} ms ({commits} commits a run)")
    print(f"owned / no owner: CPU {best[True][0] / best[False][0]:.3f}, "
          f"wall {best[True][1] / best[False][1]:.3f}")


if __name__ == "__main__":
    main()
