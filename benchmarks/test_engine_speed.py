"""Speed of the compiled engine, and of the per-card C yardstick on the same deals.

Each benchmark's ``extra_info`` holds the deals and cards it plays, so deals/s and cards/s follow
from the saved timings.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

from dealsearch.games.beggar import _engine, _lanes
from dealsearch.games.beggar.bench import Yardstick
from dealsearch.games.beggar.engine import play, play_batch
from dealsearch.games.beggar.notation import STANDARD

RECORD = "---AJ--Q---------QAKQJJ-QK/-----A----KJ-K--------A---"  # 8344 cards, 1164 tricks
LOOPING = "---K---Q-KQAJ-----AAJ--J--/----------Q----KQ-J-----KA"  # first repeat at 474 cards


def test_play_batch_random_deals(benchmark: Any, random_rows: npt.NDArray[np.uint8]) -> None:
    result = benchmark(play_batch, random_rows, STANDARD)
    benchmark.extra_info.update(deals=len(random_rows), cards=int(result.cards.sum()))


def test_yardstick_random_deals(
    benchmark: Any, random_rows: npt.NDArray[np.uint8], yardstick: Yardstick
) -> None:
    cards, _ = benchmark(yardstick.play_rows, random_rows, STANDARD.payments)
    assert (cards == play_batch(random_rows, STANDARD).cards).all()
    benchmark.extra_info.update(deals=len(random_rows), cards=int(cards.sum()))


def test_random_player_generation_included(
    benchmark: Any, random_rows: npt.NDArray[np.uint8]
) -> None:
    def deal_and_play() -> tuple[Any, ...]:
        player = _lanes.RandomPlayer(STANDARD.deck, (26, 26), STANDARD.payments, 1, 0)
        return player.play(len(random_rows))

    previous = _lanes.set_kernel("scalar")     # the engine alone
    try:
        played = benchmark(deal_and_play)
    finally:
        _lanes.set_kernel(previous)
    benchmark.extra_info.update(deals=int(played[0]), cards=int(played[2][0]))


def test_yardstick_generation_included(
    benchmark: Any, random_rows: npt.NDArray[np.uint8], yardstick: Yardstick
) -> None:
    cards, _ = benchmark(yardstick.play_random, len(random_rows), STANDARD.deck,
                         STANDARD.payments, 1, 0)
    benchmark.extra_info.update(deals=len(random_rows), cards=int(cards.sum()))


def test_record_deal(benchmark: Any) -> None:
    result = benchmark(play, RECORD)
    assert (result.cards, result.tricks) == (8344, 1164)


def test_looping_deal_cycle_detection(benchmark: Any) -> None:
    """Phase 1 proves the repeat, phase 2 replays with the hash detector to find where."""
    result = benchmark(play, LOOPING)
    assert result.outcome == "cycle" and result.period["cards"] == 440


def test_play_loop_python_overhead(benchmark: Any, random_rows: npt.NDArray[np.uint8]) -> None:
    """A Python loop of play() over 1,000 deals: against play_batch, the per-call overhead."""
    from dealsearch.games.beggar.notation import Deal

    deals = [Deal((tuple(row[:26].tolist()), tuple(row[26:].tolist())))
             for row in random_rows[:1000]]
    benchmark(lambda: [play(deal) for deal in deals])
    benchmark.extra_info.update(deals=len(deals))


def test_play_batch_same_thousand(benchmark: Any, random_rows: npt.NDArray[np.uint8]) -> None:
    """The same 1,000 deals in one play_batch call, to set against the loop of play()."""
    benchmark(play_batch, random_rows[:1000], STANDARD)
    benchmark.extra_info.update(deals=1000)


def test_play_rows_without_the_wrapper(benchmark: Any, random_rows: npt.NDArray[np.uint8]) -> None:
    """The compiled entry point alone: against test_play_batch_random_deals, the cost of
    play_batch's checks and wrapping (the target is at most 5% for 10,000 deals or more)."""
    result = benchmark(_engine.play_rows, random_rows, (26, 26), STANDARD.payments)
    benchmark.extra_info.update(deals=len(random_rows), cards=int(result[2].sum()))
