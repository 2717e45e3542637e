"""Exhaustive search: every distinct deal of a small deck, sharded by rank.

The deals are the distinct orderings of the deck (a multiset), in lexicographic order of the
card classes, dealt as play_batch deals a row: hand 1 gets the first ceil(n/2) cards with two
players. Shard ``k`` covers ranks ``[k*size, (k+1)*size)``; unranking its first deal makes every
shard independent of the others.

>>> count_deals((2, 1))
3
>>> unrank(2, (2, 1)), rank((1, 0, 0), (2, 1))
((1, 0, 0), 2)
"""

from __future__ import annotations

from math import factorial, prod
from typing import Any

import numpy as np

from .._permutations import permutation_block
from ..engine import play_batch
from .base import NumberedSearch, Report, Task, add_batch, compact, score
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
        self.counts = spec.game_rules.deck
        self.total_deals = count_deals(self.counts)
        # Enough shards to keep every worker busy, none so big that a find waits long.
        shards = max(spec.worker_count * 8, -(-self.total_deals // MAX_SHARD))
        self.shard_size = max(1, -(-self.total_deals // shards))
        super().__init__(-(-self.total_deals // self.shard_size), checkpoint)

    def next_task(self) -> Task | None:
        """The next shard, or None when all are handed out."""
        shard = self.chunks.take()
        if shard is None:
            return None
        start = shard * self.shard_size
        size = min(self.shard_size, self.total_deals - start)
        return Task(shard, {"start": start, "deals": size})


def play_shard(spec: SearchSpec, task: Task) -> Report:
    """Play every deal of one shard; report every cycle and the shard's longest game."""
    report = Report(task.key)
    first = np.array(unrank(task.payload["start"], spec.game_rules.deck), dtype=np.uint8)
    remaining = task.payload["deals"]
    longest = None
    while remaining:
        take = min(BATCH, remaining)
        rows = permutation_block(first, take + 1)  # one more: the next block's first deal
        block = rows[:take]
        first = rows[-1]
        batch = play_batch(block, spec.game_rules, spec.players, spec.hand_sizes,
                           spec.max_cards, spec.max_tricks)
        add_batch(report, batch)
        remaining -= len(block)
        for i in np.flatnonzero(batch.outcome == 1):
            report.finds.append((compact(block[i], spec), batch.result(int(i))))
        wins = np.flatnonzero(batch.outcome == 0)
        if len(wins):
            lengths = (batch.tricks if spec.by_tricks else batch.cards)[wins]
            best = int(wins[np.argmax(lengths)])
            result = batch.result(best)
            if longest is None or score(result, spec) > score(longest[1], spec):
                longest = (compact(block[best], spec), result)
    if longest is not None:
        report.finds.append(longest)
    return report

