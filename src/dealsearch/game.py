"""The interface every game implements, and the registry the search, log and CLI use.

A deal of any game is a *row*: a permutation of the game's deck (a multiset of card codes,
``uint8``) cut into segments (hands, a talon, pay-off piles, a stock). Given the row and the
game's options, the game is deterministic; it ends in one of the game's outcomes with counts
(its *measures*), and a game that repeats a turn-boundary state never ends (outcome ``cycle``,
with the entry and the period in every measure).

Search strategies see a game only through :class:`Game`: the deck and segments to deal and
mutate (:class:`Layout`), a compiled :class:`~dealsearch._kernel.Kernel` to play rows without
the GIL, and text in and out for the log. The CLI builds each game's option group from
:attr:`Game.option_specs`. A game knows nothing of the search, the log or the CLI.

>>> game_names()
['beggar', 'durak', 'spite']
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from itertools import pairwise
from typing import Any, ClassVar, Protocol

import numpy as np
import numpy.typing as npt

Row = npt.NDArray[np.uint8]


class GameError(ValueError):
    """Bad game input (a deal, a position or an option): one line naming what is wrong."""


class GameOptions(Protocol):
    """A game's options: frozen, validated when made, with a canonical key for the log."""

    def key(self) -> str:
        """The canonical text of the options, e.g. ``players=3;variant=podkidnoy;...``."""
        ...

    def to_json(self) -> dict[str, Any]:
        """The options as plain JSON-ready data (every field, defaults included)."""
        ...


@dataclass(frozen=True)
class OptionSpec:
    """One option of a game as the CLI and campaign files see it (``--name-with-dashes``).

    ``parse`` turns the command-line text into the value :meth:`Game.options` takes;
    ``switch`` options are flags without a value (``store_true``).
    """

    name: str
    help: str
    default: Any = None
    parse: Callable[[str], Any] = str
    choices: tuple[str, ...] | None = None
    switch: bool = False
    metavar: str | None = None


@dataclass(frozen=True)
class Layout:
    """How a row is made: the deck (sorted codes) and the segments it is cut into, in order.

    ``unordered[i]`` says that the order inside segment ``i`` does not change the game (a
    Durak hand is a set): searches spend no moves inside it and canonicalise it (sorted).
    ``fixed[i]`` marks a segment whose multiset is fixed (Spite and Malice: deck 1 and deck 2
    are separate packs): mutations keep cards of a fixed segment inside it. With fixed
    segments, ``deck`` lists each fixed segment's cards at that segment's place (the search
    deals by shuffling the positions outside fixed segments among themselves, and each fixed
    segment within itself); without them it is simply the sorted deck.
    """

    deck: Row
    segments: tuple[int, ...]
    unordered: tuple[bool, ...] = ()
    fixed: tuple[bool, ...] = ()
    names: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if sum(self.segments) != len(self.deck):
            raise ValueError(f"segments {self.segments} do not cut {len(self.deck)} cards")
        n = len(self.segments)
        if not self.unordered:
            object.__setattr__(self, "unordered", (False,) * n)
        if not self.fixed:
            object.__setattr__(self, "fixed", (False,) * n)
        if not self.names:
            object.__setattr__(self, "names", tuple(f"part {i + 1}" for i in range(n)))

    @property
    def n_cards(self) -> int:
        """Cards in a row."""
        return len(self.deck)

    def bounds(self) -> list[tuple[int, int]]:
        """``(start, stop)`` of every segment in the row."""
        edges = np.cumsum((0, *self.segments)).tolist()
        return list(pairwise(edges))


@dataclass(frozen=True)
class GameResult:
    """What one game came to, in the game's own terms.

    Attributes:
        outcome: one of the game's :attr:`Game.outcomes` (``cycle`` for a never-ending game).
        measures: the counts, named as :attr:`Game.measures` (at the first repeated state
            for a cycle).
        entry, period: for a cycle, the counts at the earlier visit of the repeated state and
            the counts of one turn of the cycle; empty otherwise.
        details: the rest of the game's contract result (winner, loser, out, ...).
    """

    outcome: str
    measures: Mapping[str, int]
    entry: Mapping[str, int] = field(default_factory=dict)
    period: Mapping[str, int] = field(default_factory=dict)
    details: Mapping[str, Any] = field(default_factory=dict)

    # A game's subclass may name its contract's key order; by default: outcome, details,
    # measures, cycle.
    json_keys: ClassVar[tuple[str, ...]] = ()

    def to_json(self) -> dict[str, Any]:
        """The result with exactly the keys of the game's contract (``cycle`` null or a dict)."""
        cycle = None
        if self.outcome == "cycle":
            cycle = {f"entry_{m}": v for m, v in self.entry.items()}
            cycle |= {f"period_{m}": v for m, v in self.period.items()}
        data = {"outcome": self.outcome, **self.details, **self.measures, "cycle": cycle}
        return {key: data[key] for key in self.json_keys} if self.json_keys else data


