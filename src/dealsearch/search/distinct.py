"""The distinct deals of a layout, numbered: what an exhaustive search plays.

A deal is distinct when no other deal of the layout plays the same game: cards of a fixed
segment stay in it (the deal is the free cards' arrangement times each fixed segment's own),
and an unordered segment counts once per content (its cards sorted, as
:func:`~dealsearch.game.canonical` writes it). The deals are numbered ``0 .. total-1``:
the free positions vary slowest, then each fixed segment in order; inside each part, in
lexicographic order of the card codes. Without fixed or unordered segments this is simply
the lexicographic order of the distinct orderings of the deck.

>>> from dealsearch.game import Layout
>>> import numpy as np
>>> deals = DistinctDeals(Layout(np.array([0, 0, 1, 1], dtype=np.uint8), (2, 2), (True, False)))
>>> deals.total, [deals.row(i).tolist() for i in range(deals.total)]
(4, [[0, 0, 1, 1], [0, 1, 0, 1], [0, 1, 1, 0], [1, 1, 0, 0]])
>>> deals.number(np.array([1, 1, 0, 0], dtype=np.uint8))
3

A deal's number is its *rank*: ``dealsearch verify --rank N`` plays deal N, ``dealsearch rank``
prints a deal's, and ``search exhaustive --ranks A:B`` plays deals A to B-1.
"""

from __future__ import annotations

from functools import lru_cache
from math import factorial, prod

import numpy as np
import numpy.typing as npt

from ..game import Layout

# Deals: a layout with unordered segments is numbered by counting its deals, which takes too
# long past about this many (a plain or fixed layout is numbered by formula, at any size).
MAX_COUNTED = 10**13

# A part of the row that is dealt on its own: (size, unordered) of each of its segments.
Part = tuple[tuple[int, bool], ...]


def _multinomial(counts: tuple[int, ...]) -> int:
    return factorial(sum(counts)) // prod(factorial(c) for c in counts)


@lru_cache(maxsize=1 << 16)
def _completions(part: Part, position: int, counts: tuple[int, ...], low: int) -> int:
    """Ways to fill the part from ``position`` on with the cards ``counts`` (per code), every
    unordered segment non-decreasing; ``low`` is the smallest code the next card may be."""
    edge = 0
    index = 0
    while index < len(part) and position >= edge + part[index][0]:
        edge += part[index][0]
        index += 1
    if index == len(part):
        return 1
    if not any(flag for _, flag in part[index:]):
        return _multinomial(counts)
    total = 0
    for code in range(low, len(counts)):
        if counts[code]:
            left = (*counts[:code], counts[code] - 1, *counts[code + 1:])
            total += _completions(part, position + 1, left, _low(part, position + 1, code))
    return total


def _low(part: Part, position: int, code: int) -> int:
    """The smallest code allowed at ``position`` after ``code``: ``code`` inside the same
    unordered segment, any code at the start of a segment or in an ordered one."""
    start = 0
    for size, unordered in part:
        if position < start + size:
            return code if unordered and position > start else 0
        start += size
    return 0


