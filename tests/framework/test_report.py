"""Reports from real logs, the cycle catalogue and the tail fit."""

from __future__ import annotations

import json
import math
import re
import sqlite3

import matplotlib.pyplot as plt
import numpy as np
import pytest
from matplotlib.image import imread
from matplotlib.markers import MarkerStyle

from dealsearch import report
from dealsearch.cli import main
from dealsearch.games.beggar._engine import random_rows
from dealsearch.games.beggar.catalogue import cycle_id
from dealsearch.games.beggar.engine import play_batch
from dealsearch.games.beggar.notation import STANDARD, parse_deal
from dealsearch.games.beggar.reverse import basin
from dealsearch.log import RecordLog
from dealsearch.projection import fit_tail
from dealsearch.report import (
    FIGURE_SIZE,
    FIGURES,
    best_figure,
    best_lines,
    cycle_figure,
    setting_text,
    speed_figure,
    speed_lines,
)

from deals import CASELLA


@pytest.fixture(scope="module")
def random_log(tmp_path_factory):
    """A real 100,000-deal random search (one chunk: PRNG stream 0 of seed 4)."""
    db = tmp_path_factory.mktemp("log") / "log.sqlite"
    assert main(["search", "random", "--deals", "100000", "--seed", "4", "--workers", "1",
                 "--db", str(db), "--json", "--quiet"]) == 0
    return db


def test_report_writes_every_figure_at_the_documented_size_or_a_sentence(
        random_log, tmp_path, capsys):
    assert main(["report", "--db", str(random_log), "--out", str(tmp_path / "r")]) == 0
    assert "index.html" in capsys.readouterr().out
    page = (tmp_path / "r" / "index.html").read_text(encoding="utf-8")
    for name in FIGURES:
        if f'src="{name}"' in page:
            assert imread(tmp_path / "r" / name).shape[:2] == (FIGURE_SIZE[1], FIGURE_SIZE[0])
        else:   # no empty chart: nothing is drawn, a sentence stands in for it
            assert not (tmp_path / "r" / name).exists()
    # 100,000 random deals: lengths, best and records to draw; no cycle, one speed sample.
    assert {"lengths.png", "best.png", "records.png"} <= {
        name for name in FIGURES if f'src="{name}"' in page}
    assert 'src="cycles.png"' not in page and "No never-ending deal" in page
    assert 'src="throughput.png"' not in page and "too short for a speed curve" in page


def test_the_histogram_in_the_log_counts_every_deal_played(random_log):
    log = RecordLog(random_log)
    run = log.runs()[0]
    for measure in ("cards", "tricks"):
        _, counts = log.histogram([run["id"]], measure)
        assert sum(counts.values()) == run["deals"] == 100_000


