"""The exhaustive last step toward a balanced start: every pair of card moves, played.

The whole-deck cycles the factory builds are lopsided, and walking backwards from them
(:func:`factory_balance.balance.backward_balance`) stops a few cards short of a dealt
split: their basins are small. One card moved from the long hand to the short one
(:func:`factory_balance.balance.shifts`) almost never keeps the game never-ending.
This module tries the next ring out, exhaustively: from a state, **every state two card moves
away that is more even** (:func:`pair_states`): one card of the long hand moved to any place
of the short hand, then any card moved to any place of either hand (or not). The deck is
unchanged (a move is the factory's remove-and-insert of one card), so every never-ending state
met is a whole-deck deal that never ends, more even than the state it came from. A *lateral*
ring holds the states as even as the start too (a card each way).

Compiled play is fast and these games end quickly, so the ring round a 52-card state (some
200,000 distinct states) is built and played in under a second (:func:`never_ending_pairs`).
:func:`pair_climb` climbs with it: walk backwards best-first from the start cycles (their
basins' most even states), try the pair ring of the most even state not yet tried, and when
a never-ending state enters a new cycle, walk back from that cycle too; the most even state
met over all of it is the result (0: a starting deal that never ends). It is screened beside
the other balance methods in the factory's research page (``docs/research/factory.md``).

>>> len(pair_states(((0, 0, 0, 1), (2,))))
8
"""

from __future__ import annotations

import heapq
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from functools import lru_cache

import numpy as np
import numpy.typing as npt

from dealsearch.games.beggar.engine import play_batch
from dealsearch.games.beggar.factory import MAX_GAME, Hands, Loop, find_loop
from dealsearch.games.beggar.notation import STANDARD, Deal, Rules

from .balance import Reached, _walk, gap


@dataclass
class Climbed(Reached):
    """What :func:`pair_climb` reached; ``found``: every ring state met that never ends into
    a new cycle, and ``rings``: the states whose pair ring was played."""

    found: list[Hands] = field(default_factory=list)
    rings: int = 0


SEP = 255  # the hand boundary, as one more token of a state's row
_CHUNK = 96  # first moves whose second moves are played in one batch


@lru_cache(maxsize=8)
def relocations(n: int) -> tuple[npt.NDArray[np.int16], npt.NDArray[np.int16]]:
    """Every move of one token of a row of ``n`` tokens to another place: index arrays
    (one row per move; ``row[index]`` is the moved row) and the moved token's old place.

    >>> index, source = relocations(3)
    >>> index.tolist(), source.tolist()
    ([[1, 0, 2], [1, 2, 0], [1, 0, 2], [0, 2, 1], [2, 0, 1], [0, 2, 1]], [0, 0, 1, 1, 2, 2])
    """
    base = np.arange(n, dtype=np.int16)
    rows, sources = [], []
    for i in range(n):
        rest = np.delete(base, i)
        for k in range(n):
            if k != i:
                rows.append(np.insert(rest, k, i))
                sources.append(i)
    return np.array(rows, dtype=np.int16).reshape(-1, n), np.array(sources, dtype=np.int16)


def _gaps(first_sizes: npt.NDArray[np.intp], cards: int) -> npt.NDArray[np.intp]:
    ideal = Rules.deal_sizes(cards, 2)
    return (np.abs(first_sizes - ideal[0]) + np.abs(cards - first_sizes - ideal[1])) // 2


def _moved(rows: npt.NDArray[np.uint8], cards: int) -> tuple[npt.NDArray[np.uint8],
                                                               npt.NDArray[np.intp]]:
    """Every relocation of a card (not the boundary) of each row; the new rows and the size
    of their first hand."""
    index, source = relocations(cards + 1)
    boundary = np.argmax(rows == SEP, axis=1)
    moved = rows[:, index]                                   # (rows, moves, tokens)
    keep = source[None, :] != boundary[:, None]              # the boundary stays a boundary
    moved = moved[keep]
    return moved, np.argmax(moved == SEP, axis=1)


def _ring(hands: Hands, lateral: bool = False) -> Iterator[npt.NDArray[np.uint8]]:
    """The rows (hand 1, :data:`SEP`, hand 2) of :func:`pair_states`, in chunks (a row may
    come twice)."""
    if len(hands) != 2 or not all(hands):
        raise ValueError("the pair step takes two non-empty hands")
    cards = len(hands[0]) + len(hands[1])
    start = np.array([(*hands[0], SEP, *hands[1])], dtype=np.uint8)
    before = gap(hands)
    first, sizes = _moved(start, cards)
    first = _distinct(first[_gaps(sizes, cards) < before])
    for at in range(0, len(first), _CHUNK):
        chunk = first[at:at + _CHUNK]
        second, sizes = _moved(chunk, cards)
        keep = (_gaps(sizes, cards) < before + lateral) & (sizes > 0) & (sizes < cards)
        yield _distinct(np.concatenate([chunk, second[keep]]))