@dataclass(frozen=True)
class BatchResults:
    """Results of :meth:`Game.play_batch`, one entry per row.

    ``outcome`` indexes :attr:`Game.outcomes`; ``measures``, ``entry`` and ``period`` have
    one column per measure (``entry``/``period`` are 0 unless the outcome is ``cycle``).
    """

    outcome: npt.NDArray[np.uint8]
    measures: npt.NDArray[np.int64]
    entry: npt.NDArray[np.int64]
    period: npt.NDArray[np.int64]

    def __len__(self) -> int:
        return len(self.outcome)


class Game(ABC):
    """A deterministic card game as the search, the log and the CLI see it."""

    name: ClassVar[str]                        # "beggar", "durak", "spite"
    title: ClassVar[str]                       # "Beggar-My-Neighbour"
    measures: ClassVar[tuple[str, ...]]        # first is the default objective
    outcomes: ClassVar[tuple[str, ...]]        # index = the compiled outcome code
    option_specs: ClassVar[tuple[OptionSpec, ...]]
    # Optional, with defaults (added with the BMN plug-in):
    # options the deal text itself settles: ``verify`` takes them from the deal, not the CLI.
    deal_options: ClassVar[tuple[str, ...]] = ()
    # measure -> (bin width, bins) of the log's length histograms (the last bin takes the rest).
    histogram_bins: ClassVar[dict[str, tuple[int, int]]] = {}
    # weights of the generic climber's mutations: swap two unequal codes, move a card, swap
    # between segments, rotate a segment.
    mutation_weights: ClassVar[tuple[int, int, int, int]] = (1, 1, 1, 1)
    # option values (as Game.options takes them) the contract tests play, e.g. ({}, {...}).
    test_option_sets: ClassVar[tuple[dict[str, Any], ...]] = ({},)

    @abstractmethod
    def options(self, **values: Any) -> GameOptions:
        """Validated options from :attr:`option_specs` values (missing ones take defaults).

        Raises :class:`GameError` naming the bad option.
        """

    @abstractmethod
    def layout(self, options: GameOptions) -> Layout:
        """The deck and segments of a row under ``options``."""

    @abstractmethod
    def parse(self, text: str, options: GameOptions) -> Row:
        """A deal in any of the game's notations as a row; :class:`GameError` if malformed."""

    @abstractmethod
    def format(self, row: Row, options: GameOptions) -> str:
        """The canonical text of a row (the log's key): ``parse(format(row)) == canonical``."""

    def canonical(self, row: Row, options: GameOptions) -> Row:
        """The row with every unordered segment sorted: equal games, equal rows."""
        layout = self.layout(options)
        if not any(layout.unordered):
            return row
        row = np.array(row, dtype=np.uint8)
        for (start, stop), unordered in zip(layout.bounds(), layout.unordered, strict=True):
            if unordered:
                row[start:stop].sort()
        return row

    @abstractmethod
    def play_batch(self, rows: npt.ArrayLike, options: GameOptions) -> BatchResults:
        """Play many rows in compiled code without the GIL."""

    @abstractmethod
    def verify(self, text: str, options: GameOptions) -> tuple[str, GameResult]:
        """Play a deal or a position given as text: ``(canonical text, result)``.

        This is what ``dealsearch verify --game NAME`` prints; positions (mid-game states)
        are accepted where the game's notation has them.
        """

    @abstractmethod
    def play_reference(self, row: Row, options: GameOptions) -> GameResult:
        """The pure-Python twin of the compiled engine (tests compare the two)."""

    @abstractmethod
    def trace(self, text: str, options: GameOptions) -> Iterator[str]:
        """The game turn by turn, as a person would follow it at the table."""

    @abstractmethod
    def kernel(self, options: GameOptions) -> Any:
        """A :class:`~dealsearch._kernel.Kernel` for compiled search loops (one per thread)."""

    def cycle_key(self, row: Row, options: GameOptions) -> str:
        """A canonical text of the cycle the row's game enters, the same for every deal and
        seat that reaches it (the catalogue's identity); ``ValueError`` if the game ends."""
        raise NotImplementedError(f"{self.name} has no cycle catalogue")

    def backwards_refusal(self, options: GameOptions) -> str | None:
        """Why :meth:`longer_starts` cannot serve these options (``search climb
        --reverse-every`` then refuses them), or None if it can."""
        return f"{self.name} cannot be played backwards"

    def longer_starts(self, row: Row, options: GameOptions) -> list[tuple[Row, GameResult]]:
        """Deals longer than ``row``'s whose games run through the first states of its game,
        found by playing it backwards, longest first (``search climb --reverse-every``)."""
        raise NotImplementedError(self.backwards_refusal(options))

    def speed_table(self, deals: int, seed: int) -> list[dict[str, Any]]:
        """Rows of ``dealsearch bench --game NAME``: per setting (preset, players, policies),
        the compiled engine and the reference on the same seeded deals in one run, with keys
        ``setting, deals_per_s, <measure>_per_s, reference_deals_per_s, ratio, mismatches`` (deals
        whose compiled and reference results differ: ``bench`` then exits 1)."""
        raise NotImplementedError(f"{self.name} has no speed table")

    def describe(self, result: GameResult) -> str:
        """One line for ``verify``: the outcome, the measures and any cycle."""
        counts = ", ".join(f"{value} {name}" for name, value in result.measures.items())
        text = f"{result.outcome}: {counts}"
        details = ", ".join(f"{k} {v}" for k, v in result.details.items() if v is not None)
        if details:
            text += f" ({details})"
        if result.outcome == "cycle":
            entry = ", ".join(f"{v} {k}" for k, v in result.entry.items())
            period = ", ".join(f"{v} {k}" for k, v in result.period.items())
            text += f"; entry {entry}; period {period}"
        return text

    def describe_options(self, options: GameOptions) -> str:
        """The setting in words for people (the report's runs table), e.g. ``standard rules,
        2 players``. By default every option that is set, as ``name value``.

        >>> class Plain:
        ...     def to_json(self):
        ...         return {"players": 3, "max_turns": None, "fast": True}
        >>> Game.describe_options(None, Plain())
        'players 3, fast'
        """
        words = []
        for name, value in options.to_json().items():
            if value is None or value is False:
                continue
            label = name.replace("_", " ")
            words.append(label if value is True else f"{label} {_words(value)}")
        return ", ".join(words)

    def histogram(self, measure: str) -> tuple[int, int]:
        """(bin width, bins) of a measure's length histogram (default: 1, 4096)."""
        return self.histogram_bins.get(measure, (1, 4096))

    def cycle_id(self, key: str, options: GameOptions) -> str:
        """A short stable id of a cycle key (the catalogue's primary key)."""
        import hashlib

        text = f"{self.name}:{options.key()}:{key}"
        return hashlib.sha1(text.encode()).hexdigest()[:12]

    def random_player(self, options: GameOptions, seed: int, stream: int, objective: str,
                      best: int = 0) -> Any | None:
        """A specialised random sampler with the generic ``Sampler``'s methods, or None (the
        search then deals and plays through :meth:`kernel`)."""
        return None

    def climber(self, options: GameOptions, seed: int, stream: int, objective: str
                ) -> Any | None:
        """A specialised climber with the generic ``Climber``'s methods, or None."""
        return None

    def result(self, batch: BatchResults, i: int, row: Row, options: GameOptions) -> GameResult:
        """Entry ``i`` of a batch as a :class:`GameResult` (by default: replay the row)."""
        return self.verify(self.format(row, options), options)[1]


def _words(value: Any) -> str:
    if isinstance(value, list | tuple):
        return "/".join(map(str, value))
    return str(value)


GAMES: dict[str, Game] = {}
BUILTIN_GAMES = ("beggar", "durak", "spite")


def register(game: Game) -> Game:
    """Add a game to the registry (and so to the CLI and the contract tests)."""
    GAMES[game.name] = game
    return game


def get_game(name: str) -> Game:
    """The registered game called ``name``; :class:`GameError` naming the choices if none."""
    _load_builtin_games()
    try:
        return GAMES[name]
    except KeyError:
        raise GameError(f"unknown game {name!r}: choose from {', '.join(sorted(GAMES))}"
                        ) from None


def game_names() -> list[str]:
    """Names of every registered game."""
    _load_builtin_games()
    return sorted(GAMES)


def _load_builtin_games() -> None:
    # Imported on first use, not at import time: each game module registers itself, and the
    # layers above need only the games they are asked for.
    import importlib

    for module in BUILTIN_GAMES:
        importlib.import_module(f"dealsearch.games.{module}")


def iter_games() -> Iterator[Game]:
    """Every registered game, by name."""
    for name in game_names():
        yield GAMES[name]
