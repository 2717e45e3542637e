"""What the cards mean: payments per card class, the deck, and how a deck is dealt.

Suits never matter and numerals are interchangeable, so a card is just its *class*: class 0 is a
plain card (a numeral) and every other class is a court card demanding ``payments[class]`` cards.
The engine, the notation and the searches all read the game from a :class:`Rules` object, so a
variant is data, never a copy of the loop.

>>> STANDARD.payments
(0, 1, 2, 3, 4)
>>> STANDARD.deal_sizes(52, 3)
(18, 17, 17)
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from types import MappingProxyType

MAX_CARDS = 65_535  # the engines play any deal up to this size (64-bit planes up to 64 cards)
MAX_CLASSES = 8  # three bit-planes hold classes 0..7
MIN_PLAYERS, MAX_PLAYERS = 2, 4


@dataclass(frozen=True)
class Rules:
    """A Beggar-My-Neighbour variant: payments, deck and notation.

    Attributes:
        name: preset name (``standard``, ``italian``).
        symbols: compact symbol of each class; ``symbols[0]`` is the plain card.
        names: (singular, plural) name of each class, for error messages.
        payments: how many cards the next player owes for each class (0 for plain cards).
        deck: how many cards of each class the deck holds.
        ranks: every rank token the notation accepts (full cards, rank strings, Russian letters)
            and the class it belongs to.
    """

    name: str
    symbols: tuple[str, ...]
    names: tuple[tuple[str, str], ...]
    payments: tuple[int, ...]
    deck: tuple[int, ...]
    ranks: Mapping[str, int] = field(repr=False, compare=False)  # follows from the name

    def __post_init__(self) -> None:
        n = len(self.symbols)
        if not (len(self.names) == len(self.payments) == len(self.deck) == n):
            raise ValueError("symbols, names, payments and deck need one entry per class")
        if not 2 <= n <= MAX_CLASSES or self.payments[0] != 0:
            raise ValueError(f"need 2 to {MAX_CLASSES} classes, class 0 paying nothing")
        if any(p < 1 for p in self.payments[1:]):
            raise ValueError("every court class must demand at least one card")
        if sum(self.deck) > MAX_CARDS:
            raise ValueError(f"a deck holds at most {MAX_CARDS} cards")

    @property
    def deck_size(self) -> int:
        """Number of cards in the deck."""
        return sum(self.deck)

    def with_deck(self, deck: tuple[int, ...]) -> Rules:
        """The same game played with another multiset of cards (small decks for exhaustive study).

        >>> STANDARD.with_deck((8, 1, 2, 1, 1)).deck_size
        13
        """
        return replace(self, deck=tuple(deck))

    def class_count(self, cls: int, count: int) -> str:
        """``count`` cards of class ``cls`` in words: ``'5 aces'``, ``'1 jack'``."""
        singular, plural = self.names[cls]
        return f"{count} {singular if count == 1 else plural}"

    @staticmethod
    def deal_sizes(n_cards: int, players: int) -> tuple[int, ...]:
        """Hand sizes when ``n_cards`` are dealt one at a time from hand 1 (docs/games/beggar.md,
        [Play])."""
        base, extra = divmod(n_cards, players)
        return tuple(base + (seat < extra) for seat in range(players))


_NUMERAL_RANKS = {r: 0 for r in ("2", "3", "4", "5", "6", "7", "8", "9", "10", "T")}

STANDARD = Rules(
    name="standard",
    symbols=("-", "J", "Q", "K", "A"),
    names=(("numeral", "numerals"), ("jack", "jacks"), ("queen", "queens"), ("king", "kings"),
           ("ace", "aces")),
    payments=(0, 1, 2, 3, 4),
    deck=(36, 4, 4, 4, 4),
    # Russian: Т(уз) = ace, К(ороль) = king, Д(ама) = queen, В(алет) = jack.
    ranks=({**_NUMERAL_RANKS, "J": 1, "Q": 2, "K": 3, "A": 4,
                  "В": 1, "Д": 2, "К": 3, "Т": 4}),
)

# Camicia / Cavacamisa / Pelagaletto: 40 Italian cards (A, 2-7, J, Q, K); ace, two and three
# demand 1, 2 and 3 cards. Compact notation writes the class number itself.
ITALIAN = Rules(
    name="italian",
    symbols=("0", "1", "2", "3"),
    names=(("plain card", "plain cards"), ("ace", "aces"), ("two", "twos"), ("three", "threes")),
    payments=(0, 1, 2, 3),
    deck=(28, 4, 4, 4),
    ranks=({"A": 1, "2": 2, "3": 3, "4": 0, "5": 0, "6": 0, "7": 0, "J": 0, "Q": 0, "K": 0,
                  "Т": 1, "В": 0, "Д": 0, "К": 0}),
)

PRESETS: Mapping[str, Rules] = MappingProxyType({r.name: r for r in (STANDARD, ITALIAN)})


def get_rules(name: str) -> Rules:
    """The preset called ``name``; raises ``ValueError`` naming the choices."""
    try:
        return PRESETS[name]
    except KeyError:
        raise ValueError(
            f"unknown rules {name!r}: choose from {', '.join(PRESETS)}"
        ) from None
