"""The cycle factory: every cycle it keeps is a cycle of the reference engine, moves do what
they say, and the command logs what it builds."""

from __future__ import annotations

import csv
import json
import random
import shlex
from pathlib import Path

import pytest

from dealsearch.cli import main
from dealsearch.games.beggar.catalogue import cycle_id, cycle_key
from dealsearch.games.beggar.factory import (
    closer_moves,
    distance,
    expand,
    find_loop,
    sample_moves,
    seed_loops,
    starting_deals,
)
from dealsearch.games.beggar.factory_run import Factory, grow
from dealsearch.games.beggar.families import card_states, family_of, pieces, tricks
from dealsearch.games.beggar.notation import ITALIAN, STANDARD, Deal, parse_deal, parse_deck
from dealsearch.games.beggar.reference import cycle_states, play_reference
from dealsearch.log import RecordLog

from deals import CASELLA, CASELLA_LESS_A_JACK

FOUND = Path(__file__).resolve().parents[3] / "data" / "found_deals.csv"


def reference_cycles(hands, rules=STANDARD) -> bool:
    return play_reference(Deal(hands), rules).outcome == "cycle"


def test_seed_loops_are_the_cycles_of_the_small_deck():
    seeds = seed_loops(parse_deck("------JJQQK"))
    assert len({loop.key for loop in seeds}) == len(seeds) > 0
    for loop in seeds:
        assert loop.cards == 11
        assert cycle_key(loop.deal()) == loop.key
        assert all(reference_cycles(hands) for hands in loop.states)
        assert len(loop.states) == loop.period_tricks


def test_growing_a_small_cycle_keeps_a_cycle_by_the_reference_engine():
    seed = seed_loops(parse_deck("------JJQQK"))[0]
    seen = {seed.key}
    children = expand(seed, STANDARD.deck, random.Random(3), seen, samples=2000)
    assert children, "no cycle one move from a seed"
    assert any(child.cards > seed.cards for child in children)
    for child in children:
        assert child.key in seen and child.key != seed.key
        assert child.parent == seed.key
        assert reference_cycles(child.states[0])
        assert cycle_key(child.deal()) == child.key


def test_sampled_moves_stay_within_the_deck_size_and_keep_every_hand():
    loop = find_loop(parse_deal(CASELLA))
    moved = sample_moves(loop, STANDARD.deck, random.Random(1), 500, slack=1, double=0.5)
    assert len(moved) == 500
    for hands in moved:
        assert all(hands)
        assert abs(sum(map(len, hands)) - 52) <= 2
        assert sum(map(len, hands)) <= 53
    assert not moved & set(loop.states)


def test_closer_moves_are_exactly_one_card_nearer_the_target():
    loop = find_loop(parse_deal(CASELLA_LESS_A_JACK, deck="any"))
    assert distance(loop.counts(5), STANDARD.deck) == 1
    moved = closer_moves(loop, STANDARD.deck)
    assert moved
    for hands in moved:
        assert distance(Deal(hands).class_counts(5), STANDARD.deck) == 0


def test_grow_puts_the_jack_back_and_finds_casellas_cycle():
    start = find_loop(parse_deal(CASELLA_LESS_A_JACK, deck="any"))
    whole = list(grow([start], STANDARD, max_nodes=1, samples=64))
    assert cycle_key(parse_deal(CASELLA)) in {loop.key for loop in whole}
    for loop in whole:
        assert loop.counts(5) == STANDARD.deck


def test_starting_deals_of_casellas_cycle_are_the_30_of_the_paper():
    loop = find_loop(parse_deal(CASELLA))
    starts = starting_deals(loop)
    assert len(starts) == 30
    for text in starts:
        deal = parse_deal(text)
        assert deal.hand_sizes == (26, 26)
        assert cycle_key(deal) == loop.key


def test_italian_seeds_grow_under_italian_payments():
    seeds = seed_loops(parse_deck("00000011223", ITALIAN), ITALIAN)
    assert seeds
    children = expand(seeds[0], ITALIAN.deck, random.Random(2), set(), ITALIAN, samples=1000)
    for child in children:
        assert play_reference(child.deal(), ITALIAN).outcome == "cycle"
        assert cycle_key(child.deal(), ITALIAN) == child.key


def test_the_balanced_variant_of_casellas_cycle_shares_no_state_with_it():
    """The README's claim about the 26/26 row: its cycle and Casella's have no trick-boundary
    state in common, whichever seat is to move (the issue's test of "another cycle")."""
    rows = [row for row in csv.DictReader(FOUND.open(encoding="utf-8"))
            if "variant" in row["method"]]
    assert len(rows) == 1
    deal = parse_deal(rows[0]["deal"])
    assert deal.hand_sizes == (26, 26)

    def seen_from_either_seat(states):
        return {(hands[(to_move + i) % 2], hands[(to_move + 1 + i) % 2])
                for hands, to_move in states for i in (0, 1)}

    ours = seen_from_either_seat(cycle_states(deal))
    theirs = seen_from_either_seat(cycle_states(parse_deal(CASELLA)))
    assert len(ours) == len(theirs) == 124 and not ours & theirs


