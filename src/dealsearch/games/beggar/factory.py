"""The cycle factory: build never-ending deals by growing small cycles card by card.

A never-ending game runs round a *cycle* of trick-boundary states. The factory starts from the
cycles of a small deck (:func:`seed_loops` plays every deal of it) and changes them: it takes a
state of a cycle, changes it by one or two moves (insert a card of any class anywhere, insert
a block such as ``-J-``, one card into each of two hands, change a card's class, remove a card,
move a card; :func:`sample_moves`) and plays the new state as a deal, the player to move first
(:func:`never_ending`, compiled, in batches). Each new state whose game never ends leads to a
new cycle, a node of the search (:func:`expand`). Cycles are rigid (most moves end the game,
and a cycle's neighbours are few), so the search is best-first on the :func:`distance` of a
cycle's deck to the target deck, with a penalty for crowding one deck make-up, and it may
overshoot a class (extra jacks from ``-J-`` blocks) and change those cards back later. Near
the target it also tries every move that brings the deck one card closer
(:func:`closer_moves`). Every cycle met is remembered, so none is expanded twice. Cycles of
exactly the target deck are yielded by :func:`~.factory_run.grow`; :func:`starting_deals`
finds the starting deals (26/26 for two players) that enter one, among its own states and
walking backwards.

The rules are the rules page's throughout: every candidate is played by the compiled engine
(:func:`~dealsearch.games.beggar.engine.play_batch`) and every cycle is read off by the reference
engine.

>>> from dealsearch.games.beggar.notation import parse_deck
>>> import random
>>> seeds = seed_loops(parse_deck("------JJQQK"))
>>> len(seeds), seeds[0].period_tricks
(3, 6)
>>> child = next(iter(expand(seeds[0], STANDARD.deck, random.Random(1), set(), samples=400)))
>>> child.cards > seeds[0].cards, play(child.deal(), STANDARD).outcome
(True, 'cycle')
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field

import numpy as np

from ...plugin import count_deals, permutation_block, unrank
from .engine import play, play_batch
from .notation import MAX_CARDS, STANDARD, Deal, Rules, format_deal, format_hand
from .reference import cycle_states
from .reverse import basin

Hands = tuple[tuple[int, ...], ...]

MAX_SEED_DEALS = 2_000_000  # a seed deck is played exhaustively: keep it small
_BATCH = 8192
MAX_GAME = 20_000  # cards: a candidate whose game has not repeated a state by then is dropped


@dataclass(frozen=True)
class Loop:
    """A cycle of a never-ending game, as the factory keeps it.

    Attributes:
        states: every trick-boundary state of the cycle (hands, the player to move first),
            in the order they are played, none with an empty hand.
        key: the canonical form of the cycle (the smallest state in compact notation, as
            :func:`dealsearch.games.beggar.catalogue.cycle_key` writes it).
        period_cards, period_tricks: one turn of the cycle.
        parent: the key of the cycle it was grown from ("" for a seed).
    """

    states: tuple[Hands, ...]
    key: str
    period_cards: int
    period_tricks: int
    parent: str = ""

    @property
    def cards(self) -> int:
        """Cards in play."""
        return sum(map(len, self.states[0]))

    @property
    def players(self) -> int:
        """Number of hands."""
        return len(self.states[0])

    def counts(self, n_classes: int) -> tuple[int, ...]:
        """How many cards of each class the cycle holds."""
        return Deal(self.states[0]).class_counts(n_classes)

    def imbalance(self) -> int:
        """Cards to move between hands, in the cycle's most even state, for the hands to be
        dealt sizes (the player to move holding the first, biggest hand): 0 when some state
        of the cycle is itself a starting deal.

        >>> Loop(((((0, 1), (0, 0, 0, 0)),)), "", 0, 0).imbalance()
        1
        """
        ideal = Rules.deal_sizes(self.cards, self.players)
        return min(sum(abs(len(hand) - size) for hand, size in zip(hands, ideal, strict=True))
                   for hands in self.states) // 2

    def deal(self) -> Deal:
        """The first state of the cycle as a deal (the player to move leads): it never ends."""
        return Deal(self.states[0])


def find_loop(deal: Deal, rules: Rules = STANDARD, parent: str = "") -> Loop | None:
    """The cycle ``deal``'s game enters, or None if the game ends.

    >>> from dealsearch.games.beggar.notation import parse_deal
    >>> find_loop(parse_deal("---K---Q-KQAJ-----AAJ--J--/----------Q----KQ-J-----KA")).period_tricks
    62
    """
    states = cycle_states(deal, rules)
    if states is None:
        return None
    seats = deal.players
    first = [tuple(hands[(mover + i) % seats] for i in range(seats)) for hands, mover in states]
    key = min("/".join(format_hand(hand, rules) for hand in hands) for hands in first)
    usable = tuple(hands for hands in first if all(hands))
    if not usable:  # only possible with 3+ players, one of them out: not a game of `seats`
        return None
    result = play(Deal(usable[0]), rules)
    assert result.outcome == "cycle"  # a state of a cycle: its game is that cycle
    return Loop(usable, key, result.period["cards"], result.period["tricks"], parent)


def seed_loops(deck: tuple[int, ...], rules: Rules = STANDARD, players: int = 2) -> list[Loop]:
    """Every distinct cycle met by playing every deal of a small ``deck`` (class counts), dealt
    as the exhaustive search deals it; sorted by key.

    >>> [loop.key for loop in seed_loops((6, 2, 2, 1, 0))][:1]
    ['--J-/K-QQ-J-']
    """
    total = count_deals(deck)
    if total > MAX_SEED_DEALS:
        raise ValueError(f"the seed deck has {total} distinct deals; at most {MAX_SEED_DEALS} "
                         "are played: choose a smaller deck")
    small = rules.with_deck(deck)
    sizes = Rules.deal_sizes(sum(deck), players)
    if min(sizes) < 1:
        raise ValueError(f"{sum(deck)} cards cannot be dealt to {players} players")
    loops: dict[str, Loop] = {}
    first = np.array(unrank(0, deck), dtype=np.uint8)
    done = 0
    while done < total:
        take = min(_BATCH, total - done)
        rows = permutation_block(first, take + 1)
        block, first = rows[:take], rows[-1]
        batch = play_batch(block, small, players, sizes)
        for i in np.flatnonzero(batch.outcome == 1):
            loop = find_loop(_split(tuple(block[i]), sizes), rules)
            if loop is not None:
                loops.setdefault(loop.key, loop)
        done += take
    return sorted(loops.values(), key=lambda loop: loop.key)


def _split(row: tuple[int, ...], sizes: tuple[int, ...]) -> Deal:
    hands, start = [], 0
    for size in sizes:
        hands.append(tuple(int(card) for card in row[start:start + size]))
        start += size
    return Deal(tuple(hands))


# ----------------------------------------------------------------- moves

def _insert(hand: tuple[int, ...], position: int, piece: tuple[int, ...]) -> tuple[int, ...]:
    return hand[:position] + piece + hand[position:]


def distance(counts: tuple[int, ...], target: tuple[int, ...]) -> int:
    """How many cards differ between two decks (class counts): cards to add, remove or change.

    >>> distance((32, 8, 4, 4, 4), STANDARD.deck)
    8
    """
    return sum(abs(have - want) for have, want in zip(counts, target, strict=True))


# The mix of moves: (name, weight). Inserting grows the deck; changing a card's class, removing
# one or moving one explores decks of other make-ups and sizes, which the growth needs: cycles
# are rigid, so that a deck of the target make-up is usually reached by overshooting one class
# (e.g. extra jacks, from ``-J-`` blocks) and then changing those cards back.
MOVES = (("insert", 30), ("block", 15), ("pair", 10), ("change", 25), ("remove", 10),
         ("move", 10))


def _move(hands: list[tuple[int, ...]], kind: str, classes: int, rng: random.Random) -> None:
    seat = rng.randrange(len(hands))
    hand = hands[seat]
    if kind == "insert":
        hands[seat] = _insert(hand, rng.randrange(len(hand) + 1), (rng.randrange(classes),))
    elif kind == "block":  # a court card with numerals round it, as short cycles are made
        court = rng.randrange(1, classes)
        piece = rng.choice(((0, court, 0), (0, court), (court, 0), (0, 0)))
        hands[seat] = _insert(hand, rng.randrange(len(hand) + 1), piece)
    elif kind == "pair":
        for seat in rng.sample(range(len(hands)), 2):
            hands[seat] = _insert(hands[seat], rng.randrange(len(hands[seat]) + 1),
                                  (rng.randrange(classes),))
    elif kind == "change":
        position = rng.randrange(len(hand))
        hands[seat] = (*hand[:position], rng.randrange(classes), *hand[position + 1:])
    elif kind == "remove":
        position = rng.randrange(len(hand))
        hands[seat] = hand[:position] + hand[position + 1:]
    else:  # move one card to any place of any hand
        position = rng.randrange(len(hand))
        card = hand[position]
        hands[seat] = hand[:position] + hand[position + 1:]
        to = rng.randrange(len(hands))
        hands[to] = _insert(hands[to], rng.randrange(len(hands[to]) + 1), (card,))


def sample_moves(loop: Loop, target: tuple[int, ...], rng: random.Random, samples: int,
                 slack: int = 2, double: float = 0.4) -> set[Hands]:
    """Up to ``samples`` distinct new states, each made from a random state of ``loop`` (the
    player to move first) by one random move of :data:`MOVES`.

    A move inserts one card of any class anywhere, inserts a block (``-X-``, ``-X``, ``X-``,
    ``--``), inserts one card into each of two hands, changes one card's class, removes a card
    or moves a card elsewhere; a share ``double`` of the samples make two moves. States with
    an empty hand, more than ``slack`` cards over the size of ``target`` (class counts), or
    that are states of ``loop`` itself are left out.
    """
    names = [name for name, _ in MOVES]
    weights = [weight for _, weight in MOVES]
    limit = min(sum(target) + slack, MAX_CARDS)
    found: set[Hands] = set()
    own = set(loop.states)  # a move that changes nothing (or lands on the cycle) teaches nothing
    for _ in range(samples * 2):  # small decks repeat themselves: bounded retries
        if len(found) >= samples:
            break
        hands = list(rng.choice(loop.states))
        for _ in range(1 + (rng.random() < double)):
            _move(hands, rng.choices(names, weights)[0], len(target), rng)
            if not all(hands):
                break
        if all(hands) and sum(map(len, hands)) <= limit and tuple(hands) not in own:
            found.add(tuple(hands))
    return found


def closer_moves(loop: Loop, target: tuple[int, ...]) -> set[Hands]:
    """Every state one move nearer to the ``target`` deck than ``loop``: a card of a class
    short of the target inserted anywhere, a card of a class over it removed, or changed into a
    class short of it, in every state of the cycle (used near the end, where a random sample
    would miss the few moves that finish)."""
    counts = loop.counts(len(target))
    pairs = list(enumerate(zip(counts, target, strict=True)))
    short = [cls for cls, (have, want) in pairs if have < want]
    over = {cls for cls, (have, want) in pairs if have > want}
    found: set[Hands] = set()
    for state in loop.states:
        for seat, hand in enumerate(state):
            for position in range(len(hand) + 1):
                for cls in short:
                    found.add((*state[:seat], _insert(hand, position, (cls,)), *state[seat + 1:]))
                if position == len(hand) or hand[position] not in over:
                    continue
                for into in (*short, None):
                    new = hand[:position] + ((into,) if into is not None else ()) + \
                        hand[position + 1:]
                    if new:
                        found.add((*state[:seat], new, *state[seat + 1:]))
    return found


def never_ending(states: Iterable[Hands], rules: Rules = STANDARD,
                 max_cards: int | None = MAX_GAME) -> Iterator[tuple[Hands, tuple[int, int]]]:
    """The states whose game (played as a deal, hand 1 leading) is seen to never end within
    ``max_cards`` cards, each with its period (cards, tricks); played in compiled batches, one
    per set of hand sizes. (Near a cycle, many games run very long: the limit keeps a batch
    fast, at the price of missing cycles entered late.)"""
    groups: dict[tuple[int, ...], list[Hands]] = {}
    for hands in states:
        groups.setdefault(tuple(map(len, hands)), []).append(hands)
    for sizes, members in groups.items():
        rows = np.array([sum(hands, ()) for hands in members], dtype=np.uint8)
        batch = play_batch(rows, rules, len(sizes), sizes, max_cards)
        for i in np.flatnonzero(batch.outcome == 1):
            yield members[i], (int(batch.period[i, 0]), int(batch.period[i, 1]))


@dataclass
class FactoryStats:
    """What a factory run (:func:`~.factory_run.grow`) did so far."""

    nodes: int = 0            # cycles expanded
    restarts: int = 0         # searches started from the seeds
    played: int = 0           # candidate games played
    cycles: int = 0           # distinct cycles met (seeds included)
    nearest: int = 0          # smallest distance to the target deck met
    seconds: float = 0.0
    full: int = 0             # cycles of exactly the target deck
    periods: dict[int, int] = field(default_factory=dict)  # those per period (tricks)


def expand(loop: Loop, target: tuple[int, ...], rng: random.Random, seen: set[str],
           rules: Rules = STANDARD, samples: int = 4096, keep: int = 16,
           max_period: int = 1000, double: float = 0.4, finish: int = 4,
           stats: FactoryStats | None = None) -> list[Loop]:
    """New cycles one move from ``loop`` (see :func:`sample_moves`), nearest to ``target``
    first, at most ``keep`` of them and none longer than ``max_period`` tricks (reading a long
    cycle is slow). Within ``finish`` cards of the target, every :func:`closer_moves` state is
    tried as well. Their keys are added to ``seen``; cycles already in it are skipped."""
    moves = sample_moves(loop, target, rng, samples, double=double)
    if distance(loop.counts(len(target)), target) <= finish:
        moves |= closer_moves(loop, target)
    candidates = sorted(moves)  # sorted: a seeded run repeats
    if stats is not None:
        stats.played += len(candidates)
    by_period: dict[tuple[int, ...], Hands] = {}
    for hands, period in never_ending(candidates, rules):
        if period[1] > max_period:
            continue
        # Deals reaching one cycle share its deck and period: read one cycle per (deck,
        # period), with the reference engine, which is slow.
        counts = Deal(hands).class_counts(len(target))
        by_period.setdefault((distance(counts, target), *counts, *period), hands)
    children: list[Loop] = []
    for signature in sorted(by_period, key=lambda s: (s[0], rng.random())):
        child = find_loop(Deal(by_period[signature]), rules, loop.key)
        if child is None or child.key in seen:
            continue
        seen.add(child.key)
        children.append(child)
        if len(children) >= keep:
            break
    return children


def starting_deals(loop: Loop, rules: Rules = STANDARD, max_states: int = 20_000
                   ) -> list[str]:
    """Starting deals (cards dealt as evenly as possible, hand 1 holding the most and leading)
    whose game enters the cycle, in compact notation: the cycle's own states of those sizes,
    and, for two players, every one found walking backwards from the cycle (at most
    ``max_states`` states; :func:`dealsearch.games.beggar.reverse.basin`).

    >>> from dealsearch.games.beggar.notation import parse_deal
    >>> loop = find_loop(parse_deal("---K---Q-KQAJ-----AAJ--J--/----------Q----KQ-J-----KA"))
    >>> len(starting_deals(loop))
    30
    """
    sizes = Rules.deal_sizes(loop.cards, loop.players)
    starts = {format_deal(Deal(hands), rules) for hands in loop.states
              if tuple(map(len, hands)) == sizes}
    if loop.players == 2:
        starts.update(basin(loop.deal(), rules, max_states).starts)
    return sorted(starts)
