"""Spite and Malice (Злоба) as a dealsearch game: docs/games/spite.md under named policies.

A deal is ``deck1/deck2`` (a row of 108 card codes, two fixed segments: ``notation``);
``verify`` also takes a one-line JSON position ([Cards]). The compiled engine (``_engine.pyx``)
plays; the pure-Python ``reference`` is its twin in the tests and writes the trace.

>>> from dealsearch.game import get_game
>>> spite = get_game("spite")
>>> text, result = spite.verify('{"payoff": ["85", "47"], "hand": ["A7342", ""], '
...     '"side": [["","","",""], ["","","",""]], "centre": ["","","",""], '
...     '"stock": "QK5TJ689", "turn": 1}', spite.options())
>>> result.to_json()["cycle"]
{'entry_turns': 4, 'entry_cards': 22, 'period_turns': 2, 'period_cards': 15}
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator, Mapping
from typing import Any

import numpy as np
import numpy.typing as npt

from dealsearch.plugin import (
    BatchResults,
    CycleCatalogue,
    Game,
    GameResult,
    Layout,
    OptionSpec,
    Reference,
    Row,
    card_text,
    speed_row,
)

from . import _engine, reference
from .notation import (
    DECK1,
    DECK1_CARDS,
    DECK2,
    DECK2_CARDS,
    N_CARDS,
    Position,
    format_deal,
    format_position,
    is_position,
    parse_deal,
    parse_position,
    random_rows,
)
from .options import POLICIES, RECYCLE, SIDE_PILES, SpiteOptions, parse_max_turns

OUTCOMES = ("win", "stalemate", "cycle", "limit")      # index = the engine's outcome code
_COLUMN = {name: i for i, name in enumerate(_engine.RESULT_COLUMNS)}


def _result(outcome: str, winner: int | None, first: int, counts: Mapping[str, int],
            payoff: tuple[int, int], entry: tuple[int, int] | None = None,
            period: tuple[int, int] | None = None) -> GameResult:
    measures = {"turns": counts["turns"], "cards": counts["cards"]}
    at_entry: dict[str, int] = {}
    per_period: dict[str, int] = {}
    if outcome == "cycle" and entry is not None and period is not None:
        at_entry = {"turns": entry[0], "cards": entry[1]}
        per_period = {"turns": period[0], "cards": period[1]}
    return GameResult(
        outcome=outcome, measures=measures, entry=at_entry, period=per_period,
        details={"winner": winner, "first": first, "discards": counts["discards"],
                 "piles": counts["piles"], "payoff": list(payoff)})


def _from_columns(values: Any) -> GameResult:
    """A result from one row of the engine's RESULT_COLUMNS."""
    v = {name: int(values[i]) for name, i in _COLUMN.items()}
    return _result(OUTCOMES[v["outcome"]], v["winner"] or None, v["first"], v,
                   (v["payoff1"], v["payoff2"]), (v["entry_turns"], v["entry_cards"]),
                   (v["period_turns"], v["period_cards"]))


def _from_reference(outcome: reference.Outcome) -> GameResult:
    counts = {"turns": outcome.turns, "cards": outcome.cards, "discards": outcome.discards,
              "piles": outcome.piles}
    return _result(outcome.outcome, outcome.winner, outcome.first, counts, outcome.payoff,
                   outcome.entry, outcome.period)


def _engine_for(options: SpiteOptions) -> _engine.Engine:
    """A compiled engine under ``options`` (each has its own scratch memory: one thread)."""
    return _engine.Engine(options.recycle == "bottom", options.side_piles == "free",
                          tuple(POLICIES.index(p) for p in options.policies),
                          -1 if options.max_turns is None else options.max_turns)


