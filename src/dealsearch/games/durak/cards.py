"""Durak cards ([Cards]) as codes: ``code = (rank - 2) * 4 + suit``.

Ranks are 2..14 (ace 14), suits 0..3 for C D H S. Codes are the same for both decks (the
36-card deck is codes 16..51), and among non-trumps code order *is* value order (rank, then
suit), which the compiled engine's bitmasks rely on.

>>> name(card("TD")), value(card("6H"), trump=2) > value(card("AS"), trump=2)
('TD', True)
"""

from __future__ import annotations

SUITS = "CDHS"
RANKS = "23456789TJQKA"
SUIT_SYMBOLS = {"♣": 0, "♦": 1, "♥": 2, "♠": 3}
# Cyrillic Т is the ace (туз); Latin T is the ten.
RUSSIAN_RANKS = {"В": 11, "Д": 12, "К": 13, "Т": 14}


def code(rank: int, suit: int) -> int:
    """The code of a card of ``rank`` (2..14) and ``suit`` (0..3)."""
    return (rank - 2) * 4 + suit


def rank(card_code: int) -> int:
    """The rank 2..14 of a card code."""
    return card_code // 4 + 2


def suit(card_code: int) -> int:
    """The suit 0..3 (C D H S) of a card code."""
    return card_code % 4


def name(card_code: int) -> str:
    """The card as printed: ``TD``, ``6C``."""
    return RANKS[rank(card_code) - 2] + SUITS[suit(card_code)]


def deck(size: int) -> list[int]:
    """The codes of the 36- or 52-card deck, ascending."""
    low = 6 if size == 36 else 2
    return [code(r, s) for r in range(low, 15) for s in range(4)]


def value(card_code: int, trump: int) -> tuple[bool, int, int]:
    """What "lowest" compares ([Cards]): (is trump, rank, suit)."""
    return (suit(card_code) == trump, rank(card_code), suit(card_code))


def beats(upper: int, lower: int, trump: int) -> bool:
    """Whether card ``upper`` beats card ``lower`` ([Cards])."""
    if suit(upper) == suit(lower):
        return rank(upper) > rank(lower)
    return suit(upper) == trump


def card(text: str) -> int:
    """A card code from its text (``TD``, ``10d``, ``Т♠``); ``ValueError`` if malformed."""
    text = text.strip()
    rank_text, suit_text = text[:-1], text[-1:]
    return code(parse_rank(rank_text), parse_suit(suit_text))


def parse_rank(text: str) -> int:
    """Rank 2..14 from ``2``-``9``, ``T``/``10``, ``J Q K A`` or Cyrillic ``В Д К Т``."""
    upper = text.upper()
    if upper == "10":
        return 10
    if len(upper) == 1 and upper in RANKS:
        return RANKS.index(upper) + 2
    if upper in RUSSIAN_RANKS:
        return RUSSIAN_RANKS[upper]
    raise ValueError(f"bad rank {text!r}")


def parse_suit(text: str) -> int:
    """Suit 0..3 from ``C D H S`` (either case) or ``♣ ♦ ♥ ♠``."""
    if len(text) == 1 and text.upper() in SUITS:
        return SUITS.index(text.upper())
    if text in SUIT_SYMBOLS:
        return SUIT_SYMBOLS[text]
    raise ValueError(f"bad suit {text!r}")
