"""Deals of more than 64 cards: the ring engine beside the bit-plane engine.

Random deals dealt and played in compiled code (``RandomPlayer``, generation included): the
standard 52-card 2-player deal on bit-planes, the same deals on rings (``play_rows(...,
rings=True)``, to separate the engine from the deal size), and two packs (104 cards) dealt to
4 players, which only rings can hold. ``extra_info`` has deals and cards, so deals/s, cards/s
and the ratios follow from the saved timings.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt
import pytest

from dealsearch.games.beggar import _engine, _lanes
from dealsearch.games.beggar.notation import STANDARD

DEALS = 20_000
TWO_PACKS = (72, 8, 8, 8, 8)


def play_random(deck: tuple[int, ...], sizes: tuple[int, ...]) -> tuple[Any, ...]:
    return _lanes.RandomPlayer(deck, sizes, STANDARD.payments, 1, 0).play(DEALS)


@pytest.mark.parametrize(("deck", "sizes"), [(STANDARD.deck, (26, 26)), (TWO_PACKS, (26,) * 4)],
                         ids=["52-cards-2-players", "104-cards-4-players"])
def test_random_player(benchmark: Any, deck: tuple[int, ...], sizes: tuple[int, ...]) -> None:
    played = benchmark.pedantic(play_random, (deck, sizes), rounds=3, iterations=1)
    benchmark.extra_info.update(deals=int(played[0]), cards=int(played[2][0]))


@pytest.fixture(scope="module")
def rows_52() -> npt.NDArray[np.uint8]:
    return _engine.random_rows(STANDARD.deck, DEALS, 1)


@pytest.mark.parametrize("rings", [False, True], ids=["bit-planes", "rings"])
def test_52_cards_on_either_engine(benchmark: Any, rows_52: npt.NDArray[np.uint8],
                                   rings: bool) -> None:
    result = benchmark(_engine.play_rows, rows_52, (26, 26), STANDARD.payments, None, None,
                       rings)
    benchmark.extra_info.update(deals=DEALS, cards=int(result[2].sum()))
