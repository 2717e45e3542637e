"""Every way a terminal can go: a hang-up (SIGHUP) ends a search ``interrupted`` (exit 129),
resumable; a closed standard output or error never fails it (it goes on to its budget, writing
to the log alone), on local workers and on Dask; Ctrl-C during start-up is one line, exit 130.
The moments are the processes' own: their output, their exit."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from dealsearch.search.hooks import TestHooks

from conftest import start_cli

ARGV = ["search", "random", "--deck", "--------JJQQKK", "--workers", "1", "--seed", "4"]
SEARCH = [sys.executable, "-m", "dealsearch", *ARGV]


def status(db: Path) -> tuple[str, int]:
    return sqlite3.connect(db).execute("SELECT status, deals FROM runs").fetchone()


def closed_pipe() -> int:
    """The writing end of a pipe whose reader is gone (as after ``| head`` or a quit pager)."""
    read, write = os.pipe()
    os.close(read)
    return write


@pytest.mark.parametrize("stream", ["stdout", "stderr", "both"])
def test_a_closed_output_never_fails_a_search_it_goes_on_to_its_budget(tmp_path, stream):
    db = tmp_path / "log.sqlite"
    write = closed_pipe()
    log = (tmp_path / "err.txt").open("w")
    streams = {"stdout": write if stream in ("stdout", "both") else subprocess.DEVNULL,
               "stderr": write if stream in ("stderr", "both") else log}
    done = subprocess.run([*SEARCH, "--deals", "1000000", "--db", str(db)], timeout=300,
                          **streams)
    os.close(write)
    log.close()
    assert done.returncode == 0
    assert status(db) == ("done", 1_000_000)
    assert "Traceback" not in (tmp_path / "err.txt").read_text()


FULL_OUTPUT = "dealsearch: error: cannot write the output: No space left on device"


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="no /dev/full (a full disk) here")
def test_a_search_whose_output_fills_its_disk_plays_its_budget_and_says_so_in_one_line(
        tmp_path):
    db = tmp_path / "log.sqlite"
    with open("/dev/full", "w") as full:   # every write: ENOSPC, as on a full disk
        done = subprocess.run([*SEARCH, "--deals", "1000000", "--db", str(db)], timeout=300,
                              stdout=full, stderr=subprocess.PIPE, text=True)
    assert done.returncode == 1
    assert done.stderr == (f"{FULL_OUTPUT}: the run went on without it, and its finds are in "
                           "the log (dealsearch records)\n")
    assert status(db) == ("done", 1_000_000)


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="no /dev/full (a full disk) here")
@pytest.mark.parametrize("argv", [["records", "--all"], ["records", "--csv"],
                                  ["status", "--all"], ["log", "check"]], ids=" ".join)
def test_a_reader_whose_output_fills_its_disk_ends_in_one_line(tmp_path, argv):
    db = tmp_path / "log.sqlite"
    subprocess.run([*SEARCH, "--deals", "100000", "--db", str(db), "--quiet"], check=True,
                   timeout=300, capture_output=True)
    with open("/dev/full", "w") as full:
        done = subprocess.run([sys.executable, "-m", "dealsearch", *argv, "--db", str(db)],
                              timeout=300, stdout=full, stderr=subprocess.PIPE, text=True)
    assert (done.returncode, done.stderr) == (1, f"{FULL_OUTPUT}\n")


def test_a_search_piped_into_head_plays_its_budget(tmp_path):
    db = tmp_path / "log.sqlite"
    search = subprocess.Popen([*SEARCH, "--deals", "1000000", "--db", str(db)],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert search.stdout is not None and search.stderr is not None
    first = [search.stdout.readline() for _ in range(2)]   # head -2, then gone
    search.stdout.close()
    err = search.stderr.read()
    assert search.wait(timeout=300) == 0, err
    assert first[0].startswith("starting run 1: random search")
    assert status(db) == ("done", 1_000_000)
    assert err == ""


def test_a_dask_search_with_a_closed_output_goes_on_to_its_budget(tmp_path):
    pytest.importorskip("distributed")
    db = tmp_path / "log.sqlite"
    write = closed_pipe()
    done = subprocess.run([*SEARCH, "--deals", "1000000", "--backend", "dask",
                           "--db", str(db)], stdout=write, stderr=subprocess.PIPE, text=True,
                          timeout=300)
    os.close(write)
    assert done.returncode == 0, done.stderr
    assert status(db) == ("done", 1_000_000)


def test_a_hang_up_ends_a_search_interrupted_and_it_resumes(tmp_path):
    db = tmp_path / "log.sqlite"
    search = start_cli(*ARGV, "--deals", "5000000", "--json", "--db", str(db),
                       hooks=TestHooks(hold_after_finds=1))   # held at its first find
    assert search.stdout is not None
    json.loads(search.stdout.readline())   # a find told: the search runs
    os.killpg(search.pid, signal.SIGHUP)   # the terminal closes: its whole group hangs up
    out, err = search.communicate(timeout=120)
    assert search.returncode == 129, err
    assert "Traceback" not in err
    assert json.loads(out.splitlines()[-1])["deals"] == status(db)[1]
    assert status(db)[0] == "interrupted"
    resumed = subprocess.run([sys.executable, "-m", "dealsearch", "search", "--resume", "1",
                              "--db", str(db), "--quiet"], capture_output=True, text=True,
                             timeout=600)
    assert resumed.returncode == 0, resumed.stderr
    assert status(db) == ("done", 5_000_000)


INTERRUPTED_START = """
import sys

class CtrlC:  # Ctrl-C arrives while the command's modules are being imported
    def find_spec(self, name, path=None, target=None):
        if name == "dealsearch.cli.main":
            raise KeyboardInterrupt

sys.meta_path.insert(0, CtrlC())
sys.argv = ["dealsearch", "search", "random", "--deals", "1000"]
from dealsearch.start import main
sys.exit(main())
"""


def test_ctrl_c_during_start_up_is_one_line_and_exit_130(tmp_path):
    done = subprocess.run([sys.executable, "-c", INTERRUPTED_START], capture_output=True,
                          text=True, timeout=60, cwd=tmp_path)
    assert (done.returncode, done.stderr, done.stdout) == (130, "dealsearch: interrupted\n", "")


def test_a_screen_that_may_go_is_still_the_stream_it_wraps(tmp_path):
    """Code that asks standard output for more than a write (its encoding, its descriptor)
    gets the stream's answer while the screen is optional."""
    from dealsearch.commandline.terminal import screen_optional

    with open(tmp_path / "out.txt", "w", encoding="utf-8") as file:
        saved, sys.stdout = sys.stdout, file
        try:
            with screen_optional():
                assert (sys.stdout.encoding, sys.stdout.fileno()) == ("utf-8", file.fileno())
        finally:
            sys.stdout = saved
