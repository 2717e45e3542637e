"""The interface every game implements, and the registry the search, log and CLI use.

A deal of any game is a *row*: a permutation of the game's deck (a multiset of card codes,
``uint8``) cut into segments (hands, a talon, pay-off piles, a stock). Given the row and the
game's options, the game is deterministic; it ends in one of the game's outcomes with counts
(its *measures*), and a game that repeats a turn-boundary state never ends (outcome ``cycle``,
with the entry and the period in every measure).

A game is a subclass of :class:`Game`: its abstract members are what every game writes, its
other members have defaults a game overrides where it differs. Whatever more a game offers is
a *feature* (a ``Protocol`` below, a few members that buy one thing together), which the game
lists among its bases: :class:`Reference`, :class:`CycleCatalogue`, :class:`PlaysBackwards`,
:class:`PublishedRecords`, :class:`Yardstick`, :class:`FastSearch`, :class:`FastBlocks` and
:class:`~dealsearch.devices.DeviceSearch`. A public member name that neither :class:`Game`
nor a feature knows is refused by :func:`register` (a misspelt member would otherwise turn a
feature off unseen). A game knows nothing of the search, the log or the CLI.

>>> all(get_game(name).name == name for name in game_names())
True
"""

from __future__ import annotations

import difflib
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

    def to_json(self, keys: Sequence[str] = ()) -> dict[str, Any]:
        """The result as ``verify --json`` prints it (``cycle`` null or a dict): ``keys`` in
        that order (a game's :attr:`Game.result_keys`), else outcome, details, measures, cycle.

        >>> GameResult("win", {"rounds": 9}, details={"winner": 2}).to_json(
        ...     ("outcome", "winner", "rounds"))
        {'outcome': 'win', 'winner': 2, 'rounds': 9}
        """
        cycle = None
        if self.outcome == "cycle":
            cycle = {f"entry_{m}": v for m, v in self.entry.items()}
            cycle |= {f"period_{m}": v for m, v in self.period.items()}
        data = {"outcome": self.outcome, **self.details, **self.measures, "cycle": cycle}
        return {key: data[key] for key in keys} if keys else data


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


