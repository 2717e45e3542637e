"""The generic compiled search (dealsearch.search._generic) on the BMN kernel and on a toy
layout: uniform dealing, mutations that respect segments, and agreement with the fast paths."""

from __future__ import annotations

from collections import Counter
from itertools import permutations

import numpy as np
import pytest

from dealsearch.game import get_game
from dealsearch.games.beggar._kernel import BeggarKernel
from dealsearch.games.beggar.notation import STANDARD
from dealsearch.search._generic import Climber, Sampler

BEGGAR = get_game("beggar")
HISTS = ([np.zeros(2048, np.int64), np.zeros(4096, np.int64)], [10, 1])


def small(deck: str = "---JQ", players: int = 2):
    options = BEGGAR.options(deck=deck, players=players)
    layout = BEGGAR.layout(options)
    return options, layout, BEGGAR.kernel(options)


def test_the_sampler_deals_every_arrangement_equally_often():
    """Chi-square over the 20 distinct arrangements of ---JQ (5 cards, classes 0 0 0 1 2)."""
    _options, layout, kernel = small()
    sampler = Sampler(kernel, layout.deck, layout.segments, layout.unordered, layout.fixed,
                      5, 0, 0, 0, 1, 3, best=10**9)
    seen: Counter[tuple[int, ...]] = Counter()
    climber = Climber(kernel, layout.deck, layout.segments, layout.unordered, layout.fixed, 5, 0)
    for _ in range(20_000):
        climber.shuffle_current()
        seen[tuple(climber.current_row.tolist())] += 1
    arrangements = set(permutations(layout.deck.tolist()))
    assert set(seen) == arrangements
    expected = 20_000 / len(arrangements)
    chi2 = sum((n - expected) ** 2 / expected for n in seen.values())
    assert chi2 < 43.8  # 19 degrees of freedom, p = 0.001
    played, counts, _totals, rows, _results = sampler.play(1000)
    assert played == 1000 and counts.sum() == 1000 and len(rows) == counts[1]


def test_sampler_finds_are_new_bests_and_cycles_with_their_exact_results():
    options = BEGGAR.options()
    layout = BEGGAR.layout(options)
    sampler = Sampler(BEGGAR.kernel(options), layout.deck, layout.segments, layout.unordered,
                      layout.fixed, 1, 0)
    played, _counts, _totals, rows, results = sampler.play(20_000, 256, *HISTS)
    assert played == 20_000 and HISTS[0][0].sum() == 20_000 == HISTS[0][1].sum()
    batch = BEGGAR.play_batch(rows, options)
    assert (results[:, 0] == batch.outcome).all()
    assert (results[:, 1:3] == batch.measures).all()
    wins = results[results[:, 0] == 0, 1]
    assert (np.diff(wins) > 0).all() and wins[-1] == sampler.best


def test_the_sampler_keeps_fixed_segments_and_shuffles_the_rest():
    kernel = BeggarKernel((3, 3, 4), STANDARD.payments)
    deck = np.array([1, 1, 1, 0, 0, 0, 2, 3, 4, 0], dtype=np.uint8)
    climber = Climber(kernel, deck, (3, 3, 4), (False,) * 3, (True, False, False), 2, 0)
    for _ in range(200):
        climber.shuffle_current()
        row = climber.current_row
        assert (row[:3] == 1).all()
        assert sorted(row[3:].tolist()) == sorted(deck[3:].tolist())


