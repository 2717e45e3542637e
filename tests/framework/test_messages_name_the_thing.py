"""Each message names what the user did and what is wrong with it, not an effect of it
(what a newcomer met, issue 35 item 7)."""

from __future__ import annotations

import os
import sqlite3
import time

import pytest

from dealsearch.cli import main
from dealsearch.commandline.options import cores

from deals import RECORD


def one_line(capsys: pytest.CaptureFixture[str], *argv: str, status: int = 2) -> str:
    """The one line of standard error of ``dealsearch ARGV``, which ends with ``status``."""
    capsys.readouterr()
    assert main(list(argv)) == status
    (line,) = capsys.readouterr().err.splitlines()
    return line


def test_an_empty_argument_is_not_taken_for_the_current_directory(capsys):
    line = one_line(capsys, "verify", "")
    assert "an empty argument is not a deal" in line and "directory" not in line


def test_a_bar_between_hands_is_named(capsys):
    line = one_line(capsys, "verify", RECORD.replace("/", "|"))
    assert "unrecognized" not in line and "separated by '/', not '|'" in line


def test_hands_given_as_separate_arguments_are_one_line_showing_the_deal(capsys):
    """Hands typed with a space between them are split by the shell: one line, not an error
    per hand, and it shows the one argument meant."""
    line = one_line(capsys, "verify", *RECORD.split("/"))
    assert "2 arguments that are one deal's hands" in line and repr(RECORD) in line
    deal = "---JK--A-A---JQ-K-Q-------/K--J--------K-Q--J-A--Q--A"   # a hand without a '-' first
    assert repr(deal) in one_line(capsys, "verify", *deal.split("/"))   # in the order typed


def test_an_option_of_another_game_names_the_game(capsys):
    line = one_line(capsys, "search", "--game", "durak", "--rules", "italian")
    assert line.endswith("--rules is not an option of search --game durak: it is beggar's "
                         "(--game beggar)")


def test_an_option_a_command_does_not_have_is_named_alone(capsys):
    line = one_line(capsys, "reverse", RECORD, "--players", "3")
    assert line.endswith("reverse has no option --players (dealsearch reverse --help lists "
                         "its options)")


def test_resume_with_a_strategy_names_the_strategy(tmp_path, capsys):
    line = one_line(capsys, "search", "random", "--resume", "1", "--db",
                    str(tmp_path / "log.sqlite"))
    assert line.endswith("drop the strategy random")


def test_a_time_of_zero_is_not_advised(capsys):
    line = one_line(capsys, "search", "random", "--time", "0")
    assert line.endswith("bad duration '0': must be more than zero")


def test_log_check_counts_one_run(tmp_path, capsys):
    db = str(tmp_path / "log.sqlite")
    assert main(["search", "random", "--deals", "1000", "--workers", "1", "--quiet", "--json",
                 "--db", db]) == 0
    capsys.readouterr()
    assert main(["log", "check", "--db", db]) == 0
    assert " 1 run, " in capsys.readouterr().out
    assert main(["log", "recover", "--db", db, str(tmp_path / "saved.sqlite")]) == 0
    assert capsys.readouterr().out.startswith("recovered 1 run, ")


def test_status_times_the_searchs_last_write_not_its_own(tmp_path, capsys):
    db = tmp_path / "log.sqlite"
    assert main(["search", "random", "--deals", "1000", "--workers", "1", "--quiet", "--json",
                 "--db", str(db)]) == 0
    with sqlite3.connect(db) as log:   # a search that has written nothing for 10 minutes
        log.execute("UPDATE runs SET status = 'running', ended = NULL")
    log.close()
    for path in tmp_path.iterdir():
        assert not path.name.endswith("-wal") or path.stat().st_size == 0
        then = time.time() - 600
        os.utime(path, (then, then))
    capsys.readouterr()
    assert main(["status", "--db", str(db)]) == 0
    assert "the log was last written 10 min" in capsys.readouterr().out


def test_bench_takes_zero_workers_for_every_core_as_search_does(capsys):
    capsys.readouterr()
    assert main(["bench", "--workers", "0", "--deals", "2000", "--json"]) == 0
    assert f'"workers": {cores()}' in capsys.readouterr().out



@pytest.mark.parametrize("argv", [["records", "--db", ""], ["status", "--db", ""],
                                  ["search", "random", "--deals", "10", "--db", ""],
                                  ["log", "check", "--db", ""]])
def test_an_empty_log_argument_is_not_taken_for_the_current_directory(capsys, argv):
    line = one_line(capsys, *argv)
    assert line.endswith("an empty argument is not a log: give a file name, e.g. "
                         "dealsearch.sqlite") and "directory" not in line, line


def test_an_empty_recover_target_is_named(tmp_path, capsys):
    db = str(tmp_path / "log.sqlite")
    assert main(["search", "random", "--deals", "1000", "--workers", "1", "--quiet", "--json",
                 "--db", db]) == 0
    line = one_line(capsys, "log", "recover", "--db", db, "")
    assert line.endswith("an empty argument is not a log: give a file name, e.g. "
                         "dealsearch.sqlite"), line


def test_an_empty_report_directory_is_refused_not_the_current_one_filled(
        tmp_path, capsys, monkeypatch):
    db = str(tmp_path / "log.sqlite")
    assert main(["search", "random", "--deals", "1000", "--workers", "1", "--quiet", "--json",
                 "--db", db]) == 0
    monkeypatch.chdir(tmp_path)
    line = one_line(capsys, "report", "--db", db, "--out", "")
    assert line.endswith("argument --out: an empty argument is not a directory: give a name, "
                         "e.g. --out report"), line
    assert not (tmp_path / "index.html").exists()


@pytest.mark.parametrize("argv", [["records"], ["status"], ["log", "check"]])
def test_a_named_pipe_given_as_the_log_is_refused_not_waited_on(tmp_path, capsys, argv):
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    assert "is not a regular file, not a log" in one_line(capsys, *argv, "--db", str(fifo))


def test_a_log_in_memory_has_nothing_to_read(capsys):
    assert "no log at :memory:" in one_line(capsys, "log", "check", "--db", ":memory:")