@dataclass(frozen=True)
class Command:
    """A command a game brings to ``dealsearch`` (:meth:`Game.commands`), as ``dealsearch
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


_FILE_LIKE = re.compile(r"[._~\\]")
# What a misspelt file name holds and no deal of standard playing cards does: a letter that is
# not a card (A K Q J T) or suit (C D H S) letter.
_NOT_CARD_LETTER = re.compile(r"[BEFGILMNOPRUVWXYZ]", re.IGNORECASE)


def card_text(text: str) -> bool:
    """:meth:`Game.looks_like_deal` for games written in standard card letters: besides the
    default's signs of a file name, a letter no card or suit is written with.

    >>> card_text("KH 4C QS / 2D AS"), card_text("deals")
    (True, False)
    """
    return (text.startswith("-") or any(c.isspace() or c in "{=;" for c in text)
            or not (_FILE_LIKE.search(text) or _NOT_CARD_LETTER.search(text)))


class Game(ABC, Generic[OptionsT]):
    """A deterministic card game as the search, the log and the CLI see it, generic over its
    options type ``OptionsT`` (``DurakGame(Game[DurakOptions])``).

    A game writes the abstract members (five class attributes and six methods) and overrides
    a defaulted one where the default does not fit. A feature beyond these (the protocols
    below) is listed among the game's bases.
    """

    # ------------------------------------------------------------------ what every game writes
    name: ClassVar[str]                        # what --game takes: short, lower case
    title: ClassVar[str]                       # the game's name for people
    measures: ClassVar[tuple[str, ...]]        # first is the default objective
    outcomes: ClassVar[tuple[str, ...]]        # index = the compiled outcome code
    option_specs: ClassVar[tuple[OptionSpec, ...]]

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
        the default :meth:`play_batch` plays rows on it."""

    @abstractmethod
    def verify(self, text: str, options: OptionsT) -> tuple[str, GameResult]:
        """Play a deal or a position given as text: ``(canonical text, result)``.

        This is what ``dealsearch verify --game NAME`` prints; positions (mid-game states)
        are accepted where the game's notation has them.
        """

    # ------------------------------------------------------------ defaults a game may override
    # outcomes that do not end a game properly: counted, never a record (cycles are finds of
    # their own). A game adds its own (Spite and Malice: a stalemate).
    unfinished: ClassVar[tuple[str, ...]] = ("cycle", "limit")
    # the measure a run totals and shows its speed in (``<measure>/s``); None: the first
    throughput_measure: ClassVar[str | None] = None
    # measure -> (bin width, bins) of the log's length histograms; others: (1, 4096), the
    # last bin taking the rest
    histogram_bins: ClassVar[Mapping[str, tuple[int, int]]] = {}
    # options a deal's text settles itself (BMN: players, hand sizes): ``verify`` takes them
    # from the deal and does not offer them on the command line
    deal_options: ClassVar[tuple[str, ...]] = ()
    # the random dealer that turns a seed into deals, when it is not the generic one (""): a
    # random run dealt by another dealer is not continued (``--resume`` refuses it)
    random_dealer: ClassVar[str] = ""
    # the keys of ``verify --json`` in the order of the game's contract (GameResult.to_json);
    # () : outcome, details, measures, cycle
    result_keys: ClassVar[tuple[str, ...]] = ()

    def play_batch(self, rows: npt.ArrayLike, options: OptionsT) -> BatchResults:
        """Rows (``(n, n_cards)`` ``uint8``) played: by default on the kernel, row by row; a
        game with its own batch loop (compiled, without the GIL) overrides it."""
        kernel = self.kernel(options)
        cards = np.asarray(rows, dtype=np.uint8).reshape(-1, kernel.n_cards)
        n, width = len(cards), len(self.measures)
        outcome = np.zeros(n, dtype=np.uint8)
        measures, entry, period = (np.zeros((n, width), dtype=np.int64) for _ in range(3))
        for i, row in enumerate(cards):
            outcome[i], measures[i], entry[i], period[i] = kernel.play(row)
        return BatchResults(outcome, measures, entry, period)

    def batch_result(self, batch: BatchResults, i: int, row: Row, options: OptionsT
                     ) -> GameResult:
        """Entry ``i`` of ``batch`` (played from ``row``) as a :class:`GameResult`: by default
        the row replayed by :meth:`verify`; a game whose batches hold the whole result
        overrides it."""
        return self.verify(self.format(row, options), options)[1]

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

    def looks_like_deal(self, text: str) -> bool:
        """Whether ``text``, which does not parse, was meant as a deal (``verify`` shows its
        parse error) rather than a file name (``verify`` says there is no such file). By
        default a text starting with '-', holding a space or a position's '{', '=' or ';', or
        no '.', '_', '~' or backslash is a deal; a game written in standard card letters
        answers with :func:`card_text`.

        >>> from dealsearch.examples.war import War
        >>> War().looks_like_deal("0123/3210"), War().looks_like_deal("deals.txt")
        (True, False)
        """
        return (text.startswith("-") or any(c.isspace() or c in "{=;" for c in text)
                or not _FILE_LIKE.search(text))

    def commands(self) -> Sequence[Command]:
        """The game's own commands (BMN: ``factory``, ``reverse``); their names must not clash
        with the CLI's. None by default."""
        return ()

    def strategies(self) -> Sequence[type]:
        """The game's own strategy classes (BMN: ``factory``), run by the run service as the
        framework's are (:mod:`dealsearch.strategies`); import their modules inside the
        method, so that loading the game does not load them. Their names must not clash with
        the framework's. None by default."""
        return ()


# ---------------------------------------------------------------------- features
# What a game may offer beyond Game, each a few members that buy one thing together. A game
# lists the feature among its bases (``class MyGame(Game[MyOptions], Reference)``): a member
# it forgets is then an abstract method Python names, and it takes the feature's defaults.
# The framework asks ``isinstance(game, Feature)``.


FEATURES: list[type] = []   # every feature's protocol (:func:`feature`)
ProtocolT = TypeVar("ProtocolT", bound=type)


def feature(protocol: ProtocolT) -> ProtocolT:
    """Make a protocol a feature: a game may list it among its bases, and its members are
    names :func:`register` knows."""
    FEATURES.append(protocol)
    return protocol


@feature
@runtime_checkable
class Reference(Protocol):
    """A second, plain engine (the rules in plain Python): the contract compares it with the
    kernel, ``verify --trace`` tells its game turn by turn, and ``bench --game NAME`` times
    the kernel against it on the game's settings."""

    @abstractmethod
    def play_reference(self, row: Row, options: Any) -> GameResult:
        """The pure-Python twin of the compiled engine: the same result for every row."""

    @abstractmethod
    def trace(self, text: str, options: Any) -> Iterator[str]:
        """The game of a deal (or position) turn by turn, one line per turn as a person
        would follow it at the table: who plays what, who takes, who is out; it ends with the
        state or result that makes the game's outcome plain (``verify`` prints the result
        line itself)."""

    def speed_table(self, deals: int, seed: int) -> list[dict[str, Any]]:
        """Rows for ``dealsearch bench --game NAME``: per setting, the compiled engine and
        the reference on the same seeded deals (:func:`dealsearch.plugin.speed_row`), with
        keys ``setting, deals_per_s, <measure>_per_s, reference_deals_per_s, ratio,
        mismatches``; none by default (``bench`` then has nothing to time)."""
        return []


