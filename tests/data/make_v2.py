"""Write tests/data/v2.sqlite (a schema-v2 log) and what the v2 release printed for it.

Run once with a release that wrote v2 logs (commit 2710037), with that release first on the
path: ``python tests/data/make_v2.py``. The log holds BMN runs (random, a climb on tricks,
exhaustive with its cycle catalogue) and runs of Durak and Spite and Malice, each with its
histograms and throughput samples; ``v2_expected/`` keeps the v2 release's output of
``records`` (table, JSON, CSV, cycles), ``records --verify`` and ``status --all --json``, so
the migration tests can check that a migrated log gives what it gave before.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).parent
DB = HERE / "v2.sqlite"
EXPECTED = HERE / "v2_expected"
CLI = [sys.executable, "-m", "dealsearch.cli"]


def dealsearch(*args: str) -> str:
    """Run the CLI; its standard output."""
    done = subprocess.run([*CLI, *args], capture_output=True, text=True, check=True)
    return done.stdout


def search(*args: str) -> None:
    dealsearch("search", *args, "--db", str(DB), "--workers", "1", "--quiet", "--json")


def main() -> None:
    for path in (DB, DB.with_suffix(".sqlite-wal"), DB.with_suffix(".sqlite-shm")):
        path.unlink(missing_ok=True)
    EXPECTED.mkdir(exist_ok=True)
    search("random", "--deals", "20000", "--seed", "1")
    search("climb", "--deals", "30000", "--seed", "2", "--objective", "tricks",
           "--players", "3")
    search("exhaustive", "--deck", "------JJQQK", "--seed", "3")
    search("random", "--game", "durak", "--deals", "1000", "--seed", "4")
    search("random", "--game", "spite", "--deals", "300", "--seed", "5")
    outputs = {"records.txt": ["records", "--all"], "records.json": ["records", "--json"],
               "records.csv": ["records", "--csv"],
               "cycles.json": ["records", "--cycles", "--json"],
               "durak.json": ["records", "--json", "--game", "durak"],
               "spite.txt": ["records", "--all", "--game", "spite"],
               "verify.txt": ["records", "--verify"],
               "status.json": ["status", "--all", "--json"]}
    for name, argv in outputs.items():
        text = dealsearch(*argv, "--db", str(DB)).replace(str(DB), "DB")
        (EXPECTED / name).write_text(text, encoding="utf-8")


if __name__ == "__main__":
    main()
