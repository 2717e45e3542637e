"""Searches end to end: exhaustive counts against the reference, the log, kill and resume."""

from __future__ import annotations

import csv
import json
import os
import signal
import sqlite3
import subprocess
from collections import Counter
from collections.abc import Iterator

import numpy as np
import pytest

from dealsearch.cli import main
from dealsearch.game import GameResult
from dealsearch.games.beggar import _climb
from dealsearch.games.beggar.engine import play, play_batch, shuffled_rows
from dealsearch.games.beggar.notation import Deal, Rules, format_deal, parse_deal, parse_deck
from dealsearch.games.beggar.options import get_rules
from dealsearch.games.beggar.reference import play_reference
from dealsearch.log import RecordLog
from dealsearch.orderings import count_deals, rank, unrank
from dealsearch.search.base import Report, Task, compact
from dealsearch.search.climb import (
    POOL_SIZE,
    SLICE_GAMES,
    ClimbSearch,
    _grow_backwards,
    climb_slice,
)
from dealsearch.search.hooks import TestHooks
from dealsearch.search.runner import Runner
from dealsearch.search.spec import SearchSpec

from conftest import ctrl_c_after_first_find, run_cli, search_json, start_cli
from deals import CASELLA, RECORD


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
    logged = sqlite3.connect(db).execute(  # schema v3: the game's measures, named
        "SELECT outcome, measures, (SELECT group_concat(measure || '=' || value) FROM"
        " (SELECT * FROM find_measures WHERE find_id = id ORDER BY measure))"
        " FROM finds WHERE deal = ?", (CASELLA,)).fetchall()
    assert logged == [("cycle", '{"cards": 474, "tricks": 66}', "cards=474,tricks=66")]


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
    assert capsys.readouterr().out.startswith("deal,options_key,outcome,details,cards,tricks")


def _start(db: str, *argv: str, hold: int = 0) -> subprocess.Popen[str]:
    # hold: the coordinator stops (still 'running') once it has told that many finds.
    return start_cli("search", *argv, "--json", "--quiet", "--db", db, stderr=None,
                     hooks=TestHooks(hold_after_finds=hold) if hold else None)


@pytest.mark.slow
def test_sigkill_then_resume_keeps_every_printed_find_and_finishes_the_budget_once(tmp_path):
    db = str(tmp_path / "log.sqlite")
    budget = 3_000_000
    search = _start(db, "random", "--deals", str(budget), "--workers", "1", "--seed", "5",
                    hold=8)
    printed = []
    assert search.stdout is not None
    while len(printed) < 8:
        line = search.stdout.readline()
        assert line, "the search ended before it printed enough finds"
        printed.append(json.loads(line))
    os.killpg(search.pid, signal.SIGKILL)  # the coordinator holds after 8 finds: mid-run
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


def test_a_search_is_never_held_or_paused_by_its_environment(tmp_path):
    # Test hooks are a parameter (TestHooks), not read from the environment: the variables
    # they once were read from, left set in a user's shell, neither hold nor slow a search.
    env = {**os.environ, "DEALSEARCH_TEST_HOLD_AFTER_FINDS": "1",
           "DEALSEARCH_TEST_SAVE_PAUSE": "600"}
    done = run_cli("search", "random", "--deck", "--------JJQQKK", "--deals", "200000",
                   "--workers", "1", "--seed", "4", "--json", "--quiet",
                   "--db", str(tmp_path / "log.sqlite"), env=env, timeout=120)
    assert done.returncode == 0, done.stderr
    finds = done.stdout.splitlines()[:-1]
    assert finds, "the setting must tell finds, where a hold would stop it"


def test_reader_can_query_the_log_while_a_search_writes(tmp_path):
    db = str(tmp_path / "log.sqlite")
    # The coordinator holds, mid-run, once it has told 3 finds: they are committed by then.
    search = _start(db, "random", "--workers", "1", "--seed", "9", hold=3)
    assert search.stdout is not None
    told = [json.loads(search.stdout.readline()) for _ in range(3)]
    reader = sqlite3.connect(db, timeout=5)
    logged = {row[0] for row in reader.execute("SELECT deal FROM finds")}
    status = reader.execute("SELECT status FROM runs").fetchone()[0]
    reader.close()
    os.killpg(search.pid, signal.SIGKILL)
    search.wait()
    assert status == "running" and {find["deal"] for find in told} <= logged


