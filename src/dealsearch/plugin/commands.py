"""What a game's own commands and strategies import: the command line's shared options, the
run service, and the output helpers, in one public module beside :mod:`dealsearch.plugin`.

They live below the command line, in :mod:`dealsearch.commandline` (the framework's own
commands, :mod:`dealsearch.cli`, build on the same), the search and the log: a game imports
none of those itself. A game's package imports only :mod:`dealsearch.plugin` (so that loading
a game loads neither the search nor the command line); a command module
(:class:`~dealsearch.plugin.Command`, imported when its command is invoked) and a strategy
module (:meth:`~dealsearch.plugin.Game.strategies`, imported when a run of it is looked up)
import from here too.

- **Options**, spelt and checked as every command's: :func:`shared` (``--db``, ``--game``,
  ``--target`` as parent parsers), :func:`add_workers_options`, :func:`add_backend_options`,
  :func:`add_game_options`, and the argument types :func:`positive_int`,
  :func:`whole_number`, :func:`duration` and :func:`seed`; :func:`examples` for an epilog.
- **A strategy** (:mod:`dealsearch.strategies`): a class with :class:`StrategyDefaults`'
  attributes and :class:`Strategy`'s methods, which hands out :class:`Task` s and takes
  :class:`Report` s back; :func:`register_strategy` for a program's own.
- **The run service**: a command builds a :class:`SearchSpec` (its strategy's own options in
  ``settings``) or reads the run to resume (:func:`resumable`, :func:`logged_spec`), plays it
  with :func:`serve` (backend, :class:`Runner`: claim, checkpoints, signals, failure, finish),
  prints the :class:`Summary` and returns :func:`ending`'s exit status; its ``on_find`` is told
  each :class:`Find` once committed.
- **Signals**: :mod:`interrupt`, for a command with safe points
  (:class:`~dealsearch.plugin.Command`): ``interrupt.check()`` at each, or
  ``with interrupt.raising():`` around work that only computes (Ctrl-C stops it at once).
- **Output**: :func:`screen_optional` (a closed standard output never stops a run),
  :func:`progress_stream` (where a progress bar draws), :func:`count`, :func:`duration_text`,
  :data:`EXIT_OK`.

>>> from dealsearch.plugin.commands import positive_int
>>> positive_int("12")
12
"""

from __future__ import annotations

from .. import interrupt
from ..commandline.cluster import add_backend_options
from ..commandline.options import (
    EXIT_OK,
    add_game_options,
    add_workers_options,
    check_log_path,
    check_workers,
    duration,
    examples,
    positive_int,
    seed,
    shared,
    whole_number,
)
from ..commandline.service import ending, logged_spec, resumable, serve
from ..commandline.terminal import screen_optional
from ..log import Find
from ..search.backends import Backend
from ..search.base import Report, Task
from ..search.runner import Runner, Summary
from ..search.spec import SearchSpec
from ..strategies import Strategy, StrategyDefaults, register_strategy
from ..text import count, progress_stream
from ..text import duration as duration_text

__all__ = [
    "EXIT_OK",
    "Backend",
    "Find",
    "Report",
    "Runner",
    "SearchSpec",
    "Strategy",
    "StrategyDefaults",
    "Summary",
    "Task",
    "add_backend_options",
    "add_game_options",
    "add_workers_options",
    "check_log_path",
    "check_workers",
    "count",
    "duration",
    "duration_text",
    "ending",
    "examples",
    "interrupt",
    "logged_spec",
    "positive_int",
    "progress_stream",
    "register_strategy",
    "resumable",
    "screen_optional",
    "seed",
    "serve",
    "shared",
    "whole_number",
]
