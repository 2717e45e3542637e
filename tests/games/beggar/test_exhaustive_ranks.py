"""BMN's deal space by rank, as the published catalogues number it (N1k06's stracciacamicia:
the 20/20 Italian deals in lexicographic order of the card codes): ``rank`` and ``verify
--rank`` agree with their numbers, and blocks of the Italian space hold exactly the
never-ending deals a plain replay of the block finds, on the lanes' block player, on two
workers and on Dask."""

from __future__ import annotations

import numpy as np
import pytest

from dealsearch.cli import main
from dealsearch.game import get_game, make_options
from dealsearch.games.beggar import _lanes
from dealsearch.search import exhaustive
from dealsearch.search.base import Task
from dealsearch.search.distinct import DistinctDeals
from dealsearch.search.spec import SearchSpec

from conftest import search_json

ZANOTTO = ("00302020303100000310/00100200002000000010", 90016849133615)
FACTORY = ("00303002010000000000/30203100000202010010", 90556530072315)  # data/found_deals.csv


def italian_census(start: int, stop: int) -> dict[int, str]:
    """Rank -> deal of every never-ending deal of ranks [start, stop), played on the exact
    engine's batch player (no lanes, no block player)."""
    spec = SearchSpec("exhaustive", game="beggar", workers=1, game_options={"rules": "italian"},
                      settings={"ranks": [start, stop]})
    report = exhaustive._play_batches(spec, Task(0, {"start": start, "deals": stop - start}),
                                      DistinctDeals(spec.layout))
    assert report.deals == stop - start
    return {r.details["rank"]: deal for deal, r in report.finds if r.outcome == "cycle"}


def test_verify_plays_the_deal_of_a_rank(capsys):
    assert main(["verify", "--rules", "italian", "--rank", str(ZANOTTO[1])]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == ZANOTTO[0]
    assert "never ends" in out[1] and "period 546 cards, 84 tricks" in out[1]
    assert out[2] == f"  rank {ZANOTTO[1]}"


def test_rank_prints_the_catalogue_numbers(capsys):
    assert main(["rank", "--rules", "italian", ZANOTTO[0], FACTORY[0]]) == 0
    assert capsys.readouterr().out.splitlines() == [f"{rank}  {deal}"
                                                    for deal, rank in (ZANOTTO, FACTORY)]
    assert main(["verify", "--rules", "italian", "--show-rank", "--json", FACTORY[0]]) == 0
    assert '"rank": 90556530072315' in capsys.readouterr().out


@pytest.mark.parametrize(("deal", "rank"), [ZANOTTO, FACTORY])
def test_a_block_of_the_italian_space_holds_exactly_its_never_ending_deals(capsys, tmp_path,
                                                                           deal, rank):
    start, stop = rank - 120_000, rank + 80_000
    finds, summary = search_json(capsys, "exhaustive", "--rules", "italian", "--ranks",
                                 f"{start}:{stop}", "--workers", "2",
                                 "--db", str(tmp_path / "log.sqlite"))
    expected = italian_census(start, stop)
    assert expected[rank] == deal
    assert {f["rank"]: f["deal"] for f in finds if f["outcome"] == "cycle"} == expected
    assert summary["deals"] == stop - start and summary["ranks"] == [[start, stop]]
    assert summary["outcomes"]["cycle"] == len(expected)


@pytest.fixture
def lanes_on_small_decks():
    """Small decks (many cycles) on the lanes too, as the block player plays 32 cards up."""
    previous = _lanes.set_kernel("auto", min_cards=2)
    yield
    _lanes.set_kernel(previous)


@pytest.mark.parametrize("most_finds", [256, 3])
def test_the_block_player_counts_and_finds_what_the_engine_does(monkeypatch, most_finds,
                                                                lanes_on_small_decks):
    monkeypatch.setattr(exhaustive, "MAX_FINDS", most_finds)   # a block in many calls
    spec = SearchSpec("exhaustive", game="beggar", workers=1, game_options={"deck": "-------JJQQK"})
    task = Task(0, {"start": 1000, "deals": 20_000})
    fast = exhaustive.play_shard(spec, task)
    plain = exhaustive._play_batches(spec, task, DistinctDeals(spec.layout))
    assert fast.deals == plain.deals == 20_000
    assert fast.outcomes == plain.outcomes and fast.total == plain.total
    for measure in ("cards", "tricks"):
        assert np.array_equal(fast.histograms[measure], plain.histograms[measure])
    cycles = {d: r for d, r in fast.finds if r.outcome == "cycle"}
    assert cycles == {d: r for d, r in plain.finds if r.outcome == "cycle"} and cycles
    longest = max(r.measures["cards"] for _, r in fast.finds if r.outcome == "win")
    assert [(d, r) for d, r in plain.finds if r.outcome == "win"] == [
        (d, r) for d, r in fast.finds if r.outcome == "win" and r.measures["cards"] == longest]


def test_the_block_player_checks_its_arguments():
    rules = get_game("beggar").options(rules="italian").game_rules
    player = _lanes.BlockPlayer(rules.deck, (20, 20), rules.payments)
    with pytest.raises(ValueError, match="40 cards"):
        player.play(np.zeros(39, np.uint8), 5)
    with pytest.raises(ValueError, match="the deck's cards"):
        player.play(np.zeros(40, np.uint8), 5)
    first = DistinctDeals(get_game("beggar").layout(
        make_options(get_game("beggar"), {"rules": "italian"}))).row(ZANOTTO[1])
    played, counts, *_ = player.play(first, 1)
    assert played == 1 and counts.tolist() == [0, 1, 0]


@pytest.mark.slow  # starts a Dask cluster
def test_a_block_on_dask_holds_the_same_never_ending_deals(capsys, tmp_path):
    pytest.importorskip("distributed")
    rank = ZANOTTO[1]
    start, stop = rank - 60_000, rank + 60_000
    finds, summary = search_json(capsys, "exhaustive", "--rules", "italian", "--ranks",
                                 f"{start}:{stop}", "--workers", "2", "--backend", "dask",
                                 "--db", str(tmp_path / "log.sqlite"))
    assert {f["rank"]: f["deal"] for f in finds if f["outcome"] == "cycle"} == \
        italian_census(start, stop)
    assert summary["deals"] == stop - start and summary["ranks"] == [[start, stop]]
