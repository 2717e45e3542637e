"""Searches end to end: exhaustive counts against the reference, the log, kill and resume."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Iterator

import pytest

from dealsearch import Deal, get_rules
from dealsearch.cli import main
from dealsearch.notation import format_deal, parse_deck
from dealsearch.reference import play_reference
from dealsearch.rules import Rules
from dealsearch.search.exhaustive import count_deals, rank, unrank

CASELLA = "---K---Q-KQAJ-----AAJ--J--/----------Q----KQ-J-----KA"


def orderings(counts: list[int]) -> Iterator[tuple[int, ...]]:
    """Every distinct ordering of a multiset, written the obvious way."""
    if not any(counts):
        yield ()
        return
    for cls, have in enumerate(counts):
        if have:
            counts[cls] -= 1
            for rest in orderings(counts):
                yield (cls, *rest)
            counts[cls] += 1


def reference_census(deck: tuple[int, ...], players: int) -> tuple[Counter, set[str]]:
    rules = get_rules("standard").with_deck(deck)
    sizes = Rules.deal_sizes(sum(deck), players)
    outcomes: Counter = Counter()
    cycles = set()
    for cards in orderings(list(deck)):
        hands, start = [], 0
        for size in sizes:
            hands.append(cards[start:start + size])
            start += size
        deal = Deal(tuple(hands))
        result = play_reference(deal, rules)
        outcomes[result.outcome] += 1
        if result.outcome == "cycle":
            cycles.add(format_deal(deal, rules))
    return outcomes, cycles


def search_json(capsys, *argv: str) -> tuple[list[dict], dict]:
    assert main(["search", *argv, "--json", "--quiet"]) == 0
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    return lines[:-1], lines[-1]


def test_rank_and_unrank_are_inverse_and_ordered():
    deck = (3, 1, 2)
    every = [unrank(i, deck) for i in range(count_deals(deck))]
    assert every == sorted(set(every)) == list(orderings(list(deck)))
    assert [rank(cards, deck) for cards in every] == list(range(len(every)))


@pytest.mark.parametrize(("deck", "players"), [
    ("------JJQQK", 2),    # 13,860 deals, 42 of them cycle
    ("----------QJ", 2),
    ("------JJQQ", 3),
    ("------JJQQ", 4),
])
def test_exhaustive_search_matches_the_reference_census(capsys, tmp_path, deck, players):
    finds, summary = search_json(capsys, "exhaustive", "--deck", deck, "--players",
                                 str(players), "--workers", "2", "--db",
                                 str(tmp_path / "log.sqlite"))
    outcomes, cycles = reference_census(parse_deck(deck), players)
    assert summary["outcomes"] == {k: outcomes.get(k, 0) for k in ("win", "cycle", "limit")}
    assert summary["deals"] == sum(outcomes.values())
    assert cycles, "pick decks where cycles exist"
    assert {f["deal"] for f in finds if f["outcome"] == "cycle"} == cycles


def test_climb_started_on_the_looping_deal_logs_it_as_a_cycle(capsys, tmp_path):
    db = str(tmp_path / "log.sqlite")
    finds, summary = search_json(capsys, "climb", "--start", CASELLA, "--deals", "300",
                                 "--workers", "1", "--seed", "7", "--db", db)
    cycles = [f for f in finds if f["outcome"] == "cycle"]
    assert any(f["deal"] == CASELLA for f in cycles)
    assert cycles[0]["cycle"] == {"entry_cards": 34, "entry_tricks": 4,
                                  "period_cards": 440, "period_tricks": 62}
    assert summary["deals"] == 300
    logged = sqlite3.connect(db).execute(  # schema v2: the game's measures, named in JSON
        "SELECT outcome, measure_1, measure_2, measures FROM finds WHERE deal = ?",
        (CASELLA,)).fetchall()
    assert logged == [("cycle", 474, 66, '{"cards": 474, "tricks": 66}')]


def test_random_search_is_reproducible_for_a_seed_whatever_the_workers(capsys, tmp_path):
    runs = [search_json(capsys, "random", "--deals", "250000", "--seed", "11", "--workers",
                        str(workers), "--db", str(tmp_path / f"{workers}.sqlite"))[1]
            for workers in (1, 2)]
    for key in ("deals", "cards", "outcomes", "best"):
        assert runs[0][key] == runs[1][key]
    assert runs[0]["deals"] == 250000 and sum(runs[0]["outcomes"].values()) == 250000


def test_records_lists_best_first_and_verify_replays_a_real_log(capsys, tmp_path):
    db = str(tmp_path / "log.sqlite")
    search_json(capsys, "random", "--deals", "200000", "--seed", "3", "--workers", "2",
                "--db", db)
    search_json(capsys, "exhaustive", "--deck", "-------JJ", "--workers", "1", "--db", db)
    assert main(["records", "--db", db, "--json"]) == 0
    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    wins = [r["cards"] for r in rows if r["outcome"] == "win"]
    assert wins == sorted(wins, reverse=True) and len(wins) >= 5
    assert rows[-1]["outcome"] == "cycle"
    assert main(["records", "--db", db, "--verify"]) == 0
    assert "0 mismatches" in capsys.readouterr().out
    assert main(["records", "--db", db, "--csv"]) == 0
    assert capsys.readouterr().out.startswith("deal,rules,outcome")


def _start(db: str, *argv: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "dealsearch.cli", "search", *argv, "--json", "--quiet",
         "--db", db],
        stdout=subprocess.PIPE, text=True, start_new_session=True)


def test_sigkill_then_resume_keeps_every_printed_find_and_finishes_the_budget_once(tmp_path):
    db = str(tmp_path / "log.sqlite")
    budget = 3_000_000
    search = _start(db, "random", "--deals", str(budget), "--workers", "1", "--seed", "5")
    printed = []
    assert search.stdout is not None
    while len(printed) < 8:
        line = search.stdout.readline()
        assert line, "the search ended before it printed enough finds"
        printed.append(json.loads(line))
    os.killpg(search.pid, signal.SIGKILL)
    search.wait()
    # A reader can open the log at once; the printed finds are all there.
    logged = {row[0] for row in sqlite3.connect(db).execute("SELECT deal FROM finds")}
    assert {f["deal"] for f in printed} <= logged
    run = sqlite3.connect(db).execute("SELECT id, status, deals FROM runs").fetchone()
    assert run[1] == "running" and run[2] < budget

    resumed = _start(db, "--resume", str(run[0]))
    out, _ = resumed.communicate(timeout=120)
    summary = json.loads(out.splitlines()[-1])
    assert resumed.returncode == 0
    assert summary["run_id"] == run[0]
    assert summary["deals"] == budget == sum(summary["outcomes"].values())
    fresh = _start(str(tmp_path / "fresh.sqlite"), "random", "--deals", str(budget),
                   "--workers", "1", "--seed", "5")
    expected = json.loads(fresh.communicate(timeout=120)[0].splitlines()[-1])
    assert summary["cards"] == expected["cards"] and summary["best"] == expected["best"]


def test_reader_can_query_the_log_while_a_search_writes(tmp_path):
    db = str(tmp_path / "log.sqlite")
    search = _start(db, "random", "--time", "4s", "--workers", "1", "--seed", "9")
    seen = 0
    deadline = time.monotonic() + 10
    while search.poll() is None and time.monotonic() < deadline:
        if os.path.exists(db):
            reader = sqlite3.connect(db, timeout=5)
            seen = max(seen, reader.execute("SELECT count(*) FROM finds").fetchone()[0])
            reader.close()
        time.sleep(0.2)
    search.communicate(timeout=30)
    assert search.returncode == 0 and seen > 0


@pytest.mark.parametrize(("argv", "message"), [
    (["search", "sideways"], "invalid choice: 'sideways'"),
    (["search", "random", "--workers", "0"], "'0': need at least 1 worker"),
    (["search", "exhaustive", "--deck", "--Z-"], "deck, position 3: unknown card 'Z'"),
    (["search", "exhaustive"], "an exhaustive search needs --deck"),
    (["search", "random", "--time", "soon"], "bad duration 'soon'"),
    (["search"], "search needs a strategy"),
    (["search", "--resume", "99"], "no run 99"),
    (["search", "--resume", "1", "--deals", "10"], "--resume continues the run as it was "
                                                   "started: drop --deals"),
    (["records", "--db", "/nonexistent/log.sqlite"], "no log at /nonexistent/log.sqlite"),
])
def test_bad_search_options_give_one_line_and_exit_2(capsys, tmp_path, monkeypatch, argv,
                                                      message):
    monkeypatch.chdir(tmp_path)
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and message in err, err


def test_an_exhaustive_search_that_would_never_end_is_refused(capsys, tmp_path):
    db = tmp_path / "never.sqlite"
    assert main(["search", "exhaustive", "--deck", "-" * 17 + "JJJQQQKKKAAA", "--db",
                 str(db)]) == 2
    assert "would never end" in capsys.readouterr().err and not db.exists()


def test_a_climbs_histogram_counts_every_game_it_played(tmp_path):
    from dealsearch.log import RecordLog

    db = tmp_path / "climb.sqlite"
    assert main(["search", "climb", "--deals", "12000", "--stall", "1000", "--seed", "2",
                 "--workers", "1", "--db", str(db), "--json", "--quiet"]) == 0
    log = RecordLog(db)
    run = log.runs()[0]
    for measure in ("cards", "tricks"):
        assert sum(log.histogram([run["id"]], measure)[1].values()) == run["deals"] == 12000
