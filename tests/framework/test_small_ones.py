"""The small ones: ``dealsearch --version``, ``records --run`` of a run the log lacks, and one
trick said as one."""

from __future__ import annotations

import subprocess
import sys
from importlib.metadata import version

from dealsearch.cli import main


def test_version_says_the_installed_release():
    done = subprocess.run([sys.executable, "-m", "dealsearch", "--version"],
                          capture_output=True, text=True, timeout=60)
    assert (done.returncode, done.stdout) == (0, f"dealsearch {version('dealsearch')}\n")


def test_records_of_a_run_the_log_does_not_have_is_refused(capsys, tmp_path):
    db = str(tmp_path / "log.sqlite")
    assert main(["search", "random", "--deals", "1000", "--workers", "1", "--quiet",
                 "--db", db]) == 0
    capsys.readouterr()
    assert main(["records", "--run", "999", "--db", db]) == 2
    assert capsys.readouterr().err == f"dealsearch: error: no run 999 in {db}\n"
    assert main(["records", "--run", "1", "--db", db]) == 0


def test_one_trick_is_one_trick(capsys):
    assert main(["verify", "--deck", "any", "A-/--"]) == 0
    assert capsys.readouterr().out == "A-/--\n  hand 1 wins: 3 cards, 1 trick\n"
