"""Time BMN random search and climbing in two source trees, interleaved, on a shared machine.

Usage: ``python benchmarks/compare_trees.py OLD_SRC NEW_SRC [ROUNDS]`` where each *_SRC is a
``src`` directory with the compiled modules built in place. Each round runs one subprocess per
tree and workload and keeps its best of three; the ratios are of the minima over rounds (new /
old time: below 1.00 is faster). Interleaving keeps the load of other processes the same for
both sides.
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

def best(fn, repeat=3):
    times = []
    for _ in range(repeat):
        start = time.perf_counter(); fn(); times.append(time.perf_counter() - start)
    return min(times)

random_spec = SearchSpec("random", seed=1, workers=1, deals=100_000)
climb_spec = SearchSpec("climb", seed=1, workers=1, deals=20_000)
random_task = Task(0, {"deals": 100_000})
climb_task = Task(0, {"state": None, "games": 20_000})
print(json.dumps({
    "random chunk (100,000 deals)": best(lambda: play_chunk(random_spec, random_task)),
    "climb slice (20,000 games)": best(lambda: climb_slice(climb_spec, climb_task)),
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
        print(f"{name:<30} before {a * 1000:8.1f} ms  after {b * 1000:8.1f} ms  "
              f"after/before {b / a:.3f}")


if __name__ == "__main__":
    main()
