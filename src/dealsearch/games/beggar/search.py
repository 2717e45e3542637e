"""The BMN fast paths behind the generic search interface (``dealsearch.search._generic``).

``FastSampler`` and ``FastClimber`` present the random players (``_lanes.RandomPlayer``, which
plays two-player deals several at once on SIMD lanes, or ``_engine.RandomPlayer`` for decks of
more than 64 cards; both deal and score exactly alike) and ``_climb.Climber`` with the same
methods and results as the generic ``Sampler`` and ``Climber``, so the search strategies use
them without knowing the game; only a Python call per batch is added.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from . import _lanes
from ._climb import Climber
from ._engine import RandomPlayer
from .options import BeggarOptions

I64 = npt.NDArray[np.int64]


def _hists(hists: Sequence[I64], widths: Sequence[int]) -> tuple[Any, Any, int]:
    if not hists:
        return None, None, 10
    if len(hists) != 2 or widths[1] != 1:
        raise ValueError("BMN histograms: cards (any bin width) and tricks (bins of 1)")
    return hists[0], hists[1], int(widths[0])


class FastSampler:
    """The random player as a generic sampler (measures cards, tricks)."""

    def __init__(self, options: BeggarOptions, seed: int, stream: int, objective: str,
                 best: int = 0) -> None:
        rules = options.game_rules
        # the lanes player deals bit-planes (up to 64 cards); it plays on lanes where they
        # fit (two players, up to 52 cards) and on the exact engine otherwise
        player = _lanes.RandomPlayer if sum(rules.deck) <= _lanes.DECK_MAX else RandomPlayer
        self.player: _lanes.RandomPlayer | RandomPlayer = player(
            rules.deck, options.sizes, rules.payments, seed, stream, options.max_cards,
            options.max_tricks, best, objective == "tricks")

    @property
    def best(self) -> int:
        """The best score so far."""
        return int(self.player.best)

    def play(self, n: int, max_finds: int = 256, hists: Sequence[I64] = (),
             widths: Sequence[int] = ()) -> tuple[int, I64, I64, Any, I64]:
        """As :meth:`dealsearch.search._generic.Sampler.play`."""
        card_hist, trick_hist, card_bin = _hists(hists, widths)
        played, counts, cards, tricks, rows, results = self.player.play(
            n, max_finds, card_hist, trick_hist, card_bin)
        # outcome, winner, cards, tricks, entry c/t, period c/t -> outcome, measures, entry, period
        return (played, counts, np.array([cards, tricks], dtype=np.int64), rows,
                np.delete(results, 1, axis=1))


class FastBlockPlayer:
    """``_lanes.BlockPlayer`` (consecutive deals in rank order) as a generic block player."""

    def __init__(self, options: BeggarOptions, objective: str) -> None:
        rules = options.game_rules
        self.player = _lanes.BlockPlayer(rules.deck, options.sizes, rules.payments,
                                         options.max_cards, options.max_tricks, 0,
                                         objective == "tricks")

    def play(self, first: npt.NDArray[np.uint8], n: int, max_finds: int = 256,
             hists: Sequence[I64] = (), widths: Sequence[int] = ()
             ) -> tuple[int, I64, I64, Any, I64]:
        """As :meth:`FastSampler.play`, from the deal ``first`` on in rank order."""
        card_hist, trick_hist, card_bin = _hists(hists, widths)
        played, counts, cards, tricks, rows, results = self.player.play(
            first, n, max_finds, card_hist, trick_hist, card_bin)
        return (played, counts, np.array([cards, tricks], dtype=np.int64), rows,
                np.delete(results, 1, axis=1))


class FastClimber:
    """``_climb.Climber`` as a generic climber (measures cards, tricks)."""

    def __init__(self, options: BeggarOptions, seed: int, stream: int, objective: str) -> None:
        rules = options.game_rules
        self.inner = Climber(options.sizes, rules.payments, seed, stream, options.max_cards,
                             options.max_tricks, objective == "tricks")

    def __getattr__(self, name: str) -> Any:  # score, best_score, stall, rows, rng state...
        return getattr(self.inner, name)

    def __setattr__(self, name: str, value: Any) -> None:
        if name == "inner":
            object.__setattr__(self, name, value)
        else:
            setattr(self.inner, name, value)

    def play_current(self) -> tuple[int, tuple[int, ...], tuple[int, ...], tuple[int, ...]]:
        """As the generic climber: (outcome, measures, entry, period)."""
        outcome, cards, tricks, entry_c, entry_t, period_c, period_t = self.inner.play_current()
        return outcome, (cards, tricks), (entry_c, entry_t), (period_c, period_t)

    def climb(self, games: int, stall_limit: int, cooling: float, anneal: bool, counts: I64,
              hists: Sequence[I64] = (), widths: Sequence[int] = (), max_cycles: int = 64
              ) -> tuple[int, I64, Any, I64]:
        """As the generic climber; the tricks total is not counted (0)."""
        card_hist, trick_hist, card_bin = _hists(hists, widths)
        if card_hist is None:
            card_hist, trick_hist = np.zeros(1, dtype=np.int64), np.zeros(1, dtype=np.int64)
        played, cards, rows, results = self.inner.climb(
            games, stall_limit, cooling, anneal, counts, card_hist, trick_hist, card_bin,
            max_cycles)
        # cards, tricks, entry c/t, period c/t, outcome -> outcome, measures, entry, period
        return (played, np.array([cards, 0], dtype=np.int64), rows,
                np.column_stack((results[:, 6], results[:, :6])))
