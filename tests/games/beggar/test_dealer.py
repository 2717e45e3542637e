"""The compiled random dealer (``_random.pxd``) deals every arrangement of a deck equally often.

A chi-square test over every distinct arrangement of a small deck, for both dealers: court
cards dropped on free positions (decks of up to 64 cards) and Fisher-Yates (larger decks).
The seeds are fixed, so a run is reproducible and cannot flake; the threshold (p below one in
a million) is one a fair dealer passes on all but a millionth of seeds, and a slightly biased
one (below) fails by a wide margin.
"""

from __future__ import annotations

import math
from collections import Counter

import numpy as np
import numpy.typing as npt
import pytest

from dealsearch.games.beggar import _engine, _lanes
from dealsearch.games.beggar.notation import STANDARD
from dealsearch.orderings import count_deals

ALPHA = 1e-6


def chi2_sf(statistic: float, dof: int) -> float:
    """P(X >= statistic) for X chi-square with ``dof`` degrees of freedom (exact: the upper
    regularized gamma function Q(dof/2, statistic/2), built up from Q(1/2) or Q(1))."""
    y = statistic / 2
    if dof % 2:
        a, q = 0.5, math.erfc(math.sqrt(y))
    else:
        a, q = 1.0, math.exp(-y)
    while a < dof / 2:
        # Q(a + 1, y) = Q(a, y) + y^a e^-y / Gamma(a + 1)
        q += math.exp(a * math.log(y) - y - math.lgamma(a + 1)) if y > 0 else 0.0
        a += 1
    return min(q, 1.0)


def uniformity_p(rows: npt.NDArray[np.uint8], cells: int) -> float:
    """The chi-square p-value of the rows' arrangements against all ``cells`` equally likely."""
    seen = Counter(row.tobytes() for row in rows)
    assert len(seen) <= cells
    expected = len(rows) / cells
    counts = np.array([*seen.values(), *([0] * (cells - len(seen)))], dtype=float)
    return chi2_sf(float(((counts - expected) ** 2 / expected).sum()), cells - 1)


def test_chi2_sf_matches_known_values() -> None:
    # Table values: the 95% point of chi-square(1) is 3.841, of chi-square(10) 18.307.
    assert chi2_sf(3.841, 1) == pytest.approx(0.05, abs=1e-4)
    assert chi2_sf(18.307, 10) == pytest.approx(0.05, abs=1e-4)
    assert chi2_sf(0.0, 4) == 1.0


@pytest.mark.parametrize("deck", [(2, 1, 1, 0, 0), (3, 2, 1, 1, 0)], ids=["--JQ", "---JJQK"])
def test_every_arrangement_of_a_small_deck_is_equally_likely(deck: tuple[int, ...]) -> None:
    cells = count_deals(deck)
    rows = _engine.random_rows(deck, 2_000 * cells, 7)
    assert uniformity_p(rows, cells) > ALPHA


def test_every_arrangement_of_a_deck_over_64_cards_is_equally_likely() -> None:
    deck = (63, 1, 1, 0, 0)      # 65 cards: 65 * 64 places for the jack and the queen
    cells = count_deals(deck)
    rows = _engine.random_rows(deck, 60 * cells, 7)
    assert rows.shape[1] == 65
    assert uniformity_p(rows, cells) > ALPHA


def test_the_test_catches_a_slightly_biased_dealer() -> None:
    """One arrangement of --JQ dealt 20% too often is caught: the test can fail."""
    deck = (2, 1, 1, 0, 0)
    cells = count_deals(deck)
    rows = _engine.random_rows(deck, 2_000 * cells, 7)
    biased = np.concatenate([rows, np.repeat(rows[:1], 400, axis=0)])
    assert uniformity_p(biased, cells) < ALPHA


@pytest.mark.parametrize("deck", [STANDARD.deck, (72, 8, 8, 8, 8)], ids=["52", "104"])
def test_random_player_deals_the_rows_of_random_rows(deck: tuple[int, ...]) -> None:
    """Stream k of RandomPlayer starts with row 0 of random_rows(stream=k), for both dealers."""
    n = sum(deck)
    sizes = (n // 2, n - n // 2)
    for stream in range(4):
        player = _lanes.RandomPlayer(deck, sizes, STANDARD.payments, 5, stream)
        rows = player.play(1)[3]
        assert (rows[0] == _engine.random_rows(deck, 1, 5, stream)[0]).all()
