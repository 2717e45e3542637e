"""Durak notation ([Deals]): deals, rows, positions, and one test per error message."""

from __future__ import annotations

import numpy as np
import pytest

from dealsearch.game import GameError, canonical
from dealsearch.games.durak import DURAK, notation
from dealsearch.games.durak.options import DurakOptions

DECK36 = " ".join(notation.format_cards(notation.deck_cards(36)))


def test_cards_and_values() -> None:
    assert [notation.name(notation.card(t)) for t in ("10d", "Т♠", "в♥", "дc", "кD", "6C")] == [
        "TD", "AS", "JH", "QC", "KD", "6C"]
    trump = notation.parse_suit("H")
    order = sorted(map(notation.card, ["6H", "AS", "6C", "7C", "6S", "6D", "AH"]),
                   key=lambda c: notation.value(c, trump))
    assert notation.format_cards(order) == ["6C", "6D", "6S", "7C", "AS", "6H", "AH"]
    assert notation.beats(notation.card("6H"), notation.card("AS"), trump)
    assert not notation.beats(notation.card("AS"), notation.card("6H"), trump)
    assert notation.beats(notation.card("7S"), notation.card("6S"), trump)
    assert not notation.beats(notation.card("7D"), notation.card("6S"), trump)


def test_deal_is_dealt_round_robin_with_the_trump_card_under_the_talon() -> None:
    options = DurakOptions(players=3)
    row = notation.parse_deal(DECK36, options)
    # Seat 1 gets cards 1, 4, 7, ...; card 19 (TH) shows trump and goes under the talon.
    assert notation.format_cards(row[:6]) == ["6C", "6S", "7H", "8D", "9C", "9S"]
    assert notation.format_cards(row[12:18]) == ["6H", "7D", "8C", "8S", "9H", "TD"]
    assert notation.format_cards(row[18:20]) == ["TS", "JC"]
    assert notation.format_cards(row[-1:]) == ["TH"]
    assert notation.format_deal(row, options) == DECK36
    position = notation.row_position(row, options)
    assert position.trump == notation.parse_suit("H") and position.first
    assert notation.format_cards(position.talon[:2]) == ["TS", "JC"]


def test_first_attacker_is_the_lowest_trump_holder_else_seat_1() -> None:
    options = DurakOptions(players=3)
    row = notation.parse_deal(DECK36, options)
    # The trump is hearts; 6H is in seat 3's hand.
    assert notation.row_position(row, options).attacker == 2
    no_trump_in_hands = DurakOptions(players=6, deck=52)
    deck52 = notation.deck_cards(52)
    hearts = [c for c in deck52 if c % 4 == 2]
    others = [c for c in deck52 if c % 4 != 2]
    codes = others[:36] + hearts + others[36:]   # card 37 (the trump card) is a heart
    row = notation.deal_to_row(codes, 6)
    assert notation.row_position(row, no_trump_in_hands).attacker == 0


def test_six_players_on_36_cards_keep_the_trump_card_in_hand_6() -> None:
    options = DurakOptions(players=6)
    layout = DURAK.layout(options)
    assert layout.segments == (6, 6, 6, 6, 6, 5, 1)
    row = notation.parse_deal(DECK36, options)
    position = notation.row_position(row, options)
    assert position.talon == ()
    assert notation.name(row[-1]) == "AS" and row[-1] in position.hands[5]
    assert position.trump == notation.parse_suit("S")
    assert notation.format_deal(row, options) == DECK36


@pytest.mark.parametrize(("players", "deck"), [(2, 36), (4, 36), (5, 52), (6, 36), (6, 52)])
def test_format_parse_round_trip_on_canonical_rows(players: int, deck: int) -> None:
    options = DurakOptions(players=players, deck=deck)
    layout = DURAK.layout(options)
    rng = np.random.default_rng(players * deck)
    for _ in range(20):
        row = rng.permutation(layout.deck).astype(np.uint8)
        text = DURAK.format(row, options)
        assert np.array_equal(DURAK.parse(text, options), canonical(DURAK, row, options))
        assert DURAK.format(DURAK.parse(text, options), options) == text


def test_separators_commas_or_none() -> None:
    options = DurakOptions()
    spaced = notation.parse_deal(DECK36, options)
    assert np.array_equal(notation.parse_deal(DECK36.replace(" ", ","), options), spaced)
    assert np.array_equal(notation.parse_deal(DECK36.replace(" ", ""), options), spaced)
    assert np.array_equal(notation.parse_deal(DECK36.replace("T", "10"), options), spaced)
    assert np.array_equal(notation.parse_deal(DECK36.lower(), options), spaced)


@pytest.mark.parametrize(("text", "message"), [
    (DECK36.replace("7D", "XD"), "bad rank 'X' in card 6"),
    (DECK36.replace("7D", "7Z"), "bad suit 'Z' in card 6 (7Z)"),
    ("6C 7", "card 2 ('7') has no suit"),
    (DECK36.replace("7D", "2D"), "card 2D is not in the 36-card deck"),
    (DECK36.replace("7D", "7H"), "card 7H appears twice"),
    (DECK36.replace(" 7D", ""), "1 card(s) missing from the 36-card deal: 7D"),
])
def test_deal_errors(text: str, message: str) -> None:
    with pytest.raises(GameError) as error:
        notation.parse_deal(text, DurakOptions())
    assert str(error.value) == message


def test_a_position_is_not_a_deal_to_search() -> None:
    with pytest.raises(GameError, match="a position is not a deal"):
        DURAK.parse("hands=6C/7C; trump=H", DurakOptions())


def test_position_parse_and_canonical_text() -> None:
    options = DurakOptions(players=3)
    position = notation.parse_position(
        " hands = KH 9C AS JD/8c AD 6S 10C/7S; trump=♥; talon=QS,8H; attacker=2; first=YES",
        options)
    assert position.attacker == 1 and position.first
    assert notation.format_position(position) == (
        "hands=9C JD AS KH/6S 8C TC AD/7S; trump=H; talon=QS 8H; attacker=2; first=yes")


POSITION_ERRORS = [
    ("hands=6C/7C; trump", "position field 'trump' has no '='"),
    ("hands=6C/7C; trump=H; dealer=1", "unknown position field 'dealer'"),
    ("hands=6C/7C; hands=6C/7C; trump=H", "position field 'hands' given twice"),
    ("trump=H", "position has no hands= field"),
    ("hands=6C/7C", "position has no trump= field"),
    ("hands=6C/7C/8C; trump=H", "position has 3 hands for 2 players"),
    ("hands=6C/7C; trump=X", "bad trump suit 'X': use C, D, H or S"),
    ("hands=6C/7C; trump=H; attacker=3", "attacker must be a seat 1 to 2, not '3'"),
    ("hands=6C/7C; trump=H; first=maybe", "first must be yes or no, not 'maybe'"),
    ("hands=6C/-; trump=H; talon=8C", "hand 2 is empty while the talon is not"),
    ("hands=6C/-; trump=H; attacker=2", "attacker 2 holds no cards"),
    ("hands=6C/6C; trump=H", "card 6C appears twice"),
    ("hands=6C/7C; trump=H; talon=2C", "card 2C is not in the 36-card deck"),
    ("hands=6C/7Q; trump=H", "bad suit 'Q' in card 1 (7Q)"),
]


@pytest.mark.parametrize(("text", "message"), POSITION_ERRORS)
def test_position_errors(text: str, message: str) -> None:
    with pytest.raises(GameError) as error:
        notation.parse_position(text, DurakOptions())
    assert message in str(error.value)
    assert "\n" not in str(error.value)
