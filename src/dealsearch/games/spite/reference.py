"""Spite and Malice in plain Python, straight from docs/games/spite.md: the twin the tests trust.

Slow (a few hundred games a second) and meant to be read beside the contract (bracketed names
are sections of the rules page): the set-up ([The deal]), the piles ([Piles]), the turn
([A turn]), the end and the repetition ([The end]) and the two policies ([Policies]). The
compiled engine must agree with it on every count of every game.

>>> from dealsearch.games.spite.notation import parse_position
>>> game = Spite(parse_position('{"payoff": ["85", "47"], "hand": ["A7342", ""], '
...     '"side": [["","","",""], ["","","",""]], "centre": ["","","",""], '
...     '"stock": "QK5TJ689", "turn": 1}'), SpiteOptions())
>>> result = game.play()
>>> result.outcome, result.turns, result.cards, result.entry, result.period
('cycle', 6, 37, (4, 22), (2, 15))
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from .notation import (
    DECK1_CARDS,
    HAND_SIZE,
    JOKER,
    PILE_DONE,
    SLOTS,
    Position,
    Row,
    card_text,
)
from .options import SpiteOptions

Play = tuple[str, int, int]          # (source "p"/"h"/"s", side pile or hand card, slot)


def deal_position(row: Row) -> Position:
    """The position a deal builds ([The deal]): pay-off piles from deck 1, hands and stock from
    deck 2.

    >>> from dealsearch.games.spite.notation import card_text, parse_deal
    >>> p = deal_position(parse_deal("A23456789TJQK" * 4 + "/" + "A23456789TJQK*" * 4))
    >>> p.turn, card_text(p.hand[0]), card_text(p.hand[1]), card_text(p.stock[:3])
    (1, 'A3579', '2468T', 'JQK')
    """
    cards = [int(code) for code in row]
    deck1, deck2 = cards[:DECK1_CARDS], cards[DECK1_CARDS:]
    payoff = (tuple(deck1[:26]), tuple(deck1[26:]))
    first = 2 if payoff[1][0] > payoff[0][0] else 1           # equal ranks: seat 1
    hands = [tuple(sorted(deck2[0:10:2])), tuple(sorted(deck2[1:10:2]))]
    if first == 2:
        hands.reverse()
    empty = ((), (), (), ())
    return Position(payoff=payoff, hand=(hands[0], hands[1]), side=(empty, empty),
                    centre=empty, stock=tuple(deck2[10:]), turn=first)


@dataclass
class Outcome:
    """A game's end in the contract's terms ([The end]); ``entry``/``period`` are (turns, cards)."""

    outcome: str
    winner: int | None
    first: int
    turns: int
    cards: int
    discards: int
    piles: int
    payoff: tuple[int, int]
    entry: tuple[int, int] | None = None
    period: tuple[int, int] | None = None


class Spite:
    """One game in progress. Seats are 0 and 1 here (the contract's 1 and 2)."""

    def __init__(self, position: Position, options: SpiteOptions) -> None:
        self.options = options
        self.payoff = [list(pile) for pile in position.payoff]             # top first
        self.hand = [list(hand) for hand in position.hand]
        self.side = [[list(pile) for pile in seat] for seat in position.side]  # bottom first
        self.centre = [list(pile) for pile in position.centre]             # bottom first
        self.stock = list(position.stock)                                  # top first
        self.gone: list[int] = []          # finished piles under recycle=none
        self.to_move = position.turn - 1
        self.first = position.turn
        self.turns = self.cards = self.discards = self.piles = 0
        self.log: list[str] = []           # the trace of the turn being played

    # -- the piles ([Piles]) ------------------------------------------------------------------

    def slot_for(self, rank: int) -> int | None:
        """The lowest-numbered slot a natural of ``rank`` fits (value rank - 1), if any."""
        return next((s for s, pile in enumerate(self.centre) if len(pile) == rank - 1), None)

    def may_discard(self, card: int, pile: list[int]) -> bool:
        """Whether ``card`` may go on the side pile ``pile`` ([Piles], side piles)."""
        if self.options.side_piles == "free" or not pile or card == JOKER or pile[-1] == JOKER:
            return True
        top = pile[-1]
        if (card, top) in ((2, 3), (1, 2)):          # only once the centre is built
            return all(self.centre)
        return top in (card, card + 1)

    def aces_available(self, seat: int) -> bool:
        """The ace obligation's test: an empty slot and an ace the player could play."""
        tops = [self.payoff[seat][0]] + [p[-1] for p in self.side[seat] if p]
        return not all(self.centre) and 1 in tops + self.hand[seat]

    # -- the turn ([A turn]) -------------------------------------------------------------------

    def draw(self, seat: int) -> None:
        drawn = self.stock[:HAND_SIZE - len(self.hand[seat])]
        del self.stock[:len(drawn)]
        self.hand[seat] += drawn
        if drawn:
            self.log.append(f"draws {card_text(drawn)}:")

    def play_card(self, seat: int, play: Play) -> bool:
        """Make one centre play with [A turn] 2a-c; true when it wins the game."""
        source, which, slot = play
        if source == "p":
            card = self.payoff[seat].pop(0)
        elif source == "h":
            card = which
            self.hand[seat].remove(card)
        else:
            card = self.side[seat][which].pop()
        pile = self.centre[slot]
        pile.append(card)
        self.cards += 1
        where = f"s{which + 1}" if source == "s" else source
        self.log.append(f"{card_text([card])}{where}>c{slot + 1}")
        if len(pile) == PILE_DONE:                                   # a: finished
            (self.stock if self.options.recycle == "bottom" else self.gone).extend(pile)
            self.centre[slot] = []
            self.piles += 1
            self.log.append(f"(c{slot + 1} finished)")
        if source == "p" and not self.payoff[seat]:                  # b: the win
            return True
        if not self.hand[seat]:                                      # c: draw again
            self.draw(seat)
        return False

    def turn(self) -> tuple[bool, bool]:
        """Play the turn of the seat to move: (idle, won)."""
        seat = self.to_move
        policy = POLICIES[self.options.policies[seat]]
        self.turns += 1
        self.log = [f"{self.turns}. s{seat + 1}"]
        self.draw(seat)
        moved = False
        while (play := policy.play(self, seat)) is not None:
            moved = True
            if self.play_card(seat, play):
                self.log.append("wins")
                return False, True
        assert not self.aces_available(seat), "a policy broke the ace obligation"
        discard = policy.discard(self, seat)
        if discard is not None:
            card, pile = discard
            assert self.may_discard(card, self.side[seat][pile])
            self.hand[seat].remove(card)
            self.side[seat][pile].append(card)
            self.cards += 1
            self.discards += 1
            moved = True
            self.log.append(f"{card_text([card])}>s{pile + 1}")
        if not moved:
            self.log.append("idle")
        return not moved, False

    # -- the end, the counts and the repetition ([The end]) ---------------------------------------

    def state(self, idle: bool) -> tuple[object, ...]:
        """The turn-boundary state of [The end] (the hand as a multiset: sorted)."""
        return (self.to_move, idle, tuple(map(tuple, self.payoff)),
                tuple(tuple(sorted(hand)) for hand in self.hand),
                tuple(tuple(map(tuple, seat)) for seat in self.side),
                tuple(map(tuple, self.centre)), tuple(self.stock))

    def outcome(self, outcome: str, winner: int | None = None) -> Outcome:
        left = (len(self.payoff[0]), len(self.payoff[1]))
        if outcome in ("stalemate", "limit") and left[0] != left[1]:
            winner = 1 if left[0] < left[1] else 2
        return Outcome(outcome, winner, self.first, self.turns, self.cards, self.discards,
                       self.piles, left)

    def position(self) -> Position:
        """The game now as a [Cards] position (meaningful at a turn boundary)."""
        def piles(seat: list[list[int]]) -> tuple[tuple[int, ...], ...]:
            return tuple(map(tuple, seat))

        return Position(
            payoff=(tuple(self.payoff[0]), tuple(self.payoff[1])),
            hand=(tuple(sorted(self.hand[0])), tuple(sorted(self.hand[1]))),
            side=(piles(self.side[0]), piles(self.side[1])),  # type: ignore[arg-type]
            centre=piles(self.centre), stock=tuple(self.stock),  # type: ignore[arg-type]
            turn=self.to_move + 1)

    def play(self, on_turn: Callable[[Spite, bool], None] | None = None) -> Outcome:
        """Play to the end. ``on_turn(game, idle)`` sees every turn boundary after the start
        (and the winning turn); the trace and the tests watch the game through it."""
        limit = self.options.max_turns
        seen = {self.state(False): (self.turns, self.cards)}
        if limit is not None and self.turns >= limit:
            return self.outcome("limit")
        last_idle = False
        while True:
            seat = self.to_move
            idle, won = self.turn()
            if not won:
                self.to_move = 1 - seat
            if on_turn is not None:
                on_turn(self, idle)
            if won:
                return self.outcome("win", seat + 1)
            if idle and last_idle:
                return self.outcome("stalemate")
            last_idle = idle
            state = self.state(idle)
            if state in seen:
                result = self.outcome("cycle")
                result.entry = seen[state]
                result.period = (self.turns - seen[state][0], self.cards - seen[state][1])
                return result
            seen[state] = (self.turns, self.cards)
            if limit is not None and self.turns >= limit:
                return self.outcome("limit")


# -- the policies ([Policies]), in the contract's words ------------------------------------

# Discard classes, best first: (top of the same rank, top one higher, empty, joker, other).
SAME, HIGHER, EMPTY, JOKER_TOP, OTHER = range(5)


def pile_class(card: int, pile: list[int]) -> int:
    if not pile:
        return EMPTY
    if pile[-1] == JOKER:
        return JOKER_TOP
    return {card: SAME, card + 1: HIGHER}.get(pile[-1], OTHER)


def joker_bridge(game: Spite, seat: int) -> Play | None:
    """Greedy 3: a joker to the slot of value r-2 that the pay-off top r needs."""
    rank = game.payoff[seat][0]
    slot = game.slot_for(rank - 1) if rank >= 2 else None
    if slot is None:
        return None
    for i, pile in enumerate(game.side[seat]):
        if pile and pile[-1] == JOKER:
            return ("s", i, slot)
    return ("h", JOKER, slot) if JOKER in game.hand[seat] else None


def joker_discard(game: Spite, seat: int) -> tuple[int, int] | None:
    """When no natural may be discarded: a joker on the first empty pile, else on the first
    pile with a joker on top, else on pile 1."""
    if JOKER not in game.hand[seat]:
        return None
    piles = game.side[seat]
    empty = [i for i, p in enumerate(piles) if not p]
    jokers = [i for i, p in enumerate(piles) if p and p[-1] == JOKER]
    return JOKER, (empty + jokers + [0])[0]


# cautious ranks the classes differently: one higher first, then the same rank.
CAUTIOUS_ORDER = {HIGHER: 0, SAME: 1, EMPTY: 2, JOKER_TOP: 3, OTHER: 4}


class Greedy:
    """``greedy``: the pay-off top, else the lowest natural that fits, else the bridge."""

    @staticmethod
    def play(game: Spite, seat: int) -> Play | None:
        top = game.payoff[seat][0]
        if (slot := game.slot_for(top)) is not None:
            return ("p", 0, slot)
        # (rank, side piles before the hand, lower-numbered pile first)
        candidates = [(p[-1], 0, i) for i, p in enumerate(game.side[seat])
                      if p and p[-1] != JOKER]
        candidates += [(card, 1, card) for card in game.hand[seat] if card != JOKER]
        fitting = sorted(c for c in candidates if game.slot_for(c[0]) is not None)
        if fitting:
            rank, from_hand, which = fitting[0]
            return ("h" if from_hand else "s", which, game.slot_for(rank))  # type: ignore
        return joker_bridge(game, seat)

    @staticmethod
    def discard(game: Spite, seat: int) -> tuple[int, int] | None:
        piles = game.side[seat]
        for card in sorted({c for c in game.hand[seat] if c != JOKER}, reverse=True):
            legal = [i for i in range(SLOTS) if game.may_discard(card, piles[i])]
            if legal:
                return card, min(legal, key=lambda i: (pile_class(card, piles[i]), i))
        return joker_discard(game, seat)


class Cautious:
    """``cautious``: never the natural one below the opponent's pay-off top."""

    @staticmethod
    def play(game: Spite, seat: int) -> Play | None:
        top = game.payoff[seat][0]
        if (slot := game.slot_for(top)) is not None:
            return ("p", 0, slot)
        piles, hand = game.side[seat], game.hand[seat]
        if (slot := game.slot_for(1)) is not None:                    # 2: an ace
            for i, pile in enumerate(piles):
                if pile and pile[-1] == 1:
                    return ("s", i, slot)
            if 1 in hand:
                return ("h", 1, slot)
        unsafe = game.payoff[1 - seat][0] - 1

        def safe(card: int) -> bool:
            return 2 <= card != JOKER and card != unsafe and game.slot_for(card) is not None

        for i, pile in enumerate(piles):                              # 3: a safe natural
            if pile and safe(pile[-1]):
                return ("s", i, game.slot_for(pile[-1]))  # type: ignore[return-value]
        cards = sorted(card for card in hand if safe(card))
        if cards:
            return ("h", cards[0], game.slot_for(cards[0]))  # type: ignore[return-value]
        return joker_bridge(game, seat)                               # 4: the bridge

    @staticmethod
    def discard(game: Spite, seat: int) -> tuple[int, int] | None:
        piles = game.side[seat]
        pairs = [(CAUTIOUS_ORDER[pile_class(card, piles[i])], -card, i)
                 for card in {c for c in game.hand[seat] if c != JOKER}
                 for i in range(SLOTS) if game.may_discard(card, piles[i])]
        if pairs:
            _, card, pile = min(pairs)
            return -card, pile
        return joker_discard(game, seat)


POLICIES: dict[str, type[Greedy] | type[Cautious]] = {"greedy": Greedy, "cautious": Cautious}


def play_position(position: Position, options: SpiteOptions) -> Outcome:
    """Play a position to its end."""
    return Spite(position, options).play()


def play_row(row: Row, options: SpiteOptions) -> Outcome:
    """Play a deal (a row) to its end."""
    return play_position(deal_position(row), options)


def cycle_positions(position: Position, options: SpiteOptions) -> list[Position] | None:
    """The positions of the cycle's turn-boundary states that follow a busy (not idle) turn,
    in order of play; None if the game ends."""
    outcome = play_position(position, options)
    if outcome.outcome != "cycle" or outcome.entry is None or outcome.period is None:
        return None
    start, stop = outcome.entry[0], outcome.entry[0] + outcome.period[0]
    found: list[Position] = []

    def collect(game: Spite, idle: bool) -> None:
        if start < game.turns <= stop and not idle:
            found.append(game.position())

    Spite(position, options).play(collect)
    return found


def trace_lines(position: Position, options: SpiteOptions) -> list[str]:
    """Every turn in the contract's trace notation, then the result line."""
    lines: list[str] = []
    game = Spite(position, options)

    def write(game: Spite, idle: bool) -> None:
        head, *rest = game.log
        joint = " " if rest and rest[0].startswith("draws") else ": "
        lines.append(head + joint + " ".join(rest))

    result = game.play(write)
    summary = f"{result.outcome}: winner {result.winner or 'none'}, turns {result.turns}, " \
        f"cards {result.cards}, discards {result.discards}, piles {result.piles}, " \
        f"payoff {result.payoff[0]}/{result.payoff[1]}"  # plain text, not a list repr
    if result.entry is not None and result.period is not None:
        summary += (f"; entry {result.entry[0]} turns / {result.entry[1]} cards, period "
                    f"{result.period[0]} turns / {result.period[1]} cards")
    return [*lines, summary]
