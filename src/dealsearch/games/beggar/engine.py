"""Play deals with the compiled engine: :func:`play` for one, :func:`play_batch` for many.

Deals of any size play: up to 64 cards on the bit-plane engine, larger ones (two packs, long
exercise deals) on the ring engine, with the same results. Results are the framework's
(:class:`~dealsearch.game.GameResult`, :class:`~dealsearch.game.BatchResults`): measures
``cards`` and ``tricks``, details ``winner`` and ``out``.

>>> play("--KQ--JQQ-K-----AKJJ--A---/----------K-------A---AQ-J").tricks
56
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from ...plugin import BatchResults, GameResult
from . import _engine
from .notation import MAX_CARDS, MAX_PLAYERS, MIN_PLAYERS, STANDARD, Deal, Rules, parse_deal

MEASURES = ("cards", "tricks")
OUTCOMES = ("win", "cycle", "limit")  # index = the engine's outcome code
RESULT_KEYS = ("outcome", "winner", "cards", "tricks", "out", "cycle")  # verify --json's order


class BeggarResult(GameResult):
    """The outcome of one game, counted as docs/games/beggar.md says.

    ``outcome`` is ``win`` (one player left or holding every card), ``cycle`` (a state
    repeated; the measures are those at the first repeated state, ``entry`` and ``period``
    those of the cycle) or ``limit`` (the agreed limit). ``details``: ``winner`` (1-based seat;
    ``None`` for a cycle or a drawn limit) and ``out`` (1-based seats in the order they went
    out). ``to_json`` keeps the key order ``verify --json`` always printed.

    >>> result = BeggarResult.of("cycle", None, 474, 66, (), entry=(34, 4), period=(440, 62))
    >>> result.tricks, dict(result.period)
    (66, {'cards': 440, 'tricks': 62})
    >>> result.to_json()["cycle"]
    {'entry_cards': 34, 'entry_tricks': 4, 'period_cards': 440, 'period_tricks': 62}
    """

    def to_json(self, keys: Sequence[str] = RESULT_KEYS) -> dict[str, Any]:
        """The result with the keys of ``verify --json``, in its order by default."""
        return super().to_json(keys)

    @classmethod
    def of(cls, outcome: str, winner: int | None, cards: int, tricks: int, out: tuple[int, ...],
           entry: tuple[int, int] | None = None,
           period: tuple[int, int] | None = None) -> BeggarResult:
        """A result from its counts; ``entry`` and ``period`` as (cards, tricks), a cycle's
        only."""
        return cls(outcome, {"cards": cards, "tricks": tricks},
                   {} if entry is None else dict(zip(MEASURES, entry, strict=True)),
                   {} if period is None else dict(zip(MEASURES, period, strict=True)),
                   {"winner": winner, "out": list(out)})

    @property
    def cards(self) -> int:
        """Cards turned (``measures["cards"]``)."""
        return self.measures["cards"]

    @property
    def tricks(self) -> int:
        """Piles taken, the final pile included (``measures["tricks"]``)."""
        return self.measures["tricks"]

    @property
    def winner(self) -> int | None:
        """The 1-based seat of the winner (``details["winner"]``)."""
        return self.details["winner"]

    @property
    def out(self) -> tuple[int, ...]:
        """1-based seats in the order they went out (``details["out"]``)."""
        return tuple(self.details["out"])


@dataclass(frozen=True)
class BeggarBatch(BatchResults):
    """Results of :func:`play_batch`, one entry per deal (row): the framework's
    :class:`~dealsearch.game.BatchResults` (``outcome`` indexes :data:`OUTCOMES`; ``measures``,
    ``entry`` and ``period`` have columns cards, tricks) with the details as arrays.

    Attributes:
        winner: 1-based seat, 0 for none (int8).
        out: 1-based seats in the order they went out, 0-padded; one column per player (int8).
    """

    winner: npt.NDArray[np.int8]
    out: npt.NDArray[np.int8]

    @property
    def cards(self) -> npt.NDArray[np.int64]:
        """The cards column of ``measures``."""
        return self.measures[:, 0]

    @property
    def tricks(self) -> npt.NDArray[np.int64]:
        """The tricks column of ``measures``."""
        return self.measures[:, 1]

    def result(self, i: int) -> BeggarResult:
        """The :class:`BeggarResult` of deal ``i``."""
        outcome = OUTCOMES[self.outcome[i]]
        cycle = outcome == "cycle"
        return BeggarResult.of(
            outcome, int(self.winner[i]) or None, int(self.measures[i, 0]),
            int(self.measures[i, 1]), tuple(int(seat) for seat in self.out[i] if seat),
            tuple(map(int, self.entry[i])) if cycle else None,  # type: ignore[arg-type]
            tuple(map(int, self.period[i])) if cycle else None)  # type: ignore[arg-type]


def _check_limit(name: str, value: int | None) -> None:
    if value is not None and (
        isinstance(value, bool) or not isinstance(value, int | np.integer) or value < 1
    ):
        raise ValueError(f"{name} must be a positive whole number, not {value!r}")


def play_batch(
    deals: npt.ArrayLike,
    rules: Rules = STANDARD,
    players: int = 2,
    hand_sizes: tuple[int, ...] | None = None,
    max_cards: int | None = None,
    max_tricks: int | None = None,
) -> BeggarBatch:
    """Play many deals in compiled code, without the GIL.

    Args:
        deals: uint8 array, one deal a row: the card classes of hand 1, then hand 2, ...
        rules: payments per class.
        players: number of hands (2 to 4).
        hand_sizes: cards per hand; by default the row is dealt as evenly as possible,
            hand 1 first (docs/games/beggar.md, [Play]).
        max_cards, max_tricks: the agreed limit, if any.

    >>> rows = np.zeros((3, 52), dtype=np.uint8)
    >>> play_batch(rows).cards.tolist()
    [52, 52, 52]
    >>> play_batch(np.zeros((1, 104), dtype=np.uint8), players=4).cards.tolist()
    [104]
    """
    rows = np.ascontiguousarray(deals, dtype=np.uint8)
    if rows.ndim != 2:
        raise ValueError(f"deals must be a 2-D array (one deal a row), not {rows.ndim}-D")
    n_cards = rows.shape[1]
    if not MIN_PLAYERS <= players <= MAX_PLAYERS:
        raise ValueError(f"players must be {MIN_PLAYERS} to {MAX_PLAYERS}, not {players}")
    sizes = tuple(Rules.deal_sizes(n_cards, players) if hand_sizes is None else hand_sizes)
    if len(sizes) != players or sum(sizes) != n_cards or min(sizes) < 1:
        raise ValueError(f"hand sizes {sizes} do not split {n_cards} cards into {players} hands")
    if n_cards > MAX_CARDS:
        raise ValueError(f"{n_cards} cards: a deal holds at most {MAX_CARDS}")
    if rows.size and rows.max() >= len(rules.payments):
        raise ValueError(f"card class {rows.max()} is not in the {rules.name} rules")
    _check_limit("max_cards", max_cards)
    _check_limit("max_tricks", max_tricks)
    outcome, winner, cards, tricks, out, cycle = _engine.play_rows(
        rows, tuple(sizes), rules.payments, max_cards, max_tricks
    )
    # The compiled loop counts seats from 0 with -1 for none; users count from 1 with 0.
    return BeggarBatch(outcome, np.column_stack((cards, tricks)), cycle[:, 0:2].copy(),
                       cycle[:, 2:4].copy(), winner + 1, out + 1)


def shuffled_rows(n: int, rules: Rules = STANDARD, seed: int = 0) -> npt.NDArray[np.uint8]:
    """``n`` uniformly random deals of the rules' deck, one a row, for :func:`play_batch`
    (the game's :func:`~dealsearch.games.beggar.notation.random_rows` takes its options).

    Dealt in compiled code (up to 64 cards the counter-based dealer of ``_deals.h``, which the
    random players and the GPU kernel share; larger decks xoshiro256** and Fisher-Yates); the
    same seed, the same deals.

    >>> shuffled_rows(2, seed=1).shape
    (2, 52)
    """
    return _engine.random_rows(rules.deck, n, seed)


def play(
    deal: Deal | str,
    rules: Rules = STANDARD,
    max_cards: int | None = None,
    max_tricks: int | None = None,
) -> BeggarResult:
    """Play one deal (a :class:`Deal` or text in any notation) to its end, cycle or limit.

    >>> play("---K---Q-KQAJ-----AAJ--J--/----------Q----KQ-J-----KA").period["tricks"]
    62
    """
    if isinstance(deal, str):
        deal = parse_deal(deal, rules, deck="any")
    row = np.array([deal.cards], dtype=np.uint8)
    batch = play_batch(row, rules, deal.players, deal.hand_sizes, max_cards, max_tricks)
    return batch.result(0)
