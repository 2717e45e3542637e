"""The generic compiled loops (search._generic) on the BMN kernel against BMN's own fast paths.

Same games in both: compare the means (``games`` in ``extra_info``) to see what one indirect
call per game and the generic dealing and mutations cost.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from dealsearch.game import get_game
from dealsearch.games.beggar._climb import Climber as BmnClimber
from dealsearch.search._generic import Climber, Sampler
from dealsearch.search.base import new_histograms
from dealsearch.search.climb import COOLING

GAMES = 20_000  # as benchmarks/test_climb_speed.py

BEGGAR = get_game("beggar")
OPTIONS = BEGGAR.options()
LAYOUT = BEGGAR.layout(OPTIONS)
DEALS = 20_000


def _hists() -> tuple[list[Any], list[int]]:
    hists = new_histograms(BEGGAR)
    return [hists["cards"], hists["tricks"]], [10, 1]


def test_generic_sampler_on_bmn(benchmark: Any) -> None:
    def sample() -> int:
        sampler = Sampler(BEGGAR.kernel(OPTIONS), LAYOUT.deck, LAYOUT.segments,
                          LAYOUT.unordered, LAYOUT.fixed, 1, 0)
        return sampler.play(DEALS, 256, *_hists())[0]

    benchmark.extra_info.update(deals=benchmark(sample))


def test_specialised_sampler_on_bmn(benchmark: Any) -> None:
    def sample() -> int:
        return BEGGAR.random_player(OPTIONS, 1, 0, "cards").play(DEALS, 256, *_hists())[0]

    benchmark.extra_info.update(deals=benchmark(sample))


def _start() -> np.ndarray:
    return np.random.default_rng(1).permutation(LAYOUT.deck)


def test_generic_climber_on_bmn(benchmark: Any) -> None:
    def climb() -> int:
        climber = Climber(BEGGAR.kernel(OPTIONS), LAYOUT.deck, LAYOUT.segments,
                          LAYOUT.unordered, LAYOUT.fixed, 1, 0)
        climber.reset(_start(), 0, 40.0)
        climber.play_current()
        counts = np.zeros(3, dtype=np.int64)
        played = 0
        while played < GAMES:
            played += climber.climb(GAMES - played, 10**9, COOLING, True, counts, *_hists())[0]
        return played

    benchmark.extra_info.update(games=benchmark(climb))


def test_specialised_climber_same_start(benchmark: Any) -> None:
    def climb() -> int:
        climber = BmnClimber((26, 26), OPTIONS.game_rules.payments, 1, 0)
        climber.reset(_start(), 0, 40.0)
        climber.play_current()
        counts = np.zeros(3, dtype=np.int64)
        played = 0
        while played < GAMES:
            played += climber.climb(GAMES - played, 10**9, COOLING, True, counts, *_hists())[0]
        return played

    benchmark.extra_info.update(games=benchmark(climb))
