"""Exhaustive search by rank: a block of ranks played exactly once, budgets honoured, a space
too big to finish refused with a measured projection, and the rank of every find."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any

import numpy as np
import pytest

from dealsearch.cli import main
from dealsearch.game import Layout, get_game, make_options
from dealsearch.log import RecordLog
from dealsearch.search.backends import Backend
from dealsearch.search.distinct import DistinctDeals
from dealsearch.search.runner import Runner
from dealsearch.search.spec import SearchSpec

from conftest import ctrl_c_after_first_find, search_json

DECK = "------JJQQK"     # 13,860 deals, 42 of them never end


def census(options: dict[str, str], start: int, stop: int) -> dict[int, str]:
    """The never-ending deals of ranks [start, stop), the plain way: every row unranked
    alone and played on the game's batch player; rank -> deal."""
    game = get_game("beggar")
    opts = make_options(game, options)
    deals = DistinctDeals(game.layout(opts))
    rows = np.array([deals.row(rank) for rank in range(start, stop)], dtype=np.uint8)
    cycles = np.flatnonzero(game.play_batch(rows, opts).outcome
                            == game.outcomes.index("cycle"))
    return {start + int(i): game.format(rows[i], opts) for i in cycles}


def cycle_ranks(finds: list[dict]) -> dict[int, str]:
    return {find["rank"]: find["deal"] for find in finds if find["outcome"] == "cycle"}


def test_the_deal_budget_of_an_exhaustive_search_is_honoured(capsys, tmp_path):
    finds, summary = search_json(capsys, "exhaustive", "--deck", DECK, "--deals", "5",
                                 "--workers", "2", "--db", str(tmp_path / "log.sqlite"))
    assert summary["deals"] == 5 == sum(summary["outcomes"].values())
    assert summary["ranks"] == [[0, 5]]
    assert all(find["rank"] < 5 for find in finds)


@pytest.mark.parametrize("workers", ["1", "2"])
def test_a_block_of_ranks_plays_exactly_those_deals(capsys, tmp_path, workers):
    finds, summary = search_json(capsys, "exhaustive", "--deck", DECK, "--ranks", "1234:9876",
                                 "--workers", workers, "--db", str(tmp_path / "log.sqlite"))
    assert summary["deals"] == 9876 - 1234 == sum(summary["outcomes"].values())
    assert summary["ranks"] == [[1234, 9876]]
    expected = census({"deck": DECK}, 1234, 9876)
    assert cycle_ranks(finds) == expected and summary["outcomes"]["cycle"] == len(expected)
    deals = DistinctDeals(get_game("beggar").layout(make_options(get_game("beggar"),
                                                                 {"deck": DECK})))
    game = get_game("beggar")
    for find in finds:   # every find's rank is its deal's
        assert 1234 <= find["rank"] < 9876
        assert deals.number(game.parse(find["deal"], make_options(game, {"deck": DECK}))) \
            == find["rank"]


def test_a_block_and_a_budget_take_the_first_deals_of_the_block(capsys, tmp_path):
    _, summary = search_json(capsys, "exhaustive", "--deck", DECK, "--ranks", "100:900",
                             "--deals", "250", "--workers", "1",
                             "--db", str(tmp_path / "log.sqlite"))
    assert summary["deals"] == 250 and summary["ranks"] == [[100, 350]]


def test_a_space_too_big_to_finish_is_refused_with_what_it_would_cost(capsys, tmp_path):
    db = tmp_path / "never.sqlite"
    assert main(["search", "exhaustive", "--db", str(db)]) == 2
    error = capsys.readouterr().err
    assert "an exhaustive search of all 6.54e+20 deals would never end (at " in error
    assert "deals/s a core, measured here: " in error and " on 100)" in error
    assert "give --ranks START:END, --deals N or --time T" in error and not db.exists()


@pytest.mark.parametrize("part", [["--ranks", "10000000:10002000"], ["--deals", "2000"]])
def test_a_space_too_big_to_finish_is_searched_in_part(capsys, tmp_path, part):
    _, summary = search_json(capsys, "exhaustive", *part, "--workers", "1",
                             "--db", str(tmp_path / "log.sqlite"))
    assert summary["deals"] == 2000
    assert summary["ranks"] == [[10_000_000, 10_002_000] if "--ranks" in part else [0, 2000]]


@pytest.mark.parametrize(("argv", "message"), [
    (["exhaustive", "--deck", DECK, "--ranks", "0:20000"],
     "--ranks 0:20000: this layout has 13,860 deals, ranks 0 to 13,859"),
    (["exhaustive", "--deck", DECK, "--ranks", "9:9"], "START must be at least 0 and below END"),
    (["exhaustive", "--deck", DECK, "--ranks", "9"], "'9' is not START:END"),
    (["random", "--deck", DECK, "--ranks", "0:9"], "--ranks is for exhaustive searches"),
])
def test_bad_ranks_are_one_line(capsys, tmp_path, argv, message):
    assert main(["search", *argv, "--db", str(tmp_path / "log.sqlite")]) == 2
    error = capsys.readouterr().err
    assert message in error and len(error.strip().splitlines()) == 1, error