@feature
@runtime_checkable
class CycleCatalogue(Protocol):
    """Names the cycle a never-ending deal enters, so the log files deals by cycle and
    ``records --cycles`` lists them (one row per cycle, with its family where the game
    groups cycles)."""

    # what the cycle keys are, for ``records``' column heading
    cycle_key_title: ClassVar[str] = "cycle key"

    @abstractmethod
    def cycle_key(self, row: Row, options: Any) -> str:
        """A canonical text of the cycle the row's game enters, the same for every deal and
        seat that reaches it (the catalogue's identity); ``ValueError`` if the game ends."""

    def cycle_id(self, key: str, options: Any) -> str:
        """A short stable id of a cycle key under ``options`` (the catalogue's primary key):
        by default 12 hex digits of a hash of the game, the options and the key."""
        import hashlib

        text = f"{self.name}:{options.key()}:{key}"  # type: ignore[attr-defined]  # a Game's
        return hashlib.sha1(text.encode()).hexdigest()[:12]

    def cycle_family(self, key: str, options: Any) -> str | None:
        """The family id of a catalogued cycle (cycles one is the other rearranged) under
        these options, or None (the default) if the game cannot say."""
        return None


@feature
@runtime_checkable
class PlaysBackwards(Protocol):
    """Grows longer deals by playing a game backwards (``search climb --reverse-every``)."""

    @abstractmethod
    def backwards_refusal(self, options: Any) -> str | None:
        """Why :meth:`longer_starts` cannot serve these options, or None if it can."""

    @abstractmethod
    def longer_starts(self, row: Row, options: Any) -> list[tuple[Row, GameResult]]:
        """Deals longer than ``row``'s whose games run through the first states of its game,
        found by playing it backwards, longest first."""


_I64 = npt.NDArray[np.int64]


class SearchSampler(Protocol):
    """What the random search asks of a sampler: the generic compiled ``Sampler``
    (:mod:`dealsearch.search._generic`) or a game's own (:class:`FastSearch`)."""

    best: int       # the best score so far, by the objective

    def play(self, n: int, max_finds: int = 256, hists: Sequence[_I64] = (),
             widths: Sequence[int] = ()) -> tuple[int, _I64, _I64, Row, _I64]:
        """Play up to ``n`` more deals, stopping once ``max_finds`` finds are kept; adds
        every game to ``hists`` (bins of ``widths``, one a measure). Returns (played, counts
        per outcome, totals per measure, find rows, find results: outcome, measures, entry,
        period)."""


class SearchClimber(Protocol):
    """What the climb asks of a climber: the generic compiled ``Climber``
    (:mod:`dealsearch.search._generic`) or a game's own (:class:`FastSearch`)."""

    score: int          # the current deal's score, by the objective
    best_score: int     # the best since the last reset
    stall: int          # mutants played since the best last improved
    temperature: float

    @property
    def current_row(self) -> Row:
        """The current deal."""

    @property
    def best_row(self) -> Row:
        """The best deal since the last reset."""

    def reset(self, row: Row, score: int, temperature: float) -> None:
        """Start (again) from ``row``, whose game scored ``score``."""

    def restore_best(self, row: Row, score: int) -> None:
        """Set the best deal since the last reset (to continue from a checkpoint)."""

    def perturb(self, mutations: int) -> None:
        """Apply ``mutations`` random mutations to the current deal."""

    def play_current(self) -> tuple[int, tuple[int, ...], tuple[int, ...], tuple[int, ...]]:
        """Play the current deal: (outcome, measures, entry, period); sets the scores."""

    def random_state(self) -> list[int]:
        """The random generator's state, to checkpoint."""

    def set_random_state(self, words: Sequence[int]) -> None:
        """Restore a state from :meth:`random_state`."""

    def climb(self, games: int, stall_limit: int, cooling: float, anneal: bool, counts: _I64,
              hists: Sequence[_I64] = (), widths: Sequence[int] = (), max_cycles: int = 64
              ) -> tuple[int, _I64, Row, _I64]:
        """Play up to ``games`` mutants (fewer once it stalls or the cycles fill up); adds to
        ``counts`` and ``hists``. Returns (played, totals per measure, cycle rows, their
        results)."""


