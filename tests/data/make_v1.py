"""Write tests/data/v1.sqlite (a schema-v1 log) and what the v1 release printed for it.

Run once with the release that wrote v1 logs (commit bc1a4a8): ``python tests/data/make_v1.py``.
The log holds several strategies, both rule presets, 2 to 4 players, cycles, a limit and an
interrupted run; ``v1_expected/`` keeps the v1 release's output of ``records`` (table, JSON,
CSV), ``records --cycles``, ``records --verify``, ``report`` and ``search --resume`` (on a
copy), so the migration tests can check that a migrated log gives what it gave before.
"""

from __future__ import annotations

import json
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).parent
DB = HERE / "v1.sqlite"
EXPECTED = HERE / "v1_expected"
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
    search("random", "--deals", "200000", "--seed", "1")
    search("random", "--deals", "100000", "--seed", "2", "--rules", "italian", "--players", "3")
    search("climb", "--deals", "30000", "--seed", "3", "--stall", "2000")
    search("climb", "--deals", "20000", "--seed", "4", "--objective", "tricks",
           "--players", "3")
    search("exhaustive", "--deck", "------JJQQK", "--seed", "5")
    search("exhaustive", "--deck", "-------JJQ", "--players", "3", "--seed", "6")
    search("exhaustive", "--deck", "------JJQQK", "--seed", "7", "--max-tricks", "20")
    search("random", "--deals", "50000", "--seed", "8", "--players", "4", "--max-cards", "400")
    # An interrupted run, to resume after migration.
    process = subprocess.Popen([*CLI, "search", "random", "--deals", "3000000", "--seed", "9",
                                "--db", str(DB), "--workers", "1", "--quiet", "--json"],
                               stdout=subprocess.DEVNULL)
    time.sleep(2.5)
    process.send_signal(signal.SIGINT)
    process.wait()
    runs = json.loads(subprocess.run(
        [sys.executable, "-c", f"import json, sqlite3; db = sqlite3.connect(r'{DB}'); "
         "print(json.dumps(db.execute('SELECT id, status FROM runs').fetchall()))"],
        capture_output=True, text=True, check=True).stdout)
    interrupted = [run_id for run_id, status in runs if status == "interrupted"]
    assert interrupted, runs
    db = str(DB)
    outputs = {
        "records.txt": dealsearch("records", "--db", db),
        "records.json": dealsearch("records", "--db", db, "--json"),
        "records.csv": dealsearch("records", "--db", db, "--csv"),
        "cycles.txt": dealsearch("records", "--db", db, "--cycles"),
        "cycles.json": dealsearch("records", "--db", db, "--cycles", "--json"),
        "verify.txt": dealsearch("records", "--db", db, "--verify"),
    }
    with tempfile.TemporaryDirectory() as tmp:
        dealsearch("report", "--db", db, "--out", tmp)
        outputs["report.html"] = (Path(tmp) / "index.html").read_text(encoding="utf-8")
        copy = Path(tmp) / "copy.sqlite"
        shutil.copy(DB, copy)
        outputs["resume.json"] = dealsearch("search", "--resume", str(interrupted[0]), "--db",
                                            str(copy), "--quiet", "--json")
        outputs["resumed-records.json"] = dealsearch("records", "--db", str(copy), "--json",
                                                     "--run", str(interrupted[0]))
    for name, text in outputs.items():
        (EXPECTED / name).write_text(text.replace(db, "DB"), encoding="utf-8")
    (EXPECTED / "interrupted").write_text(f"{interrupted[0]}\n", encoding="utf-8")


if __name__ == "__main__":
    main()
