"""The deck-completing finish: sub-deck cycles completed two missing cards at a time.

The factory grows never-ending games on part of the deck before it reaches the whole deck,
and its imbalance objective keeps those sub-deck cycles even; the pair step
(:mod:`~dealsearch.games.beggar.pair_step`) only rearranges a whole deck. This finish joins
them: from a cycle whose deck is the whole deck less a few cards (no class over the deck),
it inserts the missing cards **two at a time**, one card of each missing class (or two of a
class missing twice), at every pair of places in either hand (:func:`completions`), in every
state of the cycle and in the most even states of its basin walked backwards; each completion
that still never ends enters a cycle (most even completions first: cards put into the short
hand are preferred), and the cycles still short of the deck are completed again. The
whole-deck cycles reached are returned, to be climbed by
:func:`~dealsearch.games.beggar.pair_step.pair_climb` (:func:`finish`).

Every completion reported is played by the compiled engine and its cycle read by the
reference engine (:func:`~dealsearch.games.beggar.factory.find_loop`).

>>> from dealsearch.games.beggar.notation import parse_deck
>>> from dealsearch.games.beggar.factory import seed_loops
>>> loop = seed_loops(parse_deck("------JJQQK"))[0]
>>> done = complete([loop], (7, 3, 2, 1, 0))
>>> done.completed >= 1, all(w.counts(5) == (7, 3, 2, 1, 0) for w in done.whole.values())
(True, True)
"""

from __future__ import annotations

import heapq
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt

from .balance import Reached, _walk, gap
from .engine import play_batch
from .factory import MAX_GAME, Hands, Loop, find_loop
from .notation import STANDARD, Deal, Rules
from .pair_step import SEP, _distinct


def missing_cards(counts: tuple[int, ...], target: tuple[int, ...]) -> list[int] | None:
    """The classes of the cards ``counts`` lacks for ``target`` (one entry per card, in class
    order), or None if it holds a class over the target.

    >>> missing_cards((30, 4, 4, 4, 4), STANDARD.deck)
    [0, 0, 0, 0, 0, 0]
    """
    if any(have > want for have, want in zip(counts, target, strict=True)):
        return None
    return [cls for cls, (have, want) in enumerate(zip(counts, target, strict=True))
            for _ in range(want - have)]


def _insert_everywhere(rows: npt.NDArray[np.uint8], card: int) -> npt.NDArray[np.uint8]:
    """Every row with ``card`` inserted at every place (before, between and after the
    tokens, the separator included)."""
    count, width = rows.shape
    out = np.empty((count, width + 1, width + 1), dtype=np.uint8)
    for at in range(width + 1):
        out[:, at, :at] = rows[:, :at]
        out[:, at, at] = card
        out[:, at, at + 1:] = rows[:, at:]
    return out.reshape(-1, width + 1)


def _rows(hands: Hands, cards: tuple[int, ...]) -> npt.NDArray[np.uint8]:
    rows = np.array([(*hands[0], SEP, *hands[1])], dtype=np.uint8)
    for card in cards:
        rows = _distinct(_insert_everywhere(rows, card))
    return rows


def completions(hands: Hands, cards: tuple[int, ...]) -> set[Hands]:
    """Every state made from ``hands`` (two hands, the player to move first) by inserting
    ``cards`` (one or two of them), each at any place of either hand.

    >>> sorted(completions(((1,), (2,)), (0,)))
    [((0, 1), (2,)), ((1,), (0, 2)), ((1,), (2, 0)), ((1, 0), (2,))]
    """
    found: set[Hands] = set()
    for row in _rows(hands, cards).tolist():
        cut = row.index(SEP)
        found.add((tuple(row[:cut]), tuple(row[cut + 1:])))
    return found


def never_ending_completions(states: Iterable[Hands], cards: tuple[int, ...],
                             rules: Rules = STANDARD, max_cards: int | None = MAX_GAME
                             ) -> tuple[list[Hands], int]:
    """The :func:`completions` of every state of ``states`` whose game (hand 1 leading) is
    seen to never end within ``max_cards`` cards, most even first, and how many were played."""
    rows = np.concatenate([_rows(hands, cards) for hands in states])
    rows = _distinct(rows)
    cuts = np.argmax(rows == SEP, axis=1)
    found: list[Hands] = []
    for cut in np.unique(cuts):
        group = np.delete(rows[cuts == cut], cut, axis=1)
        batch = play_batch(group, rules, 2, (int(cut), group.shape[1] - int(cut)), max_cards)
        for i in np.flatnonzero(batch.outcome == 1):
            row = group[i].tolist()
            found.append((tuple(row[:cut]), tuple(row[cut:])))
    found.sort(key=lambda hands: (gap(hands), hands))
    return found, len(rows)


