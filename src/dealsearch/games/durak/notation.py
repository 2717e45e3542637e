"""Durak text: cards ([Cards]), deals and positions ([Deals]), and the row search deals and
mutates.

A **card** is a code ``(rank - 2) * 4 + suit`` (below).

A **deal** is the deck top card first; cards 1..6n go round-robin to the seats, card 6n+1 is
the trump card, put under the talon. The **row** is the same deal cut so that every hand is
one contiguous segment: hand 1, ..., hand n (6 cards each, order irrelevant), then the talon
in draw order with the trump card last. With 6 players on 36 cards the last card dealt (seat
6's) shows trump and stays in the hand, so the row ends with it: hand 6 is then segments
"hand 6" (5 cards) and "trump card" (1). Either way the trump suit is the suit of the row's
last card.

>>> from dealsearch.games.durak.options import DurakOptions
>>> options = DurakOptions()
>>> text = " ".join(format_cards(deck_cards(36)))
>>> row = parse_deal(text, options)
>>> format_cards(row[:6]), format_cards(row[-2:])
(['6C', '6H', '7C', '7H', '8C', '8H'], ['AS', '9C'])
>>> format_deal(row, options) == text
True
>>> name(card("TD")), value(card("6H"), trump=2) > value(card("AS"), trump=2)
('TD', True)
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from dealsearch.games.durak.options import DurakOptions
from dealsearch.plugin import GameError, Layout, Row

HAND = 6  # cards dealt to each seat


# ---------------------------------------------------------------- cards ([Cards])
# Durak cards ([Cards]) as codes: ``code = (rank - 2) * 4 + suit``.
#
# Ranks are 2..14 (ace 14), suits 0..3 for C D H S. Codes are the same for both decks (the
# 36-card deck is codes 16..51), and among non-trumps code order *is* value order (rank, then
# suit), which the compiled engine's bitmasks rely on.

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


@dataclass(frozen=True)
class Position:
    """A state at a bout boundary: what both engines start from.

    ``hands`` one tuple of card codes per seat; ``talon`` top first; ``attacker`` 0-based;
    ``first``: the next bout is the first bout.
    """

    hands: tuple[tuple[int, ...], ...]
    trump: int
    talon: tuple[int, ...]
    attacker: int
    first: bool


def deck_cards(size: int) -> list[int]:
    """The deck's card codes, ascending."""
    return deck(size)


def format_cards(codes: object) -> list[str]:
    """Card names of a sequence of codes."""
    return [name(int(c)) for c in codes]  # type: ignore[attr-defined]


def layout(options: DurakOptions) -> Layout:
    """Hands (unordered), then the talon in draw order with the trump card last."""
    n, size = options.players, options.deck
    codes = np.array(deck(size), dtype=np.uint8)
    talon = size - HAND * n
    names = [f"hand {seat + 1}" for seat in range(n)]
    if talon == 0:
        # 6 players, 36 cards: seat 6's last card shows trump; keep it last in the row.
        return Layout(codes, (HAND,) * (n - 1) + (HAND - 1, 1),
                      unordered=(True,) * n + (False,), names=(*names, "trump card"))
    return Layout(codes, (HAND,) * n + (talon,), unordered=(True,) * n + (False,),
                  names=(*names, "talon"))


def split_cards(text: str) -> list[int]:
    """Card codes from text: cards separated by spaces, commas or nothing.

    >>> format_cards(split_cards("10d,6C7♥ тs"))
    ['TD', '6C', '7H', 'AS']
    """
    codes: list[int] = []
    i, n = 0, len(text)
    while i < n:
        if text[i].isspace() or text[i] == ",":
            i += 1
            continue
        width = 2 if text.startswith("10", i) else 1
        rank_text, suit_text = text[i:i + width], text[i + width:i + width + 1]
        number = len(codes) + 1
        try:
            rank_number = parse_rank(rank_text)
        except ValueError:
            raise GameError(f"bad rank {rank_text!r} in card {number}") from None
        if not suit_text or suit_text.isspace() or suit_text == ",":
            raise GameError(f"card {number} ({rank_text!r}) has no suit")
        try:
            suit_number = parse_suit(suit_text)
        except ValueError:
            raise GameError(f"bad suit {suit_text!r} in card {number} "
                            f"({rank_text}{suit_text})") from None
        codes.append(code(rank_number, suit_number))
        i += width + 1
    return codes


def _check_cards(codes: list[int], size: int, where: str = "") -> None:
    in_deck = set(deck(size))
    seen: set[int] = set()
    for c in codes:
        if c not in in_deck:
            raise GameError(f"card {name(c)}{where} is not in the {size}-card deck")
        if c in seen:
            raise GameError(f"card {name(c)} appears twice")
        seen.add(c)


def parse_deal(text: str, options: DurakOptions) -> Row:
    """A deal (the deck top first) as a row; :class:`GameError` naming what is wrong."""
    codes = split_cards(text)
    size = options.deck
    _check_cards(codes, size)
    if len(codes) < size:
        missing = sorted(set(deck(size)) - set(codes))
        listed = " ".join(format_cards(missing[:5])) + (" ..." if len(missing) > 5 else "")
        raise GameError(f"{len(missing)} card(s) missing from the {size}-card deal: {listed}")
    return deal_to_row(codes, options.players)


def deal_to_row(codes: list[int], players: int) -> Row:
    """Deck order (top first) to the row: hands, then talon with the trump card last."""
    dealt = HAND * players
    hands = [codes[seat:dealt:players] for seat in range(players)]
    talon = codes[dealt + 1:] + codes[dealt:dealt + 1]
    return np.array([c for hand in hands for c in hand] + talon, dtype=np.uint8)


