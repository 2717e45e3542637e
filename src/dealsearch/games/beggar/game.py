"""Beggar-My-Neighbour as a :class:`~dealsearch.game.Game`: :class:`BeggarGame`.

The folder's other modules do the work: ``notation`` (card classes, variants, deal text),
``options`` (the options and the rules presets), ``engine`` (the compiled engines and the
results they return), ``reference`` (the pure-Python engine), ``catalogue`` (cycle keys). Rows
are card classes (0 = a plain card), hand 1 first.

>>> from dealsearch.game import get_game
>>> beggar = get_game("beggar")
>>> options = beggar.options()
>>> text, result = beggar.verify("---AJ--Q---------QAKQJJ-QK/-----A----KJ-K--------A---", options)
>>> result.outcome, dict(result.measures)
('win', {'cards': 8344, 'tricks': 1164})
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any, ClassVar

import numpy as np
import numpy.typing as npt

from ...plugin import (
    BatchResults,
    Command,
    CycleCatalogue,
    DeviceSearch,
    FastBlocks,
    FastSearch,
    Game,
    GameError,
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
    SearchSampler,
    Yardstick,
    card_text,
    measures,
)
from . import catalogue, reverse
from .engine import MEASURES, OUTCOMES, RESULT_KEYS, BeggarBatch, BeggarResult
from .engine import play as bmn_play
from .engine import play_batch as bmn_play_batch
from .known import load_known
from .notation import Deal, DealError, Rules, format_deal, parse_deal
from .options import OPTION_SPECS, BeggarOptions, beggar_options, get_rules
from .reference import Trick
from .reference import play_reference as bmn_reference

PUBLISHED_SCALE = 205  # cards per e-fold of random 2-player standard lengths (published)
REVERSE_TRICKS = 12       # longer_starts: walk back from this many states of the game
REVERSE_STATES = 2_000    # ... each walk bounded to this many states


def _counts(values: Mapping[str, int]) -> str:
    """Cards and tricks, in that order, in words ("1 trick" too)."""
    return measures({m: values[m] for m in MEASURES})


def describe(result: GameResult) -> str:
    """A result in words, e.g. 'hand 2 wins: 8,344 cards, 1,164 tricks'."""
    counts = _counts(result.measures)
    out = result.details.get("out", ())
    out_text = f"; out in order: {', '.join(map(str, out))}" if len(out) > 1 else ""
    winner = result.details.get("winner")
    if result.outcome == "win":
        return f"hand {winner} wins: {counts}{out_text}"
    if result.outcome == "limit":
        leader = f"hand {winner} has most cards" if winner else "a draw"
        return f"limit reached at {counts}: {leader}{out_text}"
    return (f"never ends: first repeat at {counts}; entry {_counts(result.entry)}; "
            f"period {_counts(result.period)}")


class BeggarGame(Game[BeggarOptions], Reference, CycleCatalogue, PlaysBackwards,
                 PublishedRecords, Yardstick, FastSearch, FastBlocks, DeviceSearch):
    """Beggar-My-Neighbour (docs/games/beggar.md): measures cards and tricks; outcomes win, cycle,
    limit. It has every feature of the plug-in API."""

    name = "beggar"
    title = "Beggar-My-Neighbour"
    measures = MEASURES
    outcomes = OUTCOMES
    option_specs: ClassVar[tuple[OptionSpec, ...]] = OPTION_SPECS
    deal_options = ("players", "hand_sizes")
    histogram_bins: ClassVar[dict[str, tuple[int, int]]] = {"cards": (10, 2048),
                                                            "tricks": (1, 4096)}
    throughput_measure = "cards"
    result_keys = RESULT_KEYS
    cycle_key_title = "smallest state (player to move first)"  # what its cycle keys are
    # Random search deals from _deals.h's counter-based generator (decks of up to 64 cards),
    # shared with the GPU kernel; runs dealt before it (xoshiro streams) are not continued.
    random_dealer = "counter-1"

    def options(self, **values: Any) -> BeggarOptions:
        """Checked BMN options (see :func:`~dealsearch.games.beggar.options.beggar_options`)."""
        return beggar_options(**values)

    def looks_like_deal(self, text: str) -> bool:
        """Whether a text that does not parse was meant as a deal, not a file name."""
        return card_text(text)

    def describe_options(self, options: BeggarOptions) -> str:
        """E.g. ``standard rules, 2 players`` (the deck, hand sizes and a limit only when
        they are not the rules' own).

        >>> game = BeggarGame()
        >>> game.describe_options(game.options(players=3, max_cards=600))
        'standard rules, 3 players, stop at 600 cards'
        >>> game.describe_options(game.options(deck="------JJQQK", hand_sizes="7/4"))
        'standard rules, 2 players, deck ------JJQQK, hands 7/4'
        """
        words = [f"{options.rules} rules", f"{options.players} players"]
        if options.deck is not None and options.deck != get_rules(options.rules).deck:
            words.append(f"deck {options.to_json()['deck']}")
        if options.hand_sizes is not None and options.hand_sizes != Rules.deal_sizes(
                sum(options.deck or ()), options.players):
            words.append("hands " + "/".join(map(str, options.hand_sizes)))
        if options.max_cards:
            words.append(f"stop at {options.max_cards} cards")
        if options.max_tricks:
            words.append(f"stop at {options.max_tricks} tricks")
        return ", ".join(words)

    def layout(self, options: BeggarOptions) -> Layout:
        """The deck (card classes, sorted) and one segment per hand."""
        if options.deck is None:
            raise GameError("a layout needs a deck (not 'any')")
        deck = np.repeat(np.arange(len(options.deck), dtype=np.uint8), options.deck)
        return Layout(deck, options.sizes,
                      names=tuple(f"hand {seat + 1}" for seat in range(options.players)))

    def _deal(self, row: Row, options: BeggarOptions) -> Deal:
        """The :class:`Deal` of a row."""
        cards = [int(card) for card in row]
        hands, start = [], 0
        for size in options.sizes:
            hands.append(tuple(cards[start:start + size]))
            start += size
        return Deal(tuple(hands))

    def _parse(self, text: str, options: BeggarOptions) -> Deal:
        try:
            return parse_deal(text, options.game_rules, "any" if options.deck is None
                              else "exact")
        except DealError as error:
            raise GameError(str(error)) from None

    def parse(self, text: str, options: BeggarOptions) -> Row:
        """A deal in any notation as a row; it must have the options' hands and deck."""
        deal = self._parse(text, options)
        if options.sizes and deal.hand_sizes != options.sizes:
            raise GameError(f"the deal has hands of {'/'.join(map(str, deal.hand_sizes))} "
                            f"cards, the options {'/'.join(map(str, options.sizes))}")
        return np.array(deal.cards, dtype=np.uint8)

    def format(self, row: Row, options: BeggarOptions) -> str:
        """Compact notation, hands separated by ``/``."""
        return format_deal(self._deal(row, options), options.game_rules)

    def play_batch(self, rows: npt.ArrayLike, options: BeggarOptions) -> BeggarBatch:
        """The compiled engine (:func:`dealsearch.games.beggar.engine.play_batch`) on many rows."""
        return bmn_play_batch(rows, options.game_rules, options.players, options.sizes or None,
                              options.max_cards, options.max_tricks)

    def batch_result(self, batch: BatchResults, i: int, row: Row, options: BeggarOptions
                     ) -> GameResult:
        """Entry ``i`` of a batch of :meth:`play_batch`, winner and order out included."""
        if not isinstance(batch, BeggarBatch):
            raise TypeError(f"not a batch of BMN's play_batch: {type(batch).__name__}")
        return batch.result(i)

    def _play_deal(self, deal: Deal, options: BeggarOptions) -> BeggarResult:
        """One deal (its own hand sizes) through the compiled engine."""
        batch = bmn_play_batch(np.array([deal.cards], dtype=np.uint8), options.game_rules,
                               deal.players, deal.hand_sizes, options.max_cards,
                               options.max_tricks)
        return batch.result(0)

    def verify(self, text: str, options: BeggarOptions) -> tuple[str, GameResult]:
        """Play a deal as given (its own players and hand sizes): (compact text, result)."""
        deal = self._parse(text, options)
        return format_deal(deal, options.game_rules), self._play_deal(deal, options)

    def play_reference(self, row: Row, options: BeggarOptions) -> GameResult:
        """The pure-Python engine (:func:`dealsearch.games.beggar.reference.play_reference`)."""
        return bmn_reference(self._deal(row, options), options.game_rules, options.max_cards,
                             options.max_tricks)

    def describe(self, result: GameResult) -> str:
        """``verify``'s line: e.g. 'hand 2 wins: 8,344 cards, 1,164 tricks'."""
        return describe(result)

    def trace(self, text: str, options: BeggarOptions) -> Iterator[str]:
        """Trick by trick, as ``verify --trace`` prints it (checked against the engine)."""
        deal = self._parse(text, options)
        rules = options.game_rules
        lines: list[str] = []

        def show(trick: Trick) -> None:
            plays = " ".join(f"{seat + 1}:{rules.symbols[card]}" for seat, card in trick.plays)
            gone = "".join(f"; hand {seat + 1} is out" for seat in trick.went_out)
            taken = (f" -> hand {trick.taker + 1} takes {len(trick.plays)}"
                     if trick.taker is not None else " -> pile left in play")
            sizes = "/".join(map(str, trick.hand_sizes))
            lines.append(f"  trick {len(lines) + 1}: {plays}{taken}{gone}; hands {sizes}")

        traced = bmn_reference(deal, rules, options.max_cards, options.max_tricks,
                               on_trick=show)
        compiled = self._play_deal(deal, options)
        if traced != compiled:  # the two engines are tested to agree; never show a wrong trace
            raise RuntimeError(f"trace engine disagrees: {traced} != {compiled}")
        yield from lines

    def kernel(self, options: BeggarOptions) -> Any:
        """A :class:`~dealsearch.games.beggar._kernel.BeggarKernel`."""
        from ._kernel import BeggarKernel

        return BeggarKernel(options.sizes, options.game_rules.payments, options.max_cards,
                            options.max_tricks)

    def commands(self) -> tuple[Command, ...]:
        """BMN's own commands, each module imported only when its command is invoked."""
        return (Command("factory", "build never-ending deals by growing small cycles card by "
                        "card", f"{__package__}.factory_command", safe_points=True),
                Command("reverse", "play a 2-player deal backwards: a cycle's basin, or "
                        "longer deals", f"{__package__}.reverse_command", safe_points=True))

    def strategies(self) -> tuple[type, ...]:
        """BMN's own strategies: the cycle factory and the walk back to longer deals, run
        by the run service as a search is (``dealsearch factory``, ``dealsearch reverse
        --along``)."""
        from .factory_strategy import FactoryStrategy
        from .reverse_strategy import ReverseStrategy

        return (FactoryStrategy, ReverseStrategy)

    def cycle_key(self, row: Row, options: BeggarOptions) -> str:
        """The catalogue's key (:func:`dealsearch.games.beggar.catalogue.cycle_key`)."""
        return catalogue.cycle_key(self._deal(row, options), options.game_rules)

    def published(self) -> Published:
        """The published finished records (standard rules, 2 players, the whole deck) and the
        published tail of random 2-player lengths: about 205 cards per e-fold."""
        records = tuple((f"{k.finder} {k.year}", {"cards": k.cards, "tricks": k.tricks}, k.text)
                        for k in load_known() if k.outcome == "win" and k.rules_name == "standard")
        return Published(self.options(), records, {"cards": PUBLISHED_SCALE})

    def yardstick(self, deals: int, workers: int, seed: int) -> dict[str, Any]:
        """The engine, the lanes, the plain C loop and the reference on the same deals
        (:func:`~dealsearch.games.beggar.bench.run_bench`; compiles the C loop when asked)."""
        from .bench import run_bench

        return run_bench(deals, workers, seed)

    def format_yardstick(self, report: dict[str, Any]) -> str:
        """:func:`~dealsearch.games.beggar.bench.format_bench`."""
        from .bench import format_bench

        return format_bench(report)

    def check_published(self) -> list[PublishedCheck]:
        """Every deal of ``data/known_deals.csv`` replayed and compared with its publication."""
        checks = []
        for known in load_known():
            result = bmn_play(known.deal, known.rules)
            checks.append(PublishedCheck(known.text, known.finder, known.year, known.published,
                                         known.summary_of(result), known.matches(result),
                                         result.to_json()))
        return checks

    def backwards_refusal(self, options: BeggarOptions) -> str | None:
        """Playing backwards (:mod:`dealsearch.games.beggar.reverse`) takes two players and
        64-bit hands."""
        if options.players != 2:
            return "playing backwards needs 2 players"
        if options.game_rules.deck_size > reverse.MAX_CARDS:
            return (f"playing backwards needs a deck of at most {reverse.MAX_CARDS} cards "
                    f"(it works on 64-bit hands)")
        return None

    def longer_starts(self, row: Row, options: BeggarOptions) -> list[tuple[Row, GameResult]]:
        """:func:`dealsearch.games.beggar.reverse.longer_starts` from the first
        ``REVERSE_TRICKS`` states of ``row``'s game, each walk bounded to ``REVERSE_STATES``
        states."""
        refusal = self.backwards_refusal(options)
        if refusal:
            raise ValueError(refusal)
        found = reverse.longer_starts(self._deal(row, options), options.game_rules,
                                      REVERSE_TRICKS, REVERSE_STATES)
        return [(self.parse(text, options), result) for text, result in found]

    def cycle_family(self, key: str, options: BeggarOptions) -> str | None:
        """The family of a catalogued cycle (:func:`dealsearch.games.beggar.families.
        family_of`) under its options' rules."""
        from .families import family_of  # records --cycles only

        try:
            return family_of(key, options.game_rules)
        except (ValueError, KeyError):  # a key or rules this version cannot read
            return None

    def cycle_id(self, key: str, options: BeggarOptions) -> str:
        """The catalogue id from the rules' name and the key (BMN's ids since its first log)."""
        return catalogue.key_id(key, options.game_rules)

    def random_player(self, options: BeggarOptions, seed: int, stream: int, objective: str,
                      best: int = 0) -> SearchSampler:
        """The specialised random dealer and player (``_lanes.RandomPlayer``: lanes where
        they fit, the exact engine otherwise)."""
        from ._lanes import RandomPlayer

        rules = options.game_rules
        return RandomPlayer(rules.deck, options.sizes, rules.payments, seed, stream,
                            options.max_cards, options.max_tricks, best, objective == "tricks")

    def device_refusal(self, options: BeggarOptions, device: str) -> str | None:
        """Why the GPU engine (or its CPU emulation) cannot play these options (random deals or
        blocks of ranks alike)."""
        from .gpu import refusal

        return refusal(options)

    def device_sampler(self, options: BeggarOptions, seed: int, objective: str, device: str) -> Any:
        """The random player on ``device`` (``gpu``: CuPy, imported only now; ``emulate``)."""
        from .gpu import GpuSampler, open_device

        return GpuSampler(options, seed, objective, open_device(device))

    def device_block_player(self, options: BeggarOptions, objective: str, device: str) -> Any:
        """Blocks of ranks on ``device`` (``gpu``: CuPy, imported only now; ``emulate``)."""
        from .gpu import GpuBlocks, open_device

        return GpuBlocks(options, objective, open_device(device))

    def block_player(self, options: BeggarOptions, objective: str) -> Any | None:
        """Blocks of deals in rank order on the lanes (``_lanes.BlockPlayer``); None without
        a deck."""
        from ._lanes import BlockPlayer

        if options.deck is None:
            return None
        rules = options.game_rules
        return BlockPlayer(rules.deck, options.sizes, rules.payments, options.max_cards,
                           options.max_tricks, 0, objective == "tricks")

    def climber(self, options: BeggarOptions, seed: int, stream: int, objective: str
                ) -> KickClimber:
        """The specialised climber (``_climb.Climber``)."""
        from ._climb import Climber

        rules = options.game_rules
        return Climber(options.sizes, rules.payments, seed, stream, options.max_cards,
                       options.max_tricks, objective == "tricks")
