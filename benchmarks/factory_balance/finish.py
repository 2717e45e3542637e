"""The deck-completing finish: near-deck cycles completed two deck moves at a time.

The factory grows never-ending games on part of the deck before it reaches the whole deck,
and its imbalance objective keeps those cycles even; the pair step
(:mod:`factory_balance.pair_step`) only rearranges a whole deck. This finish joins
them: from a cycle whose deck is a few cards from the whole deck, it makes two deck moves at
a time: the missing cards inserted (one card of each missing class, or two of a class missing
twice) at every pair of places in either hand (:func:`completions`), and, where the factory
overshot a class (it often does: extra jacks), a card of that class changed into a missing
class or removed; in every state of the cycle and in the most even states of its basin walked
backwards. Each new state that still never ends enters a cycle (most even states first: cards
put into the short hand are preferred), and the cycles still short of the deck are completed
again (:func:`complete`). The whole-deck cycles reached are then climbed by
:func:`factory_balance.pair_step.pair_climb`, and :func:`sub_deck_cycles` collects
the start cycles from a factory run with the imbalance objective.

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

from dealsearch.games.beggar.engine import play_batch
from dealsearch.games.beggar.factory import MAX_GAME, Hands, Loop, distance, find_loop
from dealsearch.games.beggar.notation import STANDARD, Deal, Rules

from .balance import Reached, _walk, gap
from .pair_step import SEP, _distinct


def missing_cards(counts: tuple[int, ...], target: tuple[int, ...]) -> list[int] | None:
    """The classes of the cards ``counts`` lacks for ``target`` (one entry per card, in class
    order), or None if it holds a class over the target.

    >>> missing_cards((30, 4, 4, 4, 4), STANDARD.deck)
    [0, 0, 0, 0, 0, 0]
    """
    if any(have > want for have, want in zip(counts, target, strict=True)):
        return None
    return _short(counts, target)


def _short(counts: tuple[int, ...], target: tuple[int, ...]) -> list[int]:
    return [cls for cls, (have, want) in enumerate(zip(counts, target, strict=True))
            for _ in range(want - have)]


def _fixes(hands: Hands, target: tuple[int, ...], classes: int) -> set[Hands]:
    """Every state one card change nearer ``target``: a card of a class over it changed into
    a class short of it, or removed (no hand left empty)."""
    counts = Deal(hands).class_counts(classes)
    over = {cls for cls, (have, want) in enumerate(zip(counts, target, strict=True))
            if have > want}
    short = sorted(set(_short(counts, target)))
    found: set[Hands] = set()
    for seat, hand in enumerate(hands):
        for at, card in enumerate(hand):
            if card not in over:
                continue
            for into in (*short, None):
                new = hand[:at] + ((into,) if into is not None else ()) + hand[at + 1:]
                if new:
                    found.add((*hands[:seat], new, *hands[seat + 1:]))
    return found


def _step_rows(hands: Hands, target: tuple[int, ...], moves: int = 2
               ) -> Iterable[npt.NDArray[np.uint8]]:
    """The rows of every state ``moves`` deck moves nearer ``target`` (fewer if fewer are
    needed): the cards of classes over it changed or removed (:func:`_fixes`), then missing
    cards inserted everywhere, one of each missing class first."""
    classes = len(target)
    levels = [{hands}]
    for _ in range(moves):
        levels.append(set().union(*(_fixes(state, target, classes) for state in levels[-1])))
    for used, level in enumerate(levels):
        for state in level:
            short = _short(Deal(state).class_counts(classes), target)
            distinct = list(dict.fromkeys(short))
            cards = (distinct + [cls for cls in short if short.count(cls) > 1])[:moves - used]
            if used or cards:
                yield _rows(state, tuple(sorted(cards)))


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


def never_ending_completions(states: Iterable[Hands], target: tuple[int, ...],
                             rules: Rules = STANDARD, max_cards: int | None = MAX_GAME
                             ) -> tuple[list[Hands], int]:
    """The states two deck moves nearer ``target`` (class counts) from every state of
    ``states`` (missing cards inserted everywhere, :func:`completions`; cards of a class over
    the target changed into a missing class or removed) whose game (hand 1 leading) is seen
    to never end within ``max_cards`` cards, most even first, and how many were played."""
    by_width: dict[int, list[npt.NDArray[np.uint8]]] = {}
    for hands in states:
        for rows in _step_rows(hands, target):
            by_width.setdefault(rows.shape[1], []).append(rows)
    found: list[Hands] = []
    played = 0
    for blocks in by_width.values():
        rows = _distinct(np.concatenate(blocks))
        played += len(rows)
        cuts = np.argmax(rows == SEP, axis=1)
        for cut in np.unique(cuts):
            group = np.delete(rows[cuts == cut], cut, axis=1)
            batch = play_batch(group, rules, 2, (int(cut), group.shape[1] - int(cut)),
                               max_cards)
            for i in np.flatnonzero(batch.outcome == 1):
                row = group[i].tolist()
                found.append((tuple(row[:cut]), tuple(row[cut:])))
    found.sort(key=lambda hands: (gap(hands), hands))
    return found, played


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
    """Complete near-deck cycles to ``target`` (class counts), two deck moves at a time.

    For each cycle of ``loops`` (those already whole are kept as they are), two deck moves
    (:func:`never_ending_completions`: the missing cards inserted everywhere, one of each
    missing class first; a card of a class over the target changed or removed) are made in
    every state of the cycle and in the ``walk_keep`` most even states of its basin (a
    best-first walk back of at most ``walk_states`` states); of the new states that never
    end, the most even first, the cycles entered are read (at most ``per_cycle`` new ones per
    cycle completed) and completed in turn while they are short of the deck. Cycles are
    taken nearest the deck and most even first, at most ``max_cycles`` of them completed."""
    result = Finished()
    seen: set[str] = set()
    queue: list[tuple[int, int, int, Loop]] = []
    count = 0
    classes = len(target)
    for loop in loops:
        if loop.key in seen:
            continue
        seen.add(loop.key)
        count += 1
        heapq.heappush(queue, (distance(loop.counts(classes), target), loop.imbalance(),
                               count, loop))
    while queue:
        if max_cycles is not None and result.completed >= max_cycles:
            break
        away, _, _, loop = heapq.heappop(queue)
        if not away:
            _keep_whole(result, loop, loop.states[0])
            continue
        result.completed += 1
        states = list(loop.states)
        if walk_states > 1:
            states += _walk(loop, rules, walk_states, Reached(gap(states[0]), states[0]),
                            None, walk_keep)
        found, played = never_ending_completions(dict.fromkeys(states), target, rules)
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
            rest = distance(child.counts(classes), target)
            assert rest < away
            if rest:
                count += 1
                heapq.heappush(queue, (rest, child.imbalance(), count, child))
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


def sub_deck_cycles(settings: Any, within: int = 4, most: int = 64, over: float = 0.0
                    ) -> tuple[list[Loop], Any]:
    """Run the factory (in this process, to ``settings``' budget:
    :class:`~dealsearch.games.beggar.factory_run.Settings`) from its default seeds and
    return the ``most`` most even cycles it met whose deck is 1 to ``within`` cards from the
    whole deck (:func:`~dealsearch.games.beggar.factory.distance`), nearest first, with the
    run's stats. ``over``: a penalty per card over the deck (of a class over it) added to
    the factory's priority, so that it grows sub-decks rather than overshooting."""
    from dealsearch.games.beggar.factory_command import START_DECKS
    from dealsearch.games.beggar.factory_run import Factory, Node, rebuild, seed_nodes
    from dealsearch.games.beggar.notation import parse_deck

    rules = settings.rules_object
    met: dict[str, Node] = {}

    class Collecting(Factory):
        def _priority(self, node: Node) -> float:
            extra = sum(max(0, have - want) for have, want in zip(node.counts, self.target,
                                                                   strict=True))
            return super()._priority(node) + over * extra

        def _push(self, node: Node) -> bool:
            new = super()._push(node)
            if new and 0 < distance(node.counts, self.target) <= within:
                met.setdefault(node.key, node)
            return new

    deck = parse_deck(START_DECKS[(rules.name, 2)], rules)
    factory = Collecting(settings, seed_nodes(deck, rules.name))
    for _ in factory.run_serial():
        pass
    chosen = sorted(met.values(), key=lambda node: (
        distance(node.counts, rules.deck), node.imbalance, node.key))[:most]
    return [rebuild(node, rules) for node in chosen], factory.stats
