"""The strategy registry: every kind of run the run service
(:class:`~dealsearch.search.runner.Runner`) plays, the framework's own and those a game
brings, by the name a run's ``strategy`` holds.

A strategy is one class, registered like a game (:func:`register_strategy`). Its coordinator
side hands out tasks and takes their reports back (:class:`Strategy`); its :meth:`~Strategy.work`
runs one task in a worker; and a few class attributes tell the rest of the framework what its
runs are, so nothing outside a strategy names one (records, status, the report, the log's check
ask the strategy). The framework's strategies live in ``dealsearch.search`` and are imported on
first use; a game brings its own through its ``strategies()`` member
(:meth:`~dealsearch.game.Game.strategies`).

A leaf (it imports only the game registry), so that the log, the report and the projection ask
about a run's strategy without importing the search, which imports them.

>>> get_strategy("random").random_deals, get_strategy("climb").random_deals
(True, False)
>>> ", ".join(strategy_names("search"))
'random, climb, exhaustive'
"""

from __future__ import annotations

import importlib
from typing import Any, ClassVar, Protocol

from .game import iter_games

# The framework's strategies: each module registers its class when imported.
BUILT_IN = ("dealsearch.search.random_search", "dealsearch.search.climb",
            "dealsearch.search.exhaustive")


class Strategy(Protocol):
    """What the run service needs of a strategy (``spec`` is the run's
    :class:`~dealsearch.search.spec.SearchSpec`, tasks and reports are
    :class:`~dealsearch.search.base.Task` and :class:`~dealsearch.search.base.Report`).

    The coordinator builds it from the spec and the checkpoint last committed (``{}`` for a
    new run), asks :meth:`next_task` for work while workers are free, and hands every report
    to :meth:`absorb`; a worker runs :meth:`work`. ``None`` from :meth:`next_task` means no
    task now: the run ends when nothing is in flight either (a strategy that waits for a
    round's reports before it hands out the next returns None meanwhile).
    """

    name: ClassVar[str]          # what a run's ``strategy`` column holds
    command: ClassVar[str]       # the command that starts and resumes its runs ("search")
    random_deals: ClassVar[bool]  # plays uniformly random deals: its lengths' tail is projected
    not_random: ClassVar[str]    # else why not, as the report says it ("" if random)
    counts_games: ClassVar[bool]  # its outcomes and histograms count every game it played
    # plays every deal of its space once, in order: its seed changes nothing, and without a
    # budget it ends by itself
    plays_every_deal: ClassVar[bool]
    setting_names: ClassVar[tuple[str, ...]]  # its own options, as the spec's settings name them
    # every game its reports list is a find (the runner keeps them all), not only the run's
    # new bests and its cycles
    keeps_every_find: ClassVar[bool]
    plays_twice: bool            # the runner plays each task twice and compares (a check)

    def __init__(self, spec: Any, checkpoint: dict[str, Any]) -> None: ...

    @classmethod
    def budget(cls, settings: dict[str, Any]) -> list[str]:
        """Budgets of its own, set in a run's ``settings`` beside the spec's ``time`` and
        ``deals``, in words (``500 cycles to expand``), as ``status`` and the strategy's
        own command say them; ``[]`` for settings read from a log that hold no such
        budget (or a value that is none)."""

    @property
    def total_deals(self) -> int | None:
        """Deals the whole run plays, if known (the progress bar's total)."""

    @property
    def finished(self) -> bool:
        """Whether the run's work is all done (its budget spent)."""

    def next_task(self, units: int = 1) -> Any:
        """A task of about ``units`` units of work, or None (nothing to hand out now)."""

    def absorb(self, report: Any) -> list[Any]:
        """Take a task's report; return the reports whose work now counts, in the order it
        counts (usually ``[report]``; a round-based strategy returns a round's at its end)."""

    def checkpoint(self) -> dict[str, Any]:
        """Everything a resumed run needs, as plain data, consistent with what
        :meth:`absorb` has returned so far."""

    @staticmethod
    def work(spec: Any, task: Any) -> Any:
        """Worker side: run one task, return its report."""

    @classmethod
    def settle(cls, spec: Any) -> dict[str, Any]:
        """The spec's ``settings`` (the strategy's own options) checked and completed with
        the strategy's defaults; ValueError, in one line, for the first that is wrong (a spec
        may come from a log anyone wrote)."""


