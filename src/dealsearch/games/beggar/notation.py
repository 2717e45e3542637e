"""Read and write deals in every notation of docs/games/beggar.md, [The cards]; every input error
is born here.

Accepted, per hand (top card first), hands separated by ``/``, a newline or whitespace:

- compact: ``-`` for a plain card and the court symbols (``AKQJ``; Italian ``0123``);
- full cards: ``KH 4C QS``, ``K♥ 4♣ Q♠``, ``10D``, ``TD`` (separate such hands by ``/``);
- rank strings without separators: ``2A78Q10`` (``10`` is one card);
- Russian letters: Т (ace), К (king), Д (queen), В (jack).

>>> format_deal(parse_deal("2A78Q10/3456K9J", deck="any"))
'-A--Q-/----K-J'
"""

from __future__ import annotations

import re
from functools import cache

from ...game import GameError
from .deal import Deal
from .rules import MAX_CARDS, MAX_PLAYERS, MIN_PLAYERS, STANDARD, Rules

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
            f"{MAX_PLAYERS} hands, separated by '/'"
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
