"""Deprecated: the cards are in :mod:`dealsearch.games.durak.notation` (this module re-exports
them, with a ``DeprecationWarning``)."""

from ..._moved import moved_module
from .notation import (
    RANKS,
    RUSSIAN_RANKS,
    SUIT_SYMBOLS,
    SUITS,
    beats,
    card,
    code,
    deck,
    name,
    parse_rank,
    parse_suit,
    rank,
    suit,
    value,
)

moved_module(__name__, "dealsearch.games.durak.notation")

__all__ = ["RANKS", "RUSSIAN_RANKS", "SUITS", "SUIT_SYMBOLS", "beats", "card", "code", "deck",
           "name", "parse_rank", "parse_suit", "rank", "suit", "value"]
