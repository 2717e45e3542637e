"""Play deals with the compiled engine: :func:`play` for one, :func:`play_batch` for many.

Deals of any size play: up to 64 cards on the bit-plane engine, larger ones (two packs, long
exercise deals) on the ring engine, with the same results.

>>> play("--KQ--JQQ-K-----AKJJ--A---/----------K-------A---AQ-J").tricks
56
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from . import _engine
from .deal import Deal
from .notation import parse_deal
from .result import OUTCOMES, Cycle, Result
from .rules import MAX_CARDS, MAX_PLAYERS, MIN_PLAYERS, STANDARD, Rules


@dataclass(frozen=True)
class BatchResult:
    """Results of :func:`play_batch`, one entry per deal (row).

    Attributes:
        outcome: 0 win, 1 cycle, 2 limit (``dealsearch.games.beggar.result.OUTCOMES`` names them).
        winner: 1-based seat, 0 for none.
        cards, tricks: the counts (at the first repeated state for a cycle).
        out: 1-based seats in the order they went out, 0-padded; one column per player.
        cycle: columns entry_cards, entry_tricks, period_cards, period_tricks (0 if no cycle).
    """

    outcome: npt.NDArray[np.uint8]
    winner: npt.NDArray[np.int8]
    cards: npt.NDArray[np.int64]
    tricks: npt.NDArray[np.int64]
    out: npt.NDArray[np.int8]
    cycle: npt.NDArray[np.int64]

    def __len__(self) -> int:
        return len(self.outcome)

    def result(self, i: int) -> Result:
        """The :class:`Result` of deal ``i``."""
        outcome = OUTCOMES[self.outcome[i]]
        cycle = Cycle(*map(int, self.cycle[i])) if outcome == "cycle" else None
        winner = int(self.winner[i]) or None
        out = tuple(int(seat) for seat in self.out[i] if seat)
        return Result(outcome, winner, int(self.cards[i]), int(self.tricks[i]), out, cycle)


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
) -> BatchResult:
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
    return BatchResult(outcome, winner + 1, cards, tricks, out + 1, cycle)


def random_deals(n: int, rules: Rules = STANDARD, seed: int = 0) -> npt.NDArray[np.uint8]:
    """``n`` uniformly random deals of the rules' deck, one a row, for :func:`play_batch`.

    Dealt in compiled code (up to 64 cards the counter-based dealer of ``_deals.h``, which the
    random players and the GPU kernel share; larger decks xoshiro256** and Fisher-Yates); the
    same seed, the same deals.

    >>> random_deals(2, seed=1).shape
    (2, 52)
    """
    return _engine.random_rows(rules.deck, n, seed)


def play(
    deal: Deal | str,
    rules: Rules = STANDARD,
    max_cards: int | None = None,
    max_tricks: int | None = None,
) -> Result:
    """Play one deal (a :class:`Deal` or text in any notation) to its end, cycle or limit.

    >>> play("---K---Q-KQAJ-----AAJ--J--/----------Q----KQ-J-----KA").cycle.period_tricks
    62
    """
    if isinstance(deal, str):
        deal = parse_deal(deal, rules, deck="any")
    row = np.array([deal.cards], dtype=np.uint8)
    batch = play_batch(row, rules, deal.players, deal.hand_sizes, max_cards, max_tricks)
    return batch.result(0)
