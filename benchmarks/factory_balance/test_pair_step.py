"""The pair step: its ring is every state two card moves away and more even (checked against
a plain enumeration), and every never-ending state it reports is one, by the compiled engine
and the reference engine alike."""

from __future__ import annotations

from dealsearch.games.beggar.engine import play
from dealsearch.games.beggar.factory import find_loop, seed_loops
from dealsearch.games.beggar.notation import Deal, parse_deck
from dealsearch.games.beggar.reference import cycle_states

from .balance import gap
from .pair_step import never_ending_pairs, pair_climb, pair_states


def _moves(hands):
    """Every state one card move from ``hands`` (a card taken out and put anywhere)."""
    row = [*hands[0], None, *hands[1]]
    out = set()
    for i, card in enumerate(row):
        if card is None:
            continue
        rest = row[:i] + row[i + 1:]
        for k in range(len(row)):
            new = [*rest[:k], card, *rest[k:]]
            cut = new.index(None)
            out.add((tuple(new[:cut]), tuple(new[cut + 1:])))
    return out


def _plain_ring(hands, lateral=False):
    before = gap(hands)
    ring = set()
    for one in _moves(hands):
        if gap(one) < before:
            ring |= {two for two in _moves(one) | {one}
                     if gap(two) < before + lateral and all(two)}
    return ring


def test_the_ring_is_every_more_even_state_one_or_two_moves_away():
    for hands in (((0, 0, 0, 1), (2,)), ((0, 1, 0, 3, 0, 2, 0), (4, 1)),
                  ((1, 0, 2, 0, 0, 0, 3), (0,)), ((0,), (1, 0, 2, 0, 0, 3, 0, 4))):
        ring = pair_states(hands)
        assert ring == _plain_ring(hands)
        assert all(sorted(a + b) == sorted(hands[0] + hands[1]) for a, b in ring)
        wider = pair_states(hands, lateral=True)
        assert wider == _plain_ring(hands, lateral=True)
        assert ring < wider and {gap(state) for state in wider - ring} == {gap(hands)}


def _never_ends(hands):
    return play(Deal(hands)).outcome == "cycle" and cycle_states(Deal(hands)) is not None


def test_never_ending_pairs_are_never_ending_and_in_the_ring():
    loop = seed_loops(parse_deck("------JJQQK"))[0]
    state = max(loop.states, key=gap)
    found, played = never_ending_pairs(state)
    assert found and played >= len(pair_states(state))
    assert set(found) <= pair_states(state)
    assert all(_never_ends(hands) for hands in found)
    # and every state of the ring left out ends
    assert not any(_never_ends(hands) for hands in pair_states(state) - set(found))


def test_the_climb_reaches_a_balanced_never_ending_deal_through_new_cycles():
    loop = next(loop for loop in seed_loops(parse_deck("------JJQQK")) if loop.imbalance())
    for lateral in (False, True):
        # no walk backwards (its own states only): the ring alone must do it
        reached = pair_climb([loop], max_states=1, max_rings=3, seconds=None, lateral=lateral)
        assert reached.gap == gap(reached.state) == 0 < loop.imbalance()
        assert _never_ends(reached.state)
        assert reached.found and reached.rings >= 1
        for hands in reached.found:
            assert _never_ends(hands)
            assert find_loop(Deal(hands)).key in reached.cycles - {loop.key}
