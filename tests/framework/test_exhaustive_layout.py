"""Exhaustive search plays every distinct deal of the layout once: fixed segments keep their
cards, an unordered segment is played once per content."""

from __future__ import annotations

from itertools import permutations
from typing import Any, ClassVar

import numpy as np
import pytest

from dealsearch.examples.war import War, play
from dealsearch.game import (
    BatchResults,
    GameError,
    GameResult,
    Layout,
    Row,
    canonical,
    register,
)
from dealsearch.orderings import count_deals, unrank
from dealsearch.search.distinct import DistinctDeals, at_least
from dealsearch.testing import Subject, exhaustive_respects_the_layout

from conftest import search_json


def brute_force(layout: Layout) -> set[tuple[int, ...]]:
    """Every deal of the layout, the obvious way: all orderings of the free positions and of
    each fixed segment, unordered segments sorted."""
    bounds = list(zip(layout.bounds(), layout.fixed, layout.unordered, strict=True))
    free = [i for (a, b), fixed, _ in bounds if not fixed for i in range(a, b)]
    deals = set()
    parts = [free] + [list(range(a, b)) for (a, b), fixed, _ in bounds if fixed]
    rows = [np.array(layout.deck, dtype=np.uint8)]
    for positions in parts:
        grown = []
        for row in rows:
            for order in set(permutations(row[positions].tolist())):
                child = row.copy()
                child[positions] = order
                grown.append(child)
        rows = grown
    for row in rows:
        for (a, b), _, unordered in bounds:
            if unordered:
                row[a:b].sort()
        deals.add(tuple(row.tolist()))
    return deals


LAYOUTS = [
    Layout(np.array([0, 0, 1, 1, 2], np.uint8), (2, 3), unordered=(True, False)),
    Layout(np.array([0, 1, 1, 0, 0, 1], np.uint8), (3, 3), fixed=(True, False)),
    Layout(np.array([0, 0, 1, 2, 0, 1, 2, 2], np.uint8), (2, 3, 3),
           unordered=(True, False, True), fixed=(False, True, False)),
    Layout(np.array([0, 1, 2, 3, 0, 1, 2, 3], np.uint8), (4, 4), unordered=(True, True),
           fixed=(True, True)),
    Layout(np.array([0, 0, 0, 1, 1, 2, 3], np.uint8), (3, 2, 2), unordered=(False, True, True)),
]


@pytest.mark.parametrize("layout", LAYOUTS, ids=lambda layout: str(layout.segments))
def test_every_distinct_deal_once_in_order(layout):
    deals = DistinctDeals(layout)
    rows = [tuple(deals.row(i).tolist()) for i in range(deals.total)]
    assert set(rows) == brute_force(layout) and len(rows) == len(set(rows))
    assert at_least(layout) <= deals.total
    assert [tuple(r) for r in deals.block(0, deals.total + 5).tolist()] == rows


def test_a_plain_deck_is_numbered_as_its_orderings():
    counts = (3, 2, 2)
    deck = np.repeat(np.arange(3, dtype=np.uint8), counts)
    deals = DistinctDeals(Layout(deck, (4, 3)))
    assert deals.total == count_deals(counts)
    assert [tuple(r) for r in deals.block(5, 40).tolist()] == \
        [unrank(i, counts) for i in range(5, 45)]


class PackWar(War):
    """War where each player brings a pack (two cards of each rank) and player 1 plays their
    hand lowest card first: a fixed segment each, the first unordered."""

    name: ClassVar[str] = "packwar"
    title: ClassVar[str] = "Pack War"

    def layout(self, options: Any) -> Layout:
        pack = np.repeat(np.arange(options.values, dtype=np.uint8), 2)
        return Layout(np.concatenate([pack, pack]), (len(pack), len(pack)),
                      unordered=(True, False), fixed=(True, True), names=("hand 1", "hand 2"))

    def parse(self, text: str, options: Any) -> Row:
        hands = text.strip().split("/")
        row = np.array([int(c) for c in "".join(hands)], dtype=np.uint8)
        pack = sorted(self.layout(options).deck[:len(row) // 2].tolist())
        if len(hands) != 2 or any(sorted(int(c) for c in hand) != pack for hand in hands):
            raise GameError(f"{text!r}: each hand is a pack of {options.values} values, two each")
        return canonical(self, row, options)

    def format(self, row: Row, options: Any) -> str:
        return super().format(canonical(self, row, options), options)

    def play_reference(self, row: Row, options: Any) -> GameResult:
        return play(canonical(self, row, options), options)

    def play_batch(self, rows: Any, options: Any) -> BatchResults:
        rows = np.atleast_2d(np.asarray(rows, dtype=np.uint8))
        return War().play_batch([canonical(self, row, options) for row in rows], options)


PACKWAR = register(PackWar())


def test_the_contract_checks_the_layout_on_a_small_deck():
    exhaustive_respects_the_layout(Subject(PACKWAR, ({"values": 3}, {"values": 2}), rows=50))


def test_an_exhaustive_search_plays_each_deal_of_the_layout_once(capsys, tmp_path):
    # Hand 1 is one set of cards; hand 2 is any order of its own pack: 6!/2!^3 deals.
    _, summary = search_json(capsys, "exhaustive", "--game", "packwar", "--values", "3",
                             "--workers", "1", "--db", str(tmp_path / "log.sqlite"))
    assert summary["deals"] == 90 == sum(summary["outcomes"].values())
