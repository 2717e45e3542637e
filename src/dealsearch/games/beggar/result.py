"""Deprecated: a game's result is the framework's :class:`~dealsearch.game.GameResult`, built
by :class:`dealsearch.games.beggar.engine.BeggarResult` (``Result`` here; this module
re-exports it and ``OUTCOMES``, with a ``DeprecationWarning``). The old ``Cycle`` is gone:
a result's ``entry`` and ``period`` hold its counts."""

from ..._moved import moved_module
from .engine import OUTCOMES
from .engine import BeggarResult as Result

moved_module(__name__, "dealsearch.games.beggar.engine (Result is BeggarResult, which builds "
             "a GameResult)")

__all__ = ["OUTCOMES", "Result"]
