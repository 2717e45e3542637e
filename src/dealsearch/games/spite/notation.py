"""Spite and Malice deals and positions as text (docs/games/spite.md, [Cards; The deal]); input
errors start here.

A card is a code: ranks A=1 … K=13, the joker 14. A deal is a *row* of 108 codes: deck 1 (52
cards, the two pay-off piles) then deck 2 (56 cards: the hands and the stock), each top card
first. A position ([Cards]) is a mid-game state in one line of JSON, for constructed tests.

>>> row = parse_deal("A23456789TJQK" * 4 + "/" + "A23456789TJQK*" * 4)
>>> format_deal(row)[:14], len(row)
('A23456789TJQKA', 108)
>>> parse_cards("10H, Т♠ *", "hand")
[10, 1, 14]
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from dealsearch.plugin import GameError

RANKS = "A23456789TJQK*"      # canonical character of code 1 … 14
JOKER = 14
DECK1_CARDS = 52
DECK2_CARDS = 56
N_CARDS = DECK1_CARDS + DECK2_CARDS
DECK1 = np.repeat(np.arange(1, 14, dtype=np.uint8), 4)            # deck 1's cards, sorted
DECK2 = np.concatenate([DECK1, np.full(4, JOKER, dtype=np.uint8)])  # deck 2's, jokers last
HAND_SIZE = 5
SLOTS = 4                     # centre slots, and side piles per seat
PILE_DONE = 13                # a centre pile of 13 cards is finished
MAX_POSITION_CARDS = 255      # the compiled engine counts a position's cards in bytes

_CODES = {char: code for code, char in enumerate(RANKS, start=1)}
_CODES.update({"Т": 1, "В": 11, "Д": 12, "К": 13})   # Russian: Туз, Валет, Дама, Король
_SUITS = frozenset("SHDCshdc♠♥♦♣")
_KEYS = ("payoff", "hand", "side", "centre", "stock", "turn")

Row = npt.NDArray[np.uint8]


def card_text(cards: object) -> str:
    """Canonical text of a sequence of card codes.

    >>> card_text([1, 10, 14])
    'AT*'
    """
    return "".join(RANKS[int(code) - 1] for code in cards)  # type: ignore[attr-defined]


def parse_cards(text: str, where: str) -> list[int]:
    """The card codes in ``text`` (any accepted notation); ``where`` names the text in errors."""
    cards: list[int] = []
    i = 0
    while i < len(text):
        char = text[i]
        if char == "," or char.isspace():
            i += 1
            continue
        if char == "1" and text[i + 1:i + 2] == "0":
            code, width = 10, 2
        elif char in _CODES:
            code, width = _CODES[char], 1
        elif char in _SUITS:
            reason = "after a joker" if text[i - 1:i] == "*" else "not after a rank"
            raise GameError(f"{where}: suit {char!r} at character {i + 1} {reason}")
        else:
            raise GameError(f"{where}: unknown character {char!r} at character {i + 1}")
        cards.append(code)
        i += width
        if i < len(text) and text[i] in _SUITS and code != JOKER:
            i += 1   # the optional suit of this rank: ignored
    return cards


def _count_error(where: str, cards: list[int], jokers: int) -> str | None:
    """What is wrong with a deck that must hold four of each rank and ``jokers`` jokers."""
    expected = DECK1_CARDS + jokers
    if len(cards) != expected:
        return f"{where} has {len(cards)} cards, not {expected}"
    if jokers == 0 and JOKER in cards:
        return f"{where} has a joker (card {cards.index(JOKER) + 1}): deck 1 has none"
    for code in range(1, JOKER):   # then the jokers are right too: the length is
        if (count := cards.count(code)) != 4:
            return f"{where} has {count} of rank {RANKS[code - 1]}, not 4"
    return None


def parse_deal(text: str) -> Row:
    """A deal ``deck1/deck2`` ([The deal]) as a row of 108 card codes; :class:`GameError` if
    invalid."""
    text = text.strip()
    if text.startswith("{"):
        raise GameError("a position is not a deal: give deck1/deck2")
    parts = text.split("/")
    if len(parts) != 2:
        raise GameError(f"a deal is deck1/deck2 with one '/', not {len(parts) - 1}")
    deck1 = parse_cards(parts[0], "deck 1")
    deck2 = parse_cards(parts[1], "deck 2")
    for where, cards, jokers in (("deck 1", deck1, 0), ("deck 2", deck2, 4)):
        if (error := _count_error(where, cards, jokers)) is not None:
            raise GameError(error)
    return np.array(deck1 + deck2, dtype=np.uint8)


def format_deal(row: Row) -> str:
    """The canonical text of a row: ``deck1/deck2``, one character per card."""
    codes = [int(code) for code in row]
    return card_text(codes[:DECK1_CARDS]) + "/" + card_text(codes[DECK1_CARDS:])


Pile = tuple[int, ...]


@dataclass(frozen=True)
class Position:
    """A state at the start of a turn ([Cards]). Pairs are (seat 1, seat 2).

    ``payoff`` and ``stock`` are top card first; ``side`` and ``centre`` bottom card first;
    ``hand`` is sorted (its order never matters); ``turn`` is the seat to move (1 or 2).
    """

    payoff: tuple[Pile, Pile]
    hand: tuple[Pile, Pile]
    side: tuple[tuple[Pile, Pile, Pile, Pile], tuple[Pile, Pile, Pile, Pile]]
    centre: tuple[Pile, Pile, Pile, Pile]
    stock: Pile
    turn: int

    def n_cards(self) -> int:
        """Every card in the position."""
        piles = [*self.payoff, *self.hand, *self.side[0], *self.side[1], *self.centre]
        return sum(map(len, piles)) + len(self.stock)

    def to_json(self) -> dict[str, Any]:
        """The [Cards] JSON object (canonical card text, hands sorted)."""
        return {"payoff": [card_text(p) for p in self.payoff],
                "hand": [card_text(h) for h in self.hand],
                "side": [[card_text(p) for p in seat] for seat in self.side],
                "centre": [card_text(p) for p in self.centre],
                "stock": card_text(self.stock), "turn": self.turn}

    def packed(self) -> Row:
        """The position as bytes for the compiled engine: the turn, then 17 piles, each its
        length and its cards: pay-off 1, 2 (top first), hand 1, 2, side piles 1-4 of seat 1
        and of seat 2, centre slots 1-4 (bottom first), the stock (top first)."""
        piles = [*self.payoff, *self.hand, *self.side[0], *self.side[1], *self.centre,
                 self.stock]
        data = [self.turn]
        for pile in piles:
            data += [len(pile), *pile]
        return np.array(data, dtype=np.uint8)

    @classmethod
    def from_packed(cls, packed: bytes | Row) -> Position:
        """The position :meth:`packed` wrote (the compiled engine writes the same bytes)."""
        data = [int(byte) for byte in packed]
        piles: list[Pile] = []
        at = 1
        for _ in range(17):
            piles.append(tuple(data[at + 1:at + 1 + data[at]]))
            at += 1 + data[at]
        return cls(payoff=(piles[0], piles[1]), hand=(piles[2], piles[3]),
                   side=(tuple(piles[4:8]), tuple(piles[8:12])),  # type: ignore[arg-type]
                   centre=tuple(piles[12:16]),  # type: ignore[arg-type]
                   stock=piles[16], turn=data[0])


def _field(data: dict[str, Any], key: str, shape: tuple[int, ...], wanted: str) -> Any:
    """``data[key]``, checked to be strings nested in lists of the lengths in ``shape``."""

    def fits(item: Any, dims: tuple[int, ...]) -> bool:
        if not dims:
            return isinstance(item, str)
        return (isinstance(item, list) and len(item) == dims[0]
                and all(fits(x, dims[1:]) for x in item))

    if not fits(data[key], shape):
        raise GameError(f"position: {key!r} must be {wanted}")
    return data[key]


def parse_position(text: str) -> Position:
    """A one-line JSON position ([Cards]); :class:`GameError` naming what is wrong."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as error:
        raise GameError(f"position: not valid JSON ({error.msg} at character "
                        f"{error.pos + 1})") from None
    if not isinstance(data, dict):
        raise GameError("position: must be a JSON object")
    for key in _KEYS:
        if key not in data:
            raise GameError(f"position: missing key {key!r}")
    for key in data:
        if key not in _KEYS:
            raise GameError(f"position: unknown key {key!r}")
    turn = data["turn"]
    if type(turn) is not int or turn not in (1, 2):  # not 1.0: the text must be canonical
        raise GameError(f"position: 'turn' must be 1 or 2, not {turn!r}")
    pairs = "a list of 2 strings"
    payoff = [parse_cards(text, f"payoff of seat {seat}")
              for seat, text in enumerate(_field(data, "payoff", (2,), pairs), start=1)]
    for seat, pile in enumerate(payoff, start=1):
        if not pile:
            raise GameError(f"position: the payoff pile of seat {seat} is empty")
        if JOKER in pile:
            raise GameError(f"position: the payoff pile of seat {seat} holds a joker "
                            f"(card {pile.index(JOKER) + 1})")
    hand = [parse_cards(text, f"hand of seat {seat}")
            for seat, text in enumerate(_field(data, "hand", (2,), pairs), start=1)]
    for seat, cards in enumerate(hand, start=1):
        if len(cards) > HAND_SIZE:
            raise GameError(f"position: the hand of seat {seat} has {len(cards)} cards, "
                            f"at most {HAND_SIZE}")
    side_texts = _field(data, "side", (2, SLOTS), "2 lists of 4 strings")
    side = [[parse_cards(text, f"side pile {pile} of seat {seat}")
             for pile, text in enumerate(piles, start=1)]
            for seat, piles in enumerate(side_texts, start=1)]
    centre_texts = _field(data, "centre", (SLOTS,), "a list of 4 strings")
    centre = [parse_cards(text, f"centre slot {slot}")
              for slot, text in enumerate(centre_texts, start=1)]
    for slot, pile in enumerate(centre, start=1):
        if len(pile) >= PILE_DONE:
            raise GameError(f"position: centre slot {slot} has {len(pile)} cards, at most "
                            f"{PILE_DONE - 1}")
        for i, code in enumerate(pile, start=1):
            if code not in (i, JOKER):
                raise GameError(f"position: centre slot {slot} skips a rank: card {i} is "
                                f"{RANKS[code - 1]}, not {RANKS[i - 1]} or a joker")
    stock = parse_cards(_field(data, "stock", (), "a string"), "stock")
    position = Position(
        payoff=(tuple(payoff[0]), tuple(payoff[1])),
        hand=(tuple(sorted(hand[0])), tuple(sorted(hand[1]))),
        side=(tuple(map(tuple, side[0])), tuple(map(tuple, side[1]))),  # type: ignore[arg-type]
        centre=tuple(map(tuple, centre)),  # type: ignore[arg-type]
        stock=tuple(stock), turn=turn)
    if (total := position.n_cards()) > MAX_POSITION_CARDS:
        raise GameError(f"position: {total} cards, at most {MAX_POSITION_CARDS}")
    return position


