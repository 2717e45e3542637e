"""Everything a game plug-in imports, in one public module.

A game is a subclass of :class:`Game` registered with :func:`register` (or declared under the
``dealsearch.games`` entry point by another package). The shapes and dtypes it deals in:

- a **row** (:data:`Row`) is one deal: a 1-D ``numpy.uint8`` array of card codes, a
  permutation of :attr:`Layout.deck` cut into :attr:`Layout.segments`;
- :meth:`Game.play_batch` takes rows as an ``(n, n_cards)`` ``uint8`` array and returns
  :class:`BatchResults`: ``outcome`` ``(n,)`` ``uint8`` (an index into :attr:`Game.outcomes`),
  ``measures``, ``entry`` and ``period`` ``(n, len(Game.measures))`` ``int64`` (``entry`` and
  ``period`` are 0 unless the outcome is ``cycle``);
- :meth:`Game.kernel` returns a :class:`Kernel` for the compiled search loops; a pure-Python
  game wraps its play function in :class:`PythonKernel`: ``PythonKernel(play_row, n_cards,
  n_measures)``, where ``play_row(row)`` takes one row (``uint8``, ``n_cards`` long) and returns
  ``(outcome, measures, entry, period)``: the outcome's index and three tuples of
  ``n_measures`` ints (at most four measures); ``entry`` and ``period`` are zeros unless the
  game cycled;
- :class:`GameResult` is one game in the game's own terms, :class:`OptionSpec` one option as
  the command line takes it, :class:`GameOptions` the protocol of a game's options value.

Capabilities beyond the core (:class:`CycleCatalogue`, :class:`PlaysBackwards`,
:class:`FastSearch`, :class:`PublishedRecords`, ...) are protocols: a game has one by having
its methods. :mod:`dealsearch.testing` is the contract every game keeps, and
:mod:`dealsearch.examples.war` a small game to copy from.

>>> import numpy as np
>>> from dealsearch.plugin import Layout
>>> Layout(np.zeros(4, np.uint8), (2, 2)).bounds()
[(0, 2), (2, 4)]
"""

from __future__ import annotations

from ._kernel import Kernel, PythonKernel
from .game import (
    BatchResults,
    CycleCatalogue,
    FastSearch,
    Game,
    GameError,
    GameOptions,
    GameResult,
    Layout,
    OptionSpec,
    PlaysBackwards,
    Published,
    PublishedCheck,
    PublishedDeals,
    PublishedRecords,
    Row,
    SpeedTable,
    Yardstick,
    card_text,
    get_game,
    register,
)

__all__ = [
    "BatchResults", "CycleCatalogue", "FastSearch", "Game", "GameError", "GameOptions",
    "GameResult", "Kernel", "Layout", "OptionSpec", "PlaysBackwards", "Published",
    "PublishedCheck", "PublishedDeals", "PublishedRecords", "PythonKernel", "Row", "SpeedTable",
    "Yardstick", "card_text", "get_game", "register",
]
