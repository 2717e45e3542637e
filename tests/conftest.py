"""What the tests share: the layout mirrors the package (``framework/`` for the framework,
``games/<game>/`` for each game, ``docs/`` for the documentation), shared deals live in
``deals.py``, and long tests are marked ``slow`` (``pytest -m "not slow"`` skips them on a
developer's machine; CI runs them all)."""

from __future__ import annotations

import pytest

from deals import CASELLA, RECORD


@pytest.fixture
def record() -> str:
    """The longest known finished game (8,344 cards)."""
    return RECORD


@pytest.fixture
def casella() -> str:
    """Casella's never-ending deal (a 62-trick cycle)."""
    return CASELLA
