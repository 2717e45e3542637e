"""Pieces of a cycle, and cycle families: which never-ending deals are really new.

A cycle's states hold the same cards, moved about. Following each physical card round the
cycle (:func:`card_states`: the cycle played with every card labelled, until the labelled
state repeats), some runs of cards stay together: the same cards, in the same order, in one
hand, in **every** state. Those maximal runs are the cycle's *pieces* (:func:`pieces`); a
card that travels alone is a piece of one card. Casella et al. (arXiv:2403.13855) reached a
balanced start by moving such pieces between hands.

In the cycles met so far pieces are single cards, nearly all: every pile interleaves both
hands' cards, so two cards are rarely next to each other again a trick later. What does
travel as a unit is a *pile*: the cards of one trick, taken together to the bottom of the
taker's hand. Two cycles are one *family* when one is the other with its pieces in another
order or one block of cards moved: that plays the same piles in another order (Casella's
cycle and its balanced variant with a ``--J`` block moved have the same 62 piles), or moves
plain cards from pile to pile. So a family is named by its :func:`signature`, the court
cards of each pile of one turn (:func:`tricks`) as a multiset, and :func:`family_of` hashes
it into a 12-digit id; :data:`KNOWN_FAMILIES` names the published cycles' families. Court
cards in another order (a king and a queen swapped) make another family.

>>> from dealsearch.games.beggar.notation import parse_deal
>>> casella = "---K---Q-KQAJ-----AAJ--J--/----------Q----KQ-J-----KA"
>>> family_of(casella) == KNOWN_FAMILIES["Casella"]
True
"""

from __future__ import annotations

import hashlib
import itertools
from collections import Counter
from collections.abc import Sequence
from functools import lru_cache
from math import gcd

from .notation import STANDARD, Deal, Rules, parse_deal
from .options import get_rules
from .reference import Trick, cycle_states, play_reference

Labelled = tuple[tuple[int, ...], ...]  # hands of card labels (positions in the first state)
MAX_TURNS = 64  # turns of the cycle followed until the labelled state repeats


def card_states(hands: Sequence[Sequence[int]], rules: Rules = STANDARD) -> list[Labelled]:
    """Every trick-boundary state of the cycle entered from ``hands`` (a state of it, the
    player to move first), with each card labelled by its place in ``hands`` (hand by hand),
    following the cards round until the labelled state repeats (cards of one class may swap
    places from one turn to the next) or :data:`MAX_TURNS` turns."""
    labels: list[list[int]] = []
    start = 0
    for hand in hands:
        labels.append(list(range(start, start + len(hand))))
        start += len(hand)
    first = cycle_states(Deal(tuple(map(tuple, hands))), rules)
    if first is None or first[0][1] != 0 or first[0][0] != tuple(map(tuple, hands)):
        raise ValueError("the hands are not a state of a cycle, the player to move first")
    period = len(first)
    states: list[Labelled] = [tuple(map(tuple, labels))]
    seen = {states[0]}
    trace: list[Labelled] = []

    def take(trick: Trick) -> None:  # the trick's cards, by label, to the taker's bottom
        taken = [labels[seat].pop(0) for seat, _ in trick.plays]
        if trick.taker is not None:
            labels[trick.taker].extend(taken)
            trace.append(tuple(map(tuple, labels)))

    deal = Deal(tuple(map(tuple, hands)))
    for _ in range(MAX_TURNS):  # each turn starts from the same hands by class
        trace.clear()
        play_reference(deal, rules, max_tricks=period, on_trick=take)
        for state in trace:
            if state == states[0]:
                return states
            if state not in seen:
                seen.add(state)
                states.append(state)
    return states


def pieces(hands: Sequence[Sequence[int]], rules: Rules = STANDARD) -> list[tuple[int, ...]]:
    """The cycle's pieces, as card classes, in the order they lie in ``hands`` (hand 1 top
    to bottom, then hand 2 ...): maximal runs of cards that lie together, in that order, in
    one hand, in every state of the cycle."""
    states = card_states(hands, rules)
    together = None
    for state in states:
        pairs = {(a, b) for hand in state for a, b in itertools.pairwise(hand)}
        together = pairs if together is None else together & pairs
    after = dict(together or ())
    classes = [card for hand in hands for card in hand]
    out = []
    for hand in states[0]:
        run: list[int] = []
        for label in hand:
            run.append(label)
            if label not in after:  # (a pair always together is together here too)
                out.append(tuple(classes[c] for c in run))
                run = []
        if run:
            out.append(tuple(classes[c] for c in run))
    return out


def tricks(hands: Sequence[Sequence[int]], rules: Rules = STANDARD) -> list[str]:
    """The piles of one turn of the cycle from ``hands`` (a state of it, the player to move
    first), each as the cards were played, in the rules' notation."""
    loop = cycle_states(Deal(tuple(map(tuple, hands))), rules)
    if loop is None:
        raise ValueError("the hands' game ends: they are not a state of a cycle")
    piles: list[str] = []
    play_reference(Deal(tuple(map(tuple, hands))), rules, max_tricks=len(loop),
                   on_trick=lambda trick: piles.append(
                       "".join(rules.symbols[card] for _, card in trick.plays)))
    return piles


def signature(hands: Sequence[Sequence[int]], rules: Rules = STANDARD) -> tuple[str, ...]:
    """The family's signature: the court cards of each pile of a turn (:func:`tricks`, the
    plain cards left out: moving a block of them only moves them to other piles), as a
    multiset, each count divided by their greatest common divisor (a cycle of two turns of
    the same piles is the same family), written ``courts*count`` and sorted."""
    plain = rules.symbols[0]
    counts = Counter(pile.replace(plain, "") for pile in tricks(hands, rules))
    divisor = gcd(*counts.values())
    return tuple(sorted(f"{courts}*{n // divisor}" for courts, n in counts.items()))


@lru_cache(maxsize=4096)
def family_of(deal: str, rules: Rules = STANDARD) -> str:
    """The 12-digit family id of the cycle that ``deal`` (a state of it, or any deal whose
    game enters it) goes round."""
    found = cycle_states(parse_deal(deal, rules, "any"), rules)
    if found is None:
        raise ValueError("the deal's game ends: it has no cycle")
    hands, mover = found[0]
    first = tuple(hands[(mover + i) % len(hands)] for i in range(len(hands)))
    text = f"{rules.name}:" + ",".join(signature(first, rules))
    return hashlib.blake2b(text.encode(), digest_size=6).hexdigest()


CASELLA = "---K---Q-KQAJ-----AAJ--J--/----------Q----KQ-J-----KA"
ZANOTTO = "00302020303100000310/00100200002000000010"  # Italian rules
#: The families of the published never-ending deals (Casella et al.'s standard cycle,
#: Zanotto's Italian one).
KNOWN_FAMILIES = {"Casella": family_of(CASELLA),
                  "Zanotto": family_of(ZANOTTO, get_rules("italian"))}


def known_family(family: str) -> str | None:
    """Whose published cycle's family ``family`` is, or None for a new family."""
    return next((name for name, known in KNOWN_FAMILIES.items() if known == family), None)