class SpiteGame(Game[SpiteOptions], Reference, CycleCatalogue):
    """Spite and Malice for two, each seat under a named policy (docs/games/spite.md)."""

    name = "spite"
    title = "Spite and Malice"
    measures = ("turns", "cards")
    throughput_measure = "cards"
    outcomes = OUTCOMES
    unfinished = ("cycle", "limit", "stalemate")  # a stalemate is no record either
    # verify --json: the contract's keys in the contract's order
    result_keys = ("outcome", "winner", "first", "turns", "cards", "discards", "piles",
                   "payoff", "cycle")
    option_specs = (
        OptionSpec("recycle", "finished centre piles go under the stock in the order played "
                   "(bottom) or leave the game (none)", default="bottom", choices=RECYCLE),
        OptionSpec("side_piles", "side piles built by the seed's rule (seed) or any card on any "
                   "pile (free)", default="seed", choices=SIDE_PILES),
        OptionSpec("policy", "the policy of each seat, greedy or cautious (one name: both "
                   "seats)", default="greedy", metavar="P[,P]"),
        OptionSpec("max_turns", "the agreed limit: the game ends after this many turns "
                   "(default: none)", default=None, parse=parse_max_turns, metavar="N"),
    )

    def options(self, **values: Any) -> SpiteOptions:
        """Options from the :attr:`option_specs` names (``policies`` is taken for ``policy``)."""
        given = {key: value for key, value in values.items() if value is not None}
        if "policy" in given:
            given["policies"] = given.pop("policy")
        return SpiteOptions(**given)

    def looks_like_deal(self, text: str) -> bool:
        """Whether a text that does not parse was meant as a deal, not a file name."""
        return card_text(text)

    def describe_options(self, options: SpiteOptions) -> str:
        """E.g. ``greedy vs greedy, finished piles recycled, seed's side piles``.

        >>> game = SpiteGame()
        >>> game.describe_options(game.options(policy="greedy,cautious", recycle="none",
        ...                                    max_turns=200))
        "greedy vs cautious, finished piles leave the game, seed's side piles, stop at 200 turns"
        """
        words = [" vs ".join(options.policies),
                 "finished piles recycled" if options.recycle == "bottom"
                 else "finished piles leave the game",
                 "seed's side piles" if options.side_piles == "seed" else "free side piles"]
        if options.max_turns is not None:
            words.append(f"stop at {options.max_turns} turns")
        return ", ".join(words)

    def layout(self, options: SpiteOptions) -> Layout:
        """Deck 1 then deck 2, each a fixed segment (its own pack): ``deck`` holds each
        segment's cards sorted, so ``deck[start:stop]`` is that segment's multiset."""
        return Layout(deck=np.concatenate([DECK1, DECK2]),
                      segments=(DECK1_CARDS, DECK2_CARDS), fixed=(True, True),
                      names=("deck 1", "deck 2"))

    def parse(self, text: str, options: SpiteOptions) -> Row:
        return parse_deal(text)

    def format(self, row: Row, options: SpiteOptions) -> str:
        return format_deal(row)

    def play_batch(self, rows: npt.ArrayLike, options: SpiteOptions) -> BatchResults:
        table = _engine_for(options).play_rows(
            np.asarray(rows, dtype=np.uint8).reshape(-1, N_CARDS))
        columns = [_COLUMN[m] for m in self.measures]
        return BatchResults(
            outcome=table[:, _COLUMN["outcome"]].astype(np.uint8),
            measures=table[:, columns],
            entry=table[:, [_COLUMN[f"entry_{m}"] for m in self.measures]],
            period=table[:, [_COLUMN[f"period_{m}"] for m in self.measures]])

    def verify(self, text: str, options: SpiteOptions) -> tuple[str, GameResult]:
        """A deal or a one-line JSON position, played by the compiled engine."""
        engine = _engine_for(options)
        if is_position(text):
            position = parse_position(text)
            return format_position(position), _from_columns(
                engine.play_position(position.packed()))
        row = parse_deal(text)
        return format_deal(row), _from_columns(engine.play_rows(row[None, :])[0])

    def play_reference(self, row: Row, options: SpiteOptions) -> GameResult:
        return _from_reference(reference.play_row(row, options))

    def trace(self, text: str, options: SpiteOptions) -> Iterator[str]:
        """Each turn in the contract's trace notation (``9s4>c4``, ``*h>c4``, ``3>s1``), then
        the result."""
        position = (parse_position(text) if is_position(text)
                    else reference.deal_position(parse_deal(text)))
        yield from reference.trace_lines(position, options)

    def kernel(self, options: SpiteOptions) -> Any:
        return _engine_for(options).kernel()

    def cycle_key(self, row: Row, options: SpiteOptions) -> str:
        """The least (as text) [Cards] position among the cycle's turn-boundary states after a
        busy turn; under equal policies the seat-swapped states count too, so a cycle and
        its mirror image share one key. Playing the key reproduces the cycle from entry 0."""
        packed = _engine_for(options).cycle_positions(np.asarray(row, dtype=np.uint8))
        if packed is None:
            raise ValueError("the game ends: it has no cycle")
        return cycle_key_of([Position.from_packed(p) for p in packed], options)

    def speed_table(self, deals: int, seed: int) -> list[dict[str, Any]]:
        """Per option and policy pair: the compiled engine on ``deals`` seeded deals and the
        reference on the first ``max(10, deals // 200)`` of them."""
        rows = random_rows(None, deals, seed)
        table = []
        for recycle, sides, pair in itertools.product(
                RECYCLE, SIDE_PILES, itertools.product(POLICIES, repeat=2)):
            options = SpiteOptions(recycle=recycle, side_piles=sides,
                                   policies=(pair[0], pair[1]))
            table.append(speed_row(self, options.key(), options, rows, max(10, deals // 200)))
        return table


def reference_position(position: Position, options: SpiteOptions) -> GameResult:
    """The reference engine's result for a position (the tests compare it)."""
    return _from_reference(reference.play_position(position, options))


def cycle_key_of(positions: list[Position], options: SpiteOptions) -> str:
    """The catalogue key of a cycle given the positions of its states (see ``cycle_key``)."""
    keys = [format_position(position) for position in positions]
    if options.policies[0] == options.policies[1]:
        keys += [format_position(_mirror(position)) for position in positions]
    return min(keys)


def _mirror(position: Position) -> Position:
    """The position with the seats swapped."""
    return Position(payoff=position.payoff[::-1], hand=position.hand[::-1],  # type: ignore
                    side=position.side[::-1], centre=position.centre,  # type: ignore
                    stock=position.stock, turn=3 - position.turn)
