"""The distinct orderings of a multiset of cards (a deck), in lexicographic order of the card
codes: how many there are, the k-th, the rank of one, and a block of them at a time (compiled).
A leaf: the exhaustive search and a game's own tools (BMN's factory) number deals with it.

>>> count_deals((2, 1))
3
>>> unrank(2, (2, 1)), rank((1, 0, 0), (2, 1))
((1, 0, 0), 2)
>>> import numpy as np
>>> permutation_block(np.array([0, 0, 1], np.uint8), 5).tolist()
[[0, 0, 1], [0, 1, 0], [1, 0, 0]]
"""

from __future__ import annotations

from math import factorial, prod

from ._permutations import permutation_block

__all__ = ["count_deals", "permutation_block", "rank", "unrank"]


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
