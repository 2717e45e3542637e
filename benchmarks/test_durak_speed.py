"""Speed of the compiled Durak engine against the pure-Python reference, on the same deals.

Target (issue 13): >= 300,000 deals/s per core for 2-player podkidnoy under ``cheapest``.
Each benchmark's ``extra_info`` holds the deals and bouts it plays, so deals/s and bouts/s
follow from the saved timings; the ratio is compiled deals/s over reference deals/s.
Run: ``python -m pytest benchmarks/test_durak_speed.py --benchmark-only``.
"""

from __future__ import annotations

from typing import Any

import pytest

from dealsearch.games.durak import DURAK
from dealsearch.games.durak.notation import random_rows
from dealsearch.games.durak.options import DurakOptions

DEALS = 20_000
REFERENCE_DEALS = 200
SETTINGS = {
    "podkidnoy-2p-cheapest": DurakOptions(),
    "podkidnoy-3p-aggressive": DurakOptions(players=3, policy="aggressive"),
    "perevodnoy-2p-cheapest": DurakOptions(variant="perevodnoy"),
    "pairs-perevodnoy-4p-cheapest": DurakOptions(players=4, variant="pairs-perevodnoy"),
}


@pytest.mark.parametrize("setting", SETTINGS)
def test_compiled_batch(benchmark: Any, setting: str) -> None:
    options = SETTINGS[setting]
    rows = random_rows(options, DEALS, seed=1)
    batch = benchmark(DURAK.play_batch, rows, options)
    benchmark.extra_info.update(deals=DEALS, bouts=int(batch.measures[:, 0].sum()))


@pytest.mark.parametrize("setting", ["podkidnoy-2p-cheapest"])
def test_reference(benchmark: Any, setting: str) -> None:
    options = SETTINGS[setting]
    rows = random_rows(options, REFERENCE_DEALS, seed=1)

    def play_all() -> int:
        return sum(DURAK.play_reference(row, options).measures["bouts"] for row in rows)

    bouts = benchmark.pedantic(play_all, rounds=3, iterations=1)
    benchmark.extra_info.update(deals=REFERENCE_DEALS, bouts=bouts)


def test_kernel_one_row_at_a_time(benchmark: Any) -> None:
    """The Kernel path as compiled search loops use it (here through its Python play())."""
    options = SETTINGS["podkidnoy-2p-cheapest"]
    kernel = DURAK.kernel(options)
    rows = random_rows(options, 1000, seed=1)

    def play_all() -> None:
        for row in rows:
            kernel.play(row)

    benchmark(play_all)
    benchmark.extra_info.update(deals=len(rows))
