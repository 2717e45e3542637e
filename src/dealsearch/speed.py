"""One row of a game's speed table: its compiled engine and its reference on the same deals.

A game's :meth:`~dealsearch.game.Reference.speed_table` is a loop over its settings calling
:func:`speed_row`, so every game measures the same way: CPU seconds (``time.process_time``,
not the wall clock, which on a shared machine measures the neighbours too), the compiled
engine on every deal, the pure-Python reference on a sample of the same deals, and every
sampled deal checked to agree (``bench`` exits 1 on a mismatch).
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np
import numpy.typing as npt

from .game import Game, GameOptions, Reference


def speed_row(game: Game[Any], setting: str, options: GameOptions, rows: npt.NDArray[np.uint8],
              sample: int) -> dict[str, Any]:
    """``setting, deals_per_s, <measure>_per_s..., reference_deals_per_s, ratio, mismatches``
    for ``rows`` under ``options``; the reference plays the first ``sample`` of them (a game
    with a :class:`~dealsearch.game.Reference`)."""
    if not isinstance(game, Reference):
        raise TypeError(f"{game.name} has no reference engine to compare with")
    started = time.process_time()
    batch = game.play_batch(rows, options)
    compiled = max(time.process_time() - started, 1e-9)
    few = rows[:max(1, min(sample, len(rows)))]
    started = time.process_time()
    references = [game.play_reference(row, options) for row in few]
    slow = max(time.process_time() - started, 1e-9)
    mismatches = sum(game.outcomes[batch.outcome[i]] != found.outcome
                     or tuple(batch.measures[i]) != tuple(found.measures.values())
                     for i, found in enumerate(references))
    deals_per_s = len(rows) / compiled
    reference_per_s = len(few) / slow
    return {"setting": setting, "deals_per_s": deals_per_s,
            **{f"{measure}_per_s": float(batch.measures[:, m].sum()) / compiled
               for m, measure in enumerate(game.measures)},
            "reference_deals_per_s": reference_per_s, "ratio": deals_per_s / reference_per_s,
            "mismatches": int(mismatches)}
