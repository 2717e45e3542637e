"""The budget you typed: one strict duration grammar, said back in words at the start, and
``--workers 0``/``auto`` for every core, as the shipped overnight campaign writes it."""

from __future__ import annotations

import os
import sqlite3

import pytest

from dealsearch.cli import main
from dealsearch.text import parse_duration


@pytest.mark.parametrize(("text", "seconds"), [
    ("8h", 8 * 3600), ("30m", 1800), ("90s", 90), ("1h30m", 5400), ("1h30", 5400),
    ("8h30", 8.5 * 3600), ("2m30", 150), ("1h30m15", 5415), ("1.5h", 5400), ("1h 30m", 5400),
])
def test_a_duration_reads_as_a_clock_does(text: str, seconds: float) -> None:
    assert parse_duration(text) == seconds


@pytest.mark.parametrize(("text", "why"), [
    ("90", "a number needs its unit: 90s, 90m or 90h"),
    ("-5m", "a budget cannot be negative"),
    ("1h90", "the number after 'h' counts minutes, 0 to 59"),
    ("30m1h", "write e.g. 8h, 30m, 90s, 1h30m, 1h30 (1 h 30 min) or 2m30 (2 min 30 s)"),
    ("0s", "must be more than zero"),
])
def test_a_duration_that_is_not_one_says_what_is_wrong(text: str, why: str) -> None:
    with pytest.raises(ValueError, match=f"^bad duration '{text}': {why}".replace("(", r"\(")
                       .replace(")", r"\)")):
        parse_duration(text)


def test_the_start_line_says_the_budget_and_workers_auto_is_every_core(capsys, tmp_path):
    db = tmp_path / "log.sqlite"
    assert main(["search", "random", "--time", "1h30", "--deals", "100000", "--workers",
                 "auto", "--seed", "1", "--quiet", "--db", str(db)]) == 0
    first = capsys.readouterr().out.splitlines()[0]
    assert f", {os.cpu_count()} workers, seed 1; budget 1 h 30 min or 100,000 deals, " \
           "whichever comes first; log " in first, first
    spec = sqlite3.connect(db).execute("SELECT options FROM runs").fetchone()[0]
    assert '"time": 5400.0' in spec
    assert main(["status", "--all", "--db", str(db)]) == 0
    assert "budget 100,000 deals or 1 h 30 min" in capsys.readouterr().out
    assert main(["search", "random", "--time", "-5m", "--db", str(db)]) == 2
    assert capsys.readouterr().err == ("dealsearch: error: argument --time: bad duration "
                                       "'-5m': a budget cannot be negative\n")
