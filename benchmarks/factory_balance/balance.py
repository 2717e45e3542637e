"""Moving a whole-deck cycle toward a balanced start: pieces moved between hands, and
backward play preferring even states.

The factory's cycles of the whole deck are lopsided (one hand holds a few cards all along the
cycle). Two ways to move cards to the short hand, screened in the research page
(``docs/research/factory.md``):

* :func:`shift_climb`: take a state of the cycle, move a run of cards (a piece: 1 to
  ``longest`` cards that lie together) from the long hand to any place of the short hand, and
  keep the new state if its game never ends; climb on the most even state of the new cycle.
  The deck is unchanged, so every cycle met holds the whole deck.
* :func:`backward_balance`: walk backwards from the cycle (as ``reverse`` does) best-first on
  how far a state is from a dealt split, not breadth-first; when the walk dies out, move a
  piece in one of its 64 most even states (:func:`shifts`) and walk back from the new cycle
  that the shifted state enters (Casella et al.'s route to a 26/26 start).

Both report the most even state they reach, in cards from a dealt split (0: a starting deal).

>>> from dealsearch.games.beggar.notation import parse_deal
>>> from dealsearch.games.beggar.factory import find_loop
>>> loop = find_loop(parse_deal("---K---Q-KQAJ-----AAJ--J--/----------Q----KQ-J-----KA"))
>>> backward_balance(loop, max_states=2000).gap
0
"""

from __future__ import annotations

import heapq
import random
import time
from dataclasses import dataclass, field

from dealsearch.games.beggar import _engine
from dealsearch.games.beggar.factory import Hands, Loop, find_loop, never_ending
from dealsearch.games.beggar.notation import STANDARD, Deal, Rules, parse_deal
from dealsearch.games.beggar.reverse import pack, unpack


def gap(hands: Hands) -> int:
    """Cards to move for the hands to be a dealt split (the first hand the bigger).

    >>> gap(((0,) * 4, (0,) * 48))
    22
    """
    ideal = Rules.deal_sizes(sum(map(len, hands)), len(hands))
    return sum(abs(len(hand) - size) for hand, size in zip(hands, ideal, strict=True)) // 2


@dataclass
class Reached:
    """The most even state a method reached, and what it did."""

    gap: int
    state: Hands
    cycles: set[str] = field(default_factory=set)   # distinct whole-deck cycles met
    played: int = 0                                 # games played
    walked: int = 0                                 # states walked backwards


def shifts(hands: Hands, longest: int = 4, rng: random.Random | None = None,
           most: int | None = None) -> set[Hands]:
    """States made from ``hands`` (two hands) by moving a run of 1 to ``longest`` cards of
    the longer hand to any place of the shorter one, the player to move first as before;
    a random ``most`` of them if given."""
    long_seat = 0 if len(hands[0]) >= len(hands[1]) else 1
    donor, taker = hands[long_seat], hands[1 - long_seat]
    found: set[Hands] = set()
    for size in range(1, longest + 1):
        for start in range(len(donor) - size + 1):
            piece, rest = donor[start:start + size], donor[:start] + donor[start + size:]
            if not rest:
                continue
            for at in range(len(taker) + 1):
                moved = taker[:at] + piece + taker[at:]
                found.add((rest, moved) if long_seat == 0 else (moved, rest))
    if most is not None and len(found) > most:
        rng = rng or random.Random(0)
        return set(rng.sample(sorted(found), most))
    return found


