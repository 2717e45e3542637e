"""BMN options: the rules preset, players, deck, hand sizes and the agreed limit.

The rules presets (:data:`PRESETS`: the card tables of :mod:`~dealsearch.games.beggar.notation`
by name) are the ``rules`` option's choices.

>>> options = beggar_options(players=3)
>>> options.key()
'rules=standard;players=3;deck=36,4,4,4,4;hands=18/17/17;max_cards=none;max_tricks=none'
>>> beggar_options(**options.to_json()) == options
True
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property
from types import MappingProxyType
from typing import Any

from ...plugin import GameError, OptionSpec
from .notation import (
    ITALIAN,
    MAX_PLAYERS,
    MIN_PLAYERS,
    STANDARD,
    DealError,
    Rules,
    format_hand,
    parse_deck,
)

ANY_DECK = "any"   # verify: any cards of the rules (partial decks, exercise-style deals)

PRESETS: Mapping[str, Rules] = MappingProxyType({r.name: r for r in (STANDARD, ITALIAN)})


def get_rules(name: str) -> Rules:
    """The preset called ``name``; raises ``ValueError`` naming the choices.

    >>> get_rules("italian").payments
    (0, 1, 2, 3)
    """
    try:
        return PRESETS[name]
    except KeyError:
        raise ValueError(
            f"unknown rules {name!r}: choose from {', '.join(PRESETS)}"
        ) from None


def _positive(text: str) -> int:
    try:
        value = int(str(text).replace("_", ""))
    except ValueError:
        raise ValueError(f"{text!r} is not a whole number") from None
    if value < 1:
        raise ValueError(f"{text!r} must be at least 1")
    return value


def parse_sizes(text: str | Sequence[int]) -> tuple[int, ...]:
    """Hand sizes as ``27/25`` (or a sequence of numbers).

    >>> parse_sizes("27/25")
    (27, 25)
    """
    parts = text.split("/") if isinstance(text, str) else list(text)
    try:
        return tuple(int(part) for part in parts)
    except (TypeError, ValueError):
        raise GameError(f"bad hand sizes {text!r}: write e.g. 27/25") from None


OPTION_SPECS = (
    OptionSpec("rules", "payments, notation and deck (default: standard)", "standard",
               choices=tuple(sorted(PRESETS))),
    OptionSpec("players", "hands at the table, 2 to 4 (default 2)", None, parse=int,
               choices=tuple(str(n) for n in range(MIN_PLAYERS, MAX_PLAYERS + 1))),
    OptionSpec("deck", "the deck in compact notation (default: the rules' full deck; "
               "verify also takes 'exact' or 'any')", None),
    OptionSpec("hand_sizes", "cards per hand, e.g. 27/25 (default: dealt as evenly as "
               "possible, hand 1 first)", None, parse=parse_sizes, metavar="N/N"),
    OptionSpec("max_cards", "agreed limit: stop at the first trick boundary at or past N cards",
               None, parse=_positive, metavar="N"),
    OptionSpec("max_tricks", "agreed limit: stop once N piles have been taken", None,
               parse=_positive, metavar="N"),
)


@dataclass(frozen=True)
class BeggarOptions:
    """How BMN is played: ``deck`` is a count per class (``None``: any cards, verify only)."""

    rules: str
    players: int
    deck: tuple[int, ...] | None
    hand_sizes: tuple[int, ...] | None
    max_cards: int | None
    max_tricks: int | None

    @cached_property
    def game_rules(self) -> Rules:
        """The rules with this deck."""
        rules = get_rules(self.rules)
        return rules if self.deck is None else rules.with_deck(self.deck)

    @property
    def sizes(self) -> tuple[int, ...]:
        """Cards per hand (``()`` with any deck: the deal says)."""
        if self.hand_sizes is not None:
            return self.hand_sizes
        if self.deck is None:
            return ()
        return Rules.deal_sizes(sum(self.deck), self.players)

    def key(self) -> str:
        """The canonical text of the options (the log's key)."""
        deck = ANY_DECK if self.deck is None else ",".join(map(str, self.deck))
        hands = "/".join(map(str, self.sizes)) or ANY_DECK
        return (f"rules={self.rules};players={self.players};deck={deck};hands={hands};"
                f"max_cards={self.max_cards or 'none'};max_tricks={self.max_tricks or 'none'}")

    def to_json(self) -> dict[str, Any]:
        """Every option as plain data (the deck in compact notation)."""
        deck = ANY_DECK if self.deck is None else format_hand(
            [c for c, n in enumerate(self.deck) for _ in range(n)], get_rules(self.rules))
        return {"rules": self.rules, "players": self.players, "deck": deck,
                "hand_sizes": list(self.sizes) or None, "max_cards": self.max_cards,
                "max_tricks": self.max_tricks}


def beggar_options(rules: str = "standard", players: int | None = None, deck: str | None = None,
                 hand_sizes: str | Sequence[int] | None = None, max_cards: int | None = None,
                 max_tricks: int | None = None) -> BeggarOptions:
    """Checked options; ``GameError`` names the bad one. ``deck``: compact text, ``exact``
    or ``None`` (the rules' deck) or ``any``; ``players`` defaults to the hand sizes' count."""
    try:
        base = get_rules(rules)
    except ValueError as error:
        raise GameError(str(error)) from None
    sizes = None if hand_sizes is None else parse_sizes(hand_sizes)
    if players is None:
        players = len(sizes) if sizes else 2
    if isinstance(players, bool) or not isinstance(players, int) or \
            not MIN_PLAYERS <= players <= MAX_PLAYERS:
        raise GameError(f"players must be {MIN_PLAYERS} to {MAX_PLAYERS}, not {players}")
    counts: tuple[int, ...] | None
    if deck is None or deck == "exact":
        counts = base.deck
    elif deck == ANY_DECK:
        counts = None
    else:
        try:
            counts = parse_deck(deck, base)
        except DealError as error:
            raise GameError(f"--deck: {error}") from None
    for name, value in (("max_cards", max_cards), ("max_tricks", max_tricks)):
        if value is not None and (isinstance(value, bool) or not isinstance(value, int)
                                  or value < 1):
            raise GameError(f"{name.replace('_', '-')} must be at least 1, not {value!r}")
    if counts is not None and sum(counts) < players:
        raise GameError(f"a deck of {sum(counts)} cards cannot be dealt to {players} players")
    if sizes is not None:
        if len(sizes) != players:
            raise GameError(f"hand sizes {'/'.join(map(str, sizes))} are for {len(sizes)} "
                            f"players, not {players}")
        if min(sizes) < 1 or (counts is not None and sum(sizes) != sum(counts)):
            raise GameError(f"hand sizes {'/'.join(map(str, sizes))} do not deal the "
                            f"{sum(counts or ())}-card deck")
        if counts is not None and sizes == Rules.deal_sizes(sum(counts), players):
            sizes = None   # the even deal: one canonical form
    return BeggarOptions(rules, players, counts, sizes, max_cards, max_tricks)
