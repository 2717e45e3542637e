"""The rules in a page of Python, card by card: slow, short and obviously right.

This is the yardstick of correctness (the compiled engine must agree with it to the card) and
the source of ``dealsearch verify --trace``, which wants to see every card.

>>> from dealsearch.games.beggar.notation import parse_deal
>>> play_reference(parse_deal("-" * 26 + "/" + "-" * 26, deck="any")).cards
52
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field

from .engine import BeggarResult
from .notation import STANDARD, Deal, Rules


@dataclass
class Trick:
    """One pile, as the trace shows it (seats are 0-based here)."""

    plays: list[tuple[int, int]] = field(default_factory=list)  # (seat, card class), in order
    went_out: list[int] = field(default_factory=list)
    taker: int | None = None  # who took the pile; None if the game stopped with it in play
    hand_sizes: tuple[int, ...] = ()  # after the pile was taken


def play_reference(
    deal: Deal,
    rules: Rules = STANDARD,
    max_cards: int | None = None,
    max_tricks: int | None = None,
    on_trick: Callable[[Trick], None] | None = None,
) -> BeggarResult:
    """Play ``deal`` card by card under ``rules`` (docs/games/beggar.md, [Play]); see
    :class:`~dealsearch.games.beggar.engine.BeggarResult`."""
    hands = [deque(hand) for hand in deal.hands]
    seats = len(hands)
    total = sum(map(len, hands))
    alive = [True] * seats
    out: list[int] = []
    pile: list[int] = []
    cards = tricks = owed = 0
    owner = to_move = 0  # owner: who played the court card being paid for
    seen = {_state(hands, to_move): (0, 0)}
    trick = Trick()

    def next_alive(seat: int) -> int:
        seat = (seat + 1) % seats
        while not alive[seat]:
            seat = (seat + 1) % seats
        return seat

    def limit_reached() -> bool:
        return (max_cards is not None and cards >= max_cards) or (
            max_tricks is not None and tricks >= max_tricks)

    def finish(outcome: str, winner: int | None,
               cycle: tuple[tuple[int, int], tuple[int, int]] | None = None) -> BeggarResult:
        if on_trick and trick.plays:
            trick.hand_sizes = tuple(map(len, hands))
            on_trick(trick)
        won = None if winner is None else winner + 1
        entry, period = cycle or (None, None)
        return BeggarResult.of(outcome, won, cards, tricks, tuple(s + 1 for s in out), entry,
                               period)

    while True:
        if not hands[to_move]:  # must turn a card and has none: out, and the duty passes on
            alive[to_move] = False
            out.append(to_move)
            trick.went_out.append(to_move)
            if alive.count(True) == 1:  # the last one left takes the pile
                last = alive.index(True)
                outcome = "limit" if limit_reached() else "win"  # before this last pile
                if pile:
                    hands[last].extend(pile)
                    tricks += 1
                    trick.taker = last
                return finish(outcome, last)
            to_move = next_alive(to_move)
            continue
        card = hands[to_move].popleft()
        pile.append(card)
        trick.plays.append((to_move, card))
        cards += 1
        if rules.payments[card]:
            owner, owed = to_move, rules.payments[card]
            to_move = next_alive(to_move)
        elif not owed:
            to_move = next_alive(to_move)
        else:
            owed -= 1
            if owed:
                continue
            hands[owner].extend(pile)
            pile.clear()
            tricks += 1
            to_move = owner
            trick.taker = owner
            trick.hand_sizes = tuple(map(len, hands))
            if on_trick:
                on_trick(trick)
            trick = Trick()
            if len(hands[owner]) == total:  # holds every card: over, no further lead
                empty = [s for s in range(owner + 1, owner + seats) if alive[s % seats]]
                out.extend(s % seats for s in empty)
                return finish("limit" if limit_reached() else "win", owner)
            if limit_reached():
                sizes = [len(hand) for hand in hands]
                most = max(sizes)
                return finish("limit", sizes.index(most) if sizes.count(most) == 1 else None)
            state = _state(hands, to_move)
            if state in seen:
                entry_cards, entry_tricks = seen[state]
                return finish("cycle", None, ((entry_cards, entry_tricks),
                                              (cards - entry_cards, tricks - entry_tricks)))
            seen[state] = (cards, tricks)


def _state(hands: list[deque[int]], to_move: int) -> tuple[object, ...]:
    return (to_move, *(tuple(hand) for hand in hands))


def trick_states(
    deal: Deal, rules: Rules = STANDARD, max_tricks: int | None = None
) -> list[tuple[tuple[tuple[int, ...], ...], int]]:
    """The trick-boundary states of ``deal``'s game: (hands, seat to move), the deal first.

    Runs to the first repeated state (a cycle), the end, or ``max_tricks`` tricks; a state in
    which one player holds every card (the game is over) is left out.
    """
    hands = [list(hand) for hand in deal.hands]
    states = [(deal.hands, 0)]

    def take(trick: Trick) -> None:
        for seat, _ in trick.plays:
            hands[seat].pop(0)
        if trick.taker is not None:
            hands[trick.taker].extend(card for _, card in trick.plays)
            if sum(map(bool, hands)) > 1:
                states.append((tuple(map(tuple, hands)), trick.taker))

    play_reference(deal, rules, max_tricks=max_tricks, on_trick=take)
    return states


def cycle_states(
    deal: Deal, rules: Rules = STANDARD
) -> list[tuple[tuple[tuple[int, ...], ...], int]] | None:
    """The trick-boundary states of the cycle ``deal``'s game enters (None if it ends).

    :func:`trick_states` stops at the first repeated state, so the cycle runs from that state's
    first occurrence to just before its repeat.
    """
    states = trick_states(deal, rules)
    first = states.index(states[-1])
    return states[first:-1] if first < len(states) - 1 else None
