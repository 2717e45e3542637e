"""The interface every game implements, and the registry the search, log and CLI use.

A deal of any game is a *row*: a permutation of the game's deck (a multiset of card codes,
``uint8``) cut into segments (hands, a talon, pay-off piles, a stock). Given the row and the
game's options, the game is deterministic; it ends in one of the game's outcomes with counts
(its *measures*), and a game that repeats a turn-boundary state never ends (outcome ``cycle``,
with the entry and the period in every measure).

Search strategies see a game only through :class:`Game`, 14 members: the deck and segments to
deal and mutate (:class:`Layout`), a compiled :class:`~dealsearch._kernel.Kernel` to play rows
without the GIL, and text in and out for the log. The CLI builds each game's option group from
:attr:`Game.option_specs`. Whatever else a game offers is a capability (a ``Protocol`` below,
checked with ``isinstance``), reached through a function taking the game that gives the
default otherwise (:func:`play_batch`, :func:`cycle_id`, :func:`histogram`, ...). A game knows
nothing of the search, the log or the CLI.

>>> DEFAULT_GAME in game_names()
True
"""

from __future__ import annotations

import re
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import pairwise
from typing import TYPE_CHECKING, Any, ClassVar, Generic, Protocol, TypeVar, runtime_checkable

import numpy as np
import numpy.typing as npt

Row = npt.NDArray[np.uint8]

if TYPE_CHECKING:
    from ._kernel import Kernel


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
    """Results of :func:`play_batch`, one entry per row.

    ``outcome`` indexes :attr:`Game.outcomes`; ``measures``, ``entry`` and ``period`` have
    one column per measure (``entry``/``period`` are 0 unless the outcome is ``cycle``).
    """

    outcome: npt.NDArray[np.uint8]
    measures: npt.NDArray[np.int64]
    entry: npt.NDArray[np.int64]
    period: npt.NDArray[np.int64]

    def __len__(self) -> int:
        return len(self.outcome)


OptionsT = TypeVar("OptionsT", bound=GameOptions)


class Game(ABC, Generic[OptionsT]):
    """A deterministic card game as the search, the log and the CLI see it: the core every
    game has (14 members), generic over its options type ``OptionsT``
    (``DurakGame(Game[DurakOptions])``).

    Everything else a game may offer is a capability (the protocols below, checked with
    ``isinstance``) that the framework reaches through a function taking the game, e.g.
    :func:`play_batch`, :func:`canonical`, :func:`cycle_id`, :func:`finished`.
    """

    name: ClassVar[str]                        # what --game takes: short, lower case
    title: ClassVar[str]                       # the game's name for people
    measures: ClassVar[tuple[str, ...]]        # first is the default objective
    outcomes: ClassVar[tuple[str, ...]]        # index = the compiled outcome code
    option_specs: ClassVar[tuple[OptionSpec, ...]]
    # outcomes that do not end a game properly: counted, never a record (cycles are finds of
    # their own). A game adds its own (Spite and Malice: a stalemate).
    unfinished: ClassVar[tuple[str, ...]] = ("cycle", "limit")

    @abstractmethod
    def options(self, **values: Any) -> OptionsT:
        """Validated options from :attr:`option_specs` values (missing ones take defaults).

        The framework calls it through :func:`make_options`, which refuses names not in
        :attr:`option_specs` and leaves out ``None`` values, so a game checks only values.
        Raises :class:`GameError` naming the bad option.
        """

    @abstractmethod
    def layout(self, options: OptionsT) -> Layout:
        """The deck and segments of a row under ``options``."""

    @abstractmethod
    def parse(self, text: str, options: OptionsT) -> Row:
        """A deal in any of the game's notations as a row; :class:`GameError` if malformed."""

    @abstractmethod
    def format(self, row: Row, options: OptionsT) -> str:
        """The canonical text of a row (the log's key): ``parse(format(row)) == canonical``."""

    @abstractmethod
    def kernel(self, options: OptionsT) -> Kernel:
        """A :class:`~dealsearch._kernel.Kernel` for compiled search loops (one per thread);
        :func:`play_batch` plays rows on it unless the game plays batches itself."""

    @abstractmethod
    def verify(self, text: str, options: OptionsT) -> tuple[str, GameResult]:
        """Play a deal or a position given as text: ``(canonical text, result)``.

        This is what ``dealsearch verify --game NAME`` prints; positions (mid-game states)
        are accepted where the game's notation has them.
        """

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

    def describe_options(self, options: OptionsT) -> str:
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
class CycleIds(Protocol):
    """Names its catalogued cycles itself (BMN: the ids its logs have always had); otherwise
    :func:`cycle_id` hashes the game, the options and the key."""

    def cycle_id(self, key: str, options: Any) -> str:
        """A short stable id of a cycle key under ``options`` (the catalogue's primary key)."""


@runtime_checkable
class BatchPlayer(Protocol):
    """Plays many rows itself, faster than :func:`play_batch` on the game's kernel."""

    def play_batch(self, rows: npt.ArrayLike, options: Any) -> BatchResults:
        """Rows (``(n, n_cards)`` ``uint8``) played in compiled code without the GIL."""


