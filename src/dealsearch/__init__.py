"""dealsearch: find record-long and never-ending deals of card games, exactly and fast.

The games are plug-ins (:mod:`dealsearch.game`, one folder each under ``dealsearch.games``);
the default game's :func:`play` and :func:`play_batch` are here for convenience, loaded on
first use so that importing the framework loads no game.

>>> import dealsearch
>>> dealsearch.play("---AJ--Q---------QAKQJJ-QK/-----A----KJ-K--------A---").cards
8344
"""

from __future__ import annotations

from typing import Any

__all__ = ["play", "play_batch"]


def __getattr__(name: str) -> Any:
    """``play`` and ``play_batch`` of the default game's engine, imported when first asked
    (so that ``import dealsearch``, the command's start, loads no game)."""
    if name in __all__:
        from .games.beggar import engine

        return getattr(engine, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
