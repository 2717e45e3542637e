"""Deal notation (docs/games/beggar.md, [The cards]): every accepted notation, printing, and every
input error."""

from __future__ import annotations

from itertools import pairwise

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dealsearch.games.beggar.notation import (
    ITALIAN,
    STANDARD,
    Deal,
    DealError,
    Rules,
    format_deal,
    parse_deal,
    parse_deck,
)

from deals import CASELLA

ITALIAN_CYCLE = "00302020303100000310/00100200002000000010"

# Rank tokens of each card class, per preset: what a player may write for a card of that class.
FULL_RANKS: dict[str, tuple[tuple[str, ...], ...]] = {
    "standard": (("2", "3", "4", "5", "6", "7", "8", "9", "10", "T"), ("J",), ("Q",), ("K",),
                 ("A",)),
    "italian": (("4", "5", "6", "7", "J", "Q", "K"), ("A",), ("2",), ("3",)),
}
RANK_STRING_RANKS: dict[str, tuple[tuple[str, ...], ...]] = {
    "standard": (("2", "3", "4", "5", "6", "7", "8", "9", "10"), ("J",), ("Q",), ("K",), ("A",)),
    "italian": FULL_RANKS["italian"],
}
RUSSIAN_RANKS: dict[str, tuple[tuple[str, ...], ...]] = {
    "standard": (("2", "3", "4", "5", "6", "7", "8", "9", "10"), ("В",), ("Д",), ("К",), ("Т",)),
    "italian": (("4", "5", "6", "7", "В", "Д", "К"), ("Т",), ("2",), ("3",)),
}
SUIT_SETS = ("HDCS", "♥♦♣♠")


# ---------------------------------------------------------------- the same deal, every notation

def test_compact_reads_court_symbols_and_dashes() -> None:
    deal = parse_deal(CASELLA)
    assert deal.players == 2
    assert deal.hand_sizes == (26, 26)
    assert deal.hands[0][:4] == (0, 0, 0, 3)
    assert deal.hands[1][-2:] == (3, 4)
    assert deal.class_counts(5) == STANDARD.deck


SMALL = Deal(((3, 0, 2), (0, 4, 0, 1)))  # K - Q / - A - J


@pytest.mark.parametrize(
    "text",
    [
        "K-Q/-A-J",
        "K-Q -A-J",
        "K-Q\n-A-J",
        "  K - Q /\t- A - J \n",
        "k-q/-a-j",
        "KH 4C QS/2D AS 10H JC",
        "KH 4C QS\n2D AS 10H JC",
        "kh 4c qs / 2d as 10h jc",
        "K♥ 4♣ Q♠/2♦ A♠ 10♥ J♣",
        "K♥ 4♣ Q♠\n2♦ A♠ T♥ J♣",
        "KH TD QS/2D AS 10D JC",
        "K10Q/2A3J",
        "K10Q 2A3J",
        "K10Q\n2A3J",
        "K4Q/10A10J",
        "К9Д/2Т4В",
        "к9д/2т4в",
        "К9Д 2Т4В",
        "K♡ 4♧ Q♤/2♢ A♤ 10♡ J♧",
    ],
)
def test_every_notation_reads_the_same_deal(text: str) -> None:
    assert parse_deal(text, deck="any") == SMALL


def test_rank_string_reads_ten_as_one_card() -> None:
    deal = parse_deal("2A78Q10/3456K9J", deck="any")
    assert deal.hand_sizes == (6, 7)
    assert format_deal(deal) == "-A--Q-/----K-J"


def test_compact_and_full_cards_agree_on_a_published_deal() -> None:
    full_hands = []
    numerals = iter(["2", "3", "4", "5", "6", "7", "8", "9", "10", "T"] * 8)
    suits = iter("HDCS" * 20)
    for hand in CASELLA.split("/"):
        cards = [(next(numerals) if c == "-" else c) + next(suits) for c in hand]
        full_hands.append(" ".join(cards))
    assert parse_deal("/".join(full_hands)) == parse_deal(CASELLA)
    assert parse_deal("\n".join(full_hands)) == parse_deal(CASELLA)


def test_italian_compact_and_full_cards() -> None:
    deal = parse_deal(ITALIAN_CYCLE, ITALIAN)
    assert deal.hand_sizes == (20, 20)
    assert deal.class_counts(4) == ITALIAN.deck
    assert deal.hands[0][:4] == (0, 0, 3, 0)
    assert format_deal(deal, ITALIAN) == ITALIAN_CYCLE
    # The same cards written as Italian ranks: plain cards 4-7 J Q K, then A=1, 2=2, 3=3.
    assert parse_deal("4J3/A2Q", ITALIAN, deck="any") == Deal(((0, 0, 3), (1, 2, 0)))
    assert parse_deal("4H JC 3S/AD 2H QC", ITALIAN, deck="any") == Deal(((0, 0, 3), (1, 2, 0)))
    assert parse_deal("4В3/Т2Д", ITALIAN, deck="any") == Deal(((0, 0, 3), (1, 2, 0)))