@runtime_checkable
class BatchDetails(Protocol):
    """Turns an entry of its own batches into a full result without replaying the row."""

    def result(self, batch: BatchResults, i: int, row: Row, options: Any) -> GameResult:
        """Entry ``i`` of ``batch`` (played from ``row``) as a :class:`GameResult`."""


@runtime_checkable
class Reference(Protocol):
    """A second, plain engine: the contract compares it with the kernel."""

    def play_reference(self, row: Row, options: Any) -> GameResult:
        """The pure-Python twin of the compiled engine: the same result for every row."""


@runtime_checkable
class Trace(Protocol):
    """An account of a game turn by turn: ``verify --trace`` prints it."""

    def trace(self, text: str, options: Any) -> Iterator[str]:
        """The game of a deal (or position) turn by turn, one line per turn as a person
        would follow it at the table: who plays what, who takes, who is out; it ends with the
        state or result that makes the game's outcome plain (``verify`` prints the result
        line itself)."""


@runtime_checkable
class DealOptions(Protocol):
    """Has options that a deal's text settles itself (BMN: the players and hand sizes):
    ``verify`` takes them from the deal and does not offer them on the command line."""

    deal_options: tuple[str, ...]


@runtime_checkable
class Histograms(Protocol):
    """Bins its measures' length histograms in the log its own way (default: width 1,
    4096 bins; the last bin takes the rest)."""

    histogram_bins: dict[str, tuple[int, int]]   # measure -> (bin width, bins)


@runtime_checkable
class Throughput(Protocol):
    """Totals a run and shows its speed (``<measure>/s``) in a measure other than its first."""

    throughput_measure: str


@runtime_checkable
class DealerVersion(Protocol):
    """Names the random dealer that turns a seed into deals, when it is not the generic one:
    a run dealt by another dealer is then not continued (``--resume`` refuses it)."""

    random_dealer: str


@runtime_checkable
class CycleFamilies(Protocol):
    """Groups catalogued cycles into families (cycles one is the other rearranged)."""

    def cycle_family(self, key: str, options: GameOptions) -> str | None:
        """The family id of a catalogued cycle (its key as the log stores it) under these
        options, or None if the game cannot say."""


@dataclass(frozen=True)
class Command:
    """A command a game brings to ``dealsearch`` (:class:`GameCommands`), as ``dealsearch
    --help`` lists it: its ``name``, its one line of ``help``, and the ``module`` that does
    it, imported only when the command is invoked. The module defines ``add_parser(commands,
    game)``, which adds the command's parser to ``commands`` (argparse's subparsers) for
    ``game`` (the one chosen with ``--game``) and returns it, and ``run(args)``, which does the
    command and returns its exit status. The framework's own commands are written the same
    way. ``safe_points``: the command starts workers or writes a log, and stops on a signal
    only where it calls :func:`dealsearch.interrupt.check`; otherwise a signal stops it at
    once (:mod:`dealsearch.interrupt`)."""

    name: str
    help: str
    module: str
    safe_points: bool = False


@runtime_checkable
class GameCommands(Protocol):
    """Brings commands of the game's own (BMN: ``factory``, ``reverse``)."""

    def commands(self) -> Sequence[Command]:
        """The game's commands; their names must not clash with the CLI's."""
        ...


@runtime_checkable
class GameStrategies(Protocol):
    """Brings strategies of the game's own (BMN: ``factory``), run by the run service as the
    framework's are (:mod:`dealsearch.strategies`)."""

    def strategies(self) -> Sequence[type]:
        """The game's strategy classes (import their modules here, so that loading the game
        does not load them); their names must not clash with the framework's."""
        ...


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
class FastBlocks(Protocol):
    """Its own compiled loop for a block of consecutive deals in rank order (the exhaustive
    search's; ranks number a layout's deals, :mod:`dealsearch.search.distinct`)."""

    def block_player(self, options: GameOptions, objective: str) -> Any | None:
        """A player whose ``play(first, n, max_finds, hists, widths)`` plays the row
        ``first`` and the distinct orderings of the deck after it, ``n`` deals in all (fewer
        after the last), and returns what the generic ``Sampler.play`` does; None for these
        options."""


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


def describe_setting(game_name: str, game_options: Mapping[str, Any], key: str = "") -> str:
    """A logged setting in words, as a search's start line says it
    (:meth:`Game.describe_options`, e.g. ``standard rules, 2 players``); ``key`` (the
    options key) if this installation cannot read the options any more.

    >>> describe_setting("durak", {"players": 3})
    '3 players, podkidnoy, 36 cards, cheapest play'
    """
    try:
        game = get_game(game_name)
        return game.describe_options(make_options(game, game_options))
    except (GameError, ValueError, TypeError):
        return key