@dataclass
class Finished:
    """What :func:`complete` did: the whole-deck cycles reached (by key), the sub-deck cycles
    completed, the completion states that never end into a whole-deck cycle (one per cycle),
    games played, and the most even state of a whole-deck cycle met (``gap``, ``state``)."""

    whole: dict[str, Loop] = field(default_factory=dict)
    entries: list[Hands] = field(default_factory=list)
    completed: int = 0
    played: int = 0
    gap: int | None = None
    state: Hands | None = None


def complete(loops: Iterable[Loop], target: tuple[int, ...], rules: Rules = STANDARD,
             walk_states: int = 2_000, walk_keep: int = 16, per_cycle: int = 8,
             max_cycles: int | None = None) -> Finished:
    """Complete sub-deck cycles to ``target`` (class counts), two missing cards at a time.

    For each cycle of ``loops`` (any of them already whole are kept as they are), the
    missing cards are taken two at a time (one of each of the first two missing classes, in
    class order); they are inserted everywhere (:func:`completions`) into every state of the
    cycle and into the ``walk_keep`` most even states of its basin (a best-first walk back of
    at most ``walk_states`` states); of the completions that never end, the most even ones
    first, the cycles entered are read (at most ``per_cycle`` new ones per cycle completed)
    and completed in turn while cards are missing. Cycles are taken most even first
    (:class:`Loop.imbalance`), at most ``max_cycles`` of them completed in all."""
    result = Finished()
    seen: set[str] = set()
    queue: list[tuple[int, int, int, Loop]] = []
    count = 0
    for loop in loops:
        lacking = missing_cards(loop.counts(len(target)), target)
        if lacking is None or loop.key in seen:
            continue
        seen.add(loop.key)
        count += 1
        heapq.heappush(queue, (len(lacking), loop.imbalance(), count, loop))
    while queue:
        if max_cycles is not None and result.completed >= max_cycles:
            break
        _, _, _, loop = heapq.heappop(queue)
        lacking = missing_cards(loop.counts(len(target)), target)
        assert lacking is not None
        if not lacking:
            _keep_whole(result, loop, loop.states[0])
            continue
        result.completed += 1
        cards = tuple(dict.fromkeys(lacking))[:2] if len(set(lacking)) > 1 else \
            tuple(lacking[:2])
        states = list(loop.states)
        if walk_states > 1:
            states += _walk(loop, rules, walk_states, Reached(gap(states[0]), states[0]),
                            None, walk_keep)
        found, played = never_ending_completions(dict.fromkeys(states), cards, rules)
        result.played += played
        new = 0
        for hands in found:
            if new >= per_cycle:
                break
            child = find_loop(Deal(hands), rules, loop.key)
            if child is None or child.key in seen:
                continue
            seen.add(child.key)
            new += 1
            rest = missing_cards(child.counts(len(target)), target)
            assert rest is not None and len(rest) == len(lacking) - len(cards)
            if rest:
                count += 1
                heapq.heappush(queue, (len(rest), child.imbalance(), count, child))
            else:
                _keep_whole(result, child, hands)
    return result


def _keep_whole(result: Finished, loop: Loop, entry: Hands) -> None:
    if loop.key in result.whole:
        return
    result.whole[loop.key] = loop
    result.entries.append(entry)
    best = min(loop.states, key=gap)
    if result.gap is None or gap(best) < result.gap:
        result.gap, result.state = gap(best), best


def sub_deck_cycles(settings: Any, within: int = 4, most: int = 64) -> tuple[list[Loop], Any]:
    """Run the factory (in this process, to ``settings``' budget:
    :class:`~dealsearch.games.beggar.factory_run.Settings`) from its default seeds and
    return the ``most`` most even cycles it met whose deck is the whole deck less 1 to
    ``within`` cards (no class over), fewest missing cards first, with the run's stats."""
    from .factory_command import START_DECKS
    from .factory_run import Factory, Node, rebuild, seed_nodes
    from .notation import parse_deck

    rules = settings.rules_object
    met: dict[str, Node] = {}

    class Collecting(Factory):
        def _push(self, node: Node) -> bool:
            new = super()._push(node)
            lacking = missing_cards(node.counts, self.target)
            if new and lacking and len(lacking) <= within:
                met.setdefault(node.key, node)
            return new

    deck = parse_deck(START_DECKS[(rules.name, 2)], rules)
    factory = Collecting(settings, seed_nodes(deck, rules.name))
    for _ in factory.run_serial():
        pass
    chosen = sorted(met.values(), key=lambda node: (
        sum(rules.deck) - sum(node.counts), node.imbalance, node.key))[:most]
    return [rebuild(node, rules) for node in chosen], factory.stats