def test_three_and_four_hands() -> None:
    assert parse_deal("A/K/Q", deck="any") == Deal(((4,), (3,), (2,)))
    assert parse_deal("A K Q J", deck="any") == Deal(((4,), (3,), (2,), (1,)))
    assert parse_deal("AH\nKD\nQC\nJS", deck="any") == Deal(((4,), (3,), (2,), (1,)))


def _render(data: st.DataObject, deal: Deal, rules: Rules) -> str:
    """``deal`` written in a notation drawn by hypothesis (one notation per deal)."""
    style = data.draw(st.sampled_from(["compact", "full", "ranks", "russian"]), label="style")
    if style == "compact":
        hands = ["".join(rules.symbols[c] for c in hand) for hand in deal.hands]
        sep = data.draw(st.sampled_from(["/", " / ", "\n", " ", "\t"]), label="sep")
    elif style == "full":
        suits = data.draw(st.sampled_from(SUIT_SETS), label="suits")
        table = FULL_RANKS[rules.name]
        hands = [
            " ".join(data.draw(st.sampled_from(table[c])) + data.draw(st.sampled_from(suits))
                     for c in hand)
            for hand in deal.hands
        ]
        sep = data.draw(st.sampled_from(["/", " / ", "\n", "\r\n"]), label="sep")
    else:
        table = (RANK_STRING_RANKS if style == "ranks" else RUSSIAN_RANKS)[rules.name]
        hands = ["".join(data.draw(st.sampled_from(table[c])) for c in hand)
                 for hand in deal.hands]
        sep = data.draw(st.sampled_from(["/", "\n", " "]), label="sep")
    text = sep.join(hands)
    if data.draw(st.booleans(), label="lower"):
        text = text.lower()
    return text


@st.composite
def deals(draw: st.DrawFn, rules: Rules, exact: bool) -> Deal:
    """A deal under ``rules``: the whole deck shuffled, or any cards (``exact=False``)."""
    if exact:
        cards = [cls for cls, count in enumerate(rules.deck) for _ in range(count)]
        cards = draw(st.permutations(cards))
    else:
        cards = draw(st.lists(st.integers(0, len(rules.deck) - 1), min_size=2, max_size=64))
    players = draw(st.integers(2, min(4, len(cards))))
    cuts = sorted(draw(st.lists(st.integers(1, len(cards) - 1), min_size=players - 1,
                                max_size=players - 1, unique=True)))
    bounds = [0, *cuts, len(cards)]
    return Deal(tuple(tuple(cards[a:b]) for a, b in pairwise(bounds)))


@settings(max_examples=150, deadline=None)
@given(data=st.data(), rules=st.sampled_from([STANDARD, ITALIAN]), exact=st.booleans())
def test_any_notation_reads_back_the_deal(
    data: st.DataObject, rules: Rules, exact: bool
) -> None:
    deal = data.draw(deals(rules, exact), label="deal")
    text = _render(data, deal, rules)
    assert parse_deal(text, rules, deck="exact" if exact else "any") == deal


@settings(max_examples=200, deadline=None)
@given(data=st.data(), rules=st.sampled_from([STANDARD, ITALIAN]), exact=st.booleans())
def test_format_deal_round_trips(data: st.DataObject, rules: Rules, exact: bool) -> None:
    deal = data.draw(deals(rules, exact), label="deal")
    text = format_deal(deal, rules)
    assert "/" in text and " " not in text
    assert parse_deal(text, rules, deck="exact" if exact else "any") == deal
    assert format_deal(parse_deal(text, rules, deck="any"), rules) == text


# ---------------------------------------------------------------- errors: one line, exact

FIVE_ACES_53 = CASELLA + "A"  # one ace too many, nothing else wrong
FIVE_ACES_52 = CASELLA[:-2] + "AA"  # a king became an ace


