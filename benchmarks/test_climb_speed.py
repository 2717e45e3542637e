"""Speed of the compiled climber: games per second for a fixed seed and budget.

The climber mutates, plays and accepts without the GIL (``_climb.pyx``); this times one call of
``Climber.climb`` over ``GAMES`` mutants of a seeded random 2-player deal, with annealing, so
``games_per_s`` in ``extra_info`` is the climbing rate of one core (compare it with the
engine's deals per second in test_engine_speed.py: the difference is mutating and accepting).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from dealsearch.games.beggar import _engine
from dealsearch.games.beggar._climb import Climber
from dealsearch.games.beggar.notation import STANDARD
from dealsearch.search.base import Task
from dealsearch.search.climb import COOLING, climb_slice
from dealsearch.search.spec import SearchSpec

GAMES = 100_000
SEED = 1


def climb_once(deck: tuple[int, ...], sizes: tuple[int, ...]) -> tuple[Any, ...]:
    climber = Climber(sizes, STANDARD.payments, SEED, 0)
    climber.reset(_engine.random_rows(deck, 1, SEED)[0], 0, 40.0)
    counts = np.zeros(3, dtype=np.int64)
    histogram = np.zeros(1000, dtype=np.int64)
    # a stall limit above the budget: the call plays exactly GAMES mutants (barring cycles)
    return climber.climb(GAMES, GAMES + 1, COOLING, True, counts, (histogram, histogram.copy()),
                         (10, 1))


def test_climber_standard_deck(benchmark: Any) -> None:
    played, totals, _, _ = benchmark(climb_once, STANDARD.deck, (26, 26))
    benchmark.extra_info.update(games=int(played), cards=int(totals[0]),
                                games_per_s=played / benchmark.stats.stats.min)


def test_climber_two_packs_four_players(benchmark: Any) -> None:
    """The same on 104 cards dealt to 4 players: the climber on the ring engine."""
    played, totals, _, _ = benchmark.pedantic(climb_once, ((72, 8, 8, 8, 8), (26,) * 4),
                                             rounds=3, iterations=1)
    benchmark.extra_info.update(games=int(played), cards=int(totals[0]),
                                games_per_s=played / benchmark.stats.stats.min)


def test_climb_task(benchmark: Any) -> None:
    """One climbing task as a worker runs it (spec to report): the strategy's overhead."""
    spec = SearchSpec("climb", game="beggar", seed=SEED, workers=1, deals=20_000)

    def task() -> int:
        return climb_slice(spec, Task(0, {"state": None, "games": 20_000})).deals

    played = benchmark(task)
    benchmark.extra_info.update(games=played)
