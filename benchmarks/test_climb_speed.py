"""Speed of climbing: the compiled climber alone, and one climbing task through the strategy.

``extra_info`` holds the games each benchmark plays, so games/s follows from the timings.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from dealsearch._climb import Climber

from dealsearch import STANDARD
from dealsearch.search.base import CARD_BIN, Task, new_histograms
from dealsearch.search.climb import COOLING, climb_slice
from dealsearch.search.spec import SearchSpec

GAMES = 20_000


def test_compiled_climber(benchmark: Any) -> None:
    """The BMN climber's nogil loop: mutate, play, accept (annealing), GAMES games a round."""

    def climb() -> int:
        climber = Climber((26, 26), STANDARD.payments, 1, 0)
        row = np.random.default_rng(1).permutation(
            np.repeat(np.arange(len(STANDARD.deck), dtype=np.uint8), STANDARD.deck))
        climber.reset(row, 0, 40.0)
        climber.play_current()
        counts = np.zeros(3, dtype=np.int64)
        hists = new_histograms()
        played = 0
        while played < GAMES:
            got, *_ = climber.climb(GAMES - played, 10**9, COOLING, True, counts,
                                    hists["cards"], hists["tricks"], CARD_BIN)
            played += got
        return played

    played = benchmark(climb)
    benchmark.extra_info.update(games=played)


def test_climb_task(benchmark: Any) -> None:
    """One climbing task as a worker runs it (spec to report), GAMES games."""
    spec = SearchSpec("climb", seed=1, workers=1, deals=GAMES)

    def task() -> int:
        return climb_slice(spec, Task(0, {"state": None, "games": GAMES})).deals

    played = benchmark(task)
    benchmark.extra_info.update(games=played)