def format_position(position: Position) -> str:
    """The canonical one-line JSON text of a position.

    >>> p = parse_position('{"payoff": ["J92T", "425"], "hand": ["3*", ""], '
    ...     '"side": [["", "", "", "9"], ["", "", "", ""]], "centre": ["", "", "", "A2345678"], '
    ...     '"stock": "7KJ2Q", "turn": 2}')
    >>> format_position(p)[:40]
    '{"payoff": ["J92T", "425"], "hand": ["3*'
    """
    return json.dumps(position.to_json(), ensure_ascii=False)


def is_position(text: str) -> bool:
    """Whether ``text`` is a position (JSON) rather than a deal."""
    return text.lstrip().startswith("{")


def random_rows(options: Any, n: int, seed: int) -> npt.NDArray[np.uint8]:
    """``n`` uniformly random deals (rows), reproducible from ``seed``; every option set
    deals the same two packs, so ``options`` (a :class:`SpiteOptions` or None) changes nothing.

    >>> random_rows(None, 3, seed=1).shape
    (3, 108)
    """
    rng = np.random.default_rng(seed)
    deck1 = rng.permuted(np.tile(DECK1, (n, 1)), axis=1)
    deck2 = rng.permuted(np.tile(DECK2, (n, 1)), axis=1)
    return np.hstack([deck1, deck2]).astype(np.uint8)