def test_an_interrupted_block_resumes_to_the_block_left_alone(capsys, tmp_path):
    db = str(tmp_path / "log.sqlite")
    block = ["--deck", "--------------JJQQK", "--ranks", "3000:303000", "--workers", "2"]
    spec = SearchSpec("exhaustive", game="beggar", workers=2, settings={"ranks": [3000, 303000]},
                      game_options={"deck": "--------------JJQQK"})
    log = RecordLog(db)
    interrupted = Runner(spec, log, on_find=ctrl_c_after_first_find(), progress=False).run()
    log.close()
    assert interrupted.status == "interrupted" and interrupted.deals < 300_000
    assert sum(b - a for a, b in interrupted.ranks or ()) == interrupted.deals
    capsys.readouterr()
    assert main(["status", "--all", "--json", "--db", db]) == 0
    status = json.loads(capsys.readouterr().out)
    assert status["ranks"] == [3000, 303000] and status["ranks_played"] == interrupted.ranks
    _, resumed = search_json(capsys, "--resume", str(interrupted.run_id),
                             "--db", db)
    fresh_finds, fresh = search_json(capsys, "exhaustive", *block,
                                     "--db", str(tmp_path / "fresh.sqlite"))
    for key in ("deals", "cards", "outcomes", "best", "ranks"):
        assert resumed[key] == fresh[key], key
    assert resumed["ranks"] == [[3000, 303000]]
    logged = RecordLog(db)
    cycles = {f["deal"] for f in logged.finds([interrupted.run_id]) if f["outcome"] == "cycle"}
    logged.close()
    assert cycles == set(cycle_ranks(fresh_finds).values())


@pytest.mark.parametrize("layout", [
    Layout(np.array([0, 0, 1, 1, 2], np.uint8), (2, 3), unordered=(True, False)),
    Layout(np.array([0, 1, 1, 0, 0, 1], np.uint8), (3, 3), fixed=(True, False)),
    Layout(np.array([0, 0, 1, 2, 0, 1, 2, 2], np.uint8), (2, 3, 3),
           unordered=(True, False, True), fixed=(False, True, False)),
    Layout(np.array([0, 0, 0, 1, 1, 2, 3], np.uint8), (3, 4)),
])
def test_a_deals_number_is_its_rank(layout):
    deals = DistinctDeals(layout)
    for rank in range(deals.total):
        row = deals.row(rank)
        assert deals.number(row) == rank
        assert deals.number(row[::-1].copy()[::-1]) == rank
    with pytest.raises(ValueError, match="not a deal of this layout"):
        deals.number(np.full(layout.n_cards, 1, np.uint8))


class OneWorkerPlaysWrongly(Backend):
    """Threads in this process; every second submission's report counts one win too many."""

    name = "flaky"

    def __init__(self) -> None:
        self.pool = ThreadPoolExecutor(2)
        self.submitted = 0

    @property
    def slots(self) -> int:
        return 2

    def submit(self, fn: Callable[..., Any], *args: Any) -> Future[Any]:
        self.submitted += 1
        wrong = self.submitted % 2 == 0

        def play() -> Any:
            report = fn(*args)
            if wrong:
                report.outcomes[0] += 1
            return report

        return self.pool.submit(play)

    def describe(self) -> str:
        return "2 threads"

    def close(self, wait: bool = True) -> None:
        self.pool.shutdown(wait=wait, cancel_futures=True)

    def wait_for_workers(self) -> None:
        pass


def test_blocks_played_twice_agree(capsys, tmp_path):
    argv = ["exhaustive", "--deck", DECK, "--ranks", "500:12500", "--workers", "2"]
    _, once = search_json(capsys, *argv, "--db", str(tmp_path / "once.sqlite"))
    _, twice = search_json(capsys, *argv, "--verify-blocks", "--db",
                           str(tmp_path / "twice.sqlite"))
    for key in ("deals", "cards", "outcomes", "best", "ranks"):
        assert once[key] == twice[key], key


def test_two_plays_that_differ_stop_the_run_naming_the_shards(tmp_path):
    spec = SearchSpec("exhaustive", game="beggar", workers=2,
                      settings={"ranks": [500, 12500], "verify_blocks": True},
                      game_options={"deck": DECK})
    log = RecordLog(tmp_path / "log.sqlite")
    with OneWorkerPlaysWrongly() as backend:
        summary = Runner(spec, log, progress=False, backend=backend).run()
    log.close()
    assert summary.status == "failed" and summary.deals == 0
    named = re.fullmatch(r"the shards from (\d+) \(ranks ([\d,]+) to [\d,]+\) gave different "
                         r"results on two workers \(.*\): a worker plays wrongly",
                         summary.error or "")
    assert named, summary.error
    shard_size = 12000 // 16   # 2 workers: 16 shards
    assert int(named[2].replace(",", "")) == 500 + int(named[1]) * shard_size


def test_records_lists_the_never_ending_deals_of_a_block_by_rank(capsys, tmp_path):
    db = str(tmp_path / "log.sqlite")
    search_json(capsys, "exhaustive", "--deck", DECK, "--workers", "2", "--db", db)
    assert main(["records", "--cycles", "--all", "--db", db]) == 0
    out = capsys.readouterr().out.splitlines()
    at = out.index("42 never-ending deals found by exhaustive search, by rank:")
    listed = {int(line.split()[0]): line.split()[-1] for line in out[at + 2:at + 44]}
    assert listed == census({"deck": DECK}, 0, 13860)
    assert sorted(listed) == [int(line.split()[0]) for line in out[at + 2:at + 44]]
    cycles = [line.split() for line in out[2:at] if line[:1].isalnum()][:-1]   # under its heading
    assert sum(int(row[4]) for row in cycles) == 42   # id, family, period, entry, deals