@pytest.mark.parametrize(
    ("text", "rules", "deck", "message"),
    [
        ("--X-/----", STANDARD, "any", "hand 1, position 3: unknown card 'X'"),
        ("A-/K-Z", STANDARD, "any", "hand 2, position 3: unknown card 'Z'"),
        ("A/-/K-?", STANDARD, "any", "hand 3, position 3: unknown card '?'"),
        ("1/2", STANDARD, "any", "hand 1, position 1: unknown card '1'"),
        ("-9/A-", ITALIAN, "any", "hand 1, position 2: unknown card '9'"),
        (FIVE_ACES_53, STANDARD, "exact",
         "5 aces, the deck has 4 (--deck any accepts any cards)"),
        (FIVE_ACES_52, STANDARD, "exact",
         "3 kings, the deck has 4; 5 aces, the deck has 4 (--deck any accepts any cards)"),
        ("J-/--", STANDARD, "exact",
         "3 numerals, the deck has 36; 1 jack, the deck has 4; 0 queens, the deck has 4; "
         "0 kings, the deck has 4; 0 aces, the deck has 4 (--deck any accepts any cards)"),
        (ITALIAN_CYCLE[:-1] + "1", ITALIAN, "exact",
         "27 plain cards, the deck has 28; 5 aces, the deck has 4 "
         "(--deck any accepts any cards)"),
        ("A-/-/", STANDARD, "any", "hand 3 is empty"),
        ("/", STANDARD, "any", "hand 1 is empty"),
        ("A//K", STANDARD, "any", "hand 2 is empty"),
        ("A-K", STANDARD, "any", "1 hand: a deal has 2 to 4 hands, separated by '/'"),
        ("-/-/-/-/-", STANDARD, "any", "5 hands: a deal has 2 to 4 hands, separated by '/'"),
        ("- - - - -", STANDARD, "any", "5 hands: a deal has 2 to 4 hands, separated by '/'"),
        ("-" * 32_768 + "/" + "-" * 32_768, STANDARD, "any",
         "65536 cards: a deal holds at most 65535"),
        ("-" * 32_768 + "/" + "-" * 32_768, STANDARD, "exact",
         "65536 cards: a deal holds at most 65535"),
        ("", STANDARD, "any", "empty deal"),
        (" \n\t ", STANDARD, "exact", "empty deal"),
        ("KH 4C QS", STANDARD, "any", "full-card hands must be separated by '/' or a newline"),
        ("K♥ 4♣ Q♠ 2♦", STANDARD, "any",
         "full-card hands must be separated by '/' or a newline"),
        ("10D TD", STANDARD, "any", "full-card hands must be separated by '/' or a newline"),
        ("-/-", STANDARD, "all", "unknown deck 'all': choose exact or any"),
    ],
)
def test_malformed_deal_message(text: str, rules: Rules, deck: str, message: str) -> None:
    with pytest.raises(DealError) as caught:
        parse_deal(text, rules, deck=deck)
    assert str(caught.value) == message
    assert "\n" not in str(caught.value)


def test_deal_error_is_a_value_error() -> None:
    assert issubclass(DealError, ValueError)
    with pytest.raises(ValueError, match="empty deal"):
        parse_deal("")


def test_exact_deck_is_the_default_and_any_accepts_partial_decks() -> None:
    with pytest.raises(DealError):
        parse_deal("A-/K-")
    assert parse_deal("A-/K-", deck="any") == Deal(((4, 0), (3, 0)))


def test_sixty_four_cards_is_the_most() -> None:
    deal = parse_deal("-" * 32 + "/" + "-" * 32, deck="any")
    assert deal.hand_sizes == (32, 32)


# ---------------------------------------------------------------- decks

@pytest.mark.parametrize(
    ("text", "rules", "counts"),
    [
        ("--------AKQJJ", STANDARD, (8, 2, 1, 1, 1)),
        ("2 3 10 T A k q j", STANDARD, (4, 1, 1, 1, 1)),
        ("KH 4C QS 10D", STANDARD, (2, 0, 1, 1, 0)),
        ("ТКДВ--", STANDARD, (2, 1, 1, 1, 1)),
        ("0000123", ITALIAN, (4, 1, 1, 1)),
        ("4567JQKA23", ITALIAN, (7, 1, 1, 1)),
        ("-" * 64, STANDARD, (64, 0, 0, 0, 0)),
    ],
)
def test_parse_deck(text: str, rules: Rules, counts: tuple[int, ...]) -> None:
    assert parse_deck(text, rules) == counts


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "the deck is empty"),
        ("  ", "the deck is empty"),
        ("--X", "deck, position 3: unknown card 'X'"),
        ("-" * 65_536, "65536 cards: a deck holds at most 65535"),
    ],
)
def test_malformed_deck_message(text: str, message: str) -> None:
    with pytest.raises(DealError) as caught:
        parse_deck(text)
    assert str(caught.value) == message


def test_parsed_deck_plays_as_partial_deal() -> None:
    counts = parse_deck("--------AKQJJ")
    rules = STANDARD.with_deck(counts)
    cards = [cls for cls, n in enumerate(counts) for _ in range(n)]
    deal = Deal((tuple(cards[:7]), tuple(cards[7:])))
    assert parse_deal(format_deal(deal), rules) == deal
