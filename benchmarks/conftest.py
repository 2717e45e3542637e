"""Shared inputs of the speed benchmarks (run: python -m pytest benchmarks --benchmark-only).

Kept out of tests/: CI runs only tests/, and timings are not pass/fail. Save runs with
``--benchmark-autosave`` and compare them with ``pytest-benchmark compare``.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
import pytest

from dealsearch.games.beggar import _engine
from dealsearch.games.beggar.bench import Yardstick, load_yardstick
from dealsearch.games.beggar.notation import STANDARD

DEALS = 20_000
SEED = 1


@pytest.fixture(scope="session")
def random_rows() -> npt.NDArray[np.uint8]:
    """A fixed, seeded set of random two-player deals (the same on every run and machine)."""
    return _engine.random_rows(STANDARD.deck, DEALS, SEED, 0)


@pytest.fixture(scope="session")
def yardstick() -> Yardstick:
    """The per-card C loop (dealsearch.games.beggar.bench); skipped without a compiler."""
    built, note = load_yardstick()
    if built is None:
        pytest.skip(f"yardstick unavailable: {note}")
    return built
