"""Exhaustive search: every distinct deal of a small deck, sharded by rank.

The deals are the distinct deals of the game's layout (:mod:`.distinct`): fixed segments keep
their cards, an unordered segment is played once per content; without either, they are the
distinct orderings of the deck (a multiset) in lexicographic order of the card codes. Shard
``k`` covers ranks ``[k*size, (k+1)*size)``; unranking its first deal makes every shard
independent of the others. :func:`count_deals`, :func:`unrank` and :func:`rank` number the
orderings of a plain multiset.

>>> count_deals((2, 1))
3
>>> unrank(2, (2, 1)), rank((1, 0, 0), (2, 1))
((1, 0, 0), 2)
"""

from __future__ import annotations

from collections.abc import Iterator
from math import factorial, prod
from typing import Any

import numpy as np
import numpy.typing as npt

from ..game import batch_result, finished, play_batch
from .base import NumberedSearch, Report, Task, add_batch, compact
from .distinct import DistinctDeals
from .spec import SearchSpec

MAX_SHARD = 50_000
BATCH = 10_000


def count_deals(counts: tuple[int, ...]) -> int:
    """Number of distinct orderings of a multiset with these class counts."""
    return factorial(sum(counts)) // prod(factorial(c) for c in counts)


def unrank(index: int, counts: tuple[int, ...]) -> tuple[int, ...]:
    """The ``index``-th distinct ordering (0-based, lexicographic) of the multiset."""
    remaining = list(counts)
    cards: list[int] = []
    for _ in range(sum(counts)):
        for cls, have in enumerate(remaining):
            if not have:
                continue
            remaining[cls] -= 1
            below = count_deals(tuple(remaining))
            if index < below:
                cards.append(cls)
                break
            index -= below
            remaining[cls] += 1
    return tuple(cards)


def rank(cards: tuple[int, ...], counts: tuple[int, ...]) -> int:
    """The inverse of :func:`unrank`."""
    remaining = list(counts)
    index = 0
    for card in cards:
        for cls in range(card):
            if remaining[cls]:
                remaining[cls] -= 1
                index += count_deals(tuple(remaining))
                remaining[cls] += 1
        remaining[card] -= 1
    return index


class ExhaustiveSearch(NumberedSearch):
    """Hands out shards of ranks until every deal of the deck has been played."""

    name = "exhaustive"

    def __init__(self, spec: SearchSpec, checkpoint: dict[str, Any]) -> None:
        self.spec = spec
        self.total_deals = DistinctDeals(spec.layout).total
        # Enough shards to keep every worker busy, none so big that a find waits long.
        shards = max(spec.worker_count * 8, -(-self.total_deals // MAX_SHARD))
        self.shard_size = max(1, -(-self.total_deals // shards))
        super().__init__(-(-self.total_deals // self.shard_size), checkpoint)

    def next_task(self, units: int = 1) -> Task | None:
        """The next shard, or None when all are handed out (shards have one size)."""
        shard = self.chunks.take()
        if shard is None:
            return None
        start = shard * self.shard_size
        size = min(self.shard_size, self.total_deals - start)
        return Task(shard, {"start": start, "deals": size})


def shard_blocks(spec: SearchSpec, task: Task) -> Iterator[npt.NDArray[np.uint8]]:
    """The deals of one shard, in blocks of at most :data:`BATCH` rows."""
    deals = DistinctDeals(spec.layout)
    start, stop = task.payload["start"], task.payload["start"] + task.payload["deals"]
    while start < stop:
        block = deals.block(start, min(BATCH, stop - start))
        start += len(block)
        yield block


def play_shard(spec: SearchSpec, task: Task) -> Report:
    """Play every deal of one shard; report every cycle and the shard's longest game."""
    game, options = spec.plugin, spec.options
    report = Report.for_game(task.key, game)
    ended = [game.outcomes.index(o) for o in finished(game)]
    cycle = game.outcomes.index("cycle") if "cycle" in game.outcomes else -1
    objective = game.measures.index(spec.objective or game.measures[0])
    longest = None
    for block in shard_blocks(spec, task):
        batch = play_batch(game, block, options)
        add_batch(report, game, batch)
        for i in np.flatnonzero(batch.outcome == cycle):
            report.finds.append((compact(block[i], spec),
                                 batch_result(game, batch, int(i), block[i], options)))
        wins = np.flatnonzero(np.isin(batch.outcome, ended))
        if len(wins):
            lengths = batch.measures[wins, objective]
            best = int(wins[np.argmax(lengths)])
            if longest is None or lengths.max() > longest[0]:
                longest = (int(lengths.max()), compact(block[best], spec),
                           batch_result(game, batch, best, block[best], options))
    if longest is not None:
        report.finds.append((longest[1], longest[2]))
    return report