def make_options(game: Game[OptionsT], values: Mapping[str, Any]) -> OptionsT:
    """The game's options from ``values``: the one place unknown names are refused. A name is
    an option spec's (with ``_`` or ``-``; what the CLI and campaign files give) or a field the
    game's options write (``to_json``: what the log stores and reads back); ``None`` values are
    left out (the default).

    >>> from dealsearch.examples.war import War
    >>> make_options(War(), {"colour": "red"})
    Traceback (most recent call last):
    ...
    dealsearch.game.GameError: war has no option 'colour': its options are values, max_rounds
    """
    names = [spec.name for spec in game.option_specs]
    written: set[str] | None = None
    given: dict[str, Any] = {}
    for key, value in values.items():
        name = key.replace("-", "_")
        if name not in names and written is None:
            written = set(game.options().to_json())
        if name not in names and name not in (written or ()):
            offered = (f"its options are {', '.join(names)}" if names
                       else "it has no options")
            raise GameError(f"{game.name} has no option {key!r}: {offered}")
        if value is not None:
            given[name] = value
    return game.options(**given)


def play_batch(game: Game[OptionsT], rows: npt.ArrayLike, options: OptionsT) -> BatchResults:
    """Play many rows: the game's own batch player (:class:`BatchPlayer`) if it has one, else
    its kernel row by row."""
    if isinstance(game, BatchPlayer):
        return game.play_batch(rows, options)
    kernel = game.kernel(options)
    cards = np.asarray(rows, dtype=np.uint8).reshape(-1, kernel.n_cards)
    n, width = len(cards), len(game.measures)
    outcome = np.zeros(n, dtype=np.uint8)
    measures, entry, period = (np.zeros((n, width), dtype=np.int64) for _ in range(3))
    for i, row in enumerate(cards):
        outcome[i], measures[i], entry[i], period[i] = kernel.play(row)
    return BatchResults(outcome, measures, entry, period)


def batch_result(game: Game[OptionsT], batch: BatchResults, i: int, row: Row, options: OptionsT
                 ) -> GameResult:
    """Entry ``i`` of a batch as a :class:`GameResult`: the game's (:class:`BatchDetails`),
    else the row replayed by :meth:`Game.verify`."""
    if isinstance(game, BatchDetails):
        return game.result(batch, i, row, options)
    return game.verify(game.format(row, options), options)[1]


def canonical(game: Game[OptionsT], row: Row, options: OptionsT) -> Row:
    """The row with every unordered segment sorted: equal games, equal rows."""
    layout = game.layout(options)
    if not any(layout.unordered):
        return row
    row = np.array(row, dtype=np.uint8)
    for (start, stop), unordered in zip(layout.bounds(), layout.unordered, strict=True):
        if unordered:
            row[start:stop].sort()
    return row


def finished(game: Game[Any]) -> tuple[str, ...]:
    """The outcomes of a game that ended properly, whose length may be a record."""
    return tuple(o for o in game.outcomes if o not in game.unfinished)


def cycle_id(game: Game[OptionsT], key: str, options: OptionsT) -> str:
    """A short stable id of a cycle key (the catalogue's primary key): the game's own
    (:class:`CycleIds`), else 12 hex digits of a hash of the game, options and key."""
    if isinstance(game, CycleIds):
        return game.cycle_id(key, options)
    import hashlib

    text = f"{game.name}:{options.key()}:{key}"
    return hashlib.sha1(text.encode()).hexdigest()[:12]


def histogram(game: Game[Any], measure: str) -> tuple[int, int]:
    """(bin width, bins) of a measure's length histogram (:class:`Histograms`; default:
    1, 4096)."""
    bins = game.histogram_bins if isinstance(game, Histograms) else {}
    return bins.get(measure, (1, 4096))


def deal_options(game: Game[Any]) -> tuple[str, ...]:
    """The options a deal's text settles (:class:`DealOptions`; default: none)."""
    return tuple(game.deal_options) if isinstance(game, DealOptions) else ()


def throughput_measure(game: Game[Any]) -> str:
    """The measure a run totals and shows its speed in (:class:`Throughput`; default: the
    game's first measure)."""
    if isinstance(game, Throughput) and game.throughput_measure:
        return game.throughput_measure
    return game.measures[0]


def random_dealer(game: Game[Any]) -> str:
    """The name of the game's random dealer (:class:`DealerVersion`; default: ``""``, the
    generic one)."""
    return str(game.random_dealer) if isinstance(game, DealerVersion) else ""


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


def specialised_block_player(game: Game, options: GameOptions, objective: str) -> Any | None:
    """The game's own player of blocks of deals in rank order, if it has one."""
    if isinstance(game, FastBlocks):
        return game.block_player(options, objective)
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


GAMES: dict[str, Game[Any]] = {}
DEFAULT_GAME = "beggar"  # the one game the framework names: what --game means when not given
ENTRY_POINTS = "dealsearch.games"  # where games installed by other packages register
# A random dealer's seed: the PRNG takes a uint64 (dealsearch._random) and the log stores the
# seed as a SQLite INTEGER (signed 64 bits); the seeds both accept.
MAX_SEED = 2**63 - 1


GameT = TypeVar("GameT", bound=Game[Any])


def register(game: GameT) -> GameT:
    """Add a game to the registry (and so to the CLI and the contract tests); the game back."""
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