def shift_climb(loop: Loop, rules: Rules = STANDARD, seed: int = 0, seconds: float = 60.0,
                per_step: int = 4096, longest: int = 4) -> Reached:
    """Climb toward an even cycle by :func:`shifts`: at each step try ``per_step`` shifted
    states of the current cycle's most even states, and go on from the new cycle whose most
    even state is the most even (ties at random; a cycle met before is not revisited)."""
    rng = random.Random(seed)
    best = min(loop.states, key=gap)
    reached = Reached(gap(best), best, {loop.key})
    current = loop
    ends = time.monotonic() + seconds
    while time.monotonic() < ends:
        evenest = sorted(current.states, key=lambda h: (gap(h), rng.random()))[:8]
        candidates: set[Hands] = set()
        for hands in evenest:
            candidates |= shifts(hands, longest, rng, per_step // len(evenest))
        reached.played += len(candidates)
        children = []
        for hands, _ in never_ending(sorted(candidates), rules):
            child = find_loop(Deal(hands), rules, current.key)
            if child is not None and child.key not in reached.cycles:
                reached.cycles.add(child.key)
                children.append(child)
        if not children:
            current = loop  # a dead end: start again from the cycle (other samples)
            continue
        current = min(children, key=lambda c: (c.imbalance(), rng.random()))
        evenest_state = min(current.states, key=gap)
        if gap(evenest_state) < reached.gap:
            reached.gap, reached.state = gap(evenest_state), evenest_state
        if reached.gap == 0:
            break
    return reached


def backward_balance(loop: Loop, rules: Rules = STANDARD, max_states: int = 200_000,
                     seconds: float | None = None, changes: int = 0, seed: int = 0,
                     longest: int = 4) -> Reached:
    """Walk backwards from ``loop``'s states, most even state first; then, up to ``changes``
    times, move a piece of the most even state reached (:func:`shifts`) and walk back from
    the cycle that a shifted state enters (the first one, in a seeded random order, whose
    game never ends and that is a new cycle)."""
    rng = random.Random(seed)
    ends = None if seconds is None else time.monotonic() + seconds
    best = min(loop.states, key=gap)
    reached = Reached(gap(best), best, {loop.key})
    current: Loop | None = loop
    for _ in range(changes + 1):
        if current is None:
            break
        evenest = _walk(current, rules, max_states, reached, ends)
        if reached.gap == 0 or (ends is not None and time.monotonic() >= ends):
            break
        current = None
        candidates = sorted(set().union(*(shifts(state, longest) for state in evenest)))
        rng.shuffle(candidates)
        reached.played += len(candidates)
        for hands, _ in never_ending(candidates, rules):
            child = find_loop(Deal(hands), rules, loop.key)
            if child is not None and child.key not in reached.cycles:
                reached.cycles.add(child.key)
                current = child
                break
    return reached


def _walk(loop: Loop, rules: Rules, max_states: int, reached: Reached,
          ends: float | None, keep: int = 64) -> list[Hands]:
    """Best-first backwards from the cycle; updates ``reached``; the ``keep`` most even
    states of this walk (hands, the player to move first), most even first."""
    targets = [pack(hands, 0) for hands in loop.states]
    seen = set(targets)
    queue = [(_packed_gap(state), i, state) for i, state in enumerate(targets)]
    heapq.heapify(queue)
    popped = []
    count = len(queue)
    while queue and len(seen) < max_states:
        if ends is not None and count % 1024 == 0 and time.monotonic() >= ends:
            break
        item = heapq.heappop(queue)
        popped.append(item)
        for before in _engine.predecessors(item[2], rules.payments):
            if before in seen:
                continue
            seen.add(before)
            count += 1
            heapq.heappush(queue, (_packed_gap(before), count, before))
    reached.walked += len(seen)
    evenest: list[tuple[tuple[int, ...], ...]] = []
    for item in heapq.nsmallest(keep, popped + queue):
        hands, mover = unpack(item[2])
        evenest.append((hands[mover], hands[1 - mover]))
    best = heapq.nsmallest(1, popped + queue)[0][0]
    if best < reached.gap:
        reached.gap, reached.state = best, evenest[0]
    return evenest


def _packed_gap(state: tuple[int, ...]) -> int:
    sizes = (state[3], state[7])
    ideal = Rules.deal_sizes(sum(sizes), 2)
    return (abs(max(sizes) - ideal[0]) + abs(min(sizes) - ideal[1])) // 2


def shift_then_walk(loop: Loop, rules: Rules = STANDARD, seed: int = 0, seconds: float = 60.0,
                    max_states: int = 50_000) -> Reached:
    """Pieces moved, then backward play: a :func:`shift_climb` for half the time, then a
    best-first walk back (:func:`backward_balance`, no changes) from every cycle it met, most
    even state over all of them."""
    began = time.monotonic()
    climbed = shift_climb(loop, rules, seed, seconds / 2)
    reached = Reached(climbed.gap, climbed.state, set(climbed.cycles), climbed.played)
    ends = began + seconds
    for key in sorted(climbed.cycles):
        if time.monotonic() >= ends or reached.gap == 0:
            break
        cycle = find_loop(parse_deal(key, rules, "any"), rules)
        if cycle is None:
            continue
        walked = backward_balance(cycle, rules, max_states, ends - time.monotonic())
        reached.walked += walked.walked
        if walked.gap < reached.gap:
            reached.gap, reached.state = walked.gap, walked.state
    return reached