@pytest.mark.parametrize(("weights", "fixed", "unordered"), [
    ((1, 0, 0, 0), (False, False, False), (False, False, False)),
    ((0, 1, 0, 0), (True, False, False), (False, False, False)),
    ((0, 0, 1, 0), (False, False, True), (False, False, True)),
    ((0, 0, 0, 1), (True, False, False), (False, False, False)),
    ((1, 1, 1, 1), (False, True, False), (True, False, True)),
])
def test_mutations_keep_the_deck_fixed_segments_and_unordered_sets(weights, fixed, unordered):
    kernel = BeggarKernel((4, 4, 4), STANDARD.payments)
    deck = np.array([0, 0, 1, 2, 0, 3, 4, 0, 1, 0, 0, 2], dtype=np.uint8)
    climber = Climber(kernel, deck, (4, 4, 4), unordered, fixed, 3, 0, weights=weights)
    climber.reset(deck, 0, 0.0)
    changed = 0
    for _ in range(300):
        before = climber.current_row
        climber.perturb(1)
        after = climber.current_row
        assert sorted(after.tolist()) == sorted(deck.tolist())
        for s, (a, b) in enumerate(((0, 4), (4, 8), (8, 12))):
            if fixed[s]:
                assert sorted(after[a:b].tolist()) == sorted(deck[a:b].tolist())
        changed += not (after == before).all()
    assert changed > 100


def test_the_generic_climber_climbs_bmn_and_keeps_cycles_out():
    options = BEGGAR.options(deck="------JJQQK")
    layout = BEGGAR.layout(options)
    climber = Climber(BEGGAR.kernel(options), layout.deck, layout.segments, layout.unordered,
                      layout.fixed, 4, 0)
    climber.shuffle_current()
    climber.play_current()
    start = climber.best_score
    counts = np.zeros(3, np.int64)
    played, _totals, rows, results = climber.climb(5_000, 10**9, 0.999, True, counts, *HISTS)
    assert played == 5_000 and counts.sum() == 5_000 and len(rows) == len(results)
    assert climber.best_score >= start
    best = BEGGAR.play_batch(climber.best_row[None, :], options)
    assert best.measures[0, 0] == climber.best_score
    if len(rows):
        assert (BEGGAR.play_batch(rows, options).outcome == 1).all()


def test_entry_points_check_their_arguments():
    _options, layout, kernel = small()
    with pytest.raises(ValueError):
        Sampler(kernel, layout.deck[:-1], layout.segments, layout.unordered, layout.fixed, 1, 0)
    with pytest.raises(ValueError):
        Sampler(kernel, layout.deck, (2, 2), (False,) * 2, (False,) * 2, 1, 0)
    with pytest.raises(ValueError):
        Climber(kernel, layout.deck, layout.segments, layout.unordered, layout.fixed, 1, 0,
                objective=5)
    with pytest.raises(ValueError):
        Climber(kernel, layout.deck, layout.segments, layout.unordered, layout.fixed, 1, 0,
                weights=(0, 0, 0, 0))
    climber = Climber(kernel, layout.deck, layout.segments, layout.unordered, layout.fixed, 1, 0)
    with pytest.raises(ValueError):
        climber.reset(np.zeros(3, np.uint8), 0, 1.0)
    with pytest.raises(ValueError):
        climber.climb(10, 10, 1.0, False, np.zeros(1, np.int64))
    with pytest.raises(ValueError):
        BeggarKernel((70, 1), STANDARD.payments)


def test_a_kernel_not_built_by_a_game_is_refused():
    from dealsearch._kernel import Kernel

    with pytest.raises(ValueError, match="not built by a game"):
        Sampler(Kernel(), np.zeros(0, np.uint8), (0,), (False,), (False,), 1, 0)
    with pytest.raises(ValueError, match="not built by a game"):
        Kernel().play(np.zeros(0, np.uint8))


def test_the_sampler_keeps_bests_among_every_finished_outcome():
    """``finished``: outcomes that may be a best (e.g. a win and a draw), not only one."""
    options = BEGGAR.options(players=3, max_cards=300)
    layout = BEGGAR.layout(options)

    def finds(**kwargs):
        sampler = Sampler(BEGGAR.kernel(options), layout.deck, layout.segments,
                          layout.unordered, layout.fixed, 6, 0, **kwargs)
        return sampler.play(5_000)[4]

    only_wins = finds()
    wins_and_limits = finds(finished=(0, 2))
    assert set(only_wins[:, 0]) <= {0, 1} and 2 in set(wins_and_limits[:, 0])
    best = wins_and_limits[wins_and_limits[:, 0] != 1, 1]
    assert (np.diff(best) > 0).all()
    with pytest.raises(ValueError, match="finished"):
        finds(finished=(1,))