class StrategyDefaults:
    """The class attributes a strategy usually has: a search run by ``dealsearch search``,
    of deals that are not random, counting every game. Subclass and override."""

    name: ClassVar[str]
    command: ClassVar[str] = "search"
    random_deals: ClassVar[bool] = False
    not_random: ClassVar[str] = ""
    counts_games: ClassVar[bool] = True
    plays_every_deal: ClassVar[bool] = False
    setting_names: ClassVar[tuple[str, ...]] = ()
    keeps_every_find: ClassVar[bool] = False
    plays_twice: bool = False

    @classmethod
    def settle(cls, spec: Any) -> dict[str, Any]:
        """A strategy without options of its own takes no ``settings``."""
        if spec.settings:
            raise ValueError(f"a {cls.name} search takes no settings, not "
                             f"{', '.join(map(str, spec.settings))}")
        return {}

    @classmethod
    def budget(cls, settings: dict[str, Any]) -> list[str]:
        """No budget of its own: ``time`` and ``deals`` are the spec's."""
        return []

    @classmethod
    def refuse_unknown(cls, spec: Any) -> None:
        """One ValueError naming the first of the spec's settings not in
        :attr:`setting_names`."""
        unknown = sorted(set(spec.settings) - set(cls.setting_names))
        if unknown:
            raise ValueError(f"unknown {cls.name} setting {unknown[0]!r}")


STRATEGIES: dict[str, type[Strategy]] = {}
_loaded = {"built-in": False, "games": False}


def register_strategy(strategy: type[Any]) -> type[Any]:
    """Add a strategy class to the registry under its ``name``; the class back (a decorator).

    >>> class Idle(StrategyDefaults):
    ...     name = "idle"
    >>> register_strategy(Idle) is Idle and get_strategy("idle") is Idle
    True
    >>> del STRATEGIES["idle"]
    """
    name = getattr(strategy, "name", None)
    if not isinstance(name, str) or not name:
        raise TypeError(f"{strategy!r} has no name")
    STRATEGIES[name] = strategy
    return strategy


def _load(games: bool) -> None:
    """Import the framework's strategies once, and (``games``) every game's."""
    if not _loaded["built-in"]:
        _loaded["built-in"] = True
        for module in BUILT_IN:
            importlib.import_module(module)
    if games and not _loaded["games"]:
        _loaded["games"] = True
        for game in iter_games():
            for strategy in game.strategies():
                register_strategy(strategy)


def find_strategy(name: str) -> type[Strategy] | None:
    """The strategy of that name, or None (a run that ``log recover`` kept without its
    strategy, or one of a game not installed here)."""
    _load(games=False)
    if name not in STRATEGIES:
        _load(games=True)
    return STRATEGIES.get(name)


def get_strategy(name: str) -> type[Strategy]:
    """The strategy of that name; ValueError naming the choices if none."""
    strategy = find_strategy(name)
    if strategy is None:
        raise ValueError(f"unknown strategy {name!r}: choose from "
                         f"{', '.join(strategy_names())}")
    return strategy


def strategy_names(command: str | None = None, games: bool = True) -> list[str]:
    """Every registered strategy's name (``command``: only those that command runs): the
    framework's first, in :data:`BUILT_IN`'s order, then the others by name. ``games``
    False: only those registered without importing a game (the framework's, a program's).

    >>> strategy_names("search", games=False)
    ['random', 'climb', 'exhaustive']
    """
    _load(games=games)

    def order(name: str) -> tuple[int, str]:
        module = STRATEGIES[name].__module__
        return (BUILT_IN.index(module) if module in BUILT_IN else len(BUILT_IN), name)

    return sorted((name for name, strategy in STRATEGIES.items()
                   if command is None or strategy.command == command), key=order)


def is_search(name: str) -> bool:
    """Whether runs of this strategy are searches (``dealsearch search`` runs them)."""
    strategy = find_strategy(name)
    return strategy is not None and strategy.command == "search"


def random_deals(name: str) -> bool:
    """Whether runs of this strategy play uniformly random deals (so their lengths' tail can
    be fitted and projected)."""
    strategy = find_strategy(name)
    return strategy is not None and strategy.random_deals


def counts_games(name: str) -> bool:
    """Whether runs of this strategy count every game they play in their outcomes and
    histograms (so the log's check can add them up)."""
    strategy = find_strategy(name)
    return strategy is not None and strategy.counts_games
