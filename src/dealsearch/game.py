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

>>> DEFAULT_GAME in game_names()
True
"""

from __future__ import annotations

import re
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from itertools import pairwise
from typing import Any, ClassVar, Protocol, runtime_checkable

import numpy as np
import numpy.typing as npt

Row = npt.NDArray[np.uint8]


class GameError(ValueError):
    """Bad game input (a deal, a position or an option): one line naming what is wrong."""


class GameOptions(Protocol):
    """A game's options: frozen, validated when made, with a canonical key for the log."""

    def key(self) -> str:
        """The canonical text of the options, e.g. ``seats=3;variant=open;...``."""
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

    name: ClassVar[str]                        # what --game takes: short, lower case
    title: ClassVar[str]                       # the game's name for people
    measures: ClassVar[tuple[str, ...]]        # first is the default objective
    outcomes: ClassVar[tuple[str, ...]]        # index = the compiled outcome code
    option_specs: ClassVar[tuple[OptionSpec, ...]]
    # Optional, with defaults:
    # options the deal text itself settles: ``verify`` takes them from the deal, not the CLI.
    deal_options: ClassVar[tuple[str, ...]] = ()
    # measure -> (bin width, bins) of the log's length histograms (the last bin takes the rest).
    histogram_bins: ClassVar[dict[str, tuple[int, int]]] = {}
    # outcomes that do not end a game properly: counted, never a record (cycles are finds of
    # their own). A game adds its own (Spite and Malice: a stalemate).
    unfinished: ClassVar[tuple[str, ...]] = ("cycle", "limit")
    # weights of the generic climber's mutations: swap two unequal codes, move a card, swap
    # between segments, rotate a segment.
    mutation_weights: ClassVar[tuple[int, int, int, int]] = (1, 1, 1, 1)
    # the measure a run totals and shows its throughput in (``<measure>/s``; default: the
    # first measure)
    throughput_measure: ClassVar[str] = ""

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

    def describe(self, result: GameResult) -> str:
        """One line for ``verify``: the outcome, the measures and any cycle."""
        from .text import measures, pairs  # plain text: no repr of a list or None

        text = f"{result.outcome}: {measures(result.measures)}"
        details = pairs(result.details)
        if details:
            text += f" ({details})"
        if result.outcome == "cycle":
            text += f"; entry {measures(result.entry)}; period {measures(result.period)}"
        return text

    def describe_options(self, options: GameOptions) -> str:
        """The setting in words for people (the report's runs table), e.g. ``standard rules,
        3 seats``. By default every option that is set, as ``name value``.

        >>> class Plain:
        ...     def to_json(self):
        ...         return {"seats": 3, "max_turns": None, "fast": True}
        >>> Game.describe_options(None, Plain())
        'seats 3, fast'
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

    def result(self, batch: BatchResults, i: int, row: Row, options: GameOptions) -> GameResult:
        """Entry ``i`` of a batch as a :class:`GameResult` (by default: replay the row)."""
        return self.verify(self.format(row, options), options)[1]

    def finished(self) -> tuple[str, ...]:
        """The outcomes of a game that ended properly, whose length may be a record."""
        return tuple(o for o in self.outcomes if o not in self.unfinished)



# ---------------------------------------------------------------------- capabilities
# What a game may do beyond the core interface. The framework asks ``isinstance(game, X)``;
# a game has a capability by having its methods (no registration, no base class needed).


@runtime_checkable
class CycleCatalogue(Protocol):
    """Names the cycle a never-ending deal enters, so the log groups deals by cycle.

    A game may name what its keys are for people with a ``cycle_key_title`` class attribute
    (``records`` heads the column with it; default: ``cycle key``).
    """

    def cycle_key(self, row: Row, options: GameOptions) -> str:
        """A canonical text of the cycle the row's game enters, the same for every deal and
        seat that reaches it (the catalogue's identity); ``ValueError`` if the game ends."""


@runtime_checkable
class CycleFamilies(Protocol):
    """Groups catalogued cycles into families (cycles one is the other rearranged)."""

    def cycle_family(self, key: str, options: GameOptions) -> str | None:
        """The family id of a catalogued cycle (its key as the log stores it) under these
        options, or None if the game cannot say."""


@runtime_checkable
class PlaysBackwards(Protocol):
    """Grows longer deals by playing a game backwards (``search climb --reverse-every``)."""

    def backwards_refusal(self, options: GameOptions) -> str | None:
        """Why :meth:`longer_starts` cannot serve these options, or None if it can."""

    def longer_starts(self, row: Row, options: GameOptions) -> list[tuple[Row, GameResult]]:
        """Deals longer than ``row``'s whose games run through the first states of its game,
        found by playing it backwards, longest first."""


@runtime_checkable
class FastSearch(Protocol):
    """Specialised compiled search loops, used instead of the generic ones on the kernel."""

    def random_player(self, options: GameOptions, seed: int, stream: int, objective: str,
                      best: int = 0) -> Any | None:
        """A sampler with the generic ``Sampler``'s methods, or None for these options."""

    def climber(self, options: GameOptions, seed: int, stream: int, objective: str
                ) -> Any | None:
        """A climber with the generic ``Climber``'s methods, or None for these options."""


@runtime_checkable
class Yardstick(Protocol):
    """Measures its engine against a plain C loop, side by side (``dealsearch bench``)."""

    def yardstick(self, deals: int, workers: int, seed: int) -> dict[str, Any]:
        """The report: contenders' rates and ratios, and ``checks`` (``*mismatch*`` counts:
        ``bench`` exits 1 if any is not 0)."""

    def format_yardstick(self, report: dict[str, Any]) -> str:
        """The report as a table for people."""


@runtime_checkable
class SpeedTable(Protocol):
    """Rows for ``dealsearch bench --game NAME``."""

    def speed_table(self, deals: int, seed: int) -> list[dict[str, Any]]:
        """Per setting, the compiled engine and the reference on the same seeded deals in one
        run, with keys ``setting, deals_per_s, <measure>_per_s, reference_deals_per_s, ratio,
        mismatches`` (deals whose results differ: ``bench`` then exits 1)."""


@dataclass(frozen=True)
class Published:
    """What has been published about a game's long deals, for the report to compare with."""

    options: GameOptions                 # the setting the records were played under
    records: tuple[tuple[str, dict[str, int], str], ...]   # (who and when, measures, deal)
    tail_scale: dict[str, float] = field(default_factory=dict)  # measure -> published e-fold


@runtime_checkable
class PublishedRecords(Protocol):
    """Has published record deals (and a published tail of random lengths) to compare with."""

    def published(self) -> Published:
        """The published records and the setting they were played under."""


@dataclass(frozen=True)
class PublishedCheck:
    """One published deal replayed: what was published and what the engine computes."""

    deal: str
    finder: str
    year: int
    published: str           # the published result in a few words
    computed: str            # the engine's, in the same words
    ok: bool
    result: dict[str, Any]   # the engine's result as ``verify --json`` prints it


@runtime_checkable
class PublishedDeals(Protocol):
    """Ships published deals with their published results (``verify --known``)."""

    def check_published(self) -> list[PublishedCheck]:
        """Every published deal, replayed and compared with its publication."""


@runtime_checkable
class LegacyLogs(Protocol):
    """Reads logs written before games were plug-ins (the default game's, schema v1)."""

    def migrate_v1(self, db: Any) -> None:
        """Rewrite a v1 log's tables to schema v2 inside the caller's transaction."""

    def v1_columns(self, values: Mapping[str, Any]) -> dict[str, Any]:
        """The columns a v1 log named a find's setting by, for these option values, in v1's
        order: ``records`` shows the first beside each cycle, and ``records --csv`` the
        first after the deal and the rest at the end, as v1 did."""


def v1_columns(game: Game, values: Mapping[str, Any]) -> dict[str, Any]:
    """The game's v1 columns of a find or cycle (:class:`LegacyLogs`); none for a game
    without logs from before plug-ins."""
    return game.v1_columns(values) if isinstance(game, LegacyLogs) else {}


def cycle_key_title(game: Game) -> str:
    """What the game's cycle keys are, for a column heading (:class:`CycleCatalogue`)."""
    return str(getattr(game, "cycle_key_title", "cycle key"))


_FILE_LIKE = re.compile(r"[._~\\]")
# What a misspelt file name holds and no deal of standard playing cards does: a letter that is
# not a card (A K Q J T) or suit (C D H S) letter.
_NOT_CARD_LETTER = re.compile(r"[BEFGILMNOPRUVWXYZ]", re.IGNORECASE)


def card_text(text: str) -> bool:
    """:func:`looks_like_deal` for games written in standard card letters: besides the
    default's signs of a file name, a letter no card or suit is written with.

    >>> card_text("KH 4C QS / 2D AS"), card_text("deals")
    (True, False)
    """
    return (text.startswith("-") or any(c.isspace() or c in "{=;" for c in text)
            or not (_FILE_LIKE.search(text) or _NOT_CARD_LETTER.search(text)))


def looks_like_deal(game: Game, text: str) -> bool:
    """Whether ``text``, which does not parse, was meant as a deal (its parse error is shown)
    rather than as a file name (``verify`` says there is no such file). A game may answer
    with a ``looks_like_deal(text)`` method; by default a text starting with '-', holding a
    space or a position's '{', '=' or ';', or no '.', '_', '~' or backslash is a deal.

    >>> class Plain: ...
    >>> looks_like_deal(Plain(), "0123/3210"), looks_like_deal(Plain(), "deals.txt")
    (True, False)
    """
    own = getattr(game, "looks_like_deal", None)
    if own is not None:
        return bool(own(text))
    return (text.startswith("-") or any(c.isspace() or c in "{=;" for c in text)
            or not _FILE_LIKE.search(text))


def specialised_sampler(game: Game, options: GameOptions, seed: int, stream: int, objective: str,
                  best: int = 0) -> Any | None:
    """The game's specialised random sampler for these options, if it has one."""
    if isinstance(game, FastSearch):
        return game.random_player(options, seed, stream, objective, best)
    return None


def specialised_climber(game: Game, options: GameOptions, seed: int, stream: int, objective: str
            ) -> Any | None:
    """The game's specialised climber for these options, if it has one."""
    if isinstance(game, FastSearch):
        return game.climber(options, seed, stream, objective)
    return None


def backwards_refusal(game: Game, options: GameOptions) -> str | None:
    """Why ``game`` cannot be played backwards under ``options`` (None if it can)."""
    if isinstance(game, PlaysBackwards):
        return game.backwards_refusal(options)
    return f"{game.name} cannot be played backwards"


def _words(value: Any) -> str:
    if isinstance(value, list | tuple):
        return "/".join(map(str, value))
    return str(value)


GAMES: dict[str, Game] = {}
DEFAULT_GAME = "beggar"  # the one game the framework names: what --game and old logs mean
ENTRY_POINTS = "dealsearch.games"  # where games installed by other packages register


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


_loaded = False


def _load_builtin_games() -> None:
    """Import every game once: each folder of ``dealsearch.games`` and every game another
    package declares under the ``dealsearch.games`` entry point. Each registers itself."""
    global _loaded
    if _loaded:
        return
    _loaded = True
    import importlib
    import pkgutil
    from importlib.metadata import entry_points

    from . import games

    for module in pkgutil.iter_modules(games.__path__):
        if module.ispkg:
            importlib.import_module(f"{games.__name__}.{module.name}")
    for entry in entry_points(group=ENTRY_POINTS):
        entry.load()


def iter_games() -> Iterator[Game]:
    """Every registered game, by name."""
    for name in game_names():
        yield GAMES[name]