class KickClimber(SearchClimber, Protocol):
    """A game's own climber (:class:`FastSearch`): a :class:`SearchClimber` whose mutants may
    take several mutations (``--kick``)."""

    kick: int           # mutations per mutant


@feature
@runtime_checkable
class FastSearch(Protocol):
    """Specialised compiled search loops, used instead of the generic ones on the kernel."""

    def random_player(self, options: Any, seed: int, stream: int, objective: str,
                      best: int = 0) -> SearchSampler | None:
        """The game's own sampler for these options, or None."""

    def climber(self, options: Any, seed: int, stream: int, objective: str
                ) -> KickClimber | None:
        """The game's own climber for these options, or None."""


@feature
@runtime_checkable
class FastBlocks(Protocol):
    """Its own compiled loop for a block of consecutive deals in rank order (the exhaustive
    search's; ranks number a layout's deals, :mod:`dealsearch.search.distinct`)."""

    def block_player(self, options: Any, objective: str) -> Any | None:
        """A player whose ``play(first, n, max_finds, hists, widths)`` plays the row
        ``first`` and the distinct orderings of the deck after it, ``n`` deals in all (fewer
        after the last), and returns what the generic ``Sampler.play`` does; None for these
        options."""


@feature
@runtime_checkable
class Yardstick(Protocol):
    """Measures its engine against a plain C loop, side by side (``dealsearch bench``)."""

    @abstractmethod
    def yardstick(self, deals: int, workers: int, seed: int) -> dict[str, Any]:
        """The report: contenders' rates and ratios, and ``checks`` (``*mismatch*`` counts:
        ``bench`` exits 1 if any is not 0)."""

    @abstractmethod
    def format_yardstick(self, report: dict[str, Any]) -> str:
        """The report as a table for people."""


@dataclass(frozen=True)
class Published:
    """What has been published about a game's long deals, for the report to compare with."""

    options: GameOptions                 # the setting the records were played under
    records: tuple[tuple[str, dict[str, int], str], ...]   # (who and when, measures, deal)
    tail_scale: dict[str, float] = field(default_factory=dict)  # measure -> published e-fold


@feature
@runtime_checkable
class PublishedRecords(Protocol):
    """Has published record deals to compare with: the report draws them beside a log's
    finds (and the published tail of random lengths), ``verify --known`` replays them."""

    @abstractmethod
    def published(self) -> Published:
        """The published records and the setting they were played under."""

    @abstractmethod
    def check_published(self) -> list[PublishedCheck]:
        """Every published deal, replayed and compared with its publication."""


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


def cycle_id(game: CycleCatalogue, key: str, options: GameOptions) -> str:
    """A short stable id of a cycle key (the catalogue's primary key):
    :meth:`CycleCatalogue.cycle_id`."""
    return game.cycle_id(key, options)


def histogram(game: Game[Any], measure: str) -> tuple[int, int]:
    """(bin width, bins) of a measure's length histogram (:attr:`Game.histogram_bins`;
    default: 1, 4096)."""
    return game.histogram_bins.get(measure, (1, 4096))


def throughput_measure(game: Game[Any]) -> str:
    """The measure a run totals and shows its speed in (:attr:`Game.throughput_measure`;
    default: the game's first measure)."""
    return game.throughput_measure or game.measures[0]


def specialised_sampler(game: Game, options: GameOptions, seed: int, stream: int, objective: str,
                  best: int = 0) -> SearchSampler | None:
    """The game's specialised random sampler for these options, if it has one."""
    if isinstance(game, FastSearch):
        return game.random_player(options, seed, stream, objective, best)
    return None


def specialised_climber(game: Game, options: GameOptions, seed: int, stream: int, objective: str
            ) -> KickClimber | None:
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


