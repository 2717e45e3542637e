"""Everything a game plug-in imports, in one public module.

A game is a subclass of :class:`Game` (generic over its options type: ``class
MyGame(Game[MyOptions])``) registered with :func:`register` (or declared under the
``dealsearch.games`` entry point by another package). The core is 14 members: ``name``,
``title``, ``measures``, ``outcomes``, ``option_specs``, ``unfinished``, ``options``,
``layout``, ``parse``, ``format``, ``kernel``, ``verify``, ``describe``,
``describe_options``. The shapes and dtypes it deals in:

- a **row** (:data:`Row`) is one deal: a 1-D ``numpy.uint8`` array of card codes, a
  permutation of :attr:`Layout.deck` cut into :attr:`Layout.segments`;
- :meth:`Game.kernel` returns a :class:`Kernel` for the compiled search loops; a pure-Python
  game wraps its play function in :class:`PythonKernel`: ``PythonKernel(play_row, n_cards,
  n_measures)``, where ``play_row(row)`` takes one row (``uint8``, ``n_cards`` long) and returns
  ``(outcome, measures, entry, period)``: the outcome's index and three tuples of
  ``n_measures`` ints (at most four measures); ``entry`` and ``period`` are zeros unless the
  game cycled;
- :func:`play_batch` takes rows as an ``(n, n_cards)`` ``uint8`` array and returns
  :class:`BatchResults`: ``outcome`` ``(n,)`` ``uint8`` (an index into :attr:`Game.outcomes`),
  ``measures``, ``entry`` and ``period`` ``(n, len(Game.measures))`` ``int64`` (``entry`` and
  ``period`` are 0 unless the outcome is ``cycle``); it plays on the kernel unless the game
  is a :class:`BatchPlayer`;
- :class:`GameResult` is one game in the game's own terms, :class:`OptionSpec` one option as
  the command line takes it, :class:`GameOptions` the protocol of a game's options value
  (built by :func:`make_options`, which refuses names the game does not have).

Everything beyond the core is a capability: a protocol a game has by having its methods or
class attributes, checked with ``isinstance`` (:class:`Reference`, :class:`Trace`,
:class:`BatchPlayer`, :class:`BatchDetails`, :class:`CycleCatalogue`, :class:`CycleIds`,
:class:`Histograms`, :class:`Throughput`, :class:`DealerVersion`,
:class:`DealOptions`, :class:`PlaysBackwards`, :class:`FastSearch`, :class:`FastBlocks`,
:class:`DeviceSearch`,
:class:`GameCommands`, :class:`PublishedRecords`, ...), each with a
framework function giving the default (:func:`canonical`, :func:`cycle_id`,
:func:`histogram`, :func:`finished`, ...). A game writes its text with the framework's
formatter (:func:`count`, :func:`measures`, :func:`pairs`), measures a :class:`SpeedTable`
row with :func:`speed_row`, and its own commands (:class:`GameCommands`) fail with the
command line's errors (:class:`BadInput`, :class:`BadOption`, :class:`BadLog`,
:class:`RunFailed`: one line and the exit status). :mod:`dealsearch.testing` is the contract every
game keeps (a capability is checked only where the game has it), and
:mod:`dealsearch.examples.war` a small game to copy from.

>>> import numpy as np
>>> from dealsearch.plugin import Layout
>>> Layout(np.zeros(4, np.uint8), (2, 2)).bounds()
[(0, 2), (2, 4)]
"""

from __future__ import annotations

from .._kernel import Kernel, PythonKernel
from ..devices import (
    GPU_EXTRA,
    ChunkPlay,
    DevicePlay,
    DeviceSampler,
    DeviceSearch,
    DeviceUnavailable,
)
from ..errors import BadInput, BadLog, BadOption, RunFailed
from ..game import (
    BatchDetails,
    BatchPlayer,
    BatchResults,
    Command,
    CycleCatalogue,
    CycleFamilies,
    CycleIds,
    DealerVersion,
    DealOptions,
    FastBlocks,
    FastSearch,
    Game,
    GameCommands,
    GameError,
    GameOptions,
    GameResult,
    GameStrategies,
    Histograms,
    Layout,
    OptionSpec,
    PlaysBackwards,
    Published,
    PublishedCheck,
    PublishedDeals,
    PublishedRecords,
    Reference,
    Row,
    SpeedTable,
    Throughput,
    Trace,
    Yardstick,
    batch_result,
    canonical,
    card_text,
    cycle_id,
    deal_options,
    finished,
    get_game,
    histogram,
    make_options,
    play_batch,
    random_dealer,
    register,
    throughput_measure,
)
from ..orderings import count_deals, permutation_block, rank, unrank
from ..speed import speed_row
from ..text import count, measures, pairs

__all__ = [
    "GPU_EXTRA",
    "BadInput",
    "BadLog",
    "BadOption",
    "BatchDetails",
    "BatchPlayer",
    "BatchResults",
    "ChunkPlay",
    "Command",
    "CycleCatalogue",
    "CycleFamilies",
    "CycleIds",
    "DealOptions",
    "DealerVersion",
    "DevicePlay",
    "DeviceSampler",
    "DeviceSearch",
    "DeviceUnavailable",
    "FastBlocks",
    "FastSearch",
    "Game",
    "GameCommands",
    "GameError",
    "GameOptions",
    "GameResult",
    "GameStrategies",
    "Histograms",
    "Kernel",
    "Layout",
    "OptionSpec",
    "PlaysBackwards",
    "Published",
    "PublishedCheck",
    "PublishedDeals",
    "PublishedRecords",
    "PythonKernel",
    "Reference",
    "Row",
    "RunFailed",
    "SpeedTable",
    "Throughput",
    "Trace",
    "Yardstick",
    "batch_result",
    "canonical",
    "card_text",
    "count",
    "count_deals",
    "cycle_id",
    "deal_options",
    "finished",
    "get_game",
    "histogram",
    "make_options",
    "measures",
    "pairs",
    "permutation_block",
    "play_batch",
    "random_dealer",
    "rank",
    "register",
    "speed_row",
    "throughput_measure",
    "unrank",
]