def at_least(layout: Layout) -> int:
    """A lower bound of the layout's distinct deals, cheap whatever the deck: every ordering
    of the parts, each unordered segment's orderings counted once. Exact without unordered
    segments; check it before counting a large layout exactly (:class:`DistinctDeals`)."""
    bounds = list(zip(layout.bounds(), layout.fixed, strict=True))
    free = [layout.deck[a:b] for (a, b), fixed in bounds if not fixed]
    parts = ([np.concatenate(free)] if free else []) + [layout.deck[a:b] for (a, b), fixed
                                                         in bounds if fixed]
    orderings = prod(_multinomial(tuple(np.unique(part, return_counts=True)[1].tolist()))
                     for part in parts)
    inside = prod(factorial(size) for size, unordered in zip(layout.segments,
                                                             layout.unordered, strict=True)
                  if unordered)
    return -(-orderings // inside)


def numbering(layout: Layout) -> DistinctDeals:
    """The layout's deals, numbered (:class:`DistinctDeals`); ValueError for a layout with
    unordered segments and too many deals to count (:data:`MAX_COUNTED`)."""
    if any(layout.unordered) and at_least(layout) > MAX_COUNTED:
        raise ValueError(f"the deals of this layout (at least {at_least(layout):.3g}) are "
                         "too many to number (a segment whose order does not matter is "
                         "counted, not computed): use a smaller deck")
    return DistinctDeals(layout)


class DistinctDeals:
    """The distinct deals of a layout, by number (see the module). Counting them takes time
    that grows with the deals of a layout with unordered segments: see :func:`at_least`."""

    def __init__(self, layout: Layout) -> None:
        self.width = layout.n_cards
        self.layout = layout
        bounds = list(zip(layout.bounds(), layout.segments, layout.unordered, layout.fixed,
                          strict=True))
        free = [(a, b, size, unordered) for (a, b), size, unordered, fixed in bounds
                if not fixed]
        groups = [free] if free else []
        groups += [[(a, b, size, unordered)] for (a, b), size, unordered, fixed in bounds
                   if fixed]
        codes = int(layout.deck.max()) + 1 if len(layout.deck) else 0
        # Each part: its positions in the row, its segments and its cards (count per code).
        self.parts: list[tuple[npt.NDArray[np.intp], Part, tuple[int, ...]]] = []
        for group in groups:
            positions = np.concatenate([np.arange(a, b) for a, b, _, _ in group])
            counts = np.bincount(layout.deck[positions], minlength=codes)
            self.parts.append((positions, tuple((s, u) for _, _, s, u in group),
                               tuple(int(c) for c in counts)))
        self.sizes = [_completions(part, 0, counts, 0) for _, part, counts in self.parts]
        self.total = prod(self.sizes)
        # No fixed, no unordered segment: the deals are the deck's orderings, stepped fast.
        self.plain = len(self.parts) == 1 and not any(u for _, u in self.parts[0][1])
        self._next: tuple[int, npt.NDArray[np.uint8]] = (-1, np.empty(0, np.uint8))

    def row(self, number: int) -> npt.NDArray[np.uint8]:
        """Deal ``number`` (0-based) as a row."""
        if not 0 <= number < self.total:
            raise ValueError(f"deal {number} of {self.total}")
        row = np.empty(self.width, dtype=np.uint8)
        for (positions, part, counts), size in zip(self.parts[::-1], self.sizes[::-1],
                                                   strict=True):
            number, index = divmod(number, size)
            row[positions] = _unrank(part, counts, index)
        return row

    def number(self, row: npt.NDArray[np.uint8]) -> int:
        """The number (rank) of a deal of the layout, the inverse of :meth:`row`; an unordered
        segment may hold its cards in any order. ValueError for a row that is not a deal of
        the layout (other cards, or cards of a fixed segment elsewhere)."""
        row = np.array(row, dtype=np.uint8)
        if row.shape != (self.width,):
            raise ValueError(f"a deal of {len(row)} cards, not {self.width}")
        for (a, b), unordered in zip(self.layout.bounds(), self.layout.unordered, strict=True):
            if unordered:
                row[a:b].sort()
        number = 0
        for (positions, part, counts), size in zip(self.parts, self.sizes, strict=True):
            cards = row[positions]
            if cards.size and (int(cards.max()) >= len(counts) or tuple(
                    np.bincount(cards, minlength=len(counts)).tolist()) != counts):
                raise ValueError("not a deal of this layout: other cards"
                                 + (" in a fixed segment" if len(self.parts) > 1 else ""))
            number = number * size + _rank(part, counts, cards.tolist())
        return number

    def block(self, start: int, count: int) -> npt.NDArray[np.uint8]:
        """Deals ``start .. start+count-1`` (fewer past the last), one row each."""
        count = max(0, min(count, self.total - start))
        if self.plain and count:
            from .._permutations import permutation_block

            # One row more: the next block's first, so that blocks in order unrank once.
            first = self._next[1] if self._next[0] == start else self.row(start)
            rows = permutation_block(first, count + 1)
            self._next = (start + count, rows[count]) if len(rows) > count else (-1, first)
            return rows[:count]
        return np.array([self.row(start + i) for i in range(count)],
                        dtype=np.uint8).reshape(count, self.width)


def _unrank(part: Part, counts: tuple[int, ...], index: int) -> list[int]:
    """The ``index``-th way (lexicographic) to fill the part with the cards ``counts``."""
    cards: list[int] = []
    low = 0
    for position in range(sum(size for size, _ in part)):
        for code in range(low, len(counts)):
            if not counts[code]:
                continue
            left = (*counts[:code], counts[code] - 1, *counts[code + 1:])
            next_low = _low(part, position + 1, code)
            below = _completions(part, position + 1, left, next_low)
            if index < below:
                cards.append(code)
                counts, low = left, next_low
                break
            index -= below
    return cards


def _rank(part: Part, counts: tuple[int, ...], cards: list[int]) -> int:
    """The inverse of :func:`_unrank`: the index of ``cards`` among the ways to fill the part."""
    index = 0
    low = 0
    for position, card in enumerate(cards):
        for code in range(low, card):
            if counts[code]:
                left = (*counts[:code], counts[code] - 1, *counts[code + 1:])
                index += _completions(part, position + 1, left, _low(part, position + 1, code))
        counts = (*counts[:card], counts[card] - 1, *counts[card + 1:])
        low = _low(part, position + 1, card)
    return index
