"""Read and write deals in every notation of docs/games/beggar.md, [The cards]; every input error
is born here.

Accepted, per hand (top card first), hands separated by ``/``, a newline or whitespace:

- compact: ``-`` for a plain card and the court symbols (``AKQJ``; Italian ``0123``);
- full cards: ``KH 4C QS``, ``K♥ 4♣ Q♠``, ``10D``, ``TD`` (separate such hands by ``/``);
- rank strings without separators: ``2A78Q10`` (``10`` is one card);
- Russian letters: Т (ace), К (king), Д (queen), В (jack).

A card is just its *class*: suits never matter and numerals are interchangeable, so class 0 is
a plain card (a numeral) and every other class is a court card demanding ``payments[class]``
cards. :class:`Rules` holds a variant's classes (symbols, names, payments, deck); the presets
:data:`STANDARD` and :data:`ITALIAN` are the rules option's choices
(:data:`dealsearch.games.beggar.options.PRESETS`). A :class:`Deal` is the hands as card
classes.

>>> format_deal(parse_deal("2A78Q10/3456K9J", deck="any"))
'-A--Q-/----K-J'
>>> STANDARD.payments
(0, 1, 2, 3, 4)
>>> STANDARD.deal_sizes(52, 3)
(18, 17, 17)
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from functools import cache
from typing import Protocol

import numpy as np
import numpy.typing as npt

from ...plugin import GameError

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


@dataclass(frozen=True)
class Deal:
    """The starting hands. ``hands[0]`` leads; ``hands[s][0]`` is the first card seat ``s`` turns.

    Cards are class numbers under some :class:`Rules`
    (0 = plain card).

    >>> Deal(((0, 4), (1, 0))).hand_sizes
    (2, 2)
    """

    hands: tuple[tuple[int, ...], ...]

    @property
    def players(self) -> int:
        """Number of hands (players)."""
        return len(self.hands)

    @property
    def hand_sizes(self) -> tuple[int, ...]:
        """Cards in each hand."""
        return tuple(len(hand) for hand in self.hands)

    @property
    def cards(self) -> tuple[int, ...]:
        """All cards, hand 1 first: the row layout of :func:`.engine.play_batch`."""
        return tuple(card for hand in self.hands for card in hand)

    def class_counts(self, n_classes: int) -> tuple[int, ...]:
        """How many cards of each class the deal holds."""
        counts = [0] * n_classes
        for card in self.cards:
            counts[card] += 1
        return tuple(counts)


SUITS = "HDCS♥♦♣♠♡♢♧♤"


class DealError(GameError):
    """A deal or deck that cannot be read; the message names what is wrong and where."""


@cache
def _card_pattern(rules: Rules) -> re.Pattern[str]:
    """One card: a rank token (longest first, so ``10`` beats ``1``) and an optional suit."""
    tokens = sorted(_symbol_table(rules), key=len, reverse=True)
    alternatives = "|".join(re.escape(t) for t in tokens)
    return re.compile(rf"({alternatives})[{SUITS}]?")


@cache
def _symbol_table(rules: Rules) -> dict[str, int]:
    table = {"-": 0, **rules.ranks}
    table.update({symbol: cls for cls, symbol in enumerate(rules.symbols)})
    return table


def _read_hand(text: str, rules: Rules, where: str) -> list[int]:
    """The classes of the cards in ``text``; ``where`` prefixes error messages."""
    original = "".join(text.split())
    text = original.upper()
    if len(text) != len(original):  # a character whose capital is longer: show capitals
        original = text
    pattern, table = _card_pattern(rules), _symbol_table(rules)
    cards: list[int] = []
    pos = 0
    while pos < len(text):
        match = pattern.match(text, pos)
        if match is None:
            bad = original[pos]
            raise DealError(f"{where}position {len(cards) + 1}: unknown card {bad!r}")
        cards.append(table[match.group(1)])
        pos = match.end()
    return cards


def _split_hands(text: str) -> list[str]:
    text = text.strip()
    if "/" in text:
        return [part.strip() for part in text.split("/")]
    if "\n" in text:
        return [line.strip() for line in text.splitlines() if line.strip()]
    parts = text.split()
    if any(re.fullmatch(rf"(10|[2-9TJQKA])[{SUITS}]", p.upper()) for p in parts):
        raise DealError("full-card hands must be separated by '/' or a newline")
    return parts


def parse_deal(text: str, rules: Rules = STANDARD, deck: str = "exact") -> Deal:
    """Read a deal in any accepted notation.

    Args:
        text: the deal, hand 1 first.
        rules: the variant whose cards and notation to use.
        deck: ``"exact"`` (the cards must be exactly ``rules.deck``) or ``"any"``
            (any cards of the variant, e.g. partial decks).

    Raises:
        DealError: one line naming what is wrong and where.

    >>> parse_deal("-A/K-", deck="any").hands
    ((0, 4), (3, 0))
    """
    if deck not in ("exact", "any"):
        raise DealError(f"unknown deck {deck!r}: choose exact or any")
    if not text.strip():
        raise DealError("empty deal")
    parts = _split_hands(text)
    if not MIN_PLAYERS <= len(parts) <= MAX_PLAYERS:
        raise DealError(
            f"{len(parts)} hand{'s' * (len(parts) != 1)}: a deal has {MIN_PLAYERS} to "
            f"{MAX_PLAYERS} hands, separated by '/'" + (", not '|'" if "|" in text else "")
        )
    hands = []
    for seat, part in enumerate(parts, 1):
        cards = _read_hand(part, rules, f"hand {seat}, ")
        if not cards:
            raise DealError(f"hand {seat} is empty")
        hands.append(tuple(cards))
    result = Deal(tuple(hands))
    total = len(result.cards)
    if total > MAX_CARDS:
        raise DealError(f"{total} cards: a deal holds at most {MAX_CARDS}")
    if deck == "exact":
        _check_deck(result.class_counts(len(rules.deck)), rules)
    return result


def _check_deck(counts: tuple[int, ...], rules: Rules) -> None:
    wrong = [
        f"{rules.class_count(cls, have)}, the deck has {want}"
        for cls, (have, want) in enumerate(zip(counts, rules.deck, strict=True))
        if have != want
    ]
    if wrong:
        hint = " (--deck any accepts any cards)"
        raise DealError("; ".join(wrong) + hint)


def parse_deck(text: str, rules: Rules = STANDARD) -> tuple[int, ...]:
    """Read a deck (one string of cards in any notation) as a count per class.

    >>> parse_deck("--------AKQJJ")
    (8, 2, 1, 1, 1)
    """
    cards = _read_hand(text, rules, "deck, ")
    if not cards:
        raise DealError("the deck is empty")
    if len(cards) > MAX_CARDS:
        raise DealError(f"{len(cards)} cards: a deck holds at most {MAX_CARDS}")
    counts = [0] * len(rules.symbols)
    for card in cards:
        counts[card] += 1
    return tuple(counts)


def format_hand(hand: tuple[int, ...] | list[int], rules: Rules = STANDARD) -> str:
    """One hand in compact notation."""
    return "".join(rules.symbols[card] for card in hand)


def format_deal(deal: Deal, rules: Rules = STANDARD) -> str:
    """A deal in compact notation, hands separated by ``/``."""
    return "/".join(format_hand(hand, rules) for hand in deal.hands)


class Decked(Protocol):
    """What dealing needs of the options (:class:`~.options.BeggarOptions` has it, and the
    options are built from this module, not the other way round)."""

    @property
    def deck(self) -> tuple[int, ...] | None:
        """A count per card class (``None``: any cards)."""
        ...


def random_rows(options: Decked, n: int, seed: int) -> npt.NDArray[np.uint8]:
    """``n`` uniformly random deals of the options' deck, one a row (as every game's
    ``notation.random_rows``); the same seed, the same deals.

    >>> from dealsearch.games.beggar.options import beggar_options
    >>> random_rows(beggar_options(), 2, seed=1).shape
    (2, 52)
    """
    if options.deck is None:
        raise GameError("random deals need a deck: these options take any cards")
    from . import _engine  # compiled; the notation itself is plain Python

    return _engine.random_rows(options.deck, n, seed)
