"""Small constructed Spite and Malice positions for the tests (docs/games/spite.md, [Cards])."""

from __future__ import annotations

import numpy as np

from dealsearch.games.spite.notation import JOKER, Position


def random_position(rng: np.random.Generator) -> Position:
    """A small constructed position of one of six flavours: a full centre, an empty stock,
    aces to play, blocked discards, many jokers, or plain."""
    flavour = int(rng.integers(6))

    def cards(n: int, jokers: float = 0.07) -> tuple[int, ...]:
        return tuple(JOKER if rng.random() < jokers else int(rng.integers(1, 14))
                     for _ in range(n))

    def small(top: int) -> int:
        return int(rng.integers(0, top + 1))

    payoff = [cards(1 + small(5), 0.0), cards(1 + small(5), 0.0)]
    hands = [list(cards(small(5))), list(cards(small(5)))]
    side = [[list(cards(small(3))) for _ in range(4)] for _ in range(2)]
    values = [small(12) for _ in range(4)]
    stock = list(cards(small(30)))
    joker_share = 0.2
    if flavour == 0:                                   # a full centre
        values = [1 + small(11) for _ in range(4)]
    elif flavour == 1:                                 # an empty stock
        stock = []
    elif flavour == 2:                                 # the ace obligation
        values[int(rng.integers(4))] = 0
        hands[0] = [1, *hands[0][:4]]
        side[0][int(rng.integers(4))].append(1)
        payoff[1] = (1, *payoff[1])
    elif flavour == 3:                                 # blocked discards
        side = [[[13, int(rng.integers(1, 3))] for _ in range(4)] for _ in range(2)]
        hands = [list(cards(5, 0.0)), list(cards(5, 0.0))]
    elif flavour == 4:                                 # jokers everywhere
        joker_share = 0.6
        hands = [list(cards(small(5), 0.4)), list(cards(small(5), 0.4))]
    centre = [tuple(JOKER if rng.random() < joker_share else i + 1 for i in range(v))
              for v in values]
    return Position(
        payoff=(payoff[0], payoff[1]),
        hand=(tuple(sorted(hands[0])), tuple(sorted(hands[1]))),
        side=tuple(tuple(map(tuple, seat)) for seat in side),  # type: ignore[arg-type]
        centre=tuple(centre),  # type: ignore[arg-type]
        stock=tuple(stock), turn=int(rng.integers(1, 3)))
