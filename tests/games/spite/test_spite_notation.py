"""Spite and Malice notation (docs/games/spite.md, [Cards; The deal]): deals, positions, and every
input error."""

from __future__ import annotations

import json

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from dealsearch.game import GameError
from dealsearch.games.spite.notation import (
    JOKER,
    card_text,
    format_deal,
    format_position,
    parse_cards,
    parse_deal,
    parse_position,
    random_rows,
)

DEAL_D = ("Q6TK52JJQKTK27365928753AK969A7QAT7Q45J8J48342836T94A/"
          "62Q279A48T34J3J326K*A5KK8*49*657TQ853T7986AQK*954TJAJ27Q")
POSITION_A = {"payoff": ["J92T", "425"], "hand": ["*3", ""],
              "side": [["", "", "", "9"], ["", "", "", ""]],
              "centre": ["", "", "", "A2345678"], "stock": "7KJ2Q", "turn": 2}


def position_text(**changes: object) -> str:
    return json.dumps(POSITION_A | changes)


# ---------------------------------------------------------------- cards and deals

def test_every_rank_character_and_the_joker() -> None:
    assert parse_cards("A23456789TJQK*", "x") == list(range(1, 15))


def test_ten_suits_separators_and_russian_letters() -> None:
    cards = parse_cards("10H, AS T♥ 2c\t3d\nТ В Д К *", "x")
    assert cards == [10, 1, 10, 2, 3, 1, 11, 12, 13, JOKER]


def test_cyrillic_te_is_an_ace_and_latin_t_a_ten() -> None:
    assert parse_cards("ТT", "x") == [1, 10]


def test_a_deal_reads_back_canonical() -> None:
    row = parse_deal(DEAL_D)
    assert row.shape == (108,) and row.dtype == np.uint8
    assert format_deal(row) == DEAL_D


def test_a_deal_in_full_cards_prints_canonical() -> None:
    deck1, deck2 = DEAL_D.split("/")
    spaced = " ".join(f"{c}H" if c != "T" else "10H" for c in deck1)
    assert format_deal(parse_deal(spaced + " / " + " ".join(deck2))) == DEAL_D


@given(st.integers(0, 2**32 - 1))
def test_format_then_parse_is_the_same_row(seed: int) -> None:
    row = random_rows(None, 1, seed)[0]
    assert (parse_deal(format_deal(row)) == row).all()


# ---------------------------------------------------------------- deal errors, one per message

def test_unknown_character_says_where() -> None:
    with pytest.raises(GameError, match=r"deck 1: unknown character 'X' at character 3"):
        parse_deal("A2X" + DEAL_D[3:])


def test_lowercase_rank_is_not_a_card() -> None:
    with pytest.raises(GameError, match=r"unknown character 'k' at character 1"):
        parse_cards("k", "hand")


def test_suit_not_after_a_rank() -> None:
    with pytest.raises(GameError, match=r"hand: suit 'H' at character 4 not after a rank"):
        parse_cards("AS H", "hand")


def test_suit_after_a_joker() -> None:
    with pytest.raises(GameError, match=r"hand: suit 'S' at character 2 after a joker"):
        parse_cards("*S", "hand")


def test_a_joker_in_deck_1() -> None:
    deck1, deck2 = DEAL_D.split("/")
    with pytest.raises(GameError, match=r"deck 1 has a joker \(card 1\)"):
        parse_deal("*" + deck1[1:] + "/" + deck2)


def test_53_cards() -> None:
    with pytest.raises(GameError, match=r"deck 1 has 53 cards, not 52"):
        parse_deal("A" + DEAL_D)


def test_five_of_a_rank() -> None:
    deck1, deck2 = DEAL_D.split("/")
    with pytest.raises(GameError, match=r"deck 2 has 3 of rank 6, not 4"):
        parse_deal(deck1 + "/Q" + deck2[1:])


def test_one_slash() -> None:
    with pytest.raises(GameError, match=r"deck1/deck2 with one '/', not 2"):
        parse_deal(DEAL_D + "/")


