"""A tiny game written as a plug-in, to show a game needs no framework change.

War, cut down: each hand turns its top card; the higher card takes both to the bottom of its
hand (its own card first); equal cards go back under their own hands. The hand left with no
card loses. Cards are values 0 .. values-1, four of each, dealt half and half.

It is pure Python: its Kernel is a :class:`~dealsearch.plugin.PythonKernel`, so every
search runs it, slowly (the framework plays batches on the kernel). It writes what every game
writes and one feature, a :class:`~dealsearch.plugin.Reference`: a plain engine the contract
compares with the kernel, which also tells a game round by round (``verify --trace``); its
helpers are module functions (or would be private methods: ``register`` refuses a public
member the plug-in API does not know). Registered by :func:`register_war`, never by the
package. It imports only :mod:`dealsearch.plugin`, as a game written outside the package
would.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterator
from dataclasses import asdict, dataclass
from typing import Any, ClassVar

import numpy as np

from dealsearch.plugin import (
    Game,
    GameError,
    GameResult,
    Layout,
    OptionSpec,
    PythonKernel,
    Reference,
    Row,
    register,
)


@dataclass(frozen=True)
class WarOptions:
    """How many card values (four cards each) and the agreed limit in rounds."""

    values: int = 4
    max_rounds: int = 2_000

    def key(self) -> str:
        """``values=4;max_rounds=2000``."""
        return ";".join(f"{k}={v}" for k, v in asdict(self).items())

    def to_json(self) -> dict[str, Any]:
        """Every option, for the log."""
        return asdict(self)


class War(Game[WarOptions], Reference):
    """The cut-down War above, as a :class:`~dealsearch.plugin.Game`."""

    name: ClassVar[str] = "war"
    title: ClassVar[str] = "War"
    measures: ClassVar[tuple[str, ...]] = ("rounds",)
    outcomes: ClassVar[tuple[str, ...]] = ("win", "cycle", "limit")
    option_specs: ClassVar[tuple[OptionSpec, ...]] = (
        OptionSpec("values", "card values in the deck, four cards each", 4, int),
        OptionSpec("max_rounds", "the agreed limit in rounds", 2_000, int),
    )

    def options(self, **values: Any) -> WarOptions:
        options = WarOptions(**values)
        if not 2 <= options.values <= 10:
            raise GameError(f"values must be 2 to 10, not {options.values}")
        return options

    def describe_options(self, options: WarOptions) -> str:
        return f"{options.values} values, at most {options.max_rounds:,} rounds"

    def layout(self, options: WarOptions) -> Layout:
        deck = np.repeat(np.arange(options.values, dtype=np.uint8), 4)
        return Layout(deck, (2 * options.values, 2 * options.values), names=("hand 1", "hand 2"))

    def parse(self, text: str, options: WarOptions) -> Row:
        hands = text.strip().split("/")
        if len(hands) != 2 or not all(hand.isdigit() for hand in hands):
            raise GameError(f"a war deal is two hands of digits split by '/', not {text!r}")
        row = np.array([int(c) for c in "".join(hands)], dtype=np.uint8)
        if sorted(row.tolist()) != self.layout(options).deck.tolist():
            raise GameError(f"{text!r} is not a deal of {options.values} values, four each")
        if [len(hand) for hand in hands] != list(self.layout(options).segments):
            raise GameError("the hands must be dealt half and half")
        return row

    def format(self, row: Row, options: WarOptions) -> str:
        half = len(row) // 2
        return "".join(map(str, row[:half])) + "/" + "".join(map(str, row[half:]))

    def verify(self, text: str, options: WarOptions) -> tuple[str, GameResult]:
        row = self.parse(text, options)
        return self.format(row, options), play(row, options)

    # The Reference feature: here the same plain Python as the kernel, so the contract's
    # comparison is trivial; a compiled game's reference is its independent twin.
    def play_reference(self, row: Row, options: WarOptions) -> GameResult:
        return play(row, options)

    def trace(self, text: str, options: WarOptions) -> Iterator[str]:
        row = self.parse(text, options)
        yield from play_lines(row, options)

    def kernel(self, options: WarOptions) -> PythonKernel:
        def play_row(row: Row) -> tuple[int, Any, Any, Any]:
            result = play(row, options)
            return (self.outcomes.index(result.outcome), (result.measures["rounds"],),
                    tuple(result.entry.values()), tuple(result.period.values()))

        return PythonKernel(play_row, 4 * options.values, 1)


def play(row: Row, options: WarOptions, lines: list[str] | None = None) -> GameResult:
    """Play one deal to its end, its first repeated state, or the limit; each round's line
    (for the trace) goes to ``lines`` if given."""
    half = len(row) // 2
    hands = (deque(int(c) for c in row[:half]), deque(int(c) for c in row[half:]))
    seen: dict[tuple[tuple[int, ...], tuple[int, ...]], int] = {}
    rounds = 0
    while hands[0] and hands[1]:
        state = (tuple(hands[0]), tuple(hands[1]))
        if state in seen:
            return GameResult("cycle", {"rounds": rounds}, {"rounds": seen[state]},
                              {"rounds": rounds - seen[state]})
        if rounds == options.max_rounds:
            return GameResult("limit", {"rounds": rounds})
        seen[state] = rounds
        first, second = hands[0].popleft(), hands[1].popleft()
        rounds += 1
        if first == second:
            hands[0].append(first)
            hands[1].append(second)
            taken = "a tie: each card goes back"
        else:
            winner = 0 if first > second else 1
            hands[winner].extend((max(first, second), min(first, second)))
            taken = f"hand {winner + 1} takes"
        if lines is not None:
            lines.append(f"round {rounds}: {first} v {second} -> {taken}; "
                         f"hands {len(hands[0])}/{len(hands[1])}")
    return GameResult("win", {"rounds": rounds}, details={"winner": 1 if hands[0] else 2})


def play_lines(row: Row, options: WarOptions) -> list[str]:
    """The trace: one line per round (the cards turned, who takes, the hands' sizes).

    >>> play_lines(np.array([1, 0, 0, 1, 0, 1, 1, 0], dtype=np.uint8), WarOptions(values=2))[:2]
    ['round 1: 1 v 0 -> hand 1 takes; hands 5/3', 'round 2: 0 v 1 -> hand 2 takes; hands 4/4']
    """
    lines: list[str] = []
    play(row, options, lines)
    return lines


def register_war() -> War:
    """Register War (idempotent): what a plug-in package does on import."""
    return register(War())