def test_the_tail_fit_agrees_with_a_direct_calculation_on_the_same_deals(random_log):
    log = RecordLog(random_log)
    width, counts = log.histogram([log.runs()[0]["id"]], "cards")
    fit = fit_tail(width, counts, measure="cards")
    assert fit.accepted, fit.reason
    lengths = play_batch(random_rows(STANDARD.deck, 100_000, 4, 0)).cards
    assert np.bincount(lengths // width).sum() == sum(counts.values())
    tail = lengths[lengths >= fit.threshold]
    assert len(tail) == fit.tail_games
    direct = float(np.mean(tail - fit.threshold))  # the exponential's maximum-likelihood scale
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


def test_only_random_searches_get_a_tail_and_only_random_standard_meets_205(tmp_path, capsys):
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
    sentences = re.findall(r"<li>(.*?)</li>", fits)
    assert len(sentences) == 4                        # four groups, one sentence each
    random_line, climb_line, three_line, deck_line = sentences
    assert random_line.startswith("random, standard rules, 2 players (100,000 games): beyond")
    assert "chi-square" in random_line and "published simulations" in random_line
    assert climb_line.startswith("climb, standard rules, 2 players")
    assert "no tail fit, because a climb" in climb_line and "published" not in climb_line
    assert three_line.startswith("random, standard rules, 3 players")
    assert "published" not in three_line
    assert "no tail fit, because an exhaustive search" in deck_line
    assert "deck ------JJQQK" in deck_line             # the setting in words
    records = page.split("<h2>Records</h2>")[1].split("<h2>")[0]
    ours = re.findall(r"<td>run (\d) \((\w+)\)</td>", records)
    assert ours and {run for run, _ in ours} <= {"1", "2"}  # not the 3-player run or the deck
    # Projections only for the random runs, each from its own lengths.
    projection = page.split("<h2>Projection</h2>")[1].split("<h2>")[0]
    assert projection.count("<b>Run ") == 2
    assert "<b>Run 1</b>" in projection and "<b>Run 3</b>" in projection


def test_a_durak_report_fits_on_the_data_and_says_the_setting_in_words(tmp_path, capsys):
    db = str(tmp_path / "durak.sqlite")
    assert main(["search", "random", "--game", "durak", "--players", "3", "--policy",
                 "aggressive", "--deals", "200000", "--seed", "1", "--workers", "1", "--db", db,
                 "--json", "--quiet"]) == 0
    capsys.readouterr()
    assert main(["report", "--db", db, "--game", "durak", "--out", str(tmp_path / "r")]) == 0
    page = (tmp_path / "r" / "index.html").read_text(encoding="utf-8")
    assert "<td>3 players, podkidnoy, 36 cards, aggressive play</td>" in page
    assert "deck=36" not in page
    log = RecordLog(db)
    width, counts = log.histogram([1], "bouts")
    fit = fit_tail(width, counts, measure="bouts")
    if fit.accepted:   # the line starts on the data, not ten times above it
        q = math.exp(-width / fit.scale)
        first = counts[fit.threshold // width]
        assert 0.5 < fit.tail_games * (1 - q) / first < 2
        assert "e-fold" in page or "factor e" in page
    else:
        assert "no tail line, because" in page
    assert 'src="cycles.png"' in page   # aggressive 3-player Durak cycles


@pytest.fixture(scope="module")
def two_decks(tmp_path_factory):
    """Two exhaustive runs, each on its own deck (two settings), both with cycles."""
    db = str(tmp_path_factory.mktemp("cycles") / "cycles.sqlite")
    for deck in ("------JJQQK", "-----JJQQ"):
        assert main(["search", "exhaustive", "--deck", deck, "--workers", "1", "--db", db,
                     "--json", "--quiet"]) == 0
    return db


def test_the_cycle_figure_and_table_follow_run(two_decks, tmp_path):
    db = two_decks
    log = RecordLog(db)
    every = {c["id"] for c in log.cycles()}
    first = {c["id"] for c in log.cycles(run_ids=[1])}
    assert first and first < every
    assert main(["report", "--db", db, "--run", "1", "--out", str(tmp_path / "r")]) == 0
    page = (tmp_path / "r" / "index.html").read_text(encoding="utf-8")
    table = page.split("<h2>Cycles</h2>")[1]
    assert set(re.findall(r"<td>([0-9a-f]{12})</td>", table)) == first


def test_best_so_far_counts_search_time_as_the_speed_samples_do(random_log, tmp_path):
    """A run stopped for an hour between its start and its finds: the hour is not search."""
    db = tmp_path / "stopped.sqlite"
    db.write_bytes(random_log.read_bytes())
    with sqlite3.connect(db) as con:
        con.execute("UPDATE runs SET started = started - 3600")
    log = RecordLog(db)
    run = log.runs()[0]
    [(xs, ys, _)] = best_lines(log, [run], "cards")
    finds = [f for f in log.finds([run["id"]]) if f["outcome"] != "cycle"]
    assert xs == sorted(xs) and set(xs[:-1]) <= {f["seconds"] for f in finds}
    assert xs[-1] == run["seconds"] == log.samples(run["id"])[-1]["seconds"] < 3600
    fig = best_figure([(xs, ys, "run 1")], "cards")
    speed = speed_figure([([run["seconds"]], [1.0], "run 1")])
    try:
        label = fig.axes[0].get_xlabel()
        assert label.startswith("search time") and "stopped does not count" in label
        assert label == speed.axes[0].get_xlabel()
    finally:
        plt.close(fig)
        plt.close(speed)


def test_cycles_of_two_settings_are_two_named_series(two_decks, tmp_path):
    db = two_decks
    log = RecordLog(db)
    settings = [setting_text(run) for run in log.runs()]
    assert len(set(settings)) == 2
    cycles = log.cycles("beggar")
    for shown in (cycles, [{**c, "deals": 1} for c in cycles]):  # bars, then periods
        fig = cycle_figure(shown, ("cards", "tricks"))
        try:
            series = {bars.get_label(): len(bars) for bars in fig.axes[0].containers}
            legend = [t.get_text() for t in fig.legends[0].get_texts()]
        finally:
            plt.close(fig)
        assert set(series) == set(legend) == set(settings)
        if shown is cycles:   # one bar per cycle, in its setting's series
            assert sorted(series.values()) == sorted(
                sum(c["options_key"] == run["options_key"] for c in cycles)
                for run in log.runs())
    assert main(["report", "--db", db, "--out", str(tmp_path / "r")]) == 0
    table = (tmp_path / "r" / "index.html").read_text(encoding="utf-8").split(
        "<h2>Cycles</h2>")[1]
    assert all(f"<td>{setting}</td>" in table for setting in settings)


def test_a_run_measured_once_is_a_marked_point_and_the_legend_hides_no_data(random_log):
    log = RecordLog(random_log)
    run = log.runs()[0]
    [once] = speed_lines(log, [run])     # 100,000 deals: one speed measurement
    assert len(once[0]) == 1
    longer = ([10.0, 20.0, 30.0], [once[1][0] * 0.9] * 3, "run 2: random")
    fig = speed_figure([longer, once])
    try:
        ax = fig.axes[0]
        [point] = [line for line in ax.get_lines() if len(line.get_xdata()) == 1]
        style = MarkerStyle(point.get_marker())   # '.' is half the size of 'o'
        across = style.get_path().transformed(style.get_transform()).get_extents().width
        assert style.is_filled() and across * point.get_markersize() >= 5   # points
        [legend] = fig.legends
        assert ax.get_legend() is None
        fig.canvas.draw()
        box = legend.get_window_extent()
        assert not box.overlaps(ax.get_window_extent())
        assert all(not box.contains(*xy) for line in ax.get_lines()
                   for xy in ax.transData.transform(line.get_xydata()))
    finally:
        plt.close(fig)


def test_the_length_axis_says_plain_numbers_not_mathtext(random_log, tmp_path, monkeypatch):
    """The report draws texts as written (no mathtext), so the log scale's labels must be
    plain: '1,000', never '$\\mathdefault{10^{3}}$'."""
    figures = {}
    monkeypatch.setattr(report, "_save", lambda fig, path: figures.__setitem__(path.name, fig))
    report.write_report(RecordLog(random_log), [], tmp_path, "beggar")
    fig = figures["lengths.png"]
    try:
        fig.canvas.draw()
        labels = [t.get_text() for t in fig.axes[0].get_yticklabels() if t.get_text()]
    finally:
        plt.close(fig)
    assert labels and all(re.fullmatch(r"[\d,.]+", label) for label in labels), labels