def row_to_deal(row: Row, players: int) -> list[int]:
    """The row back to deck order (top first): the inverse of :func:`deal_to_row`."""
    codes = [int(c) for c in row]
    dealt = HAND * players
    order = [0] * dealt
    for seat in range(players):
        for j in range(HAND):
            order[j * players + seat] = codes[seat * HAND + j]
    if len(codes) == dealt:
        return order
    return [*order, codes[-1], *codes[dealt:-1]]


def format_deal(row: Row, options: DurakOptions) -> str:
    """The deal text of a row (cards top first, separated by single spaces)."""
    return " ".join(format_cards(row_to_deal(row, options.players)))


def row_position(row: Row, options: DurakOptions) -> Position:
    """The starting position of a dealt row: first attacker = lowest trump's holder ([Deals])."""
    codes = [int(c) for c in row]
    n = options.players
    trump = suit(codes[-1])
    hands = tuple(tuple(codes[seat * HAND:(seat + 1) * HAND]) for seat in range(n))
    attacker, lowest = 0, None
    for seat, hand in enumerate(hands):
        for c in hand:
            if suit(c) == trump and (lowest is None or c < lowest):
                attacker, lowest = seat, c
    return Position(hands, trump, tuple(codes[HAND * n:]), attacker, True)


FIELDS = ("hands", "trump", "talon", "attacker", "first")


def parse_position(text: str, options: DurakOptions) -> Position:
    """A position ``hands=...; trump=...; talon=...; attacker=...; first=...`` ([Deals]).

    >>> p = parse_position("hands=9C AS/KS/JD QS; trump=H; attacker=1",
    ...                    DurakOptions(players=3))
    >>> format_position(p)
    'hands=9C AS/KS/JD QS; trump=H; talon=-; attacker=1; first=no'
    """
    fields: dict[str, str] = {}
    for part in text.split(";"):
        if not part.strip():
            continue
        key, equals, value = part.partition("=")
        key = key.strip().lower()
        if not equals:
            raise GameError(f"position field {part.strip()!r} has no '='")
        if key not in FIELDS:
            raise GameError(f"unknown position field {key!r}: use {', '.join(FIELDS)}")
        if key in fields:
            raise GameError(f"position field {key!r} given twice")
        fields[key] = value.strip()
    for key in ("hands", "trump"):
        if key not in fields:
            raise GameError(f"position has no {key}= field")
    n = options.players
    hand_texts = fields["hands"].split("/")
    if len(hand_texts) != n:
        raise GameError(f"position has {len(hand_texts)} hands for {n} players")
    hands = tuple(tuple(_cards_or_dash(t, f"hand {seat + 1}"))
                  for seat, t in enumerate(hand_texts))
    try:
        trump = parse_suit(fields["trump"])
    except ValueError:
        raise GameError(f"bad trump suit {fields['trump']!r}: use C, D, H or S") from None
    talon = tuple(_cards_or_dash(fields.get("talon", ""), "talon"))
    _check_cards([c for hand in hands for c in hand] + list(talon), options.deck)
    attacker_text = fields.get("attacker", "1")
    # A seat is a few ASCII digits: checked before int() reads them (thousands of digits are
    # past what int() converts, and '²' is a digit int() refuses).
    if not (attacker_text.isascii() and attacker_text.isdigit() and len(attacker_text) <= 3
            and 1 <= int(attacker_text) <= n):
        raise GameError(f"attacker must be a seat 1 to {n}, not {attacker_text!r}")
    attacker = int(attacker_text) - 1
    first_text = fields.get("first", "no").lower()
    if first_text not in ("yes", "no"):
        raise GameError(f"first must be yes or no, not {first_text!r}")
    if talon:
        for seat, hand in enumerate(hands):
            if not hand:
                raise GameError(f"hand {seat + 1} is empty while the talon is not")
    if not hands[attacker]:
        raise GameError(f"attacker {attacker + 1} holds no cards")
    return Position(hands, trump, talon, attacker, first_text == "yes")


def _cards_or_dash(text: str, where: str) -> list[int]:
    """The cards of one part of a position; a bad card names the part (``hand 2: ...``)."""
    try:
        return [] if text.strip() in ("", "-") else split_cards(text)
    except GameError as error:
        raise GameError(f"{where}: {error}") from None


def format_position(position: Position) -> str:
    """The canonical text of a position (hands by value, empty parts written ``-``)."""
    def listed(codes: tuple[int, ...]) -> str:
        ordered = sorted(codes, key=lambda c: value(c, position.trump))
        return " ".join(format_cards(ordered)) or "-"

    hands = "/".join(listed(hand) for hand in position.hands)
    return (f"hands={hands}; trump={SUITS[position.trump]}; "
            f"talon={' '.join(format_cards(position.talon)) or '-'}; "
            f"attacker={position.attacker + 1}; first={'yes' if position.first else 'no'}")


def is_position(text: str) -> bool:
    """Whether text is a position (it has ``field=value`` parts) rather than a deal."""
    return "=" in text


def random_rows(options: DurakOptions, n: int, seed: int) -> npt.NDArray[np.uint8]:
    """``n`` seeded random rows (uniform deals) under ``options``.

    >>> random_rows(DurakOptions(players=3), 2, seed=1).shape
    (2, 36)
    """
    rng = np.random.default_rng(seed)
    codes = layout(options).deck
    return np.array([rng.permutation(codes) for _ in range(n)], dtype=np.uint8).reshape(
        n, len(codes))
