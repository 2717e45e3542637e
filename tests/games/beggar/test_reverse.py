"""Playing backwards: predecessors undo exactly one trick; the Casella basin; longer deals."""

from __future__ import annotations

import json

from hypothesis import given, settings
from hypothesis import strategies as st

from dealsearch.cli import main
from dealsearch.games.beggar._engine import predecessors
from dealsearch.games.beggar.engine import play
from dealsearch.games.beggar.notation import ITALIAN, STANDARD, Deal, parse_deal
from dealsearch.games.beggar.options import get_rules
from dealsearch.games.beggar.reference import Trick, play_reference
from dealsearch.games.beggar.reverse import basin, pack, unpack

from deals import CASELLA


def twin_predecessors(hands, winner, payments):
    """The predecessor rule written card by card, to check the compiled one against."""
    found = set()
    hand = hands[winner]
    for k in range(2, len(hand) + 1):
        pile, rest = hand[len(hand) - k:], hand[:len(hand) - k]
        for leader in (0, 1):
            seat, owed, owner, seats, ended_at = leader, 0, None, [], None
            for i, card in enumerate(pile):
                seats.append(seat)
                if payments[card]:
                    owner, owed, seat = seat, payments[card], 1 - seat
                elif owed:
                    owed -= 1
                    if not owed:
                        ended_at = i
                        break
                else:
                    seat = 1 - seat
            if ended_at != k - 1 or owner != winner:
                continue
            turned = ([], [])
            for who, card in zip(seats, pile, strict=True):
                turned[who].append(card)
            before = tuple(tuple(turned[s]) + (rest if s == winner else hands[s]) for s in (0, 1))
            found.add((before, leader))
    return found


def one_trick_forward(hands, to_move, rules):
    """The state after the next trick, by the reference engine (None if the game ends)."""
    deal = Deal((hands[to_move], hands[1 - to_move]))
    after: list = []

    def take(trick: Trick) -> None:
        if not after:
            after.append(trick)

    play_reference(deal, rules, max_tricks=1, on_trick=take)
    trick = after[0]
    if trick.taker is None:
        return None
    mine = list(deal.hands[0][sum(1 for s, _ in trick.plays if s == 0):])
    theirs = list(deal.hands[1][sum(1 for s, _ in trick.plays if s == 1):])
    new = [mine, theirs]
    new[trick.taker].extend(card for _, card in trick.plays)
    ordered = (tuple(new[0]), tuple(new[1])) if to_move == 0 else (tuple(new[1]), tuple(new[0]))
    return ordered, (to_move + trick.taker) % 2


@st.composite
def states(draw):
    rules = draw(st.sampled_from([STANDARD, ITALIAN]))
    classes = len(rules.payments)
    cards = draw(st.lists(st.integers(0, classes - 1), min_size=3, max_size=40))
    if not any(cards):
        cards[0] = classes - 1
    cut = draw(st.integers(1, len(cards) - 1))
    return rules, (tuple(cards[:cut]), tuple(cards[cut:])), draw(st.integers(0, 1))


@settings(max_examples=400, deadline=None)
@given(states())
def test_every_predecessor_played_forward_one_trick_gives_back_the_state(case):
    rules, hands, to_move = case
    compiled = {unpack(state) for state in predecessors(pack(hands, to_move), rules.payments)}
    assert compiled == twin_predecessors(hands, to_move, rules.payments)
    for before, leader in compiled:
        assert one_trick_forward(before, leader, rules) == (hands, to_move)


def test_pack_and_unpack_are_inverse():
    hands = ((0, 4, 3, 0, 1), (2, 0, 0))
    assert unpack(pack(hands, 1)) == (hands, 1)


def test_casella_basin_reproduces_the_papers_thirty_starting_deals():
    walk = basin(parse_deal(CASELLA))
    assert walk.cycle_states == 62
    assert CASELLA in walk.starts
    assert len(walk.starts) == 30
    for start in walk.starts:
        result = play(start)
        assert result.outcome == "cycle"
        assert result.period == {"cards": 440, "tricks": 62}


def test_reverse_command_prints_the_summary_keys(capsys):
    assert main(["reverse", "--json", CASELLA]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert {"cycle_states", "basin", "depth", "starts"} <= set(summary)
    assert summary["basin"] >= summary["cycle_states"] == 62


def test_reverse_along_a_climbed_deal_logs_only_longer_terminating_deals(capsys, tmp_path):
    db = str(tmp_path / "log.sqlite")
    assert main(["search", "climb", "--deals", "3000", "--workers", "1", "--seed", "2",
                 "--db", db, "--json", "--quiet"]) == 0
    best = json.loads(capsys.readouterr().out.splitlines()[-1])["best"]
    assert main(["reverse", "--along", best["deal"], "--tricks", "30", "--max-states", "3000",
                 "--db", db, "--json"]) == 0
    longer = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    rules = get_rules("standard")
    for find in longer:
        replay = play(parse_deal(find["deal"], rules), rules)
        assert replay.outcome == "win" and replay.cards == find["cards"] > best["cards"]
    assert main(["records", "--db", db, "--verify"]) == 0


def test_reverse_refuses_more_than_two_players(capsys):
    assert main(["reverse", "-A-/-K-/-Q-"]) == 2
    assert "2-player deals only" in capsys.readouterr().err
