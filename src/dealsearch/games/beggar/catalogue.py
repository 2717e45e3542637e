"""A canonical identity for a cycle, so the log knows which never-ending deals share one.

Two deals share a cycle when their games reach the same loop of trick-boundary states. The
loop's identity is the smallest of its states in compact notation, with the seats rotated so
that the player to move comes first (the same cycle seen from either seat gets one id).

>>> from dealsearch.games.beggar.notation import parse_deal
>>> cycle_id(parse_deal("---K---Q-KQAJ-----AAJ--J--/----------Q----KQ-J-----KA"))
'c6fd3eaa240c'
"""

from __future__ import annotations

import hashlib

from .notation import STANDARD, Deal, Rules, format_hand
from .reference import cycle_states


def _seen_from_mover(hands: tuple[tuple[int, ...], ...], to_move: int, rules: Rules) -> str:
    seats = len(hands)
    return "/".join(format_hand(hands[(to_move + i) % seats], rules) for i in range(seats))


def cycle_key(deal: Deal, rules: Rules = STANDARD) -> str:
    """The canonical form of the cycle ``deal``'s game enters; ``ValueError`` if it ends."""
    states = cycle_states(deal, rules)
    if states is None:
        raise ValueError("the game ends: there is no cycle")
    return min(_seen_from_mover(hands, to_move, rules) for hands, to_move in states)


def key_id(key: str, rules: Rules = STANDARD) -> str:
    """A short stable id for a cycle key (a hash of the key and the rules' name)."""
    return hashlib.sha1(f"{rules.name}:{key}".encode()).hexdigest()[:12]


def cycle_id(deal: Deal, rules: Rules = STANDARD) -> str:
    """A short stable id of the cycle ``deal``'s game enters."""
    return key_id(cycle_key(deal, rules), rules)
