"""Reports from real logs, the cycle catalogue and the tail fit."""

from __future__ import annotations

import json
import re

import numpy as np
import pytest
from matplotlib.image import imread

from dealsearch.cli import main
from dealsearch.games.beggar import STANDARD, parse_deal, play_batch
from dealsearch.games.beggar._engine import random_rows
from dealsearch.games.beggar.catalogue import cycle_id
from dealsearch.games.beggar.reverse import basin
from dealsearch.log import RecordLog
from dealsearch.report import FIGURE_SIZE, tail_fit

CASELLA = "---K---Q-KQAJ-----AAJ--J--/----------Q----KQ-J-----KA"
FIGURES = ("lengths.png", "best.png", "throughput.png", "records.png", "cycles.png")


@pytest.fixture(scope="module")
def random_log(tmp_path_factory):
    """A real 100,000-deal random search (one chunk: PRNG stream 0 of seed 4)."""
    db = tmp_path_factory.mktemp("log") / "log.sqlite"
    assert main(["search", "random", "--deals", "100000", "--seed", "4", "--workers", "1",
                 "--db", str(db), "--json", "--quiet"]) == 0
    return db


def test_report_writes_every_figure_at_the_documented_size(random_log, tmp_path, capsys):
    assert main(["report", "--db", str(random_log), "--out", str(tmp_path / "r")]) == 0
    assert "index.html" in capsys.readouterr().out
    page = (tmp_path / "r" / "index.html").read_text(encoding="utf-8")
    for name in FIGURES:
        assert f'src="{name}"' in page
        assert imread(tmp_path / "r" / name).shape[:2] == (FIGURE_SIZE[1], FIGURE_SIZE[0])


def test_the_histogram_in_the_log_counts_every_deal_played(random_log):
    log = RecordLog(random_log)
    run = log.runs()[0]
    for measure in ("cards", "tricks"):
        _, counts = log.histogram([run["id"]], measure)
        assert sum(counts.values()) == run["deals"] == 100_000


def test_the_tail_fit_agrees_with_a_direct_calculation_on_the_same_deals(random_log):
    log = RecordLog(random_log)
    width, counts = log.histogram([log.runs()[0]["id"]], "cards")
    fit = tail_fit(width, counts)
    lengths = play_batch(random_rows(STANDARD.deck, 100_000, 4, 0)).cards
    assert np.bincount(lengths // width).sum() == sum(counts.values())
    tail = lengths[lengths >= fit.start]
    direct = float(np.mean(tail - fit.start))  # the exponential's maximum-likelihood scale
    assert abs(fit.scale - direct) / direct < 0.10
    assert 150 < fit.scale < 260  # published: about 205 cards for random 2-player deals


def test_one_cycle_reached_from_two_deals_gets_one_id_and_two_cycles_two():
    starts = basin(parse_deal(CASELLA)).starts
    assert len({cycle_id(parse_deal(start)) for start in starts[:5]}) == 1
    same = {cycle_id(parse_deal(d, deck="any")) for d in ("QK---J/-Q-J-", "K--J--/-JQ-Q")}
    other = cycle_id(parse_deal("--J--K/Q-QJ-", deck="any"))  # period 39 cards, not 32
    assert len(same) == 1 and other not in same
    assert cycle_id(parse_deal(CASELLA)) not in same | {other}


def test_records_cycles_lists_the_catalogue_of_an_exhaustive_run(tmp_path, capsys):
    db = str(tmp_path / "log.sqlite")
    assert main(["search", "exhaustive", "--deck", "------JJQQK", "--workers", "2", "--db", db,
                 "--json", "--quiet"]) == 0
    finds = [json.loads(line) for line in capsys.readouterr().out.splitlines()[:-1]]
    cycle_deals = [f["deal"] for f in finds if f["outcome"] == "cycle"]
    rules = STANDARD.with_deck((6, 2, 2, 1, 0))
    expected = {cycle_id(parse_deal(d, rules, "any"), rules) for d in cycle_deals}
    assert main(["records", "--db", db, "--cycles", "--json"]) == 0
    catalogue = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert {c["id"] for c in catalogue} == expected
    assert sum(c["deals"] for c in catalogue) == len(cycle_deals) == 42


def test_each_strategy_and_setting_is_fitted_alone_and_only_random_standard_meets_205(
        tmp_path, capsys):
    db = str(tmp_path / "mixed.sqlite")
    for argv in (["random", "--deals", "100000", "--seed", "1"],
                 ["climb", "--deals", "20000", "--seed", "2"],
                 ["random", "--deals", "100000", "--seed", "3", "--players", "3"],
                 ["exhaustive", "--deck", "------JJQQK"]):
        assert main(["search", *argv, "--workers", "1", "--db", db, "--json", "--quiet"]) == 0
    capsys.readouterr()
    assert main(["report", "--db", db, "--out", str(tmp_path / "r")]) == 0
    page = (tmp_path / "r" / "index.html").read_text(encoding="utf-8")
    fits = page.split("<h2>Game lengths</h2>")[1].split("<h2>")[0]
    assert fits.count("<br>") == 3                  # four groups, one line each
    assert fits.count("published simulations") == 1  # only random, standard, 2 players
    random_line = next(line for line in fits.split("<br>") if "published" in line)
    assert random_line.startswith('<img src="lengths.png" alt="length distribution"><p>random, '
                                  "standard 2")
    climb_line = next(line for line in fits.split("<br>") if line.startswith("climb"))
    assert "published" not in climb_line
    records = page.split("<h2>Records</h2>")[1].split("<h2>")[0]
    ours = re.findall(r"<td>run (\d) \((\w+)\)</td>", records)
    assert ours and {run for run, _ in ours} <= {"1", "2"}  # not the 3-player run or the deck


def test_the_cycle_figure_and_table_follow_run(tmp_path, capsys):
    db = str(tmp_path / "cycles.sqlite")
    for deck in ("------JJQQK", "-----JJQQ"):
        assert main(["search", "exhaustive", "--deck", deck, "--workers", "1", "--db", db,
                     "--json", "--quiet"]) == 0
    capsys.readouterr()
    log = RecordLog(db)
    every = {c["id"] for c in log.cycles()}
    first = {c["id"] for c in log.cycles(run_ids=[1])}
    assert first and first < every
    assert main(["report", "--db", db, "--run", "1", "--out", str(tmp_path / "r")]) == 0
    page = (tmp_path / "r" / "index.html").read_text(encoding="utf-8")
    table = page.split("<h2>Cycles</h2>")[1]
    assert set(re.findall(r"<td>([0-9a-f]{12})</td>", table)) == first