def test_a_position_where_a_deal_is_wanted() -> None:
    with pytest.raises(GameError, match=r"a position is not a deal"):
        parse_deal(position_text())


# ---------------------------------------------------------------- positions

def test_position_a_reads_and_prints_canonical() -> None:
    position = parse_position(position_text())
    assert position.turn == 2
    assert position.hand == ((3, JOKER), ())            # hands print sorted, jokers last
    assert position.centre[3] == tuple(range(1, 9))
    assert position.side[0][3] == (9,)
    assert position.stock == (7, 13, 11, 2, 12)
    assert json.loads(format_position(position)) == POSITION_A | {"hand": ["3*", ""]}


def test_position_accepts_any_notation_inside() -> None:
    position = parse_position(position_text(payoff=["J 9 2 10", "4♠2♥5"], stock="7K В2Д"))
    assert format_position(position) == format_position(parse_position(position_text()))


def test_jokers_in_a_centre_pile_and_card_totals_unchecked() -> None:
    position = parse_position(position_text(centre=["*", "A*3", "", "**********"],
                                            stock="AAAAAAAAAAAA"))
    assert card_text(position.centre[1]) == "A*3"
    assert position.n_cards() == 4 + 3 + 2 + 1 + 1 + 3 + 10 + 12


def test_packed_position_layout() -> None:
    packed = parse_position(position_text()).packed().tolist()
    assert packed[:6] == [2, 4, 11, 9, 2, 10]             # turn, pay-off 1 (length, cards)
    assert packed[-6:] == [5, 7, 13, 11, 2, 12]           # the stock, top first


# ---------------------------------------------------------------- position errors, one per message

@pytest.mark.parametrize(("text", "message"), [
    ("{not json", r"position: not valid JSON \(.* at character 2\)"),
    ("[1, 2]", r"position: must be a JSON object"),
    (json.dumps({k: v for k, v in POSITION_A.items() if k != "stock"}),
     r"position: missing key 'stock'"),
    (position_text(extra=1), r"position: unknown key 'extra'"),
    (position_text(turn=3), r"position: 'turn' must be 1 or 2, not 3"),
    (position_text(turn=True), r"position: 'turn' must be 1 or 2, not True"),
    (position_text(payoff=["J92T"]), r"position: 'payoff' must be a list of 2 strings"),
    (position_text(hand="*3"), r"position: 'hand' must be a list of 2 strings"),
    (position_text(side=[["", "", ""], ["", "", "", ""]]),
     r"position: 'side' must be 2 lists of 4 strings"),
    (position_text(centre=["", "", ""]), r"position: 'centre' must be a list of 4 strings"),
    (position_text(stock=["7"]), r"position: 'stock' must be a string"),
    (position_text(payoff=["J92T", ""]), r"position: the payoff pile of seat 2 is empty"),
    (position_text(payoff=["J9*T", "425"]),
     r"position: the payoff pile of seat 1 holds a joker \(card 3\)"),
    (position_text(hand=["*3", "A2345K"]), r"position: the hand of seat 2 has 6 cards, at most 5"),
    (position_text(centre=["", "A23456789TJQK", "", ""]),
     r"position: centre slot 2 has 13 cards, at most 12"),
    (position_text(centre=["", "", "", "A2346"]),
     r"position: centre slot 4 skips a rank: card 5 is 6, not 5 or a joker"),
    (position_text(stock="A" * 238), r"position: 256 cards, at most 255"),
    (position_text(stock="7KJ2X"), r"stock: unknown character 'X' at character 5"),
])
def test_position_errors(text: str, message: str) -> None:
    with pytest.raises(GameError, match=message):
        parse_position(text)


def test_errors_are_one_line() -> None:
    bad = [position_text(centre=["", "", "", "A2346"]), "{", position_text(hand=["", "AAAAAA"])]
    for text in bad:
        with pytest.raises(GameError) as error:
            parse_position(text)
        assert "\n" not in str(error.value)


def test_packed_round_trip() -> None:
    position = parse_position(position_text(centre=["A*3", "", "", "A2345678"]))
    assert type(position).from_packed(position.packed()) == position
