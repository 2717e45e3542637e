"""The fair screen of record-hunting methods: equal wall time, side by side, equal workers.

For each seed every contender runs at the same time on the same machine (one worker each, so
two contenders use the two cores), for the same ``--time``; the table gives each one's longest
finished deal, its deals played, and who won the seed.

    python benchmarks/screen_methods.py --seeds 10 --time 5m --out screen.json

The docs' climbing page (docs/research/climbing.md) shows the table this printed.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

CONTENDERS = {
    "random": ["search", "random"],
    "climb": ["search", "climb"],
}


def run_seed(seed: int, budget: str, folder: Path) -> dict[str, dict[str, int]]:
    """Start every contender at once for one seed; wait for all; their summaries."""
    procs = {}
    for name, args in CONTENDERS.items():
        command = [sys.executable, "-m", "dealsearch", *args, "--workers", "1", "--time", budget,
                   "--seed", str(seed), "--db", str(folder / f"{name}-{seed}.sqlite"),
                   "--json", "--quiet"]
        procs[name] = subprocess.Popen(command, stdout=subprocess.PIPE, text=True)
    results = {}
    for name, proc in procs.items():
        out, _ = proc.communicate()
        summary = json.loads(out.strip().splitlines()[-1])
        results[name] = {"best": summary["best"]["cards"], "deals": summary["deals"]}
    return results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=10)
    parser.add_argument("--time", default="5m")
    parser.add_argument("--out", type=Path, default=Path("screen.json"))
    args = parser.parse_args()
    rows = []
    with tempfile.TemporaryDirectory() as folder:
        for seed in range(1, args.seeds + 1):
            result = run_seed(seed, args.time, Path(folder))
            rows.append({"seed": seed, **result})
            print(json.dumps(rows[-1]), flush=True)
    args.out.write_text(json.dumps(rows, indent=1))
    print("\n| method | median best | min-max | median deals | seeds won |")
    print("|---|---|---|---|---|")
    for name in CONTENDERS:
        bests = [row[name]["best"] for row in rows]
        deals = [row[name]["deals"] for row in rows]
        wins = sum(row[name]["best"] > max(row[o]["best"] for o in CONTENDERS if o != name)
                   for row in rows)
        print(f"| {name} | {statistics.median(bests):,.0f} | {min(bests):,}-{max(bests):,} | "
              f"{statistics.median(deals):,.0f} | {wins} of {len(rows)} |")


if __name__ == "__main__":
    main()
