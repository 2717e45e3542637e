"""Speed of the compiled Spite and Malice engine against its pure-Python reference.

Both play the same seeded random deals in one run; ``extra_info`` holds the deals (and turns)
each benchmark plays, so games/s follow from the saved timings and the ratio of the two
``greedy,greedy`` defaults benchmarks is the speed-up (target: at least 100,000 games/s per
core, about 200 times the reference). Timed in CPU seconds of the process (``process_time``):
"per core", and fair on a machine shared with other work. Run:
``python -m pytest benchmarks/test_spite_speed.py --benchmark-only``.
"""

from __future__ import annotations

import itertools
import time
from typing import Any

import numpy as np
import numpy.typing as npt
import pytest

from dealsearch.games.spite import SPITE, reference
from dealsearch.games.spite.notation import random_rows
from dealsearch.games.spite.options import POLICIES, SpiteOptions

DEALS = 20_000
REFERENCE_DEALS = 100
SEED = 1
PAIRS = [",".join(pair) for pair in itertools.product(POLICIES, repeat=2)]

pytestmark = pytest.mark.benchmark(timer=time.process_time)


@pytest.fixture(scope="module")
def spite_rows() -> npt.NDArray[np.uint8]:
    """Seeded random deals, the same on every run and machine."""
    return random_rows(None, DEALS, SEED)


def test_compiled_defaults(benchmark: Any, spite_rows: npt.NDArray[np.uint8]) -> None:
    """greedy,greedy, recycle=bottom, side_piles=seed: the target setting."""
    batch = benchmark(SPITE.play_batch, spite_rows, SpiteOptions())
    benchmark.extra_info.update(deals=len(spite_rows), turns=int(batch.measures[:, 0].sum()))


def test_reference_defaults(benchmark: Any, spite_rows: npt.NDArray[np.uint8]) -> None:
    """The reference on the first deals of the same set, same setting."""
    rows = spite_rows[:REFERENCE_DEALS]
    benchmark.pedantic(lambda: [reference.play_row(row, SpiteOptions()) for row in rows],
                       rounds=3)
    benchmark.extra_info.update(deals=len(rows))


@pytest.mark.parametrize("recycle", ["bottom", "none"])
@pytest.mark.parametrize("sides", ["seed", "free"])
@pytest.mark.parametrize("policies", PAIRS)
def test_compiled_every_setting(benchmark: Any, spite_rows: npt.NDArray[np.uint8],
                                recycle: str, sides: str, policies: str) -> None:
    options = SpiteOptions(recycle=recycle, side_piles=sides, policies=policies)
    batch = benchmark(SPITE.play_batch, spite_rows, options)
    benchmark.extra_info.update(deals=len(spite_rows), turns=int(batch.measures[:, 0].sum()))


def test_kernel_one_deal_at_a_time(benchmark: Any, spite_rows: npt.NDArray[np.uint8]) -> None:
    """Through the Kernel's function pointer, one Python call per deal (the search loops call
    it from C): against test_compiled_defaults, the cost of a Python call per game."""
    kernel = SPITE.kernel(SpiteOptions())
    rows = spite_rows[:2000]
    benchmark(lambda: [kernel.play(row) for row in rows])
    benchmark.extra_info.update(deals=len(rows))
