"""Time BMN random search and climbing in two source trees, interleaved, on a shared machine.

Usage: ``python benchmarks/compare_trees.py OLD_SRC NEW_SRC [ROUNDS]`` where each *_SRC is a
``src`` directory with the compiled modules built in place. Each round runs one subprocess per
tree and keeps the best of three (two for the harness) of each workload; the ratios are of the
minima over rounds (new / old: below 1.00 is faster). Times are CPU seconds (the process and
its worker processes), and the trees are interleaved, because on a shared machine the wall
clock measures the neighbours as much as the code.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

WORKLOAD = r"""
import json, sys, time
from dealsearch.search.base import Task
from dealsearch.search.spec import SearchSpec
from dealsearch.search.random_search import play_chunk
from dealsearch.search.climb import climb_slice
from dealsearch.search.runner import Runner
from dealsearch.log import RecordLog

import resource

def cpu():
    # CPU seconds of this process and its finished children: on a shared machine the wall
    # clock measures the neighbours as much as the code.
    own = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime

def best(fn, repeat=3):
    times = []
    for _ in range(repeat):
        start = cpu(); fn(); times.append(cpu() - start)
    return min(times)

random_spec = SearchSpec("random", game="beggar", seed=1, workers=1, deals=100_000)
climb_spec = SearchSpec("climb", game="beggar", seed=1, workers=1, deals=20_000)
random_task = Task(0, {"deals": 100_000})
harness_spec = SearchSpec("random", game="beggar", seed=1, workers=1, deals=1_000_000)


def harness():
    log = RecordLog(":memory:")
    Runner(harness_spec, log, progress=False).run()
    log.close()


climb_task = Task(0, {"state": None, "games": 20_000})
print(json.dumps({
    "random chunk (100,000 deals)": best(lambda: play_chunk(random_spec, random_task)),
    "climb slice (20,000 games)": best(lambda: climb_slice(climb_spec, climb_task)),
    "random search, 1 worker (1,000,000 deals)": best(harness, 2),
}))
"""


def run(src: str) -> dict[str, float]:
    env = {**os.environ, "PYTHONPATH": src}
    out = subprocess.run([sys.executable, "-c", WORKLOAD], env=env, capture_output=True,
                         text=True, check=True).stdout
    return json.loads(out)


def main() -> None:
    old, new = sys.argv[1], sys.argv[2]
    rounds = int(sys.argv[3]) if len(sys.argv) > 3 else 5
    results: dict[str, dict[str, list[float]]] = {"old": {}, "new": {}}
    for _ in range(rounds):
        for side, src in (("old", old), ("new", new)):
            for name, seconds in run(src).items():
                results[side].setdefault(name, []).append(seconds)
    for name in results["old"]:
        a, b = min(results["old"][name]), min(results["new"][name])
        print(f"{name:<42} before {a * 1000:8.1f} ms  after {b * 1000:8.1f} ms  "
              f"after/before {b / a:.3f}")


if __name__ == "__main__":
    main()
