"""Playing backwards: every deal that leads into a cycle, and longer games grown backwards.

Two players only (with more, who led a pile is no longer determined by its cards alone in the
same simple way; :func:`basin` refuses other deals). A state is a trick boundary: both hands and
the player to move, packed as the compiled
:func:`~dealsearch.games.beggar._engine.predecessors` wants it.

>>> from dealsearch.games.beggar.notation import parse_deal
>>> walk = basin(parse_deal("---K---Q-KQAJ-----AAJ--J--/----------Q----KQ-J-----KA"))
>>> walk.cycle_states, len(walk.starts)
(62, 30)
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

from . import _engine
from .engine import BeggarResult, play
from .notation import STANDARD, Deal, Rules, format_deal
from .reference import cycle_states, trick_states

State = tuple[int, ...]   # (3 planes + length) per hand, then the seat to move
MAX_CARDS = 64            # a packed hand is 64-bit planes: deals of at most 64 cards


def check_deal(deal: Deal) -> None:
    """``ValueError`` unless ``deal`` can be played backwards (2 hands, at most 64 cards)."""
    if deal.players != 2:
        raise ValueError(f"playing backwards needs a 2-player deal, not {deal.players} hands")
    if len(deal.cards) > MAX_CARDS:
        raise ValueError(f"playing backwards takes deals of at most {MAX_CARDS} cards, not "
                         f"{len(deal.cards)}")


def pack(hands: tuple[tuple[int, ...], ...], to_move: int) -> State:
    """The packed state of two hands (card classes, top first) and the player to move."""
    packed: list[int] = []
    for hand in hands:
        planes = [0, 0, 0]
        for position, cls in enumerate(hand):
            for bit in range(3):
                planes[bit] |= ((cls >> bit) & 1) << position
        packed.extend((*planes, len(hand)))
    return (*packed, to_move)


def unpack(state: State) -> tuple[tuple[tuple[int, ...], ...], int]:
    """The hands and the player to move of a packed state."""
    hands = []
    for seat in range(2):
        planes, length = state[4 * seat:4 * seat + 3], state[4 * seat + 3]
        hands.append(tuple(sum(((planes[bit] >> i) & 1) << bit for bit in range(3))
                           for i in range(length)))
    return tuple(hands), state[8]


def starting_deal(state: State) -> Deal:
    """The state as a deal, the player to move written first (they lead)."""
    hands, to_move = unpack(state)
    return Deal((hands[to_move], hands[1 - to_move]))


def game_states(deal: Deal, rules: Rules = STANDARD, tricks: int | None = None) -> list[State]:
    """The packed trick-boundary states of ``deal``'s game (see :func:`trick_states`)."""
    return [pack(hands, to_move) for hands, to_move in trick_states(deal, rules, tricks)]


@dataclass
class Basin:
    """What walking backwards found."""

    cycle_states: int                       # 0 when the game ends (the walk starts at the deal)
    size: int = 0                           # states that lead into the cycle (or the deal)
    depth: int = 0                          # tricks from the farthest of them
    starts: list[str] = field(default_factory=list)  # valid starting deals, compact
    complete: bool = True                   # False if max_states cut the walk short

    def to_json(self) -> dict[str, object]:
        """The ``reverse --json`` summary."""
        return {"cycle_states": self.cycle_states, "basin": self.size, "depth": self.depth,
                "starts": self.starts, "complete": self.complete}


def walk_back(targets: list[State], rules: Rules = STANDARD, max_states: int | None = None,
              on_state: Callable[[int], None] | None = None) -> Iterator[tuple[State, int]]:
    """Every state that leads into ``targets`` (them included), with its distance in tricks,
    breadth first; stops after ``max_states`` states."""
    depth = dict.fromkeys(targets, 0)
    queue = deque(targets)
    yield from ((state, 0) for state in targets)
    while queue:
        state = queue.popleft()
        for before in _engine.predecessors(state, rules.payments):
            if before in depth:
                continue
            if max_states is not None and len(depth) >= max_states:
                return
            depth[before] = depth[state] + 1
            queue.append(before)
            if on_state:
                on_state(len(depth))
            yield before, depth[before]


def basin(deal: Deal, rules: Rules = STANDARD, max_states: int | None = None,
          on_state: Callable[[int], None] | None = None) -> Basin:
    """Walk backwards from the deal's cycle (or from the deal if its game ends)."""
    check_deal(deal)
    cycle = cycle_states(deal, rules)
    targets = [pack(*state) for state in cycle] if cycle else [pack(deal.hands, 0)]
    found = Basin(len(targets) if cycle else 0)
    sizes = Rules.deal_sizes(sum(deal.hand_sizes), 2)
    starts = set()
    for state, distance in walk_back(targets, rules, max_states, on_state):
        found.size += 1
        found.depth = max(found.depth, distance)
        if (state[3], state[7]) == sizes:
            starts.add(format_deal(starting_deal(state), rules))
    found.complete = max_states is None or found.size < max_states
    found.starts = sorted(starts)
    return found


def starts_from(target: State, rules: Rules = STANDARD, max_states: int = 100_000
                ) -> Iterator[tuple[str, Deal]]:
    """The distinct starting deals (hands of the dealt sizes) among the states that lead into
    ``target``, compact and as deals, in the order the walk back meets them."""
    sizes = Rules.deal_sizes(target[3] + target[7], 2)
    seen: set[str] = set()
    for state, _ in walk_back([target], rules, max_states):
        if (state[3], state[7]) != sizes:
            continue
        start = starting_deal(state)
        text = format_deal(start, rules)
        if text not in seen:
            seen.add(text)
            yield text, start


def longer_starts(deal: Deal, rules: Rules = STANDARD, tricks: int = 20,
                  max_states: int = 100_000) -> list[tuple[str, BeggarResult]]:
    """Starting deals found by walking back from the first ``tricks`` states of ``deal``'s game
    whose own game terminates and is longer (in cards) than ``deal``'s, longest first."""
    check_deal(deal)
    own = play(deal, rules)
    seen: set[str] = set()
    longer = []
    for target in game_states(deal, rules, tricks):
        for text, start in starts_from(target, rules, max_states):
            if text in seen:
                continue
            seen.add(text)
            result = play(start, rules)
            if result.outcome == "win" and result.cards > own.cards:
                longer.append((text, result))
    longer.sort(key=lambda item: -item[1].cards)
    return longer