_WEIGHTS = np.random.default_rng(0).integers(1, 2**63, size=128, dtype=np.uint64)


def _distinct(rows: npt.NDArray[np.uint8]) -> npt.NDArray[np.uint8]:
    """The rows, each once (by a 64-bit hash of the row: two rows that collide, a chance of
    about one in 10**19 per pair, would lose one of them, never add a wrong one)."""
    keys = rows.astype(np.uint64) @ _WEIGHTS[:rows.shape[1]]
    return rows[np.unique(keys, return_index=True)[1]]


def pair_states(hands: Hands, lateral: bool = False) -> set[Hands]:
    """Every state (two hands, the player to move first) one or two card moves from
    ``hands`` and more even than it: a card of the longer hand moved to any place of the
    shorter one, then, or not, any card moved to any place of either hand. ``lateral``: as
    even as it will do (the second move may take a card back to the longer hand).

    >>> sorted(pair_states(((0, 1, 0), (2,))))[:3]
    [((0, 0), (1, 2)), ((0, 0), (2, 1)), ((0, 1), (0, 2))]
    """
    found: set[Hands] = set()
    for rows in _ring(hands, lateral):
        for row in rows.tolist():
            cut = row.index(SEP)
            found.add((tuple(row[:cut]), tuple(row[cut + 1:])))
    return found


def never_ending_pairs(hands: Hands, rules: Rules = STANDARD,
                       max_cards: int | None = MAX_GAME, lateral: bool = False
                       ) -> tuple[list[Hands], int]:
    """The states of :func:`pair_states` whose game (hand 1 leading) is seen to never end
    within ``max_cards`` cards, and how many states were played."""
    found: list[Hands] = []
    played = 0
    for rows in _ring(hands, lateral):
        played += len(rows)
        cuts = np.argmax(rows == SEP, axis=1)
        for cut in np.unique(cuts):
            group = rows[cuts == cut]
            cards = np.delete(group, cut, axis=1)
            batch = play_batch(cards, rules, 2, (int(cut), cards.shape[1] - int(cut)), max_cards)
            for i in np.flatnonzero(batch.outcome == 1):
                row = cards[i].tolist()
                found.append((tuple(row[:cut]), tuple(row[cut:])))
    return found, played


def pair_climb(loops: Iterable[Loop], rules: Rules = STANDARD, seconds: float | None = 60.0,
               max_rings: int | None = None, max_states: int = 50_000, keep: int = 64,
               lateral: bool = False) -> Climbed:
    """Climb toward a balanced never-ending deal with the pair ring.

    Walk backwards best-first from every cycle of ``loops`` (at most ``max_states`` states
    each) and keep the ``keep`` most even states of each walk; then, until ``seconds`` or
    ``max_rings`` rings are spent or a dealt split is reached, take the most even state kept
    and not yet tried, play its :func:`never_ending_pairs`, and walk back from every new cycle
    they enter (its most even states are kept in turn). With ``lateral`` the rings hold the
    states as even as the one they are made from too (:func:`pair_states`): they enter new
    cycles far more often, and each new cycle is a new basin to walk. ``Reached.cycles``
    holds the keys of the cycles met (the start ones included), ``Reached.state`` the most
    even never-ending state met (a state of a walk, or one of a ring), ``Reached.found``
    every ring state that never ends into a new cycle."""
    ends = None if seconds is None else time.monotonic() + seconds
    queue: list[tuple[int, int, Hands]] = []
    reached: Climbed | None = None
    tried: set[Hands] = set()
    count = 0

    def walk(loop: Loop) -> None:
        nonlocal count
        assert reached is not None
        for hands in _walk(loop, rules, max_states, reached, ends, keep):
            count += 1
            heapq.heappush(queue, (gap(hands), count, hands))

    for loop in loops:
        if reached is None:
            best = min(loop.states, key=gap)
            reached = Climbed(gap(best), best)
        reached.cycles.add(loop.key)
        walk(loop)
    if reached is None:
        raise ValueError("pair_climb needs at least one cycle to start from")
    rings = 0
    while queue and reached.gap > 0:
        if ends is not None and time.monotonic() >= ends:
            break
        if max_rings is not None and rings >= max_rings:
            break
        _, _, hands = heapq.heappop(queue)
        if hands in tried:
            continue
        tried.add(hands)
        rings += 1
        reached.rings = rings
        states, played = never_ending_pairs(hands, rules, lateral=lateral)
        reached.played += played
        for state in states:
            if gap(state) < reached.gap:
                reached.gap, reached.state = gap(state), state
            child = find_loop(Deal(state), rules)
            if child is None or child.key in reached.cycles:
                continue
            reached.cycles.add(child.key)
            reached.found.append(state)
            walk(child)
    return reached


