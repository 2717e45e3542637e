"""Speed of the lanes engine (``games/beggar/_lanes``) on the benchmarks' random deals, beside
``test_engine_speed.py``'s engine and yardstick: rows given, and dealing its own deals.

Each benchmark's ``extra_info`` holds the deals, cards and kernel, so deals/s and cards/s follow
from the saved timings.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

from dealsearch.games.beggar import _engine, _lanes
from dealsearch.games.beggar.notation import STANDARD

SEED = 1  # as conftest's random_rows: the same deals


def test_lanes_random_deals(benchmark: Any, random_rows: npt.NDArray[np.uint8]) -> None:
    result = benchmark(_lanes.play_rows, random_rows, (26, 26), STANDARD.payments)
    assert (result[2] == _engine.play_rows(random_rows, (26, 26), STANDARD.payments)[2]).all()
    benchmark.extra_info.update(deals=len(random_rows), cards=int(result[2].sum()),
                                kernel=_lanes.kernel())


def test_lanes_random_player(benchmark: Any, random_rows: npt.NDArray[np.uint8]) -> None:
    def deal_and_play() -> tuple[Any, ...]:
        player = _lanes.RandomPlayer(STANDARD.deck, (26, 26), STANDARD.payments, SEED, 0)
        return player.play(len(random_rows), max_finds=1 << 20)

    played = benchmark(deal_and_play)
    benchmark.extra_info.update(deals=played[0], cards=int(played[2][0]), kernel=_lanes.kernel())