def test_factory_command_logs_whole_deck_cycles_with_their_starts(capsys, tmp_path):
    db = tmp_path / "log.sqlite"
    status = main(["factory", "--start", CASELLA_LESS_A_JACK, "--nodes", "1",
                   "--samples", "64", "--stop-after", "1", "--json", "--db", str(db)])
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert status == 0
    found, summary = lines[0], lines[-1]
    assert found["cycle_id"] == cycle_id(parse_deal(CASELLA))
    assert len(found["starts"]) == 30
    assert summary["full"] >= 1 and summary["with_starts"] >= 1
    log = RecordLog(db)
    assert {run["strategy"] for run in log.runs()} == {"factory"}
    assert found["cycle_id"] in {cycle["id"] for cycle in log.cycles()}
    assert len(log.finds()) == 31  # the cycle's state and its 30 starting deals
    log.close()


def test_an_interrupted_factory_run_says_how_it_goes_on(capsys, tmp_path, monkeypatch):
    db = tmp_path / "log.sqlite"
    absorb = Factory.absorb

    def absorb_then_ctrl_c(self, reports):
        absorb(self, reports)
        raise KeyboardInterrupt

    monkeypatch.setattr(Factory, "absorb", absorb_then_ctrl_c)
    assert main(["factory", "--start", CASELLA_LESS_A_JACK, "--nodes", "2", "--samples", "64",
                 "--workers", "1", "--db", str(db)]) == 130
    out = capsys.readouterr().out
    monkeypatch.undo()
    with RecordLog(db, readonly=True) as log:
        (run,) = log.runs()
        assert run["status"] == "interrupted"
    suggested = out.splitlines()[-1].split("continue with: ")[1]
    assert main(["records", "--db", str(db)]) == 0
    (line,) = [line for line in capsys.readouterr().out.splitlines() if "run 1 " in line]
    assert line.startswith("run 1 interrupted: factory run")
    assert line.endswith(f"continue with: {suggested}")
    assert main(["search", "--resume", "1", "--db", str(db)]) == 2
    assert f"continue with: {suggested}" in capsys.readouterr().err
    assert main(shlex.split(suggested)[1:]) == 0  # the suggestion is a command that works
    with RecordLog(db, readonly=True) as log:
        assert [run["status"] for run in log.runs()] == ["done"]


@pytest.mark.parametrize(("argv", "message"), [
    (["factory", "--deck", "--J"], "no deal of it never ends"),
    (["factory", "--deck", "-----JJJJJ"], "more cards of a class"),
    (["factory", "--deck", "Z"], "unknown card"),
    (["factory", "--start", "--------------------------/--------------------------"],
     "game ends"),
    (["factory", "--players", "4"], "no default start deck"),
])
def test_factory_bad_input_is_one_line_and_exit_2(capsys, tmp_path, argv, message):
    status = main([*argv, "--db", str(tmp_path / "log.sqlite")])
    err = capsys.readouterr().err
    assert status == 2
    assert message in err and len(err.strip().splitlines()) == 1


def test_pieces_lie_together_in_every_state_of_the_cycle_and_make_up_the_hands():
    loop = find_loop(parse_deal("--J-/---------------KJ--Q----K-Q-K-K--J--A-AQ-AQ-A-J-",
                                deck="any"))
    hands = loop.states[0]
    found = pieces(hands)
    assert [card for piece in found for card in piece] == [c for hand in hands for c in hand]
    assert any(len(piece) > 1 for piece in found)
    states = card_states(hands)
    assert len(states) >= loop.period_tricks
    start = 0
    for piece in found:  # the labels of a piece are consecutive in the first state ...
        labels = tuple(range(start, start + len(piece)))
        start += len(piece)
        for state in states:  # ... and lie together, in order, in one hand of every state
            assert any(_contains(hand, labels) for hand in state)


def _contains(hand, run) -> bool:
    return any(hand[i:i + len(run)] == run for i in range(len(hand) - len(run) + 1))


def test_a_family_is_the_same_piles_in_another_order():
    casella = find_loop(parse_deal(CASELLA))
    assert sorted(tricks(casella.states[0])) == sorted(tricks(casella.states[5]))
    rotated = "/".join("".join("-JQKA"[c] for c in hand) for hand in casella.states[7])
    assert family_of(rotated) == family_of(CASELLA)
    swapped = "--J-/Q-QK-J-"  # a king and a queen swapped: other piles, another family
    assert family_of("--J-/K-QQ-J-", STANDARD) != family_of(swapped, STANDARD)
