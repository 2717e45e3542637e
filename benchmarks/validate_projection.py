"""Validate the tail projection: predict each run's longest deal from its first tenth.

For each seed a random BMN search runs for ``--time`` with one worker (the *full* run). Its
first tenth is then played again as a run of its own, with the same seed and a tenth of the
full run's deals rounded to whole chunks: chunk ``k`` of a run plays PRNG stream ``(seed, k)``,
so the tenth run plays exactly the full run's first deals. From the tenth's histogram alone
(:mod:`dealsearch.projection`) the script predicts the longest deal of the full run's budget,
and compares it with what the full run found.

    nice -n 19 python benchmarks/validate_projection.py --seeds 1-5 --time 150s

The table is markdown (docs/research/projection.md shows it).
"""

from __future__ import annotations

import argparse
import json
import math
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from dealsearch.log import RecordLog
from dealsearch.projection import run_projection
from dealsearch.search.random_search import CHUNK_DEALS


def search(db: Path, seed: int, budget: list[str]) -> dict[str, Any]:
    """Run one random BMN search (one worker) into ``db``; its run from the log."""
    command = [sys.executable, "-m", "dealsearch", "search", "random", "--workers", "1",
               "--seed", str(seed), "--db", str(db), "--json", "--quiet", *budget]
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL)
    log = RecordLog(db)
    try:
        return log.runs()[-1]
    finally:
        log.close()


def validate_seed(seed: int, budget: str, folder: Path, target: int) -> dict[str, Any]:
    """The full run, its first tenth, and the tenth's prediction of the full run's longest."""
    full = search(folder / f"full-{seed}.sqlite", seed, ["--time", budget])
    tenth_deals = max(CHUNK_DEALS, round(full["deals"] / 10 / CHUNK_DEALS) * CHUNK_DEALS)
    tenth_db = folder / f"tenth-{seed}.sqlite"
    tenth = search(tenth_db, seed, ["--deals", str(tenth_deals)])
    log = RecordLog(tenth_db)
    try:
        # The budget is the full run's deals: "by the end" is the end of the full run.
        projection = run_projection(log, {**tenth, "options": {**tenth["options"],
                                                               "deals": full["deals"]}},
                                    target=target)
    finally:
        log.close()
    assert projection is not None
    found = full["checkpoint"]["best"]["cards"]
    row = {"seed": seed, "deals": full["deals"], "tenth_deals": tenth["deals"],
           "tenth_best": tenth["checkpoint"]["best"]["cards"], "found": found,
           "accepted": projection.fit.accepted, "reason": projection.reason,
           "rate": full["deals"] / full["seconds"]}
    if projection.fit.accepted:
        low, high = projection.longest_range or (math.nan, math.nan)
        row |= {"scale": projection.fit.scale, "p": projection.fit.p_value,
                "predicted": projection.expected_longest, "low": low, "high": high,
                "error": (projection.expected_longest or 0) - found,
                "deals_to_target": projection.deals_to_target,
                "core_hours_to_target": projection.core_hours_to_target}
    return row


def table(rows: list[dict[str, Any]], target: int) -> str:
    """The markdown table and a summary line."""
    lines = ["| seed | deals (full) | deals (first tenth) | best in the tenth | tail scale "
             "(p) | predicted longest (80 % range) | found | error | in range |"
             f" deals to {target:,} (core-h) |",
             "|---:|---:|---:|---:|---:|---:|---:|---:|:---:|---:|"]
    for r in rows:
        if not r["accepted"]:
            lines.append(f"| {r['seed']} | {r['deals']:,} | {r['tenth_deals']:,} | "
                         f"{r['tenth_best']:,} | rejected | {r['reason']} | {r['found']:,} | "
                         "| | |")
            continue
        inside = "yes" if r["low"] <= r["found"] <= r["high"] else "no"
        lines.append(
            f"| {r['seed']} | {r['deals']:,} | {r['tenth_deals']:,} | {r['tenth_best']:,} | "
            f"{r['scale']:.0f} ({r['p']:.2f}) | {r['predicted']:,.0f} ({r['low']:,.0f} to "
            f"{r['high']:,.0f}) | {r['found']:,} | {r['error']:+,.0f} "
            f"({100 * r['error'] / r['found']:+.0f} %) | {inside} | "
            f"{r['deals_to_target']:.1e} ({r['core_hours_to_target']:,.0f}) |")
    accepted = [r for r in rows if r["accepted"]]
    if accepted:
        errors = [r["error"] for r in accepted]
        relative = [abs(r["error"]) / r["found"] for r in accepted]
        inside = sum(r["low"] <= r["found"] <= r["high"] for r in accepted)
        lines.append("")
        lines.append(f"{len(accepted)} of {len(rows)} fits accepted; mean error "
                     f"{statistics.mean(errors):+,.0f} cards, mean absolute error "
                     f"{statistics.mean(abs(e) for e in errors):,.0f} cards "
                     f"({100 * statistics.mean(relative):.0f} %); {inside} of "
                     f"{len(accepted)} found lengths inside the 80 % range.")
    return "\n".join(lines)


def seeds(text: str) -> list[int]:
    """``1-5`` or ``1,3,7``."""
    if "-" in text:
        first, last = text.split("-")
        return list(range(int(first), int(last) + 1))
    return [int(part) for part in text.split(",")]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seeds", type=seeds, default=seeds("1-5"))
    parser.add_argument("--time", default="150s", help="each full run's budget")
    parser.add_argument("--target", type=int, default=6000)
    parser.add_argument("--out", type=Path, help="also write the rows as JSON here")
    args = parser.parse_args()
    rows = []
    with tempfile.TemporaryDirectory() as folder:
        for seed in args.seeds:
            rows.append(validate_seed(seed, args.time, Path(folder), args.target))
            print(f"seed {seed}: {json.dumps(rows[-1])}", file=sys.stderr, flush=True)
    if args.out:
        args.out.write_text(json.dumps(rows, indent=1), encoding="utf-8")
    print(table(rows, args.target))


if __name__ == "__main__":
    main()