def api_problems(game: Game[Any]) -> list[str]:
    """What a game writes wrong against the plug-in API, one line each: a class attribute
    every game writes that it lacks; a public member that is neither :class:`Game`'s nor a
    feature's (a misspelt name, or a helper of the game's own, which it keeps private:
    ``_helper``); part of a feature without the feature (its members written, its protocol
    not among the game's bases, a member missing). (An abstract method it lacks stops the
    game being made at all.)

    >>> from dealsearch.examples.war import War
    >>> class Misspelt(War):
    ...     def cycle_famly(self, key, options): ...
    >>> api_problems(Misspelt())  # doctest: +NORMALIZE_WHITESPACE
    ["'cycle_famly' is no member of Game or of a feature (did you mean 'cycle_family'?
      a helper of the game's own is private: '_cycle_famly')"]
    """
    required = sorted({*Game.__annotations__} - {*vars(Game)})   # name, title, measures, ...
    problems = [f"it has no {name} (a class attribute every game writes)"
                for name in required if not hasattr(game, name)]
    framework = {Game, *FEATURES, *Game.__mro__, Protocol}
    known = _members(Game).union(*map(_members, FEATURES))
    written = {name for name in vars(game) if not name.startswith("_")}
    for cls in type(game).__mro__:
        if cls not in framework:
            written |= _members(cls)
    for name in sorted(written - known):
        close = difflib.get_close_matches(name, sorted(known), 1)
        hint = f"did you mean {close[0]!r}? " if close else ""
        problems.append(f"{name!r} is no member of Game or of a feature ({hint}a helper of "
                        f"the game's own is private: '_{name}')")
    for protocol in FEATURES:
        if written & _members(protocol) and not isinstance(game, protocol):
            needed = getattr(protocol, "__abstractmethods__", None) or _members(protocol)
            missing = sorted(name for name in needed if not hasattr(game, name))
            problems.append(f"{', '.join(sorted(written & _members(protocol)))} of "
                            f"{protocol.__name__} without {', '.join(missing)}: list "
                            f"{protocol.__name__} among the game's bases")
    return problems


def _members(cls: type) -> set[str]:
    """The public names a class defines itself (methods, attributes, annotated names)."""
    names = {*vars(cls), *vars(cls).get("__annotations__", {})}
    return {name for name in names if not name.startswith("_")}


def _words(value: Any) -> str:
    if isinstance(value, list | tuple):
        return "/".join(map(str, value))
    return str(value)


GAMES: dict[str, Game[Any]] = {}
ENTRY_POINTS = "dealsearch.games"  # where games installed by other packages register
# A random dealer's seed: the PRNG takes a uint64 (dealsearch._random) and the log stores the
# seed as a SQLite INTEGER (signed 64 bits); the seeds both accept.
MAX_SEED = 2**63 - 1


GameT = TypeVar("GameT", bound=Game[Any])


def register(game: GameT) -> GameT:
    """Add a game to the registry (and so to the CLI and the contract tests); the game back.
    ``TypeError`` if the game writes something the plug-in API does not know, or lacks a
    class attribute every game writes (:func:`api_problems`)."""
    problems = api_problems(game)
    if problems:
        raise TypeError(f"{type(game).__name__}: {'; '.join(problems)}")
    GAMES[game.name] = game
    return game


def get_game(name: str) -> Game:
    """The registered game called ``name``; :class:`GameError` naming the choices if none.
    Only that game is imported (the folder of ``dealsearch.games``, or the entry point, of its
    name) unless no game goes by that name: then every game is."""
    if name not in GAMES:
        _load_game(name)
    try:
        return GAMES[name]
    except KeyError:
        raise GameError(f"unknown game {name!r}: choose from {', '.join(game_names())}"
                        ) from None


def game_names() -> list[str]:
    """Names of every game: registered, built in (a folder of ``dealsearch.games``) or
    declared by another package (an entry point's name is its game's); none is imported."""
    import pkgutil

    from . import games

    builtin = {module.name for module in pkgutil.iter_modules(games.__path__) if module.ispkg}
    return sorted({*GAMES, *builtin, *(entry.name for entry in _entry_points())})


_loaded = False


def _entry_points() -> Any:
    """The games other packages declare (``dealsearch.games`` entry points)."""
    from importlib.metadata import entry_points

    return entry_points(group=ENTRY_POINTS)


def _load_game(name: str) -> None:
    """Import the game called ``name`` (it registers itself), else every game."""
    import importlib
    import importlib.util

    from . import games

    module = f"{games.__name__}.{name}"
    if name.isidentifier() and importlib.util.find_spec(module) is not None:
        importlib.import_module(module)
    else:
        for entry in _entry_points():
            if entry.name == name:
                entry.load()
    if name not in GAMES:
        _load_every_game()


def _load_every_game() -> None:
    """Import every game once: each folder of ``dealsearch.games`` and every game another
    package declares under the ``dealsearch.games`` entry point. Each registers itself."""
    global _loaded
    if _loaded:
        return
    _loaded = True
    import importlib
    import pkgutil

    from . import games

    for module in pkgutil.iter_modules(games.__path__):
        if module.ispkg:
            importlib.import_module(f"{games.__name__}.{module.name}")
    for entry in _entry_points():
        entry.load()


def iter_games() -> Iterator[Game]:
    """Every game, by name (every game is imported)."""
    _load_every_game()
    for name in sorted(GAMES):
        yield GAMES[name]