@pytest.mark.parametrize(("argv", "message"), [
    (["search", "sideways"], "invalid choice: 'sideways'"),
    (["search", "random", "--workers", "-1"], "argument --workers: '-1' must be 0 or more"),
    (["search", "exhaustive", "--deck", "--Z-"], "deck, position 3: unknown card 'Z'"),
    (["search", "exhaustive"], "deals would never end (at "),
    (["search", "random", "--time", "soon"], "bad duration 'soon'"),
    (["search", "random", "--time", "-5m"], "bad duration '-5m': a budget cannot be negative"),
    (["search", "random", "--time", "90"],
     "bad duration '90': a number needs its unit: 90s, 90m or 90h"),
    (["search", "random", "--time", "1h90"],
     "bad duration '1h90': the number after 'h' counts minutes, 0 to 59"),
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


# ---------------------------------------------------------------- climbs: as asked, and again



@pytest.mark.parametrize(("argv", "message"), [
    (["--start", RECORD[:26] + "-/" + RECORD[28:]],  # a numeral moved from hand 2 to hand 1
     "--start: the deal has hands of 27/25 cards, the options 26/26"),
    (["--start", RECORD, "--players", "3"],
     "--start: the deal has hands of 26/26 cards, the options 18/17/17"),
])
def test_a_climb_start_is_climbed_as_given_or_refused(capsys, tmp_path, argv, message):
    db = tmp_path / "log.sqlite"
    assert main(["search", "climb", *argv, "--deals", "1000", "--workers", "1",
                 "--db", str(db)]) == 2
    assert capsys.readouterr().err == f"dealsearch: error: {message}\n"
    assert not db.exists()


def test_a_lower_case_start_is_the_value_of_start(capsys, tmp_path):
    finds, summary = search_json(capsys, "climb", "--start", RECORD.lower(), "--deals", "200",
                                 "--workers", "1", "--seed", "1", "--db",
                                 str(tmp_path / "log.sqlite"))
    assert finds[0]["deal"] == RECORD and finds[0]["cards"] == 8344
    assert summary["deals"] == 200


def test_each_climber_plays_a_fixed_share_whichever_worker_is_idle_first():
    def slices(order: str) -> dict[int, list[int]]:
        """The games of each climber's slices when the reports come back in this order."""
        search = ClimbSearch(SearchSpec("climb", game="beggar", deals=2 * SLICE_GAMES + 20_000,
                                        workers=2),
                             {})
        played: dict[int, list[int]] = {0: [], 1: []}
        in_flight = []
        while not search.finished:
            while (task := search.next_task()) is not None:
                in_flight.append(task)
                played[task.key].append(task.payload["games"])
            task = in_flight.pop(0 if order == "first out first in" else -1)
            search.absorb(Report(task.key, deals=task.payload["games"]))
        return played

    assert slices("first out first in") == slices("last out first in") == {
        0: [SLICE_GAMES, 10_000], 1: [SLICE_GAMES, 10_000]}


@pytest.mark.parametrize("seed", [1, 3])
def test_a_climber_plays_the_same_games_however_its_work_is_sliced(seed):
    spec = SearchSpec("climb", game="beggar", seed=seed, workers=1, settings={"stall": 2000})
    whole = climb_slice(spec, Task(0, {"state": None, "games": 40_000}))
    state, total, finds = None, 0, []
    for _ in range(10):
        part = climb_slice(spec, Task(0, {"state": state, "games": 4_000}))
        state, total, finds = part.state, total + part.total, finds + part.finds
    assert whole.state is not None and state is not None
    assert whole.state["restarts"] > 5, "slices must cross restarts to show anything"
    assert state == whole.state and total == whole.total and finds == whole.finds


def climbers(db: str) -> dict:
    """The climb checkpoint of the log's (only) run."""
    row = sqlite3.connect(db).execute("SELECT checkpoint FROM runs").fetchone()
    return json.loads(row[0])["strategy"]


def check_climbers(checkpoint: dict, shares: list[int]) -> None:
    """Each climber played its share and its checkpoint holds its best deal and that deal's
    score (so a resumed climber continues from its best, not from its current deal)."""
    assert checkpoint["played"] == {str(c): share for c, share in enumerate(shares)}
    for state in checkpoint["climbers"].values():
        batch = play_batch([state["best"]])
        assert state["best_score"] == int(batch.cards[0]) >= state["score"]


@pytest.mark.parametrize("workers", [1, 2])
def test_a_climb_with_a_seed_is_reproducible(capsys, tmp_path, workers):
    dbs = [str(tmp_path / f"{attempt}.sqlite") for attempt in range(2)]
    runs = [search_json(capsys, "climb", "--deals", "120000", "--workers", str(workers),
                        "--seed", "3", "--db", db)[1] for db in dbs]
    for key in ("deals", "cards", "outcomes", "best"):
        assert runs[0][key] == runs[1][key], key
    assert runs[0]["deals"] == 120000
    assert climbers(dbs[0]) == climbers(dbs[1])
    check_climbers(climbers(dbs[0]), [120000 // workers] * workers)


def test_an_interrupted_climb_resumes_to_the_fresh_run(capsys, tmp_path):
    db = str(tmp_path / "log.sqlite")
    spec = SearchSpec("climb", game="beggar", deals=150_000, seed=8, workers=2)

    ctrl_c = ctrl_c_after_first_find()

    log = RecordLog(db)
    interrupted = Runner(spec, log, on_find=ctrl_c, progress=False).run()
    log.close()
    assert interrupted.status == "interrupted" and interrupted.deals < spec.deals
    _, resumed = search_json(capsys, "--resume", str(interrupted.run_id), "--db", db)
    _, fresh = search_json(capsys, "climb", "--deals", "150000", "--seed", "8", "--workers",
                           "2", "--db", str(tmp_path / "fresh.sqlite"))
    for key in ("deals", "cards", "outcomes", "best"):
        assert resumed[key] == fresh[key], key
    assert climbers(db) == climbers(str(tmp_path / "fresh.sqlite"))  # every climber's state
    check_climbers(climbers(db), [75000, 75000])


def test_each_new_best_is_printed_once_and_climbers_speak_when_verbose(capsys, tmp_path):
    argv = ["search", "climb", "--deals", "60000", "--workers", "1", "--seed", "2"]
    assert main([*argv, "--db", str(tmp_path / "quiet.sqlite")]) == 0
    out = capsys.readouterr().out.splitlines()
    assert sum(line.startswith("best ") for line in out) >= 3
    assert not any("climber" in line for line in out)
    assert main([*argv, "--verbose", "--db", str(tmp_path / "verbose.sqlite")]) == 0
    verbose = capsys.readouterr().out.splitlines()
    assert any(line.startswith("climber 1: best ") for line in verbose)
    assert [line for line in verbose if line.startswith("best ")] == [
        line for line in out if line.startswith("best ")]


def _climber_at(deal: str, spec: SearchSpec) -> tuple[_climb.Climber, np.ndarray]:
    rules = spec.options.game_rules
    row = np.array(parse_deal(deal, rules).cards, dtype=np.uint8)
    climber = _climb.Climber(spec.options.sizes, rules.payments, spec.seed, 0, None, None,
                             spec.objective == "tricks")
    climber.reset(row, play(deal, rules).tricks, 1.0)
    return climber, row


def _row_result(deal: str, spec: SearchSpec) -> tuple[np.ndarray, GameResult]:
    """What a game's ``longer_starts`` gives for ``deal``: its row and result."""
    row = spec.plugin.parse(deal, spec.options)
    return row, spec.plugin.play_reference(row, spec.options)


def _more_cards_fewer_tricks() -> tuple[str, str, str]:
    """Three random deals X, A, B: A has the most cards, B more tricks than A, X more than A."""
    rows = shuffled_rows(2000, seed=12)
    batch = play_batch(rows)
    wins = [i for i in range(len(rows)) if batch.outcome[i] == 0]
    tricks, cards = batch.tricks.tolist(), batch.cards.tolist()
    x, a, b = next((x, a, b) for b in wins for a in wins
                   if cards[a] > cards[b] and tricks[a] < tricks[b]
                   for x in wins if tricks[a] < tricks[x] < tricks[b])
    spec = SearchSpec("climb", game="beggar")
    return tuple(compact(rows[i], spec) for i in (x, a, b))  # type: ignore[return-value]


def test_reverse_every_with_tricks_continues_from_the_most_tricks(monkeypatch):
    x, a, b = _more_cards_fewer_tricks()
    # The walk back is tested in test_reverse; here it finds A and B, longest in cards first.
    spec = SearchSpec("climb", game="beggar", objective="tricks", workers=1,
                      settings={"reverse_every": 1})
    monkeypatch.setattr(spec.plugin, "longer_starts",
                        lambda *args: [_row_result(a, spec), _row_result(b, spec)])
    climber, _ = _climber_at(x, spec)
    _grow_backwards(spec, climber, {"record": climber.best_score}, Report(0))
    assert climber.best_score == play(b).tricks > play(a).tricks
    _, b_row = _climber_at(b, spec)
    assert climber.current_row.tolist() == b_row.tolist()


def test_reverse_every_never_restarts_a_climber_below_its_best(monkeypatch):
    x, a, _ = _more_cards_fewer_tricks()
    spec = SearchSpec("climb", game="beggar", objective="tricks", workers=1,
                      settings={"reverse_every": 1})
    monkeypatch.setattr(spec.plugin, "longer_starts", lambda *args: [_row_result(a, spec)])
    climber, x_row = _climber_at(x, spec)
    before = climber.best_score
    _grow_backwards(spec, climber, {"record": before}, Report(0))
    assert climber.best_score == before == play(x).tricks > play(a).tricks
    assert climber.best_row.tolist() == x_row.tolist()


def test_reverse_every_grows_a_climb_backwards_end_to_end(capsys, tmp_path):
    db = str(tmp_path / "log.sqlite")
    assert main(["search", "climb", "--reverse-every", "1", "--objective", "tricks",
                 "--deals", "20000", "--workers", "1", "--seed", "2", "--verbose", "--quiet",
                 "--db", db]) == 0
    out = capsys.readouterr().out.splitlines()
    assert any("grown backwards to" in line and line.endswith("tricks") for line in out)
    logged = [row[0] for row in sqlite3.connect(db).execute(
        "SELECT value FROM finds JOIN find_measures ON find_id = id WHERE outcome = 'win'"
        " AND measure = 'tricks' ORDER BY id")]
    assert len(logged) >= 2 and logged == sorted(logged)  # each a new best in tricks
    with RecordLog(db, readonly=True) as log:   # and listed by tricks, the run's objective
        listed = [f for f in log.finds() if f["outcome"] == "win"]
    assert {f["objective"] for f in listed} == {"tricks"}
    assert [f["tricks"] for f in listed] == sorted(logged, reverse=True)
    assert main(["records", "--db", db, "--verify"]) == 0


def test_a_climbs_histogram_counts_every_game_it_played(tmp_path):
    from dealsearch.log import RecordLog

    db = tmp_path / "climb.sqlite"
    assert main(["search", "climb", "--deals", "12000", "--stall", "1000", "--seed", "2",
                 "--workers", "1", "--db", str(db), "--json", "--quiet"]) == 0
    log = RecordLog(db)
    run = log.runs()[0]
    for measure in ("cards", "tricks"):
        assert sum(log.histogram([run["id"]], measure)[1].values()) == run["deals"] == 12000


def test_records_shows_one_game_and_says_which_others_the_log_holds(capsys, tmp_path):
    db = str(tmp_path / "log.sqlite")
    assert main(["search", "random", "--game", "durak", "--players", "3", "--deals", "20000",
                 "--workers", "1", "--seed", "1", "--quiet", "--db", db]) == 0
    capsys.readouterr()
    assert main(["records", "--db", db]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[-2:] == [f"0 finds in {db}",
                        "the log also holds runs of durak: add --game NAME to see them"]
    assert main(["records", "--game", "durak", "--db", db, "--csv"]) == 0
    rows = list(csv.DictReader(capsys.readouterr().out.splitlines()))
    assert rows and all(row["options_key"].startswith("players=3;") for row in rows)
    assert main(["search", "random", "--game", "durak", "--players", "4", "--deals", "5000",
                 "--workers", "1", "--seed", "1", "--quiet", "--db", db]) == 0
    capsys.readouterr()
    assert main(["records", "--game", "durak", "--db", db]) == 0
    settings = [line.split(";")[0] for line in capsys.readouterr().out.splitlines()
                if line.startswith("durak: ")]
    assert [setting.split(",")[0] for setting in sorted(settings)] == [
        "durak: 3 players", "durak: 4 players"]  # never ranked together


def test_pool_restarts_climb_near_the_best_deals_and_are_reproducible():
    games = {"state": None, "games": 60_000}
    plain = climb_slice(SearchSpec("climb", game="beggar", seed=4, workers=1,
                                   settings={"stall": 1000}),
                        Task(0, games))
    spec = SearchSpec("climb", game="beggar", seed=4, workers=1, settings={"stall": 1000,
                      "restart": "pool"})
    pooled, again = (climb_slice(spec, Task(0, games)) for _ in range(2))
    assert pooled.state == again.state and pooled.total == again.total
    assert pooled.state["restarts"] > POOL_SIZE, "the pool must fill and be restarted from"
    assert pooled.total != plain.total and pooled.state["current"] != plain.state["current"]
    pool = pooled.state["pool"]
    assert len(pool) == POOL_SIZE and len({tuple(row) for _, row in pool}) == POOL_SIZE
    scores = [score for score, _ in pool]
    assert scores == sorted(scores, reverse=True)
    assert scores == play_batch([row for _, row in pool]).cards.tolist()  # scores are true
    assert scores[0] == pooled.state["record"]  # the climber's best ever is in its pool
    assert "pool" not in plain.state


def test_crossover_restarts_keep_a_true_pool_differ_from_pool_restarts_and_replay():
    games = {"state": None, "games": 60_000}
    pooled = climb_slice(SearchSpec("climb", game="beggar", seed=4, workers=1,
                                    settings={"stall": 1000, "restart": "pool"}),
                         Task(0, games))
    spec = SearchSpec("climb", game="beggar", seed=4, workers=1,
                      settings={"stall": 1000, "restart": "crossover"})
    crossed, again = (climb_slice(spec, Task(0, games)) for _ in range(2))
    assert crossed.state == again.state and crossed.total == again.total
    assert crossed.state["restarts"] > POOL_SIZE, "the pool must fill and be crossed"
    pool = crossed.state["pool"]
    assert len(pool) == POOL_SIZE and [s for s, _ in pool] == play_batch(
        [row for _, row in pool]).cards.tolist()
    # the same climbs fill both pools; after that the restarts differ
    assert crossed.total != pooled.total


@pytest.mark.parametrize(("seed", "restart"), [(1, "pool"), (3, "pool"), (1, "crossover")])
def test_a_pool_climber_plays_the_same_games_however_its_work_is_sliced(seed, restart):
    spec = SearchSpec("climb", game="beggar", seed=seed, workers=1,
                      settings={"stall": 1000, "restart": restart, "kick": 2})
    whole = climb_slice(spec, Task(0, {"state": None, "games": 40_000}))
    state, total = None, 0
    for _ in range(10):
        part = climb_slice(spec, Task(0, {"state": state, "games": 4_000}))
        state, total = part.state, total + part.total
    assert whole.state is not None and whole.state["restarts"] > POOL_SIZE
    assert state == whole.state and total == whole.total


def test_kick_makes_each_mutant_further_away_and_stays_reproducible():
    games = {"state": None, "games": 30_000}
    one = climb_slice(SearchSpec("climb", game="beggar", seed=5, workers=1), Task(0, games))
    spec = SearchSpec("climb", game="beggar", seed=5, workers=1, settings={"kick": 3})
    three, again = (climb_slice(spec, Task(0, games)) for _ in range(2))
    assert three.state == again.state and three.total == again.total
    assert three.total != one.total
    assert one.state["current"] != three.state["current"]


def test_a_kick_of_three_moves_a_mutant_further_than_one():
    payments = get_rules("standard").payments
    row = np.array(shuffled_rows(1, seed=9)[0], dtype=np.uint8)
    counts, hist = np.zeros(3, dtype=np.int64), np.zeros(8, dtype=np.int64)
    moved = {}
    for kick in (1, 3):
        moved[kick] = 0
        for stream in range(200):
            climber = _climb.Climber((26, 26), payments, 7, stream)
            assert climber.kick == 1  # the default
            climber.kick = kick
            climber.reset(row, 0, float("inf"))  # the first mutant is always accepted
            climber.climb(1, 10, 1.0, True, counts, (hist, hist.copy()), (1000, 1))
            moved[kick] += int((climber.current_row != row).sum())
    assert moved[3] > 2 * moved[1] > 0


@pytest.mark.parametrize("kick", [0, 17, 2.5, "2"])
def test_the_compiled_climber_refuses_a_bad_kick(kick):
    climber = _climb.Climber((26, 26), get_rules("standard").payments, 1, 0)
    with pytest.raises(ValueError, match="kick"):
        climber.kick = kick


@pytest.mark.parametrize(("argv", "message"), [
    (["--restart", "best"], "invalid choice"),
    (["--kick", "17"], "kick must be 1 to 16"),
    (["--kick", "0"], "kick"),
])
def test_bad_restart_or_kick_is_one_line_and_exit_2(capsys, tmp_path, argv, message):
    code = main(["search", "climb", "--deals", "100", *argv, "--db",
                 str(tmp_path / "log.sqlite")])
    err = capsys.readouterr().err
    assert code == 2 and message in err and "Traceback" not in err


def test_kick_is_for_climbs_of_beggar():
    with pytest.raises(ValueError, match="--kick is for climb searches"):
        SearchSpec.from_json({"game": "beggar", "strategy": "random", "kick": 2})
    with pytest.raises(ValueError, match="--kick needs a climb of a game with its own climber"):
        SearchSpec("climb", game="durak", settings={"kick": 2})
    with pytest.raises(ValueError, match="unknown restart"):
        SearchSpec("climb", game="beggar", settings={"restart": "best"})


def test_a_pool_climb_with_kicks_resumes_to_the_fresh_run(capsys, tmp_path):
    db = str(tmp_path / "log.sqlite")
    spec = SearchSpec("climb", game="beggar", deals=120_000, seed=6, workers=2,
                      settings={"stall": 1000, "restart": "pool", "kick": 2})
    ctrl_c = ctrl_c_after_first_find()

    log = RecordLog(db)
    interrupted = Runner(spec, log, on_find=ctrl_c, progress=False).run()
    log.close()
    assert interrupted.status == "interrupted"
    _, resumed = search_json(capsys, "--resume", str(interrupted.run_id), "--db", db)
    _, fresh = search_json(capsys, "climb", "--deals", "120000", "--seed", "6", "--workers",
                           "2", "--stall", "1000", "--restart", "pool", "--kick", "2",
                           "--db", str(tmp_path / "fresh.sqlite"))
    for key in ("deals", "cards", "outcomes", "best"):
        assert resumed[key] == fresh[key], key
    assert climbers(db) == climbers(str(tmp_path / "fresh.sqlite"))


@pytest.mark.parametrize(("argv", "message"), [
    (["--players", "3"], "--reverse-every: playing backwards needs 2 players"),
    (["--deck", "-" * 63 + "JQ"], "needs a deck of at most 64 cards"),
    (["--game", "durak"], "--reverse-every is not an option of search --game durak: it is "
                          "beggar's (--game beggar)"),
])
def test_reverse_every_is_refused_where_a_game_cannot_be_played_backwards(capsys, tmp_path,
                                                                          argv, message):
    db = tmp_path / "log.sqlite"
    assert main(["search", "climb", "--reverse-every", "2", *argv, "--deals", "100",
                 "--db", str(db)]) == 2
    err = capsys.readouterr().err
    assert message in err and len(err.strip().splitlines()) == 1
    assert not db.exists()


@pytest.mark.parametrize("game", ["durak", "spite"])
def test_a_campaign_cannot_grow_other_games_backwards(game):
    with pytest.raises(ValueError, match=f"--reverse-every: {game} cannot be played backwards"):
        SearchSpec("climb", game=game, settings={"reverse_every": 2})


def test_a_spec_always_names_its_game():
    """The framework has no game of its own: only the command line defaults --game."""
    with pytest.raises(ValueError, match="a search spec names its game"):
        SearchSpec.from_json({"strategy": "random", "deals": 10})
    with pytest.raises(TypeError, match="game"):
        SearchSpec("random", deals=10)  # type: ignore[call-arg]
