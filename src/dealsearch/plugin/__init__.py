"""Everything a game plug-in imports, in one public module.

A game is a subclass of :class:`Game` (generic over its options type: ``class
MyGame(Game[MyOptions])``) registered with :func:`register` (or declared under the
``dealsearch.games`` entry point by another package). What every game writes: the class
attributes ``name``, ``title``, ``measures``, ``outcomes``, ``option_specs`` and the methods
``options``, ``layout``, ``parse``, ``format``, ``kernel``, ``verify``. What it may override
(each has a default): ``unfinished``, ``throughput_measure``, ``histogram_bins``,
``deal_options``, ``random_dealer``, ``result_keys``, ``play_batch``, ``batch_result``,
``describe``, ``describe_options``, ``looks_like_deal``, ``commands``. The shapes and dtypes
it deals in:

- a **row** (:data:`Row`) is one deal: a 1-D ``numpy.uint8`` array of card codes, a
  permutation of :attr:`Layout.deck` cut into :attr:`Layout.segments`;
- :meth:`Game.kernel` returns a :class:`Kernel` for the compiled search loops; a pure-Python
  game wraps its play function in :class:`PythonKernel`: ``PythonKernel(play_row, n_cards,
  n_measures)``, where ``play_row(row)`` takes one row (``uint8``, ``n_cards`` long) and returns
  ``(outcome, measures, entry, period)``: the outcome's index and three tuples of
  ``n_measures`` ints (at most four measures); ``entry`` and ``period`` are zeros unless the
  game cycled;
- :meth:`Game.play_batch` takes rows as an ``(n, n_cards)`` ``uint8`` array and returns
  :class:`BatchResults`: ``outcome`` ``(n,)`` ``uint8`` (an index into :attr:`Game.outcomes`),
  ``measures``, ``entry`` and ``period`` ``(n, len(Game.measures))`` ``int64`` (``entry`` and
  ``period`` are 0 unless the outcome is ``cycle``); by default it plays on the kernel;
- :class:`GameResult` is one game in the game's own terms, :class:`OptionSpec` one option as
  the command line takes it, :class:`GameOptions` the protocol of a game's options value
  (built by :func:`make_options`, which refuses names the game does not have).

A feature is a few members that buy one thing together, a protocol the game lists among its
bases (``class MyGame(Game[MyOptions], Reference)``): :class:`Reference` (a plain engine the
contract compares, ``verify --trace``, ``bench``), :class:`CycleCatalogue` (cycles named,
catalogued and grouped), :class:`PlaysBackwards` (``search climb --reverse-every``),
:class:`PublishedRecords` (the report's and ``verify --known``'s published deals),
:class:`Yardstick` (``bench`` against a plain C loop), :class:`FastSearch` (its own compiled
search loops, returning a :class:`SearchSampler` and a :class:`KickClimber`),
:class:`FastBlocks` (its own loop for blocks of ranks), :class:`DeviceSearch` (``--device
gpu``) and :class:`DeviceBlocks` (exhaustive blocks on ``--device gpu``). :func:`register`
refuses a public member name that neither :class:`Game` nor a feature knows, so a misspelt
member fails at once and a game's own helpers are private (``_helper``).

A game writes its text with the framework's formatter (:func:`count`, :func:`measures`,
:func:`pairs`), measures its speed table's rows with :func:`speed_row`, and its own commands
(:class:`Command`) fail with the command line's errors (:class:`BadInput`, :class:`BadOption`,
:class:`BadLog`, :class:`RunFailed`: one line and the exit status). :mod:`dealsearch.testing` is
the contract every game keeps (a feature is checked only where the game has it), and
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
    DeviceBlockPlayer,
    DeviceBlocks,
    DevicePlay,
    DeviceSampler,
    DeviceSearch,
    DeviceUnavailable,
)
from ..errors import BadInput, BadLog, BadOption, RunFailed
from ..game import (
    BatchResults,
    Command,
    CycleCatalogue,
    FastBlocks,
    FastSearch,
    Game,
    GameError,
    GameOptions,
    GameResult,
    KickClimber,
    Layout,
    OptionSpec,
    PlaysBackwards,
    Published,
    PublishedCheck,
    PublishedRecords,
    Reference,
    Row,
    SearchClimber,
    SearchSampler,
    Yardstick,
    api_problems,
    canonical,
    card_text,
    finished,
    get_game,
    make_options,
    register,
)
from ..orderings import count_deals, permutation_block, rank, unrank
from ..speed import speed_row
from ..text import count, measures, pairs

__all__ = [
    "GPU_EXTRA",
    "BadInput",
    "BadLog",
    "BadOption",
    "BatchResults",
    "ChunkPlay",
    "Command",
    "CycleCatalogue",
    "DeviceBlockPlayer",
    "DeviceBlocks",
    "DevicePlay",
    "DeviceSampler",
    "DeviceSearch",
    "DeviceUnavailable",
    "FastBlocks",
    "FastSearch",
    "Game",
    "GameError",
    "GameOptions",
    "GameResult",
    "Kernel",
    "KickClimber",
    "Layout",
    "OptionSpec",
    "PlaysBackwards",
    "Published",
    "PublishedCheck",
    "PublishedRecords",
    "PythonKernel",
    "Reference",
    "Row",
    "RunFailed",
    "SearchClimber",
    "SearchSampler",
    "Yardstick",
    "api_problems",
    "canonical",
    "card_text",
    "count",
    "count_deals",
    "finished",
    "get_game",
    "make_options",
    "measures",
    "pairs",
    "permutation_block",
    "rank",
    "register",
    "speed_row",
    "unrank",
]
